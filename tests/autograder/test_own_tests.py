"""Grading a student's own tests with wheats and chaffs (``autograder/own_tests.py``), in real
sandboxes: what makes a test valid, what it catches, the requirement, and that a test cannot tell
the implementations apart but by what they do."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from autograder import own_tests
from autograder.assignments import get_assignment
from autograder.check import reference_submission
from autograder.instructor.wheats import wheats_for
from minesweeper_kit.owntests import TestsFile

HYPERMINES = get_assignment("hypermines")
REFERENCE = reference_submission(HYPERMINES).source

#: Two planted bugs written here, so these tests do not move when the chaff library grows: each
#: is one line of the reference changed, the way the library's chaffs are made.
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


def grade(source: str, library, classes=("TestTiny",), seed: int = 1) -> own_tests.OwnTestsResult:
    tests = own_tests.FoundTests(TestsFile(source, "test.py", classes), "test.py")
    return own_tests.grade_own_tests(HYPERMINES, tests, seed=seed, library=library)


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


def test_valid_tests_catch_the_bugs_they_exercise_and_a_wrong_test_earns_nothing(library):
    result = grade(GOOD, library)
    verdicts = {t.name: t for t in result.tests}
    assert list(verdicts) == ["TestTiny.test_1d", "TestTiny.test_2d_edge", "TestTiny.test_3d",
                              "TestTiny.test_wrong_about_the_rules"]
    wrong = verdicts["TestTiny.test_wrong_about_the_rules"]
    assert not wrong.valid and wrong.failure.startswith("AssertionError: 1 != 3")
    line = 1 + next(i for i, text in enumerate(GOOD.splitlines()) if "opens three" in text)
    assert wrong.failure.endswith(f"(line {line})"), wrong.failure
    assert "victory" not in wrong.failure and not result.tests[0].failure
    assert verdicts["TestTiny.test_1d"].caught == ["no-victory"]
    assert verdicts["TestTiny.test_2d_edge"].caught == ["edge"]
    assert verdicts["TestTiny.test_3d"].caught == []
    assert result.caught == ["edge", "no-victory"] and result.share() == 1.0
    assert result.unmet == [], result.unmet
    text = result.feedback()
    assert "3 of 4 valid" in text and "INVALID, it fails on a correct implementation: AssertionError: 1 != 3" in text
    assert "the misconception edge" in text and "Planted bugs caught by your valid tests: 2 of 2." in text
    assert "0 < p" not in text and "0 <= p" not in text, "never a chaff's code"


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
    assert result.unmet[0] == "1 valid test(s), 3 asked for"
    assert "no valid test makes a 1-D, 2-D, 3-D game and digs it twice with different results" in result.unmet
    assert "Planted bugs caught by your valid tests: 0 of 2 (2 missed)." in result.feedback()
    only_1d = GOOD.replace("def test_2d_edge", "def helper_2d").replace("def test_3d", "def helper_3d")
    result = grade(only_1d, library)
    assert result.caught == ["no-victory"] and result.share() == 0.25, "half of one bug in two: unmet requirement"


def test_tests_that_import_pytest_run(library):
    """pytest's own imports reach `socket`, which the tests may not import: a test file that
    starts with `import pytest`, as later handouts' files do, still runs, and `pytest.raises` works;
    the test's own `import socket` is still refused."""
    source = GOOD.replace("import unittest\n", "import unittest\nimport pytest\n") + '''

    def test_raises(self):
        game = lab.HyperMinesGame([2], [[0]])
        with pytest.raises(Exception):
            game.dig([5, 5, 5])
'''
    result = grade(source, library)
    verdicts = {t.name: t for t in result.tests}
    assert verdicts["TestTiny.test_1d"].valid and verdicts["TestTiny.test_1d"].caught == ["no-victory"], result.feedback()
    assert verdicts["TestTiny.test_2d_edge"].caught == ["edge"] and "TestTiny.test_raises" in verdicts
    refused = grade(GOOD.replace("import unittest\n", "import unittest\nimport socket\n"), library)
    assert refused.tests == [] and "import of 'socket' is not allowed in your tests" in refused.feedback()


def test_only_the_handouts_class_counts_in_a_test_file(library):
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
    assert found is not None and found.filename == "test.py" and found.classes == ("TestTiny",)
    assert own_tests.tests_source(HYPERMINES, REFERENCE, tmp_path / "other.ipynb") is None
    mixed = REFERENCE + "\n\ndef test_mine():\n    assert HyperMinesGame([1], []).dig([0]) == 1\n"
    found = own_tests.tests_source(HYPERMINES, mixed, None)
    assert found is not None and found.classes is None
    assert "class HyperMinesGame" not in found.source and "def test_mine" in found.source
    assert found.source.count("\n") >= mixed.count("\n"), "line numbers are kept"
    assert found.source.splitlines().index("def test_mine():") == mixed.splitlines().index("def test_mine():")


def test_the_seed_orders_the_runs_and_not_the_verdicts(library):
    first, second = grade(GOOD, library, seed=1), grade(GOOD, library, seed=99)
    assert [(t.name, t.valid, t.caught) for t in first.tests] == [(t.name, t.valid, t.caught) for t in second.tests]

