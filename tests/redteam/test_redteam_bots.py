"""The bots battery: no import path, however indirect, reaches the judge's solver, and an honest
bot in the same batch keeps its score."""

from __future__ import annotations

import pytest

import redteam_cases as cases
from redteam_checks import check_case
from redteam_harness import MODES


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", cases.BOTS_CASES, ids=[c.name for c in cases.BOTS_CASES])
def test_bots_cannot_reach_the_solver(bots_runs, case, mode):
    check_case(bots_runs[mode], case)
