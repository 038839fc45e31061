"""The same submission graded with the same seed gets the same grade, however it is graded.

One batch of three hypermines submissions is graded first in this process (``grade_batch``,
``-j 1``) on the machine as it is: the baseline. Then the same batch is graded three more times at
once with the command line's ``--seed``: ``-j 1``, ``-j 2`` (the process pool) and ``--dask`` on a
local cluster of two worker processes, all held to one core beside two busy loops, so each grading
gets a small part of that core: about a sixth, as the kernel's autogroups give each sandbox (a
session of its own) one share and the busy loops one share together. (One core, not every core:
the rest of the test run keeps the others.) Every run must give each student the same score, the same ``feedback.txt`` and the same
``results.json``, apart from the one thing that states elapsed (wall-clock) time: the "Graded in X s" figure of the feedback and
``execution_time`` in ``results.json``. The CPU seconds each test used do vary from run to run;
the feedback does not show them.

The submissions:

* ``slow``: a correct solution in the plain recursive style whose hidden tests use about 4 s
  of CPU time (``data/timing/slow_hypermines.py``), graded with a budget of 9 s, near half of
  it: a grade that drifted with the machine's load would show here first.
* ``fast``: the reference solution.
* ``buggy``: the reference with zeros rendered as ``"0"``. Its feedback names random cases drawn
  from the seed, so it also shows that the compared text really depends on the seed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path

import pytest
from distributed import LocalCluster

from autograder.batch import grade_batch
from autograder.grading import GradeReport
from autograder.report import RECORD, student_dir

pytestmark = pytest.mark.slow

DATA = Path(__file__).resolve().parent / "data" / "timing"
SEED = 90210
OTHER_SEED = 90211
BUDGET = 9.0
HOGS = 2
STUDENTS = ("buggy", "fast", "slow")
ELAPSED = re.compile(r"^Graded in \d+\.\d s \(", re.MULTILINE)
ZERO_RENDERED = "return ZERO if board == 0 else str(board)"


@dataclass(frozen=True)
class Graded:
    """What a student receives, with the elapsed time taken out, and what the grader measured."""

    score: float
    feedback: str
    results: dict
    cpu_seconds: float            #: of all the student's tests together (varies from run to run)
    internal_errors: tuple[str, ...]
    elapsed: float                #: wall-clock seconds of the grading (``execution_time``)


def without_elapsed(feedback: str) -> str:
    """The feedback with its one wall-clock figure replaced; it must be there exactly once."""
    text, count = ELAPSED.subn("Graded in <elapsed> s (", feedback)
    assert count == 1, f"expected one 'Graded in X s' line:\n{feedback}"
    return text


def collect(results: Path) -> dict[str, Graded]:
    """What every student of a graded batch received, read from the results folder."""
    graded = {}
    for student in STUDENTS:
        folder = student_dir(results, student)
        written = json.loads((folder / "results.json").read_text())
        elapsed = written.pop("execution_time")
        record = GradeReport.from_dict(json.loads((folder / RECORD).read_text()))
        graded[student] = Graded(written["score"], without_elapsed((folder / "feedback.txt").read_text()),
                                 written, round(sum(t.seconds for t in record.tests), 2),
                                 tuple(record.internal_errors), elapsed)
    return graded


def command(paths: list[Path], results: Path, *how: str) -> list[str]:
    """``autograder grade`` on ``paths`` with this module's seed and budget."""
    return [sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines", "--seed", str(SEED),
            "--time-limit", f"{BUDGET:g}", "--results-dir", str(results), "--no-progress", *how,
            *map(str, paths)]


@contextmanager
def on_one_core():
    """Hold this process, and every process it starts in the block, to one core of those it may use."""
    allowed = os.sched_getaffinity(0)
    os.sched_setaffinity(0, {max(allowed)})
    try:
        yield
    finally:
        os.sched_setaffinity(0, allowed)


@contextmanager
def busy_machine(count: int = HOGS):
    """``count`` processes that each keep a core busy until the block ends (killed in any case)."""
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(count)]
    try:
        yield
    finally:
        for hog in hogs:
            hog.kill()
        for hog in hogs:
            hog.wait()


@pytest.fixture(scope="module")
def submissions(tmp_path_factory, reference_source) -> list[Path]:
    folder = tmp_path_factory.mktemp("submitted")
    (folder / "slow.py").write_text((DATA / "slow_hypermines.py").read_text())
    (folder / "fast.py").write_text(reference_source)
    assert reference_source.count(ZERO_RENDERED) == 1, "the reference's render changed: update the buggy copy"
    (folder / "buggy.py").write_text(reference_source.replace(ZERO_RENDERED, 'return "0" if board == 0 else str(board)'))
    return sorted(folder.glob("*.py"))


@pytest.fixture(scope="module")
def baseline(submissions, tmp_path_factory) -> dict[str, Graded]:
    """The batch graded in this process (-j 1) on the machine as it is."""
    results = tmp_path_factory.mktemp("baseline")
    batch = grade_batch("hypermines", submissions, results, seed=SEED, time_limit=BUDGET, jobs=1, progress=False)
    assert sorted(r.student for r in batch.reports) == list(STUDENTS)
    return collect(results)


@pytest.fixture(scope="module")
def busy(submissions, baseline, tmp_path_factory) -> dict[str, dict[str, Graded]]:
    """The batch graded three ways at the same time, on one core beside two busy loops, by the command line."""
    root = tmp_path_factory.mktemp("busy")
    started: dict[str, subprocess.Popen] = {}
    with on_one_core(), busy_machine():
        with LocalCluster(n_workers=2, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
            runs = {"-j 1": ("-j", "1"), "-j 2": ("-j", "2"), "dask": ("--dask", cluster.scheduler_address)}
            try:
                for name, how in runs.items():
                    started[name] = subprocess.Popen(command(submissions, root / name.replace(" ", ""), *how),
                                                     stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
                outputs = {name: process.communicate(timeout=800)[0] for name, process in started.items()}
            finally:
                for process in started.values():
                    if process.poll() is None:
                        process.kill()
                        process.wait()
    for name, process in started.items():
        assert process.returncode == 0, f"{name}:\n{outputs[name]}"
    return {name: collect(root / name.replace(" ", "")) for name in runs}


def assert_same_grades(got: dict[str, Graded], expected: dict[str, Graded]) -> None:
    print("CPU seconds of each student's tests (this run, baseline):",
          {s: (g.cpu_seconds, expected[s].cpu_seconds) for s, g in got.items()})
    for student, wanted in expected.items():
        assert got[student].internal_errors == ()
        assert got[student].score == wanted.score, student
        assert got[student].feedback == wanted.feedback, student
        assert got[student].results == wanted.results, student


def test_the_baseline_grades_are_what_each_submission_deserves(baseline):
    max_score = 20
    assert baseline["slow"].score == baseline["fast"].score == max_score
    assert baseline["slow"].internal_errors == baseline["fast"].internal_errors == ()
    buggy = baseline["buggy"]
    assert 0 < buggy.score < max_score
    failed = {t["name"] for t in buggy.results["tests"] if t["status"] == "failed"}
    assert any(name.startswith("Random games played dig by dig") for name in failed), failed
    assert re.search(r"random game \d+ \(dimensions \[", buggy.feedback), buggy.feedback
    # The slow submission is a real load on the budget: several times the reference's CPU time.
    assert baseline["slow"].cpu_seconds >= 2 * baseline["fast"].cpu_seconds
    assert "not reached" not in baseline["slow"].feedback


def test_the_compared_text_depends_on_the_seed(submissions, baseline, tmp_path):
    """Another seed draws other random cases: the buggy feedback changes, so equal texts mean something."""
    buggy = [p for p in submissions if p.stem == "buggy"]
    grade_batch("hypermines", buggy, tmp_path, seed=OTHER_SEED, time_limit=BUDGET, jobs=1, progress=False)
    other = without_elapsed((student_dir(tmp_path, "buggy") / "feedback.txt").read_text())
    assert other != baseline["buggy"].feedback
    assert f"seed {OTHER_SEED})" in other and f"seed {SEED})" in baseline["buggy"].feedback


def test_one_worker_on_a_busy_machine_gives_the_same_grades(busy, baseline):
    assert_same_grades(busy["-j 1"], baseline)


def test_the_busy_gradings_really_shared_their_core(busy):
    """The contention is real: each student's grading took at least one and a half times as long
    as the CPU time its tests used (a grading alone on a core takes little more than that CPU time;
    the last one left beside the busy loops still shares the core with them)."""
    for name, run in busy.items():
        for student, graded in run.items():
            assert graded.elapsed >= 1.5 * graded.cpu_seconds, (name, student, graded.elapsed, graded.cpu_seconds)


def test_two_workers_on_a_busy_machine_give_the_same_grades(busy, baseline):
    assert_same_grades(busy["-j 2"], baseline)


def test_a_dask_cluster_on_a_busy_machine_gives_the_same_grades(busy, baseline):
    assert_same_grades(busy["dask"], baseline)
