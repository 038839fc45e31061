"""Jupyter widgets: the inline board, a replay viewer and a neighbour explorer.

Each is one anywidget model with an ES module front end in ``static/`` (no build step).
"""

from .board import Board
from .drivers import (
    EngineDriver,
    FieldDriver,
    FunctionsDriver,
    HyperMinesDriver,
    NewBoardDriver,
    StudentCodeError,
    TextGameDriver,
)
from .explorer import NeighborExplorer
from .replay import Replay

__all__ = [
    "Board",
    "EngineDriver",
    "FieldDriver",
    "FunctionsDriver",
    "HyperMinesDriver",
    "NeighborExplorer",
    "NewBoardDriver",
    "Replay",
    "StudentCodeError",
    "TextGameDriver",
]
