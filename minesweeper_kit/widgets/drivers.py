"""What a board widget plays: the one protocol every driver follows, and the choice of driver.

A driver owns one game and answers a few things: start a new game, dig a cell, cycle a cell's
mark, and give the current view as cell codes (``codes.py``). The board widget only talks to
drivers, so the same widget plays the kit's engine (``engine.py``), a student's 6.009-style class,
functions or ``new_board`` (``course6009.py``), the neighbours step's text game (``textgame.py``)
or the flood-fill step's ``MineField``/``VisibleField`` classes (``field.py``).
"""

from __future__ import annotations

from typing import Any, Protocol

import numpy as np

from ..geometry import Coordinate
from ..rules import Rules
from .codes import BoardView
from .course6009 import HyperMinesDriver, NewBoardDriver
from .engine import EngineDriver


class Driver(Protocol):
    """The protocol every driver follows; ``xray`` and ``reference`` may answer None."""

    name: str
    shape: Coordinate
    mines: int
    torus: bool
    game: Any
    can_compare: bool

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
