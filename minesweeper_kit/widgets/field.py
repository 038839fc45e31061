"""The driver for the flood-fill step's classes, ``MineField`` and ``VisibleField``.

The step's ``VisibleField`` keeps its own marks and its own status codes (docs/assignments.md);
this module maps those codes onto the widget's cell codes.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from ..geometry import Coordinate, validate_shape
from .codes import CellCode
from .student import StudentDriver, StudentView, call_student, named

# Status codes of the flood-fill step's VisibleField; a number at or above 0 is an open cell's count.
VISIBLE_FIELD_CODES = {
    -1: CellCode.COVERED,
    -2: CellCode.FLAG,
    -3: CellCode.EXPLODED,
    -4: CellCode.WRONG_FLAG,
    -5: CellCode.MINE,
    -6: CellCode.QUESTION,
}


class FieldDriver(StudentDriver):
    """Plays the flood-fill step's classes: ``MineField(mine_data)`` and ``VisibleField(field)``
    with ``uncover``, ``cycle_guess``, ``get_status``, ``num_mines_left``, ``is_game_over``.

    Their marks are the student's own, so the widget hands them every mark (those made before
    the first dig too) and shows the student's count of mines left. Either class may be given by
    name (``"MineField"``): it is looked up in the notebook when a game starts.
    """

    native_marks = True

    def __init__(
        self,
        mine_field: type | str,
        visible_field: type | Callable[..., Any] | str,
        shape: Sequence[int],
        mines: int,
        seed: int | None = None,
    ) -> None:
        if len(validate_shape(shape)) != 2:
            raise ValueError(f"MineField and VisibleField are 2-D; got shape {tuple(shape)}")
        self._mine_field_cls = named(mine_field)
        self._visible_field_cls = named(visible_field)
        self._field: Any = None
        super().__init__(shape, mines, seed, self._visible_field_cls.__name__)

    def _start(self, mine_list: list[Coordinate]) -> Any:
        rows, cols = self.shape
        data = [[False] * cols for _ in range(rows)]
        for r, c in mine_list:
            data[r][c] = True
        field = self._field = call_student("MineField", self._mine_field_cls, data)
        visible = call_student("VisibleField", self._visible_field_cls, field)
        for at in zip(*np.nonzero(self._marks)):  # marks made before the first dig
            for _ in range(int(self._marks[at])):
                call_student("VisibleField.cycle_guess", visible.cycle_guess, *map(int, at))
        return visible

    def _dig(self, at: Coordinate) -> None:
        call_student("VisibleField.uncover", self.game.uncover, *at)

    def _mark(self, at: Coordinate) -> None:
        call_student("VisibleField.cycle_guess", self.game.cycle_guess, *at)

    def _student_view(self) -> StudentView:
        rows, cols = self.shape
        get = self.game.get_status
        cells = np.empty(self.shape, dtype=np.int32)
        for r in range(rows):
            for c in range(cols):
                status = int(call_student("VisibleField.get_status", get, r, c))
                cells[r, c] = VISIBLE_FIELD_CODES.get(status, status)
        over = bool(call_student("VisibleField.is_game_over", self.game.is_game_over))
        state = "ongoing"
        if over:
            state = "defeat" if (cells == CellCode.EXPLODED).any() else "victory"
        left = int(call_student("VisibleField.num_mines_left", self.game.num_mines_left))
        return cells, state, left

    def _student_xray(self) -> np.ndarray:
        """Every cell as the student's MineField tells it: a mine, or its count of adjacent mines."""
        rows, cols = self.shape
        has_mine = self._field.has_mine
        count = self._field.num_adjacent_mines
        cells = np.empty(self.shape, dtype=np.int32)
        for r in range(rows):
            for c in range(cols):
                if call_student("MineField.has_mine", has_mine, r, c):
                    cells[r, c] = CellCode.MINE
                else:
                    cells[r, c] = int(call_student("MineField.num_adjacent_mines", count, r, c))
        return cells
