"""The tournament's unit of work: one bot playing a chunk of one event's games, and where it is saved.

A unit is played by the arena's own loop (`arena.play_series`), so a tournament game is lost for
exactly the reasons an arena game is. Each finished unit is saved with a fingerprint (the bot's
SHA-256, the event, the seeds, the game indices, the move time limit); a later run reuses every
unit whose fingerprint still matches.
"""

from __future__ import annotations

import json
import os
import tempfile
import time
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from .. import __version__
from ..arena import BotRunner, GameRecord, Rules, Subtask, game_seed, make_runner, play_series
from ..arena.runners import clip
from ..bots.view import BotView, Move
from ..stats import time_bin
from .entrants import Entrant, Event, slug

#: Version of the saved unit files: a change makes every saved unit stale.
UNIT_FILE_VERSION = 1


@dataclass(frozen=True)
class Unit:
    """One bot playing games [start, stop) of one event: what a worker receives."""

    bot: str
    source: str
    text: str | None
    sandboxed: bool
    move_timeout: float
    event: str
    rules: Rules | Subtask
    run_seed: int
    start: int
    stop: int


def make_units(
    entrants: Sequence[Entrant], events: Sequence[Event], games: int, chunk_size: int, move_timeout: float
) -> list[tuple[Unit, Entrant]]:
    """Every (unit, its entrant), chunk by chunk, so that every bot advances together."""
    out = []
    for start in range(0, games, chunk_size):
        stop = min(games, start + chunk_size)
        for event in events:
            for e in entrants:
                unit = Unit(
                    e.name,
                    e.source,
                    e.text,
                    e.sandboxed,
                    move_timeout,
                    event.name,
                    event.rules,
                    event.run_seed,
                    start,
                    stop,
                )
                out.append((unit, e))
    return out


class MoveTimer:
    """Wraps an arena runner and counts the wall time of every move into log-spaced bins."""

    def __init__(self, runner: BotRunner, bins: Counter) -> None:
        self.runner, self.bins = runner, bins

    def new_game(self) -> None:
        """Pass the new game on to the bot."""
        self.runner.new_game()

    def next_move(self, view: BotView) -> Move:
        """The bot's move, its time counted in the histogram's bins."""
        started = time.perf_counter()
        try:
            return self.runner.next_move(view)
        finally:
            self.bins[time_bin(time.perf_counter() - started)] += 1

    def close(self) -> None:
        """Let go of the bot."""
        self.runner.close()

    @property
    def reusable(self) -> bool:
        """Whether the wrapped runner may play on after a lost game."""
        return self.runner.reusable


def play_unit(unit: Unit) -> dict:
    """Worker: play one unit and return its records and move-time bins as plain data."""
    started = time.perf_counter()
    bins: Counter = Counter()
    with tempfile.TemporaryDirectory(prefix="tournament-bot-") as temp:
        bot = unit.source
        if unit.text is not None:  # the text read at the start: workers need not see the file
            bot = str(Path(temp) / f"{slug(Path(unit.source).stem)}.py")
            Path(bot).write_text(unit.text, encoding="utf-8")
        games = []
        for index in range(unit.start, unit.stop):
            seed = game_seed(unit.run_seed, index)
            games.append((unit.rules.for_game(seed), seed, index))
        records = play_series(
            lambda: MoveTimer(make_runner(bot, unit.sandboxed, unit.move_timeout), bins),
            games,
            fresh_after_failure=unit.sandboxed,
        )
    return {
        "records": [pack_record(r) for r in records],
        "move_bins": {str(k): v for k, v in sorted(bins.items())},
        "seconds": round(time.perf_counter() - started, 4),
    }


def pack_record(record: GameRecord) -> dict:
    """A game record in the saved units' short form (no logs; details of failures only)."""
    data: dict[str, Any] = {
        "i": record.index,
        "s": record.seed,
        "b": record.board,
        "w": record.won,
        "r": record.reason,
        "m": record.moves,
        "t": round(record.seconds, 5),
    }
    if record.reason not in ("won", "mine") and record.detail:
        data["d"] = clip(record.detail, 600)
    return data


def unpack_record(data: dict) -> GameRecord:
    """The inverse of `pack_record`."""
    return GameRecord(
        data["i"], data["s"], data["b"], bool(data["w"]), data["r"], data["m"], data["t"], data.get("d", "")
    )


class ResultsFolder:
    """Saved units: ``games/<bot>/<event>/<start>-<stop>.json``, each with its fingerprint."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def unit_path(self, unit: Unit) -> Path:
        """Where this unit's result is saved."""
        return self.path / "games" / slug(unit.bot) / slug(unit.event) / f"{unit.start:06d}-{unit.stop:06d}.json"

    @staticmethod
    def fingerprint(unit: Unit, entrant: Entrant) -> dict:
        """What must match for a saved unit to stand for this one."""
        return {
            "format": UNIT_FILE_VERSION,
            "kit": __version__,
            "bot": unit.bot,
            "sha256": entrant.sha256,
            "sandboxed": unit.sandboxed,
            "move_timeout": unit.move_timeout if unit.sandboxed else None,
            "event": unit.event,
            "rules": unit.rules.label,
            "run_seed": unit.run_seed,
            "games": [unit.start, unit.stop],
        }

    def load(self, unit: Unit, entrant: Entrant) -> dict | None:
        """The saved result of this unit if it was played with the same bot and settings."""
        try:
            data = json.loads(self.unit_path(unit).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("fingerprint") != self.fingerprint(unit, entrant):
            return None
        return data

    def save(self, unit: Unit, entrant: Entrant, result: dict) -> None:
        """Write a unit's result atomically: a stopped run never leaves half a unit behind."""
        path = self.unit_path(unit)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(".tmp")
        temp.write_text(json.dumps({"fingerprint": self.fingerprint(unit, entrant), **result}))
        os.replace(temp, path)
