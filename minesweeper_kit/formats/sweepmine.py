"""Sweepmine.TM's text formats: the grader's input, a bot's position, and the `sweepmine.out` log.

Sweepmine rows and columns are 1-indexed; the kit's coordinates are 0-indexed (row, column). In a
grader grid 101 marks a mine and every other value is the cell's number; in what a bot sees 100 is
an unknown cell and 101 a flag. Every grid line is written with a space after each value, as the
original grader writes it, so a log read and written back is byte-identical.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field

import numpy as np

from ..game import Game, Mark

# Grid codes: a mine in the grader's grid; an unknown cell and a flag in what a bot sees. The
# SWEEPMINE_ prefix keeps them apart from the bots' and the engine's own cell codes.
SWEEPMINE_MINE = 101
SWEEPMINE_UNKNOWN = 100
SWEEPMINE_FLAG = 101
# A move's type in a log line.
SWEEPMINE_DIG, SWEEPMINE_TOGGLE_FLAG = 0, 1
RESULTS = ("WIN", "DIE")


@dataclass
class SweepmineLog:
    """A Sweepmine game: the header, the grader grid, the charges, the moves and the verdict.

    `views` holds the grid the bot saw after each move when the log was written in debug mode
    (D = 1), else it is empty. `result` is "WIN", "DIE" or None (the grader stopped early).
    """

    rows: int
    cols: int
    mines: int
    torus: bool
    random_charges: bool
    debug: bool
    grid: list[list[int]]
    charges: list[list[int]]
    moves: list[tuple[int, int, int]] = field(default_factory=list)
    views: list[list[list[int]]] = field(default_factory=list)
    result: str | None = None

    def to_game(self) -> Game:
        """The game before the first move, checked against the grid's numbers."""
        return grader_grid_game(self.grid, self.charges, self.torus)

    def positions(self) -> Iterator[Game]:
        """The start position, then the position after each logged move (each a separate game)."""
        game = self.to_game()
        yield game.copy()
        for _ in self._play(game):
            yield game.copy()

    def replay(self) -> Game:
        """Play the logged moves on a fresh game and return it."""
        game = self.to_game()
        for _ in self._play(game):
            pass
        return game

    def _play(self, game: Game) -> Iterator[None]:
        """Play the moves on `game` one at a time, checking each is on the board."""
        for number, (t, x, y) in enumerate(self.moves, start=1):
            at = (x - 1, y - 1)
            if not (0 <= at[0] < self.rows and 0 <= at[1] < self.cols):
                raise ValueError(f"move {number} ({t} {x} {y}) is off the {self.rows}x{self.cols} board")
            if t == SWEEPMINE_DIG:
                game.dig(at)
            else:
                game.toggle_flag(at)
            yield

    def move_labels(self) -> list[str]:
        """Each move as the kit names it, 0-indexed: "dig (r, c)" or "flag (r, c)"."""
        return [f"{'dig' if t == SWEEPMINE_DIG else 'flag'} {(x - 1, y - 1)}" for t, x, y in self.moves]


def grader_grid_game(grid: list[list[int]], charges: list[list[int]], torus: bool) -> Game:
    """A game from a grader grid (101 = mine) and a charge grid; the numbers must agree."""
    values = np.asarray(grid, dtype=np.int64)
    mines = values == SWEEPMINE_MINE
    game = Game.from_arrays(mines, charges=np.asarray(charges, dtype=np.int64), torus=torus)
    wrong = np.argwhere(~mines & (values != game.numbers))
    if wrong.size:
        r, c = (int(v) for v in wrong[0])
        raise ValueError(
            f"grader grid row {r + 1}, column {c + 1} says {values[r, c]} "
            f"but its neighbouring mines' charges sum to {game.numbers[r, c]}"
        )
    return game


def read_log(text: str) -> SweepmineLog:
    """Parse a `sweepmine.out` log; ValueError names the line that is wrong."""
    reader = _Lines(text)
    rows, cols, mines, torus, random_charges, debug = reader.ints(6, "header R C N T O D")
    _check_header(rows, cols, mines, reader)
    grid = [reader.ints(cols, f"grader grid row {r + 1}") for r in range(rows)]
    charges = [reader.ints(cols, f"charge row {r + 1}") for r in range(rows)]
    log = SweepmineLog(rows, cols, mines, bool(torus), bool(random_charges), bool(debug), grid, charges)
    while not reader.done():
        line = reader.peek()
        if line in RESULTS:
            reader.next()
            log.result = line
            if not reader.done():
                raise ValueError(f"line {reader.number + 1}: nothing may follow the verdict {line}")
            break
        t, x, y = reader.ints(3, "move t x y")
        if t not in (SWEEPMINE_DIG, SWEEPMINE_TOGGLE_FLAG):
            raise ValueError(f"line {reader.number}: a move's type is 0 (uncover) or 1 (toggle flag), got {t}")
        log.moves.append((t, x, y))
        if log.debug:
            log.views.append([reader.ints(cols, f"view row {r + 1}") for r in range(rows)])
    return log


def write_log(log: SweepmineLog) -> str:
    """A log as `sweepmine.out` text, byte for byte as the original grader writes it."""
    header = [log.rows, log.cols, log.mines, int(log.torus), int(log.random_charges), int(log.debug)]
    lines = [" ".join(str(v) for v in header)]
    lines += [_grid_line(row) for row in log.grid]
    lines += [_grid_line(row) for row in log.charges]
    for index, move in enumerate(log.moves):
        lines.append(" ".join(str(v) for v in move))
        if log.debug:
            lines += [_grid_line(row) for row in log.views[index]]
    if log.result:
        lines.append(log.result)
    return "\n".join(lines) + "\n"


def log_from_game(game: Game, *, random_charges: bool | None = None) -> SweepmineLog:
    """The Sweepmine log of a played 2-D game (digs and flag toggles, 1-indexed)."""
    if game.ndim != 2:
        raise ValueError(f"Sweepmine logs are 2-D; this game has {game.ndim} axes")
    if not game.placed:
        raise ValueError("the game has no mines yet: log it after the first dig")
    grid = np.where(game.mines, SWEEPMINE_MINE, game.numbers).tolist()
    moves = []
    for action in game.history:
        if action.kind == "cycle":
            raise ValueError("Sweepmine logs know digs and flag toggles only, not question marks")
        kind = SWEEPMINE_DIG if action.kind == "dig" else SWEEPMINE_TOGGLE_FLAG
        moves.append((kind, action.at[0] + 1, action.at[1] + 1))
    result = {"victory": "WIN", "defeat": "DIE"}.get(game.state)
    rows, cols = game.shape
    return SweepmineLog(
        rows,
        cols,
        game.mine_count,
        game.torus,
        game.charged if random_charges is None else random_charges,
        False,
        grid,
        game.charges.tolist(),
        moves,
        [],
        result,
    )


@dataclass
class GraderInput:
    """The grader's input: `R C N T O D`, and in debug mode a grader grid and charges."""

    rows: int
    cols: int
    mines: int
    torus: bool
    random_charges: bool
    debug: bool
    grid: list[list[int]] | None = None
    charges: list[list[int]] | None = None

    def to_game(self) -> Game:
        """The game this input fixes; only a debug-mode input holds the board."""
        if self.grid is None or self.charges is None:
            raise ValueError("only a debug-mode input (D = 1) fixes the board")
        return grader_grid_game(self.grid, self.charges, self.torus)


def read_grader_input(text: str) -> GraderInput:
    """The grader's input text read and checked; ValueError names the bad line."""
    reader = _Lines(text)
    rows, cols, mines, torus, random_charges, debug = reader.ints(6, "header R C N T O D")
    _check_header(rows, cols, mines, reader)
    data = GraderInput(rows, cols, mines, bool(torus), bool(random_charges), bool(debug))
    if debug:
        data.grid = [reader.ints(cols, f"grader grid row {r + 1}") for r in range(rows)]
        data.charges = [reader.ints(cols, f"charge row {r + 1}") for r in range(rows)]
        found = sum(v == SWEEPMINE_MINE for row in data.grid for v in row)
        if found != mines:
            raise ValueError(f"the header says {mines} mines but the grid has {found}")
    return data


@dataclass
class Position:
    """What a Sweepmine bot is shown: `R C N T`, the visible grid and the charges."""

    rows: int
    cols: int
    mines: int
    torus: bool
    grid: list[list[int]]
    charges: list[list[int]]


def read_position(text: str) -> Position:
    """A position file (what a bot is shown) read and checked; ValueError names the bad line."""
    reader = _Lines(text)
    rows, cols, mines, torus = reader.ints(4, "header R C N T")
    _check_header(rows, cols, mines, reader)
    grid = [reader.ints(cols, f"grid row {r + 1}") for r in range(rows)]
    charges = [reader.ints(cols, f"charge row {r + 1}") for r in range(rows)]
    return Position(rows, cols, mines, bool(torus), grid, charges)


def read_move(text: str) -> tuple[int, int, int]:
    """A bot's answer `t x y` (1-indexed)."""
    return tuple(_Lines(text).ints(3, "move t x y"))  # type: ignore[return-value]


def visible_grid(game: Game) -> list[list[int]]:
    """What a Sweepmine bot sees of a 2-D game: 100 unknown, 101 flag, else the number."""
    grid = np.where(game.revealed, game.numbers, SWEEPMINE_UNKNOWN)
    grid = np.where(~game.revealed & (game.marks == Mark.FLAG), SWEEPMINE_FLAG, grid)
    return grid.tolist()


def _grid_line(values: list[int]) -> str:
    return "".join(f"{v} " for v in values)


def _check_header(rows: int, cols: int, mines: int, reader: _Lines) -> None:
    if rows < 1 or cols < 1:
        raise ValueError(f"line 1: R and C must be positive, got {rows} and {cols}")
    if not 0 <= mines <= rows * cols:
        raise ValueError(f"line 1: N must be between 0 and R*C = {rows * cols}, got {mines}")


class _Lines:
    """Reads whitespace-separated integer lines, keeping line numbers for error messages."""

    def __init__(self, text: str) -> None:
        self.lines = [line.strip() for line in text.splitlines()]
        while self.lines and not self.lines[-1]:
            self.lines.pop()
        self.number = 0

    def done(self) -> bool:
        return self.number >= len(self.lines)

    def peek(self) -> str:
        return self.lines[self.number]

    def next(self) -> str:
        if self.done():
            raise ValueError(f"the text ends early after line {self.number}")
        self.number += 1
        return self.lines[self.number - 1]

    def ints(self, count: int, what: str) -> list[int]:
        line = self.next()
        parts = line.split()
        if len(parts) != count:
            raise ValueError(f"line {self.number} ({what}) should have {count} integers, got {len(parts)}")
        try:
            return [int(p) for p in parts]
        except ValueError:
            raise ValueError(f"line {self.number} ({what}) holds a value that is not an integer: {line!r}") from None
