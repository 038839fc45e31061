"""The notebooks' debugging tools on code that is missing or wrong: a name not defined yet is a
message in the widget (never a NameError in the notebook), the x-ray shows the student's own
numbers, compare outlines every cell where they differ from the engine's, and an N-D board or
replay opens on the slice where the action is."""

from __future__ import annotations

import numpy as np
from student_bugs import ALIASING_NEW_BOARD
from student_code import MineField, VisibleField

from minesweeper_kit import Game
from minesweeper_kit.widgets import Board, NeighborExplorer, Replay
from minesweeper_kit.widgets.codes import CellCode, decode_cells, full_board_codes

NOT_YET = "NameError: {} is not defined yet: run the cell that defines it, then click again"


def notebook_namespace() -> dict:
    """A namespace as a notebook's cells share it, for code run in it with `run`."""
    return {"__name__": "__main__"}


def run(namespace: dict, source: str) -> None:
    """Run `source` as a notebook cell would (from a file of the student's, not of the kit)."""
    exec(compile(source, "/tmp/notebook-cell.py", "exec"), namespace)


def correct_new_board(dimensions, bombs):
    game = Game.from_mines(tuple(dimensions), [tuple(b) for b in bombs])
    codes = full_board_codes(game.mines, game.numbers)
    return np.where(codes == CellCode.MINE, ".", codes).astype(object).tolist()


def student_codes(board_list) -> np.ndarray:
    values = np.array(board_list, dtype=object)
    return np.where(values == ".", CellCode.MINE, values).astype(np.int32)


# ---------------------------------------------------------------- names not defined yet


def test_an_explorer_of_a_function_not_defined_yet_shows_a_message_then_checks_it():
    namespace = notebook_namespace()
    run(namespace, "from minesweeper_kit.widgets import NeighborExplorer\n"
                   "explorer = NeighborExplorer('neighbors_1d', 12)\nfound = explorer.select((0,))")
    explorer = namespace["explorer"]
    assert namespace["found"] == {}
    assert explorer.error["message"] == NOT_YET.format("neighbors_1d")
    assert explorer.title == "neighbors_1d"
    run(namespace, "def neighbors_1d(length, x):\n    return [n for n in (x - 1, x + 1) if 0 <= n < length]")
    found = explorer.select((0,))  # the same explorer, no new cell: the name is looked up per click
    assert explorer.error == {}
    assert (found["correct"], found["missing"], found["extra"]) == (1, 0, 0)


def test_a_board_of_a_function_not_defined_yet_shows_a_message_then_plays_it():
    namespace = notebook_namespace()
    run(namespace, "from minesweeper_kit.widgets import Board\n"
                   "board = Board((3, 8, 8), 12, play='new_board', seed=4)\nboard.dig((1, 4, 4))")
    board = namespace["board"]
    assert board.error["message"] == NOT_YET.format("new_board")
    assert board.error["calling"] == "new_board"
    assert (board.board_view() == CellCode.COVERED).all()
    namespace["new_board"] = correct_new_board
    board.dig((1, 4, 4))  # a click once the cell has run
    assert board.error == {}
    assert board.revealed > 0
    assert board.driver.inner._new_board is correct_new_board


def test_a_board_of_a_class_not_defined_yet_shows_a_message_then_plays_it():
    from minesweeper_kit import HyperMinesGame

    namespace = notebook_namespace()
    run(namespace, "from minesweeper_kit.widgets import Board\n"
                   "board = Board((3, 3, 6, 6), 12, play='HyperMinesGame', seed=9)\nboard.dig((1, 1, 3, 3))")
    board = namespace["board"]
    assert board.error["message"] == NOT_YET.format("HyperMinesGame")
    namespace["HyperMinesGame"] = HyperMinesGame
    board.new_game(9)  # the face: a new game looks the name up again
    board.dig((1, 1, 3, 3))
    assert board.error == {}
    assert isinstance(board.game, HyperMinesGame)


def test_field_classes_by_name_and_a_name_missing_inside_student_code():
    namespace = notebook_namespace()
    run(namespace, "from minesweeper_kit.widgets import Board, FieldDriver\n"
                   "def stack_field(field):\n    return StackField(field)\n"
                   "board = Board(play=FieldDriver('MineField', stack_field, (9, 9), 10, seed=12))\n"
                   "board.dig((4, 4))")
    board = namespace["board"]
    assert board.error["message"] == NOT_YET.format("MineField")
    namespace["MineField"] = MineField
    board.dig((4, 4))  # a NameError raised by the student's own code names its line, with a hint
    assert board.error["message"] == ("NameError: name 'StackField' is not defined "
                                      "(run the cell that defines it first)")
    assert board.error["where"] == "/tmp/notebook-cell.py" and board.error["line"] == 3  # the student's line
    namespace["StackField"] = VisibleField
    board.new_game(12)
    board.dig((4, 4))
    assert board.error == {} and board.revealed > 0


# ---------------------------------------------------------------- the student's numbers


def test_xray_and_compare_show_an_aliasing_new_board_as_it_is():
    namespace = notebook_namespace()
    run(namespace, ALIASING_NEW_BOARD)
    board = Board((8, 8), 4, play=namespace["new_board"], seed=11)
    board.dig((4, 4))  # safe on the student's board too: the game goes on
    assert board.error == {} and board.state == "ongoing"
    mines = board.driver.mine_list
    theirs = student_codes(namespace["new_board"]([8, 8], mines))
    engine = Game.from_mines((8, 8), mines)
    truth = full_board_codes(engine.mines, engine.numbers)
    assert (theirs != truth).any(), "the aliasing bug should change some numbers"

    board.xray = True
    assert (decode_cells(board.xray_cells, board.shape) == theirs).all()  # their numbers, not the kit's

    board.compare = True
    outlined = np.frombuffer(board.diff, dtype=np.uint8).reshape(8, 8).astype(bool)
    shown = board.board_view()
    wrong = theirs != truth
    covered = shown == CellCode.COVERED
    assert (outlined[wrong]).all(), "a cell whose number is wrong is outlined, covered or not"
    assert (wrong & covered).any(), "the bug shows under the covers too"
    assert not (outlined & ~wrong & (shown == board.driver.reference())).any(), "nothing right is outlined"


def test_compare_outlines_nothing_for_a_correct_new_board():
    board = Board((3, 8, 8), 12, play=correct_new_board, seed=4)
    board.dig((1, 4, 4))
    board.xray = board.compare = True
    assert not any(board.diff)
    engine = Game.from_mines((3, 8, 8), board.driver.mine_list)
    assert (decode_cells(board.xray_cells, board.shape) == full_board_codes(engine.mines, engine.numbers)).all()


# ---------------------------------------------------------------- where an N-D board opens


def test_a_dig_moves_the_view_to_its_slice():
    cube = Board((3, 8, 8), 10, seed=8)
    assert cube.slice_index == [0]
    cube.dig((1, 4, 4))
    assert cube.slice_index == [1]
    tesseract = Board((3, 3, 6, 6), 12, seed=9)
    tesseract.dig((1, 2, 3, 3))
    assert tesseract.slice_index == [1, 2]
    tesseract.mark((0, 0, 0, 0))  # a mark is not a dig: the view stays
    assert tesseract.slice_index == [1, 2]


def test_a_student_board_opens_on_the_slice_of_its_scripted_dig():
    board = Board((3, 8, 8), 12, play=correct_new_board, seed=4)
    board.dig((2, 4, 4))
    assert board.slice_index == [2]


def test_a_replay_opens_on_its_last_move_and_that_moves_slice():
    game = Game.from_mines((3, 4, 5), [(0, 0, 0), (2, 3, 4)])
    game.dig((1, 1, 1))
    game.cycle_mark((2, 3, 4))
    replay = Replay(game)
    assert replay.count == 3
    assert replay.step == 2
    assert replay.labels[replay.step] == "cycle (2, 3, 4)"
    assert replay.slice_index == [2]
    flat = Game.from_mines((4, 4), [(0, 0)])
    flat.dig((3, 3))
    assert Replay(flat).step == 1


def test_a_replay_of_a_game_without_moves_opens_on_its_start():
    replay = Replay(Game.from_mines((3, 4, 5), [(0, 0, 0)]))
    assert replay.step == 0 and replay.slice_index == [0]
