"""The arena on a real dask.distributed LocalCluster, through the API and the command line."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest
from distributed import Client, LocalCluster

from minesweeper_kit.arena import Rules, play_games
from minesweeper_kit.bots import ReferenceSolver


@pytest.fixture(scope="module")
def cluster():
    with LocalCluster(n_workers=1, threads_per_worker=1, processes=True, dashboard_address=None) as cluster:
        yield cluster


def test_dask_games_match_local_games(cluster):
    rules = Rules.preset("beginner", charges=True)
    with Client(cluster) as client:
        remote = play_games(ReferenceSolver, rules, 8, seed=21, dask=client, progress=False)
    local = play_games(ReferenceSolver, rules, 8, seed=21, progress=False)
    assert [(r.index, r.seed, r.won, r.moves) for r in remote.records] == \
           [(r.index, r.seed, r.won, r.moves) for r in local.records]


def test_command_line_sends_games_to_a_scheduler_address(cluster):
    out = subprocess.run(
        [sys.executable, "-m", "minesweeper_kit.cli", "arena", "reference", "--preset", "beginner", "--games", "6",
         "--dask", cluster.scheduler_address, "--quiet", "--json"],
        capture_output=True, text=True, timeout=300, check=True)
    assert json.loads(out.stdout)["games"] == 6
