"""The game model: one vectorised N-D Minesweeper for every rule set the kit teaches.

A `Game` holds the board as flat numpy arrays (mines, charges, numbers, revealed, marks) plus the
rules. Every game rule (docs/engine.md lists them) is played here and only here: the widget, the
arena, the command line and the autograder's differential tests all drive this class.

The values each option can take (`REVEAL_RULES`, `FIRST_MOVES`, `MAX_CHARGE`) and their checks
live here too, beside the code that plays them: a new reveal rule is a new value and the branch
that plays it. rules.py builds one rule set (`Rules`) on them and starts games with it.
"""

from __future__ import annotations

import enum
import math
import numbers
import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal

import numpy as np

from .geometry import Coordinate, Geometry

# ---------------------------------------------------------------------- the options and their checks
Reveal = Literal["flood", "ring", "single"]
FirstMove = Literal["any", "safe", "opening"]

REVEAL_RULES: tuple[Reveal, ...] = ("flood", "ring", "single")
FIRST_MOVES: tuple[FirstMove, ...] = ("any", "safe", "opening")
MAX_CHARGE = 10


def check_reveal(reveal: str) -> Reveal:
    """The reveal rule, checked where a game or a rule set is made."""
    if reveal not in REVEAL_RULES:
        raise ValueError(f"reveal must be one of {', '.join(REVEAL_RULES)}, got {reveal!r}")
    return reveal


def check_first_move(first_move: str) -> FirstMove:
    """The first-move rule, checked where a game or a rule set is made."""
    if first_move not in FIRST_MOVES:
        raise ValueError(f"first_move must be one of {', '.join(FIRST_MOVES)}, got {first_move!r}")
    return first_move


def check_charge(value: Any, where: str) -> int:
    """One charge: a nonzero integer in [-MAX_CHARGE, MAX_CHARGE]."""
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise ValueError(f"charge {where} must be an integer, got {value!r}")
    value = int(value)
    if value == 0 or not -MAX_CHARGE <= value <= MAX_CHARGE:
        raise ValueError(f"charge {where} must be a nonzero integer in [-{MAX_CHARGE}, {MAX_CHARGE}], got {value}")
    return value


def check_charge_range(charges: Any) -> tuple[int, int] | None:
    """A (low, high) range of charges to draw from, checked; None stays None (every charge 1)."""
    if charges is None:
        return None
    try:
        lo, hi = (int(v) for v in charges)
    except (TypeError, ValueError):
        raise ValueError(f"charges must be a (low, high) pair, got {charges!r}") from None
    check_charge(lo, "range low end")
    check_charge(hi, "range high end")
    if lo > hi:
        raise ValueError(f"charge range low end {lo} is above the high end {hi}")
    return lo, hi


def max_mines(shape: tuple[int, ...], first_move: FirstMove) -> int:
    """How many mines fit when the first move must stay clear of mines (and, for "opening", its neighbours)."""
    size = math.prod(shape)
    excluded = {"any": 0, "safe": 1, "opening": math.prod(min(3, n) for n in shape)}[first_move]
    return max(size - excluded, 0)


def check_mine_count(mines: Any, allowed: int) -> int:
    """A mine count, checked against how many fit (`max_mines`), so a bad one fails before play."""
    if isinstance(mines, bool) or not isinstance(mines, numbers.Integral):
        raise ValueError(f"the number of mines must be an integer, got {mines!r}")
    mines = int(mines)
    if mines < 0:
        raise ValueError(f"the number of mines cannot be negative, got {mines}")
    if mines > allowed:
        raise ValueError(
            f"{mines} mines do not fit: at most {allowed} cells can hold a mine under this first-move rule"
        )
    return mines


# ---------------------------------------------------------------------- the game
State = Literal["ongoing", "victory", "defeat"]
FRONTIER_STEPS = 24  # flood steps taken frontier by frontier before labelling the whole region

ChargeSpec = Mapping[Sequence[int], int] | Sequence[int] | np.ndarray | None


class Mark(enum.IntEnum):
    """What the player has put on a covered cell."""

    NONE = 0
    FLAG = 1
    QUESTION = 2


class Face(enum.IntEnum):
    """What one cell shows. OPEN means its number shows; the last three appear only at the end."""

    COVERED = 0
    FLAG = 1
    QUESTION = 2
    OPEN = 3
    MINE = 4
    EXPLODED = 5
    WRONG_FLAG = 6


@dataclass(frozen=True)
class Action:
    """One move of a game's history: `kind` is "dig", "cycle" (flag/question cycle) or "flag"."""

    kind: str
    at: Coordinate
    result: int


class Game:
    """One Minesweeper game on a board of 1 to 60 axes.

    Build one with `Game.new` (random mines, placed at the first dig from a seeded generator) or
    `Game.from_mines` (explicit mines). Coordinates are 0-indexed tuples, one entry per axis.
    """

    # ------------------------------------------------------------------ construction
    def __init__(
        self,
        shape: Iterable[int],
        *,
        torus: bool = False,
        reveal: Reveal = "flood",
        first_move: FirstMove = "safe",
        mine_count: int = 0,
        charges: ChargeSpec = None,
        charge_range: tuple[int, int] | None = None,
        seed: int | None = None,
    ) -> None:
        self.geometry = Geometry(shape, torus)
        size = self.geometry.size
        self.reveal: Reveal = check_reveal(reveal)
        self.first_move: FirstMove = check_first_move(first_move)
        self.seed = int(seed) if seed is not None else secrets.randbelow(2**32)
        self._rng = np.random.default_rng(self.seed)
        self._mines = np.zeros(size, dtype=bool)
        self._numbers = np.zeros(size, dtype=np.int32 if 10 * size < 2**31 else np.int64)
        self._revealed = np.zeros(size, dtype=bool)
        self._marks = np.zeros(size, dtype=np.uint8)
        self._charges = np.ones(size, dtype=np.int8)
        if charges is not None and charge_range is not None:
            raise ValueError("give either explicit charges or a charge_range to draw them from, not both")
        self.charge_range = check_charge_range(charge_range)
        if self.charge_range is not None:
            self._charges = _draw_charges(self._rng, size, self.charge_range)
        self.mine_count = check_mine_count(mine_count, max_mines(self.geometry.shape, self.first_move))
        self.state: State = "ongoing"
        self.exploded: Coordinate | None = None
        self.history: list[Action] = []
        self.placed = False
        self._safe_left = size - self.mine_count

    @classmethod
    def new(
        cls,
        shape: Iterable[int],
        mines: int,
        *,
        torus: bool = False,
        reveal: Reveal = "flood",
        first_move: FirstMove = "safe",
        charges: tuple[int, int] | None = None,
        seed: int | None = None,
    ) -> Game:
        """A game whose `mines` are placed at the first dig, honouring `first_move`.

        `charges=(lo, hi)` gives every cell a random nonzero charge in [lo, hi] (drawn now, so a
        bot sees them from the start); the default is 1 everywhere.
        """
        return cls(
            shape, torus=torus, reveal=reveal, first_move=first_move, mine_count=mines, charge_range=charges, seed=seed
        )

    @classmethod
    def from_mines(
        cls,
        shape: Iterable[int],
        mines: Iterable[Sequence[int]],
        *,
        charges: ChargeSpec = None,
        torus: bool = False,
        reveal: Reveal = "flood",
    ) -> Game:
        """A game with these mines already placed.

        `charges` may be a mapping {mine coordinate: charge}, a sequence parallel to `mines`, or a
        full array of per-cell charges (the board's shape).
        """
        game = cls(shape, torus=torus, reveal=reveal, first_move="any", seed=0)
        flat = game.geometry.flat_many(mines)
        mask = np.zeros(game.geometry.size, dtype=bool)
        mask[flat] = True
        if np.count_nonzero(mask) != flat.size:  # a repeat: find it (slow path, error only)
            unique, counts = np.unique(flat, return_counts=True)
            twice = int(unique[counts > 1][0])
            raise ValueError(f"mine {list(game.geometry.unflat(twice))} is listed twice")
        game._charges = _charge_array(game.geometry, charges, flat)
        game._install_mines(mask)
        return game

    @classmethod
    def from_arrays(
        cls,
        mines: np.ndarray,
        *,
        numbers: np.ndarray | None = None,
        revealed: np.ndarray | None = None,
        marks: np.ndarray | None = None,
        charges: np.ndarray | None = None,
        state: State = "ongoing",
        torus: bool = False,
        reveal: Reveal = "flood",
    ) -> Game:
        """A game from whole-board arrays; `numbers`, when given, are taken as they are.

        This is how a game saved by other code (a 6.009 board and mask, a Sweepmine grid) is
        resumed without recomputing what it says.
        """
        mines = np.asarray(mines, dtype=bool)
        game = cls(mines.shape, torus=torus, reveal=reveal, first_move="any", seed=0)
        game._charges = _charge_array(game.geometry, charges, None)
        game._install_mines(mines.ravel())
        if numbers is not None:
            numbers = np.asarray(numbers)
            if numbers.shape != mines.shape:
                raise ValueError(f"numbers have shape {list(numbers.shape)}, mines {list(mines.shape)}")
            game._numbers = numbers.astype(game._numbers.dtype).ravel().copy()
        if revealed is not None:
            game._revealed = _same_shape("revealed", revealed, mines.shape, bool)
        if marks is not None:
            game._marks = _same_shape("marks", marks, mines.shape, np.uint8)
            if int(game._marks.max(initial=0)) > Mark.QUESTION:
                raise ValueError("marks must be 0 (none), 1 (flag) or 2 (question)")
        if state not in ("ongoing", "victory", "defeat"):
            raise ValueError(f"state must be ongoing, victory or defeat, got {state!r}")
        game.state = state
        game._safe_left = int(np.count_nonzero(~game._mines & ~game._revealed))
        shown = np.flatnonzero(game._mines & game._revealed)
        if shown.size:
            game.exploded = game.geometry.unflat(int(shown[0]))
        return game

    def copy(self) -> Game:
        """An independent game in the same position, random generator included, to try moves on."""
        other = object.__new__(Game)
        other.__dict__.update(self.__dict__)
        for name in ("_mines", "_numbers", "_revealed", "_marks", "_charges"):
            setattr(other, name, getattr(self, name).copy())
        other._rng = np.random.default_rng()
        other._rng.bit_generator.state = self._rng.bit_generator.state
        other.history = list(self.history)
        return other

    # ------------------------------------------------------------------ read-only views
    @property
    def shape(self) -> tuple[int, ...]:
        """The board's axis sizes."""
        return self.geometry.shape

    @property
    def ndim(self) -> int:
        """How many axes the board has."""
        return self.geometry.ndim

    @property
    def size(self) -> int:
        """How many cells the board has."""
        return self.geometry.size

    @property
    def torus(self) -> bool:
        """True when the edges wrap around, so every cell has the same number of neighbours."""
        return self.geometry.torus

    @property
    def mines(self) -> np.ndarray:
        """Where the mines are (all False until they are placed). Trusted code only: x-ray."""
        return _readonly(self._mines, self.shape)

    @property
    def numbers(self) -> np.ndarray:
        """Each cell's number: the sum of its neighbouring mines' charges."""
        return _readonly(self._numbers, self.shape)

    @property
    def revealed(self) -> np.ndarray:
        """Which cells are open (read-only)."""
        return _readonly(self._revealed, self.shape)

    @property
    def marks(self) -> np.ndarray:
        """The `Mark` on each cell (read-only)."""
        return _readonly(self._marks, self.shape)

    @property
    def charges(self) -> np.ndarray:
        """Each cell's charge: what a mine there adds to its neighbours' numbers (1 on classic boards)."""
        return _readonly(self._charges, self.shape)

    @property
    def charged(self) -> bool:
        """True when some charge differs from 1, which turns flood fill off."""
        return bool(np.any(self._charges != 1))

    @property
    def effective_reveal(self) -> Reveal:
        """The reveal rule that applies: flood needs every charge to be 1, else one cell opens."""
        if self.reveal == "flood" and self.charged:
            return "single"
        return self.reveal

    @property
    def mines_left(self) -> int:
        """Mines minus flags; negative when the player has flagged too much."""
        return self.mine_count - int(np.count_nonzero(self._marks == Mark.FLAG))

    @property
    def over(self) -> bool:
        """True once the game is won or lost; moves then change nothing."""
        return self.state != "ongoing"

    @property
    def revealed_count(self) -> int:
        """How many cells are open."""
        return int(np.count_nonzero(self._revealed))

    def neighbours(self, coordinate: Sequence[int]) -> list[Coordinate]:
        """The neighbours of a cell on this board (itself excluded), for tests and teaching.

        The kit spells it "neighbours"; the students' functions keep the handouts' `neighbors`.
        """
        return self.geometry.neighbours(coordinate)

    def faces(self, end_view: bool = True) -> np.ndarray:
        """What every cell shows, as `Face` codes in the board's shape.

        Once the game is over (and `end_view` is true): after a defeat the exploded mine, wrong
        flags and unflagged mines show; after a victory every mine shows flagged.
        """
        faces = np.where(self._revealed, Face.OPEN, Face.COVERED).astype(np.uint8)
        covered = ~self._revealed
        faces[covered & (self._marks == Mark.FLAG)] = Face.FLAG
        faces[covered & (self._marks == Mark.QUESTION)] = Face.QUESTION
        if end_view and self.state == "defeat":
            faces[self._mines & covered & (self._marks != Mark.FLAG)] = Face.MINE
            faces[self._mines & self._revealed] = Face.EXPLODED
            faces[~self._mines & covered & (self._marks == Mark.FLAG)] = Face.WRONG_FLAG
        elif end_view and self.state == "victory":
            faces[self._mines] = Face.FLAG
        elif not end_view:
            faces[self._mines & self._revealed] = Face.MINE
        return faces.reshape(self.shape)

    # ------------------------------------------------------------------ moves
    def dig(self, coordinate: Sequence[int]) -> int:
        """Dig a cell; return how many cells were newly revealed (a mine: 1).

        Nothing happens (0) after the end, on a revealed cell or on a flagged cell.
        """
        coord = self.geometry.check(coordinate)
        index = self.geometry.flat(coord)
        if self.over or self._revealed[index] or self._marks[index] == Mark.FLAG:
            self.history.append(Action("dig", coord, 0))
            return 0
        if not self.placed:
            self._place_mines(index)
        if self._mines[index]:
            self._revealed[index] = True
            self._marks[index] = Mark.NONE
            self.state = "defeat"
            self.exploded = coord
            self.history.append(Action("dig", coord, 1))
            return 1
        opened = self._open(index)
        if self._safe_left == 0:
            self.state = "victory"
        self.history.append(Action("dig", coord, opened))
        return opened

    def cycle_mark(self, coordinate: Sequence[int]) -> Mark:
        """Covered -> flag -> question -> covered. Nothing on a revealed cell or after the end."""
        coord = self.geometry.check(coordinate)
        index = self.geometry.flat(coord)
        if not self.over and not self._revealed[index]:
            self._marks[index] = (self._marks[index] + 1) % 3
        self.history.append(Action("cycle", coord, int(self._marks[index])))
        return Mark(int(self._marks[index]))

    def toggle_flag(self, coordinate: Sequence[int]) -> Mark:
        """Covered <-> flag (a question mark becomes a flag): the two-state marking bots use."""
        coord = self.geometry.check(coordinate)
        index = self.geometry.flat(coord)
        if not self.over and not self._revealed[index]:
            self._marks[index] = Mark.NONE if self._marks[index] == Mark.FLAG else Mark.FLAG
        self.history.append(Action("flag", coord, int(self._marks[index])))
        return Mark(int(self._marks[index]))

    # ------------------------------------------------------------------ internals
    def _install_mines(self, mask: np.ndarray) -> None:
        self._mines = np.asarray(mask, dtype=bool).copy()
        self.mine_count = int(np.count_nonzero(self._mines))
        weights = np.where(self._mines, self._charges, 0).astype(self._numbers.dtype)
        self._numbers = self.geometry.neighbour_sum(weights)
        self._safe_left = int(np.count_nonzero(~self._mines & ~self._revealed))
        self.placed = True

    def _place_mines(self, first: int) -> None:
        """Draw the mines uniformly among the cells the first-move rule allows."""
        size = self.geometry.size
        if self.first_move == "any":
            excluded = np.empty(0, dtype=np.int64)
        elif self.first_move == "safe":
            excluded = np.array([first], dtype=np.int64)
        else:
            excluded = self.geometry.closed_neighbourhood(np.array([first]))
        ranks = np.sort(self._rng.choice(size - excluded.size, size=self.mine_count, replace=False))
        # Map ranks among allowed cells to cell indices by skipping the excluded ones.
        shifted = excluded - np.arange(excluded.size)
        cells = ranks + np.searchsorted(shifted, ranks, side="right")
        mask = np.zeros(size, dtype=bool)
        mask[cells] = True
        self._install_mines(mask)

    def _openable(self, cells: np.ndarray) -> np.ndarray:
        return cells[~self._revealed[cells] & (self._marks[cells] == Mark.NONE) & ~self._mines[cells]]

    def _open(self, index: int) -> int:
        """Reveal a safe cell and whatever the reveal rule opens with it; return the count."""
        self._revealed[index] = True
        self._marks[index] = Mark.NONE
        opened = 1
        rule = self.effective_reveal
        if rule == "ring":
            ring = self._openable(self.geometry.closed_neighbourhood(np.array([index])))
            self._revealed[ring] = True
            opened += ring.size
        elif rule == "flood" and self._numbers[index] == 0:
            opened += self._flood(np.array([index], dtype=np.int64))
        self._safe_left -= opened
        return opened

    def _flood(self, frontier: np.ndarray) -> int:
        """Open the zero region reached from the frontier (revealed zeros), and its border.

        Small regions grow frontier by frontier, in time proportional to the cells they touch.
        A region still growing after FRONTIER_STEPS steps is finished by labelling the board's
        openable zeros in one pass, which bounds the cost of long winding regions.
        """
        opened = 0
        for _ in range(FRONTIER_STEPS):
            if not frontier.size:
                return opened
            fresh = self._openable(self.geometry.closed_neighbourhood(frontier))
            self._revealed[fresh] = True
            opened += fresh.size
            frontier = fresh[self._numbers[fresh] == 0]
        if not frontier.size:
            return opened
        zeros = (self._numbers == 0) & ~self._mines & (self._marks == Mark.NONE) & ~self._revealed
        zeros[frontier] = True
        labels = self.geometry.components(zeros)
        if labels is None:  # no labelling for this board: keep stepping
            while frontier.size:
                fresh = self._openable(self.geometry.closed_neighbourhood(frontier))
                self._revealed[fresh] = True
                opened += fresh.size
                frontier = fresh[self._numbers[fresh] == 0]
            return opened
        region = np.isin(labels, np.unique(labels[frontier]))
        reach = self.geometry.dilate(region)
        fresh = np.flatnonzero(reach & ~self._revealed & (self._marks == Mark.NONE) & ~self._mines)
        self._revealed[fresh] = True
        return opened + fresh.size


# ---------------------------------------------------------------------- helpers
def _readonly(array: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
    view = array.reshape(shape).view()
    view.flags.writeable = False
    return view


def _same_shape(name: str, array: np.ndarray, shape: tuple[int, ...], dtype) -> np.ndarray:
    array = np.asarray(array)
    if array.shape != tuple(shape):
        raise ValueError(f"{name} has shape {list(array.shape)} but the board is {list(shape)}")
    return array.astype(dtype).ravel().copy()


def _draw_charges(rng: np.random.Generator, size: int, charge_range: tuple[int, int]) -> np.ndarray:
    lo, hi = charge_range  # checked by the caller
    values = np.array([v for v in range(lo, hi + 1) if v != 0], dtype=np.int8)
    return rng.choice(values, size=size)


def _charge_array(geometry: Geometry, charges: ChargeSpec, mines: np.ndarray | None) -> np.ndarray:
    """Normalise the accepted charge specifications to a validated per-cell int8 array."""
    out = np.ones(geometry.size, dtype=np.int8)
    if charges is None:
        return out
    if isinstance(charges, Mapping):
        for coord, value in charges.items():
            c = geometry.check(coord)
            out[geometry.flat(c)] = check_charge(value, f"at {list(c)}")
        return out
    array = np.asarray(charges)
    if array.shape == geometry.shape and not (mines is not None and array.ndim == 1 and len(array) == len(mines)):
        flat = array.ravel()
        if flat.dtype.kind not in "iu":
            raise ValueError("charges must be integers")
        bad = np.flatnonzero((flat == 0) | (flat < -MAX_CHARGE) | (flat > MAX_CHARGE))
        if bad.size:
            where = list(geometry.unflat(int(bad[0])))
            check_charge(int(flat[bad[0]]), f"at {where}")
        return flat.astype(np.int8)
    if mines is None or array.ndim != 1 or len(array) != len(mines):
        raise ValueError("charges must be a mapping {coordinate: charge}, one charge per mine, or a board-shaped array")
    if array.size and array.dtype.kind not in "iu":
        for index, value in zip(mines.tolist(), array.tolist()):
            check_charge(value, f"of mine {list(geometry.unflat(index))}")
    bad = np.flatnonzero((array == 0) | (array < -MAX_CHARGE) | (array > MAX_CHARGE))
    if bad.size:
        check_charge(int(array[bad[0]]), f"of mine {list(geometry.unflat(int(mines[bad[0]])))}")
    out[mines] = array.astype(np.int8)
    return out
