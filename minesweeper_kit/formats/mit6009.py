"""The 6.009 HyperMines format: its cell symbols, a game written as the lab's nested lists, and a
student's render read back.

The lab shows a board of any number of axes as nested lists, one level per axis. `render` gives
one string a cell: '_' covered, '.' a bomb, ' ' zero, else the neighbour count. The `board`
attribute gives '.' for a bomb, else the count as an int. This module is the kit's one home of
those conventions: `HyperMinesGame` writes through it and the widget reads students' renders
through it.
"""

from __future__ import annotations

import numbers as _numbers
import re
from collections.abc import Sequence
from typing import Any

import numpy as np

from ..game import Face, Game

HIDDEN = "_"
BOMB = "."
ZERO = " "

_COUNT = re.compile(r"-?[0-9]+")  # charged boards have negative and multi-digit counts
_EXPECTED = "'_', '.', ' ', a count as a digit string or an int"


def write_render(game: Game, xray: bool = False) -> list:
    """The 6.009 `render(xray)` of a game: '_' hidden, '.' bomb, ' ' zero, else the count.

    With `xray` every cell is shown. Counts of charged boards can be negative or longer than a
    digit; they are written with `str`.
    """
    numbers = game.numbers
    low = int(numbers.min(initial=0))
    texts = [ZERO if v == 0 else str(v) for v in range(low, int(numbers.max(initial=0)) + 1)]
    bomb, hidden = len(texts), len(texts) + 1
    # One shared str object per distinct value, picked by index: far cheaper than formatting
    # every cell of a large board.
    codes = (numbers - low).astype(np.intp)
    codes[game.mines] = bomb
    if not xray:
        codes[~game.revealed] = hidden
    return _lookup(texts + [BOMB, HIDDEN], codes)


def write_board(game: Game) -> list:
    """The 6.009 `board` attribute of a game: '.' for a bomb, else the neighbour count (an int)."""
    numbers = game.numbers
    low = int(numbers.min(initial=0))
    values: list = list(range(low, int(numbers.max(initial=0)) + 1))
    codes = (numbers - low).astype(np.intp)
    codes[game.mines] = len(values)
    return _lookup(values + [BOMB], codes)


def read_render(rendered: Any, shape: Sequence[int], *, what: str = "render") -> tuple[np.ndarray, np.ndarray]:
    """A student's 6.009 render read back as (faces, numbers) arrays of the board's shape.

    Faces are `Face` values: COVERED for '_', MINE for '.', OPEN otherwise; numbers hold the
    counts of open cells (0 elsewhere). Leaves may be '_', '.', ' ', digit strings ('0' and
    negative counts too) or ints. A student's render is checked, not trusted: ValueError names
    the first wrong level or leaf by its index path (`what` names the whole, e.g. the method
    called) and says what was expected there.
    """
    shape = tuple(int(n) for n in shape)
    leaves = _leaves(rendered, shape, what)
    faces = np.full(len(leaves), Face.OPEN, dtype=np.uint8)
    counts = np.zeros(len(leaves), dtype=np.int64)
    for i, (index, leaf) in enumerate(leaves):
        if isinstance(leaf, str):
            if leaf == HIDDEN:
                faces[i] = Face.COVERED
            elif leaf == BOMB:
                faces[i] = Face.MINE
            elif leaf == ZERO:
                pass
            elif _COUNT.fullmatch(leaf):
                counts[i] = int(leaf)
            else:
                raise ValueError(f"{what}{_where(index)} is {leaf!r}; expected {_EXPECTED}")
        elif isinstance(leaf, _numbers.Integral) and not isinstance(leaf, (bool, np.bool_)):
            counts[i] = int(leaf)
        else:
            raise ValueError(f"{what}{_where(index)} is {leaf!r} ({type(leaf).__name__}); expected {_EXPECTED}")
    return faces.reshape(shape), counts.reshape(shape)


def _leaves(nested: Any, shape: tuple[int, ...], what: str) -> list[tuple[tuple[int, ...], Any]]:
    """Row-major (index, leaf) pairs of nested lists of the given shape; ValueError otherwise."""
    out: list[tuple[tuple[int, ...], Any]] = []

    def walk(node: Any, index: tuple[int, ...]) -> None:
        depth = len(index)
        if depth == len(shape):
            if isinstance(node, (list, tuple)):
                raise ValueError(
                    f"{what}{_where(index)} is a {type(node).__name__} of {len(node)}; expected one cell "
                    f"({_EXPECTED}): the board has {len(shape)} axes, shape {list(shape)}"
                )
            out.append((index, node))
            return
        if not isinstance(node, (list, tuple)):
            raise ValueError(
                f"{what}{_where(index)} is {node!r} ({type(node).__name__}); expected a list of {shape[depth]} "
                f"(axis {depth} of shape {list(shape)})"
            )
        if len(node) != shape[depth]:
            raise ValueError(
                f"{what}{_where(index)} has {len(node)} entries; expected {shape[depth]} "
                f"(axis {depth} of shape {list(shape)})"
            )
        for i, child in enumerate(node):
            walk(child, (*index, i))

    walk(nested, ())
    return out


def _where(index: tuple[int, ...]) -> str:
    return "".join(f"[{i}]" for i in index)


def _lookup(table: list, codes: np.ndarray) -> list:
    """Nested lists of `table[code]`, sharing one object per table entry."""
    objects = np.empty(len(table), dtype=object)
    objects[:] = table
    return objects[codes].tolist()
