"""Game logs as JSON lines: a header line with the board, then one line per move.

A log is written from a played game (`record`) and read back into the sequence of positions
(`positions`), which is what a replay steps through. Mines are recorded as placed, so a replay
needs no generator.
"""

from __future__ import annotations

import json
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from ..game import Game

LOG_FORMAT = "minesweeper-kit/log"
LOG_VERSION = 1
ACTIONS = ("dig", "cycle", "flag")


@dataclass
class GameLog:
    """A game log read back: the header (rules and mines) and the moves, to replay or step through."""

    header: dict[str, Any]
    moves: list[dict[str, Any]]

    def start(self) -> Game:
        """The position before the first move."""
        h = self.header
        charges: dict[Sequence[int], int] | None = None
        if h.get("charges"):
            charges = {tuple(c[:-1]): c[-1] for c in h["charges"]}
        return Game.from_mines(h["shape"], h["mines"], charges=charges, torus=h["torus"], reveal=h["reveal"])

    def positions(self) -> Iterator[Game]:
        """The start position, then the position after each move (each a separate game)."""
        game = self.start()
        yield game.copy()
        for move in self.moves:
            apply_move(game, move["action"], move["at"])
            yield game.copy()

    def replay(self) -> Game:
        """The position after the last move."""
        game = self.start()
        for move in self.moves:
            apply_move(game, move["action"], move["at"])
        return game


def apply_move(game: Game, action: str, at) -> int:
    """Play one logged move (an action of `ACTIONS`) on a game; return what the engine returns."""
    if action == "dig":
        return game.dig(at)
    if action == "cycle":
        return int(game.cycle_mark(at))
    if action == "flag":
        return int(game.toggle_flag(at))
    raise ValueError(f"unknown action {action!r}: expected one of {', '.join(ACTIONS)}")


def record(game: Game, **extra: Any) -> str:
    """The JSON-lines log of a game played so far (its mines must be placed)."""
    if not game.placed:
        raise ValueError("the game has no mines yet: record it after the first dig")
    charges = game.charges.ravel()
    header = {
        "format": LOG_FORMAT,
        "version": LOG_VERSION,
        "shape": list(game.shape),
        "torus": game.torus,
        "reveal": game.reveal,
        "first_move": game.first_move,
        "seed": game.seed,
        "mines": [list(c) for c in game.geometry.unflat_many(np.flatnonzero(game.mines.ravel()))],
        "charges": [[*game.geometry.unflat(int(i)), int(charges[i])] for i in np.flatnonzero(charges != 1)],
        "result": game.state,
        **extra,
    }
    lines = [json.dumps(header)]
    for number, action in enumerate(game.history, start=1):
        lines.append(
            json.dumps({"move": number, "action": action.kind, "at": list(action.at), "result": action.result})
        )
    return "\n".join(lines) + "\n"


def read(text: str) -> GameLog:
    """Parse a JSON-lines log; ValueError names the line that is wrong."""
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise ValueError("the log is empty")
    records = []
    for number, line in enumerate(lines, start=1):
        try:
            records.append(json.loads(line))
        except json.JSONDecodeError as error:
            raise ValueError(f"line {number} is not JSON: {error.msg}") from None
    header, moves = records[0], records[1:]
    if not isinstance(header, dict) or header.get("format") != LOG_FORMAT:
        raise ValueError(f"line 1 is not a log header: its 'format' must be {LOG_FORMAT!r}")
    for key in ("shape", "torus", "reveal", "mines"):
        if key not in header:
            raise ValueError(f"line 1: the header lacks {key!r}")
    for number, move in enumerate(moves, start=2):
        if not isinstance(move, dict) or move.get("action") not in ACTIONS or not isinstance(move.get("at"), list):
            raise ValueError(f"line {number}: a move needs an 'action' ({', '.join(ACTIONS)}) and an 'at' coordinate")
    log = GameLog(header, moves)
    log.start()  # validates the board now rather than halfway through a replay
    return log
