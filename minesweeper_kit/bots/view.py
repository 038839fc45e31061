"""What a bot sees and what it answers: the `BotView` of a game and the `Move` it plays.

A bot is any object with ``next_move(view) -> Move`` (see `Bot`). The view is a frozen snapshot;
it never exposes where the mines are, so a bot can only use what a human player would see. An
answer that is not a move on the board is an `IllegalMove`.

Encoding of the visible board (``view.grid``, an int64 array of the board's shape):

* an open cell holds its number: the sum of the charges of its neighbouring mines (with every
  charge 1 that is the classic mine count; with charges it can be 0 or negative next to mines);
* a covered cell holds `VIEW_UNKNOWN`, a flagged one `VIEW_FLAG`.

`VIEW_UNKNOWN` and `VIEW_FLAG` are the two smallest int64 values, far below any number a board
can show (a number is at most 10 x (3^axes - 1) in absolute value), so ``grid >= VIEW_OPEN_MIN``
is the mask of open cells and numbers need no separate array.

The names carry the ``VIEW_``/``Bot``/``Move`` prefixes because the engine, the widgets and the
Sweepmine format each have cell codes, views and actions of their own.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

import numpy as np

#: A covered, unflagged cell of `BotView.grid`.
VIEW_UNKNOWN: int = int(np.iinfo(np.int64).min)
#: A flagged cell of `BotView.grid`.
VIEW_FLAG: int = VIEW_UNKNOWN + 1
#: Every open cell's number is at least this: ``grid >= VIEW_OPEN_MIN`` is the open mask.
VIEW_OPEN_MIN: int = VIEW_UNKNOWN + 2


class MoveKind(str, enum.Enum):
    """What a bot's move does: open a cell, or toggle a flag on it (covered <-> flag).

    The values are the words of a move's JSON form (``["dig", [r, c]]``).
    """

    DIG = "dig"
    FLAG = "flag"


@dataclass(frozen=True)
class Move:
    """One move: `action` (a `MoveKind`) at the 0-indexed coordinate `cell` (a tuple, one int per axis)."""

    action: MoveKind
    cell: tuple[int, ...]

    def __post_init__(self) -> None:
        object.__setattr__(self, "action", MoveKind(self.action))
        object.__setattr__(self, "cell", tuple(int(v) for v in self.cell))

    @classmethod
    def dig(cls, *cell: int | Sequence[int]) -> Move:
        """``Move.dig(2, 3)`` or ``Move.dig((2, 3))``."""
        return cls(MoveKind.DIG, _as_cell(cell))

    @classmethod
    def flag(cls, *cell: int | Sequence[int]) -> Move:
        """Toggle the flag on a cell: ``Move.flag(2, 3)``."""
        return cls(MoveKind.FLAG, _as_cell(cell))

    def to_json(self) -> list:
        """Plain data: ``["dig", [r, c]]``; the inverse of `from_json`."""
        return [self.action.value, list(self.cell)]

    @classmethod
    def from_json(cls, data: Sequence) -> Move:
        """Read ``["dig"|"flag", [coords...]]``; raise ValueError on anything else."""
        if not isinstance(data, (list, tuple)) or len(data) != 2:
            raise ValueError(f"a move is [action, [coordinates]], got {data!r}")
        action, cell = data
        if action not in ("dig", "flag"):
            raise ValueError(f"a move's action is 'dig' or 'flag', got {action!r}")
        if not isinstance(cell, (list, tuple)) or not all(
            isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in cell
        ):
            raise ValueError(f"a move's cell is a list of integers, got {cell!r}")
        return cls(MoveKind(action), tuple(cell))


def _as_cell(cell: tuple) -> tuple[int, ...]:
    if len(cell) == 1 and isinstance(cell[0], (tuple, list, np.ndarray)):
        return tuple(int(v) for v in cell[0])
    return tuple(int(v) for v in cell)


class IllegalMove(ValueError):
    """A bot answered something that is not a move on this board.

    Raised where an answer is read: by the bot-file driver (not a `Move`) and by the adapters of
    the contests' bot shapes (a malformed or off-board answer); the arena scores it as illegal.
    """


@dataclass(frozen=True, eq=False)
class BotView:
    """The visible state of one game, as a bot sees it before choosing a move.

    shape    board shape (2-D for the classic presets; any number of axes is allowed)
    mines    how many mines the board holds
    grid     int64 array of `shape`: numbers on open cells, `VIEW_UNKNOWN` / `VIEW_FLAG` elsewhere
    charges  int64 array of `shape`: each cell's charge (all 1 on an uncharged board); the charge
             only matters if the cell is a mine, but like in Sweepmine every charge is public
    torus    whether every axis wraps around
    moves    the moves played so far in this game, oldest first
    """

    shape: tuple[int, ...]
    mines: int
    grid: np.ndarray
    charges: np.ndarray
    torus: bool = False
    moves: tuple[Move, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        shape = tuple(int(n) for n in self.shape)
        grid = np.array(self.grid, dtype=np.int64)
        charges = np.array(self.charges, dtype=np.int64)
        if grid.shape != shape:
            raise ValueError(f"grid has shape {grid.shape}, expected {shape}")
        if charges.shape != shape:
            raise ValueError(f"charges have shape {charges.shape}, expected {shape}")
        if not 0 <= int(self.mines) <= grid.size:
            raise ValueError(f"mines must be in 0..{grid.size}, got {self.mines}")
        grid.setflags(write=False)
        charges.setflags(write=False)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "mines", int(self.mines))
        object.__setattr__(self, "grid", grid)
        object.__setattr__(self, "charges", charges)
        object.__setattr__(self, "torus", bool(self.torus))
        object.__setattr__(self, "moves", tuple(self.moves))

    # Masks, for convenience -------------------------------------------------------------
    @property
    def unknown(self) -> np.ndarray:
        """Covered, unflagged cells."""
        return self.grid == VIEW_UNKNOWN

    @property
    def flagged(self) -> np.ndarray:
        """Flagged cells."""
        return self.grid == VIEW_FLAG

    @property
    def opened(self) -> np.ndarray:
        """Open cells (their numbers are in `grid`)."""
        return self.grid >= VIEW_OPEN_MIN

    @property
    def charged(self) -> bool:
        """True when some charge differs from 1 (then a 0 opens no neighbours)."""
        return bool(np.any(self.charges != 1))

    @property
    def mines_left(self) -> int:
        """Mines not yet flagged (negative when the bot flagged too many cells)."""
        return self.mines - int(np.count_nonzero(self.flagged))

    def with_move(self, move: Move, grid: np.ndarray) -> BotView:
        """The next view: `move` appended and the visible grid replaced."""
        return BotView(self.shape, self.mines, grid, self.charges, self.torus, self.moves + (move,))

    def to_json(self) -> dict:
        """Plain data (lists and ints): what crosses a process boundary to a sandboxed bot."""
        return {
            "shape": list(self.shape),
            "mines": self.mines,
            "grid": self.grid.tolist(),
            "charges": self.charges.tolist(),
            "torus": self.torus,
            "moves": [m.to_json() for m in self.moves],
        }

    @classmethod
    def from_json(cls, data: dict) -> BotView:
        """The inverse of `to_json`: how a sandboxed bot's driver rebuilds the view in the child."""
        return cls(
            tuple(data["shape"]),
            data["mines"],
            np.array(data["grid"], dtype=np.int64).reshape(tuple(data["shape"])),
            np.array(data["charges"], dtype=np.int64).reshape(tuple(data["shape"])),
            data["torus"],
            tuple(Move.from_json(m) for m in data["moves"]),
        )

    def __repr__(self) -> str:
        return (
            f"BotView(shape={self.shape}, mines={self.mines}, torus={self.torus}, "
            f"open={int(np.count_nonzero(self.opened))}, flags={int(np.count_nonzero(self.flagged))}, "
            f"moves={len(self.moves)})"
        )


@runtime_checkable
class Bot(Protocol):
    """Anything that plays: given the view, answer the next move.

    A bot may keep state between calls (one bot object plays one game at a time); the arena calls
    `new_game` (if the bot has it) before each game.
    """

    def next_move(self, view: BotView) -> Move:
        """The move to play on this view: dig or flag one covered cell."""
