"""The neighbors battery: answers of 90,000 to 800,000 coordinates cost the grader a linear
check, and an honest neighbour in the same batch scores full marks."""

from __future__ import annotations

import pytest

import redteam_cases as cases
from redteam_checks import check_case
from redteam_harness import MODES


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", cases.NEIGHBORS_CASES, ids=[c.name for c in cases.NEIGHBORS_CASES])
def test_huge_coordinate_answers(neighbors_runs, case, mode):
    check_case(neighbors_runs[mode], case)
