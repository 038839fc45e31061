"""Drivers and the Board's Python side, without a browser."""

from __future__ import annotations

import json

import pytest
from student_code import MineField, VisibleField

from minesweeper_kit import HyperMinesGame
from minesweeper_kit.widgets import Board, FieldDriver, FunctionsDriver, HyperMinesDriver, StudentCodeError
from minesweeper_kit.widgets.codes import CellCode

COVERED, EXPLODED, FLAG, MINE, QUESTION, WRONG_FLAG = (
    CellCode.COVERED, CellCode.EXPLODED, CellCode.FLAG, CellCode.MINE, CellCode.QUESTION, CellCode.WRONG_FLAG,
)


def test_student_mines_are_seeded_and_never_under_the_first_dig():
    first = HyperMinesDriver(HyperMinesGame, (5, 6), 29, seed=4)
    first.dig((2, 2))
    again = HyperMinesDriver(HyperMinesGame, (5, 6), 29, seed=4)
    again.dig((2, 2))
    assert first.mine_list == again.mine_list
    assert len(first.mine_list) == 29 and (2, 2) not in first.mine_list


def test_hypermines_class_plays_with_widget_flags():
    board = Board((4, 4), 1, play=HyperMinesGame, seed=1)
    board.mark((0, 0))
    assert board.board_view()[0, 0] == FLAG and board.mines_left == 0
    mine = board.driver.mine_list  # not placed yet
    assert mine is None
    far = (3, 3)
    board.dig(far)
    mine = board.driver.mine_list[0]
    assert board.game.mask[far[0]][far[1]] is True
    board.mark((0, 0))
    board.mark((0, 0))  # flag -> question -> covered
    assert board.mines_left == 1
    board.mark(mine)
    assert board.dig(mine) == 0  # digging a flag does nothing
    assert board.board_view()[mine] == FLAG
    assert board.state == "ongoing" and board.mines_left == 0


def test_field_driver_plays_cs455_classes_to_the_end_view():
    driver = FieldDriver(MineField, VisibleField, (5, 5), 3, seed=2)
    driver.dig((0, 0))
    mines = driver.mine_list
    safe_flag = next((r, c) for r in range(5) for c in range(5)
                     if (r, c) not in mines and driver.view().cells[r, c] == COVERED)
    driver.mark(safe_flag)
    assert driver.view().cells[safe_flag] == FLAG
    assert driver.view().mines_left == 2
    driver.dig(mines[0])
    view = driver.view()
    assert view.state == "defeat"
    assert view.cells[mines[0]] == EXPLODED
    assert view.cells[safe_flag] == WRONG_FLAG
    assert all(view.cells[m] == MINE for m in mines[1:])
    assert (driver.reference() == view.cells).all()  # the engine's end view is the same


def test_field_driver_question_mark_cycles():
    driver = FieldDriver(MineField, VisibleField, (3, 3), 1, seed=0)
    driver.mark((1, 1))
    driver.mark((1, 1))
    assert driver.view().cells[1, 1] == QUESTION
    driver.dig((0, 0))  # marks made before the first dig are handed to the student's field
    # The first dig opens a 0 next to (1, 1), so its flood reaches (1, 1): only the question mark
    # handed over keeps it covered (a lost mark would let the flood open it as a number).
    assert driver.game.get_status(0, 0) == 0
    assert driver.game.get_status(1, 1) == -6
    assert driver.view().cells[1, 1] == QUESTION


def test_student_exception_names_the_students_frame():
    def render(game, xray=False):
        return game["cells"][99]  # IndexError on purpose

    def new_game(dimensions, bombs):
        return {"state": "ongoing", "cells": []}

    driver = FunctionsDriver(new_game, lambda game, at: 0, render, (3, 3), 1, seed=1)
    board = Board(play=driver)
    board.dig((1, 1))
    assert board.error["message"] == "IndexError: list index out of range"
    assert board.error["calling"] == "render"
    assert board.error["code"] == 'return game["cells"][99]  # IndexError on purpose'
    assert board.error["where"].endswith("test_drivers.py")
    assert board.digs == 1


def test_error_clears_and_board_plays_on():
    calls = []

    class Flaky(HyperMinesGame):
        def dig(self, coordinates):
            calls.append(tuple(coordinates))
            if len(calls) == 1:
                raise RuntimeError("first call fails")
            return super().dig(coordinates)

    board = Board((4, 4), 2, play=Flaky, seed=3)
    board.dig((0, 0))
    assert board.error["message"] == "RuntimeError: first call fails"
    board.dig((0, 0))
    assert board.error == {}
    assert board.board_view()[0, 0] != COVERED


def test_bad_input_is_a_clear_value_error():
    with pytest.raises(ValueError, match="9 mines do not fit"):
        HyperMinesDriver(HyperMinesGame, (3, 3), 9)
    board = Board((3, 3), 1, seed=1)
    with pytest.raises(ValueError, match=r"coordinate \[3, 0\] is off the board"):
        board.dig((3, 0))
    with pytest.raises(ValueError, match="cannot play int"):
        Board((3, 3), 1, play=5)


def test_an_exception_in_student_code_comes_back_as_a_student_code_error():
    class Broken(HyperMinesGame):
        def dig(self, coordinates):
            return json.loads("no digging today")  # raises inside the standard library

    driver = HyperMinesDriver(Broken, (3, 3), 1, seed=1)
    with pytest.raises(StudentCodeError) as caught:
        driver.dig((0, 0))
    error = caught.value
    assert error.calling == "Broken.dig"
    assert error.message == "JSONDecodeError: Expecting value: line 1 column 1 (char 0)"
    assert isinstance(error.error, json.JSONDecodeError) and error.__cause__ is error.error
    # The frame shown to the student is their own line, not the library's nor the kit's.
    assert error.filename == __file__
    assert error.code == 'return json.loads("no digging today")  # raises inside the standard library'
