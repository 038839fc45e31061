"""Bots: the `BotView`/`Move` protocol, adapters for the original contests' bot shapes, and players.

A bot is any object with ``next_move(view) -> Move``, `view` a `BotView` (`view.py` documents the
encoding: numbers on open cells, `VIEW_UNKNOWN` on covered ones, `VIEW_FLAG` on flags). A bot
file for ``mines arena BOT.py`` may be written in any of three shapes (`driver.py` has the rules)::

    # the kit's own: 0-indexed coordinate tuples
    from minesweeper_kit.bots import Move
    def next_move(view):
        return Move.dig(0, 0)

    # Sweepmine.TM: 1-indexed grids, 100 = covered, 101 = flag; answer (t, (row, column))
    def next_move(R, C, N, grid, charge, T):
        return (False, (1, 1))

    # Ruby tournament: state[y][x] is "unknown", "flag" or an int; answer [x, y] or [x, y, False] to flag
    class CornerPlayer:
        def take_turn(self, state):
            return [0, 0]

Players here: `ReferenceSolver` (exact probabilities and an endgame search), `BaselineBot` (one
number at a time, else random), `RandomBot`, `HumanBot` (the terminal).
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
from .view import (
    VIEW_FLAG,
    VIEW_OPEN_MIN,
    VIEW_UNKNOWN,
    Bot,
    BotView,
    Move,
    MoveKind,
)

__all__ = [
    "VIEW_FLAG",
    "VIEW_OPEN_MIN",
    "VIEW_UNKNOWN",
    "Bot",
    "BotView",
    "Move",
    "MoveKind",
    "RubyBot",
    "SweepmineBot",
    "read_sweepmine_position",
    "sweepmine_function",
    "to_ruby_state",
    "to_sweepmine",
    "view_from_sweepmine",
    "BaselineBot",
    "HumanBot",
    "RandomBot",
    "ReferenceSolver",
    "analyse",
]
