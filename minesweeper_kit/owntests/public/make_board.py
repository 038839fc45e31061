"""Step 2, correct, over the kit: nested-list boards in N dimensions.

What the "check my tests" cell runs a student's tests against (see ``neighbors.py`` beside it):
it answers as the step's reference does, leaning on numpy and the kit's engine, which a
submission may not import. ``ORDER`` lists neighbours the other way round for the check's second
correct version.
"""

from __future__ import annotations

import numpy as np

from minesweeper_kit.geometry import Geometry

ORDER = 1  #: 1: the engine's order of neighbours; -1: the other way round


def make_board(dimensions, elem):
    """A nested list of the given dimensions, every cell `elem`, with no shared inner lists."""
    cells = np.empty([int(n) for n in dimensions], dtype=object)
    cells.fill(elem)
    return cells.tolist()


def get_coords(board, coordinates):
    """The value at `coordinates` in a nested-list board."""
    for index in coordinates:
        board = board[index]
    return board


def set_coords(board, coordinates, value):
    """Put `value` at `coordinates` in a nested-list board, in place."""
    *path, last = coordinates
    get_coords(board, path)[last] = value


def all_coords(dimensions):
    """Every coordinate of a board with these dimensions, as tuples, in row-major order."""
    return [tuple(int(v) for v in cell) for cell in np.ndindex(*[int(n) for n in dimensions])]


def neighbors(dimensions, coordinates):
    """The in-bounds neighbours of a cell on a board with any number of axes, itself excluded."""
    found = Geometry(list(dimensions)).neighbours(list(coordinates))
    return [tuple(int(v) for v in cell) for cell in found][::ORDER]


def new_board(dimensions, bombs):
    """A HyperMines board: '.' for a bomb, else the number of neighbouring bombs."""
    board = make_board(dimensions, 0)
    for bomb in bombs:
        set_coords(board, bomb, ".")
    for bomb in bombs:
        for cell in neighbors(dimensions, bomb):
            if get_coords(board, cell) != ".":
                set_coords(board, cell, get_coords(board, cell) + 1)
    return board
