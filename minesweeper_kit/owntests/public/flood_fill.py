"""Step 3, correct, over the kit: CS455's MineField and VisibleField, and an iterative flood.

What the "check my tests" cell runs a student's tests against (see ``neighbors.py`` beside it):
it answers as the step's reference does (the same statuses, the same random draws for a seeded
``populate``), with the kit's engine counting neighbours and a queue flooding.
"""

from __future__ import annotations

import random
from collections import deque

from minesweeper_kit.geometry import Geometry

COVERED, MINE_GUESS, EXPLODED_MINE, INCORRECT_GUESS, MINE, QUESTION = -1, -2, -3, -4, -5, -6


class MineField:
    """Where the mines are: the hidden half of the game."""

    def __init__(self, mine_data):
        """A fixed field from rows of booleans (True = mine); the data is copied."""
        self._mines = [[bool(cell) for cell in row] for row in mine_data]
        self._shape = (len(self._mines), len(self._mines[0]) if self._mines else 0)
        self._count = sum(map(sum, self._mines))

    @classmethod
    def random(cls, rows, cols, num_mines):
        """An empty field that `populate` will fill with `num_mines` random mines."""
        if rows < 1 or cols < 1:
            raise ValueError(f"a field needs at least one row and one column, got {rows}x{cols}")
        if not 0 <= num_mines < rows * cols:
            raise ValueError(f"{num_mines} mines do not fit in {rows}x{cols} with one cell kept free")
        made = cls([[False] * cols for _ in range(rows)])
        made._count = num_mines
        return made

    def num_rows(self):
        """How many rows the field has."""
        return self._shape[0]

    def num_cols(self):
        """How many columns the field has."""
        return self._shape[1]

    def num_mines(self):
        """How many mines the field holds (or will hold, once populated)."""
        return self._count

    def in_range(self, r, c):
        """Whether (r, c) is a cell of the field."""
        return 0 <= r < self._shape[0] and 0 <= c < self._shape[1]

    def has_mine(self, r, c):
        """Whether (r, c) holds a mine."""
        return self._mines[r][c]

    def num_adjacent_mines(self, r, c):
        """How many of the (up to 8) neighbours of (r, c) hold a mine."""
        if not self.in_range(r, c):  # a ring around the field: its cells on the field still count
            return sum(
                1
                for dr in (-1, 0, 1)
                for dc in (-1, 0, 1)
                if (dr or dc) and self.in_range(r + dr, c + dc) and self._mines[r + dr][c + dc]
            )
        return sum(self._mines[rr][cc] for rr, cc in Geometry(self._shape).neighbours((r, c)))

    def populate(self, avoid_row, avoid_col, rng=None):
        """Place num_mines mines at random, never at (avoid_row, avoid_col)."""
        rng = rng if rng is not None else random.Random()
        self.reset_empty()
        rows, cols = self._shape
        placed = 0
        while placed < self._count:
            r, c = rng.randrange(rows), rng.randrange(cols)
            if (r, c) != (avoid_row, avoid_col) and not self._mines[r][c]:
                self._mines[r][c] = True
                placed += 1

    def reset_empty(self):
        """Remove every mine; the number of mines to place stays the same."""
        self._mines = [[False] * self._shape[1] for _ in range(self._shape[0])]


class VisibleField:
    """What the player sees of a MineField, and the moves that change it."""

    def __init__(self, mine_field):
        """A game on `mine_field`, every cell covered."""
        self._field = mine_field
        self.reset_game()

    def reset_game(self):
        """Everything covered, no guesses; the same mine field."""
        rows, cols = self._field.num_rows(), self._field.num_cols()
        self._status = [[COVERED] * cols for _ in range(rows)]
        self._guesses = 0
        self._opened = 0
        self._lost = False

    def get_status(self, r, c):
        """The status of (r, c): a number shown, or one of the status codes."""
        return self._status[r][c]

    def num_mines_left(self):
        """Mines minus guesses; negative when the player guessed too many."""
        return self._field.num_mines() - self._guesses

    def cycle_guess(self, r, c):
        """covered -> mine guess -> question -> covered; nothing on an uncovered cell or after the end."""
        if self.is_game_over():
            return
        following = {COVERED: (MINE_GUESS, 1), MINE_GUESS: (QUESTION, -1), QUESTION: (COVERED, 0)}
        status = self._status[r][c]
        if status in following:
            self._status[r][c], change = following[status]
            self._guesses += change

    def uncover(self, r, c):
        """Uncover (r, c), opening the zero region around it; False if it was a mine."""
        field = self._field
        if not field.in_range(r, c) or self.is_game_over() or self._status[r][c] not in (COVERED, QUESTION):
            return True
        cells = [(rr, cc) for rr in range(field.num_rows()) for cc in range(field.num_cols())]
        if field.has_mine(r, c):
            self._lost = True
            for rr, cc in cells:
                mine, status = field.has_mine(rr, cc), self._status[rr][cc]
                if mine and status in (COVERED, QUESTION):
                    self._status[rr][cc] = MINE
                elif not mine and status == MINE_GUESS:
                    self._status[rr][cc] = INCORRECT_GUESS
            self._status[r][c] = EXPLODED_MINE
            return False
        self._status[r][c] = COVERED
        self._flood(r, c)
        if self.is_game_over():
            for rr, cc in cells:
                if field.has_mine(rr, cc):
                    self._status[rr][cc] = MINE_GUESS
        return True

    def is_game_over(self):
        """Whether the game has ended: a mine was uncovered, or every safe cell was."""
        field = self._field
        return self._lost or self._opened == field.num_rows() * field.num_cols() - field.num_mines()

    def is_uncovered(self, r, c):
        """True for a cell showing a number, and for the exploded mine."""
        return self._status[r][c] >= 0 or self._status[r][c] == EXPLODED_MINE

    def _flood(self, r, c):
        """Open (r, c) and the zero region around it, breadth first; how many cells opened."""
        field, opened = self._field, 0
        waiting = deque([(r, c)])
        while waiting:
            rr, cc = waiting.popleft()
            if not field.in_range(rr, cc) or self._status[rr][cc] != COVERED or field.has_mine(rr, cc):
                continue
            self._status[rr][cc] = count = field.num_adjacent_mines(rr, cc)
            opened += 1
            if count == 0:
                waiting.extend((rr + dr, cc + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc)
        self._opened += opened
        return opened


def flood_fill_iterative(visible_field, r, c):
    """Open (r, c) and its zero region without recursion; how many cells opened."""
    return visible_field._flood(r, c)
