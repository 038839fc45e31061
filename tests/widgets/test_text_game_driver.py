"""TextGameDriver: the neighbours step's text-game functions played in the board."""

from __future__ import annotations

from types import SimpleNamespace

import numpy as np
import pytest
from student_code import CORRECT, dig, make_empty_grid, read_file, update_grid

from minesweeper_kit import Game
from minesweeper_kit.widgets import Board, TextGameDriver
from minesweeper_kit.widgets.codes import CellCode, engine_codes

COVERED, EXPLODED, FLAG = CellCode.COVERED, CellCode.EXPLODED, CellCode.FLAG


def test_correct_functions_play_like_the_engine_ring_rule(capsys):
    driver = TextGameDriver(CORRECT, (6, 7), 9, seed=11)
    driver.dig((5, 0))
    engine = Game.from_mines((6, 7), driver.mine_list, reveal="ring")
    engine.dig((5, 0))
    assert (driver.view().cells == engine_codes(engine)).all()
    rng = np.random.default_rng(3)
    for _ in range(6):  # a few safe digs, then a mine, so the defeat view is compared too
        covered = [tuple(map(int, c)) for c in np.argwhere(driver.view().cells == COVERED)]
        safe = [c for c in covered if c not in driver.mine_list]
        if driver.view().state != "ongoing" or not safe:
            break
        at = safe[rng.integers(len(safe))]
        driver.dig(at)
        engine.dig(at)
        assert (driver.view().cells == engine_codes(engine)).all(), f"after digging {at}"
        assert driver.view().state == engine.state == "ongoing"
    driver.dig(driver.mine_list[0])
    engine.dig(driver.mine_list[0])
    assert (driver.view().cells == engine_codes(engine)).all()
    assert driver.view().state == "defeat"
    assert driver.view().cells[driver.mine_list[0]] == EXPLODED
    assert capsys.readouterr().out == ""  # the student's printout stays out of the notebook


def test_first_dig_reads_the_chosen_mines_and_names_cells_a0_from_the_bottom():
    calls = []

    def spying_dig(grid, coordinate, user_view):
        calls.append(coordinate)
        dig(grid, coordinate, user_view)

    functions = SimpleNamespace(**{**CORRECT, "dig": spying_dig})
    # Three mines on a 2x2 board: the only safe cell is the first dig, bottom-left, 'a0'.
    driver = TextGameDriver(functions, (2, 2), 3, seed=0)
    assert driver.dig((1, 0)) == 1
    assert calls == ["a0"]
    assert sorted(driver.mine_list) == [(0, 0), (0, 1), (1, 1)]
    assert driver.game["grid"] == [["X", "X"], ["3", "X"]]
    assert driver.view().state == "victory"
    assert driver.view().cells.tolist() == [[FLAG, FLAG], [3, FLAG]]
    assert driver.printed == " 1[ ][ ]\n 0[3][ ]\n   a  b  \n"

    on_top = TextGameDriver(functions, (3, 4), 1, seed=0)
    on_top.dig((0, 2))
    assert calls[-1] == "c2"

    widest = TextGameDriver(functions, (100, 26), 1, seed=0)
    widest.dig((0, 25))
    assert calls[-1] == "z99"


def test_student_exception_shows_as_the_board_error_and_the_board_plays_on():
    failing = {"on": True}

    def broken_dig(grid, coordinate, user_view):
        if failing["on"]:
            print("half a board")
            return user_view[99]  # IndexError on purpose
        dig(grid, coordinate, user_view)

    board = Board(play=TextGameDriver({**CORRECT, "dig": broken_dig}, (5, 5), 3, seed=2))
    board.dig((2, 2))
    assert board.error["calling"] == "dig"
    assert board.error["message"] == "IndexError: list index out of range"
    assert board.error["code"] == "return user_view[99]  # IndexError on purpose"
    assert board.driver.printed == "half a board\n"
    assert (board.board_view() == COVERED).all()
    failing["on"] = False
    board.dig((2, 2))
    assert board.error == {}
    assert board.board_view()[2, 2] != COVERED


def test_unwritten_read_file_shows_not_implemented():
    def read_file(path):
        raise NotImplementedError()

    board = Board(play=TextGameDriver({**CORRECT, "read_file": read_file}, (4, 4), 2, seed=1))
    board.dig((0, 0))
    assert board.error["calling"] == "read_file"
    assert board.error["message"] == "NotImplementedError: "
    assert board.state == "ongoing"


def test_a_view_with_a_stray_value_is_a_student_error():
    def make_empty_grid(grid):
        return [["?" for _ in row] for row in grid]

    board = Board(play=TextGameDriver({**CORRECT, "make_empty_grid": make_empty_grid}, (3, 3), 1,
                                      seed=4))
    board.dig((1, 1))
    assert "expected ' ', 'X' or a digit" in board.error["message"]


def test_functions_not_written_yet_show_as_a_message_and_are_found_once_written():
    """The functions are looked up at every call: a board made before their cells have run shows
    which one is missing (no NameError in the notebook), and plays them once they exist."""
    functions = {"read_file": read_file, "update_grid": update_grid, "make_empty_grid": make_empty_grid}
    board = Board(play=TextGameDriver(functions, (3, 3), 1, seed=4))
    board.dig((1, 1))
    assert board.error["calling"] == "dig"
    assert board.error["message"] == ("NameError: dig is not defined yet: run the cell that defines it, "
                                      "then click again")
    assert board.error["where"] == "" and board.error["code"] == ""
    functions.update(dig=CORRECT["dig"], determine_game_status=CORRECT["determine_game_status"])
    board.new_game(4)
    board.dig((1, 1))
    assert board.error == {}
    assert board.revealed > 0


def test_bad_input_is_a_clear_value_error():
    with pytest.raises(ValueError, match="text game is 2-D"):
        TextGameDriver(CORRECT, (3, 3, 3), 1)
    with pytest.raises(ValueError, match="at most 26 columns"):
        TextGameDriver(CORRECT, (3, 27), 1)
