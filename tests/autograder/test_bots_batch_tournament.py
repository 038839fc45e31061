"""`autograder grade --assignment bots --tournament DIR`: the graded bots ranked on the same games."""

from __future__ import annotations

import csv
import shutil
import subprocess
import sys
from pathlib import Path

BOTS = Path(__file__).resolve().parents[1] / "bots" / "data" / "tournament"
AUTOGRADER = str(Path(sys.executable).parent / "autograder")


def test_a_bots_batch_produces_the_tournament(tmp_path):
    for name in ("local_rules.py", "crashes_when_stuck.py"):
        shutil.copy(BOTS / name, tmp_path / name)
    result = subprocess.run([AUTOGRADER, "grade", "--assignment", "bots", str(tmp_path / "local_rules.py"),
                             str(tmp_path / "crashes_when_stuck.py"), "--results-dir", str(tmp_path / "results"),
                             "--bot-games", "4", "--tournament", str(tmp_path / "tour"), "--no-progress",
                             "--seed", "3", "-j", "2"], capture_output=True, text=True, timeout=1200)
    assert result.returncode == 0, result.stderr[-3000:]
    rows = list(csv.DictReader((tmp_path / "tour" / "leaderboard.csv").open()))
    assert {row["bot"] for row in rows} == {"local_rules", "crashes_when_stuck", "reference"}
    crashes = {row["bot"]: row for row in rows}["crashes_when_stuck"]
    assert int(crashes["crash"]) > 0
    assert (tmp_path / "tour" / "tournament.html").read_text().startswith("<!DOCTYPE html>")
    assert "tournament: 2 bot(s) and the judge" in result.stdout


def test_the_tournament_option_is_for_bots_only(tmp_path, reference_source):
    (tmp_path / "ann.py").write_text(reference_source)
    result = subprocess.run([AUTOGRADER, "grade", "--assignment", "hypermines", str(tmp_path / "ann.py"),
                             "--results-dir", str(tmp_path / "results"), "--tournament", str(tmp_path / "tour"),
                             "--no-progress"], capture_output=True, text=True, timeout=600)
    assert result.returncode == 2
    assert "--tournament is for the bots assignment" in result.stderr
    assert not (tmp_path / "results").exists()  # refused before anything is graded
