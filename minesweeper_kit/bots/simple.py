"""Two simple bots: a random player (the floor any bot should beat) and a human at the terminal."""

from __future__ import annotations

import random
import sys
from collections.abc import Callable

import numpy as np

from .view import VIEW_FLAG, VIEW_UNKNOWN, BotView, Move


class RandomBot:
    """Digs a uniformly random covered, unflagged cell. Seeded, so its games can be replayed."""

    name = "random"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def next_move(self, view: BotView) -> Move:
        """A uniformly random covered, unflagged cell."""
        cells = np.flatnonzero(view.unknown.ravel())
        if cells.size == 0:
            raise ValueError("no covered, unflagged cell left to dig")
        index = int(cells[self._rng.randrange(cells.size)])
        return Move.dig(tuple(int(v) for v in np.unravel_index(index, view.shape)))


class BaselineBot:
    """The baseline the reference solver is measured against: it plays what each number proves
    on its own (propagation, no enumeration, no mine count) and otherwise digs a random covered
    cell not known to be a mine. First click in a corner, like the solver."""

    name = "baseline"

    def __init__(self, seed: int | None = None) -> None:
        self._rng = random.Random(seed)

    def next_move(self, view: BotView) -> Move:
        """A cell a number proves safe, else a random covered cell not proved a mine."""
        from .solver import analyse

        grid = view.grid.ravel().tolist()
        if not view.opened.any():
            return Move.dig(tuple(0 for _ in view.shape))
        analysis = analyse(view, grid, enumerate_frontier=False)
        unknown = [i for i, v in enumerate(grid) if v == VIEW_UNKNOWN]
        safe = sorted(i for i in analysis.safe if grid[i] == VIEW_UNKNOWN)
        if safe:
            index = safe[0]
        else:
            pool = [i for i in unknown if i not in analysis.mines] or unknown
            index = pool[self._rng.randrange(len(pool))]
        return Move.dig(tuple(int(v) for v in np.unravel_index(index, view.shape)))


MOVE_HELP = """Moves: 'r c' digs row r, column c (0-indexed, one number per axis);
'f r c' toggles a flag; 'q' gives up. Example: 3 4"""


class HumanBot:
    """Asks for each move on the terminal, after printing the board.

    `read` and `write` default to input() and stdout; tests pass their own.
    """

    name = "human"

    def __init__(self, read: Callable[[str], str] = input, write: Callable[[str], object] | None = None) -> None:
        self._read = read
        self._write = write or (lambda text: print(text, file=sys.stdout))

    def next_move(self, view: BotView) -> Move:
        """Show the board, then read moves until one parses."""
        self._write(render_view(view))
        while True:
            line = self._read("move> ").strip()
            if line in ("q", "quit"):
                raise KeyboardInterrupt("the player gave up")
            try:
                return parse_move(line, view.shape)
            except ValueError as error:
                self._write(f"{error}\n{MOVE_HELP}")


def parse_move(line: str, shape: tuple[int, ...]) -> Move:
    """'r c' (dig) or 'f r c' (flag), 0-indexed; ValueError explains what is wrong."""
    parts = line.replace(",", " ").split()
    flag = bool(parts) and parts[0].lower() in ("f", "flag")
    if flag:
        parts = parts[1:]
    try:
        cell = tuple(int(p) for p in parts)
    except ValueError:
        raise ValueError(f"not a move: {line!r}") from None
    if len(cell) != len(shape):
        raise ValueError(f"give {len(shape)} coordinates, got {len(cell)}")
    for axis, (value, size) in enumerate(zip(cell, shape)):
        if not 0 <= value < size:
            raise ValueError(f"coordinate {axis} must be in 0..{size - 1}, got {value}")
    return Move.flag(cell) if flag else Move.dig(cell)


def render_view(view: BotView) -> str:
    """A 2-D board as text: '.' covered, 'F' flag, numbers right-aligned; row/column indices."""
    if len(view.shape) != 2:
        return repr(view) + "\n" + str(view.grid)
    _rows, cols = view.shape
    cells = [
        ["." if v == VIEW_UNKNOWN else "F" if v == VIEW_FLAG else str(v) for v in row] for row in view.grid.tolist()
    ]
    width = max(2, max(len(c) for row in cells for c in row) + 1)
    head = " " * 3 + "".join(f"{c:>{width}}" for c in range(cols))
    lines = [head] + [f"{r:>3}" + "".join(f"{c:>{width}}" for c in row) for r, row in enumerate(cells)]
    lines.append(f"mines {view.mines}, flags {int(view.flagged.sum())}" + (", torus" if view.torus else ""))
    return "\n".join(lines)
