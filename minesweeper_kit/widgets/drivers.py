"""What a board widget plays: the one protocol every driver follows, and the choice of driver.

A driver owns one game and answers a few things: start a new game, dig a cell, cycle a cell's
mark, and give the current view as cell codes (``codes.py``). The board widget only talks to
drivers, so the same widget plays the kit's engine (``engine.py``), a student's 6.009-style class,
functions or ``new_board`` (``course6009.py``), the neighbours step's text game (``textgame.py``)
or the flood-fill step's ``MineField``/``VisibleField`` classes (``field.py``). Student code given
by name (a string) is looked up in the notebook when each game starts (:class:`NamedDriver`).
"""

from __future__ import annotations

import contextlib
from typing import Any, Protocol

import numpy as np

from ..geometry import Coordinate
from ..rules import Rules
from .codes import BoardView
from .course6009 import HyperMinesDriver, NewBoardDriver
from .engine import EngineDriver
from .student import MissingName, StudentCodeError, StudentName


class Driver(Protocol):
    """The protocol every driver follows; ``xray`` and ``reference`` may answer None."""

    name: str
    shape: Coordinate
    mines: int
    torus: bool

    @property
    def game(self) -> Any:
        """The object being played: an engine game or the student's own (None before it starts)."""

    @property
    def can_compare(self) -> bool:
        """Whether there is an engine game to compare the view with."""

    @property
    def seed(self) -> int | None:
        """The seed of the current game, shown on the board so a game can be played again."""

    def new_game(self, seed: int | None = None) -> None:
        """Start again under the same rules (a fresh seed unless one is given)."""

    def dig(self, at: Coordinate) -> int:
        """Dig a cell; the number of cells newly opened."""

    def mark(self, at: Coordinate) -> None:
        """Cycle a covered cell's mark: flag, question mark, nothing."""

    def view(self) -> BoardView:
        """What the board shows now, as cell codes with the state and the mines left."""

    def xray(self) -> np.ndarray | None:
        """Every cell's code with the mines shown, or None before the mines are placed."""

    def reference(self) -> np.ndarray | None:
        """The engine's codes for the same game, for compare; None when there is nothing to compare."""

    def truth(self) -> np.ndarray | None:
        """The engine's x-ray of the same game, for compare against ``xray``; None when there is none."""


class NamedDriver:
    """Student code named by a string (``play="new_board"``): looked up in the notebook when each
    game starts, so a board made before its cell has run shows "new_board is not defined yet"
    instead of raising, and a new game (the face) plays the latest version of it."""

    def __init__(self, name: StudentName, rules: Rules, seed: int | None = None) -> None:
        self.name = name.name
        self.target = name
        self.rules = rules
        self.shape: Coordinate = rules.shape
        self.mines = rules.mines
        self.torus = False
        self._seed = seed
        self.inner: Driver | None = None
        with contextlib.suppress(StudentCodeError):  # shown by the board when it reads the view
            self._driver()

    def _driver(self) -> Driver:
        if self.inner is None:
            try:
                target = self.target.resolve()
            except MissingName as error:
                raise StudentCodeError(error, calling=self.name) from None
            if isinstance(target, str) or not callable(target):
                problem = TypeError(f"{self.name} should be a function or a class, not a {type(target).__name__}")
                raise StudentCodeError(problem, calling=self.name)
            self.inner = driver_for(target, self.rules, self._seed)
        return self.inner

    @property
    def can_compare(self) -> bool:
        return True if self.inner is None else bool(self.inner.can_compare)

    @property
    def seed(self) -> int | None:
        return self._seed if self.inner is None else self.inner.seed

    @property
    def game(self) -> Any:
        return None if self.inner is None else self.inner.game

    def new_game(self, seed: int | None = None) -> None:
        """Look the name up again and start a game of what it holds now."""
        self.inner, self._seed = None, seed
        self._driver()

    def dig(self, at: Coordinate) -> int:
        return self._driver().dig(at)

    def mark(self, at: Coordinate) -> None:
        self._driver().mark(at)

    def view(self) -> BoardView:
        return self._driver().view()

    def xray(self) -> np.ndarray | None:
        return None if self.inner is None else self.inner.xray()

    def reference(self) -> np.ndarray | None:
        return None if self.inner is None else self.inner.reference()

    def truth(self) -> np.ndarray | None:
        return None if self.inner is None else self.inner.truth()


def driver_for(target: Any, rules: Rules | None, seed: int | None = None) -> Driver:
    """Choose a driver for whatever the widget was given.

    Student code plays its own rules: only the shape and the mine count of `rules` reach it, so
    any other option is refused rather than silently dropped.
    """
    if target is None:
        if rules is None:
            raise ValueError("give a shape and a number of mines")
        return EngineDriver(rules, seed=seed)
    if rules is not None and rules != Rules(rules.shape, rules.mines, first_move=rules.first_move):
        raise ValueError(
            "student code plays its own rules: give only a shape and a number of mines "
            f"(torus, charges and reveal apply to the engine), got {rules.label}"
        )
    if isinstance(target, StudentName):
        if rules is None:
            raise ValueError(f"give a shape and a number of mines to play {target.name}")
        return NamedDriver(target, rules, seed)
    if hasattr(target, "new_game") and hasattr(target, "view") and hasattr(target, "mark"):
        return target  # already a driver
    if hasattr(target, "faces") and hasattr(target, "cycle_mark"):
        return EngineDriver(game=target)
    if not isinstance(target, type) and not callable(target):
        raise ValueError(
            f"cannot play {type(target).__name__}: give an engine Game, a class like "
            "HyperMinesGame, a new_board function or a driver"
        )
    if rules is None:
        what = target.__name__ if isinstance(target, type) else "new_board"
        raise ValueError(f"give a shape and a number of mines to play {what}")
    if isinstance(target, type):
        return HyperMinesDriver(target, rules.shape, rules.mines, seed)
    return NewBoardDriver(target, rules.shape, rules.mines, seed)
