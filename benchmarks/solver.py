"""Strength and speed of the reference solver, side by side with the baseline bot.

Plays seeded games (safe first click) with the arena on each preset, bounded, on the torus and
with charged mines (charges drawn from [-10, 1] without 0, like the Sweepmine judge), then the
mixed Sweepmine subtasks 4-6, and rewrites the "Solver" section of BENCHMARKS.md after every
configuration (so an interrupted run still leaves exact figures for what it finished).

    python -m benchmarks.solver                       # 10,000 games per configuration, 2 workers
    python -m benchmarks.solver --games 300 -j 1      # a quick look
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time

from benchmarks.report import machine, write_section
from minesweeper_kit.arena import SUBTASKS, Rules, play_games, sweepmine_score

# Best published win rates with a safe (not necessarily opening) first click, as quoted in the
# kit's design brief, and the Sweepmine judge's rates Q for subtasks 1-3.
PUBLISHED = {"beginner": 91.69, "intermediate": 78.23, "expert": 40.05}
JUDGE = {"beginner": 90.0, "intermediate": 78.0, "expert": 37.0}
SUBTASK_OF = {"beginner": 1, "intermediate": 2, "expert": 3}


def configurations() -> list[tuple[str, Rules]]:
    out = []
    for variant in ("bounded", "torus", "charged"):
        for preset in ("beginner", "intermediate", "expert"):
            rules = Rules.preset(preset, torus=variant == "torus", charges=variant == "charged")
            out.append((variant, rules))
    return out


def describe(result) -> dict:
    lo, hi = result.interval
    times = sorted(r.seconds for r in result.records)
    return {"games": result.games, "wins": result.wins, "rate": 100 * result.win_rate,
            "lo": 100 * lo, "hi": 100 * hi, "mean_ms": 1000 * result.seconds_per_game,
            "median_ms": 1000 * statistics.median(times)}


def render(rows: list[dict], subtasks: list[dict], args, started: float, done: bool) -> str:
    lines = [
        "## Solver",
        "",
        f"Machine: {machine()}.",
        "",
        "`benchmarks/solver.py`: the reference solver (`minesweeper_kit.bots.ReferenceSolver`) and the "
        "baseline bot (`BaselineBot`: what each number proves on its own, else a random covered cell) "
        "play seeded arena games, safe first click, in-process (trusted), "
        f"{args.jobs} worker process(es). Win rates with 95% Wilson intervals. Time per game is the "
        "wall time of one game in a worker (the bot's moves and the engine's digs), mean and median "
        "over the row's games; the machine is shared, so these depend on its load: the table "
        "below gives single-process medians of several runs. Charged rows draw charges from "
        "[-10, 1] without 0. "
        f"Run seed {args.seed}; the games were never used to tune the solver.",
        "",
        "| board | variant | bot | games | won | win rate (95% CI) | published best | Sweepmine judge Q | time/game mean | median |",
        "|---|---|---|---:|---:|---|---:|---:|---:|---:|",
    ]
    for r in rows:
        published = f"{PUBLISHED[r['preset']]:.2f} %" if r["variant"] == "bounded" else "—"
        judge = f"{JUDGE[r['preset']]:.0f} %" if r["variant"] == "bounded" else "—"
        lines.append(
            f"| {r['preset']} | {r['variant']} | {r['bot']} | {r['games']:,} | {r['wins']:,} | "
            f"{r['rate']:.2f} % ({r['lo']:.2f}-{r['hi']:.2f}) | {published} | {judge} | "
            f"{r['mean_ms']:.1f} ms | {r['median_ms']:.1f} ms |")
    scored = []
    for r in rows:
        if r["variant"] == "bounded" and r["bot"] == "reference":
            sub = SUBTASKS[SUBTASK_OF[r["preset"]] - 1]
            scored.append((sub, r))
    scored += [(SUBTASKS[s["number"] - 1], s) for s in subtasks]
    if scored:
        lines += [
            "",
            "Sweepmine subtasks (subtasks 1-3 are the bounded rows above; 4-6 mix the three boards, "
            "drawn per game, with the torus at probability 1/2 in 4 and 6). S(P/Q) = ((k1-1)x^k2 + x)/k1, "
            "x = P/Q, not capped (1.000 = the judge).",
            "",
            "| subtask | boards | games | P (95% CI) | Q | S(P/Q) |",
            "|---:|---|---:|---|---:|---:|",
        ]
        for sub, r in sorted(scored, key=lambda p: p[0].number):
            lines.append(f"| {sub.number} | {sub.description} | {r['games']:,} | {r['rate']:.2f} % "
                         f"({r['lo']:.2f}-{r['hi']:.2f}) | {sub.q:.0f} % | "
                         f"{sweepmine_score(r['rate'], sub.q, sub.k1, sub.k2):.3f} |")
    minutes = (time.time() - started) / 60
    status = (f"complete in {minutes:.0f} min" if done
              else f"in progress for {minutes:.0f} min (the rows above are final; later rows are missing)")
    lines += ["", f"Run {status}. "
              f"Reference: {args.games:,} games per row; baseline: {args.baseline_games:,}."]
    return "\n".join(lines)


def timing(args) -> None:
    """Time per game, single process: the median of several runs, reference beside baseline."""
    lines = [
        "### Solver: time per game",
        "",
        f"Machine: {machine()}.",
        "",
        f"One process, {args.timing_games} games per run, {args.timing_runs} runs (different seeds) per row; "
        "the figure is the median over runs of the mean time per game (the bot's moves and the engine's "
        "digs), the runs beside it. Bounded boards, no charges.",
        "",
        "| board | bot | median ms/game | runs (ms/game) |",
        "|---|---|---:|---|",
    ]
    for preset in ("beginner", "intermediate", "expert"):
        for bot in ("reference", "baseline"):
            runs = []
            for run in range(args.timing_runs):
                result = play_games(bot, Rules.preset(preset), args.timing_games, args.seed + 1000 + run, 1,
                                    progress=False)
                runs.append(1000 * result.seconds_per_game)
            lines.append(f"| {preset} | {bot} | {statistics.median(runs):.1f} | "
                         + ", ".join(f"{r:.1f}" for r in runs) + " |")
            print(lines[-1], flush=True)
    write_section("solver-timing", "\n".join(lines))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--games", type=int, default=10_000, help="reference-solver games per row")
    parser.add_argument("--baseline-games", type=int, default=1_000, help="baseline games per row")
    parser.add_argument("--subtask-games", type=int, default=2_000, help="games per mixed Sweepmine subtask")
    parser.add_argument("-j", "--jobs", type=int, default=2)
    parser.add_argument("--seed", type=int, default=20261122)
    parser.add_argument("--only", choices=["bounded", "torus", "charged"], action="append",
                        help="run only these variants (repeatable)")
    parser.add_argument("--timing-games", type=int, default=200, help="games per timing run")
    parser.add_argument("--timing-runs", type=int, default=3, help="timing runs per row")
    parser.add_argument("--timing-only", action="store_true", help="only the single-process timing table")
    args = parser.parse_args(argv)
    if args.timing_only:
        timing(args)
        return 0
    started = time.time()
    rows: list[dict] = []
    subtasks: list[dict] = []
    for variant, rules in configurations():
        if args.only and variant not in args.only:
            continue
        for bot, games in (("reference", args.games), ("baseline", args.baseline_games)):
            if games <= 0:
                continue
            result = play_games(bot, rules, games, args.seed, args.jobs)
            print(result.summary(), f"[{bot}, {variant}]", flush=True)
            rows.append({"preset": rules.name, "variant": variant, "bot": bot, **describe(result)})
            write_section("solver", render(rows, subtasks, args, started, False))
    if args.subtask_games > 0 and not args.only:
        for sub in SUBTASKS[3:]:
            result = play_games("reference", sub, args.subtask_games, args.seed + sub.number, args.jobs)
            print(result.summary(), flush=True)
            subtasks.append({"number": sub.number, **describe(result)})
            write_section("solver", render(rows, subtasks, args, started, False))
    write_section("solver", render(rows, subtasks, args, started, True))
    if not args.only:
        timing(args)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
