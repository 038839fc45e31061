"""Any list of test files runs as it does in the whole suite, in one process or on pytest-xdist's workers.

A fixture defined in a subfolder's conftest.py was lost by pytest 9.1 whenever the command line
named a file of the parent folder between two files of that subfolder: a test that passed in
the whole suite failed at set-up with "fixture ... not found" in a list such as the one below.
The suite now keeps one conftest.py, which loads every folder's fixtures as plugins
(tests/conftest.py). These runs name files in orders that mix the folders, and ``--setup-plan``
resolves every fixture of every test they collect without running any. Under pytest-xdist one
worker is enough: every worker collects the whole list itself, and a single one sets up every test.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
TESTS = REPO / "tests"
XDIST = ["-n", "1", "--dist", "loadgroup", "--no-loadscope-reorder"]
#: For the lists below, which collect no hypothesis test: importing its plugin costs every pytest
#: process 0.1 to 0.3 s of CPU (about a second where its byte-code is not cached).
NO_HYPOTHESIS = ["-p", "no:hypothesispytest"]
#: A list that failed at set-up before: files of tests/autograder on both sides of top-level ones.
MIXED = ["tests/autograder/test_sandbox.py", "tests/test_signals.py", "tests/test_tournament.py",
         "tests/autograder/test_time_limits.py", "tests/autograder/test_channel.py"]


def pytest_run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", *args], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def interleaved() -> list[str]:
    """Every test file of the suite, ordered by file name so that consecutive files come from
    different folders as often as possible."""
    files = sorted(TESTS.rglob("test_*.py"), key=lambda path: (path.name, path.parent))
    return [str(path.relative_to(REPO)) for path in files]


def test_the_suite_has_one_conftest():
    assert sorted(TESTS.rglob("conftest.py")) == [TESTS / "conftest.py"]


@pytest.mark.slow
def test_every_fixture_is_found_whatever_the_order_of_the_files():
    """In one process: the lost fixtures were pytest's collection, not pytest-xdist's (the list below
    checks the workers)."""
    files = interleaved()
    assert len({Path(f).parent for f in files[:8]}) > 1, files[:8]  # the folders do alternate
    done = pytest_run("--setup-plan", "-q", *files)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "not found" not in done.stdout, done.stdout[-3000:]


@pytest.mark.parametrize("workers", [[], XDIST], ids=["one process", "a worker"])
def test_a_list_that_lost_a_fixture_finds_it(workers):
    done = pytest_run("--setup-plan", "-q", *NO_HYPOTHESIS, *workers, *MIXED)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert "not found" not in done.stdout, done.stdout[-3000:]


def test_a_mixed_list_runs_and_passes_on_a_worker():
    """Really run: a test of tests/autograder that takes a fixture of its folder, after a
    top-level file and another file of that folder."""
    done = pytest_run("-q", *NO_HYPOTHESIS, *XDIST, "tests/autograder/test_channel.py", "tests/test_names.py",
                      "tests/autograder/test_time_limits.py::test_a_call_that_answers_at_once_reads_the_cpu_time_once")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    assert " passed" in done.stdout and "error" not in done.stdout.lower(), done.stdout[-3000:]
