"""What a student cannot do to results: have a forged or replayed record kept by a resumed
batch, or share another student's results folder by the name of a file."""

from __future__ import annotations

import json

import pytest

from autograder.report import student_dir
from redteam_harness import MODES, run_collision


@pytest.mark.parametrize("mode", MODES)
def test_forged_and_replayed_records_are_graded_again(resumed_runs, mode):
    resumed = resumed_runs[mode]
    assert resumed.error == ""
    assert len(resumed.graded) == 2 and len(resumed.kept) == 1, (resumed.graded, resumed.kept)
    for student in ("forger-replay", "forger-fresh"):
        report = resumed.reports[student]
        assert report.score == 0 and report.max_score == 20, report
        on_disk = json.loads((student_dir(resumed.results, student) / "results.json").read_text())
        assert on_disk["score"] == 0
        assert "Score: 0 / 20" in (student_dir(resumed.results, student) / "feedback.txt").read_text()
    assert resumed.reports["02-honest"].score == 20


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("names", [("a b.py", "a_b.py"), ("Ana.py", "ana.py")], ids=["space-underscore", "case"])
def test_two_students_never_share_a_results_folder(stage, mode, names):
    """Two files whose ids are the same once sanitised are both graded, each in a folder of its own
    (the batch is never refused for it), and each folder holds its own student's result."""
    error, results = run_collision(stage, mode, names)
    assert error == "", error
    records = [json.loads(path.read_text()) for path in results.glob("**/.report.json")]
    assert len(records) == 2 and len({r["student"] for r in records}) == 2, records
    assert all(r["status"] == "graded" and r["score"] == 0 for r in records), records
    for record in records:
        assert json.loads((student_dir(results, record["student"]) / ".report.json").read_text()) == record