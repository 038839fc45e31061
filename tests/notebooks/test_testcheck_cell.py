"""The "check my tests" cell of each step, run in a kernel on the student version (`make release`).

A student's tests replace the stub of the release copy's tests cell: one valid test that catches a
public planted bug and one invalid test. The copy keeps the set-up cell, the exercises as released
(unwritten) and the check cell; the check reads the tests from what the kernel ran, runs them in
sandboxes against the kit's implementations (never the student's unwritten ones), and prints each
verdict, where the invalid one failed (its cell's prompt and line) and the requirement, unmet.
"""
from __future__ import annotations

import nbformat
import pytest

from minesweeper_kit.own_tests_requirements import REQUIREMENTS
from notebook_tools import describe, execute, nbgrader_meta

STUDENT_TESTS = {
    "neighbors": (
        "01-neighbors.ipynb",
        "def test_corner():\n"
        "    assert sorted(neighbors_2d((3, 3), (2, 2))) == [(1, 1), (1, 2), (2, 1)]\n\n\n"
        "def test_wrong():\n"
        "    assert neighbors_1d(10, 5) == [4, 5, 6], 'a cell is its own neighbour'\n",
        "  test_corner: valid; catches: the last position of each axis is never a neighbour; only cells one "
        "step along a single axis count, no diagonals; the board wraps around, so a cell on an edge touches the "
        "far edge",
        "AssertionError: a cell is its own neighbour",
    ),
    "make-board": (
        "02-make-board.ipynb",
        "def test_rows_first():\n"
        "    assert len(make_board([2, 3], 0)) == 2\n\n\n"
        "def test_wrong():\n"
        "    assert len(all_coords([2])) == 3, 'three cells'\n",
        "  test_rows_first: valid; catches: make_board builds the axes in reverse order ([2, 3] gives 3 lists of 2)",
        "AssertionError: three cells",
    ),
    "flood-fill": (
        "03-flood-fill.ipynb",
        "def test_diagonal():\n"
        "    assert MineField([[True, False], [False, False]]).num_adjacent_mines(1, 1) == 1\n\n\n"
        "def test_wrong():\n"
        "    assert VisibleField(MineField([[False]])).get_status(0, 0) == 0, 'a new field shows zeros'\n",
        "  test_diagonal: valid; catches: num_adjacent_mines counts only the four side neighbours",
        "AssertionError: a new field shows zeros",
    ),
    "hypermines": (
        "04-nd-dig.ipynb",
        "class TestTiny:\n"
        "    def test_bomb(self):\n"
        "        game = HyperMinesGame([3], [[0]])\n"
        "        game.dig([0])\n"
        "        assert game.state == 'defeat'\n\n"
        "    def test_wrong(self):\n"
        "        assert HyperMinesGame([3], []).dig([0]) == 1, 'one cell a dig'\n",
        "  TestTiny.test_bomb: valid; catches: digging a bomb reveals it but the game goes on",
        "AssertionError: one cell a dig",
    ),
}


@pytest.mark.parametrize("step", sorted(STUDENT_TESTS))
def test_the_check_cell_of_the_release_reports_each_test(release_folder, tmp_path, step):
    name, tests, valid, invalid = STUDENT_TESTS[step]
    released = nbformat.read(release_folder / step / name, as_version=4)
    kept = []
    for cell in released.cells:
        meta = nbgrader_meta(cell)
        if cell.get("id") == "own-tests":
            assert "raise NotImplementedError()" in cell.source  # the student version's stub
            cell.source = tests
            kept.append(cell)
        elif cell.get("id") in ("setup-02", "check-own-tests") or meta.get("solution"):
            kept.append(cell)
    released.cells = kept
    path = tmp_path / name
    nbformat.write(released, path)
    ran, errors = execute(path, timeout=120)
    assert not errors, describe(errors)
    check = next(c for c in ran.cells if c.get("id") == "check-own-tests")
    printed = "".join(o.get("text", "") for o in check.outputs if o.output_type == "stream").splitlines()
    assert valid in printed, "\n".join(printed)
    wrong = next(line for line in printed if ".test_wrong: INVALID" in line or line.startswith("  test_wrong: INVALID"))
    assert "it fails on a correct implementation (In [" in wrong and wrong.endswith(invalid), wrong
    caught = 3 if step == "neighbors" else 1  # the valid test above catches every bug it names
    told = f"Public planted bugs caught by your valid tests: {caught} of 3"
    assert any(line.startswith(told) for line in printed), "\n".join(printed)
    requirement = f"Requirement ({REQUIREMENTS[step].text}): NOT met: 1 valid test(s) that can fail"
    assert any(line.startswith(requirement) for line in printed), "\n".join(printed)
