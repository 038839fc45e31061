"""Student code behind a board: every call into it, the errors it raises, and what student drivers share.

Every call into student code goes through :func:`call_student`, which turns any exception into a
:class:`StudentCodeError` naming the student's own innermost frame, so the board can show the
student the line that failed rather than the kit's.

:class:`StudentDriver` chooses the mines itself (seeded, never under the first dig), hands them to
the student's code, and plays the same moves on a reference game of the kit's engine so the board
can outline where the student's view differs. The student's view is read once per action and kept
until the next one: a click costs one call of each of the student's functions, not one per reader.
"""

from __future__ import annotations

import linecache
import os
import sys
import sysconfig
import traceback
from collections.abc import Callable, Mapping, Sequence
from typing import Any, cast

import numpy as np

from ..game import Game
from ..geometry import Coordinate, Geometry, validate_shape
from ..rules import Rules
from .codes import BOARD_STATES, BoardView, CellCode, engine_codes, full_board_codes, is_open


class MissingName(NameError):
    """A name the notebook does not define (yet): its message says what to run."""

    def __init__(self, name: str) -> None:
        super().__init__(f"{name} is not defined yet: run the cell that defines it, then click again")
        self.name = name


class StudentCodeError(Exception):
    """An exception raised inside student code, with the student's own innermost frame."""

    def __init__(self, error: BaseException, *, calling: str) -> None:
        self.error = error
        self.calling = calling
        kind = "NameError" if isinstance(error, MissingName) else type(error).__name__
        self.message = f"{kind}: {error}"
        if type(error) is NameError and getattr(error, "name", None):
            self.message += " (run the cell that defines it first)"
        if isinstance(error, MissingName):  # no line of the student's to show: the name is missing
            self.filename, self.where, self.line, self.code = "", "", 0, ""
        else:
            self.filename, self.where, self.line, self.code = _student_frame(error.__traceback__)
        super().__init__(f"{calling}: {self.message}")

    def as_dict(self) -> dict[str, Any]:
        """What the board's error box shows: message, the call that failed, and the student's line."""
        return {
            "message": self.message,
            "calling": self.calling,
            "where": self.where,
            "line": self.line,
            "code": self.code,
        }


def call_student(what: str, function: Callable[..., Any], *args: Any, **kwargs: Any) -> Any:
    """Call student code; any exception comes back as a StudentCodeError calling it `what`."""
    try:
        return function(*args, **kwargs)
    except Exception as error:  # student code may raise anything
        raise StudentCodeError(error, calling=what) from error


class StudentName:
    """Student code named by a string, looked up in the notebook at every call.

    A widget given ``"new_board"`` rather than ``new_board`` works before the cell that defines it
    has run (a call shows "new_board is not defined yet" in the widget instead of a ``NameError``
    in the notebook) and follows each new version of it without being made again.
    """

    def __init__(self, name: str, namespace: Mapping[str, Any]) -> None:
        if not name.isidentifier():
            raise ValueError(f"{name!r} is not a Python name")
        self.name = self.__name__ = name
        self.namespace = namespace

    def resolve(self) -> Any:
        """What the name holds now; MissingName when the notebook does not define it."""
        try:
            return self.namespace[self.name]
        except KeyError:
            raise MissingName(self.name) from None

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        return self.resolve()(*args, **kwargs)

    def __repr__(self) -> str:
        return f"StudentName({self.name!r})"


def caller_namespace() -> Mapping[str, Any]:
    """The globals of the innermost caller outside the kit: a notebook's own namespace."""
    frame = sys._getframe(1)
    while frame.f_back is not None and not _is_student_file(frame.f_code.co_filename):
        frame = frame.f_back
    return frame.f_globals


def named(target: Any) -> Any:
    """A string becomes a StudentName looked up in the caller's namespace; anything else stays."""
    return StudentName(target, caller_namespace()) if isinstance(target, str) else target


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


def _student_frame(tb: Any) -> tuple[str, str, int, str]:
    """The innermost frame in the student's own files (else the innermost frame at all)."""
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


def nested_leaves(nested: Any, shape: Sequence[int], what: str) -> list[Any]:
    """Row-major leaves of a nested list of the given shape; ValueError naming the axis otherwise."""
    out: list[Any] = []

    def walk(node: Any, depth: int) -> None:
        if depth == len(shape):
            out.append(node)
            return
        if not isinstance(node, (list, tuple)) or len(node) != shape[depth]:
            got = len(node) if isinstance(node, (list, tuple)) else type(node).__name__
            wanted = f"{what} should be nested lists of shape {tuple(shape)}"
            raise ValueError(f"{wanted}; axis {depth} has {got} instead of {shape[depth]}")
        for child in node:
            walk(child, depth + 1)

    walk(nested, 0)
    return out


# The student's view as a subclass reads it: cell codes, state, and mines left when the code counts them.
StudentView = tuple[np.ndarray, str, int | None]


class StudentDriver:
    """What every student driver shares: seeded mines, widget-side marks, the engine reference.

    Subclasses implement ``_start(mine_list)``, ``_dig(at)`` (the cells it revealed, or None to
    have them counted), ``_student_view()`` returning (cells, state, mines_left or None), and
    ``_mark(at)`` when the student's code keeps marks of its own (``native_marks = True``).
    ``_student_xray()`` gives every cell as the student's code numbers it (None: it cannot say),
    which the x-ray shows and compare holds against the engine's, covered cells included.
    """

    native_marks = False
    can_compare = True
    flood = True
    torus = False

    def __init__(self, shape: Sequence[int], mines: int, seed: int | None = None, name: str = "student code") -> None:
        # Rules hold the mine limit of a game whose first dig is always safe.
        self.rules = Rules(validate_shape(shape), mines)
        self.shape: Coordinate = self.rules.shape
        self.mines = self.rules.mines
        self.geometry = Geometry(self.shape)
        self.name = name
        self.new_game(seed)

    # ---- the driver protocol
    def new_game(self, seed: int | None = None) -> None:
        """Forget the game; the next dig places new mines drawn from `seed` (random when None)."""
        if seed is None:
            seed = int(cast(int, np.random.SeedSequence().entropy) % (1 << 53))
        self.seed = int(seed)
        self.game: Any = None
        self.mine_list: list[Coordinate] | None = None
        self.mine_mask = np.zeros(self.shape, dtype=bool)
        self._marks = np.zeros(self.shape, dtype=np.int8)  # 0 none, 1 flag, 2 question
        self._reference: Game | None = None
        self._xray: np.ndarray | None = None
        self._lost_at: Coordinate | None = None
        self._seen: StudentView | StudentCodeError | None = None  # the view read since the last action
        self._own_xray: np.ndarray | StudentCodeError | None = None  # the student's x-ray, read likewise
        self._opened = 0  # open cells in that view

    def dig(self, at: Sequence[int]) -> int:
        """Dig as the student's code does; the first dig places the mines and starts their game."""
        cell = self.geometry.check(at)
        if self.game is None:
            self._begin(cell)
        if not self.native_marks and self._marks[cell] == 1:
            return 0
        before = self._opened
        self._forget()
        revealed = self._dig(cell)  # first: when student code raises, nothing else moves
        self._follow(cell, dig=True)
        if self.mine_mask[cell] and self._lost_at is None:
            self._lost_at = cell
        if not self.native_marks:
            self._marks[is_open(self._read()[0])] = 0  # the student's flood may open marked cells
        if revealed is None:
            self._read()
            return self._opened - before
        return int(revealed)

    def mark(self, at: Sequence[int]) -> None:
        """Cycle flag, question, covered: in the student's code when it has marks, else in the widget."""
        cell = self.geometry.check(at)
        if self.game is not None and self.native_marks:
            self._forget()
            self._mark(cell)
            self._follow(cell, dig=False)
            return
        if self.game is not None:
            cells, state, _ = self._read()
            if state != "ongoing" or is_open(cells)[cell]:
                return
        self._marks[cell] = (self._marks[cell] + 1) % 3
        self._follow(cell, dig=False)

    def view(self) -> BoardView:
        """The student's view with the widget's marks and, once the game is over, the end view."""
        if self.game is None:
            cells = self._with_marks(np.full(self.shape, CellCode.COVERED, dtype=np.int32))
            return BoardView(cells, "ongoing", self.mines - int((self._marks == 1).sum()))
        cells, state, mines_left = self._read()
        cells = cells.copy()
        if self.native_marks:
            if mines_left is None:
                raise TypeError("a driver with marks of its own counts the mines left itself")
            return BoardView(cells, state, int(mines_left))
        cells = self._end_view(self._with_marks(cells), state)
        return BoardView(cells, state, self.mines - int((self._marks == 1).sum()))

    def xray(self) -> np.ndarray | None:
        """Every cell uncovered as the student's code numbers it, read once per action (None before
        the first dig); the engine's numbers where the student's code cannot tell them."""
        if self.game is None:
            return None
        if self._own_xray is None:
            try:
                own = self._student_xray()
            except StudentCodeError as error:
                self._own_xray = error
                raise
            self._own_xray = self._xray if own is None else own.astype(np.int32)
        if isinstance(self._own_xray, StudentCodeError):
            raise self._own_xray
        return self._own_xray

    def truth(self) -> np.ndarray | None:
        """Every cell uncovered as the kit's engine numbers it (None before the first dig)."""
        return self._xray

    def reference(self) -> np.ndarray | None:
        """The engine's view after the same moves (None when the engine could not follow)."""
        return None if self._reference is None else engine_codes(self._reference)

    # ---- shared machinery
    def _begin(self, first: Coordinate) -> None:
        """Place the mines clear of the first dig, build the reference, start the student's game."""
        self.mine_list = self._place_mines(first)
        self.mine_mask[:] = False
        for at in self.mine_list:
            self.mine_mask[at] = True
        self._reference = self._make_reference(self.mine_list)
        if self._reference is not None:
            self._xray = full_board_codes(self._reference.mines, self._reference.numbers)
        self._forget()
        self._opened = 0
        self.game = self._start(self.mine_list)

    def _place_mines(self, first: Coordinate) -> list[Coordinate]:
        rng = np.random.default_rng(self.seed)
        total = int(np.prod(self.shape))
        first_flat = int(np.ravel_multi_index(first, self.shape))
        choices = np.delete(np.arange(total), first_flat)
        picked = np.sort(rng.choice(choices, size=self.mines, replace=False))
        return [tuple(int(i) for i in np.unravel_index(f, self.shape)) for f in picked]

    def _make_reference(self, mine_list: list[Coordinate]) -> Game | None:
        """The engine on the same mines, with the marks made before the first dig."""
        try:
            reference = Game.from_mines(self.shape, mine_list, reveal="flood" if self.flood else "ring")
            for at in zip(*np.nonzero(self._marks)):
                for _ in range(int(self._marks[at])):
                    reference.cycle_mark(tuple(int(i) for i in at))
        except Exception:  # noqa: BLE001 - boards the engine refuses have no reference
            return None
        return reference

    def _follow(self, at: Coordinate, *, dig: bool) -> None:
        """Play the same move on the reference; a reference that fails stops following."""
        if self._reference is None:
            return
        try:
            if dig:
                self._reference.dig(at)
            else:
                self._reference.cycle_mark(at)
        except Exception:  # noqa: BLE001 - the reference stops following; the student's game goes on
            self._reference = None

    def _forget(self) -> None:
        """An action is coming: what was read of the student's code no longer holds."""
        self._seen = None
        self._own_xray = None

    def _read(self) -> StudentView:
        """The student's view since the last action, asked of their code at most once per action.

        A failure is kept too, so the board shows it without calling the failing code again.
        """
        if self._seen is None:
            try:
                cells, state, mines_left = self._student_view()
                if state not in BOARD_STATES:
                    problem = ValueError(f"state should be one of {BOARD_STATES}, got {state!r}")
                    raise StudentCodeError(problem, calling="state")
            except StudentCodeError as error:
                self._seen = error
                raise
            self._seen = (cells, state, mines_left)
            self._opened = int(np.count_nonzero(is_open(cells)))
        if isinstance(self._seen, StudentCodeError):
            raise self._seen
        return self._seen

    def _with_marks(self, cells: np.ndarray) -> np.ndarray:
        covered = cells == CellCode.COVERED
        cells[covered & (self._marks == 1)] = CellCode.FLAG
        cells[covered & (self._marks == 2)] = CellCode.QUESTION
        return cells

    def _end_view(self, cells: np.ndarray, state: str) -> np.ndarray:
        """Compose the end view from the mines the widget chose (the student's render has none)."""
        if state == "ongoing" or self.mine_list is None:
            return cells
        mask = self.mine_mask
        if state == "victory":
            cells[mask] = CellCode.FLAG
            return cells
        cells[mask & ((cells == CellCode.COVERED) | (cells == CellCode.QUESTION))] = CellCode.MINE
        cells[~mask & (cells == CellCode.FLAG)] = CellCode.WRONG_FLAG
        if self._lost_at is not None:
            cells[self._lost_at] = CellCode.EXPLODED
        return cells

    # ---- what each subclass implements
    def _start(self, mine_list: list[Coordinate]) -> Any:
        raise NotImplementedError

    def _dig(self, at: Coordinate) -> int | None:
        raise NotImplementedError

    def _mark(self, at: Coordinate) -> None:
        raise NotImplementedError

    def _student_view(self) -> StudentView:
        raise NotImplementedError

    def _student_xray(self) -> np.ndarray | None:
        return None
