"""Jupyter widgets: the inline board, a replay viewer and a neighbour explorer.

Each is one anywidget model with an ES module front end in ``static/`` (no build step).
"""

from .board import Board
from .course6009 import FunctionsDriver, HyperMinesDriver, NewBoardDriver
from .engine import EngineDriver
from .explorer import NeighborExplorer
from .field import FieldDriver
from .replay import Replay
from .student import StudentCodeError
from .textgame import TextGameDriver

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
