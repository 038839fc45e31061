"""Step 1, correct, over the kit: the text game of Project 10 and neighbours in N dimensions.

What the "check my tests" cell runs a student's tests against (read as text and run in the
implementations' sandbox, like every implementation tests meet). It answers as the step's
reference does, so a test valid here is valid in grading; it leans on the kit's engine, whose
modules a submission may not import. ``ORDER`` turns the lists of neighbours around: the notebook
lets them come in any order, so the check has a second correct version that lists them the other
way, as the grader's correct implementations differ in order too.
"""

from __future__ import annotations

from minesweeper_kit.formats.project10 import LETTERS
from minesweeper_kit.geometry import Geometry

ORDER = 1  #: 1: the engine's order of neighbours; -1: the other way round


def _around(dimensions, coordinates):
    return [tuple(int(v) for v in cell) for cell in Geometry(list(dimensions)).neighbours(list(coordinates))][::ORDER]


def read_file(path):
    """Read a board file (width, height, rows of 0/1) into a grid of 'X' and '0'."""
    with open(path) as file:
        lines = [line for line in file.read().splitlines() if line.strip()]
    width, height = int(lines[0]), int(lines[1])
    if len(lines) - 2 != height:
        raise ValueError(f"the height says {height} rows, the file has {len(lines) - 2}")
    grid = []
    for number, line in enumerate(lines[2:], start=3):
        cells = line.replace(",", " ").split()
        if len(cells) != width:
            raise ValueError(f"line {number} has {len(cells)} cells, the width says {width}")
        grid.append(["X" if cell == "1" else "0" for cell in cells])
    return grid


def make_empty_grid(grid):
    """A grid of the same size as `grid` where every cell is ' '."""
    return [[" "] * len(row) for row in grid]


def update_grid(grid):
    """In place: every '0' becomes the number of neighbouring mines, as a string."""
    geometry = Geometry([len(grid), len(grid[0])])
    for r, row in enumerate(grid):
        for c, cell in enumerate(row):
            if cell != "X":
                row[c] = str(sum(grid[rr][cc] == "X" for rr, cc in geometry.neighbours((r, c))))


def print_grid(grid):
    """Print the grid: bottom row labelled 0, cells as [v], column letters underneath."""
    height = len(grid)
    for index, row in enumerate(grid):
        print(f"{height - 1 - index:>2}" + "".join(f"[{value}]" for value in row))
    print("   " + "".join(f"{LETTERS[c]}  " for c in range(len(grid[0]))))


def dig(grid, coordinate, user_view):
    """Reveal the cell at 'a0'-style `coordinate` and, if safe, its safe neighbours; print the view."""
    height = len(grid)
    row, col = height - 1 - int(coordinate[1:]), ord(coordinate[0]) - ord("a")
    user_view[row][col] = grid[row][col]
    if grid[row][col] != "X":
        for r, c in Geometry([height, len(grid[0])]).neighbours((row, col)):
            if grid[r][c] != "X":
                user_view[r][c] = grid[r][c]
    print_grid(user_view)


def count_total_moves(grid, user_view):
    """How many safe cells are still covered."""
    return sum(shown == " " and cell != "X" for row, view in zip(grid, user_view) for cell, shown in zip(row, view))


def determine_game_status(grid, user_view):
    """True while the game goes on: no mine shown and safe cells left to open."""
    return not any("X" in row for row in user_view) and count_total_moves(grid, user_view) > 0


def neighbors_1d(length, x):
    """The in-bounds neighbours of x on a line of `length` cells."""
    return [cell[0] for cell in _around([length], [x])]


def neighbors_2d(dimensions, coordinates):
    """The in-bounds neighbours of a cell on a 2-D board, the cell itself excluded."""
    return _around(dimensions, coordinates)


def neighbors_3d(dimensions, coordinates):
    """The in-bounds neighbours of a cell on a 3-D board, the cell itself excluded."""
    return _around(dimensions, coordinates)


def neighbors(dimensions, coordinates):
    """The in-bounds neighbours of a cell on a board with any number of axes, itself excluded."""
    return _around(dimensions, coordinates)
