"""The runner of a student's own tests inside the sandbox (``sandbox/testrunner.py``), in process:
what counts as a test, and what comes back when one fails."""

from __future__ import annotations

from minesweeper_kit.sandbox import testrunner

TESTS = '''\
import unittest

def helper():
    return 1

def test_passes():
    assert helper() == 1

def test_fails():
    value = 2
    assert value == 3, "two is not three"

def test_raises():
    return [][0]

def test_needs_a_fixture(tmp_path):
    pass

class TestTiny(unittest.TestCase):
    def setUp(self):
        self.x = 1

    def test_one(self):
        self.assertEqual(self.x, 2)

    def test_two(self):
        self.skipTest("not now")

class TestPlain:
    def setup_method(self):
        self.ready = True

    def test_ready(self):
        assert self.ready

class Other:
    def test_not_collected(self):
        pass
'''


def bound(source: str = TESTS, offset: int = 0):
    namespace: dict = {"__name__": "own_tests"}
    exec(compile(source, "tests.py", "exec"), namespace)
    return testrunner.entry_points(namespace, "tests.py", offset)


def test_tests_are_functions_and_methods_of_test_classes_in_the_order_written():
    listed, _ = bound()
    assert listed() == ["test_passes", "test_fails", "test_raises", "test_needs_a_fixture",
                        "TestTiny.test_one", "TestTiny.test_two", "TestPlain.test_ready"]
    assert listed(["TestTiny"]) == ["TestTiny.test_one", "TestTiny.test_two"]


def test_each_outcome_says_what_failed_and_where():
    _, run = bound()
    assert run("test_passes") == {"outcome": "passed"}
    assert run("TestPlain.test_ready") == {"outcome": "passed"}
    assert run("test_fails") == {"outcome": "failed", "kind": "assertion",
                                 "message": "AssertionError: two is not three", "line": 11}
    assert run("test_raises") == {"outcome": "failed", "kind": "error",
                                  "message": "IndexError: list index out of range", "line": 14}
    fixture = run("test_needs_a_fixture")
    assert fixture["kind"] == "error" and "takes arguments (tmp_path)" in fixture["message"]
    one = run("TestTiny.test_one")
    assert one["kind"] == "assertion" and one["message"] == "AssertionError: 1 != 2" and one["line"] == 24
    assert run("TestTiny.test_two")["message"] == "the test skipped itself (not now)"


def test_lines_are_counted_from_the_students_first_line():
    _, run = bound("# a line the grader added\n" + TESTS, offset=1)
    assert run("test_fails")["line"] == 11
