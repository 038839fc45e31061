"""The 6.009 HyperMines format: its cell symbols, a game written as the lab's nested lists, and a
student's render read back; and the function APIs of MIT's later terms.

The lab shows a board of any number of axes as nested lists, one level per axis. `render` gives
one string a cell: '_' covered, '.' a bomb, ' ' zero, else the neighbour count. The `board`
attribute gives '.' for a bomb, else the count as an int. This module is the kit's one home of
those conventions: `HyperMinesGame` writes through it and the widget reads students' renders
through it.

From Spring 2020 on, 6.009 and then 6.101 (6.1010) hand out the same game as functions over a
plain dict (`new_game_2d`, `dig_2d`, `new_game_nd`, `dig_nd`, `render_nd`, ...). The terms differ
in a few names, the key that says which cells are shown, and the name of the render flag:
`FunctionAPI` describes one such API, `FUNCTION_APIS` lists them (docs/assignments.md has the
table), and `write_game` / `write_text` give a game as that API's dict and text picture.
"""

from __future__ import annotations

import numbers as _numbers
import re
from collections.abc import Sequence
from dataclasses import dataclass
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


# ---------------------------------------------------------------------- the function APIs (2020-2024)
@dataclass(frozen=True)
class FunctionAPI:
    """One term's function API of Mines: its names, its visibility key and its render flag.

    Every one of them keeps a game in a dict of four keys, changed in place: ``dimensions`` (a
    tuple), ``board`` (as `write_board`), the visibility key and ``state``. ``key`` is
    ``"mask"`` or ``"visible"`` (True: the cell is shown) or ``"hidden"`` (True: still covered).
    ``flag`` is the name of the render functions' second parameter; ``flag_keyword`` says
    whether the term's own tests pass it to the 2-D renders by name (``render_nd`` always gets it
    by position).
    """

    id: str  #: a short name of the first term, e.g. "fall2023"
    course: str  #: the course number(s), e.g. "6.101"
    terms: str  #: the terms that handed it out, e.g. "Fall 2023 to Fall 2024"
    render_2d: str  #: the 2-D render to nested lists
    text_2d: str  #: the 2-D render to one string, rows joined by newlines
    key: str
    flag: str
    flag_keyword: bool
    new_game_2d_args: tuple[str, str, str]  #: the handout's parameter names (documentation only)

    @property
    def names(self) -> tuple[str, ...]:
        """Every function the term's lab.py defines."""
        return ("new_game_2d", "dig_2d", self.render_2d, self.text_2d, "new_game_nd", "dig_nd", "render_nd")

    @property
    def hidden_key(self) -> bool:
        """Whether the visibility key is True for a covered cell (``hidden``)."""
        return self.key == "hidden"

    def describe(self) -> str:
        """The API in a few words, as feedback names it: "the 6.101 Fall 2023 to Fall 2024 API"."""
        return f"the {self.course} {self.terms} API"


#: The function APIs, oldest first. Read from each term's handed-out lab.py and test.py.
FUNCTION_APIS: tuple[FunctionAPI, ...] = (
    FunctionAPI(
        "spring2020",
        "6.009",
        "Spring 2020 to Spring 2021",
        "render_2d",
        "render_ascii",
        "mask",
        "xray",
        False,
        ("num_rows", "num_cols", "bombs"),
    ),
    FunctionAPI(
        "fall2021",
        "6.009",
        "Fall 2021",
        "render_2d_locations",
        "render_2d_board",
        "mask",
        "xray",
        True,
        ("num_rows", "num_cols", "bombs"),
    ),
    FunctionAPI(
        "spring2022",
        "6.009",
        "Spring 2022",
        "render_2d_locations",
        "render_2d_board",
        "visible",
        "xray",
        True,
        ("num_rows", "num_cols", "bombs"),
    ),
    FunctionAPI(
        "fall2022",
        "6.101",
        "Fall 2022 to Spring 2023",
        "render_2d_locations",
        "render_2d_board",
        "hidden",
        "xray",
        True,
        ("num_rows", "num_cols", "bombs"),
    ),
    FunctionAPI(
        "fall2023",
        "6.101",
        "Fall 2023 to Fall 2024",
        "render_2d_locations",
        "render_2d_board",
        "visible",
        "all_visible",
        True,
        ("nrows", "ncolumns", "mines"),
    ),
)


def function_api(api_id: str) -> FunctionAPI:
    """The function API with this id, or a ValueError listing the known ones."""
    for api in FUNCTION_APIS:
        if api.id == api_id:
            return api
    raise ValueError(f"unknown function API {api_id!r}; known: {', '.join(a.id for a in FUNCTION_APIS)}")


def write_game(game: Game, api: FunctionAPI) -> dict[str, Any]:
    """A game as the dict of ``api``: the four keys, ``dimensions`` a tuple, the visibility key
    True where a cell is shown (``mask``, ``visible``) or still covered (``hidden``)."""
    shown = game.revealed
    return {
        "dimensions": tuple(int(n) for n in game.shape),
        "board": write_board(game),
        api.key: (~shown if api.hidden_key else shown).tolist(),
        "state": game.state,
    }


def write_text(game: Game, xray: bool = False) -> str:
    """A 2-D game as the labs' text picture (`render_ascii`, `render_2d_board`): each row's cells
    as `write_render` shows them, rows joined by newlines, no newline at the end."""
    if game.ndim != 2:
        raise ValueError(f"the text picture is of 2-D games; this one has {game.ndim} axes")
    return "\n".join("".join(row) for row in write_render(game, xray))
