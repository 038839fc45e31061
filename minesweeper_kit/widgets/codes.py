"""The widget cell codes: what one cell of a board shows, as one int32, and how they travel.

An open cell holds its number (any int above :data:`FACE_BASE`, negative with charges); every other
face is a :class:`CellCode` at or below it. Every widget sends a board as these codes, int32
little-endian in row-major order (:func:`encode_cells`), and nothing else. The engine's
:class:`~minesweeper_kit.game.Face` is mapped onto them here and only here (:data:`FACE_CODES`).

The front end repeats the values (JavaScript cannot import them); tests/widgets/test_cell_codes.py
fails when the two disagree.
"""

from __future__ import annotations

import enum
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..game import Face

FACE_BASE = -(1 << 30)  # far below any count a cell can show, so numbers and faces never meet


class CellCode(enum.IntEnum):
    """The codes of the faces that are not an open cell's number."""

    COVERED = FACE_BASE - 1
    FLAG = FACE_BASE - 2
    QUESTION = FACE_BASE - 3
    MINE = FACE_BASE - 4
    EXPLODED = FACE_BASE - 5
    WRONG_FLAG = FACE_BASE - 6


# The engine's faces as cell codes; Face.OPEN shows the cell's number instead.
FACE_CODES: dict[Face, CellCode] = {
    Face.COVERED: CellCode.COVERED,
    Face.FLAG: CellCode.FLAG,
    Face.QUESTION: CellCode.QUESTION,
    Face.MINE: CellCode.MINE,
    Face.EXPLODED: CellCode.EXPLODED,
    Face.WRONG_FLAG: CellCode.WRONG_FLAG,
}
_FACE_TABLE = np.array([FACE_CODES.get(face, 0) for face in Face], dtype=np.int32)

BOARD_STATES = ("ongoing", "victory", "defeat")


@dataclass
class BoardView:
    """What a player sees and a widget sends: one cell code per cell, the state, the mines left."""

    cells: np.ndarray
    state: str
    mines_left: int


def is_open(cells: np.ndarray) -> np.ndarray:
    """Where the cells show a number (every code above FACE_BASE)."""
    return np.asarray(cells) > FACE_BASE


def face_codes(faces: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Faces (``Face`` values) and numbers as cell codes: an open cell's code is its number."""
    faces = np.asarray(faces)
    return np.where(faces == Face.OPEN, np.asarray(numbers), _FACE_TABLE[faces]).astype(np.int32)


def engine_codes(game: Any) -> np.ndarray:
    """The view of an engine game as cell codes, end view included."""
    return face_codes(game.faces(), game.numbers)


def full_board_codes(mine_mask: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    """Every cell uncovered (the x-ray): a mine's code where there is one, else the number."""
    return np.where(np.asarray(mine_mask, dtype=bool), np.int32(CellCode.MINE), np.asarray(numbers)).astype(np.int32)


def encode_cells(cells: np.ndarray | None) -> bytes:
    """Cell codes on the wire: int32 little-endian, row-major (no cells: no bytes)."""
    if cells is None:
        return b""
    return np.ascontiguousarray(cells, dtype="<i4").tobytes()


def decode_cells(data: bytes, shape: Sequence[int]) -> np.ndarray:
    """The inverse of :func:`encode_cells`, for tests and tools reading a widget's state."""
    return np.frombuffer(data, dtype="<i4").reshape(tuple(shape))
