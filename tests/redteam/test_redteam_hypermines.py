"""The hypermines battery: every hostile submission gets exactly the score and message it
earned, graded beside two honest neighbours that still score full marks (``-j 2``)."""

from __future__ import annotations

import pytest

import redteam_cases as cases
from redteam_checks import check_case
from redteam_harness import MODES

CASES = cases.HYPERMINES_CASES


def test_the_battery_is_large_enough():
    assert len(CASES) >= 40
    assert len({c.name for c in CASES}) == len(CASES)


#: Holes this battery found that are still open, each a known gap stated in autograder/README.md.
#: strict: the day one closes, its test fails until it is taken off this list.
_NO_CGROUP = ("grading as an ordinary user, no cgroup holds the sandbox as a whole: memory that is "
              "not address space (memfd, tmpfs pages and inodes) is not bounded")
KNOWN_GAPS = {
    ("memfd_hoard", "user"): _NO_CGROUP,
    ("unbounded_tmpfs_writes", "user"): _NO_CGROUP,
    ("inode_flood", "user"): _NO_CGROUP,
}


def _params():
    for mode in MODES:
        for case in CASES:
            name = case.name.split("\n")[0]
            gap = KNOWN_GAPS.get((name, mode))
            marks = [pytest.mark.xfail(strict=True, reason=f"known gap: {gap}")] if gap else []
            yield pytest.param(case, mode, id=f"{name}-{mode}", marks=marks)


@pytest.mark.parametrize(("case", "mode"), list(_params()))
def test_hostile_submission(hypermines_runs, case, mode):
    check_case(hypermines_runs[mode], case)


@pytest.mark.parametrize("mode", MODES)
def test_both_sandboxes_of_the_cross_pair_ran_at_the_same_time(hypermines_runs, mode):
    """00-listener and 01-prober are the batch's first two jobs, one per worker: they must have
    overlapped, or their finding that no socket or file crossed proves nothing."""
    reports = hypermines_runs[mode].reports
    first, second = (cases.reported(reports[name].problem)["window"] for name in ("00-listener", "01-prober"))
    overlap = min(first[1], second[1]) - max(first[0], second[0])
    assert overlap > 0.5, (first, second)


@pytest.mark.parametrize("mode", MODES)
def test_student_made_names_stay_text_in_the_gradebook(hypermines_runs, mode):
    run = hypermines_runs[mode]
    rows = (run.results / "grades.csv").read_text(encoding="utf-8").splitlines()
    odd = [row for row in rows if "HYPERLINK" in row]
    assert len(odd) == 1 and odd[0].startswith("'=HYPERLINK(1)"), odd
