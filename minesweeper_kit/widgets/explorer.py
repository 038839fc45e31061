"""NeighborExplorer: click a cell and see a student's neighbours against the true set.

Each cell is coloured once per click: correct (returned and a true neighbour), missing (a true
neighbour the function left out), extra (returned but no neighbour: the cell itself, a cell too
far away, a duplicate). Cells returned outside the board cannot be drawn; they are listed instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np
import traitlets as t

from ..geometry import Geometry
from . import frontend
from .sliced import SlicedWidget
from .student import StudentCodeError, call_student, named

NOTHING, CORRECT, MISSING, EXTRA, SELECTED = 0, 1, 2, 3, 4


class NeighborExplorer(SlicedWidget):
    """``NeighborExplorer(neighbors, (4, 5))``: the student's ``neighbors(dimensions, coordinates)``
    (or ``neighbors_1d(length, x)`` when ``dimensions`` is one int) checked cell by cell.

    The function may be given by name, ``NeighborExplorer("neighbors", (4, 5))``: it is looked up
    in the notebook at every click, so the explorer shows a function not defined yet as a message
    and checks each new version of it without being made again."""

    _esm = frontend.esm("explorer")
    _css = frontend.STATIC / "board.css"

    shape = t.List(t.Int()).tag(sync=True)
    selected = t.List(t.Int()).tag(sync=True)
    marks = t.Bytes(b"").tag(sync=True)
    summary = t.Dict({}).tag(sync=True)
    error = t.Dict({}).tag(sync=True)
    cell_size = t.Int(0).tag(sync=True)
    title = t.Unicode("").tag(sync=True)

    def __init__(
        self,
        neighbors_fn: Callable[..., Any] | str,
        dimensions: int | Sequence[int],
        *,
        cell_size: int = 0,
        **kwargs: Any,
    ) -> None:
        self.one_d = isinstance(dimensions, (int, np.integer))
        shape = (int(dimensions),) if isinstance(dimensions, (int, np.integer)) else tuple(int(n) for n in dimensions)
        self.geometry = Geometry(shape)
        self.neighbors_fn = named(neighbors_fn)
        super().__init__(cell_size=cell_size, **kwargs)
        self.shape = list(shape)
        self.slice_index = [0] * max(0, len(shape) - 2)
        self.title = getattr(self.neighbors_fn, "__name__", "neighbors")
        self.marks = bytes(int(np.prod(shape)))
        self.on_msg(self._on_message)

    def select(self, at: Sequence[int]) -> dict[str, Any]:
        """Check the neighbours of one cell; returns the summary shown in the widget."""
        at = self.geometry.check(at)
        name = self.title
        marks = np.zeros(self.geometry.shape, dtype=np.uint8)
        try:
            if self.one_d:
                answer = call_student(name, self.neighbors_fn, self.geometry.shape[0], at[0])
            else:
                answer = call_student(name, self.neighbors_fn, list(self.geometry.shape), at)
            returned = [_as_coordinate(v, self.one_d) for v in answer]
        except StudentCodeError as error:
            with self.hold_sync():
                self.error = error.as_dict()
                self.selected = list(at)
                self.marks = marks.tobytes()
                self.summary = {}
            return {}
        except (TypeError, ValueError) as error:
            with self.hold_sync():
                self.error = {"message": f"{name} should return a list of coordinates: {error}"}
                self.marks = marks.tobytes()
            return {}
        true = set(self.geometry.neighbours(at))
        outside, duplicates = [], 0
        seen: set[tuple[int, ...]] = set()
        for cell in returned:
            if len(cell) != len(at) or any(not 0 <= c < n for c, n in zip(cell, self.geometry.shape)):
                outside.append(list(cell))
                continue
            if cell in seen:
                duplicates += 1
            seen.add(cell)
            marks[cell] = CORRECT if cell in true else EXTRA
        for cell in true - seen:
            marks[cell] = MISSING
        if marks[at] != EXTRA:
            marks[at] = SELECTED
        summary = {
            "correct": int((marks == CORRECT).sum()),
            "missing": int((marks == MISSING).sum()),
            "extra": int((marks == EXTRA).sum()),
            "duplicates": duplicates,
            "outside": outside,
            "expected": len(true),
        }
        with self.hold_sync():
            self.error = {}
            self.selected = list(at)
            self.marks = marks.tobytes()
            self.summary = summary
            if len(at) > 2:
                self.slice_index = list(at[:-2])
        return summary

    def _on_message(self, _widget: Any, content: dict, _buffers: list) -> None:
        if isinstance(content, dict) and content.get("action") == "select":
            try:
                self.select(content.get("at", ()))
            except ValueError as error:
                self.error = {"message": str(error)}


def _as_coordinate(value: Any, one_d: bool) -> tuple[int, ...]:
    if one_d and isinstance(value, (int, np.integer)):
        return (int(value),)
    return tuple(int(v) for v in value)
