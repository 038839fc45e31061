"""A bot file: finding the bot in it, and the code appended to it that runs the bot inside the sandbox.

A bot file may define, checked in this order: ``make_bot()`` returning a bot; a module-level
``next_move`` with six parameters (the Sweepmine signature, adapted) or one (a kit bot's
``next_move(view)``); a class whose name ends with ``Player`` and has ``take_turn`` (the Ruby
tournament's shape, adapted); a module-level ``take_turn(state)``.

In the sandbox only plain data crosses the process boundary, so `DRIVER_SOURCE` is appended to
the bot's source: it rebuilds the `BotView` from JSON in the child, asks the bot, and sends the
move back as ``["dig"|"flag", [coords]]``, which the arena validates again.
"""

from __future__ import annotations

import inspect
from typing import Any

from .adapters import RubyBot, SweepmineBot
from .view import BotView, IllegalMove, Move


class _FunctionBot:
    def __init__(self, fn: Any) -> None:
        self.next_move = fn


def bot_from_namespace(namespace: dict, where: str = "the bot file") -> Any:
    """The bot a module's namespace defines, by the rules above; ValueError if none."""
    if callable(namespace.get("make_bot")):
        return namespace["make_bot"]()
    fn = namespace.get("next_move")
    if callable(fn):
        params = len(inspect.signature(fn).parameters)
        if params == 6:
            return SweepmineBot(fn)
        if params == 1:
            return _FunctionBot(fn)
        raise ValueError(f"{where}: next_move takes {params} parameters; expected 1 (view) or 6 (Sweepmine)")
    for value in list(namespace.values()):
        if inspect.isclass(value) and value.__name__.endswith("Player") and hasattr(value, "take_turn"):
            return RubyBot(value())
    if callable(namespace.get("take_turn")):
        return RubyBot(namespace["take_turn"])
    raise ValueError(f"{where} defines none of make_bot(), next_move(...), a ...Player class, take_turn(state)")


def answer(bot: Any, view_data: dict) -> list:
    """Child side: one move of `bot` for a JSON view, as JSON."""
    move = bot.next_move(BotView.from_json(view_data))
    if not isinstance(move, Move):
        raise IllegalMove(f"next_move returned {type(move).__name__}, not a Move")
    return move.to_json()


DRIVER_SOURCE = """

# ---- arena driver (added by minesweeper_kit.arena; not part of the bot) ----
def __arena_new_game__():
    global __arena_bot__
    from minesweeper_kit.bots.botfile import bot_from_namespace
    if globals().get("__arena_bot__") is None:
        __arena_bot__ = bot_from_namespace(globals())
    reset = getattr(__arena_bot__, "new_game", None)
    if callable(reset):
        reset()
    return True


def __arena_next_move__(view):
    from minesweeper_kit.bots.botfile import answer
    return answer(__arena_bot__, view)
"""
