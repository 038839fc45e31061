"""Many games: seeds, chunks of games spread over worker processes or a dask cluster, progress.

Every game is seeded: game i of a run with seed S uses the seed derived from (S, i), so a run is
reproducible whatever the number of workers, and any game can be replayed from its record.
"""

from __future__ import annotations

import math
import multiprocessing
import os
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, TypeVar

import numpy as np

from ..rules import Rules
from .loop import play_series
from .results import ArenaResult, GameRecord, write_logs
from .runners import make_runner
from .scoring import Subtask, SubtaskResult, subtask

Task = TypeVar("Task")
Result = TypeVar("Result")


def game_seed(run_seed: int, index: int) -> int:
    """The seed of game `index` of a run: independent of how games are spread over workers."""
    return int(np.random.SeedSequence([int(run_seed), int(index)]).generate_state(1)[0])


def map_unordered(
    fn: Callable[[Task], Result], tasks: Sequence[Task], jobs: int, dask: Any = None
) -> Iterator[tuple[Task, Result]]:
    """``(task, fn(task))`` as tasks finish: inline, in a pool of `jobs` processes, or on dask.

    `fn` must be a module-level function (workers import it by name). `dask` is a scheduler
    address or a `distributed.Client`; a client made here is closed at the end.
    """
    if dask is not None:
        yield from _map_on_dask(fn, tasks, dask)
        return
    if jobs == 1 or len(tasks) <= 1:
        for task in tasks:
            yield task, fn(task)
        return
    context = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "forkserver")
    with context.Pool(min(jobs, len(tasks))) as pool:
        yield from pool.imap_unordered(_call_tagged, [(fn, task) for task in tasks])


def _map_on_dask(fn: Callable[[Task], Result], tasks: Sequence[Task], dask: Any) -> Iterator[tuple[Task, Result]]:
    from distributed import Client, as_completed

    client = dask if isinstance(dask, Client) else Client(dask)
    try:
        futures = client.map(fn, tasks, pure=False)
        owner = {future.key: task for future, task in zip(futures, tasks)}
        for future in as_completed(futures):
            yield owner[future.key], future.result()
    finally:
        if client is not dask:
            client.close()


def _call_tagged(item: tuple[Callable[[Task], Result], Task]) -> tuple[Task, Result]:
    fn, task = item
    return task, fn(task)


def progress_bar(total: int, label: str, enabled: bool) -> Any:
    """A tqdm bar on stderr (disabled, it still accepts updates)."""
    from tqdm.auto import tqdm

    return tqdm(total=total, desc=label, unit="game", disable=not enabled, file=sys.stderr)


@dataclass(frozen=True)
class _Chunk:
    """Games of one run that one worker plays with one runner."""

    bot: Any
    rules: Rules | Subtask
    run_seed: int
    indices: tuple[int, ...]
    sandboxed: bool
    move_timeout: float
    logs: bool


def _play_chunk(chunk: _Chunk) -> list[GameRecord]:
    """Worker: play a chunk of games with one bot (one sandbox) and return their records."""
    games = []
    for index in chunk.indices:
        seed = game_seed(chunk.run_seed, index)
        games.append((chunk.rules.for_game(seed), seed, index))
    return play_series(
        lambda: make_runner(chunk.bot, chunk.sandboxed, chunk.move_timeout),
        games,
        fresh_after_failure=chunk.sandboxed,
        logs=chunk.logs,
    )


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
    size = max(1, min(50, math.ceil(games / (workers * 4))))  # about four chunks per worker, for balance
    chunks = [
        _Chunk(bot, rules, int(seed), tuple(range(start, min(games, start + size))), sandboxed, move_timeout, logs)
        for start in range(0, games, size)
    ]
    result = ArenaResult(rules.label)
    bar = progress_bar(games, rules.label, progress)
    try:
        for _, records in map_unordered(_play_chunk, chunks, jobs, dask):
            result.records.extend(records)
            bar.update(len(records))
            bar.set_postfix_str(f"won {100 * result.wins / result.games:.1f}%")
    finally:
        bar.close()
    result.records.sort(key=lambda r: r.index)
    if log_dir is not None:
        write_logs(result, Path(log_dir))
    return result


def play_sweepmine(
    bot: Any,
    games: int = 1000,
    seed: int = 0,
    jobs: int = 1,
    subtasks: Iterable[int] = (1, 2, 3, 4, 5, 6),
    **options: Any,
) -> list[SubtaskResult]:
    """The Sweepmine.TM contest: each chosen subtask's games, win rate and score S(P/Q).

    Subtask n is played with run seed ``seed + n``; `options` are `play_games`'s.
    """
    out = []
    for number in subtasks:
        sub = subtask(number)
        out.append(SubtaskResult(sub, play_games(bot, sub, games, seed + number, jobs, **options)))
    return out
