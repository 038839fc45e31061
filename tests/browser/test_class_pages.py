"""The tournament page and the batch report open from files in Chromium: plots and tables there, no errors.

Both pages must work with no server and no network, so each is opened as a file:// address while
every request the page makes is recorded: only the page itself (and data: addresses) may be asked
for. Screenshots go to test-artifacts/browser/ when asked (MINESWEEPER_SCREENSHOTS=1, support.py).
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from autograder.batch_report import write_report
from autograder.report import student_dir
from minesweeper_kit.tournament import run_tournament

from .support import assert_offline, open_page, step_shot

pytestmark = pytest.mark.browser

BOTS = Path(__file__).resolve().parents[1] / "bots" / "data" / "tournament"


def visible_plots(page, selector: str) -> int:
    boxes = [page.locator(selector).nth(i).bounding_box() for i in range(page.locator(selector).count())]
    return sum(1 for box in boxes if box and box["width"] > 100 and box["height"] > 100)


def test_tournament_page(page, tmp_path):
    results = tmp_path / "tournament"
    run_tournament(["reference", "baseline", "random", BOTS / "first_covered.py", BOTS / "local_rules.py"],
                   presets=["beginner", "intermediate"], games=12, seed=2, chunk_size=6, trusted=True,
                   results_dir=results, progress=False)
    path = results / "tournament.html"
    errors, requests = open_page(page, path)
    step_shot(page, "class-tournament", full_page=True)
    assert errors == []
    assert_offline(requests, path)
    rows = page.locator("table#leaderboard tbody tr")
    assert rows.count() == 5
    names = [rows.nth(i).locator("td").nth(1).inner_text().split()[0] for i in range(5)]
    assert sorted(names) == ["baseline", "first_covered", "local_rules", "random", "reference"]
    # The win-rate plot and three pairwise matrices (all events, beginner, intermediate), drawn.
    assert page.locator("#win-rates svg.plot").count() == 1
    for family in ("all-events", "beginner", "intermediate"):
        assert page.locator(f"#pairwise-{family} svg.plot").count() == 1
    assert visible_plots(page, "svg.plot") == 4
    # Every pair is listed under its event.
    page.locator("summary", has_text="beginner:").click()
    assert page.locator("table#pairs-beginner tbody tr").count() == 10
    data = json.loads((results / "tournament.json").read_text())
    assert page.locator("table#leaderboard tbody tr").first.locator("td").nth(1).inner_text().startswith(
        data["leaderboard"][0]["bot"])


def write_result(root: Path, student: str, passed: list[bool], seconds: float, problem: str | None = None) -> None:
    folder = student_dir(root, student)
    folder.mkdir(parents=True)
    names = ["A new game", "Dig a safe cell", "Render"]
    tests = [{"name": name, "score": 1.0 if ok else 0.0, "max_score": 1.0, "status": "passed" if ok else "failed",
              "output": "passed" if ok else (problem and "not run: the submission did not load"
                                             or f"dig([{len(student)}, 1]) returned {len(student) + 2}, expected 0")}
             for name, ok in zip(names, passed)]
    (folder / "results.json").write_text(json.dumps({
        "score": float(sum(passed)), "execution_time": seconds, "output": f"flood-fill: {sum(passed)} / 3 points.",
        "tests": tests, "extra_data": {"assignment": "flood-fill", "student": student}}))
    (folder / ".report.json").write_text(json.dumps({"problem": problem}))
    (folder / "feedback.txt").write_text(f"Feedback for {student}\n")


def test_batch_report_page(page, tmp_path):
    root = tmp_path / "results"
    write_result(root, "ada", [True, True, True], 1.2)
    write_result(root, "bo", [True, False, True], 2.5)
    write_result(root, "cy", [True, False, False], 0.7)
    write_result(root, "di", [False, False, False], 0.1, problem="the submission could not be loaded: SyntaxError")
    path, _ = write_report(root)
    errors, requests = open_page(page, path)
    step_shot(page, "class-batch-report", full_page=True)
    assert errors == []
    assert_offline(requests, path)
    for figure in ("scores", "pass-rates", "times"):
        assert page.locator(f"#{figure} svg.plot").count() == 1
    assert visible_plots(page, "svg.plot") == 3
    assert page.locator("table#students tbody tr").count() == 4
    first_test = page.locator("table#tests tbody tr").first.locator("td")
    assert first_test.nth(0).inner_text() == "Dig a safe cell" and first_test.nth(2).inner_text() == "1 / 3"  # over the 3 that loaded
    assert "SyntaxError" in page.locator("table#load-failures").inner_text()
    # The feedback links are relative and open the student's file.
    link = page.locator("table#students a", has_text="feedback.txt").nth(1)
    assert link.get_attribute("href") == "students/bo/feedback.txt"
    link.click()
    page.wait_for_load_state("load")
    assert page.url == (student_dir(root, "bo") / "feedback.txt").as_uri()
    assert "Feedback for bo" in page.locator("body").inner_text()
