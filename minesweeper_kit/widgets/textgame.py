"""The driver for the neighbours step's text game (Project 10): its functions played on the board.

The student's functions keep a grid and a view of one-character strings and name cells the
Project 10 way (``'a0'``: column letter, row counted from the bottom); those names come from the
Project 10 format module, so the widget holds no copy of that format.
"""

from __future__ import annotations

import contextlib
import io
import os
import tempfile
from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np

from ..formats import project10
from ..geometry import Coordinate, validate_shape
from .codes import CellCode
from .student import MissingName, StudentCodeError, StudentDriver, StudentView, call_student, nested_leaves

# Functions of the text-game step (docs/assignments.md), in the order the driver calls them.
TEXT_GAME_FUNCTIONS = ("read_file", "update_grid", "make_empty_grid", "dig", "determine_game_status")


class TextGameDriver(StudentDriver):
    """Plays the 2-D text game of the neighbours step: ``read_file(path)``, ``update_grid(grid)``,
    ``make_empty_grid(grid)``, ``dig(grid, coordinate, user_view)`` with ``'a0'`` coordinates
    (column letter, row counted from the bottom) and ``determine_game_status(grid, user_view)``.

    ``functions`` is anything that holds them by name: a dict such as the notebook's
    ``globals()``, a module or a namespace. They are looked up by name at every call, so the board
    shows a function not written yet as a message, and plays each new version of one as soon as its
    cell has run. At the first dig the driver writes the mines it chose to
    a board file and hands its path to ``read_file``. The student's ``dig`` prints the view; that
    text is kept in ``printed`` (the last dig's) instead of reaching the notebook.
    """

    flood = False  # one ring of numbers per dig: the engine reference uses the same rule

    def __init__(self, functions: Any, shape: Sequence[int], mines: int, seed: int | None = None) -> None:
        checked = validate_shape(shape)
        if len(checked) != 2:
            raise ValueError(f"the text game is 2-D; got shape {checked}")
        rows, cols = checked
        if cols > project10.MAX_WIDTH or rows > project10.MAX_HEIGHT:
            raise ValueError(
                f"the text game names columns a to z and rows 0 to {project10.MAX_HEIGHT - 1}: at most "
                f"{project10.MAX_WIDTH} columns and {project10.MAX_HEIGHT} rows, got {cols} columns and {rows} rows"
            )
        self._functions = functions
        self.printed = ""
        self._board_dir: tempfile.TemporaryDirectory | None = None
        super().__init__(checked, mines, seed, name="text game")

    def new_game(self, seed: int | None = None) -> None:
        """Forget the game and the last printout."""
        self.printed = ""
        super().new_game(seed)

    def _name(self, at: Coordinate) -> str:
        """The Project 10 name of a cell ('a0': column letter, row counted from the bottom)."""
        row, column = at
        return project10.format_coordinate((row, column), self.shape[0])

    def _call(self, name: str, *args: Any) -> Any:
        function = _lookup(self._functions, name)
        if function is None:
            raise StudentCodeError(MissingName(name), calling=name)
        if not callable(function):
            problem = TypeError(f"{name} should be a function, not a {type(function).__name__}")
            raise StudentCodeError(problem, calling=name)
        return call_student(name, function, *args)

    def _start(self, mine_list: list[Coordinate]) -> Any:
        rows, cols = self.shape
        mines = set(mine_list)
        lines = [str(cols), str(rows)]
        lines += [", ".join("1" if (r, c) in mines else "0" for c in range(cols)) for r in range(rows)]
        if self._board_dir is None:
            self._board_dir = tempfile.TemporaryDirectory(prefix="text-game-")
        path = os.path.join(self._board_dir.name, "board.txt")
        with open(path, "w") as file:
            file.write("\n".join(lines) + "\n")
        grid = self._call("read_file", path)
        self._call("update_grid", grid)
        return {"grid": grid, "view": self._call("make_empty_grid", grid)}

    def _dig(self, at: Coordinate) -> None:
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                self._call("dig", self.game["grid"], self._name(at), self.game["view"])
            finally:
                self.printed = out.getvalue()

    def _cells(self) -> np.ndarray:
        """The student's view as cell codes: ' ' covered, 'X' a mine, a digit an open number."""
        try:
            leaves = nested_leaves(self.game["view"], self.shape, "the view")
        except ValueError as error:
            raise StudentCodeError(error, calling="make_empty_grid") from error
        cells = np.empty(len(leaves), dtype=np.int32)
        for i, value in enumerate(leaves):
            text = str(value)
            if text == " ":
                cells[i] = CellCode.COVERED
            elif text == "X":
                cells[i] = CellCode.MINE
            elif text.isdigit():
                cells[i] = int(text)
            else:
                at = tuple(int(v) for v in np.unravel_index(i, self.shape))
                name = self._name(at)
                problem = ValueError(f"the view holds {value!r} at {name}; expected ' ', 'X' or a digit")
                raise StudentCodeError(problem, calling="dig")
        return cells.reshape(self.shape)

    def _student_view(self) -> StudentView:
        cells = self._cells()
        going = self._call("determine_game_status", self.game["grid"], self.game["view"])
        state = "ongoing" if going else ("defeat" if (cells == CellCode.MINE).any() else "victory")
        return cells, state, None

    def _student_xray(self) -> np.ndarray | None:
        """The student's grid after update_grid: 'X' a mine, a digit its count (None if it holds
        anything else: the x-ray then shows the engine's numbers)."""
        try:
            leaves = nested_leaves(self.game["grid"], self.shape, "the grid")
        except ValueError:
            return None
        cells = np.empty(len(leaves), dtype=np.int32)
        for i, value in enumerate(leaves):
            text = str(value)
            if text == "X":
                cells[i] = CellCode.MINE
            elif text.isdigit():
                cells[i] = int(text)
            else:
                return None
        return cells.reshape(self.shape)


def _lookup(functions: Any, name: str) -> Any:
    if isinstance(functions, Mapping):
        return functions.get(name)
    return getattr(functions, name, None)
