"""Running a tournament: the units still to play, played and saved, then everything ranked."""

from __future__ import annotations

import os
import secrets
import time
from collections import Counter
from collections.abc import Sequence
from typing import Any

from .. import __version__
from ..arena import GameRecord, map_unordered, progress_bar
from .entrants import Entrant, Event, find_entrants, make_events
from .reports import write_outputs
from .standings import Standings, rank_standings
from .units import ResultsFolder, Unit, make_units, play_unit, unpack_record

#: Saved unit results by (bot, event, first game).
Saved = dict[tuple[str, str, int], dict]


def run_tournament(
    bots: Sequence[str | os.PathLike] = (),
    *,
    folder: str | os.PathLike | None = None,
    presets: Sequence[str] = ("beginner", "intermediate", "expert"),
    sweepmine: bool = False,
    subtasks: Sequence[int] = (1, 2, 3, 4, 5, 6),
    games: int = 500,
    seed: int | None = None,
    jobs: int = 1,
    dask: str | Any | None = None,
    results_dir: str | os.PathLike = "tournament-results",
    move_timeout: float = 5.0,
    trusted: bool = False,
    chunk_size: int = 50,
    alpha: float = 0.05,
    progress: bool = True,
    write: bool = True,
) -> Standings:
    """Play every bot on the same games (reusing saved units), rank them and write the reports.

    Writes ``leaderboard.csv``, ``pairwise.csv``, ``tournament.json`` and ``tournament.html``
    into ``results_dir`` (unless ``write`` is False) and returns the `Standings`. Without a
    ``seed``, a fresh one is drawn (`draw_seed`), so no bot can be tuned to the games in advance;
    every report records it, and passing it again replays the same games.
    """
    _check(games=games, jobs=jobs, chunk_size=chunk_size)
    seed = draw_seed() if seed is None else int(seed)
    if move_timeout <= 0:
        raise ValueError(f"move_timeout must be positive, got {move_timeout}")
    entrants = find_entrants(bots, folder, trusted)
    events = make_events(presets, seed, sweepmine, subtasks)
    store = ResultsFolder(results_dir)
    saved, todo = _reuse_saved(store, make_units(entrants, events, games, chunk_size, move_timeout))
    reused = len(saved)
    started = time.perf_counter()
    _play(todo, store, saved, jobs, dask, progress)
    wall = time.perf_counter() - started
    records, bins = _gather(saved, entrants, events)
    settings = {
        "games": games,
        "seed": seed,
        "events": [e.name for e in events],
        "sweepmine": sweepmine,
        "move_timeout": move_timeout,
        "trusted": trusted,
        "chunk_size": chunk_size,
        "alpha": alpha,
        "jobs": jobs if dask is None else f"dask {dask if isinstance(dask, str) else 'client'}",
        "units_played": len(todo),
        "units_reused": reused,
        "games_played": sum(u.stop - u.start for u, _ in todo),
        "play_seconds": round(wall, 3),
        "kit": __version__,
        "written": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    standings = rank_standings(records, events, entrants, bins, alpha=alpha, settings=settings)
    if write:
        write_outputs(standings, results_dir)
    return standings


def draw_seed() -> int:
    """A tournament seed nobody can know before the run (the operating system's randomness), in
    the range `autograder grade` draws its seeds from."""
    return secrets.randbelow(2**31)


def _check(**counts: int) -> None:
    for name, value in counts.items():
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")


def _reuse_saved(store: ResultsFolder, units: list[tuple[Unit, Entrant]]) -> tuple[Saved, list[tuple[Unit, Entrant]]]:
    """The units already saved with a matching fingerprint, and the ones still to play."""
    saved: Saved = {}
    todo = []
    for unit, entrant in units:
        data = store.load(unit, entrant)
        if data is None:
            todo.append((unit, entrant))
        else:
            saved[(unit.bot, unit.event, unit.start)] = data
    return saved, todo


def _play(todo: list[tuple[Unit, Entrant]], store: ResultsFolder, saved: Saved, jobs: int, dask: Any, progress: bool):
    """Play the units, saving each as it finishes (so a stopped run resumes) and adding it to `saved`."""
    entrant_of = {entrant.name: entrant for _, entrant in todo}
    units = [unit for unit, _ in todo]
    bar = progress_bar(sum(u.stop - u.start for u in units), "tournament", progress and bool(units))
    try:
        for unit, result in map_unordered(play_unit, units, jobs, dask):
            store.save(unit, entrant_of[unit.bot], result)
            saved[(unit.bot, unit.event, unit.start)] = result
            bar.update(unit.stop - unit.start)
            bar.set_postfix_str(f"{unit.bot} / {unit.event}", refresh=False)
    finally:
        bar.close()


def _gather(
    saved: Saved, entrants: Sequence[Entrant], events: Sequence[Event]
) -> tuple[dict[str, dict[str, list[GameRecord]]], dict[str, Counter]]:
    """Every bot's records per event, and its move-time bins, from the saved units."""
    records: dict[str, dict[str, list[GameRecord]]] = {e.name: {ev.name: [] for ev in events} for e in entrants}
    bins: dict[str, Counter] = {e.name: Counter() for e in entrants}
    for (bot, event, _), data in saved.items():
        records[bot][event].extend(unpack_record(r) for r in data["records"])
        bins[bot].update({int(k): v for k, v in data.get("move_bins", {}).items()})
    return records, bins
