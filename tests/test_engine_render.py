"""The terminal pictures of render.py, against pictures written by hand."""

from dataclasses import dataclass

import numpy as np

from minesweeper_kit import Game
from minesweeper_kit.render import terminal_render, view_picture

U, F = -100, -99  # covered and flagged in the fake view below; any code works, the masks say which


@dataclass
class FakeView:
    """The attributes `view_picture` reads, as a bot's view has them."""

    shape: tuple[int, ...]
    mines: int
    grid: np.ndarray
    torus: bool = False

    @property
    def unknown(self):
        return self.grid == U

    @property
    def flagged(self):
        return self.grid == F

    @property
    def opened(self):
        return self.grid > F


def test_game_picture_written_by_hand():
    # Mines at (0, 0) and (1, 2); digging (1, 0) opens only that cell; a flag on (1, 2).
    game = Game.from_mines((2, 3), [(0, 0), (1, 2)])
    game.dig((1, 0))
    game.toggle_flag((1, 2))
    assert terminal_render(game) == "  0 1 2\n0 # # #\n1 1 # F\n"


def test_view_picture_uses_the_game_symbols():
    grid = np.array([[U, U, F], [1, 0, 2]])
    assert view_picture(FakeView((2, 3), 2, grid)) == "  0 1 2\n0 # # F\n1 1 . 2\nmines 2, flags 1\n"


def test_view_picture_of_three_axes_draws_each_slice():
    grid = np.array([[[U, 0]], [[F, 1]]])
    expected = "slice [0, :, :]\n  0 1\n0 # .\n\nslice [1, :, :]\n  0 1\n0 F 1\nmines 1, flags 1, torus\n"
    assert view_picture(FakeView((2, 1, 2), 1, grid, torus=True)) == expected


def test_view_picture_of_one_axis_and_negative_numbers():
    grid = np.array([-1, U, 10])
    assert view_picture(FakeView((3,), 1, grid)) == "  0  1  2\n -1  # 10\nmines 1, flags 0\n"
