"""Pictures of a game for people: the terminal picture and its symbols.

The 6.009 nested-list render is a format, not a picture: it lives in `formats/mit6009.py`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from .game import Face, Game

# Terminal symbols (ASCII, so every terminal shows them).
TERMINAL_SYMBOLS = {
    Face.COVERED: "#",
    Face.FLAG: "F",
    Face.QUESTION: "?",
    Face.MINE: "*",
    Face.EXPLODED: "X",
    Face.WRONG_FLAG: "x",
}
ZERO_SYMBOL = "."

_ANSI = {
    "F": "\033[1;31m",
    "?": "\033[35m",
    "*": "\033[1m",
    "X": "\033[1;41m",
    "x": "\033[31m",
    "1": "\033[34m",
    "2": "\033[32m",
    "3": "\033[31m",
    "4": "\033[35m",
    "#": "\033[2m",
}
_RESET = "\033[0m"


class ViewLike(Protocol):
    """What `view_picture` reads of a bot's view (`bots.view.BotView` has it all)."""

    shape: tuple[int, ...]
    mines: int
    grid: np.ndarray
    torus: bool

    @property
    def unknown(self) -> np.ndarray:
        """Covered, unflagged cells."""
        ...

    @property
    def flagged(self) -> np.ndarray:
        """Flagged cells."""
        ...

    @property
    def opened(self) -> np.ndarray:
        """Open cells, whose `grid` value is their number."""
        ...


def cell_text(face: int, number: int) -> str:
    """One cell as the terminal shows it, so every picture uses the same symbols."""
    if face == Face.OPEN:
        return ZERO_SYMBOL if number == 0 else str(number)
    return TERMINAL_SYMBOLS[Face(face)]


def terminal_render(game: Game, *, xray: bool = False, color: bool = False) -> str:
    """A game as a readable picture: one grid per 2-D slice, axis labels on the edges.

    `xray` shows every mine and number (used at the end of a terminal game).
    """
    faces = game.faces()
    numbers = game.numbers
    if xray:
        faces = np.where(game.mines, np.where(faces == Face.EXPLODED, Face.EXPLODED, Face.MINE), Face.OPEN)
    return picture(faces, numbers, color=color)


def view_picture(view: ViewLike, *, color: bool = False) -> str:
    """A bot's view as the same picture as a game, then a line with the mines, flags and torus.

    A human playing through the bot interface (`bots.simple.HumanBot`) sees what `mines play`
    shows, with the same symbols, on boards of any number of axes.
    """
    opened = np.asarray(view.opened)
    faces = np.full(view.shape, Face.COVERED, dtype=np.uint8)
    faces[np.asarray(view.flagged)] = Face.FLAG
    faces[opened] = Face.OPEN
    numbers = np.where(opened, view.grid, 0)
    status = f"mines {view.mines}, flags {int(np.count_nonzero(view.flagged))}" + (", torus" if view.torus else "")
    return picture(faces, numbers, color=color) + status + "\n"


def picture(faces: np.ndarray, numbers: np.ndarray, *, color: bool = False) -> str:
    """`Face` codes and numbers of one shape drawn as text: the one drawing every picture shares.

    One grid per 2-D slice of the last two axes, each headed by its index on the others; a
    1-D board is one row. `color` adds ANSI colours for terminals that show them.
    """
    faces = np.asarray(faces)
    numbers = np.asarray(numbers)
    shape = faces.shape
    cells = np.vectorize(cell_text, otypes=[object])(faces, numbers) if faces.size else np.empty(shape, object)
    width = max((len(s) for s in cells.ravel()), default=1)
    if len(shape) == 1:
        cells = cells.reshape(1, shape[0])
        blocks = [((), cells)]
    else:
        blocks = [(index, cells[index]) for index in np.ndindex(*shape[:-2])]
    out = []
    for index, grid in blocks:
        head = "slice [" + ", ".join(str(i) for i in index) + ", :, :]\n" if index else ""
        out.append(head + _grid(grid, width, color, one_d=len(shape) == 1))
    return "\n\n".join(out) + "\n"


def _grid(grid: np.ndarray, width: int, color: bool, one_d: bool) -> str:
    rows, cols = grid.shape
    label = 0 if one_d else len(str(rows - 1))
    col_w = max(width, len(str(cols - 1)))
    lines = [" " * (label + 1) + " ".join(str(c).rjust(col_w) for c in range(cols))]
    for r in range(rows):
        cells = []
        for c in range(cols):
            text = grid[r, c].rjust(col_w)
            if color and grid[r, c] in _ANSI:
                text = _ANSI[grid[r, c]] + text + _RESET
            cells.append(text)
        lines.append(("" if one_d else str(r).rjust(label)) + " " + " ".join(cells))
    return "\n".join(lines)
