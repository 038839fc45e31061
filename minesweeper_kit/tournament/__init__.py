"""A class tournament: many bots on the same seeded games, ranked only where the statistics allow.

Command line: ``mines tournament BOT.py ... --dir bots/ --games 500 -j 2`` (see ``--help``).
Python::

    from minesweeper_kit.tournament import run_tournament
    standings = run_tournament(["reference", "baseline", "bots/"], games=500, jobs=2,
                               results_dir="tournament-results")
    print(standings.table())

One module per job:

* `entrants`: the bots (`Entrant`, `find_entrants`) and the events (`Event`, `make_events`);
* `units`: a chunk of one event's games for one bot, played by the arena's loop, and the
  results folder that saves it (`ResultsFolder`);
* `running`: `run_tournament`: the units still to play, played, then ranked;
* `standings`: the ranking from the records (`rank_standings`, `Standings`), as the terminal's
  table and as tournament.json's plain data;
* `page`: the HTML page (tournament.html), built with the shared helpers of `report_page`;
* `reports`: the files written: the CSV files, tournament.json and the page;
* `cli`: ``mines tournament``.

Decisions, written down once:

* Paired design: game i of an event has the same seed, hence the same mines, for every bot
  (the seed the arena derives from (run seed, i); a preset's run seed is the tournament's seed,
  so ``mines arena BOT --preset P --seed S`` replays the same games; Sweepmine subtask n uses
  seed + n, as ``mines arena --sweepmine`` does).
* The tournament's seed is drawn afresh for every run unless one is given, so no bot can be
  tuned to the games beforehand; the command prints it first and every report records it
  (``settings.seed`` in tournament.json, a ``seed`` column in the CSV files, the page), and
  giving it again replays the same games.
* Games are played by the arena (``play_series``, its runners and its rules); bot files run in the
  arena's sandbox with a time limit per move unless ``trusted``; the built-in bots run in-process.
* Work is split into (bot, event, chunk of games) units. Each finished unit is saved in the
  results folder with a fingerprint (the bot's SHA-256, the event, the seeds, the game indices,
  the move time limit); a later run reuses every unit whose fingerprint still matches, so a
  stopped run resumes and an edited bot file is replayed alone.
* A bot that cannot be loaded loses every game of its unit with the loading error as the reason.
* Rankings come from `stats`: exact McNemar tests on the paired games, Holm's correction per
  event (and for all events pooled), groups of tied bots. The leaderboard's intervals are the
  arena's 95 % Wilson intervals; with ``sweepmine`` each subtask is scored S(P/Q) as in the arena.
"""

from .cli import TOURNAMENT_DESCRIPTION, register, run
from .entrants import Entrant, Event, builtin_sha256, find_entrants, make_events, slug
from .page import render_page
from .reports import leaderboard_rows, pairwise_rows, write_outputs
from .running import run_tournament
from .standings import OVERALL, BotRow, EventStats, Standings, leaderboard_text, rank_standings, standings_json
from .units import UNIT_FILE_VERSION, MoveTimer, ResultsFolder, Unit, make_units, pack_record, play_unit, unpack_record

__all__ = [
    "OVERALL",
    "TOURNAMENT_DESCRIPTION",
    "UNIT_FILE_VERSION",
    "BotRow",
    "Entrant",
    "Event",
    "EventStats",
    "MoveTimer",
    "ResultsFolder",
    "Standings",
    "Unit",
    "builtin_sha256",
    "find_entrants",
    "leaderboard_rows",
    "leaderboard_text",
    "make_events",
    "make_units",
    "pack_record",
    "pairwise_rows",
    "play_unit",
    "rank_standings",
    "register",
    "render_page",
    "run",
    "run_tournament",
    "slug",
    "standings_json",
    "unpack_record",
    "write_outputs",
]
