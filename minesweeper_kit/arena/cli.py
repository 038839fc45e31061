"""`mines arena`: measure one bot, on one board or on the six Sweepmine.TM subtasks.

The board options are the shared ones of `mines play` (`play.add_game_options`), with two
meanings of the arena's own: ``--seed`` is the run seed (game i uses the seed derived from
(seed, i); default 0, so a run repeats), and a bare ``--charges`` draws from the Sweepmine judge's
range [-10, 1] rather than `mines play`'s [-10, 10].
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

from ..play import add_game_options, parse_charge_range, rules_from_options
from ..rules import SWEEPMINE_CHARGES
from .loading import BUILTIN_BOTS
from .schedule import play_games, play_sweepmine
from .scoring import sweepmine_table

ARENA_DESCRIPTION = (
    "Play a bot on many seeded games and print its win rate with a 95% Wilson interval, or "
    "(--sweepmine) the six Sweepmine.TM subtasks with their scores S(P/Q). BOT is a Python file "
    "(make_bot(), next_move(view), a Sweepmine next_move(R, C, N, grid, charge, T), a ...Player class "
    "with take_turn(state), or take_turn(state)) or a built-in bot: reference, baseline, random. Files "
    "run in the kit's bubblewrap sandbox unless --trusted."
)

#: The board options --sweepmine refuses (its subtasks choose their boards), with their defaults.
_BOARD_DEFAULTS = {
    "preset": None,
    "shape": None,
    "mines": None,
    "torus": False,
    "charges": None,
    "reveal": "flood",
    "first_move": "safe",
}


def register(subparsers: Any) -> None:
    """Add the `arena` subcommand to the `mines` command's subparsers."""
    parser = subparsers.add_parser(
        "arena",
        help="measure a bot: win rate with a 95%% interval over seeded games",
        description=ARENA_DESCRIPTION,
        conflict_handler="resolve",  # --charges and --seed are redefined below
    )
    parser.add_argument("bot", metavar="BOT", help="bot file, or 'reference' / 'baseline' / 'random'")
    add_game_options(parser)
    parser.set_defaults(preset=None)  # an explicit --preset is told apart from the default (beginner)
    parser.add_argument(
        "--charges",
        nargs="?",
        const=SWEEPMINE_CHARGES,
        type=parse_charge_range,
        metavar="LOW:HIGH",
        help="charged mines; without a range, charges are drawn from [-10, 1] without 0, like the Sweepmine judge "
        "(write --charges=-3:2 when a range starts below zero)",
    )
    parser.add_argument("--seed", type=int, default=0, help="run seed; game i uses a seed derived from (seed, i)")
    parser.add_argument("--sweepmine", action="store_true", help="play the six Sweepmine.TM subtasks")
    parser.add_argument(
        "--games",
        type=int,
        default=None,
        help="games to play (per subtask with --sweepmine; default 100, 1000 with --sweepmine)",
    )
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
    """Run `mines arena` with parsed arguments; 2 for a usage error, 3 when the bot's sandbox could
    not start on this machine (no game is counted against the bot), else 0."""
    from ..sandbox import IsolationUnavailable, SandboxUnavailable

    problem = _bot_problem(args.bot) or (_sweepmine_conflict(args) if args.sweepmine else "")
    if problem:
        print(f"mines arena: {problem}", file=sys.stderr)
        return 2
    builtin = args.bot in BUILTIN_BOTS
    bot = args.bot if builtin else str(Path(args.bot).resolve())
    options = dict(
        sandboxed=not args.trusted and not builtin,
        move_timeout=args.move_timeout,
        dask=args.dask,
        log_dir=args.log_dir,
        progress=not args.quiet,
    )
    try:
        if args.sweepmine:
            results = play_sweepmine(bot, args.games or 1000, args.seed, args.jobs, **options)
            print(json.dumps([r.to_json() for r in results], indent=1) if args.json else sweepmine_table(results))
        else:
            rules = rules_from_options(argparse.Namespace(**{**vars(args), "preset": args.preset or "beginner"}))
            result = play_games(bot, rules, args.games or 100, args.seed, args.jobs, **options)
            print(json.dumps(result.to_json(), indent=1) if args.json else result.summary())
    except ValueError as error:
        print(f"mines arena: {error}", file=sys.stderr)
        return 2
    except (IsolationUnavailable, SandboxUnavailable) as error:
        print(f"mines arena: the bot's sandbox could not start on this machine: {error}", file=sys.stderr)
        return 3
    return 0


def _bot_problem(bot: str) -> str:
    if bot in BUILTIN_BOTS or Path(bot).is_file():
        return ""
    return f"no bot file {bot!r} (built-in bots: {', '.join(BUILTIN_BOTS)})"


def _sweepmine_conflict(args: argparse.Namespace) -> str:
    given = [
        "--" + name.replace("_", "-") for name, default in _BOARD_DEFAULTS.items() if getattr(args, name) != default
    ]
    return f"--sweepmine plays the subtasks' own boards; drop {'/'.join(given)}" if given else ""
