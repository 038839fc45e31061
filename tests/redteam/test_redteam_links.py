"""Links a student hands in are never followed, and a name that collides with another costs nothing.

Each case runs the real commands, as root and as the unprivileged user side by side:
``autograder grade``, Gradescope's ``run_autograder`` from an exported zip, ``mines tournament
--dir``. A student folder linked to the instructor's notebooks, an nbgrader assignment folder
linked to the instructor's source, a link in the middle of a path, an upload holding only a link
to the hidden suites, a linked bot file: each gets exactly the outcome asserted, with a message
naming the link, and nothing behind the link is opened. The folders behind the links are watched
with inotify while the commands run: an open by any process, as any user, is seen.
"""

from __future__ import annotations

import ctypes
import hashlib
import json
import os
import shutil
import struct
import sys
import zipfile
from pathlib import Path

import pytest

from autograder.assignments import get_assignment, instructor_dir, notebooks_dir
from autograder.gradescope import export
from autograder.report import student_dir
from redteam_harness import MODES, REPO, finish, give_to_user, grade, readable, results_of, start

HYPERMINES = get_assignment("hypermines")
#: The reference scores this; a submission read through a link to the instructor's copy would too.
FULL = 20


# ---------------------------------------------------------------------------- watching the targets
class OpenWatch:
    """Every open or read, by any process, of a folder below ``folders`` or of a file in one
    (inotify: the kernel reports it whatever user or mount namespace the process is in)."""

    IN_ACCESS, IN_OPEN, IN_ISDIR = 0x1, 0x20, 0x40000000

    def __init__(self, folders: list[Path]):
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.fd = self.libc.inotify_init1(os.O_NONBLOCK | os.O_CLOEXEC)
        assert self.fd >= 0, os.strerror(ctypes.get_errno())
        self.watched: dict[int, Path] = {}
        every = [where for folder in folders for where, _, _ in os.walk(folder)]  # listed before any watch
        for where in every:
            wd = self.libc.inotify_add_watch(self.fd, os.fsencode(where), self.IN_ACCESS | self.IN_OPEN)
            assert wd >= 0, (where, os.strerror(ctypes.get_errno()))
            self.watched[wd] = Path(where)

    def seen(self) -> list[str]:
        """What was opened or read since the watch began; the watch ends."""
        events = []
        try:
            while True:
                try:
                    data = os.read(self.fd, 65536)
                except BlockingIOError:
                    break
                offset = 0
                while offset < len(data):
                    wd, mask, _, size = struct.unpack_from("iIII", data, offset)
                    name = data[offset + 16: offset + 16 + size].rstrip(b"\0").decode(errors="replace")
                    offset += 16 + size
                    what = "open" if mask & self.IN_OPEN else "read"
                    events.append(f"{what} {self.watched.get(wd, '?')}/{name}")
        finally:
            os.close(self.fd)
        return events


def files_holding(text: str, folder: Path) -> list[str]:
    return sorted(str(p) for p in folder.rglob("*") if p.is_file() and text in p.read_text(errors="replace"))


def assert_refused_link(results: Path, student: str, problem: str) -> None:
    """The student is graded, 0 of 20, told which link was refused, and nothing was read."""
    written, feedback, stamp = results_of(results, student)
    assert written["score"] == 0 and written["extra_data"]["status"] == "graded", written
    assert problem in written["output"], written["output"]
    assert all(test["score"] == 0 and test["output"] == f"not graded: {problem}" for test in written["tests"])
    assert f"Score: 0 / {FULL}\n\nYour code did not load: {problem}\n" in feedback, feedback
    assert "No file was read." in feedback, feedback
    assert stamp["source"] == {"name": "", "sha256": ""}, stamp  # not a byte was read for this student


def reference_source() -> str:
    return (instructor_dir() / "reference" / "hypermines.py").read_text(encoding="utf-8")


def marked(marker: str) -> str:
    """The reference with a function only the instructor's copy has: graded through a link, it
    would score full marks."""
    return reference_source() + f"\n\ndef {marker}():\n    return {marker!r}\n"


# ---------------------------------------------------------------------------- the cases
def test_a_student_folder_linked_to_the_instructors_notebooks_is_never_read(stage):
    """``submitted/mallory -> notebooks/`` once made the grader grade the instructor's source
    notebook; ``submitted/frank/work -> elsewhere/`` hides a lab.py one folder down."""
    marker = f"instructor_only_{stage.markers['root']}"
    tops = {mode: stage.base / f"links-folder-{mode}" for mode in MODES}
    for top in tops.values():
        notebooks = top / "instructor-notebooks"
        shutil.copytree(notebooks_dir(), notebooks, ignore=shutil.ignore_patterns(".*", "__pycache__"))
        (notebooks / "lab.py").write_text(marked(marker))
        elsewhere = top / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "lab.py").write_text(marked(marker))
        submitted = top / "submitted"
        (submitted / "honest").mkdir(parents=True)
        (submitted / "honest" / "lab.py").write_text(reference_source())
        (submitted / "mallory").symlink_to(notebooks)
        (submitted / "frank").mkdir()
        (submitted / "frank" / "work").symlink_to(elsewhere)
        readable(top)
    watch = OpenWatch([top / name for top in tops.values() for name in ("instructor-notebooks", "elsewhere")])
    runs = finish({mode: grade(stage, mode, [top / "submitted"], top / "results") for mode, top in tops.items()})
    assert watch.seen() == []
    for mode, top in tops.items():
        run, results = runs[mode], top / "results"
        assert run.returncode == 0, (mode, run.stdout[-2000:], run.stderr[-3000:])
        assert results_of(results, "honest")[0]["score"] == FULL
        assert_refused_link(results, "mallory", "submitted/mallory is a symbolic link; hand in the folder itself")
        assert_refused_link(results, "frank", "frank/work is a symbolic link; hand in the folder itself")
        assert files_holding(marker, results) == [], mode
        assert marker not in run.stdout + run.stderr


def test_nbgrader_assignment_folders_that_are_links_are_never_read(stage):
    """In an nbgrader course: ``submitted/eve/hypermines -> elsewhere/`` (a link in the middle of
    the path to a lab.py) and ``submitted/zed/hypermines -> source/hypermines/`` (the instructor's
    own assignment folder, with the source notebook)."""
    marker = f"instructor_only_{stage.markers['user']}"
    tops = {mode: stage.base / f"links-course-{mode}" for mode in MODES}
    for top in tops.values():
        course = top / "course"
        source = course / "source" / HYPERMINES.folder
        source.mkdir(parents=True)
        shutil.copyfile(HYPERMINES.notebook_path, source / HYPERMINES.handed_in)
        (source / "lab.py").write_text(marked(marker))
        (course / "nbgrader_config.py").write_text("c = get_config()\n")
        elsewhere = top / "elsewhere"
        elsewhere.mkdir()
        (elsewhere / "lab.py").write_text(marked(marker))
        submitted = course / "submitted"
        (submitted / "honest" / HYPERMINES.folder).mkdir(parents=True)
        (submitted / "honest" / HYPERMINES.folder / "lab.py").write_text(reference_source())
        (submitted / "honest" / HYPERMINES.folder / "timestamp.txt").write_text("2026-11-20 13:04:22.123456 UTC")
        (submitted / "eve").mkdir()
        (submitted / "eve" / HYPERMINES.folder).symlink_to(elsewhere)
        (submitted / "zed").mkdir()
        (submitted / "zed" / HYPERMINES.folder).symlink_to(source)
        readable(top)
    watch = OpenWatch([top / name for top in tops.values() for name in ("course/source", "elsewhere")])
    runs = finish({mode: grade(stage, mode, [top / "course"], top / "results", "--no-gradebook")
                   for mode, top in tops.items()})
    assert watch.seen() == []
    for mode, top in tops.items():
        run, results = runs[mode], top / "results"
        assert run.returncode == 0, (mode, run.stdout[-2000:], run.stderr[-3000:])
        assert results_of(results, "honest")[0]["score"] == FULL
        for student in ("eve", "zed"):
            assert_refused_link(results, student, f"{student}/hypermines is a symbolic link; hand in the folder itself")
        assert files_holding(marker, results) == [], mode


@pytest.fixture(scope="module")
def gradescope_zip(tmp_path_factory) -> Path:
    return export("hypermines", tmp_path_factory.mktemp("links-export") / "autograder.zip")


def test_a_gradescope_upload_holding_only_a_link_to_the_suites_is_never_read(stage, gradescope_zip):
    """On Gradescope the grader grades /autograder/submission, and the hidden suite lies beside it
    in /autograder/source: an upload of one folder link to the suites once had the suite graded as
    the submission."""
    roots = {mode: stage.base / f"links-gradescope-{mode}" for mode in MODES}
    processes = {}
    for mode, root in roots.items():
        zipfile.ZipFile(gradescope_zip).extractall(root / "source")
        (root / "submission").mkdir()
        (root / "submission" / "sub").symlink_to(root / "source" / "autograder" / "instructor" / "suites")
        readable(root)
        (root / "home").mkdir()
        if mode == "user":
            give_to_user(root / "results")
            give_to_user(root / "home")
        env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
               "AUTOGRADER_PYTHON": sys.executable, "HOME": str(root / "home"), "LANG": "C.UTF-8",
               "TMPDIR": str(stage.base / f"tmp-{mode}")}
        processes[mode] = start(stage, mode, ["bash", str(root / "source" / "run_autograder")], env)
    runs = finish(processes)
    suite = (roots["root"] / "source" / "autograder" / "instructor" / "suites" / HYPERMINES.suite_path.name)
    suite_lines = {line.strip() for line in suite.read_text().splitlines() if len(line.strip()) > 30}
    problem = "submission/sub is a symbolic link; hand in the folder itself"
    for mode, root in roots.items():
        run = runs[mode]
        assert run.returncode == 0, (mode, run.stdout[-2000:], run.stderr[-3000:])
        assert run.stdout.strip().splitlines()[-1] in ("hypermines: 0 points", "hypermines: 0.0 points"), run.stdout
        text = (root / "results" / "results.json").read_text()
        written = json.loads(text)
        assert written["score"] == 0 and written["extra_data"]["status"] == "graded", written
        assert problem in written["output"], written["output"]
        assert written["tests"] and all(t["output"] == f"not graded: {problem}" for t in written["tests"])
        assert [line for line in suite_lines if line in text] == [], mode


def test_a_linked_bot_file_in_a_tournament_folder_is_refused(stage):
    """``mines tournament --dir DIR`` with one bot file a link to a file outside DIR: the whole
    run is refused naming the link, and the file behind it is never opened."""
    marker = f"secret_bot_{stage.markers['root']}"
    tops = {mode: stage.base / f"links-tournament-{mode}" for mode in MODES}
    for top in tops.values():
        (top / "bots").mkdir(parents=True)
        shutil.copyfile(REPO / "tests" / "bots" / "data" / "tournament" / "first_covered.py",
                        top / "bots" / "first_covered.py")
        (top / "secret").mkdir()
        (top / "secret" / "judge.py").write_text(f"# {marker}\ndef next_move(view):\n    return None\n")
        (top / "bots" / "judge.py").symlink_to(top / "secret" / "judge.py")
        readable(top)
    watch = OpenWatch([top / "secret" for top in tops.values()])
    processes = {}
    for mode, top in tops.items():
        if mode == "user":
            give_to_user(top / "out")
        processes[mode] = start(stage, mode, [
            sys.executable, "-m", "minesweeper_kit.cli", "tournament", "random", "--dir", str(top / "bots"),
            "--preset", "beginner", "--games", "2", "-j", "1", "--quiet", "--seed", "1",
            "--results-dir", str(top / "out" / "results")])
    runs = finish(processes)
    assert watch.seen() == []
    for mode, top in tops.items():
        run = runs[mode]
        assert run.returncode == 2, (mode, run.stdout, run.stderr)
        assert run.stderr == (f"mines tournament: {top / 'bots' / 'judge.py'} is a symbolic link: --dir follows "
                              "no link; copy the bot file itself there\n"), run.stderr
        assert not (top / "out" / "results").exists() or not any((top / "out" / "results").rglob("*.json"))
        assert marker not in run.stdout + run.stderr


def handed_in_id(student: str, name: str) -> str:
    return f"{student}-{hashlib.sha256(name.encode()).hexdigest()[:8]}"


def test_students_whose_names_collide_are_both_graded_under_ids_of_their_own(stage):
    """``Victim Honest.py`` beside ``victim_honest.py``, and ``Ana/`` beside ``ana/``, would each
    share a results folder: all four are graded, each under an id of its own that a resumed batch
    finds again, the instructor is warned once per pair naming both files, and the rest of the
    batch is graded as ever."""
    tops = {mode: stage.base / f"links-collide-{mode}" for mode in MODES}
    for top in tops.values():
        (top / "files").mkdir(parents=True)
        (top / "files" / "Victim Honest.py").write_text(reference_source())
        (top / "files" / "victim_honest.py").write_text("x = 1\n")
        for name, text in (("Ana", "x = 1\n"), ("ana", reference_source()), ("bob", reference_source())):
            (top / "class" / name).mkdir(parents=True)
            (top / "class" / name / "lab.py").write_text(text)
        readable(top)
    given = {mode: [top / "files" / "Victim Honest.py", top / "files" / "victim_honest.py", top / "class"]
             for mode, top in tops.items()}
    #: the ids: each name, and a suffix made from the name handed in (the file's, or the folder's)
    named = {"files/Victim Honest.py": handed_in_id("Victim Honest", "Victim Honest.py"),
             "files/victim_honest.py": handed_in_id("victim_honest", "victim_honest.py"),
             "class/Ana/lab.py": handed_in_id("Ana", "Ana"), "class/ana/lab.py": handed_in_id("ana", "ana")}
    expected = dict(zip(named.values(), (FULL, 0, 0, FULL))) | {"bob": FULL}
    first = finish({mode: grade(stage, mode, given[mode], top / "results") for mode, top in tops.items()})
    again = finish({mode: grade(stage, mode, given[mode], top / "results") for mode, top in tops.items()})
    for mode, top in tops.items():
        run, results = first[mode], top / "results"
        assert run.returncode == 0, (mode, run.stdout[-2000:], run.stderr[-3000:])
        warnings = [line for line in run.stderr.splitlines() if line.startswith("autograder: warning: ")]
        assert len(warnings) == 2, run.stderr
        victims, anas = sorted(warnings, key=lambda line: "Victim" not in line)
        for warning, folder, pair in ((victims, "Victim_Honest", ["files/Victim Honest.py", "files/victim_honest.py"]),
                                      (anas, "Ana", ["class/Ana/lab.py", "class/ana/lab.py"])):
            assert warning.startswith(
                f"autograder: warning: 2 submissions would share the results folder {folder!r} (their names are the "
                "same once characters that cannot be in a folder name become '_' and case is ignored); each is graded "
                "under an id of its own: "), warning
            for file in pair:
                assert f"{top / file} as {named[file]!r}" in warning, (warning, file)
        scores = {student: results_of(results, student)[0]["score"] for student in expected}
        assert scores == expected, (mode, scores)
        folders = sorted(p.name for p in student_dir(results, "bob").parent.iterdir() if p.is_dir())
        assert len(folders) == 5 and len({f.casefold() for f in folders}) == 5, folders
        rows = (results / "grades.csv").read_text(encoding="utf-8").splitlines()[1:]
        assert sorted(row.split(",")[0] for row in rows) == sorted(expected), rows
        resumed = again[mode]
        assert resumed.returncode == 0, (mode, resumed.stderr[-3000:])
        assert "graded 0, kept 5 earlier result(s)" in resumed.stdout, resumed.stdout[-2000:]
