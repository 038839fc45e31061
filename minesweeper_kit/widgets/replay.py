"""Replay: step through a recorded game with a slider, play/pause and a speed control.

It reads the kit's JSON-lines logs, Sweepmine's ``sweepmine.out`` logs and engine games with their
history (a bot's game from the arena). Every position is computed once, up front, by the engine and
sent as one bytes trait (one int32 code per cell per position), so stepping and playing cost no
round trip to the kernel.

A replay opens on its last position, where the game was decided, and on the slice of its last move
(a board of more than two axes); the slider goes back from there.
"""

from __future__ import annotations

import os
from typing import Any

import numpy as np
import traitlets as t

from ..formats import jsonlog, sweepmine
from ..game import Game
from . import frontend
from .codes import encode_cells, engine_codes
from .sliced import SlicedWidget

MAX_FRAME_BYTES = 64 << 20


Cell = tuple[int, ...]


def positions_of(source: Any) -> tuple[list[Game], list[str]]:
    """Every position of a recorded game (the start, then one per move) and a label per move."""
    games, labels, _cells = _recorded(source)
    return games, labels


def _recorded(source: Any) -> tuple[list[Game], list[str], list[Cell]]:
    """The positions and labels of :func:`positions_of`, and the cell of each move."""
    if isinstance(source, Game):
        return _positions_of_game(source)
    if isinstance(source, (str, os.PathLike)):
        text = str(source)
        if isinstance(source, os.PathLike) or ("\n" not in text and os.path.exists(text)):
            with open(source, encoding="utf-8") as file:
                text = file.read()
        source = jsonlog.read(text) if text.lstrip().startswith("{") else sweepmine.read_log(text)
    if isinstance(source, jsonlog.GameLog):
        games = list(source.positions())
        labels = [f"{m['action']} {tuple(m['at'])}" for m in source.moves]
        return games, labels, [tuple(int(i) for i in m["at"]) for m in source.moves]
    if isinstance(source, sweepmine.SweepmineLog):
        cells: list[Cell] = [(int(x) - 1, int(y) - 1) for _t, x, y in source.moves]
        return list(source.positions()), source.move_labels(), cells
    raise ValueError(
        f"cannot replay {type(source).__name__}: give a JSON-lines log, a "
        "sweepmine.out log (text, path or parsed) or an engine Game with its history"
    )


def _positions_of_game(game: Game) -> tuple[list[Game], list[str], list[Cell]]:
    mines = [tuple(int(i) for i in c) for c in np.argwhere(np.asarray(game.mines))]
    start = Game.from_mines(game.shape, mines, charges=np.asarray(game.charges), torus=game.torus, reveal=game.reveal)
    games, labels, cells = [start.copy()], [], []
    for action in game.history:
        jsonlog.apply_move(start, action.kind, action.at)
        labels.append(f"{action.kind} {tuple(action.at)}")
        cells.append(tuple(int(i) for i in action.at))
        games.append(start.copy())
    return games, labels, cells


def _slice_of_last_move(shape: tuple[int, ...], cells: list[Cell]) -> list[int]:
    """The extra-axis position of the last move (the first slice when there is no move)."""
    extra = max(0, len(shape) - 2)
    return [int(i) for i in cells[-1][:extra]] if cells else [0] * extra


class Replay(SlicedWidget):
    """``Replay("game.jsonl")``, ``Replay(open("sweepmine.out").read())``, ``Replay(bot_game)``."""

    _esm = frontend.esm("replay")
    _css = frontend.STATIC / "board.css"

    shape = t.List(t.Int()).tag(sync=True)
    torus = t.Bool(False).tag(sync=True)
    frames = t.Bytes(b"").tag(sync=True)
    count = t.Int(0).tag(sync=True)
    step = t.Int(0).tag(sync=True)
    labels = t.List(t.Unicode()).tag(sync=True)
    states = t.List(t.Unicode()).tag(sync=True)
    mines_left = t.List(t.Int()).tag(sync=True)
    speed = t.Float(4.0).tag(sync=True)  # moves per second while playing
    cell_size = t.Int(0).tag(sync=True)

    def __init__(self, source: Any, *, cell_size: int = 0, **kwargs: Any) -> None:
        games, labels, cells = _recorded(source)
        size = int(np.prod(games[0].shape))
        if 4 * size * len(games) > MAX_FRAME_BYTES:
            raise ValueError(f"{len(games)} positions of {size} cells are too many to replay at once")
        frames = np.stack([engine_codes(g) for g in games])
        super().__init__(cell_size=cell_size, **kwargs)
        with self.hold_sync():
            self.shape = list(games[0].shape)
            self.torus = bool(games[0].torus)
            self.frames = encode_cells(frames)
            self.count = len(games)
            self.labels = ["start"] + labels
            self.states = [g.state for g in games]
            self.mines_left = [int(g.mines_left) for g in games]
            self.step = len(games) - 1
            self.slice_index = _slice_of_last_move(tuple(games[0].shape), cells)
        self.games = games

    def position(self, step: int | None = None) -> Game:
        """The engine game at one step (the current one by default)."""
        return self.games[self.step if step is None else step]
