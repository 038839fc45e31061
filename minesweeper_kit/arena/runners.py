"""Runners: how the arena asks a bot for moves, in this process or in the kit's sandbox.

A runner turns every failure of the bot into a `BotError` whose `kind` names the reason the
game is lost ("crash", "illegal" or "timeout"), so the game loop has one failure to handle.
"""

from __future__ import annotations

import inspect
import os
import traceback
from pathlib import Path
from typing import Any, Protocol

from ..bots.botfile import DRIVER_SOURCE, IllegalMove
from ..bots.view import BotView, Move
from .loading import BUILTIN_BOTS, load_bot

#: Modules a sandboxed bot may not import by name: they play, or hold the judge.
ARENA_DENIED = frozenset({"minesweeper_kit.arena", "minesweeper_kit.bots.solver"})


class BotError(Exception):
    """A bot failed to produce a legal move; `kind` is "crash", "illegal" or "timeout"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


class BotRunner(Protocol):
    """What the game loop needs of a runner; every method raises `BotError` for the bot's failures."""

    def new_game(self) -> None:
        """Tell the bot a new game starts (a bot keeping state between moves resets it)."""

    def next_move(self, view: BotView) -> Move:
        """The bot's move for this view."""

    def close(self) -> None:
        """Let go of the bot (a sandboxed one's process ends)."""

    @property
    def reusable(self) -> bool:
        """Whether the bot may play on after a lost game: False once it timed out or its process
        died, so the next game starts a fresh one."""


def clip(text: str, limit: int = 300) -> str:
    """`text` cut to about `limit` characters, saying how long it was (for records and feedback)."""
    return text if len(text) <= limit else text[: limit - 20] + f"... ({len(text)} chars)"


def short_traceback(limit: int = 2000) -> str:
    """The exception being handled, clipped for a game record."""
    return clip(traceback.format_exc(), limit)


class LocalRunner:
    """Runs a trusted bot in this process (no time limit: a hang hangs the worker)."""

    def __init__(self, bot: Any) -> None:
        self.bot = load_bot(bot) if isinstance(bot, (str, os.PathLike)) else bot
        if inspect.isclass(self.bot) or (callable(self.bot) and not hasattr(self.bot, "next_move")):
            self.bot = self.bot()  # a class or a factory: one fresh bot per worker
        if not hasattr(self.bot, "next_move"):
            raise ValueError(f"{self.bot!r} is not a bot: it has no next_move(view)")

    def new_game(self) -> None:
        """Tell the bot a new game starts (its `new_game`, if it has one)."""
        reset = getattr(self.bot, "new_game", None)
        if callable(reset):
            reset()

    def next_move(self, view: BotView) -> Move:
        """The bot's move; its exceptions and non-moves become `BotError`."""
        try:
            move = self.bot.next_move(view)
        except IllegalMove as error:  # the adapters' verdict on a malformed answer
            raise BotError("illegal", str(error)) from None
        except Exception:  # noqa: BLE001 - any failure of the bot's code loses the game
            raise BotError("crash", short_traceback()) from None
        if not isinstance(move, Move):
            raise BotError("illegal", f"next_move returned {clip(repr(move))}, not a Move")
        return move

    def close(self) -> None:
        """Nothing to release in this process."""
        pass

    @property
    def reusable(self) -> bool:
        """Always: an exception leaves the bot as its own code left it."""
        return True


class SandboxRunner:
    """Runs an untrusted bot file in the kit's sandbox (the grader's), one child for many games.

    Only JSON crosses: the view goes in, ``["dig"|"flag", [coords]]`` comes out and is validated
    here. Each move has `move_timeout` CPU seconds; a hang, a crash or a killed child loses the
    game. A game lost because the bot's code raised leaves the child as it is (it answered, as an
    in-process bot would): it stays `reusable`, so an unfinished bot that raises on every move does
    not start a new sandbox for every game. A time-out or a dead child is not reusable. The bot
    sees the kit's `BotView`/`Move` modules and nothing that plays
    (:mod:`minesweeper_kit.sandbox.botkit`). A sandbox that cannot start at all is the machine's
    failure, not the bot's: `SandboxUnavailable` or `IsolationUnavailable` is raised, never a `BotError`.
    """

    def __init__(self, bot: str | os.PathLike, move_timeout: float) -> None:
        from ..sandbox import ImportPolicy, Limits, LoadError, Sandbox, SandboxError

        self._errors = (LoadError, SandboxError)
        source = Path(bot).read_text(encoding="utf-8")
        self.move_timeout = move_timeout
        self._reusable = True
        self.box = Sandbox(
            source + DRIVER_SOURCE,
            filename="bot.py",
            module_name="bot",
            limits=Limits(cpu_seconds=3600, memory_mb=2048),
            bot_kit=True,
            import_policy=ImportPolicy(label="the arena", direct_denied=ARENA_DENIED),
        )
        try:
            self.box.start()
        except self._errors as error:
            self.box.close()
            raise BotError("crash", clip(str(error), 2000)) from None

    def new_game(self) -> None:
        """Tell the sandboxed bot a new game starts (loading it on the first call)."""
        try:
            self.box.call("__arena_new_game__", timeout=max(self.move_timeout, 10.0))
        except self._errors as error:
            raise self._failure(error) from None

    def next_move(self, view: BotView) -> Move:
        """The bot's move within `move_timeout` CPU seconds, checked to be a move."""
        try:
            data = self.box.call("__arena_next_move__", view.to_json(), timeout=self.move_timeout)
        except self._errors as error:
            raise self._failure(error, self.move_timeout) from None
        try:
            return Move.from_json(data)
        except ValueError as error:
            raise BotError("illegal", clip(str(error))) from None

    def close(self) -> None:
        """Stop the sandbox child."""
        self.box.close()

    @property
    def reusable(self) -> bool:
        """False after a time-out or once the child is gone; True after the bot's own exception."""
        return self._reusable and self.box.alive

    def _failure(self, error: Exception, timeout: float | None = None) -> BotError:
        from ..sandbox import StudentError

        if not isinstance(error, StudentError):  # a time-out, a dead child, an answer refused
            self._reusable = False
        return BotError(*_sandbox_failure(error, timeout))


def _sandbox_failure(error: Exception, timeout: float | None = None) -> tuple[str, str]:
    """The (kind, message) of a `BotError` for what the sandbox raised."""
    from ..sandbox import StudentError, TimeLimitExceeded

    if isinstance(error, TimeLimitExceeded):
        return "timeout", f"no move within {timeout:g} s of CPU time" if timeout else clip(str(error))
    if isinstance(error, StudentError) and error.type_name == "IllegalMove":
        return "illegal", clip(error.message)
    return "crash", clip(str(error), 2000)


def make_runner(bot: Any, sandboxed: bool, move_timeout: float) -> LocalRunner | SandboxRunner:
    """A sandbox for a bot file; the kit's own bots (trusted) and objects play in-process."""
    builtin = isinstance(bot, str) and bot in BUILTIN_BOTS
    return SandboxRunner(bot, move_timeout) if sandboxed and not builtin else LocalRunner(bot)
