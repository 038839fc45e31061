"""How fast a class tournament runs, and how long ranking a class of 50 bots would take.

Plays `mines tournament` with the kit's built-in bots (in-process) and the test class of bot
files in tests/bots/data/tournament/ (sandboxed, several broken on purpose) on the three presets,
from an empty results folder, then once more to time a resumed run that reuses every unit. The
time to rank 50 bots is estimated from the measured games per second (play) plus the measured
time to analyse and write the reports for 50 bots (synthetic records, the same number of games).
Rewrites the "Tournament" section of BENCHMARKS.md.

    python -m benchmarks.tournament                       # 500 games per preset, 2 workers
    python -m benchmarks.tournament --games 50            # a quick look
"""

from __future__ import annotations

import argparse
import os
import random
import shutil
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

from benchmarks.report import machine, write_section
from minesweeper_kit.arena import GameRecord
from minesweeper_kit.tournament import Entrant, Standings, make_events, rank_standings, run_tournament, write_outputs

ROOT = Path(__file__).resolve().parent.parent
BOTS = ROOT / "tests" / "bots" / "data" / "tournament"
BUILTIN = ["reference", "baseline", "random"]


def analysis_seconds(bots: int, games: int, seed: int) -> float:
    """Analyse and write every report for ``bots`` synthetic bots on the three presets."""
    rng = random.Random(seed)
    events = make_events()
    records = {}
    for b in range(bots):
        strength = rng.random()
        records[f"bot{b:02d}"] = {e.name: [GameRecord(i, i, e.name, rng.random() < strength * (1 - 0.3 * k), "won", 50,
                                                      0.01) for i in range(games)]
                                  for k, e in enumerate(events)}
    entrants = [Entrant(name, name, "", True) for name in records]
    started = time.perf_counter()
    standings = rank_standings(records, events, entrants, settings={"games": games})
    with tempfile.TemporaryDirectory() as temp:
        write_outputs(standings, temp)
    return time.perf_counter() - started


class LoadSampler:
    """Samples the 1-minute load average every few seconds while the tournament plays."""

    def __init__(self, every: float = 10.0) -> None:
        self.every, self.samples = every, [os.getloadavg()[0]]
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)

    def _run(self) -> None:
        while not self._stop.wait(self.every):
            self.samples.append(os.getloadavg()[0])

    def __enter__(self) -> LoadSampler:
        self._thread.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self._stop.set()
        self._thread.join()
        self.samples.append(os.getloadavg()[0])

    def describe(self) -> str:
        ordered = sorted(self.samples)
        return (f"load average (1 min) during the run: median {statistics.median(ordered):.1f}, "
                f"from {ordered[0]:.1f} to {ordered[-1]:.1f}")


def fmt_duration(seconds: float) -> str:
    if seconds < 120:
        return f"{seconds:.0f} s"
    if seconds < 2 * 3600:
        return f"{seconds / 60:.0f} min"
    return f"{seconds / 3600:.1f} h"


def render(standings: Standings, measured: dict, args: argparse.Namespace) -> str:
    """The BENCHMARKS.md section from the standings and the measured times."""
    rate = measured["games_played"] / measured["play_seconds"]
    bots = len(standings.rows)
    class_games = args.class_size * 3 * args.games
    estimate = class_games / rate + measured["analysis"]
    busy = {row.name: row.seconds_per_game * row.overall.games for row in standings.rows}
    worker = sum(busy.values())
    heaviest = sorted(busy, key=busy.get, reverse=True)[:3]
    lines = ["## Tournament", "", f"Machine: {machine()}.", "",
             f"`benchmarks/tournament.py`: `mines tournament` with the built-in bots (reference, baseline, random; "
             f"in-process) and the {bots - 3} bot files of `tests/bots/data/tournament/` (in the arena's sandbox, "
             f"move limit {args.move_timeout:g} s; four are broken on purpose: they crash, play an illegal move, "
             f"run past the move limit, or cannot be loaded), {args.games} games per preset, the same games "
             f"for every bot (seed {args.seed}), {args.jobs} worker processes, from an empty results folder. "
             f"The machine was shared: {measured['load']}.", "",
             "| bot | beginner | intermediate | expert | crash | illegal | time-out | move p50 | move p95 | time/game |",
             "|---|---|---|---|---:|---:|---:|---:|---:|---:|"]
    for row in standings.rows:
        cells = []
        for event in ("beginner", "intermediate", "expert"):
            e = row.events[event]
            cells.append(f"{100 * e.rate:.1f} % ({100 * e.interval[0]:.1f}-{100 * e.interval[1]:.1f}) #{e.rank}")
        p50, p95 = row.move_seconds(0.5), row.move_seconds(0.95)
        where = "" if row.entrant.sandboxed else " (in-process)"
        lines.append(f"| {row.name}{where} | " + " | ".join(cells)
                     + f" | {row.failures['crash']} | {row.failures['illegal']} | {row.failures['timeout']} | "
                     + ("—" if p50 is None else f"{1000 * p50:.3g} ms") + " | "
                     + ("—" if p95 is None else f"{1000 * p95:.3g} ms") + f" | {1000 * row.seconds_per_game:.1f} ms |")
    separated = {family: sum(p.winner is not None for p in pairs) for family, pairs in standings.pairs.items()}
    pairs = len(next(iter(standings.pairs.values())))
    lines += ["",
              "Win rates with 95 % Wilson intervals; #n is the bot's rank in that preset (ties share a rank: a bot "
              "is ranked above another only where the exact McNemar test on their paired games, Holm-corrected "
              "over the preset's pairs, says so). Pairs separated at 95 %: "
              + ", ".join(f"{family} {n} of {pairs}" for family, n in separated.items()) + ". "
              "Time per move: median and 95th percentile of every move's wall time (sandboxed bots: the "
              "round trip to the sandbox included).", "",
              "| measurement | value |", "|---|---:|",
              f"| games played | {measured['games_played']:,} ({bots} bots x 3 presets x {args.games}) |",
              f"| playing time ({args.jobs} workers) | {measured['play_seconds']:.0f} s |",
              f"| games per second | {rate:.1f} |",
              f"| whole command (play, analysis, reports) | {measured['total']:.0f} s |",
              f"| rerun, every unit reused (analysis and reports only) | {measured['resumed']:.1f} s |",
              f"| analysis and reports for {args.class_size} bots x 3 x {args.games} games (synthetic records) | "
              f"{measured['analysis']:.1f} s |",
              f"| estimate: ranking {args.class_size} bots ({class_games:,} games) on {args.jobs} cores | "
              f"{fmt_duration(estimate)} |", "",
              f"The estimate is {class_games:,} games / {rate:.1f} games per second + "
              f"{measured['analysis']:.1f} s of analysis: it assumes the class's bots cost, on average, what this field costs per game (a class of strong "
              "sandboxed bots plays longer games than this field, which has several weak and broken bots; "
              "bots that hit the move limit cost about the limit per time-out). Time grows linearly with bots "
              "and games, and the units spread over more cores or a dask cluster (`--dask`).",
              "", f"Where the workers' time went ({worker:,.0f} s of games in all, summed over both workers): "
              + ", ".join(f"{name} {100 * busy[name] / worker:.0f} %" for name in heaviest)
              + ". Every move of a sandboxed bot is a round trip to its sandbox process, so even a trivial "
              "sandboxed bot costs milliseconds per move, against microseconds in-process."]
    return "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=500, help="games per preset for every bot")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261123)
    parser.add_argument("--move-timeout", type=float, default=1.0)
    parser.add_argument("--results-dir", type=Path, default=ROOT / "bench-results" / "tournament")
    parser.add_argument("--class-size", type=int, default=50, help="bots in the estimate")
    args = parser.parse_args(argv)
    if args.results_dir.exists():
        shutil.rmtree(args.results_dir)  # a fresh run: every game is played and timed
    options = dict(folder=BOTS, games=args.games, seed=args.seed, jobs=args.jobs, move_timeout=args.move_timeout,
                   results_dir=args.results_dir)
    started = time.perf_counter()
    with LoadSampler() as load:
        standings = run_tournament(BUILTIN, **options)
    total = time.perf_counter() - started
    started = time.perf_counter()
    again = run_tournament(BUILTIN, **options, progress=False)
    resumed = time.perf_counter() - started
    assert again.settings["units_played"] == 0
    analysis = analysis_seconds(args.class_size, args.games, args.seed)
    measured = {"games_played": standings.settings["games_played"], "play_seconds": standings.settings["play_seconds"],
                "total": total, "resumed": resumed, "analysis": analysis, "load": load.describe()}
    text = render(standings, measured, args)
    write_section("tournament", text)
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
