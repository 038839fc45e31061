"""The adapters on the example position of the original Sweepmine.TM task (a 4x4 torus with charges)."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from bruteforce_enumerator import brute_force
import minesweeper_kit.bots as bots
from minesweeper_kit.bots import (
    VIEW_FLAG, VIEW_OPEN_MIN, VIEW_UNKNOWN, BotView, Move, MoveKind, ReferenceSolver, RubyBot, SweepmineBot,
    read_sweepmine_position, sweepmine_function, to_ruby_state, to_sweepmine,
)
from minesweeper_kit.bots.botfile import IllegalMove

# The original task's example position and its answer (`t x y`), copied unchanged into data/.
EXAMPLE = Path(__file__).parent / "data"
POSITION = (EXAMPLE / "weighted_torus_ungraded.input.txt").read_text()
ANSWER = (EXAMPLE / "weighted_torus_ungraded.output.txt").read_text()


@pytest.fixture
def view() -> BotView:
    return read_sweepmine_position(POSITION)


def test_position_is_read_0_indexed(view):
    assert view.shape == (4, 4) and view.mines == 4 and view.torus
    # first grid line of the file: -6 100 100 101
    assert view.grid[0, 0] == -6 and view.grid[0, 1] == VIEW_UNKNOWN and view.grid[0, 3] == VIEW_FLAG
    # last charge line: -3 -8 1 -7
    assert view.charges[3].tolist() == [-3, -8, 1, -7]


def test_sweepmine_arguments_are_1_indexed_with_100_and_101(view):
    R, C, N, grid, charge, T = to_sweepmine(view)
    assert (R, C, N, T) == (4, 4, 4, True)
    assert grid[0] == [0] * 5 and all(row[0] == 0 for row in grid)
    assert grid[1] == [0, -6, 100, 100, 101]
    assert grid[4] == [0, 101, -11, 101, -14]
    assert charge[1] == [0, 1, -9, -6, -3]


def test_expected_answer_is_read_as_a_flag_at_row_3_column_1(view):
    t, x, y = (int(v) for v in ANSWER.split())
    bot = SweepmineBot(lambda R, C, N, grid, charge, T: (bool(t), (x, y)))
    assert bot.next_move(view) == Move(MoveKind.FLAG, (2, 0))


def test_expected_answer_is_correct_and_so_is_the_solvers(view):
    safe, mines, _ = brute_force(view)
    assert 2 * 4 + 0 in mines  # the original's answer flags a certain mine
    t, (x, y) = sweepmine_function(ReferenceSolver())(*to_sweepmine(view))
    flat = (x - 1) * 4 + (y - 1)
    if t:
        assert flat in mines
    else:
        assert flat in safe


def test_sweepmine_bot_rejects_bad_answers(view):
    for bad in [(False, (0, 1)), (False, (5, 1)), (2, (1, 1)), "1 3 1", (False, (1.0, 2))]:
        with pytest.raises(IllegalMove):
            SweepmineBot(lambda *args, bad=bad: bad).next_move(view)


def test_ruby_state_is_rows_of_symbols_and_ints(view):
    state = to_ruby_state(view)
    assert state[0] == [-6, "unknown", "unknown", "flag"]
    assert state[1][2] == -3  # state[y][x]: row 1, column 2


def test_ruby_answers_are_x_then_y_and_false_means_flag(view):
    class ExamplePlayer:
        def __init__(self):
            self.answers = [[0, 2, False], [1, 0], [1, 0, True]]

        def name(self):
            return "example"

        def take_turn(self, state):
            assert state[0][0] == -6
            return self.answers.pop(0)

    bot = RubyBot(ExamplePlayer())
    assert bot.name == "example"
    assert bot.next_move(view) == Move.flag(2, 0)  # x=0 (column), y=2 (row)
    assert bot.next_move(view) == Move.dig(0, 1)
    assert bot.next_move(view) == Move.dig(0, 1)


def test_ruby_bot_rejects_bad_answers(view):
    for bad in [[4, 0], [0, -1], [0, 0, "no"], [0], "a0"]:
        with pytest.raises(IllegalMove):
            RubyBot(lambda state, bad=bad: bad).next_move(view)


def test_view_round_trips_through_json(view):
    again = BotView.from_json(view.to_json())
    assert np.array_equal(again.grid, view.grid) and np.array_equal(again.charges, view.charges)
    assert (again.shape, again.mines, again.torus) == (view.shape, view.mines, view.torus)


def test_adapters_refuse_boards_that_are_not_2d():
    view = BotView((2, 2, 2), 1, np.full((2, 2, 2), VIEW_UNKNOWN), np.ones((2, 2, 2)), False)
    with pytest.raises(ValueError, match="2-D"):
        to_sweepmine(view)
    with pytest.raises(ValueError, match="2-D"):
        to_ruby_state(view)


def test_the_bot_protocol_has_one_name_each():
    # The engine, the widgets and the Sweepmine format have an Action, a View and cell codes of their own.
    assert {"View", "Action", "UNKNOWN", "FLAG", "OPEN_MIN"}.isdisjoint(dir(bots))
    assert (bots.BotView, bots.MoveKind, bots.VIEW_OPEN_MIN) == (BotView, MoveKind, VIEW_OPEN_MIN)
