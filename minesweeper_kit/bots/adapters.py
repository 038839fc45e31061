"""Adapters between the kit's `BotView`/`Move` and the two bot conventions of the original contests.

Sweepmine.TM (C++ ``next_move(R, C, N, grid, charge, T)``), in Python:

* ``grid`` and ``charge`` are lists of R+1 rows of C+1 ints, 1-indexed: row 0 and column 0 are
  unused padding (filled with 0); ``grid[x][y]`` is 100 for a covered cell, 101 for a flag, else
  the number shown (with charges it may be 0 or negative);
* the answer is ``(t, (x, y))``: t false/0 = uncover, true/1 = toggle a flag; x is the row and y
  the column, both counted from 1.

Ruby tournament (``take_turn(state)``), in Python:

* ``state`` is a list of rows (the inner lists are horizontal rows), so a cell is
  ``state[y][x]`` with x the column and y the row, (0, 0) the top left;
* the Ruby symbols become strings: ``"unknown"``, ``"flag"`` (and ``"mine"``, which a live game
  never shows, since revealing a mine ends it); an open cell is its int;
* the answer is ``[x, y]`` (reveal) or ``[x, y, reveal]`` where a false third element means
  "flag this cell" rather than reveal it. (The original text's own example returns true for a cell
  it wants to mark as a mine; its rule, "false depicting a flag", is the one followed here.)

Both conventions are 2-D; the adapters raise ValueError on other boards.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..formats import sweepmine as sweepmine_format
from .view import VIEW_FLAG, VIEW_UNKNOWN, BotView, IllegalMove, Move, MoveKind

# The grid codes are the Sweepmine format's own (formats/sweepmine.py), named here for bot writers.
SWEEPMINE_UNKNOWN = sweepmine_format.SWEEPMINE_UNKNOWN
SWEEPMINE_FLAG = sweepmine_format.SWEEPMINE_FLAG

RUBY_UNKNOWN = "unknown"
RUBY_FLAG = "flag"
RUBY_MINE = "mine"


def _require_2d(view: BotView, convention: str) -> tuple[int, int]:
    if len(view.shape) != 2:
        raise ValueError(f"the {convention} convention is 2-D, this board has shape {view.shape}")
    return view.shape


def _is_int(value: Any) -> bool:
    return isinstance(value, (int, np.integer)) and not isinstance(value, (bool, np.bool_))


# ------------------------------------------------------------------------------ Sweepmine
def to_sweepmine(view: BotView) -> tuple[int, int, int, list[list[int]], list[list[int]], bool]:
    """The six arguments of a Sweepmine ``next_move`` for this view."""
    rows, cols = _require_2d(view, "Sweepmine")
    grid = [[0] * (cols + 1)]
    charge = [[0] * (cols + 1)]
    for r in range(rows):
        line = [0]
        for value in view.grid[r].tolist():
            if value == VIEW_UNKNOWN:
                line.append(SWEEPMINE_UNKNOWN)
            elif value == VIEW_FLAG:
                line.append(SWEEPMINE_FLAG)
            else:
                line.append(int(value))
        grid.append(line)
        charge.append([0] + [int(c) for c in view.charges[r].tolist()])
    return rows, cols, view.mines, grid, charge, view.torus


def from_sweepmine_move(answer: Any, shape: Sequence[int]) -> Move:
    """Read a Sweepmine answer ``(t, (x, y))`` (1-indexed); raise ValueError if malformed or off the board."""
    try:
        t, (x, y) = answer
    except (TypeError, ValueError):
        raise IllegalMove(f"a Sweepmine move is (t, (x, y)), got {answer!r}") from None
    if not (isinstance(t, (bool, np.bool_)) or (_is_int(t) and t in (0, 1))):
        raise IllegalMove(f"a Sweepmine move's t is 0/False (uncover) or 1/True (flag), got {t!r}")
    if not (_is_int(x) and _is_int(y)):
        raise IllegalMove(f"a Sweepmine move's x and y are integers, got {x!r}, {y!r}")
    rows, cols = shape
    if not (1 <= x <= rows and 1 <= y <= cols):
        raise IllegalMove(f"Sweepmine move ({x}, {y}) is off the board: rows are 1..{rows}, columns 1..{cols}")
    return Move(MoveKind.FLAG if t else MoveKind.DIG, (int(x) - 1, int(y) - 1))


def to_sweepmine_move(move: Move) -> tuple[bool, tuple[int, int]]:
    """A kit move as a Sweepmine answer ``(t, (x, y))``, 1-indexed."""
    r, c = move.cell
    return move.action is MoveKind.FLAG, (r + 1, c + 1)


class SweepmineBot:
    """Plays a function written to the Sweepmine signature as a kit bot.

    >>> bot = SweepmineBot(lambda R, C, N, grid, charge, T: (False, (1, 1)))
    """

    def __init__(self, next_move: Callable[..., Any]) -> None:
        self._next_move = next_move

    def next_move(self, view: BotView) -> Move:
        """The wrapped function's answer for this view, read back as a kit move."""
        return from_sweepmine_move(self._next_move(*to_sweepmine(view)), view.shape)


def sweepmine_function(bot: Any) -> Callable[..., tuple[bool, tuple[int, int]]]:
    """The other way round: a kit bot as a Sweepmine ``next_move(R, C, N, grid, charge, T)``."""

    def next_move(R, C, N, grid, charge, T):
        return to_sweepmine_move(bot.next_move(view_from_sweepmine(R, C, N, grid, charge, T)))

    return next_move


def view_from_sweepmine(R: int, C: int, N: int, grid, charge, T, moves=()) -> BotView:
    """Build a `BotView` from the Sweepmine arguments (1-indexed grids, 100/101 codes)."""
    g = np.array([row[1 : C + 1] for row in list(grid)[1 : R + 1]], dtype=np.int64).reshape(R, C)
    out = np.where(g == SWEEPMINE_UNKNOWN, VIEW_UNKNOWN, np.where(g == SWEEPMINE_FLAG, VIEW_FLAG, g))
    ch = np.array([row[1 : C + 1] for row in list(charge)[1 : R + 1]], dtype=np.int64).reshape(R, C)
    return BotView((R, C), N, out, ch, bool(T), tuple(moves))


def read_sweepmine_position(text: str) -> BotView:
    """The BotView of a position file as a Sweepmine bot sees it (``R C N T``, the grid with
    100 = covered and 101 = flag, then the charges); parsed by the kit's Sweepmine format."""
    position = sweepmine_format.read_position(text)
    pad = [[0] * (position.cols + 1)]
    grid = pad + [[0, *row] for row in position.grid]
    charge = pad + [[0, *row] for row in position.charges]
    return view_from_sweepmine(position.rows, position.cols, position.mines, grid, charge, position.torus)


# ------------------------------------------------------------------------------ Ruby tournament
def to_ruby_state(view: BotView) -> list[list[Any]]:
    """The board as the Ruby tournament's ``state``: rows of "unknown" / "flag" / ints, ``state[y][x]``."""
    _require_2d(view, "Ruby tournament")
    state = []
    for row in view.grid.tolist():
        state.append([RUBY_UNKNOWN if v == VIEW_UNKNOWN else RUBY_FLAG if v == VIEW_FLAG else int(v) for v in row])
    return state


def from_ruby_move(answer: Any, shape: Sequence[int]) -> Move:
    """Read ``[x, y]`` or ``[x, y, reveal]`` (x column, y row, 0-indexed; reveal false = flag)."""
    if not isinstance(answer, (list, tuple)) or len(answer) not in (2, 3):
        raise IllegalMove(f"a Ruby-tournament move is [x, y] or [x, y, reveal], got {answer!r}")
    x, y = answer[0], answer[1]
    if not (_is_int(x) and _is_int(y)):
        raise IllegalMove(f"a Ruby-tournament move's x and y are integers, got {x!r}, {y!r}")
    reveal = True
    if len(answer) == 3:
        if not isinstance(answer[2], (bool, np.bool_)):
            raise IllegalMove(f"the third element of a Ruby-tournament move is true or false, got {answer[2]!r}")
        reveal = bool(answer[2])
    rows, cols = shape
    if not (0 <= x < cols and 0 <= y < rows):
        raise IllegalMove(f"Ruby-tournament move [{x}, {y}] is off the board: x is 0..{cols - 1}, y 0..{rows - 1}")
    return Move(MoveKind.DIG if reveal else MoveKind.FLAG, (int(y), int(x)))


def to_ruby_move(move: Move) -> list:
    """A kit move as ``[x, y]`` (dig) or ``[x, y, False]`` (flag)."""
    r, c = move.cell
    return [c, r] if move.action is MoveKind.DIG else [c, r, False]


class RubyBot:
    """Plays a Ruby-tournament style player (an object with ``take_turn``, or a function) as a kit bot."""

    def __init__(self, player: Any) -> None:
        self._take_turn = player.take_turn if hasattr(player, "take_turn") else player
        self.name = player.name() if hasattr(player, "name") and callable(player.name) else type(player).__name__

    def next_move(self, view: BotView) -> Move:
        """The player's answer for this view, read back as a kit move."""
        return from_ruby_move(self._take_turn(to_ruby_state(view)), view.shape)
