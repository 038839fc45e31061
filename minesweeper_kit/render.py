"""Pictures of a game for people: the terminal picture and its symbols.

The 6.009 nested-list render is a format, not a picture: it lives in `formats/mit6009.py`.
"""

from __future__ import annotations

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


def cell_text(face: int, number: int) -> str:
    if face == Face.OPEN:
        return ZERO_SYMBOL if number == 0 else str(number)
    return TERMINAL_SYMBOLS[Face(face)]


def terminal_render(game: Game, *, xray: bool = False, color: bool = False) -> str:
    """A readable picture: one grid per 2-D slice, axis labels on the edges.

    `xray` shows every mine and number (used at the end of a terminal game).
    """
    faces = game.faces()
    numbers = game.numbers
    if xray:
        faces = np.where(game.mines, np.where(faces == Face.EXPLODED, Face.EXPLODED, Face.MINE), Face.OPEN)
    cells = np.vectorize(cell_text, otypes=[object])(faces, numbers) if faces.size else np.empty(faces.shape, object)
    width = max((len(s) for s in cells.ravel()), default=1)
    shape = game.shape
    if len(shape) == 1:
        cells = cells.reshape(1, shape[0])
        blocks = [((), cells)]
    else:
        blocks = [(index, cells[index]) for index in np.ndindex(*shape[:-2])]
    out = []
    for index, grid in blocks:
        if index:
            out.append("slice [" + ", ".join(str(i) for i in index) + ", :, :]")
        out.append(_grid(grid, width, color, one_d=len(shape) == 1))
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
