"""The arena: play a bot on many seeded games and report its win rate honestly.

Python API (used by the `bots` autograder assignment and the notebooks)::

    from minesweeper_kit.arena import Rules, play_games, play_sweepmine
    result = play_games(ReferenceSolver(), Rules.preset("expert"), games=1000, seed=1, jobs=2)
    print(result.summary())          # wins, rate and its 95% Wilson interval, time per game

Command line: ``mines arena BOT.py --preset expert --games 1000 -j 2`` and
``mines arena BOT.py --sweepmine`` (the six Sweepmine.TM subtasks with their scores S(P/Q)).

One module per job:

* `scoring`: the Sweepmine.TM subtasks and their score S(P/Q);
* `results`: `GameRecord`, `ArenaResult` and the game logs written from them;
* `loading`: the built-in bots and the bot a file defines;
* `runners`: asking a bot for moves in this process (`LocalRunner`) or the sandbox (`SandboxRunner`);
* `loop`: one game (`play_game`) and a series of games with one runner (`play_series`);
* `schedule`: seeds, chunks over processes or dask, `play_games` and `play_sweepmine`;
* `cli`: ``mines arena``.

Decisions, written down once:

* Every game is seeded: game i of a run with seed S uses the seed derived from (S, i), so a run is
  reproducible whatever the number of workers, and any game can be replayed from its record.
* The first dig is safe (Sweepmine's rule and the published solver figures' rule) unless the
  rules say otherwise (`Rules.first_move`, ``--first-move``).
* Charged games draw each cell's charge uniformly from [-10, 1] without 0, as the Sweepmine judge
  actually does (its statement says [-10, 10]; `Rules.charges` chooses otherwise).
* Sweepmine subtasks 4 to 6 "mix boards": each game draws its board uniformly from the three
  presets, and (subtasks 4 and 6) the torus with probability 1/2, from the game's seed.
* A game is lost, with its reason recorded, when the bot digs a mine, crashes, answers something
  that is not a legal move (off the board, an already open cell), runs past the per-move time limit
  (sandboxed bots) or plays more than 4 moves per cell. None of these stops the run.
* The score of a subtask is S(x) = ((k1 - 1) x^k2 + x) / k1 with x = P / Q, not capped: above 1
  means better than the judge.
"""

from ..rules import SWEEPMINE_CHARGES, Rules
from ..stats import Z95, wilson_interval
from .cli import register, run
from .loading import BUILTIN_BOTS, load_bot
from .loop import MOVES_PER_CELL, illegal_reason, play_game, play_series, view_of
from .results import FAILURES, LOAD_FAILED, REASONS, ArenaResult, GameRecord, write_logs
from .runners import ARENA_DENIED, BotError, BotRunner, LocalRunner, SandboxRunner, make_runner
from .schedule import game_seed, map_unordered, play_games, play_sweepmine, progress_bar
from .scoring import SUBTASKS, Subtask, SubtaskResult, subtask, sweepmine_score, sweepmine_table

__all__ = [
    "ARENA_DENIED",
    "BUILTIN_BOTS",
    "FAILURES",
    "LOAD_FAILED",
    "MOVES_PER_CELL",
    "REASONS",
    "SUBTASKS",
    "SWEEPMINE_CHARGES",
    "Z95",
    "ArenaResult",
    "BotError",
    "GameRecord",
    "LocalRunner",
    "Rules",
    "BotRunner",
    "SandboxRunner",
    "Subtask",
    "SubtaskResult",
    "game_seed",
    "illegal_reason",
    "load_bot",
    "make_runner",
    "map_unordered",
    "play_game",
    "play_games",
    "play_series",
    "play_sweepmine",
    "progress_bar",
    "register",
    "run",
    "subtask",
    "sweepmine_score",
    "sweepmine_table",
    "view_of",
    "wilson_interval",
    "write_logs",
]
