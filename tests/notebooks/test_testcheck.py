"""The "your own tests" exercise of steps 1-4 and its "check my tests" cell (minesweeper_kit/testcheck.py).

The exercise states the requirement in the grader's words and what the tests are worth; the check
runs the tests with the grader's runner against the kit's public implementations (real sandboxes),
reports valid and invalid tests, the bugs caught and the requirement, reads the tests from what
the kernel ran, and never lets a test run unbounded. The release copy's check cell is run in a
kernel by test_testcheck_cell.py; the check cell and the grader giving the same verdicts is
test_testcheck_verdicts.py.
"""
from __future__ import annotations

import ast

import nbformat
import pytest

from autograder.instructor.chaffs import planted_for
from minesweeper_kit.own_tests_requirements import REQUIREMENTS
from minesweeper_kit.owntests import CodeCell, OwnTestsLimits
from minesweeper_kit.owntests.public import PLANTED, library
from minesweeper_kit.testcheck import CHECKED_STEPS, check_my_tests, kernel_cells
from notebook_tools import HIDDEN_TESTS, NOTEBOOKS, nbgrader_meta

STEP_NOTEBOOKS = {
    "01-neighbors.ipynb": "neighbors",
    "02-make-board.ipynb": "make-board",
    "03-flood-fill.ipynb": "flood-fill",
    "04-nd-dig.ipynb": "hypermines",
}


def cell(nb, cell_id):
    return next(c for c in nb.cells if c.get("id") == cell_id)


def model_cells(name: str) -> list[CodeCell]:
    """The source notebook's set-up cell and its own-tests cell, as a student's kernel ran them."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    return [CodeCell("set-up", cell(nb, "setup-02").source), CodeCell("In [2]", cell(nb, "own-tests").source)]


# ------------------------------------------------------------------------ the notebooks
@pytest.mark.parametrize("name", sorted(STEP_NOTEBOOKS))
def test_the_exercise_states_the_requirement_and_what_the_tests_are_worth(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    ids = [c.get("id") for c in nb.cells]
    assert ids[-1] == HIDDEN_TESTS
    at = ids.index("text-own-tests")
    assert ids[at:at + 3] == ["text-own-tests", "own-tests", "check-own-tests"]
    text = cell(nb, "text-own-tests").source
    assert REQUIREMENTS[STEP_NOTEBOOKS[name]].text in text
    for words in ("invalid", "planted bug", "correct implementations", "```python", "reported only",
                  "flaky", "assertion"):
        assert words in text, f"{name}: the exercise does not say {words!r}"
    tests = nbgrader_meta(cell(nb, "own-tests"))
    assert tests["solution"] is True and tests["grade"] is False and tests["grade_id"] == "own-tests"
    check = nbgrader_meta(cell(nb, "check-own-tests"))
    assert check["locked"] is True and check["grade"] is False and check["solution"] is False
    assert "points" not in check
    assert f'check_my_tests("{STEP_NOTEBOOKS[name]}", globals())' in cell(nb, "check-own-tests").source
    assert "autograder" not in cell(nb, "check-own-tests").source


def test_step_4_tests_take_the_handouts_shape():
    source = cell(nbformat.read(NOTEBOOKS / "04-nd-dig.ipynb", as_version=4), "own-tests").source
    assert source.count("class TestTiny:") == 1
    assert "unittest" not in source  # the step's import rule refuses it in the graded code


@pytest.mark.parametrize("name", sorted(STEP_NOTEBOOKS))
def test_the_instructors_tests_are_valid_meet_the_requirement_and_catch_every_public_bug(name, capsys):
    result = check_my_tests(STEP_NOTEBOOKS[name], cells=model_cells(name))
    capsys.readouterr()
    assert result.tests and all(t.valid for t in result.tests), result.report()
    assert result.unmet == [], result.report()
    assert result.caught == list(result.bugs), result.report()


def test_the_set_up_cells_compare_alike():
    """difference and check are the same in the five step notebooks."""
    found = {}
    for path in sorted(NOTEBOOKS.glob("0[1-5]-*.ipynb")):
        source = cell(nbformat.read(path, as_version=4), "setup-02").source
        functions = [node for node in ast.parse(source).body if isinstance(node, ast.FunctionDef)
                     and node.name in ("difference", "check")]
        found[path.name] = tuple(ast.get_source_segment(source, node) for node in functions)
    assert len(found) == 5 and len(set(found.values())) == 1 and all(len(v) == 2 for v in found.values())


def test_the_set_up_helpers_name_missing_and_unexpected_cells():
    namespace: dict = {}
    exec(cell(nbformat.read(NOTEBOOKS / "01-neighbors.ipynb", as_version=4), "setup-02").source, namespace)
    difference, check = namespace["difference"], namespace["check"]
    assert difference({(0, 1), (1, 1)}, {(0, 1), (1, 0)}) == "missing: (1, 0); unexpected: (1, 1)"
    assert difference({3}, {1, 2, 3}) == "missing: 1, 2"
    assert difference({1, 2}, {1, 2}) is None
    with pytest.raises(AssertionError) as raised:
        check("neighbours of 0", {2}, {1})
    assert str(raised.value) == "neighbours of 0\n  missing: 1; unexpected: 2"
    assert difference([1], [1, 2]) == "1 item instead of 2"
    assert difference([1, 2, 3], [1, 2]) == "3 items instead of 2"
    with pytest.raises(AssertionError) as raised:
        check("a list", [1, 2, 3], [1, 2])
    assert "expected: [1, 2]" in str(raised.value) and "got:      [1, 2, 3]" in str(raised.value)


# ------------------------------------------------------------------- the kit's versions
def test_the_public_bugs_are_not_the_hidden_ones():
    for step in CHECKED_STEPS:
        hidden = {chaff.name for chaff in planted_for(step)}
        public = {name for name, _, _ in PLANTED[step]}
        assert 2 <= len(public) <= 4 and not public & hidden, step


def versions(step: str) -> dict:
    """Each public implementation of ``step`` run in this process (the kit is importable here)."""
    found = {}
    for implementation in library(step).implementations:
        namespace: dict = {"__name__": "lab"}
        exec(compile(implementation.source, implementation.name, "exec"), namespace)
        found[implementation.name] = namespace
    return found


def test_the_correct_neighbours_and_the_bugs_around_them():
    found = versions("neighbors")
    correct, other = found["correct"], found["correct-other-order"]
    assert sorted(correct["neighbors_1d"](10, 9)) == [8]
    assert set(correct["neighbors_2d"]((3, 4), (2, 3))) == {(1, 2), (1, 3), (2, 2)}
    assert correct["neighbors"]([2, 2, 2], [0, 0, 0]) == other["neighbors"]([2, 2, 2], [0, 0, 0])[::-1]
    assert set(found["last_position_dropped"]["neighbors_2d"]((3, 4), (1, 1))) == {(0, 0), (0, 1), (0, 2),
                                                                                   (1, 0), (1, 2)}
    assert set(found["no_diagonals"]["neighbors_3d"]((3, 3, 3), (0, 0, 0))) == {(0, 0, 1), (0, 1, 0), (1, 0, 0)}
    assert sorted(found["wraps_around"]["neighbors_1d"](5, 0)) == [1, 4]


def test_the_correct_boards_and_the_bugs_around_them():
    found = versions("make-board")
    correct = found["correct"]
    board = correct["make_board"]([2, 3], 0)
    assert board == [[0, 0, 0], [0, 0, 0]]
    assert correct["set_coords"](board, (1, 2), 7) is None and board == [[0, 0, 0], [0, 0, 7]]
    assert correct["get_coords"](board, [1, 2]) == 7
    assert correct["all_coords"]([2, 2]) == [(0, 0), (0, 1), (1, 0), (1, 1)]
    assert correct["new_board"]([2, 2], [[0, 0]]) == [[".", 1], [1, 1]]
    assert found["axes_reversed"]["make_board"]([2, 3], 0) == [[0, 0], [0, 0], [0, 0]]
    board = [[0, 0], [0, 0]]
    found["set_coords_on_a_copy"]["set_coords"](board, (0, 0), 1)
    assert board == [[0, 0], [0, 0]]
    assert found["all_coords_skips_last"]["all_coords"]([2]) == [(0,)]


def test_the_correct_flood_fill_and_the_bugs_around_it():
    found = versions("flood-fill")
    correct = found["correct"]
    mines = [[True, False, False, False], [False, False, False, False]]
    visible = correct["VisibleField"](correct["MineField"](mines))
    assert visible.uncover(1, 3) is True
    assert [[visible.get_status(r, c) for c in range(4)] for r in range(2)] == [[-1, 1, 0, 0], [-1, 1, 0, 0]]
    assert visible.is_game_over() is False
    assert visible.uncover(1, 0) is True and visible.is_game_over() is True
    assert visible.get_status(0, 0) == -2 and visible.num_mines_left() == 1
    never = found["uncover_never_floods"]
    visible = never["VisibleField"](never["MineField"](mines))
    visible.uncover(1, 3)
    assert [visible.get_status(r, c) for r in range(2) for c in range(4)].count(-1) == 7
    side = found["counts_without_diagonals"]["MineField"](mines)
    assert side.num_adjacent_mines(1, 1) == 0
    guesses = found["guesses_not_counted"]
    visible = guesses["VisibleField"](guesses["MineField"](mines))
    visible.cycle_guess(1, 1)
    assert visible.num_mines_left() == 1


def test_the_correct_game_and_the_bugs_around_it():
    found = {name: namespace["HyperMinesGame"] for name, namespace in versions("hypermines").items()}
    game = found["correct"]([1, 4], [[0, 0]])
    assert game.dig([0, 3]) == 3 and game.state == "victory"
    game = found["dig_never_floods"]([1, 4], [[0, 0]])
    assert [game.dig([0, 3]), game.dig([0, 2]), game.dig([0, 1])] == [1, 1, 1] and game.state == "victory"
    game = found["bomb_does_not_end_the_game"]([1, 4], [[0, 0]])
    assert game.dig([0, 0]) == 1 and game.state == "ongoing" and game.mask == [[True, False, False, False]]
    game = found["xray_ignored"]([2], [[0]])
    assert game.render(True) == ["_", "_"]


# ------------------------------------------------------------------------------ the check
def test_the_tests_are_what_the_kernel_ran_but_the_notebooks_own_test_cells():
    history = ["", "# The visible tests use these helpers.\ndef check(q, got, expected):\n    pass\n",
               "def test_mine():\n    assert neighbors_1d(3, 0) == [1]\n",
               "# Visible test \"test_neighbors_1d\" (1 point).\ndef test_not_mine():\n    pass\n",
               "from minesweeper_kit.testcheck import check_my_tests\ncheck_my_tests('neighbors', globals())\n"]
    cells = kernel_cells({"In": history})
    assert [c.label for c in cells] == ["In [1]", "In [2]"]


def test_no_tests_is_a_message_not_an_error(capsys):
    namespace = {"neighbors": "the student's own", "In": ["", "x = 1\n", "check_my_tests('neighbors', globals())"]}
    result = check_my_tests("neighbors", namespace)
    printed = capsys.readouterr().out
    assert result.problem and "No tests of your own were found" in printed
    assert REQUIREMENTS["neighbors"].text in printed
    assert namespace["neighbors"] == "the student's own"


def test_verdicts_of_a_valid_and_an_invalid_test(capsys):
    source = (
        "def test_corner():\n"
        "    assert sorted(neighbors_2d((3, 3), (2, 2))) == [(1, 1), (1, 2), (2, 1)]\n"
        "def test_wrong():\n"
        "    assert neighbors_1d(10, 5) == [4, 5, 6], 'a cell is its own neighbour'\n"
        "def test_unwritten():\n"
        "    raise NotImplementedError()\n"
    )
    result = check_my_tests("neighbors", cells=[CodeCell("In [7]", source)])
    printed = capsys.readouterr().out.splitlines()
    assert ("  test_corner: valid; catches: the last position of each axis is never a neighbour; only cells one "
            "step along a single axis count, no diagonals; the board wraps around, so a cell on an edge touches "
            "the far edge") in printed
    assert ("  test_wrong: INVALID, it fails on a correct implementation (In [7], line 4): AssertionError: a cell is "
            "its own neighbour") in printed
    assert "  test_unwritten: INVALID, it fails on a correct implementation (In [7], line 6): NotImplementedError" \
        in printed
    assert "Public planted bugs caught by your valid tests: 3 of 3." in printed
    assert result.unmet[0].startswith("1 valid test(s) that can fail")
    assert any(line.startswith("Requirement (at least three tests") and "NOT met" in line for line in printed)


def test_the_requirement_is_checked_on_the_calls_made(capsys):
    source = (
        "class TestTiny:\n"
        "    def test_one(self):\n"
        "        game = HyperMinesGame([3], [[0]])\n"
        "        assert game.dig([2]) == 2\n"
        "        assert game.dig([2]) == 0\n"
        "    def test_two(self):\n"
        "        game = HyperMinesGame([2, 2], [[0, 0]])\n"
        "        assert game.dig([1, 1]) == 1\n"
        "    def test_three(self):\n"
        "        game = HyperMinesGame([2, 1, 2], [[0, 0, 0]])\n"
        "        assert game.dig([1, 0, 1]) == 1\n"
        "        assert game.dig([0, 0, 0]) == 1\n"
        "        assert game.state == 'defeat'\n"
    )
    result = check_my_tests("hypermines", cells=[CodeCell("In [3]", source)])
    capsys.readouterr()
    assert [t.name for t in result.tests] == ["TestTiny.test_one", "TestTiny.test_two", "TestTiny.test_three"]
    assert all(t.valid for t in result.tests)
    assert result.unmet == ["no valid test makes a 2-D game and digs it twice with different results"]


@pytest.mark.slow
def test_a_test_that_never_ends_or_eats_memory_is_stopped_outside_the_kernel(capsys):
    """A test that loops until the game ends never ends on a planted bug where the game goes on: it
    is stopped at its CPU limit, in its sandbox, and counts as a catch; a test that takes memory
    without end is stopped by its sandbox's memory limit, not the kernel's."""
    source = (
        "def test_until_the_end():\n"
        "    game = HyperMinesGame([3], [[0]])\n"
        "    while game.state == 'ongoing':\n"
        "        game.dig([0])\n"
        "    assert game.state == 'defeat'\n"
        "def test_memory():\n"
        "    kept = []\n"
        "    while True:\n"
        "        kept.append(bytearray(10 ** 7))\n"
    )
    result = check_my_tests("hypermines", cells=[CodeCell("In [4]", source)],
                            limits=OwnTestsLimits(test_seconds=0.75, memory_mb=256))
    capsys.readouterr()
    found = {t.name: t for t in result.tests}
    assert found["test_until_the_end"].valid and "bomb_does_not_end_the_game" in found["test_until_the_end"].caught
    assert not found["test_memory"].valid and "MemoryError" in found["test_memory"].failure


def test_an_unknown_step_is_refused():
    with pytest.raises(ValueError, match="no tests check for step 'bots'"):
        check_my_tests("bots", {})
