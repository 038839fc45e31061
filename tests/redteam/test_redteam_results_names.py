"""Students named after the grader's own files cannot shape the results folder, and what the grader
writes there is readable by its owner only (or its group, when asked).

Six files are graded through the ``autograder`` command, as root and as the unprivileged user side by
side: ``report.html.py``, ``.grader-key.py``, ``.batch.json.py``, ``students.py``,
``class-report.html.py`` and ``grades.csv.py`` (the gradebook is written as ``RESULTS/grades.csv``).
Each student is graded into ``RESULTS/students/<student>/``, the grader's own files stay the
grader's, ``autograder report`` writes its page and a class page in the results folder, and every
file is 0600 and every folder 0700; graded again with ``--group-readable`` (every result kept), 0640
and 0750. ``.grader-key`` is 0600 throughout. The root run makes its results folder (0700, then
0750); the unprivileged run's folder is made and handed to that user beforehand, so it keeps its
mode.
"""

from __future__ import annotations

import csv
import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from autograder.assignments import instructor_dir
from autograder.report import KEY_FILE, student_dir
from autograder.students import folder_name
from redteam_harness import MODES, UNPRIVILEGED_UID, Stage, _readable, grade_args, start_user_grading
from unprivileged import unprivileged_prefix

NAMES = ["report.html", ".grader-key", ".batch.json", "students", "class-report.html", "grades.csv"]
HONEST = "report.html"  #: the one that hands in the reference: a real score must land in the right place


@dataclass
class NamedRun:
    """One mode's results folder and what each step printed."""

    mode: str
    results: Path
    made_by_grader: bool
    steps: dict[str, subprocess.CompletedProcess] = field(default_factory=dict)
    modes_after: dict[str, dict[str, int]] = field(default_factory=dict)


def _command(*args: str) -> list[str]:
    return [sys.executable, "-m", "autograder.cli", *args]


def _run(stage: Stage, mode: str, command: list[str]) -> subprocess.CompletedProcess:
    prefix = unprivileged_prefix(stage.base) if mode == "user" else []
    return subprocess.run(prefix + command, cwd=stage.base, env=stage.environment(mode), capture_output=True,
                          text=True, timeout=900)


def _modes(root: Path) -> dict[str, int]:
    found = {".": stat.S_IMODE(root.lstat().st_mode)}
    for path in sorted(root.rglob("*")):
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def _grade_names(stage: Stage) -> dict[str, NamedRun]:
    reference = (instructor_dir() / "reference" / "hypermines.py").read_text(encoding="utf-8")
    files, runs = {}, {}
    for mode in MODES:
        top = stage.base / f"names-{mode}"
        (top / "submitted").mkdir(parents=True)
        files[mode] = []
        for name in NAMES:
            path = top / "submitted" / f"{name}.py"
            path.write_text(reference if name == HONEST else "x = 1\n", encoding="utf-8")
            files[mode].append(path)
        _readable(top)
        runs[mode] = NamedRun(mode, top / "results", made_by_grader=mode == "root")
    # As in a red-team battery: the unprivileged command in the background, the root one meanwhile.
    user = start_user_grading(stage, "hypermines", files["user"], runs["user"].results, jobs=1)
    args = [*map(str, files["root"]), "--results-dir", str(runs["root"].results), "--csv",
            str(runs["root"].results / "grades.csv"), *grade_args("hypermines", None, jobs=1)]
    runs["root"].steps["grade"] = _run(stage, "root", _command("grade", "--assignment", "hypermines", *args))
    output, error = user.communicate(timeout=900)
    runs["user"].steps["grade"] = subprocess.CompletedProcess(user.args, user.returncode, output, error)
    for mode, run in runs.items():
        run.modes_after["grade"] = _modes(run.results)
        run.steps["report"] = _run(stage, mode, _command("report", str(run.results)))
        copy = run.results.with_name("results-copy")  # a second batch, for the class page
        shutil.copytree(run.results, copy, symlinks=True)
        if mode == "user":
            gid = pwd.getpwuid(UNPRIVILEGED_UID).pw_gid
            for path in [copy, *copy.rglob("*")]:
                os.chown(path, UNPRIVILEGED_UID, gid, follow_symlinks=False)
        run.steps["class"] = _run(stage, mode, _command("report", str(run.results), str(copy), "-o",
                                                          str(run.results / "class-report.html")))
        run.modes_after["report"] = _modes(run.results)
        again = [*map(str, files[mode]), "--results-dir", str(run.results), "--csv", str(run.results / "grades.csv"),
                 *grade_args("hypermines", None, jobs=1), "--group-readable"]
        run.steps["group"] = _run(stage, mode, _command("grade", "--assignment", "hypermines", *again))
        run.modes_after["group"] = _modes(run.results)
    return runs


@pytest.fixture(scope="module")
def named_runs(stage):
    return _grade_names(stage)


def _assert_modes(found: dict[str, int], results: Path, folder: int, file: int, top: int | None) -> None:
    wrong = []
    for name, mode in found.items():
        path = results / name
        if name == ".":
            expected = top
        elif name == KEY_FILE:
            expected = 0o600
        else:
            expected = folder if path.is_dir() else file
        if expected is not None and mode != expected:
            wrong.append(f"{name}: {oct(mode)}, not {oct(expected)}")
    assert wrong == [], wrong


@pytest.mark.parametrize("mode", MODES)
def test_every_student_is_graded_in_a_folder_of_their_own(named_runs, mode):
    run = named_runs[mode]
    grade = run.steps["grade"]
    assert grade.returncode == 0, grade.stdout[-3000:] + grade.stderr[-3000:]
    assert "graded 6, kept 0" in grade.stdout, grade.stdout[-2000:]
    assert sorted(p.name for p in (run.results / "students").iterdir()) == sorted(folder_name(n) for n in NAMES)
    for name in NAMES:
        data = json.loads((student_dir(run.results, name) / "results.json").read_text(encoding="utf-8"))
        assert data["extra_data"]["student"] == name and data["extra_data"]["status"] == "graded"
        assert data["score"] == (20 if name == HONEST else 0), (name, data["output"])
    # The grader's own files are still the grader's.
    key = run.results / KEY_FILE
    assert key.is_file() and not key.is_symlink() and len(key.read_bytes()) == 65
    assert "hypermines" in json.loads((run.results / ".batch.json").read_text(encoding="utf-8"))
    with open(run.results / "grades.csv", encoding="utf-8", newline="") as handle:
        rows = list(csv.DictReader(handle))
    assert sorted(row["student"] for row in rows) == sorted(NAMES)
    owners = {path.stat().st_uid for path in [run.results, *run.results.rglob("*")]}
    assert owners == ({0} if mode == "root" else {UNPRIVILEGED_UID})


@pytest.mark.parametrize("mode", MODES)
def test_the_report_and_the_class_page_are_written_beside_the_students(named_runs, mode):
    run = named_runs[mode]
    for step in ("report", "class"):
        done = run.steps[step]
        assert done.returncode == 0, (step, done.stdout[-2000:], done.stderr[-2000:])
        assert "Traceback" not in done.stderr
    page = (run.results / "report.html").read_text(encoding="utf-8")
    for name in NAMES:
        assert f'href="students/{folder_name(name)}/feedback.txt"' in page, name
    assert (run.results / "class-report.html").is_file()
    assert "students/report.html/feedback.txt" in (run.results / "class-report.html").read_text(encoding="utf-8")


@pytest.mark.parametrize("mode", MODES)
def test_results_are_their_owners_only(named_runs, mode):
    """0700 and 0600 after grading and after the report; the root run made its results folder
    (0700), the unprivileged run's was there before and keeps its mode."""
    run = named_runs[mode]
    top = 0o700 if run.made_by_grader else stat.S_IMODE(0o777 & ~_umask())
    for step in ("grade", "report"):
        _assert_modes(run.modes_after[step], run.results, 0o700, 0o600, top)
    assert {"report.html", "class-report.html", "grades.csv", ".batch.json"} <= set(run.modes_after["report"])


@pytest.mark.parametrize("mode", MODES)
def test_group_readable_results(named_runs, mode):
    """Graded again with --group-readable: every result is kept, and everything is 0750 and 0640
    (the key 0600); the results folder the grader made follows, the other keeps its mode."""
    run = named_runs[mode]
    done = run.steps["group"]
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert "graded 0, kept 6" in done.stdout, done.stdout[-2000:]
    top = 0o750 if run.made_by_grader else stat.S_IMODE(0o777 & ~_umask())
    _assert_modes(run.modes_after["group"], run.results, 0o750, 0o640, top)


def _umask() -> int:
    """This process's umask: the mode of a folder made with the usual 0777 (the unprivileged run's
    results folder is made so before it starts)."""
    current = os.umask(0)
    os.umask(current)
    return current
