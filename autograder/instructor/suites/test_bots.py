"""Hidden suite of the `bots` assignment (notebook 05-bots): win rate against the judge.

The student's bot plays seeded games in the arena, isolated in the sandbox, and so does the
judge (the kit's reference solver) on the very same boards. Points come in tiers of the bot's
win rate relative to the judge's; games lost to crashes, illegal moves or time-outs cost the
legality points. The number of games is a grading setting (``--bot-games``, default 100).
"""

from __future__ import annotations

import hashlib
import tempfile
from pathlib import Path

from minesweeper_kit.arena import Rules, play_games
from minesweeper_kit.bots import ReferenceSolver

from autograder.suite import Mismatch, points, require

BOARD = "beginner"
_RESULTS: dict = {}


def games_played(settings, seed, source):
    games = int(settings.get("bot_games") or 100)
    key = (hashlib.sha256(source.encode()).hexdigest(), seed, games)
    if key not in _RESULTS:
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bot.py"
            path.write_text(source)
            bot = play_games(str(path), Rules.preset(BOARD), games, seed=seed, sandboxed=True,
                             move_timeout=5.0, progress=False)
        judge = play_games(ReferenceSolver(), Rules.preset(BOARD), games, seed=seed, progress=False)
        _RESULTS[key] = (bot, judge)
    return _RESULTS[key]


def relative(settings, seed, source):
    bot, judge = games_played(settings, seed, source)
    ratio = bot.win_rate / judge.win_rate if judge.win_rate else 0.0
    return ratio, (f"your bot won {bot.wins}/{bot.games} {BOARD} games ({100 * bot.win_rate:.1f}%), "
                   f"the judge {judge.wins}/{judge.games} ({100 * judge.win_rate:.1f}%) on the same boards")


@points(2)
def test_plays_legal_games(box, settings, seed, submission_source):
    """The bot finishes its games without crashes, illegal moves or time-outs"""
    require(box, "next_move")
    bot, _ = games_played(settings, seed, submission_source)
    bad = {k: v for k, v in bot.reasons.items() if k not in ("won", "mine")}
    if bad:
        example = next(r for r in bot.records if r.reason in bad)
        raise Mismatch(f"{sum(bad.values())} of {bot.games} games were lost to "
                       + ", ".join(f"{k} ({v})" for k, v in sorted(bad.items()))
                       + f"; first: game {example.index} (seed {example.seed}): {example.detail[:300]}")


def tier(box, settings, seed, source, share):
    require(box, "next_move")
    ratio, text = relative(settings, seed, source)
    if ratio < share:
        raise Mismatch(f"{text}: below {100 * share:.0f}% of the judge's win rate")


@points(2)
def test_a_fifth_of_the_judge(box, settings, seed, submission_source):
    """Win rate at least 20% of the judge's"""
    tier(box, settings, seed, submission_source, 0.2)


@points(2)
def test_two_fifths_of_the_judge(box, settings, seed, submission_source):
    """Win rate at least 40% of the judge's"""
    tier(box, settings, seed, submission_source, 0.4)


@points(2)
def test_three_fifths_of_the_judge(box, settings, seed, submission_source):
    """Win rate at least 60% of the judge's"""
    tier(box, settings, seed, submission_source, 0.6)


@points(2)
def test_three_quarters_of_the_judge(box, settings, seed, submission_source):
    """Win rate at least 75% of the judge's"""
    tier(box, settings, seed, submission_source, 0.75)
