"""A second correct solution of step 3 (notebook 03-flood-fill, CS455 semantics).

The reference keeps a grid of booleans and a grid of statuses and floods by recursion. Here the
mine field is a set of mined cells, the visible field a dictionary holding only the cells that
are no longer plainly covered, and every opening (``uncover``'s and ``flood_fill_iterative``'s)
is one breadth-first walk with a queue. A cell off the field raises IndexError wherever the
reference would index its lists (negative numbers included: they name no cell).

The random placement draws exactly as the notebook's worked example does (a row, then a column,
until enough distinct cells other than the avoided one are chosen), so a seeded ``rng`` places the
same mines as in any solution that follows that example.
"""

import random
from collections import deque

COVERED = -1
MINE_GUESS = -2
EXPLODED_MINE = -3
INCORRECT_GUESS = -4
MINE = -5
QUESTION = -6

AROUND = ((-1, -1), (-1, 0), (-1, 1), (0, -1), (0, 1), (1, -1), (1, 0), (1, 1))


class MineField:
    """Where the mines are, as a set of (row, column) pairs."""

    def __init__(self, mine_data):
        """A field from rows of truth values (truthy = a mine); nothing of the caller's list is kept."""
        rows = list(mine_data)
        self._height = len(rows)
        self._width = len(rows[0]) if rows else 0
        self._mined = set()
        for r, row in enumerate(rows):
            for c, value in enumerate(row):
                if value:
                    self._mined.add((r, c))
        self._wanted = len(self._mined)

    @classmethod
    def random(cls, rows, cols, num_mines):
        """An empty ``rows`` x ``cols`` field; ``populate`` puts ``num_mines`` mines in it later."""
        if min(rows, cols) < 1:
            raise ValueError(f"a {rows}x{cols} field has no cell")
        if num_mines < 0 or num_mines > rows * cols - 1:
            raise ValueError(f"{num_mines} mines leave no free cell for the first click on {rows}x{cols}")
        field = cls([[False] * cols for _ in range(rows)])
        field._wanted = num_mines
        return field

    def num_rows(self):
        """How many rows the field has."""
        return self._height

    def num_cols(self):
        """How many columns the field has."""
        return self._width

    def num_mines(self):
        """How many mines the field holds (or will hold once populated)."""
        return self._wanted

    def in_range(self, r, c):
        """Whether (r, c) is a cell of the field."""
        return r in range(self._height) and c in range(self._width)

    def has_mine(self, r, c):
        """Whether the cell (r, c) holds a mine."""
        self._check(r, c)
        return (r, c) in self._mined

    def num_adjacent_mines(self, r, c):
        """How many of the eight cells around (r, c) hold a mine."""
        return len(self._mined.intersection((r + dr, c + dc) for dr, dc in AROUND))

    def populate(self, avoid_row, avoid_col, rng=None):
        """Choose the mines at random, never on (avoid_row, avoid_col); ``rng`` is a random.Random."""
        draw = random.Random() if rng is None else rng
        chosen = set()
        while len(chosen) < self._wanted:
            cell = (draw.randrange(self._height), draw.randrange(self._width))
            if cell != (avoid_row, avoid_col):
                chosen.add(cell)
        self._mined = chosen

    def reset_empty(self):
        """Take every mine away; how many to place stays the same."""
        self._mined = set()

    def _check(self, r, c):
        if not self.in_range(r, c):
            raise IndexError(f"({r}, {c}) is not a cell of a {self._height}x{self._width} field")


class VisibleField:
    """What the player sees of a MineField: statuses by cell, and the moves."""

    def __init__(self, mine_field):
        """Cover every cell of ``mine_field`` (shared, not copied)."""
        self._field = mine_field
        self.reset_game()

    def reset_game(self):
        """Start again on the same field: every cell covered, no marks."""
        self._shown = {}  # (r, c) -> status, for every cell not plainly COVERED
        self._opened = 0
        self._placed_guesses = 0
        self._exploded = False

    def get_status(self, r, c):
        """The status code of (r, c): a number 0-8 once uncovered, else one of the constants."""
        self._check(r, c)
        return self._shown.get((r, c), COVERED)

    def num_mines_left(self):
        """The field's mines minus the guesses the player placed (may go below zero)."""
        return self._field.num_mines() - self._placed_guesses

    def cycle_guess(self, r, c):
        """Move the mark of a covered cell on: covered, mine guess, question, covered again."""
        if self.is_game_over():
            return
        now = self.get_status(r, c)
        after = {COVERED: MINE_GUESS, MINE_GUESS: QUESTION, QUESTION: COVERED}.get(now)
        if after is None:
            return
        self._placed_guesses += (after == MINE_GUESS) - (now == MINE_GUESS)
        self._set(r, c, after)

    def uncover(self, r, c):
        """Uncover (r, c) and the zero region around it; False only when this exploded a mine."""
        field = self._field
        if not field.in_range(r, c) or self.is_game_over():
            return True
        if self._shown.get((r, c), COVERED) not in (COVERED, QUESTION):
            return True
        if field.has_mine(r, c):
            self._exploded = True
            self._end_view_of_a_loss(r, c)
            return False
        self._set(r, c, COVERED)
        self._flood(r, c)
        if self.is_game_over():
            for rr in range(field.num_rows()):
                for cc in range(field.num_cols()):
                    if field.has_mine(rr, cc):
                        self._shown[(rr, cc)] = MINE_GUESS
        return True

    def is_game_over(self):
        """Whether a mine exploded or every safe cell is open."""
        field = self._field
        safe = field.num_rows() * field.num_cols() - field.num_mines()
        return self._exploded or self._opened == safe

    def is_uncovered(self, r, c):
        """Whether (r, c) shows a number or is the exploded mine."""
        status = self.get_status(r, c)
        return status == EXPLODED_MINE or status >= 0

    def _flood(self, r, c):
        """Open (r, c) and, through every 0, the region around it; return how many cells opened."""
        return _open_region(self, r, c)

    def _set(self, r, c, status):
        if status == COVERED:
            self._shown.pop((r, c), None)
        else:
            self._shown[(r, c)] = status

    def _check(self, r, c):
        if not self._field.in_range(r, c):
            raise IndexError(f"({r}, {c}) is not a cell of the field")

    def _end_view_of_a_loss(self, r, c):
        field = self._field
        for rr in range(field.num_rows()):
            for cc in range(field.num_cols()):
                status = self._shown.get((rr, cc), COVERED)
                if field.has_mine(rr, cc):
                    if status in (COVERED, QUESTION):
                        self._shown[(rr, cc)] = MINE
                elif status == MINE_GUESS:
                    self._shown[(rr, cc)] = INCORRECT_GUESS
        self._shown[(r, c)] = EXPLODED_MINE


def _open_region(visible_field, r, c):
    """Breadth-first opening from (r, c) through the cells showing 0; guessed, questioned, open
    and mined cells stop it. Counts the cells it opens in the visible field's own tally."""
    field = visible_field._field
    shown = visible_field._shown
    queue = deque([(r, c)])
    queued = {(r, c)}
    opened = 0
    while queue:
        cell = queue.popleft()
        if not field.in_range(*cell) or cell in shown or field.has_mine(*cell):
            continue
        number = field.num_adjacent_mines(*cell)
        shown[cell] = number
        opened += 1
        if number == 0:
            row, col = cell
            for dr, dc in AROUND:
                nearby = (row + dr, col + dc)
                if nearby not in queued:
                    queued.add(nearby)
                    queue.append(nearby)
    visible_field._opened += opened
    return opened


def flood_fill_iterative(visible_field, r, c):
    """Open (r, c) and its zero region without recursion; return how many cells it opened."""
    return _open_region(visible_field, r, c)
