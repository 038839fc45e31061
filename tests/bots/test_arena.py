"""The arena's statistics against hand-computed values, its games, logs and command line."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_kit.arena import (
    SUBTASKS, ArenaResult, GameRecord, Rules, play_games, play_sweepmine, sweepmine_score, wilson_interval,
)
from minesweeper_kit.bots import BaselineBot, RandomBot, ReferenceSolver
from minesweeper_kit.formats import jsonlog, sweepmine

MINES = [sys.executable, "-m", "minesweeper_kit.cli"]


def test_wilson_interval_by_hand():
    # 81 wins of 100, z = 1.959964: z^2 = 3.841459, denominator 1 + z^2/100 = 1.03841459,
    # centre (0.81 + 0.019207) / 1.038415 = 0.798532,
    # half z * sqrt(0.81 * 0.19 / 100 + 3.841459 / 40000) / 1.038415 = 1.959964 * 0.0404356 / 1.038415 = 0.076321
    lo, hi = wilson_interval(81, 100)
    assert lo == pytest.approx(0.722212, abs=2e-6)
    assert hi == pytest.approx(0.874853, abs=2e-6)
    # No wins in 10 games: centre = half = (z^2/20) / (1 + z^2/10) = 0.192073 / 1.384146 = 0.138766
    lo, hi = wilson_interval(0, 10)
    assert lo == 0.0 and hi == pytest.approx(0.277533, abs=2e-6)
    with pytest.raises(ValueError):
        wilson_interval(11, 10)


def test_sweepmine_score_by_hand():
    # Subtask 1 (k1 = 7, k2 = 4.4), P = 45, Q = 90: x = 0.5, 0.5^4.4 = 0.0473661,
    # S = (6 * 0.0473661 + 0.5) / 7 = 0.112028
    assert sweepmine_score(45, 90, 7.0, 4.4) == pytest.approx(0.112028, abs=1e-6)
    # Subtask 3 (k1 = 1.3, k2 = 0.1), P = 18.5, Q = 37: x = 0.5, 0.5^0.1 = 0.933033,
    # S = (0.3 * 0.933033 + 0.5) / 1.3 = 0.599931
    assert sweepmine_score(18.5, 37, 1.3, 0.1) == pytest.approx(0.599931, abs=1e-6)
    # Matching the judge scores exactly 1 whatever the constants.
    for sub in SUBTASKS:
        assert sub.score(sub.q) == pytest.approx(1.0)


# The original statement's table: the P that scores 25% and 50% in each subtask.
STATEMENT_TABLE = [(1, 60.8, 74.8), (2, 29.3, 56.4), (3, 3.33, 14.0), (4, 55.5, 65.4), (5, 25.7, 49.7), (6, 25.7, 49.7)]


@pytest.mark.parametrize("number, p25, p50", STATEMENT_TABLE)
def test_scores_reproduce_the_statements_reference_table(number, p25, p50):
    sub = SUBTASKS[number - 1]
    assert sub.score(p25) == pytest.approx(0.25, abs=0.006)
    assert sub.score(p50) == pytest.approx(0.50, abs=0.006)


def test_result_statistics_from_records():
    records = [GameRecord(i, i, "b", won, reason, 10, seconds) for i, (won, reason, seconds) in enumerate(
        [(True, "won", 0.010), (True, "won", 0.030), (False, "mine", 0.020), (False, "crash", 0.0)])]
    result = ArenaResult("b", records)
    assert (result.games, result.wins, result.win_rate) == (4, 2, 0.5)
    assert result.seconds_per_game == pytest.approx(0.015)
    assert result.reasons == {"won": 2, "mine": 1, "crash": 1}
    # 2 of 4: centre (0.5 + 3.841459/8) / (1 + 3.841459/4) = 0.980182 / 1.960365 = 0.5,
    # half 1.959964 * sqrt(0.0625 + 3.841459/64) / 1.960365 = 1.959964 * 0.350033 / 1.960365 = 0.349961
    lo, hi = result.interval
    assert lo == pytest.approx(0.150039, abs=2e-6) and hi == pytest.approx(0.849961, abs=2e-6)
    assert "2/4 won = 50.00%" in result.summary()


def test_games_are_reproducible_and_independent_of_workers():
    rules = Rules.preset("beginner")
    one = play_games(RandomBot(seed=3), rules, 6, seed=11, jobs=1, progress=False)
    again = play_games(ReferenceSolver, rules, 6, seed=11, jobs=2, progress=False)
    solo = play_games(ReferenceSolver, rules, 6, seed=11, jobs=1, progress=False)
    assert [r.seed for r in one.records] == [r.seed for r in again.records]
    assert [(r.won, r.moves) for r in again.records] == [(r.won, r.moves) for r in solo.records]


def test_the_solver_beats_the_baseline_which_beats_random():
    rules = Rules.preset("beginner")
    solver = play_games(ReferenceSolver, rules, 150, seed=5, progress=False)
    baseline = play_games(BaselineBot, rules, 150, seed=5, progress=False)
    randomly = play_games(RandomBot, rules, 150, seed=5, progress=False)
    assert solver.win_rate > baseline.win_rate > randomly.win_rate


def test_logs_replay_to_the_recorded_end(tmp_path):
    result = play_games("reference", Rules.preset("beginner", torus=True), 4, seed=2, log_dir=tmp_path,
                        progress=False)
    summary = [json.loads(line) for line in (tmp_path / "beginner-torus.games.jsonl").read_text().splitlines()]
    assert [s["index"] for s in summary] == [0, 1, 2, 3]
    for record in result.records:
        game = jsonlog.read((tmp_path / f"beginner-torus-{record.index:05d}.jsonl").read_text()).replay()
        assert (game.state == "victory") == record.won
        out = sweepmine.read_log((tmp_path / f"beginner-torus-{record.index:05d}.sweepmine.out").read_text())
        assert out.result == ("WIN" if record.won else "DIE")
        assert len(out.moves) == record.moves


def test_sweepmine_subtasks_draw_their_boards():
    sub4, sub5 = SUBTASKS[3], SUBTASKS[4]
    boards4 = {sub4.for_game(seed).label for seed in range(200)}
    assert boards4 == {f"{p}{t}" for p in ("beginner", "intermediate", "expert") for t in ("", " torus")}
    boards5 = {sub5.for_game(seed).label for seed in range(60)}
    assert boards5 == {f"{p} charges[-10, 1]" for p in ("beginner", "intermediate", "expert")}
    results = play_sweepmine("reference", games=3, seed=1, subtasks=[1, 6], progress=False)
    assert [r.subtask.number for r in results] == [1, 6]
    for r in results:
        assert r.score == pytest.approx(sweepmine_score(r.percent, r.subtask.q, r.subtask.k1, r.subtask.k2))


def test_command_line_prints_the_rate_and_interval():
    out = subprocess.run(MINES + ["arena", "reference", "--preset", "beginner", "--games", "5", "--quiet", "--json"],
                         capture_output=True, text=True, timeout=300, check=True)
    data = json.loads(out.stdout)
    assert data["games"] == 5 and 0 <= data["interval"][0] <= data["win_rate"] <= data["interval"][1]
    help_text = subprocess.run(MINES + ["arena", "--help"], capture_output=True, text=True, timeout=60).stdout
    assert "--sweepmine" in help_text and "--dask" in help_text


def test_command_line_refuses_a_missing_bot_file(tmp_path):
    out = subprocess.run(MINES + ["arena", str(tmp_path / "nope.py"), "--quiet"], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 2 and "no bot file" in out.stderr


def test_command_line_sweepmine_mode_refuses_board_options():
    out = subprocess.run(MINES + ["arena", "reference", "--sweepmine", "--torus", "--charges", "--quiet"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "drop --torus/--charges" in out.stderr
    out = subprocess.run(MINES + ["arena", "reference", "--sweepmine", "--preset", "beginner", "--quiet"],
                         capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "drop --preset" in out.stderr


def test_command_line_takes_the_shared_board_options():
    out = subprocess.run(MINES + ["arena", "reference", "--shape", "4x4x4", "--mines", "6", "--charges", "--games", "3",
                                  "--quiet", "--json", "-j", "1"], capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(out.stdout)["label"] == "4x4x4/6 charges[-10, 1]"
    out = subprocess.run(MINES + ["arena", "reference", "--charges=-3:2", "--games", "2", "--seed", "4", "--quiet",
                                  "--json", "-j", "1"], capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(out.stdout)["label"] == "beginner charges[-3, 2]"


def test_the_solver_plays_boards_of_any_dimension():
    result = play_games(ReferenceSolver, Rules((4, 3, 5), 6, torus=True), 5, seed=3, progress=False)
    assert result.games == 5 and set(result.reasons) <= {"won", "mine"}
    result = play_games(ReferenceSolver, Rules((3, 3, 3, 3), 8), 5, seed=3, progress=False)
    assert result.games == 5 and set(result.reasons) <= {"won", "mine"}
