"""Bots: the `View`/`Move` protocol, adapters for the original contests' bot shapes, and players.

A bot is any object with ``next_move(view) -> Move``:

>>> from minesweeper_kit.bots import ReferenceSolver, RandomBot, View, Move
"""

from .adapters import (
    RubyBot,
    SweepmineBot,
    read_sweepmine_position,
    sweepmine_function,
    to_ruby_state,
    to_sweepmine,
    view_from_sweepmine,
)
from .simple import BaselineBot, HumanBot, RandomBot
from .solver import ReferenceSolver, analyse
from .view import FLAG, UNKNOWN, Action, Bot, Move, View

__all__ = [
    "FLAG", "UNKNOWN", "Action", "Bot", "Move", "View",
    "RubyBot", "SweepmineBot", "read_sweepmine_position", "sweepmine_function", "to_ruby_state",
    "to_sweepmine", "view_from_sweepmine",
    "BaselineBot", "HumanBot", "RandomBot", "ReferenceSolver", "analyse",
]
