"""The batch report's and the class page's student tables sort in Chromium when a header is clicked.

The pages are opened as file:// addresses, as an instructor opens them, with every request
recorded: the sort script is inline and asks for nothing.
"""

from __future__ import annotations

import pytest

from autograder.batch_report import write_class_report, write_report
from autograder.grading import GradeReport
from autograder.grading import TestOutcome as Outcome
from autograder.report import write_student

from .support import assert_offline, open_page

pytestmark = pytest.mark.browser

TESTS = [("A new game", 2.0), ("Dig a safe cell", 3.0), ("Render", 5.0)]


def graded(student: str, passed: list[bool], assignment: str = "hypermines", late_by: float = 0.0,
           seed: int = 7, seconds: float = 1.0) -> GradeReport:
    tests = [Outcome(name, points, id=f"test_{n}", score=points if ok else 0.0, status="passed" if ok else "failed",
                     output="passed" if ok else "dig([1, 2]) returned 3, expected 0")
             for n, ((name, points), ok) in enumerate(zip(TESTS, passed), start=1)]
    return GradeReport(student, assignment, sum(t.score for t in tests), 10.0, seconds, seed, tests,
                       file="lab.py", late_by=late_by)


def missing(student: str, assignment: str = "hypermines") -> GradeReport:
    return GradeReport(student, assignment, None, 10.0, 0.0, 7, status="not submitted")


def column(page, table: str, index: int) -> list[str]:
    cells = page.locator(f"table#{table} tbody tr td:nth-child({index + 1})")
    return [cells.nth(i).inner_text().strip() for i in range(cells.count())]


def click_header(page, table: str, label: str) -> None:
    page.locator(f"table#{table} thead th button", has_text=label).first.click()


def test_the_students_table_sorts_by_the_clicked_column(page, tmp_path):
    root = tmp_path / "hypermines"
    for report in (graded("cy", [True, False, False], late_by=60.0, seed=30, seconds=9.5),
                   graded("ada", [True, True, True], seed=200000000, seconds=1.0),
                   graded("Bo", [True, False, True], late_by=7500.0, seed=4, seconds=12.0),
                   missing("dan")):
        write_student(report, root)
    path, _ = write_report(root)
    errors, requests = open_page(page, path)
    assert errors == []
    assert_offline(requests, path)
    students = 0
    assert column(page, "students", students) == ["ada", "Bo", "cy", "dan"]
    click_header(page, "students", "score")  # numerically, up; no score last
    assert column(page, "students", students) == ["cy", "Bo", "ada", "dan"]
    assert page.locator("table#students th[aria-sort=ascending]").inner_text().startswith("score")
    click_header(page, "students", "score")  # down; no score still last
    assert column(page, "students", students) == ["ada", "Bo", "cy", "dan"]
    click_header(page, "students", "seed")  # 4 < 30 < 200000000: numbers, not text
    assert column(page, "students", students) == ["Bo", "cy", "ada", "dan"]
    click_header(page, "students", "late by")  # on time (0) < 1 min < 2 h 5 min; not submitted last
    assert column(page, "students", students) == ["ada", "cy", "Bo", "dan"]
    click_header(page, "students", "time")
    assert column(page, "students", students) == ["ada", "cy", "Bo", "dan"]
    click_header(page, "students", "status")
    assert column(page, "students", 1) == ["graded", "graded", "graded", "not submitted"]
    click_header(page, "students", "student")
    assert column(page, "students", students) == ["ada", "Bo", "cy", "dan"]
    click_header(page, "students", "student")
    assert column(page, "students", students) == ["dan", "cy", "Bo", "ada"]
    # The feedback links still open the student's file after a sort.
    link = page.locator("table#students a", has_text="feedback.txt").first
    assert link.get_attribute("href") == "students/dan/feedback.txt"


def test_the_class_table_sorts_by_an_assignment_and_by_the_total(page, tmp_path):
    first, second = tmp_path / "class" / "hypermines", tmp_path / "class" / "flood-fill"
    for report in (graded("ada", [True, False, False]), graded("bo", [True, True, True]), missing("cy")):
        write_student(report, first)
    for report in (graded("ada", [True, True, True], "flood-fill"), graded("bo", [False, False, False], "flood-fill"),
                   graded("cy", [True, True, False], "flood-fill")):
        write_student(report, second)
    path, _ = write_class_report([first, second])
    errors, requests = open_page(page, path)
    assert errors == []
    assert_offline(requests, path)
    assert column(page, "class", 0) == ["ada", "bo", "cy"]
    click_header(page, "class", "hypermines")
    assert column(page, "class", 0) == ["ada", "bo", "cy"]  # 2, 10, not submitted (last)
    click_header(page, "class", "hypermines")
    assert column(page, "class", 0) == ["bo", "ada", "cy"]
    click_header(page, "class", "total")
    assert column(page, "class", 0) == ["cy", "bo", "ada"]  # 5, 10, 12
    assert column(page, "class", 3) == ["5 / 20", "10 / 20", "12 / 20"]
