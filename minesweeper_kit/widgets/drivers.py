"""Drivers: what a board widget plays, behind one small protocol.

A driver owns one game and answers four things: start a new game, dig a cell, cycle a cell's mark,
and give the current view. The board widget only talks to drivers, so the same widget plays the
kit's engine, a student's 6.009-style class, a student's plain functions, the neighbours step's
text game, or the flood-fill step's ``MineField``/``VisibleField`` classes.

For student code the driver chooses the mines itself (seeded, never under the first dig) and hands
them to the student's code; it also keeps a reference game of the kit's engine on the same mines,
so the widget can outline the cells where the student's view differs from the engine's.
Every call into student code goes through :func:`call_student`, which turns any exception into a
:class:`StudentCodeError` naming the student's own innermost frame.
"""

from __future__ import annotations

import contextlib
import io
import linecache
import math
import os
import sys
import sysconfig
import tempfile
import traceback
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, cast

import numpy as np

from ..geometry import Geometry, validate_shape
from ..rules import Rules

Coord = tuple[int, ...]

# Cell codes of a view. An open cell holds its number (any int above FACE_BASE); every other face
# is a code at or below FACE_BASE. The front end (static/board.js) repeats them, and
# tests/widgets/test_cell_codes.py checks that the two agree.
FACE_BASE = -(1 << 30)
COVERED = FACE_BASE - 1
FLAG = FACE_BASE - 2
QUESTION = FACE_BASE - 3
MINE = FACE_BASE - 4
EXPLODED = FACE_BASE - 5
WRONG_FLAG = FACE_BASE - 6

STATES = ("ongoing", "victory", "defeat")


@dataclass
class View:
    """What a player sees: one int32 code per cell (see the constants above), state, mines left."""

    cells: np.ndarray
    state: str
    mines_left: int


class Driver(Protocol):
    """The protocol every driver follows."""

    name: str
    shape: Coord
    mines: int
    torus: bool
    game: Any
    can_compare: bool

    @property
    def seed(self) -> int | None: ...

    def new_game(self, seed: int | None = None) -> None: ...

    def dig(self, at: Coord) -> int: ...

    def mark(self, at: Coord) -> None: ...

    def view(self) -> View: ...

    def xray(self) -> np.ndarray | None: ...

    def reference(self) -> np.ndarray | None: ...


# --------------------------------------------------------------------------------------------
# Student errors


class StudentCodeError(Exception):
    """An exception raised inside student code, with the student's own innermost frame."""

    def __init__(self, error: BaseException, *, calling: str) -> None:
        self.error = error
        self.calling = calling
        self.message = f"{type(error).__name__}: {error}"
        self.filename, self.where, self.line, self.code = _student_frame(error.__traceback__)
        super().__init__(f"{calling}: {self.message}")

    def as_dict(self) -> dict[str, Any]:
        return {
            "message": self.message,
            "calling": self.calling,
            "where": self.where,
            "line": self.line,
            "code": self.code,
        }


_KIT_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
_LIBRARY_DIRS = tuple(
    {os.path.abspath(p) for k in ("stdlib", "platstdlib", "purelib", "platlib") if (p := sysconfig.get_paths().get(k))}
)


def _is_student_file(filename: str) -> bool:
    if filename.startswith("<frozen") or filename.startswith("<string"):
        return False
    path = os.path.abspath(filename)
    return not (path.startswith(_KIT_DIR + os.sep) or path.startswith(_LIBRARY_DIRS))


def _cell_label(filename: str) -> str:
    """'cell In[7]' for a notebook cell when IPython knows it, else the file name."""
    ipython = sys.modules.get("IPython")
    shell = ipython.get_ipython() if ipython is not None else None
    if shell is not None:
        number = getattr(shell.compile, "_filename_map", {}).get(filename)
        if number is not None:
            return f"cell In[{number}]"
    return filename


def _student_frame(tb) -> tuple[str, str, int, str]:
    frames = traceback.extract_tb(tb)
    chosen = None
    for frame in frames:
        if _is_student_file(frame.filename):
            chosen = frame
    if chosen is None and frames:
        chosen = frames[-1]
    if chosen is None:
        return "", "", 0, ""
    code = (chosen.line or linecache.getline(chosen.filename, chosen.lineno or 0)).strip()
    return chosen.filename, _cell_label(chosen.filename), chosen.lineno or 0, code


def call_student(what: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call student code; any exception comes back as a StudentCodeError."""
    try:
        return function(*args, **kwargs)
    except Exception as error:  # student code may raise anything
        raise StudentCodeError(error, calling=what) from error


# --------------------------------------------------------------------------------------------
# Helpers shared by drivers


def _check_game(shape: Sequence[int], mines: int) -> Coord:
    """The shape (checked by geometry.py) of a game whose first dig is always safe."""
    checked = validate_shape(shape)
    cells = math.prod(checked)
    if not 0 <= mines <= cells - 1:
        raise ValueError(f"mines must be between 0 and {cells - 1} for shape {checked}, got {mines}")
    return checked


def _flatten(nested: Any, shape: Coord, what: str) -> list[Any]:
    """Row-major list of the leaves of a nested list of the given shape (ValueError otherwise)."""
    out: list[Any] = []

    def walk(node: Any, depth: int) -> None:
        if depth == len(shape):
            out.append(node)
            return
        if not isinstance(node, (list, tuple)) or len(node) != shape[depth]:
            got = len(node) if isinstance(node, (list, tuple)) else type(node).__name__
            raise ValueError(
                f"{what} should be nested lists of shape {shape}; axis {depth} has {got} instead of {shape[depth]}"
            )
        for child in node:
            walk(child, depth + 1)

    walk(nested, 0)
    return out


def _engine():
    import minesweeper_kit as kit

    return kit


def engine_codes(game: Any) -> np.ndarray:
    """The view of an engine game as cell codes, end view included."""
    Face = _engine().Face
    faces = np.asarray(game.faces())
    numbers = np.asarray(game.numbers)
    cells = np.full(faces.shape, COVERED, dtype=np.int32)
    for face, code in (
        ("FLAG", FLAG),
        ("QUESTION", QUESTION),
        ("MINE", MINE),
        ("EXPLODED", EXPLODED),
        ("WRONG_FLAG", WRONG_FLAG),
    ):
        cells[faces == int(getattr(Face, face))] = code
    open_ = faces == int(Face.OPEN)
    cells[open_] = numbers[open_]
    return cells


def _full_board_codes(shape: Coord, mine_mask: np.ndarray, numbers: np.ndarray) -> np.ndarray:
    cells = numbers.astype(np.int32).reshape(shape)
    cells[mine_mask.reshape(shape)] = MINE
    return cells


# --------------------------------------------------------------------------------------------
# The kit's engine


class EngineDriver:
    """Plays the kit's own engine (``minesweeper_kit.Game``)."""

    can_compare = False

    def __init__(self, rules: Rules | None = None, *, seed: int | None = None, game: Any = None) -> None:
        self.name = "engine"
        if game is None and rules is None:
            raise ValueError("give the rules of a game (or a shape and a number of mines), or a game")
        self.rules = rules if rules is not None else Rules.of_game(game)
        self.game = game if game is not None else self.rules.new_game(seed)
        self._read_game()

    def _read_game(self) -> None:
        g = self.game
        self.shape = tuple(g.shape)
        self.mines = int(g.mine_count)
        self.torus = bool(g.torus)
        self.seed = g.seed

    def new_game(self, seed: int | None = None) -> None:
        """Start again under the same rules (a game handed in: the rules it was made with)."""
        self.game = self.rules.new_game(seed)
        self._read_game()

    def dig(self, at: Coord) -> int:
        return int(self.game.dig(tuple(at)))

    def mark(self, at: Coord) -> None:
        self.game.cycle_mark(tuple(at))

    def view(self) -> View:
        return View(engine_codes(self.game), str(self.game.state), int(self.game.mines_left))

    def xray(self) -> np.ndarray | None:
        if not self.game.placed:
            return None
        return _full_board_codes(self.shape, np.asarray(self.game.mines), np.asarray(self.game.numbers))

    def reference(self) -> np.ndarray | None:
        return None


# --------------------------------------------------------------------------------------------
# Student code


class StudentDriver:
    """What every student driver shares: seeded mines, widget-side marks, the engine reference.

    Subclasses implement ``_start(mine_list)``, ``_dig(at)``, ``_student_view()`` returning
    (cells, state, mines_left or None), and optionally ``_mark(at)`` when the student's code has
    marks of its own (``native_marks = True``).
    """

    native_marks = False
    can_compare = True
    flood = True

    def __init__(self, shape: Sequence[int], mines: int, seed: int | None = None, name: str = "student code") -> None:
        self.shape = _check_game(shape, mines)
        self.geometry = Geometry(self.shape)
        self.mines = int(mines)
        self.torus = False
        self.name = name
        self.new_game(seed)

    # ---- protocol
    def new_game(self, seed: int | None = None) -> None:
        if seed is None:
            seed = int(cast(int, np.random.SeedSequence().entropy) % (1 << 53))
        self.seed = int(seed)
        self.game: Any = None
        self.mine_list: list[Coord] | None = None
        self._marks = np.zeros(self.shape, dtype=np.int8)  # 0 none, 1 flag, 2 question
        self._reference: Any = None
        self._lost_at: Coord | None = None

    def dig(self, at: Coord) -> int:
        at = self.geometry.check(at)
        if self.game is None:
            mine_list = self._place_mines(at)
            self._reference = self._make_reference()
            self.game = self._start(mine_list)
        if not self.native_marks and self._marks[at] == 1:
            return 0
        revealed = self._dig(at)  # first: when student code raises, nothing else moves
        if self._reference is not None:
            try:
                self._reference.dig(at)
            except Exception:  # noqa: BLE001 - the reference stops following; the student's game goes on
                self._reference = None
        if self._is_mine(at) and self._lost_at is None:
            self._lost_at = at
        if not self.native_marks:
            self._marks[self._open_mask()] = 0  # the student's flood may open marked cells
        return int(revealed) if revealed is not None else 0

    def mark(self, at: Coord) -> None:
        at = self.geometry.check(at)
        if self.game is not None and self.native_marks:
            self._mark(at)
            if self._reference is not None:
                self._reference.cycle_mark(at)
            return
        if self.game is not None and self._open_mask()[at]:
            return
        if self._finished():
            return
        self._marks[at] = (self._marks[at] + 1) % 3

    def view(self) -> View:
        if self.game is None:
            cells = np.full(self.shape, COVERED, dtype=np.int32)
            cells[self._marks == 1] = FLAG
            cells[self._marks == 2] = QUESTION
            return View(cells, "ongoing", self.mines - int((self._marks == 1).sum()))
        cells, state, mines_left = self._student_view()
        if state not in STATES:
            raise StudentCodeError(ValueError(f"state should be one of {STATES}, got {state!r}"), calling="state")
        if not self.native_marks:
            covered = cells == COVERED
            cells[covered & (self._marks == 1)] = FLAG
            cells[covered & (self._marks == 2)] = QUESTION
            mines_left = self.mines - int((self._marks == 1).sum())
            cells = self._end_view(cells, state)
        elif mines_left is None:
            raise TypeError("a driver with marks of its own counts the mines left itself")
        return View(cells, state, int(mines_left))

    def xray(self) -> np.ndarray | None:
        if self.mine_list is None:
            return None
        reference = self._make_reference()
        if reference is None:
            return None
        mask = np.zeros(self.shape, dtype=bool)
        for at in self.mine_list:
            mask[at] = True
        return _full_board_codes(self.shape, mask, np.asarray(reference.numbers))

    def reference(self) -> np.ndarray | None:
        if self._reference is None:
            return None
        return engine_codes(self._reference)

    # ---- shared machinery
    def _place_mines(self, first: Coord) -> list[Coord]:
        rng = np.random.default_rng(self.seed)
        total = int(np.prod(self.shape))
        first_flat = int(np.ravel_multi_index(first, self.shape))
        choices = np.delete(np.arange(total), first_flat)
        picked = np.sort(rng.choice(choices, size=self.mines, replace=False))
        self.mine_list = [tuple(int(i) for i in np.unravel_index(f, self.shape)) for f in picked]
        self._mine_set = set(self.mine_list)
        return self.mine_list

    def _is_mine(self, at: Coord) -> bool:
        return self.mine_list is not None and at in self._mine_set

    def _make_reference(self) -> Any:
        try:
            kit = _engine()
            return kit.Game.from_mines(self.shape, self.mine_list, reveal="flood" if self.flood else "ring")
        except Exception:  # noqa: BLE001 - boards the engine refuses have no reference
            return None

    def _open_mask(self) -> np.ndarray:
        cells, _, _ = self._student_view()
        return cells > FACE_BASE

    def _finished(self) -> bool:
        if self.game is None:
            return False
        return self._student_view()[1] != "ongoing"

    def _end_view(self, cells: np.ndarray, state: str) -> np.ndarray:
        """Compose the end view from the mines the widget chose (the student's render has none)."""
        if state == "ongoing" or self.mine_list is None:
            return cells
        mask = np.zeros(self.shape, dtype=bool)
        for at in self.mine_list:
            mask[at] = True
        if state == "victory":
            cells[mask] = FLAG
            return cells
        cells[mask & ((cells == COVERED) | (cells == QUESTION))] = MINE
        cells[~mask & (cells == FLAG)] = WRONG_FLAG
        if self._lost_at is not None:
            cells[self._lost_at] = EXPLODED
        return cells

    # ---- what each subclass implements
    def _start(self, mine_list: list[Coord]) -> Any:
        raise NotImplementedError

    def _dig(self, at: Coord) -> int:
        raise NotImplementedError

    def _mark(self, at: Coord) -> None:
        raise NotImplementedError

    def _student_view(self) -> tuple[np.ndarray, str, int | None]:
        raise NotImplementedError


def _render_codes(rendered: Any, shape: Coord, what: str) -> np.ndarray:
    """A 6.009 render (``'_'`` hidden, ``'.'`` bomb, ``' '`` zero, digits) as cell codes."""
    leaves = _flatten(rendered, shape, what)
    cells = np.empty(len(leaves), dtype=np.int32)
    for i, leaf in enumerate(leaves):
        text = str(leaf)
        if text == "_":
            cells[i] = COVERED
        elif text == ".":
            cells[i] = MINE
        elif text == " ":
            cells[i] = 0
        else:
            try:
                cells[i] = int(text)
            except ValueError:
                raise ValueError(f"{what} returned {leaf!r}; expected '_', '.', ' ' or a digit") from None
    return cells.reshape(shape)


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

    def _start(self, mine_list: list[Coord]) -> Any:
        return call_student(
            getattr(self._new, "__name__", "new_game"), self._new, list(self.shape), [tuple(m) for m in mine_list]
        )

    def _dig(self, at: Coord) -> Any:
        return call_student(getattr(self._dig_fn, "__name__", "dig"), self._dig_fn, self.game, at)

    def _state(self) -> str:
        game = self.game
        if isinstance(game, dict):
            return str(game.get("state"))
        return str(getattr(game, "state", None))

    def _student_view(self) -> tuple[np.ndarray, str, int | None]:
        name = getattr(self._render, "__name__", "render")
        rendered = call_student(name, self._render, self.game, False)
        try:
            cells = _render_codes(rendered, self.shape, name)
        except ValueError as error:
            raise StudentCodeError(error, calling=name) from error
        return cells, self._state(), None


class HyperMinesDriver(FunctionsDriver):
    """Plays a 6.009-style class: ``cls(dimensions, bombs)`` with ``dig``, ``render``, ``state``."""

    def __init__(self, cls: type, shape: Sequence[int], mines: int, seed: int | None = None) -> None:
        self.cls = cls

        def dig(game: Any, at: Coord) -> Any:
            return game.dig(at)

        def render(game: Any, xray: bool = False) -> Any:
            return game.render(xray)

        # Named after the student's methods, so errors say what was called.
        dig.__name__ = f"{cls.__name__}.dig"
        render.__name__ = f"{cls.__name__}.render"
        super().__init__(cls, dig, render, shape, mines, seed, name=cls.__name__)


class NewBoardDriver(StudentDriver):
    """Plays the board a student's ``new_board(dimensions, bombs)`` builds (``'.'`` bomb, else the
    count): digging and flood fill are the widget's own, the numbers are the student's."""

    def __init__(
        self, new_board: Callable[..., Any], shape: Sequence[int], mines: int, seed: int | None = None
    ) -> None:
        self._new_board = new_board
        super().__init__(shape, mines, seed, getattr(new_board, "__name__", "new_board"))

    def _start(self, mine_list: list[Coord]) -> Any:
        name = getattr(self._new_board, "__name__", "new_board")
        board = call_student(name, self._new_board, list(self.shape), [tuple(m) for m in mine_list])
        try:
            leaves = _flatten(board, self.shape, name)
            values = np.array([MINE if v == "." else int(v) for v in leaves], dtype=np.int32)
        except (ValueError, TypeError) as error:
            raise StudentCodeError(error, calling=name) from error
        self._values = values.reshape(self.shape)
        self._open = np.zeros(self.shape, dtype=bool)
        self._state_now = "ongoing"
        return board

    def _dig(self, at: Coord) -> int:
        if self._state_now != "ongoing" or self._open[at]:
            return 0
        if self._values[at] == MINE:
            self._open[at] = True
            self._state_now = "defeat"
            return 1
        opened = 0
        stack = [at]
        while stack:
            cell = stack.pop()
            if self._open[cell] or self._marks[cell] == 1 or self._values[cell] == MINE:
                continue
            self._open[cell] = True
            opened += 1
            if self._values[cell] == 0:
                stack.extend(self.geometry.neighbours(cell))
        if not (~self._open & (self._values != MINE)).any():
            self._state_now = "victory"
        return opened

    def _student_view(self) -> tuple[np.ndarray, str, int | None]:
        cells = np.where(self._open, self._values, COVERED).astype(np.int32)
        return cells, self._state_now, None


# Status codes of the flood-fill step's VisibleField (docs/assignments.md).
_VISIBLE_FIELD_CODES = {-1: COVERED, -2: FLAG, -3: EXPLODED, -4: WRONG_FLAG, -5: MINE, -6: QUESTION}


class FieldDriver(StudentDriver):
    """Plays the flood-fill step's classes: ``MineField(mine_data)`` and ``VisibleField(field)``
    with ``uncover``, ``cycle_guess``, ``get_status``, ``num_mines_left``, ``is_game_over``."""

    native_marks = True

    def __init__(
        self, mine_field: type, visible_field: type, shape: Sequence[int], mines: int, seed: int | None = None
    ) -> None:
        if len(tuple(shape)) != 2:
            raise ValueError(f"MineField and VisibleField are 2-D; got shape {tuple(shape)}")
        self._mine_field_cls = mine_field
        self._visible_field_cls = visible_field
        super().__init__(shape, mines, seed, visible_field.__name__)

    def _start(self, mine_list: list[Coord]) -> Any:
        rows, cols = self.shape
        data = [[False] * cols for _ in range(rows)]
        for r, c in mine_list:
            data[r][c] = True
        field = call_student("MineField", self._mine_field_cls, data)
        visible = call_student("VisibleField", self._visible_field_cls, field)
        for at in zip(*np.nonzero(self._marks)):  # marks made before the first dig
            for _ in range(int(self._marks[at])):
                call_student("VisibleField.cycle_guess", visible.cycle_guess, *map(int, at))
                if self._reference is not None:
                    self._reference.cycle_mark(tuple(map(int, at)))
        return visible

    def _dig(self, at: Coord) -> int:
        before = int((self._open_mask()).sum())
        call_student("VisibleField.uncover", self.game.uncover, *at)
        return int(self._open_mask().sum()) - before

    def _mark(self, at: Coord) -> None:
        call_student("VisibleField.cycle_guess", self.game.cycle_guess, *at)

    def mark(self, at: Coord) -> None:
        at = self.geometry.check(at)
        if self.game is None:
            self._marks[at] = (self._marks[at] + 1) % 3
            return
        super().mark(at)

    def view(self) -> View:
        if self.game is None:
            return super().view()
        cells, state, mines_left = self._student_view()
        return View(cells, state, int(mines_left))

    def _student_view(self) -> tuple[np.ndarray, str, int]:
        rows, cols = self.shape
        get = self.game.get_status
        cells = np.empty(self.shape, dtype=np.int32)
        for r in range(rows):
            for c in range(cols):
                status = int(call_student("VisibleField.get_status", get, r, c))
                cells[r, c] = _VISIBLE_FIELD_CODES.get(status, status)
        over = bool(call_student("VisibleField.is_game_over", self.game.is_game_over))
        state = "ongoing"
        if over:
            state = "defeat" if (cells == EXPLODED).any() else "victory"
        left = int(call_student("VisibleField.num_mines_left", self.game.num_mines_left))
        return cells, state, left


# Functions of the text-game step (docs/assignments.md), in the order the driver calls them.
TEXT_GAME_FUNCTIONS = ("read_file", "update_grid", "make_empty_grid", "dig", "determine_game_status")


class TextGameDriver(StudentDriver):
    """Plays the 2-D text game of the neighbours step: ``read_file(path)``, ``update_grid(grid)``,
    ``make_empty_grid(grid)``, ``dig(grid, coordinate, user_view)`` with ``'a0'`` coordinates
    (column letter, row counted from the bottom) and ``determine_game_status(grid, user_view)``.

    ``functions`` is anything that holds them by name: a dict such as the notebook's
    ``globals()``, a module or a namespace. At the first dig the driver writes the mines it chose to
    a board file and hands its path to ``read_file``. The student's ``dig`` prints the view; that
    text is kept in ``printed`` (the last dig's) instead of reaching the notebook.
    """

    flood = False  # one ring of numbers per dig: the engine reference uses the same rule

    def __init__(self, functions: Any, shape: Sequence[int], mines: int, seed: int | None = None) -> None:
        if len(tuple(shape)) != 2:
            raise ValueError(f"the text game is 2-D; got shape {tuple(shape)}")
        if not 1 <= int(tuple(shape)[1]) <= 26:
            raise ValueError(f"the text game names columns a to z: at most 26 columns, got {tuple(shape)[1]}")
        self._functions = {name: _lookup(functions, name) for name in TEXT_GAME_FUNCTIONS}
        missing = [name for name, fn in self._functions.items() if not callable(fn)]
        if missing:
            raise ValueError(f"the text game needs the functions {', '.join(missing)}")
        self.printed = ""
        self._board_dir: tempfile.TemporaryDirectory | None = None
        super().__init__(shape, mines, seed, name="text game")

    def new_game(self, seed: int | None = None) -> None:
        self.printed = ""
        super().new_game(seed)

    @staticmethod
    def coordinate(at: Coord, rows: int) -> str:
        """The 'a0'-style name of a cell: (row from the top, column) on a board of `rows` rows."""
        r, c = at
        return f"{chr(ord('a') + c)}{rows - 1 - r}"

    def _call(self, name: str, *args: Any) -> Any:
        return call_student(name, self._functions[name], *args)

    def _start(self, mine_list: list[Coord]) -> Any:
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

    def _dig(self, at: Coord) -> int:
        before = int((self._cells() != COVERED).sum())
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            try:
                self._call("dig", self.game["grid"], self.coordinate(at, self.shape[0]), self.game["view"])
            finally:
                self.printed = out.getvalue()
        return int((self._cells() != COVERED).sum()) - before

    def _cells(self) -> np.ndarray:
        """The student's view as cell codes: ' ' covered, 'X' a mine, a digit an open number."""
        view = self.game["view"]
        try:
            leaves = _flatten(view, self.shape, "the view")
        except ValueError as error:
            raise StudentCodeError(error, calling="make_empty_grid") from error
        cells = np.empty(len(leaves), dtype=np.int32)
        for i, value in enumerate(leaves):
            text = str(value)
            if text == " ":
                cells[i] = COVERED
            elif text == "X":
                cells[i] = MINE
            elif text.isdigit():
                cells[i] = int(text)
            else:
                at = tuple(int(v) for v in np.unravel_index(i, self.shape))
                problem = ValueError(
                    f"the view holds {value!r} at {self.coordinate(at, self.shape[0])}; expected ' ', 'X' or a digit"
                )
                raise StudentCodeError(problem, calling="dig")
        return cells.reshape(self.shape)

    def _student_view(self) -> tuple[np.ndarray, str, int | None]:
        cells = self._cells()
        going = self._call("determine_game_status", self.game["grid"], self.game["view"])
        state = "ongoing" if going else ("defeat" if (cells == MINE).any() else "victory")
        return cells, state, None


def _lookup(functions: Any, name: str) -> Any:
    if isinstance(functions, Mapping):
        return functions.get(name)
    return getattr(functions, name, None)


def driver_for(target: Any, rules: Rules | None, seed: int | None = None) -> Driver:
    """Choose a driver for whatever the widget was given.

    Student code plays its own rules: only the shape and the mine count of `rules` reach it, so
    any other option is refused rather than silently dropped.
    """
    if target is None:
        if rules is None:
            raise ValueError("give a shape and a number of mines")
        return EngineDriver(rules, seed=seed)
    shape, mines = (rules.shape, rules.mines) if rules is not None else (None, None)
    if rules is not None and rules != Rules(rules.shape, rules.mines, first_move=rules.first_move):
        raise ValueError(
            "student code plays its own rules: give only a shape and a number of mines "
            f"(torus, charges and reveal apply to the engine), got {rules.label}"
        )
    if hasattr(target, "new_game") and hasattr(target, "view") and hasattr(target, "mark"):
        return target  # already a driver
    if hasattr(target, "faces") and hasattr(target, "cycle_mark"):
        return EngineDriver(game=target)
    if isinstance(target, type):
        if shape is None or mines is None:
            raise ValueError(f"give a shape and a number of mines to play {target.__name__}")
        return HyperMinesDriver(target, shape, mines, seed)
    if callable(target):
        if shape is None or mines is None:
            raise ValueError("give a shape and a number of mines to play new_board")
        return NewBoardDriver(target, shape, mines, seed)
    raise ValueError(
        f"cannot play {type(target).__name__}: give an engine Game, a class like "
        "HyperMinesGame, a new_board function or a driver"
    )
