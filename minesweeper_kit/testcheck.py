"""The notebooks' "check my tests" cell: a student's own tests, run in the kernel, against the kit's
correct implementation of the step and a few public planted bugs.

The course grades a step's own tests with correct implementations and planted bugs (see the
notebooks' "your own tests" exercise): a test is *valid* when it passes on correct code, and a valid
test *catches* a planted bug when it fails on it. This module lets a student try that before
handing in, with bugs that ship with the kit (the grader's are others, and hidden):

* the correct implementation is the kit's own: neighbours from :class:`~minesweeper_kit.geometry.
  Geometry`, boards from numpy and the 6.009 format module, the flood-fill classes over numpy and
  ``Geometry``, and :class:`~minesweeper_kit.hypermines.HyperMinesGame` over the engine;
* each public planted bug is a small change wrapped around that implementation, named for the
  misconception it stands for.

While a test runs, the step's names in the notebook (``globals()``) are swapped for the version
under test and put back afterwards, so the student's own definitions are untouched. The calls the
tests make on the correct version are logged and checked against the step's requirement
(:mod:`minesweeper_kit.own_tests_requirements`, the same check the grader makes).
"""

from __future__ import annotations

import contextlib
import copy
import functools
import io
import operator
import random
import signal
import threading
from collections import deque
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from .formats.mit6009 import write_board
from .game import Game
from .geometry import Geometry
from .hypermines import HyperMinesGame
from .own_tests_requirements import REQUIREMENTS
from .sandbox.testrunner import entry_points

__all__ = ["CHECKED_STEPS", "CheckedTest", "TestsCheck", "check_my_tests"]

#: Seconds one test may run on one version before it counts as failed (a test that loops until
#: a defeat never ends on a game that cannot be lost).
SECONDS_PER_TEST = 10.0
#: At most this many tests are run, as in the grader.
MOST_TESTS = 60


# ------------------------------------------------------------------ step 1 and 2: neighbours
def _neighbours(dimensions: Any, coordinates: Any, *, torus: bool = False) -> list[tuple[int, ...]]:
    return [tuple(int(v) for v in cell) for cell in Geometry(dimensions, torus=torus).neighbours(coordinates)]


def _in_bounds(dimensions, coordinates):
    """The in-bounds neighbours of a cell, as tuples, the cell itself left out (step 2's function)."""
    return _neighbours(dimensions, coordinates)


def _neighbour_functions(change: Callable[[list, Any, Any], list] | None = None, torus: bool = False) -> dict:
    """The four neighbours functions of step 1, each answer passed through ``change``."""

    def nd(name: str) -> Callable[..., Any]:
        def function(dimensions, coordinates):
            found = _neighbours(dimensions, coordinates, torus=torus)
            return change(found, dimensions, coordinates) if change else found

        function.__name__ = function.__qualname__ = name
        return function

    def line(length, x):
        found = _neighbours((length,), (x,), torus=torus)
        found = change(found, (length,), (x,)) if change else found
        return [cell[0] for cell in found]

    line.__name__ = line.__qualname__ = "neighbors_1d"
    return {
        "neighbors_1d": line,
        "neighbors_2d": nd("neighbors_2d"),
        "neighbors_3d": nd("neighbors_3d"),
        "neighbors": nd("neighbors"),
    }


def _drop_last_positions(found: list, dimensions: Any, coordinates: Any) -> list:
    last = [n - 1 for n in dimensions]
    return [cell for cell in found if all(v != end for v, end in zip(cell, last))]


def _no_diagonals(found: list, dimensions: Any, coordinates: Any) -> list:
    return [cell for cell in found if sum(abs(a - b) for a, b in zip(cell, coordinates)) == 1]


# --------------------------------------------------------------------------- step 2: boards
def make_board(dimensions, elem):
    """A nested list of the given dimensions, every cell `elem`, no list shared."""
    cells = np.empty([int(n) for n in dimensions], dtype=object)
    cells.fill(elem)
    return cells.tolist()


def get_coords(board, coordinates):
    """The value at `coordinates` in a nested-list board."""
    return functools.reduce(operator.getitem, coordinates, board)


def set_coords(board, coordinates, value):
    """Put `value` at `coordinates`, in place."""
    *path, last = coordinates
    functools.reduce(operator.getitem, path, board)[last] = value


def all_coords(dimensions):
    """Every coordinate of a board with these dimensions, as tuples, the last axis fastest."""
    return [tuple(int(v) for v in cell) for cell in np.ndindex(*[int(n) for n in dimensions])]


def new_board(dimensions, bombs):
    """A HyperMines board: '.' for a bomb, else the number of neighbouring bombs."""
    return write_board(Game.from_mines(list(dimensions), list(dict.fromkeys(tuple(b) for b in bombs))))


def _board_functions(**changed: Callable[..., Any]) -> dict:
    found = {
        "make_board": make_board,
        "get_coords": get_coords,
        "set_coords": set_coords,
        "all_coords": all_coords,
        "neighbors": _in_bounds,
        "new_board": new_board,
    }
    for name, function in changed.items():
        function.__name__ = function.__qualname__ = name
        found[name] = function
    return found


def _set_coords_on_a_copy(board, coordinates, value):
    set_coords(copy.deepcopy(board), coordinates, value)


def _make_board_axes_reversed(dimensions, elem):
    return make_board(list(dimensions)[::-1], elem)


def _all_coords_skips_last(dimensions):
    return all_coords(dimensions)[:-1]


# ------------------------------------------------------------------------ step 3: flood fill
COVERED, MINE_GUESS, EXPLODED_MINE, INCORRECT_GUESS, MINE, QUESTION = -1, -2, -3, -4, -5, -6


class MineField:
    """Where the mines are, as a numpy array; the counts come from the kit's Geometry."""

    def __init__(self, mine_data):
        rows = [[bool(cell) for cell in row] for row in mine_data]
        width = len(rows[0]) if rows else 0
        self._mines = np.array(rows, dtype=bool).reshape(len(rows), width)
        self._count = int(self._mines.sum())

    @classmethod
    def random(cls, rows, cols, num_mines):
        """An empty field that `populate` fills with `num_mines` mines, one cell always kept free."""
        if rows < 1 or cols < 1:
            raise ValueError(f"a field needs at least one row and one column, got {rows}x{cols}")
        if not 0 <= num_mines < rows * cols:
            raise ValueError(f"{num_mines} mines do not fit in {rows}x{cols} with one cell kept free")
        made = cls([[False] * cols for _ in range(rows)])
        made._count = num_mines
        return made

    def num_rows(self):
        return int(self._mines.shape[0])

    def num_cols(self):
        return int(self._mines.shape[1])

    def num_mines(self):
        return self._count

    def in_range(self, r, c):
        return bool(0 <= r < self._mines.shape[0] and 0 <= c < self._mines.shape[1])

    def has_mine(self, r, c):
        return bool(self._mines[r, c])

    def num_adjacent_mines(self, r, c):
        around = [(r + dr, c + dc) for dr in (-1, 0, 1) for dc in (-1, 0, 1) if dr or dc]
        return sum(1 for at in around if self.in_range(*at) and self._mines[at])

    def populate(self, avoid_row, avoid_col, rng=None):
        rng = rng if rng is not None else random.Random()
        free = [at for at in np.ndindex(*self._mines.shape) if at != (avoid_row, avoid_col)]
        self._mines = np.zeros(self._mines.shape, dtype=bool)
        for at in rng.sample(free, self._count):
            self._mines[at] = True

    def reset_empty(self):
        self._mines = np.zeros(self._mines.shape, dtype=bool)


class VisibleField:
    """What the player sees of a MineField: statuses in a numpy array, floods with a queue."""

    def __init__(self, mine_field):
        self._field = mine_field
        self.reset_game()

    def reset_game(self):
        self._status = np.full((self._field.num_rows(), self._field.num_cols()), COVERED, dtype=np.int64)
        self._guesses = 0
        self._lost = False

    def get_status(self, r, c):
        return int(self._status[r, c])

    def num_mines_left(self):
        """Mines minus the player's guesses (the mines shown as guesses after a victory not counted)."""
        return self._field.num_mines() - self._guesses

    def cycle_guess(self, r, c):
        if self.is_game_over():
            return
        status = int(self._status[r, c])
        following = {COVERED: MINE_GUESS, MINE_GUESS: QUESTION, QUESTION: COVERED}
        if status in following:
            self._status[r, c] = following[status]
            self._guesses += {COVERED: 1, MINE_GUESS: -1, QUESTION: 0}[status]

    def uncover(self, r, c):
        field = self._field
        if not field.in_range(r, c) or self.is_game_over() or self._status[r, c] not in (COVERED, QUESTION):
            return True
        if field.has_mine(r, c):
            for at in np.ndindex(*self._status.shape):
                mine, status = field.has_mine(*at), self._status[at]
                if mine and status in (COVERED, QUESTION):
                    self._status[at] = MINE
                elif not mine and status == MINE_GUESS:
                    self._status[at] = INCORRECT_GUESS
            self._status[r, c] = EXPLODED_MINE
            self._lost = True
            return False
        self._status[r, c] = COVERED
        self._flood(r, c)
        if self.is_game_over():
            for at in np.ndindex(*self._status.shape):
                if field.has_mine(*at):
                    self._status[at] = MINE_GUESS
        return True

    def is_game_over(self):
        field = self._field
        opened = int((self._status >= 0).sum())
        return bool(self._lost or opened == field.num_rows() * field.num_cols() - field.num_mines())

    def is_uncovered(self, r, c):
        return bool(self._status[r, c] >= 0 or self._status[r, c] == EXPLODED_MINE)

    def _flood(self, r, c):
        """Open (r, c) if it is a covered safe cell and the zero region around it; how many opened."""
        field, opened = self._field, 0
        waiting: deque[tuple[int, ...]] = deque([(r, c)])
        while waiting:
            at = waiting.popleft()
            if not field.in_range(*at) or self._status[at] != COVERED or field.has_mine(*at):
                continue
            self._status[at] = count = field.num_adjacent_mines(*at)
            opened += 1
            if count == 0:
                waiting.extend(Geometry(self._status.shape).neighbours(at))
        return opened


def flood_fill_iterative(visible_field, r, c):
    """Open (r, c) and its zero region without recursion; how many cells opened."""
    return visible_field._flood(r, c)


class _FieldNeverFloods(VisibleField):
    def _flood(self, r, c):
        field = self._field
        if not field.in_range(r, c) or self._status[r, c] != COVERED or field.has_mine(r, c):
            return 0
        self._status[r, c] = field.num_adjacent_mines(r, c)
        return 1


class _MineFieldNoDiagonals(MineField):
    def num_adjacent_mines(self, r, c):
        around = [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
        return sum(1 for at in around if self.in_range(*at) and self._mines[at])


class _GuessesNotCounted(VisibleField):
    def num_mines_left(self):
        return self._field.num_mines()


def _named(cls: type, name: str) -> type:
    cls.__name__ = cls.__qualname__ = name
    return cls


def _field_classes(mine_field: type = MineField, visible_field: type = VisibleField) -> dict:
    return {
        "MineField": _named(mine_field, "MineField"),
        "VisibleField": _named(visible_field, "VisibleField"),
        "flood_fill_iterative": flood_fill_iterative,
    }


# ------------------------------------------------------------------------- step 4: HyperMines
def _leaves(nested: Any) -> list:
    return list(np.array(nested, dtype=object).ravel())


class _DigNeverFloods(HyperMinesGame):
    def dig(self, coordinates):
        if self.state != "ongoing" or get_coords(self.mask, coordinates) or get_coords(self.board, coordinates) == ".":
            return super().dig(coordinates)
        mask = self.mask
        set_coords(mask, coordinates, True)
        self.mask = mask
        if all(shown or cell == "." for shown, cell in zip(_leaves(self.mask), _leaves(self.board))):
            self.state = "victory"
        return 1


class _BombDoesNotEndTheGame(HyperMinesGame):
    def dig(self, coordinates):
        revealed = super().dig(coordinates)
        if self.state == "defeat":
            self.state = "ongoing"
        return revealed


class _XrayIgnored(HyperMinesGame):
    def render(self, xray=False):
        return super().render(False)


def _game_class(game: type = HyperMinesGame) -> dict:
    return {"HyperMinesGame": _named(game, "HyperMinesGame")}


# ------------------------------------------------------------------------------ the library
@dataclass(frozen=True)
class Version:
    """One implementation the tests run against: the kit's correct one, or a public planted bug."""

    name: str
    misconception: str  #: for a planted bug, the mistake it stands for ("" for the correct one)
    build: Callable[[], dict[str, Any]]  #: the step's names -> the objects under test


@dataclass(frozen=True)
class Step:
    """A step's names swapped in the notebook while a test runs, and its versions (correct first)."""

    names: tuple[str, ...]
    versions: tuple[Version, ...]
    note: str = ""  #: printed with the verdicts: what the check leaves to the student's own code


def _step(
    names: tuple[str, ...],
    build: Callable[..., dict[str, Any]],
    *bugs: tuple[str, str, dict[str, Any]],
    note: str = "",
) -> Step:
    """A step whose correct version is ``build()`` and whose planted bugs, each ``(name,
    misconception, changes)``, are ``build(**changes)``: a bug differs from the correct code only
    in what it changes."""
    planted = (
        Version(name, misconception, functools.partial(build, **changes)) for name, misconception, changes in bugs
    )
    return Step(names, (Version("correct", "", build), *planted), note)


CHECKED_STEPS: dict[str, Step] = {
    "neighbors": _step(
        ("neighbors_1d", "neighbors_2d", "neighbors_3d", "neighbors"),
        _neighbour_functions,
        (
            "last_position_dropped",
            "the last position of each axis is never a neighbour",
            {"change": _drop_last_positions},
        ),
        ("no_diagonals", "only cells one step along a single axis count, no diagonals", {"change": _no_diagonals}),
        ("wraps_around", "the board wraps around, so a cell on an edge touches the far edge", {"torus": True}),
        note=(
            "Only the neighbours functions are swapped: tests of the text game (read_file, update_grid, "
            "dig, ...) run on your own functions here, on correct ones in the grader."
        ),
    ),
    "make-board": _step(
        ("make_board", "get_coords", "set_coords", "all_coords", "neighbors", "new_board"),
        _board_functions,
        (
            "set_coords_on_a_copy",
            "set_coords changes a copy, so the board given stays the same",
            {"set_coords": _set_coords_on_a_copy},
        ),
        (
            "axes_reversed",
            "make_board builds the axes in reverse order ([2, 3] gives 3 lists of 2)",
            {"make_board": _make_board_axes_reversed},
        ),
        ("all_coords_skips_last", "all_coords leaves out the last cell", {"all_coords": _all_coords_skips_last}),
    ),
    "flood-fill": _step(
        ("MineField", "VisibleField", "flood_fill_iterative"),
        _field_classes,
        (
            "uncover_never_floods",
            "uncover opens only the cell uncovered, never the zeros around it",
            {"visible_field": _FieldNeverFloods},
        ),
        (
            "counts_without_diagonals",
            "num_adjacent_mines counts only the four side neighbours",
            {"mine_field": _MineFieldNoDiagonals},
        ),
        ("guesses_not_counted", "num_mines_left ignores the player's guesses", {"visible_field": _GuessesNotCounted}),
    ),
    "hypermines": _step(
        ("HyperMinesGame",),
        _game_class,
        ("dig_never_floods", "dig opens only the cell dug, never the zeros around it", {"game": _DigNeverFloods}),
        (
            "bomb_does_not_end_the_game",
            "digging a bomb reveals it but the game goes on",
            {"game": _BombDoesNotEndTheGame},
        ),
        ("xray_ignored", "render(True) hides the unrevealed cells, like render()", {"game": _XrayIgnored}),
    ),
}


# ------------------------------------------------------------------------- the call log
def _plain(value: Any, depth: int = 0) -> Any:
    """A short plain copy for the log: lists for tuples, objects by their type's name."""
    if depth > 20:
        return None
    if value is None or type(value) in (bool, int, float, str):
        return value
    if isinstance(value, (np.integer, np.bool_)):
        return value.item()
    if isinstance(value, (list, tuple)):
        return [_plain(item, depth + 1) for item in value]
    return type(value).__name__


class _Log:
    """The calls made on the correct version, test by test, as the requirement check reads them."""

    def __init__(self) -> None:
        self.calls: list[dict] = []
        self.test = ""
        self.numbers: dict[int, int] = {}
        self.depth = 0  #: calls inside a logged call are the implementation's own, not the tests'

    @contextlib.contextmanager
    def entered(self, entry: dict) -> Iterator[dict]:
        """Log ``entry`` when the tests made the call (not the implementation), and note what it raised."""
        if self.depth == 0:
            self.calls.append(entry)
        self.depth += 1
        try:
            yield entry
        except Exception as error:
            entry["raised"] = type(error).__name__
            raise
        finally:
            self.depth -= 1

    def number(self, obj: Any) -> int:
        return self.numbers.setdefault(id(obj), len(self.numbers) + 1)

    def function(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        log = self

        @functools.wraps(function)
        def logged(*args, **kwargs):
            with log.entered({"test": log.test, "name": name, "target": None, "args": _plain(list(args))}) as entry:
                value = function(*args, **kwargs)
            entry["value"] = _plain(value)
            return value

        return logged

    def cls(self, name: str, cls: type) -> type:
        """A subclass of ``cls`` that logs its making and its public methods' calls."""
        log = self
        members: dict[str, Any] = {}

        def init(instance, *args, **kwargs):
            with log.entered({"test": log.test, "name": name, "target": None, "args": _plain(list(args))}) as entry:
                cls.__init__(instance, *args, **kwargs)  # type: ignore[misc]
            entry["made"] = log.number(instance)

        members["__init__"] = init
        for attribute in dir(cls):
            if attribute.startswith("_"):
                continue
            raw = _class_attribute(cls, attribute)
            if isinstance(raw, (staticmethod, classmethod)):
                members[attribute] = type(raw)(log.function(f"{name}.{attribute}", raw.__func__))
            elif callable(raw) and not isinstance(raw, type):
                members[attribute] = log.method(attribute, raw)
        made = type(name, (cls,), members)
        made.__qualname__ = name
        return made

    def method(self, name: str, function: Callable[..., Any]) -> Callable[..., Any]:
        log = self

        @functools.wraps(function)
        def logged(instance, *args, **kwargs):
            entry = {"test": log.test, "name": name, "target": log.number(instance), "args": _plain(list(args))}
            with log.entered(entry):
                value = function(instance, *args, **kwargs)
            entry["value"] = _plain(value)
            state = getattr(instance, "state", None)
            if not callable(state):
                entry["state"] = _plain(state)
            return value

        return logged

    def wrap(self, objects: dict[str, Any]) -> dict[str, Any]:
        return {
            name: self.cls(name, obj) if isinstance(obj, type) else self.function(name, obj)
            for name, obj in objects.items()
        }


def _class_attribute(cls: type, name: str) -> Any:
    for klass in cls.__mro__:
        if name in vars(klass):
            return vars(klass)[name]
    return getattr(cls, name)


# ---------------------------------------------------------------------------- the results
@dataclass
class CheckedTest:
    """One of the student's tests: valid or not, and the public planted bugs it catches."""

    name: str
    valid: bool = True
    failure: str = ""  #: how it failed on the correct version
    caught: list[str] = field(default_factory=list)


@dataclass
class TestsCheck:
    """What the check found: each test, the planted bugs, the requirement."""

    step: str
    tests: list[CheckedTest]
    bugs: dict[str, str]  #: each public planted bug's name -> its misconception
    requirement: str
    unmet: list[str]
    problem: str = ""  #: why nothing could be checked
    note: str = ""  #: what the check leaves to the student's own code

    @property
    def caught(self) -> list[str]:
        hit = {name for test in self.tests if test.valid for name in test.caught}
        return [name for name in self.bugs if name in hit]

    def report(self) -> str:
        if self.problem:
            return self.problem
        valid = sum(test.valid for test in self.tests)
        lines = [
            f"Your tests, run against the kit's correct {self.step} code and {len(self.bugs)} public planted bugs: "
            f"{valid} of {len(self.tests)} valid."
        ]
        for test in self.tests:
            if not test.valid:
                lines.append(f"  {test.name}: INVALID, it fails on correct code: {test.failure}")
            elif test.caught:
                lines.append(f"  {test.name}: valid; catches: {'; '.join(self.bugs[b] for b in test.caught)}")
            else:
                lines.append(f"  {test.name}: valid; catches none of the public planted bugs")
        lines.append(f"Public planted bugs caught by your valid tests: {len(self.caught)} of {len(self.bugs)}.")
        missed = [self.bugs[name] for name in self.bugs if name not in self.caught]
        for misconception in missed:
            lines.append(f"  not caught: {misconception}")
        if self.unmet:
            lines.append(f"Requirement ({self.requirement}): NOT met: {'; '.join(self.unmet)}.")
        else:
            lines.append(f"Requirement ({self.requirement}): met.")
        if self.note:
            lines.append(self.note)
        lines.append("The grader runs your tests the same way, against other planted bugs that stay hidden.")
        return "\n".join(lines)


# ------------------------------------------------------------------------------- running
@contextlib.contextmanager
def _time_limit(seconds: float) -> Iterator[None]:
    """Stop the test with TimeoutError after ``seconds`` (main thread, where signals exist)."""
    usable = threading.current_thread() is threading.main_thread() and hasattr(signal, "setitimer")
    if not usable:
        yield
        return

    def stop(signum, frame):
        raise TimeoutError(f"the test ran for more than {seconds:g} s")

    previous = signal.signal(signal.SIGALRM, stop)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)


@contextlib.contextmanager
def _swapped(namespace: dict[str, Any], objects: dict[str, Any]) -> Iterator[None]:
    missing = object()
    kept = {name: namespace.get(name, missing) for name in objects}
    namespace.update(objects)
    try:
        yield
    finally:
        for name, value in kept.items():
            if value is missing:
                namespace.pop(name, None)
            else:
                namespace[name] = value


def _run_all(
    namespace: dict[str, Any],
    names: list[str],
    run: Callable[[str], dict],
    objects: dict[str, Any],
    log: _Log | None = None,
) -> dict[str, dict]:
    outcomes = {}
    with _swapped(namespace, objects), contextlib.redirect_stdout(io.StringIO()):
        for name in names:
            if log is not None:
                log.test = name
            try:
                with _time_limit(SECONDS_PER_TEST):
                    outcomes[name] = run(name)
            except TimeoutError as error:  # raised between the runner's own try and the test
                outcomes[name] = {"outcome": "failed", "message": f"TimeoutError: {error}"}
    return outcomes


def check_my_tests(step: str, namespace: dict[str, Any], *, show: bool = True) -> TestsCheck:
    """Run the ``test_*`` functions and the ``test*`` methods of ``Test*`` classes found in
    ``namespace`` (a notebook's ``globals()``) against the kit's correct version of ``step`` and
    its public planted bugs; print the verdicts when ``show``."""
    if step not in CHECKED_STEPS:
        raise ValueError(f"no tests check for step {step!r}; the steps are {', '.join(CHECKED_STEPS)}")
    spec, requirement = CHECKED_STEPS[step], REQUIREMENTS[step]
    bugs = {v.name: v.misconception for v in spec.versions[1:]}
    listed, run = entry_points(namespace, "<your tests>")
    names = listed(None)[:MOST_TESTS]
    if not names:
        problem = (
            "No tests of your own were found: write functions named test_... (or a class named Test... "
            "with test methods) in the cell above, run it, then run this cell again. "
            f"This step asks for {requirement.text}."
        )
        result = TestsCheck(step, [], bugs, requirement.text, [], problem=problem)
    else:
        log = _Log()
        correct = spec.versions[0]
        runs = {correct.name: _run_all(namespace, names, run, log.wrap(correct.build()), log)}
        for version in spec.versions[1:]:
            runs[version.name] = _run_all(namespace, names, run, version.build())
        tests = []
        for name in names:
            test = CheckedTest(name)
            outcome = runs[correct.name][name]
            if outcome["outcome"] != "passed":
                test.valid, test.failure = False, str(outcome.get("message", ""))
            else:
                test.caught = [v for v in bugs if runs[v][name]["outcome"] != "passed"]
            tests.append(test)
        valid_calls: dict[str, list[dict]] = {t.name: [] for t in tests if t.valid}
        for call in log.calls:
            if call["test"] in valid_calls:
                valid_calls[call["test"]].append(call)
        unmet = requirement.check(valid_calls)
        if len(valid_calls) < requirement.minimum:
            unmet.insert(0, f"{len(valid_calls)} valid test(s), {requirement.minimum} asked for")
        result = TestsCheck(step, tests, bugs, requirement.text, unmet, note=spec.note)
    if show:
        print(result.report())
    return result
