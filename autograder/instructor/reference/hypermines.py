"""Reference solution of the N-D step (notebook 04-nd-dig): HyperMines in plain Python.

The board of a game in N dimensions is a nested list N levels deep. Every helper below works on
such nested lists by recursion on the first axis: handle one axis, hand the remaining axes to a
recursive call. No itertools and no numpy, so the solution reads like what a student writes.

The public API is the 6.009 one: ``HyperMinesGame(dimensions, bombs)`` with the attributes
``dimensions``, ``board``, ``mask`` and ``state``, and the methods ``dig``, ``render`` and ``dump``.
``dig`` and ``render`` read nothing but those four attributes, so a grader may overwrite them.

Two keyword-only options let the kit cross-check its vectorised engine on richer rule sets:

* ``torus=True``: every axis wraps around. Neighbours are deduplicated, so on an axis of size 2 a
  cell has one neighbour along that axis, and on an axis of size 1 none.
* ``charges``: each bomb's charge, a nonzero integer in [-10, 10] (default 1). A cell's number is
  the sum of its neighbouring bombs' charges, so it can be 0 or negative next to bombs, or have
  two digits; ``render`` shows it as ``str(number)``. Because a 0 no longer means "no bomb
  around", a game with any charge other than 1 never floods: a dig opens the dug cell only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

BOMB = "."
HIDDEN = "_"
ZERO = " "
MIN_CHARGE, MAX_CHARGE = -10, 10

Coordinates = tuple[int, ...]


# -- Nested lists in N dimensions ---------------------------------------------------------------


def make_board(dimensions: Sequence[int], elem: Any) -> Any:
    """A nested list of the given dimensions filled with ``elem``.

    Each level is built by its own recursive call, so no two inner lists are the same object
    (``[[elem] * 3] * 2`` would alias its rows: setting one cell would change two).
    """
    if not dimensions:
        return elem
    return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]


def get_coords(board: Any, coordinates: Sequence[int]) -> Any:
    """The value stored at ``coordinates``: index the first axis, then look up the rest."""
    if not coordinates:
        return board
    return get_coords(board[coordinates[0]], coordinates[1:])


def set_coords(board: Any, coordinates: Sequence[int], value: Any) -> None:
    """Store ``value`` at ``coordinates``, in place."""
    if len(coordinates) == 1:
        board[coordinates[0]] = value
    else:
        set_coords(board[coordinates[0]], coordinates[1:], value)


def all_coords(dimensions: Sequence[int]) -> list[Coordinates]:
    """Every coordinate of a board, in row-major order (the last axis changes fastest).

    The coordinates of ``[a, b, c]`` are each ``x`` in ``range(a)`` put in front of each
    coordinate of ``[b, c]``.
    """
    if not dimensions:
        return [()]
    rest = all_coords(dimensions[1:])
    return [(x,) + tail for x in range(dimensions[0]) for tail in rest]


def axis_neighbourhood(size: int, x: int, torus: bool = False) -> list[int]:
    """The positions within one step of ``x`` on an axis of ``size`` cells, ``x`` included.

    On a torus the axis wraps; the positions are deduplicated, so a small axis does not count the
    same cell twice (size 2: ``x`` and the other cell; size 1: only ``x``).
    """
    if torus:
        return sorted({(x - 1) % size, x, (x + 1) % size})
    return [p for p in (x - 1, x, x + 1) if 0 <= p < size]


def neighbourhood(dimensions: Sequence[int], coordinates: Sequence[int], torus: bool = False) -> list[Coordinates]:
    """The cells within one step of ``coordinates`` on every axis, the cell itself included.

    One axis at a time: each nearby position on the first axis combined with each nearby cell
    of the remaining axes.
    """
    if not dimensions:
        return [()]
    rest = neighbourhood(dimensions[1:], coordinates[1:], torus)
    return [(p,) + tail for p in axis_neighbourhood(dimensions[0], coordinates[0], torus) for tail in rest]


def neighbors(dimensions: Sequence[int], coordinates: Sequence[int], torus: bool = False) -> list[Coordinates]:
    """The neighbours of a cell: every cell differing by at most 1 on each axis, never itself."""
    here = tuple(coordinates)
    return [cell for cell in neighbourhood(dimensions, coordinates, torus) if cell != here]


def new_board(
    dimensions: Sequence[int],
    bombs: Sequence[Sequence[int]],
    charges: Mapping[Coordinates, int] | None = None,
    torus: bool = False,
) -> Any:
    """A HyperMines board: ``'.'`` for a bomb, else the sum of its neighbouring bombs' charges.

    Without ``charges`` every bomb counts 1, so a number is simply how many bombs are around.
    Each distinct bomb adds its charge to every safe neighbour: work proportional to the bombs,
    not to the whole board.
    """
    board = make_board(dimensions, 0)
    distinct = {tuple(bomb) for bomb in bombs}
    for bomb in distinct:
        set_coords(board, bomb, BOMB)
    for bomb in distinct:
        charge = 1 if charges is None else charges[bomb]
        for cell in neighbors(dimensions, bomb, torus):
            value = get_coords(board, cell)
            if value != BOMB:
                set_coords(board, cell, value + charge)
    return board


def all_safe_revealed(board: Any, mask: Any) -> bool:
    """True when every cell that is not a bomb is revealed (walks board and mask together)."""
    if isinstance(board, list):
        return all(all_safe_revealed(b, m) for b, m in zip(board, mask))
    return board == BOMB or mask


# -- The game -----------------------------------------------------------------------------------


class HyperMinesGame:
    """A game of Mines in any number of dimensions, in the 6.009 API."""

    def __init__(
        self,
        dimensions: Sequence[int],
        bombs: Sequence[Sequence[int]],
        *,
        torus: bool = False,
        charges: Mapping[Sequence[int], int] | Sequence[int] | None = None,
    ) -> None:
        """Start a game with every cell covered.

        ``bombs`` lists the bombs' coordinates. ``charges`` is either a list with one charge per
        entry of ``bombs`` or a mapping from a bomb's coordinates to its charge.
        """
        dimensions = list(dimensions)
        if not dimensions or any(not isinstance(n, int) or n < 1 for n in dimensions):
            raise ValueError(f"dimensions must be a non-empty list of positive ints, got {dimensions}")
        for bomb in bombs:
            if len(bomb) != len(dimensions) or not all(0 <= x < n for x, n in zip(bomb, dimensions)):
                raise ValueError(f"bomb {list(bomb)} is not a cell of a {dimensions} board")
        self.torus = bool(torus)
        self.charges = _charge_table(bombs, charges)
        self.dimensions = dimensions
        self.board = new_board(dimensions, bombs, self.charges, self.torus)
        self.mask = make_board(dimensions, False)
        self.state = "ongoing"

    def floods(self) -> bool:
        """Whether revealing a 0 opens its neighbours: only when every charge is 1.

        With mixed charges a 0 can sit next to bombs whose charges cancel out, so opening its
        neighbours automatically could explode one.
        """
        return self.charges is None or all(c == 1 for c in self.charges.values())

    def dig(self, coordinates: Sequence[int]) -> int:
        """Reveal the cell at ``coordinates``; return how many cells this newly revealed.

        Nothing happens (0) once the game is over or when the cell is already revealed. A bomb
        is revealed, ends the game in defeat and counts 1. A safe cell showing 0 also reveals its
        neighbours, and so on outwards (see ``floods``); the flood keeps an explicit list of cells
        still to open instead of recursing, so a large empty region cannot exhaust Python's call
        stack. Revealing the last safe cell wins.
        """
        if self.state != "ongoing" or get_coords(self.mask, coordinates):
            return 0
        if get_coords(self.board, coordinates) == BOMB:
            set_coords(self.mask, coordinates, True)
            self.state = "defeat"
            return 1
        flood = self.floods()
        revealed = 0
        to_open = [tuple(coordinates)]
        while to_open:
            cell = to_open.pop()
            if get_coords(self.mask, cell) or get_coords(self.board, cell) == BOMB:
                continue
            set_coords(self.mask, cell, True)
            revealed += 1
            if flood and get_coords(self.board, cell) == 0:
                for neighbour in neighbors(self.dimensions, cell, self.torus):
                    if not get_coords(self.mask, neighbour):
                        to_open.append(neighbour)
        if all_safe_revealed(self.board, self.mask):
            self.state = "victory"
        return revealed

    def render(self, xray: bool = False) -> Any:
        """The board as the player sees it: a nested list of one-character-or-more strings.

        ``'_'`` a covered cell (unless ``xray``, which shows every cell), ``'.'`` a bomb,
        ``' '`` a 0, otherwise ``str(number)`` (with charges: possibly ``'-3'`` or ``'12'``).
        """
        return _render(self.board, self.mask, xray)

    def dump(self) -> None:
        """Print the game's four attributes, one slice of the first axis a line."""
        print(f"dimensions: {self.dimensions}")
        print("board:", "\n       ".join(str(part) for part in self.board))
        print("mask: ", "\n       ".join(str(part) for part in self.mask))
        print(f"state: {self.state}")

    @classmethod
    def from_dict(cls, d: Mapping[str, Any]) -> HyperMinesGame:
        """A game whose four attributes are those of the dictionary ``d`` (the handout's tests build
        games so); no torus, every charge 1."""
        game = cls.__new__(cls)
        game.torus, game.charges = False, None
        for name in ("dimensions", "board", "state", "mask"):
            setattr(game, name, d[name])
        return game


def _render(board: Any, mask: Any, xray: bool) -> Any:
    if isinstance(board, list):
        return [_render(b, m, xray) for b, m in zip(board, mask)]
    if not (mask or xray):
        return HIDDEN
    if board == BOMB:
        return BOMB
    return ZERO if board == 0 else str(board)


def _charge_table(
    bombs: Sequence[Sequence[int]],
    charges: Mapping[Sequence[int], int] | Sequence[int] | None,
) -> dict[Coordinates, int] | None:
    """Each bomb's charge keyed by its coordinates, checked; None when no charges were given."""
    if charges is None:
        return None
    if isinstance(charges, Mapping):
        table = {tuple(cell): charge for cell, charge in charges.items()}
        missing = [list(b) for b in bombs if tuple(b) not in table]
        if missing:
            raise ValueError(f"charges give no charge for the bombs {missing}")
    else:
        if len(charges) != len(bombs):
            raise ValueError(f"charges has {len(charges)} entries for {len(bombs)} bombs")
        table = {}
        for bomb, charge in zip(bombs, charges):
            if table.get(tuple(bomb), charge) != charge:
                raise ValueError(f"bomb {list(bomb)} is listed twice with different charges")
            table[tuple(bomb)] = charge
    bomb_cells = {tuple(b) for b in bombs}
    for cell, charge in table.items():
        if cell not in bomb_cells:
            raise ValueError(f"charges name the cell {list(cell)}, which is not a bomb")
        if isinstance(charge, bool) or not isinstance(charge, int):
            raise ValueError(f"the charge of bomb {list(cell)} must be an int, got {charge!r}")
        if charge == 0 or not MIN_CHARGE <= charge <= MAX_CHARGE:
            raise ValueError(
                f"the charge of bomb {list(cell)} must be nonzero in [{MIN_CHARGE}, {MAX_CHARGE}], got {charge}"
            )
    return table
