"""What the grader tells a student, shape by shape: every expected text below is written by hand.

Missing and unexpected cells named apart; nouns that agree with their numbers; step 3's statuses
by the notebook's names; the bots' wins in plain words, shown by passing tests too; a place in a
notebook named by its exercise or its cell's first line, never by a cell number JupyterLab does
not show.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.grading import GradeReport
from autograder.grading import TestOutcome as Outcome
from autograder.notebook import cell_labels, notebook_code
from autograder.report import feedback_text
from autograder.submission import Submission
from autograder.suite import Mismatch, check_coordinates, check_equal, first_difference, plural, set_difference


SUITE_ANSWERS = """
import importlib.util, json, sys
import autograder.suite
from autograder.assignments import instructor_dir

spec = importlib.util.spec_from_file_location("suite", instructor_dir() / "suites" / (sys.argv[1] + ".py"))
suite = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = suite
spec.loader.exec_module(suite)
names = {**vars(autograder.suite), **vars(suite)}
print(json.dumps([eval(expression, names) for expression in json.loads(sys.stdin.read())]))
"""


def suite_answers(name: str, *expressions: str) -> list:
    """The values of ``expressions`` in a hidden suite's namespace (and the suite helpers'). The suite is read in a plain
    interpreter, as the grader reads it (its ``points`` marks mean nothing to this pytest run)."""
    done = subprocess.run([sys.executable, "-c", SUITE_ANSWERS, name], input=json.dumps(expressions),
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout)


# ------------------------------------------------------------------------------- sets of cells


def test_missing_and_unexpected_cells_are_named_apart():
    with pytest.raises(Mismatch) as caught:
        check_coordinates([[0, 1], [2, 2]], [(0, 1), (1, 1)], what="the neighbours", case="neighbors([3, 3], [0, 0])")
    assert str(caught.value) == "neighbors([3, 3], [0, 0]): the neighbours are wrong: missing: [1, 1]; unexpected: [2, 2]"


def test_a_long_difference_lists_three_cells_and_counts_the_rest():
    assert set_difference({(0,), (9,)}, {(1,), (2,), (3,), (4,), (5,)}) == (
        "missing: [1], [2], [3] and 2 more; unexpected: [0], [9]"
    )
    assert set_difference({(0, 1)}, [(0, 1)]) is None


def test_a_one_dimensional_neighbour_too_many_is_unexpected():
    with pytest.raises(Mismatch, match=r"^neighbors_1d\(1, 0\): the neighbours are wrong: unexpected: \[0\]$"):
        check_coordinates([0], [], what="the neighbours", case="neighbors_1d(1, 0)")


# ------------------------------------------------------------------------------- grammar


def test_nouns_agree_with_their_numbers():
    assert plural(1, "item") == "1 item"
    assert plural(2, "item") == "2 items"
    assert plural(0, "game") == "0 games"
    assert plural(1, "beginner game") == "1 beginner game"
    assert first_difference([1], [1, 2]) == "the top level has 1 item, expected 2"
    assert first_difference([[1, 2, 3]], [[1, 2]]) == "[0] has 3 items, expected 2"


# ------------------------------------------------------------------------------- step 3's statuses


def test_statuses_are_named_as_in_the_notebook():
    assert suite_answers(
        "test_flood_fill",
        "first_difference([[0, -1]], [[0, -2]], show=status_text)",
        "first_difference([-6, -3], [-6, -5], show=status_text)",
        "first_difference([[-4]], [[2]], show=status_text)",
        "first_difference(['-1'], [-1], show=status_text)",
        "first_difference([-7], [-1], show=status_text)",
    ) == [
        "at [0][1]: expected MINE_GUESS, got COVERED",
        "at [1]: expected MINE, got EXPLODED_MINE",
        "at [0][0]: expected 2, got INCORRECT_GUESS",
        "at [0]: expected COVERED, got '-1'",
        "at [0]: expected COVERED, got -7",
    ]
    with pytest.raises(Mismatch, match=r"^moves \[\]: get_status of every cell is wrong: at \[0\]\[0\]: expected "
                                       r"QUESTION, got COVERED$"):
        check_equal([[-1]], [[-6]], what="get_status of every cell", case="moves []",
                    show=lambda value: {-1: "COVERED", -6: "QUESTION"}[value])


# ------------------------------------------------------------------------------- the bots' wins


def test_the_bots_wins_are_said_plainly():
    assert suite_answers(
        "test_bots", "Comparison(100, 0, 0, 86).text()", "Comparison(30, 27, 1, 2).text()", "Comparison(30, 28, 0, 0).text()"
    ) == [
        "your bot won 0 of 100 beginner games, the judge 86 of the same boards: 0% of the judge's win rate, "
        "+-2 points at 95% confidence for this run",
        "your bot won 28 of 30 beginner games, the judge 29 of the same boards (27 boards won by both, 1 by your "
        "bot alone, 2 by the judge alone): 97% of the judge's win rate, +-14 points at 95% confidence for this run",
        "your bot won 28 of 30 beginner games, the judge 28 of the same boards (28 boards won by both): 100% of "
        "the judge's win rate, +-7 points at 95% confidence for this run",
    ]


def test_a_passing_test_shows_what_it_has_to_say():
    wins = "your bot won 28 of 30 beginner games, the judge 29 of the same boards; this test asks for 20%"
    report = GradeReport(
        "alice", "bots", 4.0, 4.0, 1.0, 7,
        tests=[Outcome("Win rate at least 20% of the judge's", 2.0, "test_a_fifth_of_the_judge", 2.0, "passed",
                           f"passed: {wins}"),
               Outcome("Another test", 2.0, "test_other", 2.0, "passed", "passed")],
    )
    lines = feedback_text(report).splitlines()
    at = lines.index("[PASS] Win rate at least 20% of the judge's  2/2")
    assert lines[at + 1] == f"       {wins}"
    assert lines[at + 2] == "[PASS] Another test                          2/2"


# ------------------------------------------------------------------------------- places in a notebook


def notebook(*cells: dict) -> bytes:
    return json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": list(cells)}).encode()


def markdown(text: str) -> dict:
    return {"cell_type": "markdown", "metadata": {}, "source": text}


def code(text: str, solution: bool = False) -> dict:
    metadata = {"nbgrader": {"solution": True, "grade": False, "grade_id": "x", "locked": False}} if solution else {}
    return {"cell_type": "code", "metadata": metadata, "source": text, "outputs": [], "execution_count": None}


STUDENT_NOTEBOOK = notebook(
    markdown("# Step 1"),
    code("import os\n"),
    markdown("**Exercise 1.4.** Write `dig(grid, coordinate, user_view)`."),
    code("def dig(grid, coordinate, user_view):\n    return missing_name\n", solution=True),
    code("\n\ndef helper(x):\n    return 1 / 0\n"),
    code("x = 1  # a very long first line, far longer than the fifty characters a label shows\n"),
)


def test_cells_are_named_by_their_exercise_or_their_first_line():
    assert cell_labels(STUDENT_NOTEBOOK) == [
        (2, 'the cell starting "import os"'),
        (4, "Exercise 1.4"),
        (5, 'the cell starting "def helper(x):"'),
        (6, 'the cell starting "x = 1  # a very long first line, far longer tha..."'),
    ]


def test_an_error_is_placed_by_the_exercise_not_by_a_cell_number():
    source, _, _, _, line_map = notebook_code(STUDENT_NOTEBOOK)
    submission = Submission("s", Path("n.ipynb"), source=source, kind="notebook", line_map=line_map,
                            cell_labels=cell_labels(STUDENT_NOTEBOOK))
    lines = source.split("\n")
    missing = lines.index("    return missing_name") + 1
    assert submission.locate(f"NameError: name 'missing_name' is not defined (line {missing}, in dig)") == (
        "NameError: name 'missing_name' is not defined (Exercise 1.4, line 2, in dig)"
    )


def test_a_syntax_error_is_placed_by_the_cells_first_line():
    broken = notebook(markdown("**Exercise 2.1.** Write `make_board`."),
                      code("def make_board(dimensions, elem):\n    return [elem] * (dimensions[0]\n", solution=True),
                      code("def helper(:\n    pass\n", solution=True))
    with pytest.raises(ValueError, match=r"^SyntaxError in Exercise 2\.1, line 2: '\(' was never closed$"):
        notebook_code(broken)
    broken = notebook(code("x = 1\n"), code("\n# my helper\ndef helper(:\n    pass\n"))
    with pytest.raises(ValueError, match=r'^SyntaxError in the cell starting "# my helper", line 3: invalid syntax$'):
        notebook_code(broken)
