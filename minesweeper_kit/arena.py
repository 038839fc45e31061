"""The arena: play a bot on many seeded games and report its win rate honestly.

Python API (used by the `bots` autograder assignment and the notebooks)::

    from minesweeper_kit.arena import Rules, play_games, play_sweepmine
    result = play_games(ReferenceSolver(), Rules.preset("expert"), games=1000, seed=1, jobs=2)
    print(result.summary())          # wins, rate and its 95% Wilson interval, time per game

Command line: ``mines arena BOT.py --preset expert --games 1000 -j 2`` and
``mines arena BOT.py --sweepmine`` (the six Sweepmine.TM subtasks with their scores S(P/Q)).

Decisions, written down once:

* Every game is seeded: game i of a run with seed S uses the seed derived from (S, i), so a run is
  reproducible whatever the number of workers, and any game can be replayed from its record.
* The first dig is always safe (Sweepmine's rule and the published solver figures' rule).
* Charged games draw each cell's charge uniformly from [-10, 1] without 0, as the Sweepmine judge
  actually does (its statement says [-10, 10]; `charge_range` chooses otherwise).
* Sweepmine subtasks 4 to 6 "mix boards": each game draws its board uniformly from the three
  presets, and (subtasks 4 and 6) the torus with probability 1/2, from the game's seed.
* A game is lost, with its reason recorded, when the bot digs a mine, crashes, answers something
  that is not a legal move (off the board, an already open cell), runs past the per-move time limit
  (sandboxed bots) or plays more than 4 moves per cell. None of these stops the run.
* The score of a subtask is S(x) = ((k1 - 1) x^k2 + x) / k1 with x = P / Q, not capped: above 1
  means better than the judge.
"""

from __future__ import annotations

import argparse
import importlib.util
import inspect
import json
import math
import multiprocessing
import os
import sys
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from .bots.driver import DRIVER_SOURCE, IllegalMove, bot_from_namespace
from .bots.view import FLAG, UNKNOWN, Action, Move, View
from .game import Game, Mark
from .presets import PRESETS
from .rules import SWEEPMINE_CHARGES, Rules

MOVES_PER_CELL = 4
Z95 = 1.959963984540054


# ---------------------------------------------------------------------- rules and subtasks
@dataclass(frozen=True)
class Subtask:
    """A Sweepmine.TM subtask: its boards and its scoring constants (k1, k2) and judge rate Q (%)."""

    number: int
    k1: float
    k2: float
    q: float
    presets: tuple[str, ...]
    torus: str  # "no" | "mixed"
    charged: bool
    description: str

    def for_game(self, seed: int) -> Rules:
        """The rules of one game; mixed subtasks draw board and torus from the game's seed."""
        rng = np.random.default_rng([seed, 0x5EED])
        name = self.presets[int(rng.integers(len(self.presets)))]
        torus = self.torus == "mixed" and bool(rng.integers(2))
        return Rules.preset(name, torus, SWEEPMINE_CHARGES if self.charged else False)

    @property
    def label(self) -> str:
        return f"subtask {self.number}"

    def score(self, percent: float) -> float:
        return sweepmine_score(percent, self.q, self.k1, self.k2)


ALL = ("beginner", "intermediate", "expert")
SUBTASKS: tuple[Subtask, ...] = (
    Subtask(1, 7.0, 4.4, 90.0, ("beginner",), "no", False, "Beginner, uncharged, bounded"),
    Subtask(2, 1.5, 9.0, 78.0, ("intermediate",), "no", False, "Intermediate, uncharged, bounded"),
    Subtask(3, 1.3, 0.1, 37.0, ("expert",), "no", False, "Expert, uncharged, bounded"),
    Subtask(4, 4.4, 7.7, 74.0, ALL, "mixed", False, "any board, uncharged, torus or not"),
    Subtask(5, 1.2, 1.4, 96.0, ALL, "no", True, "any board, charged, bounded"),
    Subtask(6, 1.2, 1.4, 96.0, ALL, "mixed", True, "any board, charged, torus or not"),
)


def sweepmine_score(percent: float, judge_percent: float, k1: float, k2: float) -> float:
    """Sweepmine's S(P/Q) = ((k1 - 1) x^k2 + x) / k1 with x = P/Q (P, Q in percent); 1.0 = the judge."""
    if judge_percent <= 0:
        raise ValueError(f"the judge's win rate must be positive, got {judge_percent}")
    if percent < 0:
        raise ValueError(f"a win rate cannot be negative, got {percent}")
    x = percent / judge_percent
    return ((k1 - 1) * x**k2 + x) / k1


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% by default); (0, 1) for no games."""
    if games < 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games, got {wins} wins of {games}")
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: independent of how games are spread over workers."""
    return int(np.random.SeedSequence([int(run_seed), int(index)]).generate_state(1)[0])


# ---------------------------------------------------------------------- records and results
@dataclass
class GameRecord:
    """What happened in one game, as plain data."""

    index: int
    seed: int
    board: str
    won: bool
    reason: str  # "won", "mine", "illegal", "crash", "timeout", "too many moves"
    moves: int
    seconds: float
    detail: str = ""
    log: str | None = None  # JSON-lines game log, when logs were asked for
    sweepmine_out: str | None = None


@dataclass
class ArenaResult:
    """The outcome of a run: every game's record and the statistics over them."""

    label: str
    records: list[GameRecord] = field(default_factory=list)

    @property
    def games(self) -> int:
        return len(self.records)

    @property
    def wins(self) -> int:
        return sum(r.won for r in self.records)

    @property
    def win_rate(self) -> float:
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        return wilson_interval(self.wins, self.games)

    @property
    def seconds_per_game(self) -> float:
        return sum(r.seconds for r in self.records) / self.games if self.games else 0.0

    @property
    def reasons(self) -> dict[str, int]:
        return dict(Counter(r.reason for r in self.records))

    def summary(self) -> str:
        lo, hi = self.interval
        losses = ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items()) if k != "won")
        return (
            f"{self.label}: {self.wins}/{self.games} won = {100 * self.win_rate:.2f}% "
            f"(95% CI {100 * lo:.2f}-{100 * hi:.2f}%), {1000 * self.seconds_per_game:.1f} ms/game"
            + (f"; losses: {losses}" if losses else "")
        )

    def to_json(self) -> dict:
        lo, hi = self.interval
        return {
            "label": self.label,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "interval": [lo, hi],
            "seconds_per_game": self.seconds_per_game,
            "reasons": self.reasons,
        }


# ---------------------------------------------------------------------- loading bots
class BotError(Exception):
    """A bot failed to produce a legal move; `kind` is "crash", "illegal" or "timeout"."""

    def __init__(self, kind: str, message: str) -> None:
        super().__init__(message)
        self.kind = kind


BUILTIN_BOTS = ("reference", "baseline", "random")


def load_bot(source: str | os.PathLike) -> Any:
    """A bot from a built-in name ("reference", "baseline", "random") or a Python file.

    In the file, the first of these that exists is used:
    ``make_bot()`` (returns a bot); a module-level ``next_move`` with six parameters (the
    Sweepmine signature, adapted) or one parameter (a kit bot's ``next_move(view)``); a class whose
    name ends with ``Player`` and has ``take_turn`` (the Ruby-tournament shape, adapted); a
    module-level ``take_turn(state)``.
    """
    from .bots import BaselineBot, RandomBot, ReferenceSolver

    name = str(source)
    if name == "reference":
        return ReferenceSolver()
    if name == "baseline":
        return BaselineBot()
    if name == "random":
        return RandomBot()
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"no bot file {name!r} (or give a built-in bot: {', '.join(BUILTIN_BOTS)})")
    spec = importlib.util.spec_from_file_location(f"arena_bot_{abs(hash(str(path.resolve())))}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return bot_from_namespace(vars(module), name)


# ---------------------------------------------------------------------- runners
class LocalRunner:
    """Runs a trusted bot in this process (no time limit: a hang hangs the worker)."""

    def __init__(self, bot: Any) -> None:
        self.bot = load_bot(bot) if isinstance(bot, (str, os.PathLike)) else bot
        if inspect.isclass(self.bot) or (callable(self.bot) and not hasattr(self.bot, "next_move")):
            self.bot = self.bot()  # a class or a factory: one fresh bot per worker
        if not hasattr(self.bot, "next_move"):
            raise ValueError(f"{self.bot!r} is not a bot: it has no next_move(view)")

    def new_game(self) -> None:
        reset = getattr(self.bot, "new_game", None)
        if callable(reset):
            reset()

    def next_move(self, view: View) -> Move:
        try:
            move = self.bot.next_move(view)
        except IllegalMove as error:  # the adapters' verdict on a malformed answer
            raise BotError("illegal", str(error)) from None
        except Exception:  # noqa: BLE001 - any failure of the bot's code loses the game
            raise BotError("crash", _short_traceback()) from None
        if not isinstance(move, Move):
            raise BotError("illegal", f"next_move returned {_clip(repr(move))}, not a Move")
        return move

    def close(self) -> None:
        pass


def _short_traceback(limit: int = 2000) -> str:
    return _clip(traceback.format_exc(), limit)


def _clip(text: str, limit: int = 300) -> str:
    return text if len(text) <= limit else text[: limit - 20] + f"... ({len(text)} chars)"


class SandboxRunner:
    """Runs an untrusted bot file in the kit's sandbox (the grader's), one child for many games.

    Only JSON crosses: the view goes in, ``["dig"|"flag", [coords]]`` comes out and is validated
    here. Each move has `move_timeout` CPU seconds; a hang, a crash or a killed child loses the
    game. The bot sees the kit's `View`/`Move` modules and nothing that plays
    (:mod:`minesweeper_kit.sandbox.botkit`).
    """

    def __init__(self, bot: str | os.PathLike, move_timeout: float) -> None:
        from .sandbox import ImportPolicy, Limits, LoadError, Sandbox, SandboxError

        self._errors = (LoadError, SandboxError)
        source = Path(bot).read_text(encoding="utf-8")
        self.move_timeout = move_timeout
        self.box = Sandbox(
            source + DRIVER_SOURCE,
            filename="bot.py",
            module_name="bot",
            limits=Limits(cpu_seconds=3600, memory_mb=2048),
            bot_kit=True,
            import_policy=ImportPolicy(
                label="the arena", direct_denied=frozenset({"minesweeper_kit.arena", "minesweeper_kit.bots.solver"})
            ),
        )
        try:
            self.box.start()
        except self._errors as error:
            self.box.close()
            raise BotError("crash", _clip(str(error), 2000)) from None

    def new_game(self) -> None:
        try:
            self.box.call("__arena_new_game__", timeout=max(self.move_timeout, 10.0))
        except self._errors as error:
            raise BotError(*_sandbox_failure(error)) from None

    def next_move(self, view: View) -> Move:
        try:
            data = self.box.call("__arena_next_move__", view.to_json(), timeout=self.move_timeout)
        except self._errors as error:
            raise BotError(*_sandbox_failure(error, self.move_timeout)) from None
        try:
            return Move.from_json(data)
        except ValueError as error:
            raise BotError("illegal", _clip(str(error))) from None

    def close(self) -> None:
        self.box.close()


def _sandbox_failure(error: Exception, timeout: float | None = None) -> tuple[str, str]:
    from .sandbox import StudentError, TimeLimitExceeded

    if isinstance(error, TimeLimitExceeded):
        return "timeout", f"no move within {timeout:g} s of CPU time" if timeout else _clip(str(error))
    if isinstance(error, StudentError) and error.type_name == "IllegalMove":
        return "illegal", _clip(error.message)
    return "crash", _clip(str(error), 2000)


def make_runner(bot: Any, sandboxed: bool, move_timeout: float) -> Any:
    """A sandbox for a bot file; the kit's own bots (trusted) and objects play in-process."""
    builtin = isinstance(bot, str) and bot in BUILTIN_BOTS
    return SandboxRunner(bot, move_timeout) if sandboxed and not builtin else LocalRunner(bot)


# ---------------------------------------------------------------------- one game
def view_of(game: Game, moves: Sequence[Move]) -> View:
    """What a bot sees of a game (no mines, no end view)."""
    revealed = game.revealed
    grid = np.where(revealed, game.numbers, np.where(game.marks == Mark.FLAG, FLAG, UNKNOWN))
    return View(game.shape, game.mine_count, grid.astype(np.int64), game.charges, game.torus, tuple(moves))


def play_game(runner: Any, rules: Rules, seed: int, index: int = 0, logs: bool = False) -> GameRecord:
    """Play one seeded game to its end; every failure of the bot becomes a lost game."""
    game = rules.new_game(seed)
    moves: list[Move] = []
    limit = MOVES_PER_CELL * game.size
    reason, detail = "", ""
    started = time.perf_counter()
    try:
        runner.new_game()
    except BotError as error:
        reason, detail = error.kind, str(error)
    while game.state == "ongoing" and not reason:
        if len(moves) >= limit:
            reason, detail = "too many moves", f"more than {limit} moves"
            break
        try:
            move = runner.next_move(view_of(game, moves))
        except BotError as error:
            reason, detail = error.kind, str(error)
            break
        problem = _illegal(game, move)
        if problem:
            reason, detail = "illegal", problem
            break
        moves.append(move)
        if move.action is Action.DIG:
            game.dig(move.cell)
        else:
            game.toggle_flag(move.cell)
    seconds = time.perf_counter() - started
    if not reason:
        reason = "won" if game.state == "victory" else "mine"
        if reason == "mine":
            detail = f"dug a mine at {list(game.exploded or ())}"
    record = GameRecord(index, seed, rules.label, game.state == "victory", reason, len(moves), seconds, detail)
    if logs and game.placed:
        from .formats import jsonlog, sweepmine

        record.log = jsonlog.record(game, arena={"index": index, "reason": reason, "detail": detail})
        if game.ndim == 2:
            record.sweepmine_out = sweepmine.write_log(sweepmine.log_from_game(game))
    return record


def _illegal(game: Game, move: Move) -> str:
    """Why a move is illegal, or ''."""
    cell = move.cell
    if len(cell) != game.ndim:
        return f"{move.action.value} at {list(cell)}: the board has {game.ndim} axes"
    for axis, (value, size) in enumerate(zip(cell, game.shape)):
        if not 0 <= value < size:
            return f"{move.action.value} at {list(cell)} is off the board (axis {axis} is 0..{size - 1})"
    if game.revealed[cell]:
        return f"{move.action.value} at {list(cell)}: that cell is already open"
    return ""


# ---------------------------------------------------------------------- many games
@dataclass(frozen=True)
class _Chunk:
    bot: Any
    rules: Any  # Rules or Subtask
    run_seed: int
    indices: tuple[int, ...]
    sandboxed: bool
    move_timeout: float
    logs: bool


def _play_chunk(chunk: _Chunk) -> list[GameRecord]:
    """Worker: play a batch of games with one bot (one sandbox) and return their records."""
    runner = None
    out = []
    try:
        for index in chunk.indices:
            seed = game_seed(chunk.run_seed, index)
            rules = chunk.rules.for_game(seed)
            if runner is None:
                try:
                    runner = make_runner(chunk.bot, chunk.sandboxed, chunk.move_timeout)
                except BotError as error:
                    out.append(GameRecord(index, seed, rules.label, False, error.kind, 0, 0.0, str(error)))
                    continue
                except Exception:  # noqa: BLE001 - a bot that cannot even load loses its games
                    out.append(
                        GameRecord(
                            index,
                            seed,
                            rules.label,
                            False,
                            "crash",
                            0,
                            0.0,
                            "loading the bot failed:\n" + _short_traceback(),
                        )
                    )
                    continue
            record = play_game(runner, rules, seed, index, chunk.logs)
            out.append(record)
            if record.reason in ("crash", "timeout") and chunk.sandboxed:
                runner.close()  # a fresh child for the next game
                runner = None
    finally:
        if runner is not None:
            runner.close()
    return out


def play_games(
    bot: Any,
    rules: Rules | Subtask,
    games: int,
    seed: int = 0,
    jobs: int = 1,
    *,
    sandboxed: bool = False,
    move_timeout: float = 5.0,
    dask: str | Any | None = None,
    log_dir: str | os.PathLike | None = None,
    progress: bool = True,
) -> ArenaResult:
    """Play `games` seeded games and return every record with the statistics.

    `bot`: a bot object, a bot class or factory, a path to a bot file or a built-in name (see
    `load_bot`). `sandboxed` runs it in the kit's sandbox with `move_timeout` CPU seconds per
    move (a file or name only). `jobs` worker processes share the games; `dask` (a scheduler
    address or a `distributed.Client`) sends them to a dask cluster instead. `log_dir` receives
    each game's JSON-lines log and `sweepmine.out`, and a `games.jsonl` summary.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if sandboxed and not isinstance(bot, (str, os.PathLike)):
        raise ValueError("a sandboxed bot must be given as a file path or a built-in name")
    logs = log_dir is not None
    workers = jobs if dask is None else 8
    size = max(1, min(50, math.ceil(games / (workers * 4))))
    chunks = [
        _Chunk(bot, rules, int(seed), tuple(range(start, min(games, start + size))), sandboxed, move_timeout, logs)
        for start in range(0, games, size)
    ]
    result = ArenaResult(rules.label)
    bar = _progress(games, rules.label, progress)
    try:
        for records in _run_chunks(chunks, jobs, dask):
            result.records.extend(records)
            bar.update(len(records))
            wins = sum(r.won for r in result.records)
            bar.set_postfix_str(f"won {100 * wins / len(result.records):.1f}%")
    finally:
        bar.close()
    result.records.sort(key=lambda r: r.index)
    if log_dir is not None:
        write_logs(result, Path(log_dir))
    return result


def _progress(total: int, label: str, enabled: bool):
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=label, unit="game", disable=not enabled, file=sys.stderr)


def _run_chunks(chunks: list[_Chunk], jobs: int, dask: Any) -> Iterable[list[GameRecord]]:
    if dask is not None:
        from distributed import Client, as_completed

        client = dask if isinstance(dask, Client) else Client(dask)
        try:
            futures = client.map(_play_chunk, chunks, pure=False)
            for future in as_completed(futures):
                yield future.result()
        finally:
            if client is not dask:
                client.close()
        return
    if jobs == 1:
        for chunk in chunks:
            yield _play_chunk(chunk)
        return
    context = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "forkserver")
    with context.Pool(jobs) as pool:
        yield from pool.imap_unordered(_play_chunk, chunks)


def write_logs(result: ArenaResult, log_dir: Path) -> None:
    """games.jsonl (one summary line per game) and each game's log and sweepmine.out."""
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = "".join(ch if ch.isalnum() else "-" for ch in result.label).strip("-")
    with open(log_dir / f"{stem}.games.jsonl", "w") as summary:
        for r in result.records:
            data = {k: v for k, v in asdict(r).items() if k not in ("log", "sweepmine_out")}
            summary.write(json.dumps(data) + "\n")
            if r.log is not None:
                (log_dir / f"{stem}-{r.index:05d}.jsonl").write_text(r.log)
            if r.sweepmine_out is not None:
                (log_dir / f"{stem}-{r.index:05d}.sweepmine.out").write_text(r.sweepmine_out)


@dataclass
class SubtaskResult:
    subtask: Subtask
    result: ArenaResult

    @property
    def percent(self) -> float:
        return 100 * self.result.win_rate

    @property
    def score(self) -> float:
        return self.subtask.score(self.percent)


def play_sweepmine(
    bot: Any,
    games: int = 1000,
    seed: int = 0,
    jobs: int = 1,
    subtasks: Iterable[int] = (1, 2, 3, 4, 5, 6),
    **options: Any,
) -> list[SubtaskResult]:
    """The Sweepmine.TM contest: each chosen subtask's games, win rate and score S(P/Q)."""
    out = []
    for number in subtasks:
        if not 1 <= number <= len(SUBTASKS):
            raise ValueError(f"Sweepmine subtasks are 1..{len(SUBTASKS)}, got {number}")
        sub = SUBTASKS[number - 1]
        out.append(SubtaskResult(sub, play_games(bot, sub, games, seed + number, jobs, **options)))
    return out


def sweepmine_table(results: list[SubtaskResult]) -> str:
    lines = [f"{'subtask':<8} {'boards':<36} {'games':>6} {'P %':>7} {'95% CI':>15} {'Q %':>5} {'S(P/Q)':>7}"]
    for r in results:
        lo, hi = r.result.interval
        lines.append(
            f"{r.subtask.number:<8} {r.subtask.description:<36} {r.result.games:>6} {r.percent:>7.2f} "
            f"{100 * lo:>6.2f}-{100 * hi:<6.2f}  {r.subtask.q:>5.1f} {r.score:>7.3f}"
        )
    return "\n".join(lines)


# ---------------------------------------------------------------------- command line
def register(subparsers: Any) -> None:
    """Add the `arena` subcommand to the `mines` command's subparsers."""
    parser = subparsers.add_parser(
        "arena",
        help="measure a bot: win rate with a 95%% interval over seeded games",
        description="Play a bot on many seeded games and print its win rate with a 95% Wilson "
        "interval, or (--sweepmine) the six Sweepmine.TM subtasks with their scores S(P/Q). "
        "BOT is a Python file (make_bot(), next_move(view), a Sweepmine next_move(R, C, N, grid, "
        "charge, T), a ...Player class with take_turn(state), or take_turn(state)) or a built-in "
        "bot: reference, baseline, random. Files run in the kit's bubblewrap sandbox unless --trusted.",
    )
    parser.add_argument("bot", metavar="BOT", help="bot file, or 'reference' / 'baseline' / 'random'")
    what = parser.add_mutually_exclusive_group()
    what.add_argument("--preset", choices=list(PRESETS), default="beginner", help="board (default beginner)")
    what.add_argument("--sweepmine", action="store_true", help="play the six Sweepmine.TM subtasks")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games to play (per subtask with --sweepmine; default 100, 1000 with --sweepmine)",
    )
    parser.add_argument("--torus", action="store_true", help="every axis wraps around")
    parser.add_argument(
        "--charges",
        action="store_true",
        help="charged mines: charges drawn from [-10, 1] without 0, like the Sweepmine judge",
    )
    parser.add_argument("--seed", type=int, default=0, help="run seed; game i uses a seed derived from (seed, i)")
    parser.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: the number of cores)"
    )
    parser.add_argument("--dask", metavar="ADDRESS", help="run the games on a dask.distributed scheduler")
    parser.add_argument("--trusted", action="store_true", help="run the bot in-process, without the sandbox")
    parser.add_argument("--move-timeout", type=float, default=5.0, help="seconds per move in the sandbox (default 5)")
    parser.add_argument("--log-dir", metavar="DIR", help="write each game's JSON-lines log and sweepmine.out here")
    parser.add_argument("--json", action="store_true", help="print the results as JSON")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if args.sweepmine and (args.torus or args.charges):
        print("mines arena: --sweepmine plays the subtasks' own boards; drop --torus/--charges", file=sys.stderr)
        return 2
    builtin = args.bot in BUILTIN_BOTS
    if not builtin and not Path(args.bot).is_file():
        print(f"mines arena: no bot file {args.bot!r} (built-in bots: {', '.join(BUILTIN_BOTS)})", file=sys.stderr)
        return 2
    bot = args.bot if builtin else str(Path(args.bot).resolve())
    sandboxed = not args.trusted and not builtin
    options = dict(
        sandboxed=sandboxed,
        move_timeout=args.move_timeout,
        dask=args.dask,
        log_dir=args.log_dir,
        progress=not args.quiet,
    )
    try:
        if args.sweepmine:
            results = play_sweepmine(bot, args.games or 1000, args.seed, args.jobs, **options)
            if args.json:
                print(
                    json.dumps(
                        [
                            {
                                **r.result.to_json(),
                                "subtask": r.subtask.number,
                                "percent": r.percent,
                                "q": r.subtask.q,
                                "score": r.score,
                            }
                            for r in results
                        ],
                        indent=1,
                    )
                )
            else:
                print(sweepmine_table(results))
        else:
            rules = Rules.preset(args.preset, args.torus, args.charges)
            result = play_games(bot, rules, args.games or 100, args.seed, args.jobs, **options)
            print(json.dumps(result.to_json(), indent=1) if args.json else result.summary())
    except ValueError as error:
        print(f"mines arena: {error}", file=sys.stderr)
        return 2
    return 0
