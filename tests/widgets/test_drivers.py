"""Drivers and the Board's Python side, without a browser."""

from __future__ import annotations

import json

import numpy as np
import pytest

from minesweeper_kit import HyperMinesGame
from minesweeper_kit.widgets import Board, FieldDriver, FunctionsDriver, HyperMinesDriver
from minesweeper_kit.widgets.board import decode, encode
from minesweeper_kit.widgets.drivers import (
    COVERED, EXPLODED, FLAG, MINE, QUESTION, WRONG_FLAG, StudentCodeError,
)


# A small, plainly written version of the flood-fill step's two classes.
class MineField:
    def __init__(self, data):
        self.data = data

    def num_rows(self):
        return len(self.data)

    def num_cols(self):
        return len(self.data[0])

    def has_mine(self, r, c):
        return self.data[r][c]

    def num_adjacent_mines(self, r, c):
        return sum(self.data[i][j] for i in range(r - 1, r + 2) for j in range(c - 1, c + 2)
                   if (i, j) != (r, c) and 0 <= i < self.num_rows() and 0 <= j < self.num_cols())


class VisibleField:
    def __init__(self, field):
        self.field = field
        self.status = [[-1] * field.num_cols() for _ in range(field.num_rows())]
        self.lost = False

    def get_status(self, r, c):
        return self.status[r][c]

    def num_mines_left(self):
        mines = sum(map(sum, self.field.data))
        return mines - sum(row.count(-2) for row in self.status)

    def cycle_guess(self, r, c):
        nxt = {-1: -2, -2: -6, -6: -1}
        if self.status[r][c] in nxt:
            self.status[r][c] = nxt[self.status[r][c]]

    def uncover(self, r, c):
        if self.field.has_mine(r, c):
            self.lost = True
            for i in range(self.field.num_rows()):
                for j in range(self.field.num_cols()):
                    mine, s = self.field.has_mine(i, j), self.status[i][j]
                    if mine and s in (-1, -6):
                        self.status[i][j] = -5
                    elif not mine and s == -2:
                        self.status[i][j] = -4
            self.status[r][c] = -3
            return False
        stack = [(r, c)]
        while stack:
            i, j = stack.pop()
            if not (0 <= i < self.field.num_rows() and 0 <= j < self.field.num_cols()):
                continue
            if self.status[i][j] != -1 or self.field.has_mine(i, j):
                continue
            self.status[i][j] = self.field.num_adjacent_mines(i, j)
            if self.status[i][j] == 0:
                stack += [(i + a, j + b) for a in (-1, 0, 1) for b in (-1, 0, 1)]
        return True

    def is_game_over(self):
        if self.lost:
            return True
        return all(self.status[i][j] >= 0 or self.field.has_mine(i, j)
                   for i in range(self.field.num_rows()) for j in range(self.field.num_cols()))


def test_wire_format_round_trips():
    cells = np.array([[0, 3, COVERED], [FLAG, MINE, -7]], dtype=np.int32)
    data = encode(cells)
    assert len(data) == 4 * 6
    assert data[:4] == b"\x00\x00\x00\x00" and data[4:8] == b"\x03\x00\x00\x00"
    assert (decode(data, (2, 3)) == cells).all()


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
    with pytest.raises(ValueError, match="mines must be between 0 and 8"):
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
