"""Grading a student's own tests with wheats and chaffs (``autograder/own_tests.py`` over the kit's
runner), in real sandboxes: what makes a test valid, what it catches, the requirement; tests run
as unittest and pytest run them; chance earns nothing; what a task asks a test to observe can be
observed; the budget stops a test that keeps the grader busy; whatever the tests' sandbox sends is
data; a test cannot tell the implementations apart but by what they do.

The library is small on purpose (the reference, the other correct implementation and two planted
bugs written here), so these tests do not move when the chaff library grows.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from autograder import own_tests
from autograder.assignments import get_assignment
from autograder.check import reference_submission
from autograder.instructor.wheats import wheats_for
from minesweeper_kit.owntests import CodeCell, OwnTestsLimits, TestsFile, tests_from_cells

HYPERMINES = get_assignment("hypermines")
REFERENCE = reference_submission(HYPERMINES).source

#: Two planted bugs written here: each is one line of the reference changed, the way the library's
#: chaffs are made.
EDGE = ("return [p for p in (x - 1, x, x + 1) if 0 <= p < size]", "return [p for p in (x - 1, x, x + 1) if 0 < p < size]")


def chaff(name: str, old: str, new: str) -> own_tests.Implementation:
    assert REFERENCE.count(old) == 1, f"the reference no longer holds {old!r} once"
    return own_tests.Implementation(name, REFERENCE.replace(old, new), False, f"the misconception {name}")


@pytest.fixture(scope="module")
def library() -> list[own_tests.Implementation]:
    found = [own_tests.Implementation("reference", REFERENCE, True)]
    found += [own_tests.Implementation(name, source, True) for name, source in wheats_for("hypermines")]
    assert len(found) >= 2, "a second correct implementation is needed for validity to mean anything"
    found.append(chaff("edge", *EDGE))
    found.append(chaff("no-victory", 'self.state = "victory"', 'self.state = "ongoing"'))
    return found


def grade(source: str, library, classes=("TestTiny",), seed: int = 1, limits=None) -> own_tests.OwnTestsResult:
    tests = own_tests.FoundTests(TestsFile(source, "test.py", classes), "test.py")
    return own_tests.grade_own_tests(HYPERMINES, tests, seed=seed, library=library, limits=limits)


def verdicts(result) -> dict:
    return {t.name: t for t in result.tests}


GOOD = '''
import unittest
import lab


class TestTiny(unittest.TestCase):
    def test_1d(self):
        game = lab.HyperMinesGame([4], [[3]])
        self.assertEqual(game.dig([0]), 3)
        self.assertEqual(game.state, "victory")
        self.assertEqual(game.dig([3]), 0)
        self.assertEqual(game.state, "victory")

    def test_2d_edge(self):
        game = lab.HyperMinesGame([1, 3], [[0, 0]])
        self.assertEqual(game.board, [[".", 1, 0]])
        self.assertEqual(game.dig([0, 1]), 1)
        self.assertEqual(game.state, "ongoing")
        self.assertEqual(game.dig([0, 0]), 1)
        self.assertEqual(game.state, "defeat")

    def test_3d(self):
        game = lab.HyperMinesGame([2, 2, 2], [[0, 0, 0]])
        self.assertEqual(game.dig([1, 1, 1]), 1)
        self.assertEqual(game.dig([1, 1, 1]), 0)
        self.assertEqual(game.state, "ongoing")

    def test_wrong_about_the_rules(self):
        game = lab.HyperMinesGame([2, 2], [[0, 0]])
        self.assertEqual(game.dig([1, 1]), 3, "a dig beside a bomb opens three")
'''


@pytest.fixture(scope="module")
def good(library) -> own_tests.OwnTestsResult:
    """GOOD graded at seed 1, once for the tests that read that run."""
    return grade(GOOD, library)


def test_valid_tests_catch_the_bugs_they_exercise_and_a_wrong_test_earns_nothing(good):
    result = good
    found = verdicts(result)
    assert list(found) == ["TestTiny.test_1d", "TestTiny.test_2d_edge", "TestTiny.test_3d",
                           "TestTiny.test_wrong_about_the_rules"]
    wrong = found["TestTiny.test_wrong_about_the_rules"]
    assert not wrong.valid and wrong.failure.startswith("AssertionError: 1 != 3 : a dig beside a bomb opens three")
    line = 1 + next(i for i, text in enumerate(GOOD.splitlines()) if "opens three" in text)
    assert wrong.line == line
    assert found["TestTiny.test_1d"].caught == ["no-victory"]
    assert found["TestTiny.test_2d_edge"].caught == ["edge"]
    assert found["TestTiny.test_3d"].caught == []
    assert result.caught == ["edge", "no-victory"] and result.share() == 1.0
    assert result.unmet == [], result.unmet
    text = result.feedback()
    assert "3 of 4 tests valid" in text
    assert (f"INVALID, it fails on a correct implementation (test.py, line {line}): AssertionError: 1 != 3 : a dig "
            "beside a bomb opens three") in text
    assert "the misconception edge" in text and "Planted bugs caught by your valid tests: 2 of 2." in text
    assert "0 < p" not in text and "0 <= p" not in text, "never a chaff's code"


def test_a_catch_holds_when_the_test_goes_on_after_the_different_answer(library):
    """A planted bug's run of a test starts from what its replay was told; a test that asks more
    after the different answer has the bug answer the rest as a run from the start would."""
    later = '''
import lab

class TestTiny:
    def test_checks_at_the_end(self):
        game = lab.HyperMinesGame([4], [[3]])
        counts = [game.dig([0]), game.dig([3])]
        assert (counts, game.state, game.render()) == ([3, 0], "victory", [" ", " ", "1", "_"])
'''
    result = grade(later, library)
    assert [(t.name, t.valid, t.caught) for t in result.tests] == [
        ("TestTiny.test_checks_at_the_end", True, ["no-victory"])
    ], result.feedback()


def test_a_suite_that_catches_nothing_and_one_that_misses_the_requirement(library):
    weak = '''
import lab

class TestTiny:
    def test_makes_a_game(self):
        game = lab.HyperMinesGame([3, 3], [])
        assert game.dimensions == [3, 3]
'''
    result = grade(weak, library)
    assert [t.valid for t in result.tests] == [True] and result.caught == [] and result.share() == 0.0
    assert result.unmet[0].startswith("1 valid test(s) that can fail")
    assert "no valid test makes a 1-D, 2-D, 3-D game and digs it twice with different results" in result.unmet
    assert "Planted bugs caught by your valid tests: 0 of 2 (2 missed)." in result.feedback()
    only_1d = GOOD.replace("def test_2d_edge", "def helper_2d").replace("def test_3d", "def helper_3d")
    result = grade(only_1d, library)
    assert result.caught == ["no-victory"] and result.share() == 0.25, "half of one bug in two: unmet requirement"


def test_a_suite_that_asserts_nothing_does_not_meet_the_requirement(library):
    """Tests that dig 1-D, 2-D and 3-D games twice with different results but check nothing pass
    whatever the code does: they count for no requirement and catch nothing."""
    source = '''
from lab import HyperMinesGame

class TestTiny:
    def test_1d(self):
        game = HyperMinesGame([4], [[3]])
        game.dig([0])
        game.dig([3])

    def test_2d(self):
        game = HyperMinesGame([1, 3], [[0, 0]])
        game.dig([0, 1])
        game.dig([0, 0])

    def test_3d(self):
        game = HyperMinesGame([2, 2, 2], [[0, 0, 0]])
        game.dig([1, 1, 1])
        game.dig([0, 0, 0])
'''
    result = grade(source, library)
    assert all(t.valid and not t.can_fail and not t.caught for t in result.tests), result.feedback()
    assert result.unmet[0].startswith("0 valid test(s) that can fail (an assertion, a comparison or an expected")
    assert "valid, but it cannot fail (no assertion, no comparison that raises" in result.feedback()


def test_tests_that_import_pytest_run(library):
    """A test file that starts with `import pytest`, as later handouts' files do, runs, and
    `pytest.raises` works; the test's own `import socket` is still refused."""
    source = GOOD.replace("import unittest\n", "import unittest\nimport pytest\n") + '''

    def test_raises(self):
        game = lab.HyperMinesGame([2], [[0]])
        with pytest.raises(Exception):
            game.dig([5, 5, 5])
'''
    result = grade(source, library)
    found = verdicts(result)
    assert found["TestTiny.test_1d"].valid and found["TestTiny.test_1d"].caught == ["no-victory"], result.feedback()
    assert found["TestTiny.test_2d_edge"].caught == ["edge"] and "TestTiny.test_raises" in found
    refused = grade(GOOD.replace("import unittest\n", "import unittest\nimport socket\n"), library)
    assert refused.tests == [] and "import of 'socket' is not allowed in your tests" in refused.feedback()


def test_only_the_handouts_class_counts_in_a_test_file_and_its_absence_is_named(library):
    source = GOOD + '''

class TestStaff(unittest.TestCase):
    def test_reads_files(self):
        raise AssertionError("never run")

def test_loose_function():
    raise AssertionError("never run")
'''
    assert [t.name for t in grade(source, library).tests][-1] == "TestTiny.test_wrong_about_the_rules"
    everything = grade(source, library, classes=None)
    names = [t.name for t in everything.tests]
    assert "test_loose_function" in names and "TestStaff.test_reads_files" in names
    missing = grade(GOOD.replace("class TestTiny", "class TestMine"), library)
    assert "test.py has no class TestTiny with test methods (the handout's tests go in TestTiny)" in missing.feedback()


# ------------------------------------------------------------------------- as the frameworks run them
FRAMEWORKS = '''
import unittest

import pytest

import lab


class TestUnittest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.shape = [1, 3]

    def test_b_rows(self):
        for dig, expected in [([0, 2], 2), ([0, 1], 1), ([0, 2], 5)]:
            with self.subTest(dig=dig):
                self.assertEqual(lab.HyperMinesGame(self.shape, [[0, 0]]).dig(dig), expected)

    def test_a_class_set_up(self):
        self.assertEqual(lab.HyperMinesGame(self.shape, [[0, 0]]).board, [[".", 1, 0]])

    @unittest.skip("not ready")
    def test_c_skipped(self):
        raise AssertionError("never run")

    @unittest.expectedFailure
    def test_d_expected_to_fail(self):
        self.assertEqual(lab.HyperMinesGame([2], []).dig([0]), 1)


def test_plain_assert_shows_both_values():
    game = lab.HyperMinesGame([1, 3], [[0, 0]])
    assert game.board == [[".", 2, 0]]


@pytest.mark.parametrize("cell, opened", [([0, 2], 2), ([0, 1], 1), ([0, 0], 2)])
def test_parametrized(cell, opened):
    assert lab.HyperMinesGame([1, 3], [[0, 0]]).dig(cell) == opened


def test_fixtures(tmp_path, capsys, monkeypatch):
    monkeypatch.setenv("GAME", "1")
    (tmp_path / "note.txt").write_text("hello")
    lab.HyperMinesGame([2, 2], [[0, 0]]).dump()
    printed = capsys.readouterr().out
    assert printed.splitlines()[0] == "dimensions: [2, 2]" and (tmp_path / "note.txt").read_text() == "hello"
'''


@pytest.fixture(scope="module")
def frameworks(library):
    return grade(FRAMEWORKS, library, classes=None)


def test_unittest_cases_run_as_unittest_runs_them(frameworks):
    """setUpClass runs, methods run in alphabetical order, each subTest row is reported and judged
    on its own, a skipped test is not counted and an expected failure that fails passes."""
    found = verdicts(frameworks)
    names = [name for name in found if name.startswith("TestUnittest")]
    assert names[:2] == ["TestUnittest.test_a_class_set_up", "TestUnittest.test_b_rows"], names
    assert found["TestUnittest.test_a_class_set_up"].valid
    rows = [name for name in names if name.startswith("TestUnittest.test_b_rows ")]
    assert len(rows) == 3 and all(found[name].row for name in rows), rows
    wrong = next(name for name in rows if "[0, 2]" in name and not found[name].valid)
    assert "AssertionError: 2 != 5" in found[wrong].failure
    assert sum(found[name].valid for name in rows) == 2
    assert found["TestUnittest.test_c_skipped"].status == "skipped"
    assert found["TestUnittest.test_d_expected_to_fail"].valid
    text = frameworks.feedback()
    assert "skipped (not ready); not counted" in text and "INVALID" in text


def test_pytest_tests_run_as_pytest_runs_them(frameworks):
    """A bare assert shows both values, each parametrized case is a test of its own, and the
    tmp_path, capsys and monkeypatch fixtures work (printed output of the tested code included)."""
    found = verdicts(frameworks)
    plain = found["test_plain_assert_shows_both_values"]
    assert not plain.valid and "assert [['.', 1, 0]] == [['.', 2, 0]]" in plain.failure, plain.failure
    cases = [name for name in found if name.startswith("test_parametrized[")]
    assert len(cases) == 3 and [found[c].valid for c in cases] == [True, True, False], cases
    assert found["test_fixtures"].valid, found["test_fixtures"].failure


# ------------------------------------------------------------------------------------ chance
CHANCE = '''
import builtins
import os
import random

import lab


class TestTiny:
    def test_random_board(self):
        size = random.randint(2, 9)
        game = lab.HyperMinesGame([size], [[0]])
        assert game.dig([size - 1]) == size - 1

    def test_fails_one_time_in_two(self):
        lab.HyperMinesGame([3], [[0]]).dig([2])
        assert random.random() < 0.5

    def test_unseeded_generator_and_system_bytes(self):
        rng = random.Random()
        assert rng.random() < 0.5 and os.urandom(1)[0] < 128

    def test_second_run_fails(self):
        builtins.runs = getattr(builtins, "runs", 0) + 1
        game = lab.HyperMinesGame([3], [[2]])
        assert game.dig([0]) == 2 and builtins.runs != 2
'''


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_a_suite_that_fails_by_chance_earns_nothing_on_every_grading(library, seed):
    """random is seeded for each test in every sandbox, so a test drawn at random gives the same
    outcome on every run of a grade: valid and catching nothing, or invalid. A test whose outcome
    changes between runs is flaky and earns nothing."""
    result = grade(CHANCE, library, seed=seed)
    assert result.share() == 0.0 and result.caught == [], result.feedback()
    found = verdicts(result)
    assert found["TestTiny.test_second_run_fails"].status == "flaky"
    assert "FLAKY, it passed on some runs and failed on others" in result.feedback()
    for name in ("TestTiny.test_fails_one_time_in_two", "TestTiny.test_unseeded_generator_and_system_bytes"):
        assert found[name].status in ("valid", "invalid") and not found[name].caught


# ------------------------------------------------------------------------------ observable
OBSERVE = '''
import contextlib
import io

import lab


class TestTiny:
    def test_dump_prints_the_attributes(self, capsys=None):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            lab.HyperMinesGame([2, 2], [[0, 0]]).dump()
        assert out.getvalue() == (
            "dimensions: [2, 2]\\nboard: ['.', 1]\\n       [1, 1]\\nmask:  [False, False]\\n       [False, False]\\n"
            "state: ongoing\\n"
        )

    def test_a_game_from_its_attributes_changed_in_place(self):
        game = lab.HyperMinesGame.from_dict(
            {"dimensions": [1, 3], "board": [[".", 1, 0]], "mask": [[False, False, False]], "state": "ongoing"}
        )
        game.mask[0][1] = True
        assert game.dig([0, 2]) == 1 and game.state == "victory"
'''


def test_what_a_task_asks_a_test_to_observe_can_be_observed(library):
    """Printed output, the handout starter's from_dict and an attribute changed in place: each test
    is valid, and the one whose victory depends on the mask changed in place catches the bug that
    never wins."""
    result = grade(OBSERVE, library)
    found = verdicts(result)
    assert all(t.valid for t in found.values()), result.feedback()
    assert found["TestTiny.test_a_game_from_its_attributes_changed_in_place"].caught == ["no-victory"]


# ------------------------------------------------------------------------------------ budget
def test_a_test_that_keeps_the_implementation_busy_is_stopped_and_charged(library):
    """The tested code's work for a test is charged to the test's time and to the own-tests budget;
    a module whose top level burns CPU time is charged too; once the budget is spent the tests left
    say so. No test outlasts the budget however the work is split."""
    source = '''
import lab

total = 0
for index in range(2_000_000):
    total += index

class TestTiny:
    def test_a_small_game(self):
        assert lab.HyperMinesGame([3], [[0]]).dig([2]) == 2

    def test_b_huge_boards(self):
        for _ in range(5):
            game = lab.HyperMinesGame([600, 600], [])
            assert game.dig([0, 0]) == 360000

    def test_c_after(self):
        assert lab.HyperMinesGame([2], [[0]]).dig([1]) == 1
'''
    limits = OwnTestsLimits(budget_seconds=6, test_seconds=1, call_seconds=1)
    result = grade(source, library, limits=limits)
    found = verdicts(result)
    heavy = found["TestTiny.test_b_huge_boards"]
    assert not heavy.valid and ("took too long" in heavy.failure or "more than 1 s" in heavy.failure), heavy.failure
    assert result.seconds <= limits.budget_seconds + 10, "everything done for the tests was counted and bounded"
    spent = own_tests.grade_own_tests(
        HYPERMINES,
        own_tests.FoundTests(TestsFile(source, "test.py", ("TestTiny",)), "test.py"),
        seed=1,
        library=library,
        limits=OwnTestsLimits(budget_seconds=0.5, test_seconds=1, call_seconds=1),
    )
    assert spent.verdicts.budget_spent
    assert "the own-tests budget of 0.5 s of CPU time was spent" in spent.feedback()


# ------------------------------------------------------------------------------ hostile data
HOSTILE = '''
import json
import sys

import lab
import remote


class TestTiny:
    def test_a_forges_the_runner(self):
        for message in ({"runner": "result", "test": 5, "outcome": [], "line": "x", "message": {"a": 1}},
                        {"runner": "start", "test": ["TestTiny.test_b_huge_message"]},
                        {"runner": "collected", "tests": 7},
                        {"runner": "problem", "line": [1]}):
            remote.channel(json.dumps(message))
        remote.channel("not json at all")
        assert lab.HyperMinesGame([3], [[0]]).dig([2]) == 2

    def test_b_huge_message(self):
        assert lab.HyperMinesGame([3], [[0]]).dig([2]) == 3, "x" * 5_000_000

    def test_c_replaces_the_runner(self):
        sys.modules["own_tests_driver"].run = lambda plan: {"stdout": 5}
        assert True
'''


def test_whatever_the_tests_sandbox_sends_is_data(library):
    """Forged and malformed messages, a 5 MB failure message and a replaced runner never make the
    grader raise: each test gets a verdict, and every message kept is cut to size."""
    result = grade(HOSTILE, library)
    found = verdicts(result)
    assert found["TestTiny.test_a_forges_the_runner"].valid, result.feedback()
    huge = found["TestTiny.test_b_huge_message"]
    assert not huge.valid and len(huge.failure) < 2000 and "... cut," in huge.failure and "bytes more" in huge.failure
    assert len(result.feedback()) < 30_000


# ----------------------------------------------------------------------------------- messages
def test_messages_name_the_cell_and_the_line_and_keep_the_students_words(library):
    """A notebook's test fails with its own words as written ("line 5" in them is not rewritten),
    and the feedback names the cell and the line in it."""
    cells = [
        CodeCell("the cell starting \"def helper\"", "def helper():\n    return 2\n"),
        CodeCell("Exercise 4.2", "class TestTiny:\n    def test_mine(self):\n        game = HyperMinesGame([3], [])\n"
                             "        assert game.dig([0]) == helper(), 'line 5 of my plan: dig opens 3'\n"),
    ]
    found = tests_from_cells(cells, HYPERMINES.names)
    tests = own_tests.FoundTests(TestsFile(found.source, "tests.py", None, as_names=True), "your own tests", found)
    result = own_tests.grade_own_tests(HYPERMINES, tests, seed=1, library=library)
    text = result.feedback()
    assert "(Exercise 4.2, line 4): AssertionError: line 5 of my plan: dig opens 3" in text, text


# ----------------------------------------------------------------------------------- isolation
#: Each reads something a test could use to tell implementations apart without running them, and
#: turns it into pass or fail by one bit of its digest: were that thing to differ between
#: implementations, the tests' verdicts would differ between them too.
PEEKS = {
    "source": "inspect.getsource(lab.HyperMinesGame)",
    "method_source": "inspect.getsource(lab.HyperMinesGame([1], []).dig)",
    "names": "(lab.HyperMinesGame.__qualname__, lab.HyperMinesGame.__module__, lab.HyperMinesGame.__doc__, "
             "sorted(dir(lab.HyperMinesGame)), repr(type(lab.HyperMinesGame([1], []))))",
    "code": "[(f.__code__.co_code, f.__code__.co_consts, f.__code__.co_filename, f.__code__.co_names) "
            "for f in (lab.HyperMinesGame([1], []).dig, lab.HyperMinesGame([1], []).render)]",
    "modules": "sorted(sys.modules)",
    "files": "sorted(os.listdir('.')) + sorted(os.listdir('/sandbox')) + sorted(os.listdir('/tmp'))",
    "environment": "(sorted(os.environ.items()), sys.argv, sys.path)",
    "memory": "sorted({type(o).__name__ for o in gc.get_objects()})",
    "messages": "count_messages(lambda: lab.HyperMinesGame([1], []))",
    "earlier_runs": "remember()",  # what an earlier run of the tests left in their folder or /tmp
}

BITS = 6
PEEKING = '''
import gc, hashlib, inspect, os, sys
import lab
import remote

def count_messages(action):
    sent = []
    channel = remote.channel
    remote.channel = lambda text: sent.append(text) or channel(text)
    try:
        action()
    finally:
        remote.channel = channel
    return len(sent)

def remember():
    here = [p for p in ("seen.txt", "/tmp/seen.txt") if os.path.exists(p)]
    for path in ("seen.txt", "/tmp/seen.txt"):
        try:
            with open(path, "w") as handle:
                handle.write("an implementation ran before")
        except OSError:
            pass
    return here

def bit(value, index):
    digest = hashlib.sha256(repr(value).encode()).digest()
    return (digest[index // 8] >> (index % 8)) & 1

def look(expression):
    try:
        return eval(expression)
    except Exception as error:
        return f"{type(error).__name__}: {error}"
'''


def test_a_test_cannot_tell_the_implementations_apart_but_by_what_they_do(library):
    """Each peek becomes six tests, each failing on one bit of what it read: any difference
    between two implementations would show as a test valid on one and not the other."""
    source = PEEKING + "".join(
        f"\ndef test_{name}_{index}():\n    assert not bit(look({expression!r}), {index})\n"
        for name, expression in PEEKS.items() for index in range(BITS)
    )
    result = grade(source, library, classes=None)
    assert len(result.tests) == BITS * len(PEEKS)
    for test in result.tests:
        assert test.caught == [], f"{test.name} told a chaff from the wheats without running it"
    for test in result.tests:
        assert len(set(test.passed.values())) == 1, f"{test.name} passed on some implementations only: {test.passed}"


def test_the_tests_are_found_beside_a_lab_file_or_in_the_graded_code(tmp_path: Path):
    lab = tmp_path / "lab.py"
    lab.write_text(REFERENCE)
    (tmp_path / "test.py").write_text(GOOD)
    found = own_tests.tests_source(HYPERMINES, REFERENCE, lab)
    assert found is not None and found.file.filename == "test.py" and found.file.classes == ("TestTiny",)
    assert own_tests.tests_source(HYPERMINES, REFERENCE, tmp_path / "other.ipynb") is None
    mixed = REFERENCE + "\n\ndef test_mine():\n    assert HyperMinesGame([1], []).dig([0]) == 1\n"
    found = own_tests.tests_source(HYPERMINES, mixed, None)
    assert found is not None and found.file.classes is None and found.file.as_names
    assert "class HyperMinesGame" not in found.source and "def test_mine" in found.source
    assert found.source.count("\n") >= mixed.count("\n"), "line numbers are kept"
    assert found.source.splitlines().index("def test_mine():") == mixed.splitlines().index("def test_mine():")


@pytest.mark.parametrize("name", ["lab.py", "conftest.py", "submission.py"])
def test_tests_in_the_graded_code_run_whatever_its_file_is_called(tmp_path: Path, library, name):
    """Tests written in the graded file itself run, and their lines are named after that file,
    whatever the student called it: a lab.py is also the name of the stand-ins' module, and pytest
    reads a conftest.py as its own."""
    graded = tmp_path / name
    source = REFERENCE + (
        "\n\ndef test_dig_opens_one_cell():\n    assert HyperMinesGame([2], [[0]]).dig([1]) == 1\n"
        "\n\ndef test_wrong():\n    assert HyperMinesGame([2], [[0]]).dig([1]) == 2\n")
    graded.write_text(source)
    found = own_tests.tests_source(HYPERMINES, source, graded)
    assert found is not None and found.file.filename == "tests.py" and found.shown == name
    result = own_tests.grade_own_tests(HYPERMINES, found, seed=1, library=library)
    by_name = verdicts(result)
    assert set(by_name) == {"test_dig_opens_one_cell", "test_wrong"}, result.feedback()
    assert by_name["test_dig_opens_one_cell"].valid and not by_name["test_wrong"].valid, result.feedback()
    wrong_line = source.splitlines().index("    assert HyperMinesGame([2], [[0]]).dig([1]) == 2") + 1
    assert f"({name}, line {wrong_line})" in result.feedback(), result.feedback()


def test_the_seed_orders_the_runs_and_not_the_verdicts(library, good):
    first, second = good, grade(GOOD, library, seed=99)
    assert [(t.name, t.valid, t.caught) for t in first.tests] == [(t.name, t.valid, t.caught) for t in second.tests]
