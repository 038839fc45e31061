"""The red team's batteries, each graded once as root in this process and once as an
unprivileged user through the ``autograder`` command, side by side.

Every fixture here is session-scoped: a battery is graded once and every case's test reads the
result. Running as root is required (the unprivileged run is started from here with setpriv).
A plugin of tests/conftest.py, which puts this folder and tests/autograder on the path.
"""

from __future__ import annotations

import os
import re

import pytest
import redteam_cases as cases
import redteam_harness as harness


@pytest.fixture(scope="session")
def stage():
    if os.geteuid() != 0:
        pytest.fail("the red-team suite starts as root: it grades as root and, through setpriv, as the "
                    f"unprivileged user {harness.UNPRIVILEGED_UID}")
    made = harness.Stage.create()
    yield made
    made.close()


@pytest.fixture(scope="session")
def hypermines_runs(stage):
    runs = harness.run_battery(stage, "hypermines", cases.HYPERMINES_CASES)
    yield runs
    report = runs["root"].reports.get("keyring_carried_to_the_next_sandbox")
    if report is not None:
        harness.clear_user_keyrings({int(n) for n in re.findall(r'"uid": (\d+)', report.stdout)})


@pytest.fixture(scope="session")
def neighbors_runs(stage):
    return harness.run_battery(stage, "neighbors", cases.NEIGHBORS_CASES)


@pytest.fixture(scope="session")
def bots_runs(stage):
    return harness.run_battery(stage, "bots", cases.BOTS_CASES, settings={"bot_games": 2})


@pytest.fixture(scope="session")
def cpu_runs(stage):
    return harness.run_battery(stage, "hypermines", cases.CPU_BATTERY, name="cpu", limits=harness.CPU_LIMITS)


@pytest.fixture(scope="session")
def resumed_runs(stage, hypermines_runs):
    return harness.run_resumed(stage, hypermines_runs)


@pytest.fixture(scope="session")
def all_runs(hypermines_runs, neighbors_runs, bots_runs, resumed_runs, cpu_runs):
    """Every battery, finished: for the checks made on the whole machine afterwards."""
    return {"hypermines": hypermines_runs, "neighbors": neighbors_runs, "bots": bots_runs, "cpu": cpu_runs}
