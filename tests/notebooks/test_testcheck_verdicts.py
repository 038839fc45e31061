"""The check cell and the grader give the same verdict, valid or invalid, on every test of a shared
table: tests as students write them (asserts, the set-up cell's helpers, pytest fixtures, unittest,
printed output, files, seeded generators, attributes changed in place, tests right and wrong, tests
that lean on the order of an unordered answer). Both run the same runner; they differ only in the
implementations (the kit's public ones, the grader's hidden ones), so a difference here is a
difference between those, and fails. A test's validity is judged on the correct implementations
alone (``minesweeper_kit/owntests/verdicts.py``), so the grader's side runs against those only: its
chaffs would add a sandbox each for catches this comparison never reads."""
from __future__ import annotations

import nbformat
import pytest

from autograder import own_tests
from autograder.assignments import get_assignment
from minesweeper_kit.owntests import CodeCell, TestsFile, tests_from_cells
from minesweeper_kit.testcheck import check_my_tests
from notebook_tools import NOTEBOOKS

pytestmark = pytest.mark.slow

NOTEBOOK = {"neighbors": "01-neighbors", "make-board": "02-make-board", "flood-fill": "03-flood-fill",
            "hypermines": "04-nd-dig"}

TABLE = {
    "neighbors": '''
import pytest

def test_1d_end():
    assert sorted(neighbors_1d(5, 0)) == [1]

def test_1d_itself_wrong():
    assert neighbors_1d(5, 2) == [1, 2, 3]

def test_2d_as_a_set():
    assert {tuple(c) for c in neighbors_2d((3, 4), (0, 0))} == {(0, 1), (1, 0), (1, 1)}

def test_2d_leans_on_the_order():
    assert [tuple(c) for c in neighbors_2d((3, 3), (1, 1))][:2] == [(0, 0), (0, 1)]

def test_nd_count():
    assert len(neighbors((3, 3, 3), (1, 1, 1))) == 26

def test_with_the_check_helper():
    check("neighbors_1d(3, 1)", sorted(neighbors_1d(3, 1)), [0, 2])

def test_read_file_from_tmp_path(tmp_path):
    path = tmp_path / "board.txt"
    path.write_text("2\\n2\\n1,0\\n0 , 0\\n")
    assert read_file(str(path)) == [["X", "0"], ["0", "0"]]

def test_read_file_broken_is_an_error():
    path = tempfile.mkdtemp() + "/broken.txt"
    with open(path, "w") as file:
        file.write("3\\n1\\n1, 0\\n")
    with pytest.raises(ValueError):
        read_file(path)

def test_print_grid(capsys):
    print_grid([["1", "X"]])
    assert capsys.readouterr().out.splitlines()[0] == " 0[1][X]"

def test_printed_by_helper():
    assert printed_by(print_grid, [[" "]]).splitlines()[0] == " 0[ ]"

def test_update_grid_in_place():
    grid = [["X", "0"], ["0", "0"]]
    assert update_grid(grid) is None and grid == [["X", "1"], ["1", "1"]]

def test_dig_and_status():
    grid = [["X", "1"], ["1", "1"]]
    view = make_empty_grid(grid)
    printed_by(dig, grid, "b0", view)
    assert view == [[" ", " "], [" ", "1"]] and count_total_moves(grid, view) == 2
    assert determine_game_status(grid, view) is True

def test_status_wrong():
    assert determine_game_status([["0"]], [["0"]]) is True
''',
    "make-board": '''
import unittest

class TestBoards(unittest.TestCase):
    def test_make_board(self):
        self.assertEqual(make_board([2, 3], 0), [[0, 0, 0], [0, 0, 0]])

    def test_no_aliasing(self):
        board = make_board([2, 2], 0)
        set_coords(board, (0, 0), 1)
        self.assertEqual(board, [[1, 0], [0, 0]])

    def test_rows(self):
        for dims, cells in [([2], 2), ([2, 3], 6), ([1, 1, 4], 4)]:
            with self.subTest(dims=dims):
                self.assertEqual(len(all_coords(dims)), cells + (1 if dims == [2, 3] else 0))

def test_get_with_a_tuple():
    assert get_coords([[1, 2], [3, 4]], (1, 0)) == 3

def test_all_coords_row_major():
    assert [tuple(c) for c in all_coords([2, 2])] == [(0, 0), (0, 1), (1, 0), (1, 1)]

def test_neighbors_leans_on_the_order():
    assert tuple(neighbors([3], [1])[0]) == (0,)

def test_new_board():
    assert new_board([4], [[1]]) == [1, ".", 1, 0]

def test_new_board_wrong():
    assert new_board([3], [[0]]) == [".", 1, 1]
''',
    "flood-fill": '''
def test_counts_with_diagonals():
    assert MineField([[True, False], [False, False]]).num_adjacent_mines(1, 1) == 1

def test_populate_with_a_seeded_generator():
    field = MineField.random(3, 3, 2)
    field.populate(0, 0, random.Random(5))
    mines = [(r, c) for r in range(3) for c in range(3) if field.has_mine(r, c)]
    assert len(mines) == 2 and (0, 0) not in mines

def test_populate_gives_these_cells():
    field = MineField.random(3, 3, 2)
    field.populate(0, 0, random.Random(5))
    assert [(r, c) for r in range(3) for c in range(3) if field.has_mine(r, c)] == [(1, 2), (2, 0)]

def test_uncover_floods_and_a_question_stays():
    visible = VisibleField(MineField([[False, False, False, True]]))
    visible.cycle_guess(0, 1)
    visible.cycle_guess(0, 1)
    assert visible.uncover(0, 0) is True
    assert [visible.get_status(0, c) for c in range(4)] == [0, -6, -1, -1]

def test_guess_counts():
    visible = VisibleField(MineField([[True, False]]))
    visible.cycle_guess(0, 1)
    assert visible.num_mines_left() == 0

def test_new_field_shows_zero_wrong():
    assert VisibleField(MineField([[False]])).get_status(0, 0) == 0
''',
    "hypermines": '''
class TestTiny:
    def test_1d(self):
        game = HyperMinesGame([3], [[0]])
        assert game.dig([2]) == 2
        assert game.dig([0]) == 1 and game.state == "defeat"

    def test_dump(self):
        out = printed_by(HyperMinesGame([1, 2], [[0, 0]]).dump)
        assert out == "dimensions: [1, 2]\\nboard: ['.', 1]\\nmask:  [False, False]\\nstate: ongoing\\n"

    def test_from_dict_and_the_mask_in_place(self):
        game = HyperMinesGame.from_dict({"dimensions": [2], "board": [".", 1], "mask": [False, False],
                                         "state": "ongoing"})
        game.mask[1] = True
        assert game.render() == ["_", "1"] and game.dig([0]) == 1

    def test_render_wrong(self):
        assert HyperMinesGame([2], []).render() == [" ", " "]

    def test_a_torus(self):
        assert HyperMinesGame([3], [[0]], torus=True).board == [".", 1, 1]

    def test_a_bare_assert_false(self):
        assert HyperMinesGame([2, 2], [[0, 0]]).dig([1, 1]) == 3
''',
}


def verdict_names(tests) -> dict[str, str]:
    return {t.name: t.status for t in tests}


@pytest.mark.parametrize("step", sorted(TABLE))
def test_the_check_cell_and_the_grader_agree_on_every_test_of_the_table(step, capsys):
    setup = next(c for c in nbformat.read(NOTEBOOKS / f"{NOTEBOOK[step]}.ipynb", as_version=4).cells
                 if c.get("id") == "setup-02").source
    cells = [CodeCell("set-up", setup), CodeCell("In [5]", TABLE[step])]
    in_the_cell = check_my_tests(step, cells=cells)
    capsys.readouterr()
    found = tests_from_cells(cells, get_assignment(step).names)
    tests = own_tests.FoundTests(TestsFile(found.source, "tests.py", None, as_names=True), "your own tests", found)
    assignment = get_assignment(step)
    wheats = [implementation for implementation in own_tests.implementations(assignment) if implementation.correct]
    in_grading = own_tests.grade_own_tests(assignment, tests, seed=5, library=wheats)
    cell_verdicts, grader_verdicts = verdict_names(in_the_cell.tests), verdict_names(in_grading.tests)
    assert cell_verdicts == grader_verdicts, (in_the_cell.report(), in_grading.feedback())
    assert {"valid", "invalid"} <= set(cell_verdicts.values()), "the table has tests of both kinds"
