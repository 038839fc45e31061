"""The same batch on a dask.distributed cluster, and `autograder doctor --dask` on it.

The mixed cluster has two single-thread workers started here on 127.0.0.1: "healthy", and
"broken", whose PATH has no bwrap (a worker machine without bubblewrap). Every submission the broken
worker takes must come back not graded, never with a score; the healthy worker's grades must be the
ones a local run with the same seed gives.

A cluster is closed when the module ends, and an idle one still costs a tenth of a core: the tests
that need none come first, then the local cluster's, then the mixed cluster's.
"""

from __future__ import annotations

import contextlib
import copy
import json
import os
import shutil
import socket
import subprocess
import sys
from collections import Counter
from pathlib import Path

import dask
import pytest
from distributed import Client, LocalCluster, Nanny, Scheduler, SpecCluster, get_task_stream
from grader_testkit import course_without_own_tests, path_without_bwrap

from autograder.assignments import get_assignment, originals_dir
from autograder.batch import _jobs as make_jobs
from autograder.batch import grade_batch, grade_job
from autograder.check import reference_submission
from autograder.grading import GradeReport
from autograder.report import student_dir
from autograder.scaleout import machine_facts, worker_problems
from autograder.submission import read_submission

AUTOGRADER = str(Path(sys.executable).parent / "autograder")
SEED = 5
#: Generous for a busy two-core machine: starting a worker process, connecting, a whole batch.
TIMEOUTS = {"distributed.comm.timeouts.connect": "120s", "distributed.comm.timeouts.tcp": "300s",
            "distributed.deploy.lost-worker-timeout": "300s"}


# ---------------------------------------------------------------------------- clusters


@contextlib.contextmanager
def kept_environment():
    """A Nanny sets its workers' pre-spawn variables (PYTHONHASHSEED, thread counts) in this
    process's environment: put it back as it was."""
    saved = dict(os.environ)
    try:
        yield
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.fixture(scope="module")
def local_cluster():
    """Two worker processes of one thread each on 127.0.0.1, for the tests that only need a running
    cluster: each connects a client of its own, and none changes the workers. Closed after the module."""
    with kept_environment(), dask.config.set(TIMEOUTS), LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None) as cluster:
        yield cluster


@pytest.fixture(scope="module")
def mixed_cluster(tmp_path_factory):
    """(scheduler address, {"healthy": address, "broken": address}): one worker process each, one
    thread each, on 127.0.0.1; the broken one cannot start a sandbox. Closed after the module."""
    no_bwrap = path_without_bwrap(tmp_path_factory.mktemp("no-bwrap") / "bin")
    worker = {"cls": Nanny, "options": {"nthreads": 1, "host": "127.0.0.1"}}
    broken = copy.deepcopy(worker)
    broken["options"]["env"] = {"PATH": no_bwrap}
    with kept_environment(), dask.config.set(TIMEOUTS), SpecCluster(
            scheduler={"cls": Scheduler, "options": {"host": "127.0.0.1", "dashboard_address": "127.0.0.1:0"}},
            workers={"healthy": worker, "broken": broken}) as cluster:
        with Client(cluster.scheduler_address, set_as_default=False) as client:
            client.wait_for_workers(2, timeout=300)
            names = {str(info["name"]): address for address, info in client.scheduler_info()["workers"].items()}
        assert set(names) == {"healthy", "broken"}
        yield cluster.scheduler_address, names


# ---------------------------------------------------------------------------- autograder doctor --dask


def doctor(address: str) -> subprocess.CompletedProcess:
    return subprocess.run([AUTOGRADER, "doctor", "--dask", address], capture_output=True, text=True, timeout=600)


def test_doctor_says_when_no_scheduler_answers():
    with socket.socket() as held:  # bound and never listening: nobody answers, and nobody else can take it
        held.bind(("127.0.0.1", 0))
        port = held.getsockname()[1]
        result = doctor(f"tcp://127.0.0.1:{port}")
    assert result.returncode == 2, result.stdout + result.stderr
    assert f"autograder: error: cannot reach a dask scheduler at tcp://127.0.0.1:{port}" in result.stderr
    assert "Traceback" not in result.stderr


# ---------------------------------------------------------------------------- the comparison, as data


def test_a_worker_with_other_material_or_code_is_named(tmp_path, monkeypatch):
    here = machine_facts()
    assert here["sandbox"]["available"] and worker_problems(here, here, nthreads=1) == []
    # the same original data but for one file, as a worker given another AUTOGRADER_ORIGINALS would have
    shutil.copytree(originals_dir(), tmp_path / "originals")
    changed = sorted(p for p in (tmp_path / "originals").rglob("*") if p.is_file())[0]
    changed.write_bytes(changed.read_bytes() + b"\n")
    monkeypatch.setenv("AUTOGRADER_ORIGINALS", str(tmp_path / "originals"))
    there = machine_facts()
    name = changed.relative_to(tmp_path / "originals").as_posix()
    assert worker_problems(there, here) == [
        f"the original data there ({tmp_path / 'originals'}) differ from this machine's: {name} differs"]

    other = copy.deepcopy(here)
    other["kit_version"] = "0.0.9"
    del other["suites"]["files"]["test_bots.py"]
    other["originals"] = {"error": "the original assignments' test data is not readable at /nowhere"}
    problems = worker_problems(other, here, nthreads=4)
    assert problems[0].startswith("it runs 4 threads") and "--nthreads 1" in problems[0]
    assert problems[1] == f"kit version 0.0.9 there, {here['kit_version']} here: install the same version"
    assert problems[2].endswith("differ from this machine's: test_bots.py missing there")
    assert problems[3] == ("no usable original data there: the original assignments' test data is not "
                           "readable at /nowhere")

    same_version = copy.deepcopy(here)
    same_version["kit_code"]["autograder/grading.py"] = "0" * 64
    assert worker_problems(same_version, here) == [
        f"the kit's code there differs from this machine's (both version {here['kit_version']}): "
        "autograder/grading.py differs"]


def test_the_controllers_originals_reach_the_workers(tmp_path, monkeypatch, reference_source):
    """`--originals` sets the data on the controller; a job carries the path, so a worker (another
    process, here the same function called after the controller's setting is gone) grades with that
    data too, and `doctor --dask` compares the workers' copies of it."""
    (tmp_path / "ann.py").write_text(reference_source)
    empty = tmp_path / "no-originals"
    empty.mkdir()
    monkeypatch.setenv("AUTOGRADER_ORIGINALS", str(empty))
    [job] = make_jobs("hypermines", [read_submission("ann", tmp_path / "ann.py")], 5, None, [], None, None)
    assert job["originals"] == str(empty)
    monkeypatch.delenv("AUTOGRADER_ORIGINALS")
    report = GradeReport.from_dict(grade_job(job))
    assert report.status == "not graded", report
    assert any(f"not readable at {empty}" in cause for cause in report.causes), report.causes
    assert "AUTOGRADER_ORIGINALS" not in os.environ, "the worker's own setting is put back"
    assert machine_facts(str(empty))["originals"]["error"].startswith(
        f"the original assignments' test data is not readable at {empty}")
    assert "error" not in machine_facts()["originals"]


# ---------------------------------------------------------------------------- on a local cluster


def test_batch_runs_on_a_local_dask_cluster(tmp_path, reference_source, local_cluster):
    (tmp_path / "subs").mkdir()
    (tmp_path / "subs" / "ann.py").write_text(reference_source)
    (tmp_path / "subs" / "ben.py").write_text("raise RuntimeError('broken at import')\n")
    result = grade_batch("hypermines", [tmp_path / "subs" / "ann.py", tmp_path / "subs" / "ben.py"],
                         tmp_path / "results", dask_address=local_cluster.scheduler_address, seed=5, progress=False)
    scores = {r.student: r.score for r in result.reports}
    assert scores == {"ann": 20, "ben": 0}
    ben = json.loads((student_dir(tmp_path / "results", "ben") / "results.json").read_text())
    assert {t["output"] for t in ben["tests"]} == {"not run: the submission did not load"}
    assert "RuntimeError: broken at import" in (student_dir(tmp_path / "results", "ben") / "feedback.txt").read_text()


def test_doctor_passes_a_healthy_cluster(local_cluster):
    result = doctor(local_cluster.scheduler_address)
    addresses = list(local_cluster.scheduler_info["workers"])
    assert result.returncode == 0, result.stdout + result.stderr
    for address in addresses:
        assert any(line.startswith(address) and ": ok (" in line for line in result.stdout.splitlines())
    assert "every worker (2) can grade as this machine does" in result.stdout


# ---------------------------------------------------------------------------- grading on the mixed cluster


def make_board_class(folder: Path) -> list[Path]:
    """Three correct make-board submissions, two with a bug, one that raises at import."""
    reference = reference_submission(get_assignment("make-board")).source
    bugs = {"cat": ("if 0 <= value < dimensions[0]", "if 0 <= value <= dimensions[0]"),  # a neighbour too many
            "dan": ("return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]",  # shared rows
                    "return [make_board(dimensions[1:], elem)] * dimensions[0]")}
    sources = {"ann": reference, "ben": reference + "\n# checked twice\n", "fay": reference + "\n\n\n"}
    for student, (old, new) in bugs.items():
        assert reference.count(old) == 1, f"the make-board reference no longer holds {old!r} once"
        sources[student] = reference.replace(old, new)
    sources["eve"] = reference + "\nraise RuntimeError('broken at import')\n"
    folder.mkdir()
    for student, source in sources.items():
        (folder / f"{student}.py").write_text(source, encoding="utf-8")
    return sorted(folder.glob("*.py"))


#: The mixed cluster's gradings leave out the students' own tests: they are about where a job runs
#: and what a worker without a sandbox gives, and own-tests grading would cost each of the 18
#: gradings 4 to 5 s of CPU (grader_testkit.NO_OWN_TESTS).
WITHOUT_OWN_TESTS = course_without_own_tests("make-board")


def graded_as(report) -> tuple:
    """What a grade is made of: the score and each test's name, points, status and message."""
    return report.score, report.max_score, [(t.name, t.score, t.status, t.output) for t in report.tests]


def grade_on(address: str, paths: list[Path], results: Path, workers: list[str] | None = None):
    """`grade_batch` on the cluster; with ``workers``, every job is held to those workers (a dask
    annotation, which the batch's Client.map picks up). Returns the result and how many jobs each
    worker ran, from the scheduler's task stream."""
    annotations = {"workers": workers, "allow_other_workers": False} if workers else {}
    with Client(address, set_as_default=False) as client, get_task_stream(client) as stream, \
            dask.annotate(**annotations):
        result = grade_batch("make-board", paths, results, dask_address=address, seed=SEED, progress=False,
                             course=WITHOUT_OWN_TESTS)
    ran = Counter(task["worker"] for task in stream.data if str(task["key"]).startswith("grade_job"))
    return result, ran


def assert_not_graded_for_want_of_bwrap(report, results: Path) -> None:
    assert report.status == "not graded" and report.score is None and not report.graded
    assert any("bubblewrap (bwrap) is not installed" in cause for cause in report.causes), report.causes
    data = json.loads((student_dir(results, report.student) / "results.json").read_text())
    assert data["extra_data"]["status"] == "not graded"
    assert "score" not in data and all("score" not in test for test in data["tests"])


def test_a_worker_without_a_sandbox_grades_nothing_and_the_other_grades_as_here(
        mixed_cluster, tmp_path, no_survivors):
    address, workers = mixed_cluster
    paths = make_board_class(tmp_path / "subs")
    here = {r.student: r for r in grade_batch("make-board", paths, tmp_path / "local", jobs=1, seed=SEED,
                                              progress=False, course=WITHOUT_OWN_TESTS).reports}
    assert {s: r.score for s, r in here.items()} == {"ann": 14, "ben": 14, "fay": 14, "cat": 8, "dan": 8, "eve": 0}

    # every job held to one worker: the healthy one grades as this machine does ...
    healthy, ran = grade_on(address, paths, tmp_path / "healthy", [workers["healthy"]])
    assert ran == {workers["healthy"]: len(paths)}
    for report in healthy.reports:
        assert report.graded and graded_as(report) == graded_as(here[report.student]), report.student
    # ... and the broken one gives no score at all
    broken, ran = grade_on(address, paths, tmp_path / "broken", [workers["broken"]])
    assert ran == {workers["broken"]: len(paths)}
    assert len(broken.reports) == len(paths)
    for report in broken.reports:
        assert_not_graded_for_want_of_bwrap(report, tmp_path / "broken")

    # the jobs spread by the scheduler over both: each report is one or the other, as its worker
    mixed, ran = grade_on(address, paths, tmp_path / "mixed")
    graded = [r for r in mixed.reports if r.graded]
    not_graded = [r for r in mixed.reports if not r.graded]
    assert ran[workers["healthy"]] == len(graded) and ran[workers["broken"]] == len(not_graded)
    assert graded and not_graded, ran  # both workers took jobs
    for report in graded:
        assert graded_as(report) == graded_as(here[report.student]), report.student
    for report in not_graded:
        assert_not_graded_for_want_of_bwrap(report, tmp_path / "mixed")


def test_doctor_names_the_worker_that_cannot_sandbox(mixed_cluster):
    address, workers = mixed_cluster
    result = doctor(address)
    assert result.returncode == 1, result.stdout + result.stderr
    lines = result.stdout.splitlines()
    broken = [line for line in lines if line.startswith(f"{workers['broken']} (broken): ")]
    assert broken and not any(line.startswith(f"{workers['broken']} (broken): ok") for line in broken), lines
    assert any("the sandbox cannot start there: bubblewrap (bwrap) is not installed" in line for line in broken)
    assert any(line.startswith(f"{workers['healthy']} (healthy): ok") for line in lines), lines
    assert "1 of 2 worker(s) cannot grade" in result.stdout
    assert "Traceback" not in result.stderr
