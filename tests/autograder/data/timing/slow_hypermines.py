"""HyperMines written the plain recursive way, correct but slow on purpose.

Every helper recurses on the first axis of nested lists, as a first attempt at the lab does.
The slow choices are ones a student plausibly makes: the 3**N offsets are rebuilt by recursion
and filtered for every neighbour query; repeated bombs are skipped by searching a list of the
bombs seen so far; the flood recurses wave by wave; and after every dig the whole board is
walked again, cell by cell through the coordinate list, to count the covered safe cells.
The grader's tests use it as a submission whose CPU time is a large share of its budget
(about 4 s of CPU time in the hidden hypermines suite's tests, about three times the reference's,
as measured in the sandbox on this project's 2-core machine, idle and under load).
"""

import sys

sys.setrecursionlimit(10000)
# NO ADDITIONAL IMPORTS


def make_board(dimensions, value):
    """A nested list of ``dimensions`` filled with ``value``."""
    if len(dimensions) == 0:
        return value
    return [make_board(dimensions[1:], value) for _ in range(dimensions[0])]


def get_value(board, coordinates):
    """The value stored at ``coordinates``."""
    if len(coordinates) == 0:
        return board
    return get_value(board[coordinates[0]], coordinates[1:])


def set_value(board, coordinates, value):
    """Store ``value`` at ``coordinates``."""
    if len(coordinates) == 1:
        board[coordinates[0]] = value
    else:
        set_value(board[coordinates[0]], coordinates[1:], value)


def all_coordinates(dimensions):
    """Every coordinate of a board, as lists."""
    if len(dimensions) == 0:
        return [[]]
    result = []
    for first in range(dimensions[0]):
        for rest in all_coordinates(dimensions[1:]):
            result.append([first] + rest)
    return result


def offsets(n):
    """Every vector of n steps in (-1, 0, 1)."""
    if n == 0:
        return [[]]
    result = []
    for step in (-1, 0, 1):
        for rest in offsets(n - 1):
            result.append([step] + rest)
    return result


def inside(dimensions, coordinates):
    """Whether ``coordinates`` is a cell of a board of ``dimensions``."""
    if len(dimensions) == 0:
        return True
    return 0 <= coordinates[0] < dimensions[0] and inside(dimensions[1:], coordinates[1:])


def neighbours(dimensions, coordinates):
    """The cells around ``coordinates`` (never the cell itself)."""
    found = []
    for offset in offsets(len(dimensions)):
        if offset.count(0) == len(offset):
            continue
        cell = [coordinates[i] + offset[i] for i in range(len(offset))]
        if inside(dimensions, cell):
            found.append(cell)
    return found


class HyperMinesGame:
    def __init__(self, dimensions, bombs):
        self.dimensions = list(dimensions)
        self.board = make_board(self.dimensions, 0)
        for bomb in bombs:
            set_value(self.board, list(bomb), ".")
        placed = []
        for bomb in bombs:
            if list(bomb) in placed:
                continue
            placed.append(list(bomb))
            for other in neighbours(self.dimensions, list(bomb)):
                value = get_value(self.board, other)
                if value != ".":
                    set_value(self.board, other, value + 1)
        self.mask = make_board(self.dimensions, False)
        self.state = "ongoing"

    def dump(self):
        print("dimensions:", self.dimensions)
        print("board:", "\n       ".join(str(part) for part in self.board))
        print("mask: ", "\n       ".join(str(part) for part in self.mask))
        print("state:", self.state)

    def _flood(self, wave):
        """Reveal every cell of ``wave``, then recurse on the covered cells they open."""
        if not wave:
            return 0
        revealed = 0
        following = []
        queued = set()
        for cell in wave:
            if get_value(self.mask, cell):
                continue
            set_value(self.mask, cell, True)
            revealed += 1
            if get_value(self.board, cell) == 0:
                for other in neighbours(self.dimensions, cell):
                    if not get_value(self.mask, other) and tuple(other) not in queued:
                        queued.add(tuple(other))
                        following.append(other)
        return revealed + self._flood(following)

    def covered_safe_cells(self):
        """How many safe cells are still covered: look at every cell again."""
        count = 0
        for cell in all_coordinates(self.dimensions):
            if get_value(self.board, cell) != "." and not get_value(self.mask, cell):
                count += 1
        return count

    def dig(self, coordinates):
        coordinates = list(coordinates)
        if self.state != "ongoing" or get_value(self.mask, coordinates):
            return 0
        if get_value(self.board, coordinates) == ".":
            set_value(self.mask, coordinates, True)
            self.state = "defeat"
            return 1
        revealed = self._flood([coordinates])
        if self.covered_safe_cells() == 0:
            self.state = "victory"
        return revealed

    def render(self, xray=False):
        """The board as the player sees it, built by recursion on the first axis."""
        def shown(board, mask):
            if not isinstance(board, list):
                if not (xray or mask):
                    return "_"
                return " " if board == 0 else str(board)
            return [shown(b, m) for b, m in zip(board, mask)]
        return shown(self.board, self.mask)
