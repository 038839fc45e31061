"""Project 10's 2-D text game: its board files, `a0` coordinates and exact print format.

A board file holds the width, the height, then one row per line of comma-separated 0/1 (1 = mine),
the top row first. Coordinates name a column by letter and a row by number counted from the
bottom row (0). The dig is the `ring` rule: the cell and the numbers of its non-mine neighbours.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

from ..game import Face, Game

LETTERS = "abcdefghijklmnopqrstuvwxyz"
MAX_WIDTH = len(LETTERS)
MAX_HEIGHT = 100


def parse_board(text: str) -> list[list[bool]]:
    """The mine grid of a board file's text, top row first; ValueError names the bad line."""
    lines = [line.strip() for line in text.splitlines()]
    while lines and not lines[-1]:
        lines.pop()
    if len(lines) < 2:
        raise ValueError("a board file starts with two lines: the width, then the height")
    width, height = (_positive_int(lines[i], f"line {i + 1} ({name})") for i, name in ((0, "width"), (1, "height")))
    if width > MAX_WIDTH or height > MAX_HEIGHT:
        raise ValueError(f"boards are at most {MAX_WIDTH} wide and {MAX_HEIGHT} high, got {width}x{height}")
    rows = lines[2:]
    if len(rows) != height:
        raise ValueError(f"the height says {height} rows but the file has {len(rows)}")
    grid = []
    for number, line in enumerate(rows, start=3):
        cells = [c.strip() for c in line.split(",")]
        if len(cells) != width:
            raise ValueError(f"line {number} has {len(cells)} cells, the width says {width}")
        for cell in cells:
            if cell not in ("0", "1"):
                raise ValueError(f"line {number}: cells are 0 or 1, got {cell!r}")
        grid.append([c == "1" for c in cells])
    return grid


def read_board(path: str | Path) -> Game:
    """A ring-rule game from a board file."""
    return board_game(parse_board(Path(path).read_text()))


def board_game(grid: list[list[bool]]) -> Game:
    """A ring-rule game from a mine grid (top row first), the rule Project 10's dig follows."""
    mines = [(r, c) for r, row in enumerate(grid) for c, cell in enumerate(row) if cell]
    return Game.from_mines((len(grid), len(grid[0])), mines, reveal="ring")


def parse_coordinate(text: str, game: Game) -> tuple[int, int]:
    """`'a0'` (column a, bottom row) to the engine's (row from the top, column)."""
    height, width = game.shape
    match = re.fullmatch(r"\s*([a-zA-Z])\s*(\d+)\s*", text)
    if not match:
        raise ValueError(f"a coordinate is a column letter and a row number like 'a0', got {text!r}")
    column = LETTERS.index(match.group(1).lower())
    row = int(match.group(2))
    if column >= width or row >= height:
        last = LETTERS[width - 1]
        raise ValueError(f"{text!r} is off the board: columns a..{last}, rows 0..{height - 1}")
    return height - 1 - row, column


def format_coordinate(coordinate: tuple[int, int], board: Game | int) -> str:
    """The engine's (row from the top, column) as Project 10 names it, e.g. `'a0'`.

    `board` is the game or just its row count: rows are counted from the bottom, so the name
    depends on the height, and a widget showing a student's board has no `Game` to give.
    """
    height = board.shape[0] if isinstance(board, Game) else int(board)
    row, column = coordinate
    if not 0 <= row < height or not 0 <= column < MAX_WIDTH:
        raise ValueError(f"{tuple(coordinate)} is off a board of {height} rows and at most {MAX_WIDTH} columns")
    return f"{LETTERS[column]}{height - 1 - row}"


def render_board(game: Game) -> str:
    """The board as Project 10 prints it: labelled rows top to bottom, then the letter row."""
    height, width = game.shape
    faces = game.faces(end_view=False)
    numbers = game.numbers
    lines = []
    for r in range(height):
        cells = []
        for c in range(width):
            face = faces[r, c]
            cells.append(str(int(numbers[r, c])) if face == Face.OPEN else "X" if face == Face.MINE else " ")
        lines.append(f"{height - 1 - r:>2}" + "".join(f"[{v}]" for v in cells))
    lines.append("   " + "".join(f"{LETTERS[c]}  " for c in range(width)))
    return "\n".join(lines) + "\n"


def play_script(game: Game, moves: Iterable[str]) -> str:
    """Dig the moves while the game goes on, printing the board after each: the scripted game."""
    out = []
    for move in moves:
        if game.over:
            break
        game.dig(parse_coordinate(move, game))
        out.append(render_board(game))
    return "".join(out)


def _positive_int(text: str, where: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise ValueError(f"{where} must be a positive integer, got {text!r}")
    return int(text)
