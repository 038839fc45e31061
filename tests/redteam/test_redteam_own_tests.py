"""A student's own tests are data from a sandbox like any other, and their time is counted.

The own tests run in a sandbox of their own: the student's ``test.py`` is loaded after the one line
that binds the stand-ins and names the runner's two entry points, ``__own_tests__`` (the list of
tests) and ``__run_own_test__`` (one test's outcome). Nothing stops the student's file from
defining those two names again, so what they answer is whatever the student wants. Each attack
here grades ``lab.py`` (``x = 1``: the hidden tests are over at once) with a ``test.py`` beside it,
in-process as root, against a library of two correct implementations (the reference, twice), so
that every attack costs a few sandboxes rather than sixteen; none of them depends on the library.

* out of shape: a listing that is not a list, an outcome that is not an object or lacks its
  ``outcome``: the grader raised (``TypeError``, ``KeyError``), and any exception of the grader's is
  "not graded": exit status 3 for ``autograder grade``, and on Gradescope no ``results.json`` and
  exit status 1, so the student turns a 0 into no score at all;
* sizes: a test's name and its failure message reach the feedback uncut (the README cuts every
  message from a sandbox to 2,000 characters): three 1 MB messages make a 3 MB feedback, and 60
  tests of 8 MB each would make 480 MB, kept for each of the 16 implementations in the grader's memory;
* time: the implementations' CPU time spent answering a test's calls is counted nowhere (the
  test's clock pauses while the grader's side answers), and the own tests are outside the
  submission's wall-clock budget, so one test that keeps the implementation busy, or idles in
  every call, holds the grader far past both.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder import own_tests
from autograder.assignments import get_assignment
from autograder.course import apply_settings
from autograder.gradescope import run_on_platform
from autograder.grading import grade_submission
from autograder.submission import read_submission
from minesweeper_kit.owntests.runner import OwnTestsLimits, TestsFile

HYPERMINES = get_assignment("hypermines")

#: A TestTiny whose one test is honest: what the entry points are asked about.
TINY = """
import unittest
import lab


class TestTiny(unittest.TestCase):
    def test_1d(self):
        game = lab.HyperMinesGame([4], [[3]])
        self.assertEqual(game.dig([0]), 3)
"""

#: Each redefines an entry point of the tests' sandbox so that it answers out of shape.
OUT_OF_SHAPE = {
    "listing_not_a_list": "def __own_tests__(classes=None):\n    return 5\n",
    "listing_an_object": "def __own_tests__(classes=None):\n    return object()\n",
    "outcome_empty": "def __run_own_test__(name):\n    return {}\n",
    "outcome_a_list": "def __run_own_test__(name):\n    return [1, 2]\n",
    "outcome_an_object": "def __run_own_test__(name):\n    return object()\n",
}


@pytest.fixture
def small_library(monkeypatch):
    """The reference twice, as two correct implementations: the attacks need no planted bug."""
    reference = own_tests.implementations(HYPERMINES)[0]
    library = [reference, own_tests.Implementation("reference-again", reference.source, True)]
    monkeypatch.setattr(own_tests, "implementations", lambda assignment: list(library))
    return library


def _submission(folder: Path, tests: str, lab: str = "x = 1\n"):
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "lab.py").write_text(lab)
    (folder / "test.py").write_text(tests)
    return read_submission("mallory", folder / "lab.py")


def _grade(assignment, submission):
    """The grade, as a batch records it: an exception of the grader's is a "not graded" report there
    (``batch.grade_job``), so here it fails the test, named."""
    try:
        return grade_submission(assignment, submission, seed=1)
    except Exception as error:  # noqa: BLE001 - what the batch would turn into "not graded"
        pytest.fail(f"the grader raised {type(error).__name__}: {error}: the submission is NOT GRADED (exit 3)")


def _own(report):
    [own] = [test for test in report.tests if test.id == "own_tests"]
    return own


@pytest.mark.parametrize("attack", sorted(OUT_OF_SHAPE))
def test_own_tests_answering_out_of_shape_fail_the_own_tests_and_never_make_the_grade_not_graded(
    tmp_path, small_library, attack
):
    report = _grade(HYPERMINES, _submission(tmp_path / "mallory", TINY + OUT_OF_SHAPE[attack]))
    assert report.status == "graded", (report.status, report.causes)
    assert report.score == 0, report.score
    assert _own(report).status == "failed", _own(report)


def test_on_gradescope_own_tests_out_of_shape_still_give_a_results_json(tmp_path, small_library):
    upload = tmp_path / "submission"
    _submission(upload, TINY + OUT_OF_SHAPE["outcome_empty"])
    results = tmp_path / "results" / "results.json"
    results.parent.mkdir()
    status = run_on_platform("hypermines", upload, results)
    assert status == 0 and results.is_file(), "no results.json: Gradescope posts no score at all"
    assert json.loads(results.read_text())["score"] == 0


def test_an_own_tests_name_and_message_are_cut(tmp_path, small_library):
    """Three tests named with 100,000 characters each, failing with 1 MB messages: the feedback must
    stay small (each message from a sandbox is cut to 2,000 characters, says the README)."""
    flood = """
def __own_tests__(classes=None):
    return ["test_%d_" % i + "x" * 100_000 for i in range(3)]


def __run_own_test__(name):
    return {"outcome": "failed", "kind": "error", "message": "M" * 1_000_000, "line": None}
"""
    report = _grade(HYPERMINES, _submission(tmp_path / "mallory", TINY + flood))
    assert report.status == "graded", report.causes
    output = _own(report).output
    assert len(output) < 30_000, f"the own tests' feedback is {len(output):,} characters"


#: One test that keeps the implementation busy: eight digs that each open a 250x250 board, about
#: 0.6 s of the implementation's CPU time apiece (about 5 s in all), each call well under the 10 s a
#: call to the implementation may take. The test's own process uses almost none.
BUSY = """
import unittest
import lab


class TestTiny(unittest.TestCase):
    def test_busy(self):
        for _ in range(8):
            game = lab.HyperMinesGame([250, 250], [])
            self.assertEqual(game.dig([0, 0]), 62500)
"""


def test_the_implementations_work_for_a_test_is_counted_against_it():
    """The README: "The grader's work on behalf of a student's own tests is counted in their own
    budget". A test may use ``OwnTestsLimits.test_seconds`` of CPU time, 10 s by default and 2 s
    here (the limit scaled down with the work); this one makes the implementation work about 5 s,
    and passes."""
    reference = own_tests.implementations(HYPERMINES)[0]
    tests = own_tests.FoundTests(TestsFile(BUSY, "test.py", ("TestTiny",), "lab"), "test.py")
    limits = OwnTestsLimits(test_seconds=2.0)
    result = own_tests.grade_own_tests(HYPERMINES, tests, seed=1, library=[reference], limits=limits)
    [test] = result.tests
    assert test.status != "valid" and test.passed.get("reference") is not True, (
        f"a test that made the implementation work past the {limits.test_seconds:g} s a test may use "
        f"was {test.status}: {test.passed}"
    )


#: One test that idles in every call, just under the 5 s idle guard, for about 21 s in all.
IDLE = """
import time
import unittest
import lab


class TestTiny(unittest.TestCase):
    def test_idle(self):
        for _ in range(6):
            time.sleep(3.5)
            end = time.process_time() + 0.05
            while time.process_time() < end:
                pass
        self.assertEqual(lab.HyperMinesGame([4], [[3]]).dig([0]), 3)
"""


def test_the_own_tests_keep_to_the_submissions_wall_clock_budget(tmp_path, small_library):
    """A course whose submissions may take 10 s of wall-clock time: a test that idles 21 s (a
    little under the idle guard at a time) runs to its end and passes on both implementations. Each
    call of a test may take 110 s (10 times its 10 s of CPU time, plus 10 s): with 60 tests and 16
    implementations such tests hold a worker for about a day."""
    assignment = apply_settings(HYPERMINES, {"wall_limit": 10})
    report = _grade(assignment, _submission(tmp_path / "mallory", IDLE))
    assert report.status == "graded", report.causes
    summary = report.own_tests
    assert summary.get("valid") == 0, (
        f"the wall-clock budget is 10 s and a test that idled 21 s per implementation was valid: {summary}"
    )
