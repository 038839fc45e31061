"""The game loop: one seeded game played to its end, and a series of games with one runner.

Every game of the kit's arena, its tournament and the `bots` grader is played here, so the rules
of a lost game are written once:

* a game is lost, with its reason recorded, when the bot digs a mine, crashes, answers something
  that is not a legal move (off the board, an already open cell), runs past the per-move time
  limit (sandboxed bots) or plays more than `MOVES_PER_CELL` moves per cell;
* none of these stops a run: the next game is played (with a fresh sandbox after a time-out or a
  dead child, see `play_series`; a bot whose own code raised plays on in its child);
* a sandbox that cannot start at all (the machine's failure, not the bot's) loses no game: it
  stops the run with `SandboxUnavailable` or `IsolationUnavailable`.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Sequence

import numpy as np

from ..bots.view import VIEW_FLAG, VIEW_UNKNOWN, BotView, Move, MoveKind
from ..game import Game, Mark
from ..rules import Rules
from .results import LOAD_FAILED, GameRecord
from .runners import BotError, BotRunner, short_traceback

#: A bot that plays more moves than this many per cell loses the game (a flag toggled forever).
MOVES_PER_CELL = 4


def view_of(game: Game, moves: Sequence[Move]) -> BotView:
    """What a bot sees of a game (no mines, no end view)."""
    revealed = game.revealed
    grid = np.where(revealed, game.numbers, np.where(game.marks == Mark.FLAG, VIEW_FLAG, VIEW_UNKNOWN))
    return BotView(game.shape, game.mine_count, grid.astype(np.int64), game.charges, game.torus, tuple(moves))


def play_game(runner: BotRunner, rules: Rules, seed: int, index: int = 0, logs: bool = False) -> GameRecord:
    """Play one seeded game to its end; every failure of the bot becomes a lost game.

    `rules` needs only `new_game(seed)` and `label` (the `bots` grader passes boards of its own).
    With `logs`, the record carries the game's JSON-lines log and, on 2-D boards, its
    ``sweepmine.out``.
    """
    game = rules.new_game(seed)
    started = time.perf_counter()
    moves, reason, detail = _play_moves(runner, game)
    seconds = time.perf_counter() - started
    if not reason:
        reason = "won" if game.state == "victory" else "mine"
        if reason == "mine":
            detail = f"dug a mine at {list(game.exploded or ())}"
    record = GameRecord(index, seed, rules.label, game.state == "victory", reason, len(moves), seconds, detail)
    if logs and game.placed:
        _attach_logs(record, game)
    return record


def _play_moves(runner: BotRunner, game: Game) -> tuple[list[Move], str, str]:
    """The bot's moves until the game ends, or (moves, reason, detail) of the bot's failure.

    The reason is "" when the game ended by the rules (won, or a mine dug).
    """
    moves: list[Move] = []
    limit = MOVES_PER_CELL * game.size
    try:
        runner.new_game()
    except BotError as error:
        return moves, error.kind, str(error)
    while game.state == "ongoing":
        if len(moves) >= limit:
            return moves, "too many moves", f"more than {limit} moves"
        try:
            move = runner.next_move(view_of(game, moves))
        except BotError as error:
            return moves, error.kind, str(error)
        problem = illegal_reason(game, move)
        if problem:
            return moves, "illegal", problem
        moves.append(move)
        if move.action is MoveKind.DIG:
            game.dig(move.cell)
        else:
            game.toggle_flag(move.cell)
    return moves, "", ""


def illegal_reason(game: Game, move: Move) -> str:
    """Why a move is illegal on this game, or '' (the arena's check; a bot's answer is never trusted)."""
    cell = move.cell
    if len(cell) != game.ndim:
        return f"{move.action.value} at {list(cell)}: the board has {game.ndim} axes"
    for axis, (value, size) in enumerate(zip(cell, game.shape)):
        if not 0 <= value < size:
            return f"{move.action.value} at {list(cell)} is off the board (axis {axis} is 0..{size - 1})"
    if game.revealed[cell]:
        return f"{move.action.value} at {list(cell)}: that cell is already open"
    return ""


def _attach_logs(record: GameRecord, game: Game) -> None:
    from ..formats import jsonlog, sweepmine

    record.log = jsonlog.record(game, arena={"index": record.index, "reason": record.reason, "detail": record.detail})
    if game.ndim == 2:
        record.sweepmine_out = sweepmine.write_log(sweepmine.log_from_game(game))


def play_series(
    open_runner: Callable[[], BotRunner],
    games: Iterable[tuple[Rules, int, int]],
    *,
    fresh_after_failure: bool,
    logs: bool = False,
) -> list[GameRecord]:
    """Play `games`, each ``(rules, seed, index)``, in order with one runner opened at the first game.

    The one loop the arena's workers and the tournament's units share. A runner that cannot be
    opened loses that game and every later one, with "loading the bot failed" and the reason as
    the detail (opening it again would fail the same way); a sandbox that cannot start at all
    stops the series (`SandboxUnavailable`, `IsolationUnavailable`). With `fresh_after_failure` (sandboxed
    bots), a runner that is no longer `reusable` after a game (it timed out, or its child died)
    is closed and the next game opens a fresh one, so a child left in an unknown state never
    plays on.
    """
    records: list[GameRecord] = []
    runner: BotRunner | None = None
    failed: tuple[str, str] | None = None
    try:
        for rules, seed, index in games:
            if runner is None and failed is None:
                runner, failed = _open(open_runner)
            if runner is None:
                assert failed is not None
                records.append(GameRecord.lost_unplayed(index, seed, rules.label, *failed))
                continue
            record = play_game(runner, rules, seed, index, logs)
            records.append(record)
            if fresh_after_failure and not runner.reusable:
                runner.close()
                runner = None
    finally:
        if runner is not None:
            runner.close()
    return records


def _open(open_runner: Callable[[], BotRunner]) -> tuple[BotRunner | None, tuple[str, str] | None]:
    """The runner, or None and the (reason, detail) its games are lost with.

    A sandbox that cannot start (no bubblewrap, or a failure before the bot's code is loaded) is
    the machine's failure, not the bot's: it is raised, so the run stops instead of recording
    games the bot never had a chance to play."""
    from ..sandbox import IsolationUnavailable, SandboxUnavailable

    try:
        return open_runner(), None
    except BotError as error:
        return None, (error.kind, f"{LOAD_FAILED}: {error}")
    except (IsolationUnavailable, SandboxUnavailable):
        raise
    except Exception:  # noqa: BLE001 - a bot that cannot even load loses its games
        return None, ("crash", f"{LOAD_FAILED}:\n{short_traceback()}")
