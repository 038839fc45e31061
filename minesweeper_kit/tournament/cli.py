"""`mines tournament`: the command line over `run_tournament`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from typing import Any

from ..presets import PRESETS
from .running import draw_seed, run_tournament

TOURNAMENT_DESCRIPTION = """Play every bot on the same seeded games and rank them honestly.

Each BOT is a Python file (the shapes `mines arena` accepts) or a built-in bot: reference,
baseline, random; --dir adds every *.py of a folder. Game i of an event has the same mines for
every bot, so bots are compared game by game: a bot is ranked above another only where an exact
McNemar test on the games one won and the other lost says so (two-sided, 95 %, Holm-corrected over
all pairs of the event); tied bots share a rank. The leaderboard gives each win rate with its 95 %
Wilson interval, with --sweepmine the Sweepmine score S(P/Q) of each subtask, and per bot the games
lost to crashes, illegal moves and time-outs and the median and 95th-percentile time per move.

Bot files run in the arena's sandbox (a time limit per move) unless --trusted; built-in bots run
in-process. Finished (bot, event, chunk of games) units are saved in --results-dir and reused by
the next run with the same settings (the seed included), so an interrupted run resumes; a bot
file whose SHA-256 changed is replayed. The results folder receives leaderboard.csv,
pairwise.csv, tournament.json and tournament.html (a page with its plots inside: it opens without
a server or network).

Without --seed every run draws a fresh seed, so nobody can tune a bot to the games in advance; it
is printed first ("seed N; rerun with --seed N to replay the same games") and recorded in every
report. Give that --seed to replay the games, or to resume a stopped run from its saved units."""


def register(subparsers: Any) -> None:
    """Add the `tournament` subcommand to the `mines` command's subparsers."""
    parser = subparsers.add_parser(
        "tournament",
        help="rank many bots on the same games, with paired tests",
        description=TOURNAMENT_DESCRIPTION,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "bots", nargs="*", metavar="BOT", help="bot files or built-in names (reference, baseline, random)"
    )
    parser.add_argument("--dir", metavar="FOLDER", help="add every *.py bot file of this folder")
    _add_event_options(parser)
    parser.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: the number of cores)"
    )
    parser.add_argument("--dask", metavar="ADDRESS", help="run the units on a dask.distributed scheduler")
    parser.add_argument(
        "--results-dir",
        default="tournament-results",
        metavar="DIR",
        help="where units are saved and the reports written (default ./tournament-results)",
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=5.0,
        help="time limit per move for sandboxed bots, as in `mines arena` (default 5 s); a move past it loses the game",
    )
    parser.add_argument("--trusted", action="store_true", help="run bot files in-process, without the sandbox")
    parser.add_argument(
        "--chunk-size", type=int, default=50, help="games per saved unit (default 50); changing it replays everything"
    )
    parser.add_argument("--json", action="store_true", help="print tournament.json instead of the table")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def _add_event_options(parser: argparse.ArgumentParser) -> None:
    """Which games every bot plays: the events (presets or Sweepmine subtasks), how many, the seed."""
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--preset",
        nargs="+",
        choices=list(PRESETS),
        default=list(PRESETS),
        metavar="PRESET",
        help="events: one or more of beginner, intermediate, expert (default: all three)",
    )
    what.add_argument(
        "--sweepmine",
        action="store_true",
        help="events: the Sweepmine.TM subtasks, each scored S(P/Q) (see --subtasks)",
    )
    parser.add_argument(
        "--subtasks",
        nargs="+",
        type=int,
        default=[1, 2, 3, 4, 5, 6],
        metavar="N",
        help="with --sweepmine: which subtasks (default 1 to 6)",
    )
    parser.add_argument("--games", type=int, default=500, help="games per event for every bot (default 500)")
    parser.add_argument(
        "--seed",
        type=int,
        help="tournament seed: game i of a preset uses the seed derived from (seed, i), as `mines arena --seed` "
        "does (default: a fresh one, printed and recorded in the reports; give it again to replay the same games "
        "or resume a stopped run)",
    )


def run(args: argparse.Namespace) -> int:
    """Run `mines tournament` with parsed arguments; 2 for a usage error, 3 when the bots' sandbox
    could not start on this machine (units played so far are kept), else 0."""
    from ..sandbox import IsolationUnavailable, SandboxUnavailable

    if not args.bots and not args.dir:
        print("mines tournament: name the bots (files or built-in names) or give --dir FOLDER", file=sys.stderr)
        return 2
    seed = draw_seed() if args.seed is None else args.seed
    # First, so that a stopped run can be resumed; on stderr when stdout is kept for --json.
    print(
        f"seed {seed}; rerun with --seed {seed} to replay the same games",
        file=sys.stderr if args.json else sys.stdout,
        flush=True,
    )
    try:
        standings = run_tournament(
            args.bots,
            folder=args.dir,
            presets=args.preset,
            sweepmine=args.sweepmine,
            subtasks=args.subtasks,
            games=args.games,
            seed=seed,
            jobs=args.jobs,
            dask=args.dask,
            results_dir=args.results_dir,
            move_timeout=args.move_timeout,
            trusted=args.trusted,
            chunk_size=args.chunk_size,
            progress=not args.quiet,
        )
    except ValueError as error:
        print(f"mines tournament: {error}", file=sys.stderr)
        return 2
    except (IsolationUnavailable, SandboxUnavailable) as error:
        print(f"mines tournament: the bots' sandbox could not start on this machine: {error}", file=sys.stderr)
        return 3
    if args.json:
        print(json.dumps(standings.to_json(), indent=1))
    else:
        s = standings.settings
        print(standings.table())
        print(
            f"\nplayed {s['games_played']} game(s) in {s['play_seconds']:.1f} s, reused {s['units_reused']} "
            f"saved unit(s); seed {seed}; reports in {args.results_dir}/ (tournament.html, leaderboard.csv, "
            "pairwise.csv, tournament.json)"
        )
    return 0
