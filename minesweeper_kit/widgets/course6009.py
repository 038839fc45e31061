"""Drivers for the 6.009-style steps: the student's functions, their class, or their ``new_board``.

The 6.009 API hands a game the dimensions and the mine list, digs with ``dig(game, coordinates)``
and shows it with ``render(game, xray)``; the class version has the same methods. A render is read
back into cell codes through the 6.009 format module, so the widget holds no copy of that format.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..formats.mit6009 import read_render
from ..game import Face
from ..geometry import Coordinate
from .codes import CellCode, face_codes
from .student import StudentCodeError, StudentDriver, StudentView, call_student, nested_leaves


class FunctionsDriver(StudentDriver):
    """Plays plain functions: ``new_game(dimensions, bombs)``, ``dig(game, coordinates)``,
    ``render(game, xray=False)``; the state is ``game["state"]`` or ``game.state``."""

    def __init__(
        self,
        new_game: Callable[..., Any],
        dig: Callable[..., Any],
        render: Callable[..., Any],
        shape: Sequence[int],
        mines: int,
        seed: int | None = None,
        name: str | None = None,
    ) -> None:
        self._new = new_game
        self._dig_fn = dig
        self._render = render
        super().__init__(shape, mines, seed, str(name or getattr(new_game, "__name__", "functions")))

    def _start(self, mine_list: list[Coordinate]) -> Any:
        name = getattr(self._new, "__name__", "new_game")
        return call_student(name, self._new, list(self.shape), [tuple(m) for m in mine_list])

    def _dig(self, at: Coordinate) -> Any:
        return call_student(getattr(self._dig_fn, "__name__", "dig"), self._dig_fn, self.game, at)

    def _state(self) -> str:
        game = self.game
        if isinstance(game, dict):
            return str(game.get("state"))
        return str(getattr(game, "state", None))

    def _student_view(self) -> StudentView:
        name = getattr(self._render, "__name__", "render")
        rendered = call_student(name, self._render, self.game, False)
        try:
            faces, numbers = read_render(rendered, self.shape, what=name)
        except ValueError as error:
            raise StudentCodeError(error, calling=name) from error
        return face_codes(faces, numbers), self._state(), None

    def _student_xray(self) -> np.ndarray:
        name = getattr(self._render, "__name__", "render")
        rendered = call_student(f"{name} with xray", self._render, self.game, True)
        try:
            faces, numbers = read_render(rendered, self.shape, what=f"{name}(xray=True)")
        except ValueError as error:
            raise StudentCodeError(error, calling=name) from error
        if (faces == Face.COVERED).any():
            problem = ValueError(f"{name}(xray=True) should show every cell, but it left some '_'")
            raise StudentCodeError(problem, calling=name)
        return face_codes(faces, numbers)


class HyperMinesDriver(FunctionsDriver):
    """Plays a 6.009-style class: ``cls(dimensions, bombs)`` with ``dig``, ``render``, ``state``."""

    def __init__(self, cls: type, shape: Sequence[int], mines: int, seed: int | None = None) -> None:
        self.cls = cls

        def dig(game: Any, at: Coordinate) -> Any:
            return game.dig(at)

        def render(game: Any, xray: bool = False) -> Any:
            return game.render(xray)

        # Named after the student's methods, so errors say what was called.
        dig.__name__ = f"{cls.__name__}.dig"
        render.__name__ = f"{cls.__name__}.render"
        super().__init__(cls, dig, render, shape, mines, seed, name=cls.__name__)


class NewBoardDriver(StudentDriver):
    """Plays the board a student's ``new_board(dimensions, bombs)`` builds (``'.'`` bomb, else the
    count): digging and flood fill are the widget's own, so only the numbers are the student's."""

    def __init__(
        self, new_board: Callable[..., Any], shape: Sequence[int], mines: int, seed: int | None = None
    ) -> None:
        self._new_board = new_board
        super().__init__(shape, mines, seed, getattr(new_board, "__name__", "new_board"))

    def _start(self, mine_list: list[Coordinate]) -> Any:
        name = getattr(self._new_board, "__name__", "new_board")
        board = call_student(name, self._new_board, list(self.shape), [tuple(m) for m in mine_list])
        try:
            leaves = nested_leaves(board, self.shape, name)
            values = np.array([CellCode.MINE if v == "." else int(v) for v in leaves], dtype=np.int32)
        except (ValueError, TypeError) as error:
            raise StudentCodeError(error, calling=name) from error
        self._values = values.reshape(self.shape)
        self._open = np.zeros(self.shape, dtype=bool)
        self._state_now = "ongoing"
        return board

    def _dig(self, at: Coordinate) -> int:
        if self._state_now != "ongoing" or self._open[at]:
            return 0
        if self._values[at] == CellCode.MINE:
            self._open[at] = True
            self._state_now = "defeat"
            return 1
        opened = 0
        stack = [at]
        while stack:
            cell = stack.pop()
            if self._open[cell] or self._marks[cell] == 1 or self._values[cell] == CellCode.MINE:
                continue
            self._open[cell] = True
            opened += 1
            if self._values[cell] == 0:
                stack.extend(self.geometry.neighbours(cell))
        if not (~self._open & (self._values != CellCode.MINE)).any():
            self._state_now = "victory"
        return opened

    def _student_view(self) -> StudentView:
        cells = np.where(self._open, self._values, np.int32(CellCode.COVERED)).astype(np.int32)
        return cells, self._state_now, None

    def _student_xray(self) -> np.ndarray:
        return self._values
