"""The tournament: its statistics against hand-computed values, the paired design, resuming, the reports."""

from __future__ import annotations

import csv
import json
import math
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_kit.arena import GameRecord, Rules, game_seed, sweepmine_score
from minesweeper_kit.stats import (
    Pair, bin_quantile, bin_seconds, compare, holm, mcnemar_exact, rank_groups, time_bin,
)
from minesweeper_kit.tournament import Event, find_entrants, make_events, rank_standings, run_tournament

MINES = [sys.executable, "-m", "minesweeper_kit.cli"]
BOTS = Path(__file__).resolve().parent / "bots" / "data" / "tournament"
BEGINNER = Event("beginner", Rules.preset("beginner"), 0)


def records(wins: list[bool], event: str = "beginner") -> list[GameRecord]:
    return [GameRecord(i, game_seed(0, i), event, won, "won" if won else "mine", 5, 0.01)
            for i, won in enumerate(wins)]


# ---------------------------------------------------------------------- statistics by hand
def test_exact_mcnemar_by_hand():
    # 30 games only A won, none only B won: p = 2 * P(X <= 0), X ~ Bin(30, 1/2) = 2 / 2^30.
    assert mcnemar_exact(30, 0) == pytest.approx(1.862645149230957e-09, rel=1e-12)
    assert mcnemar_exact(0, 30) == mcnemar_exact(30, 0)
    # 12 against 8: P(X <= 8), X ~ Bin(20, 1/2), is
    # (1 + 20 + 190 + 1140 + 4845 + 15504 + 38760 + 77520 + 125970) / 2^20 = 263950 / 1048576.
    assert mcnemar_exact(12, 8) == pytest.approx(2 * 263950 / 1048576, rel=1e-12)
    # 16 against 5: (1 + 21 + 210 + 1330 + 5985 + 20349) / 2^21 = 27896 / 2097152, doubled.
    assert mcnemar_exact(16, 5) == pytest.approx(2 * 27896 / 2097152, rel=1e-12)
    assert mcnemar_exact(7, 7) == 1.0 and mcnemar_exact(0, 0) == 1.0
    with pytest.raises(ValueError):
        mcnemar_exact(-1, 3)


def test_exact_mcnemar_on_many_discordant_games_matches_the_binomial_sum():
    # Above 1000 discordant games the p-value comes from scipy; check it against the exact sum.
    for a, b in ((560, 480), (700, 650), (2000, 1890)):
        n, k = a + b, min(a, b)
        exact = 2 * sum(math.comb(n, i) for i in range(k + 1)) / 2**n
        assert mcnemar_exact(a, b) == pytest.approx(exact, rel=1e-9)


def test_holm_by_hand():
    # Sorted: 0.01 x 3 = 0.03; 0.03 x 2 = 0.06; 0.04 x 1 = 0.04, raised to 0.06 (monotone).
    assert holm([0.01, 0.04, 0.03]) == pytest.approx([0.03, 0.06, 0.06])
    assert holm([0.5, 0.9]) == pytest.approx([1.0, 1.0])
    assert holm([]) == []
    with pytest.raises(ValueError):
        holm([1.5])


def test_compare_applies_holm_over_every_pair():
    # Three bots on 21 games: A and B each win games 0-15 where C loses; A also wins 16-20 where B loses.
    a = [True] * 21
    b = [True] * 16 + [False] * 5
    c = [False] * 16 + [True] * 5
    pairs = compare({"A": dict(enumerate(a)), "B": dict(enumerate(b)), "C": dict(enumerate(c))})
    ab, ac, bc = pairs
    assert (ab.a_only, ab.b_only) == (5, 0) and (ac.a_only, ac.b_only) == (16, 0)
    assert (bc.a_only, bc.b_only) == (16, 5)
    # Raw: 2/2^5 = 0.0625, 2/2^16 = 3.05e-5, 0.026604 (see above); Holm: 3.05e-5 x 3, 0.026604 x 2, 0.0625 x 1.
    assert ab.p == pytest.approx(0.0625) and ac.p == pytest.approx(2 / 2**16)
    assert ac.p_holm == pytest.approx(3 * 2 / 2**16)
    assert bc.p_holm == pytest.approx(2 * 2 * 27896 / 2097152)
    assert ab.p_holm == pytest.approx(0.0625)
    # B beats C alone at 0.0266, still 0.053 after the correction: a tie.
    assert ac.winner == "A" and bc.winner is None and ab.winner is None


def test_rank_groups_cut_only_where_every_bot_above_beats_every_bot_below():
    def pair(a, b, winner):
        p = 0.001 if winner else 0.9
        if winner == b:
            return Pair(a, b, 100, 0, 0, 30, p, p)
        return Pair(a, b, 100, 0, 30 if winner else 5, 0 if winner else 5, p, p)

    # A beats C, but B ties with both: no cut is justified, so all three share rank 1.
    chain = [pair("A", "B", None), pair("A", "C", "A"), pair("B", "C", None)]
    assert rank_groups(["A", "B", "C"], chain) == {"A": (1, 1), "B": (1, 1), "C": (1, 1)}
    # A beats B and C, B and C tie: A alone first, B and C share rank 2.
    top = [pair("A", "B", "A"), pair("A", "C", "A"), pair("B", "C", None)]
    assert rank_groups(["A", "B", "C"], top) == {"A": (1, 1), "B": (2, 2), "C": (2, 2)}
    # Ties at the top: A and B tie, both beat C: ranks 1, 1, 3.
    bottom = [pair("A", "B", None), pair("A", "C", "A"), pair("B", "C", "B")]
    assert rank_groups(["A", "B", "C"], bottom) == {"A": (1, 1), "B": (1, 1), "C": (3, 2)}


def test_move_time_quantiles_from_bins():
    # 1 ms falls in bin floor(20 log10(1000)) = 60, whose middle is 10^(60.5/20) us = 1.0593 ms.
    assert time_bin(1e-3) == 60 and bin_seconds(60) == pytest.approx(1.0593e-3, rel=1e-4)
    counts = {time_bin(1e-3): 90, time_bin(0.1): 10}
    assert bin_quantile(counts, 0.5) == pytest.approx(1e-3, rel=0.06)
    assert bin_quantile(counts, 0.90) == pytest.approx(1e-3, rel=0.06)   # the 90th of 100 values
    assert bin_quantile(counts, 0.95) == pytest.approx(0.1, rel=0.06)
    assert bin_quantile({}, 0.5) is None
    assert time_bin(0.0) == 0


# ---------------------------------------------------------------------- the leaderboard
def test_a_paired_difference_ranks_a_above_b():
    # 100 games: A wins 0-49, B wins 30-49. So A won 30 games B lost and B none that A lost.
    a = [i < 50 for i in range(100)]
    b = [30 <= i < 50 for i in range(100)]
    standings = rank_standings({"A": {"beginner": records(a)}, "B": {"beginner": records(b)}}, [BEGINNER])
    pair = standings.pair("beginner", "A", "B")
    assert (pair.games, pair.both, pair.a_only, pair.b_only) == (100, 20, 30, 0)
    assert pair.p == pytest.approx(1.862645149230957e-09, rel=1e-12) and pair.winner == "A"
    assert [row.name for row in standings.rows] == ["A", "B"]
    assert (standings.row("A").events["beginner"].rank, standings.row("B").events["beginner"].rank) == (1, 2)
    assert (standings.row("A").overall.rank, standings.row("B").overall.rank) == (1, 2)


def test_a_difference_the_test_cannot_confirm_is_a_tie():
    # A wins 12 games B loses, B wins 8 games A loses (p = 0.503): tied, both ranked 1.
    a = [True] * 12 + [False] * 8 + [True] * 30 + [False] * 50
    b = [False] * 12 + [True] * 8 + [True] * 30 + [False] * 50
    standings = rank_standings({"A": {"beginner": records(a)}, "B": {"beginner": records(b)}}, [BEGINNER])
    pair = standings.pair("beginner", "A", "B")
    assert (pair.a_only, pair.b_only) == (12, 8) and pair.winner is None
    assert pair.p == pytest.approx(2 * 263950 / 1048576)
    ranks = {row.name: (row.events["beginner"].rank, row.events["beginner"].group) for row in standings.rows}
    assert ranks == {"A": (1, 1), "B": (1, 1)}


def test_only_common_games_are_compared():
    # B missed games 50-99 (say, a shorter earlier run): they do not count for the pair.
    a = [True] * 100
    b = [False] * 50
    standings = rank_standings({"A": {"beginner": records(a)}, "B": {"beginner": records(b)}}, [BEGINNER])
    pair = standings.pair("beginner", "A", "B")
    assert (pair.games, pair.a_only, pair.b_only) == (50, 50, 0)


def test_leaderboard_wilson_intervals_by_hand():
    # 20 wins in 100: z = 1.959964, z^2 = 3.841459, denominator 1 + z^2/100 = 1.038415;
    # centre (0.2 + 0.019207) / 1.038415 = 0.211098;
    # half z * sqrt(0.2 * 0.8 / 100 + 3.841459 / 40000) / 1.038415 = 1.959964 * 0.041183 / 1.038415 = 0.077731.
    # 70 wins in 100: centre (0.7 + 0.019207) / 1.038415 = 0.692601,
    # half 1.959964 * sqrt(0.21 / 100 + 0.000096) / 1.038415 = 1.959964 * 0.046862 / 1.038415 = 0.088450.
    a = [i < 70 for i in range(100)]
    b = [i < 20 for i in range(100)]
    standings = rank_standings({"A": {"beginner": records(a)}, "B": {"beginner": records(b)}}, [BEGINNER])
    lo, hi = standings.row("B").events["beginner"].interval
    assert lo == pytest.approx(0.133367, abs=2e-6) and hi == pytest.approx(0.288829, abs=2e-6)
    lo, hi = standings.row("A").events["beginner"].interval
    assert lo == pytest.approx(0.604151, abs=2e-6) and hi == pytest.approx(0.781051, abs=2e-6)


def test_sweepmine_events_are_scored_like_the_arena():
    # Subtask 1 (k1 = 7, k2 = 4.4, Q = 90): P = 45 % gives x = 0.5, S = (6 * 0.5^4.4 + 0.5) / 7 = 0.112028.
    (event,) = make_events(sweepmine=True, subtasks=[1], seed=10)
    assert event.name == "subtask 1" and event.run_seed == 11
    wins = [i < 45 for i in range(100)]
    standings = rank_standings({"A": {"subtask 1": records(wins, "subtask 1")},
                         "B": {"subtask 1": records([False] * 100, "subtask 1")}}, [event])
    assert standings.row("A").events["subtask 1"].score == pytest.approx(0.112028, abs=1e-6)
    assert standings.row("B").events["subtask 1"].score == 0.0
    with pytest.raises(ValueError):
        make_events(sweepmine=True, subtasks=[7])


def test_entrants_need_two_bots_and_real_files(tmp_path):
    with pytest.raises(ValueError, match="at least two"):
        find_entrants(["reference"])
    with pytest.raises(ValueError, match="no bot file"):
        find_entrants(["reference", str(tmp_path / "missing.py")])
    with pytest.raises(ValueError, match="holds no bot files"):
        find_entrants(["reference"], folder=tmp_path)
    one, two = tmp_path / "a" / "bot.py", tmp_path / "b" / "bot.py"
    for path in (one, two):
        path.parent.mkdir()
        path.write_text("def next_move(view):\n    pass\n")
    names = [e.name for e in find_entrants([one, two])]
    assert names == ["a/bot", "b/bot"]


# ---------------------------------------------------------------------- running and resuming
SIMPLE = """
import numpy as np
from minesweeper_kit.bots import Move

def next_move(view):
    cells = list(zip(*np.nonzero(view.unknown)))
    r, c = cells[{pick}]
    return Move.dig(int(r), int(c))
"""


def unit_files(folder: Path, bot: str) -> dict[Path, float]:
    return {p: p.stat().st_mtime_ns for p in (folder / "games" / bot).rglob("*.json")}


def test_every_bot_plays_the_same_games_and_a_rerun_reuses_them(tmp_path):
    first, last = tmp_path / "first.py", tmp_path / "last.py"
    first.write_text(SIMPLE.format(pick=0))
    last.write_text(SIMPLE.format(pick=-1))
    results = tmp_path / "results"
    options = dict(presets=["beginner", "intermediate"], games=6, seed=3, chunk_size=4, trusted=True,
                   results_dir=results, progress=False)
    standings = run_tournament(["reference", "random", first, last], **options)
    assert standings.settings["units_played"] == 4 * 2 * 2 and standings.settings["units_reused"] == 0
    # Paired design: game i of an event has the same seed for every bot, the arena's seed of (seed, i).
    seeds = {}
    for path in (results / "games").rglob("*.json"):
        bot, event = path.parts[-3], path.parts[-2]
        for r in json.loads(path.read_text())["records"]:
            seeds.setdefault((event, r["i"]), set()).add((bot, r["s"]))
    assert len(seeds) == 12
    for (event, index), found in seeds.items():
        assert {s for _, s in found} == {game_seed(3, index)} and len(found) == 4
    for name in ("leaderboard.csv", "pairwise.csv", "tournament.json", "tournament.html"):
        assert (results / name).stat().st_size > 0
    # Same settings again: nothing is played.
    before = {bot: unit_files(results, bot) for bot in ("reference", "random", "first", "last")}
    again = run_tournament(["reference", "random", first, last], **options)
    assert again.settings["units_played"] == 0 and again.settings["units_reused"] == 16
    assert [r.name for r in again.rows] == [r.name for r in standings.rows]
    # An edited bot file (new SHA-256) is replayed, alone.
    last.write_text(SIMPLE.format(pick=-2))
    edited = run_tournament(["reference", "random", first, last], **options)
    assert edited.settings["units_played"] == 4
    assert unit_files(results, "last") != before["last"]
    for bot in ("reference", "random", "first"):
        assert unit_files(results, bot) == before[bot]
    # A lost unit file (a run stopped half way) is played again, alone.
    victim = next(iter(before["first"]))
    victim.unlink()
    resumed = run_tournament(["reference", "random", first, last], **options)
    assert resumed.settings["units_played"] == 1 and victim.exists()
    # Two more games: chunk 0-3 is kept; games 4-7 are a new chunk (it held 4-5 before), played for every
    # bot and event.
    more = run_tournament(["reference", "random", first, last], **{**options, "games": 8})
    assert more.settings["units_reused"] == 8 and more.settings["games_played"] == 4 * 2 * 4
    assert more.row("reference").events["beginner"].games == 8


def test_reports_hold_the_leaderboard_and_the_pairs(tmp_path):
    results = tmp_path / "results"
    standings = run_tournament(["reference", "random"], presets=["beginner"], games=30, seed=1, chunk_size=10,
                               results_dir=results, progress=False)
    with open(results / "leaderboard.csv") as handle:
        rows = list(csv.DictReader(handle))
    assert [r["bot"] for r in rows] == ["reference", "random"]
    reference = standings.row("reference")
    assert int(rows[0]["beginner wins"]) == reference.events["beginner"].wins
    assert float(rows[0]["beginner ci_low"]) == pytest.approx(reference.events["beginner"].interval[0], abs=1e-6)
    with open(results / "pairwise.csv") as handle:
        pairs = list(csv.DictReader(handle))
    assert {p["event"] for p in pairs} == {"beginner", "all events"}
    data = json.loads((results / "tournament.json").read_text())
    assert data["leaderboard"][0]["bot"] == "reference" and data["events"][0]["name"] == "beginner"
    page = (results / "tournament.html").read_text()
    assert "<script" not in page and "http://" not in page.replace("http://www.w3.org", "")
    assert page.count("<svg") == 1 + 2  # win rates, and the pairwise matrices of beginner and all events


@pytest.mark.slow
def test_broken_bots_lose_with_their_reasons_in_the_sandbox(tmp_path):
    """The sandboxed class: crashes, illegal moves, time-outs and a bot that cannot load are counted.
    Each time-out burns the move time limit, so it is a short one: the honest moves take a few
    hundredths of a second, the longest under a tenth, even on a busy machine."""
    names = ["crashes_when_stuck", "digs_open_cells", "stalls_when_unsure", "imports_socket",
             "local_rules", "local_rules_copy"]
    standings = run_tournament([BOTS / f"{n}.py" for n in names], presets=["intermediate"], games=8, seed=5,
                               chunk_size=8, jobs=2, move_timeout=0.25, results_dir=tmp_path, progress=False)
    row = standings.row
    assert row("crashes_when_stuck").failures["crash"] > 0
    assert "no idea what to do" in row("crashes_when_stuck").examples["crash"]
    assert row("digs_open_cells").failures["illegal"] > 0
    assert "already open" in row("digs_open_cells").examples["illegal"]
    assert row("stalls_when_unsure").failures["timeout"] > 0
    assert row("imports_socket").load_failures == 8 and row("imports_socket").failures["crash"] == 8
    assert "socket" in row("imports_socket").examples["crash"]
    assert row("imports_socket").moves == 0 and row("imports_socket").move_seconds(0.5) is None
    for name in ("local_rules", "local_rules_copy"):
        assert sum(row(name).failures.values()) == 0 and row(name).moves > 0
    # The same code in two files: the same games, game for game, so a tie with no discordant game.
    twin = standings.pair("intermediate", "local_rules", "local_rules_copy")
    assert (twin.a_only, twin.b_only, twin.winner) == (0, 0, None)
    stalls = row("stalls_when_unsure")
    assert stalls.move_seconds(0.95) >= stalls.move_seconds(0.5) > 0


def test_command_line_help_and_refusals(tmp_path):
    help_text = subprocess.run(MINES + ["tournament", "--help"], capture_output=True, text=True, timeout=120).stdout
    for needle in ("McNemar", "Holm", "Wilson", "--results-dir", "--dir", "--dask", "--sweepmine", "SHA-256",
                   "draws a fresh seed", "rerun with --seed N"):
        assert needle in help_text, needle
    out = subprocess.run(MINES + ["tournament", "reference", "--quiet"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "at least two" in out.stderr
    out = subprocess.run(MINES + ["tournament", "--quiet"], capture_output=True, text=True, timeout=120)
    assert out.returncode == 2 and "--dir" in out.stderr


SEED_LINE = re.compile(r"^seed (\d+); rerun with --seed \1 to replay the same games$", re.M)


def tournament_in_process(capsys, results: Path, *options: str) -> int:
    """`mines tournament` run in this process: two deterministic bots, two beginner games. Returns
    the seed it printed (one line, before anything else)."""
    from minesweeper_kit.cli import main

    code = main(["tournament", "reference", str(BOTS / "first_covered.py"), "--trusted", "--preset", "beginner",
                 "--games", "2", "--chunk-size", "2", "-j", "1", "--quiet", "--results-dir", str(results), *options])
    out = capsys.readouterr().out
    assert code == 0, out
    assert SEED_LINE.match(out), out
    (seed,) = SEED_LINE.findall(out)
    return int(seed)


def played_games(results: Path) -> dict[str, list[dict]]:
    """Every saved game of a results folder without its timing: the board's seed and what the bot did."""
    return {str(path.relative_to(results)): [{k: v for k, v in r.items() if k != "t"}
                                              for r in json.loads(path.read_text())["records"]]
            for path in sorted((results / "games").rglob("*.json"))}


def test_without_a_seed_every_run_draws_one_records_it_and_that_seed_replays_the_games(tmp_path, capsys):
    """Seed 0 for every run let students tune a bot to the games: each run without --seed now draws
    its own, prints it first, and every report records it; --seed with it plays the same games."""
    first = tournament_in_process(capsys, tmp_path / "first")
    second = tournament_in_process(capsys, tmp_path / "second")
    assert first != second
    for run, seed in ((tmp_path / "first", first), (tmp_path / "second", second)):
        data = json.loads((run / "tournament.json").read_text())
        assert data["settings"]["seed"] == seed and [e["run_seed"] for e in data["events"]] == [seed]
        for name in ("leaderboard.csv", "pairwise.csv"):
            with open(run / name) as handle:
                assert {row["seed"] for row in csv.DictReader(handle)} == {str(seed)}, name
        assert f"rerun with <code>--seed {seed}</code>" in (run / "tournament.html").read_text()
        boards = {r["s"] for records in played_games(run).values() for r in records}
        assert boards == {game_seed(seed, 0), game_seed(seed, 1)}
    assert tournament_in_process(capsys, tmp_path / "replay", "--seed", str(first)) == first
    assert played_games(tmp_path / "replay") == played_games(tmp_path / "first") != played_games(tmp_path / "second")
    replayed = json.loads((tmp_path / "replay" / "tournament.json").read_text())["leaderboard"]
    original = json.loads((tmp_path / "first" / "tournament.json").read_text())["leaderboard"]
    assert [(r["bot"], r["overall"]["wins"]) for r in replayed] == [(r["bot"], r["overall"]["wins"]) for r in original]


def test_command_line_runs_a_folder_of_bots(tmp_path):
    folder = tmp_path / "class"
    folder.mkdir()
    for name in ("first_covered", "local_rules"):
        shutil.copy(BOTS / f"{name}.py", folder)
    out = subprocess.run(
        MINES + ["tournament", "random", "--dir", str(folder), "--preset", "beginner", "--games", "4",
                 "-j", "1", "--trusted", "--quiet", "--json", "--results-dir", str(tmp_path / "results")],
        capture_output=True, text=True, timeout=300, check=True)
    data = json.loads(out.stdout)
    assert sorted(row["bot"] for row in data["leaderboard"]) == ["first_covered", "local_rules", "random"]
    assert all(row["events"]["beginner"]["games"] == 4 for row in data["leaderboard"])
    assert (tmp_path / "results" / "tournament.html").exists()


def test_sweepmine_tournament_scores_each_subtask(tmp_path):
    standings = run_tournament(["reference", "random"], sweepmine=True, subtasks=[1, 5], games=4, seed=7,
                               chunk_size=4, results_dir=tmp_path, progress=False)
    assert [e.name for e in standings.events] == ["subtask 1", "subtask 5"]
    reference = standings.row("reference")
    for number, name in ((1, "subtask 1"), (5, "subtask 5")):
        stats = reference.events[name]
        sub = standings.events[[e.name for e in standings.events].index(name)].subtask
        assert sub.number == number
        assert stats.score == pytest.approx(sweepmine_score(100 * stats.wins / 4, sub.q, sub.k1, sub.k2))
    assert reference.mean_score == pytest.approx((reference.events["subtask 1"].score
                                                  + reference.events["subtask 5"].score) / 2)
    with open(tmp_path / "leaderboard.csv") as handle:
        header = next(csv.reader(handle))
    assert "subtask 1 score" in header and "subtask 5 score" in header
    # Subtask n uses run seed + n, as `mines arena --sweepmine --seed 7` does.
    unit = json.loads(next((tmp_path / "games" / "random" / "subtask_5").glob("*.json")).read_text())
    assert [r["s"] for r in unit["records"]] == [game_seed(12, i) for i in range(4)]


@pytest.mark.slow
def test_dask_units_match_local_units(tmp_path):
    from distributed import Client, LocalCluster

    local = run_tournament(["reference", BOTS / "local_rules.py"], presets=["beginner"], games=6, seed=4,
                           chunk_size=3, trusted=True, results_dir=tmp_path / "local", progress=False)
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        with Client(cluster) as client:
            remote = run_tournament(["reference", BOTS / "local_rules.py"], presets=["beginner"], games=6, seed=4,
                                    chunk_size=3, trusted=True, dask=client, results_dir=tmp_path / "remote",
                                    progress=False)
    for name in ("reference", "local_rules"):
        a, b = local.row(name).events["beginner"], remote.row(name).events["beginner"]
        assert (a.games, a.wins) == (b.games, b.wins) == (6, a.wins)
    assert remote.settings["units_played"] == 4
