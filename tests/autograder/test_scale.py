"""One scale: an assignment is out of points + own_tests_points, with exact weights, in every output.

The expected values are worked out by hand: 20 points over 21 equal weights is 0.952380...,
so 20 of the shares are 0.9524 or 0.9523 and they add up to 20.0000 exactly; 25 over three equal
weights is 8.3334 + 8.3333 + 8.3333.
"""

from __future__ import annotations

import csv
import dataclasses
import json
from decimal import Decimal

import pytest

from autograder.assignments import get_assignment
from autograder.batch import grade_batch
from autograder.grading import OWN_TESTS, OWN_TESTS_ID, GradeReport
from autograder.grading import TestOutcome as Outcome
from autograder.report import gradescope_results, student_dir
from autograder.scale import Scale, apportion, on_course_scale


def exact_sum(values: list[float]) -> Decimal:
    return sum((Decimal(repr(v)) for v in values), Decimal(0))


@pytest.mark.parametrize("weights, total, expected", [
    ([1, 1, 1], 25, [8.3334, 8.3333, 8.3333]),
    ([2, 2, 3, 3], 20, [4.0, 4.0, 6.0, 6.0]),
    ([1, 2], 1, [0.3333, 0.6667]),
    ([3, 0, 1], 12.5, [9.375, 0.0, 3.125]),
    ([0, 0], 10, [0.0, 0.0]),
])
def test_shares_are_rounded_to_four_places_and_add_up_exactly(weights, total, expected):
    shares = apportion(weights, total)
    assert shares == expected
    assert exact_sum(shares) == (Decimal(repr(float(total))) if any(weights) else 0)


def test_twenty_points_over_twenty_one_tests_never_make_20_0001():
    shares = apportion([1] * 21, 20)
    assert exact_sum(shares) == Decimal(20)
    assert set(shares) == {0.9524, 0.9523} and shares.count(0.9524) == 20 * 10**4 - 21 * 9523


def report_with(weights: list[float], passed: list[bool], own: tuple[float, float] | None) -> GradeReport:
    tests = [Outcome(f"test {i}", w, f"test_{i}", w if ok else 0.0, "passed" if ok else "failed")
             for i, (w, ok) in enumerate(zip(weights, passed))]
    if own is not None:
        tests.append(Outcome(OWN_TESTS, own[1], OWN_TESTS_ID, own[0], "failed"))
    return GradeReport("ada", "make-board", sum(t.score for t in tests), sum(t.max_score for t in tests), 1.0, 1, tests)


def test_own_tests_come_on_top_of_the_course_points():
    """points = 25 and own_tests_points = 5: out of 30, the hidden tests sharing 25 (never 20 with
    the own tests taking 5 of them), the own tests keeping their 5."""
    assignment = dataclasses.replace(get_assignment("make-board"), points=25, own_tests_points=5)
    report = on_course_scale(report_with([2, 2, 3, 7], [True, False, True, True], (2.5, 5.0)), assignment)
    hidden = [t.max_score for t in report.tests[:-1]]
    assert hidden == [3.5714, 3.5714, 5.3572, 12.5] and exact_sum(hidden) == 25
    assert report.tests[-1].max_score == 5 and report.tests[-1].score == 2.5
    assert report.max_score == 30 and report.score == 23.9286
    assert Scale.of(assignment, 14).maximum == 30
    # Without course points the suite's own weights stand, own tests still on top.
    plain = dataclasses.replace(get_assignment("make-board"), own_tests_points=4)
    kept = on_course_scale(report_with([2, 2], [True, True], (4.0, 4.0)), plain)
    assert [t.max_score for t in kept.tests] == [2, 2, 4] and kept.max_score == kept.score == 8
    assert Scale.of(plain, 14).maximum == 18
    # A step that asks for no tests of the students' own has none on its scale.
    assert Scale.of(dataclasses.replace(get_assignment("bots"), own_tests_points=4), 10).maximum == 10


@pytest.mark.slow
def test_every_output_says_the_same_exact_maximum(tmp_path):
    """A graded batch under points = 20 and own_tests_points = 4: results.json, Gradescope's score
    and maxima, the CSV (the not-submitted row too) all say out of 24, the hidden weights adding to
    20 exactly as written."""
    from autograder.course import load_course

    (tmp_path / "course.toml").write_text("[assignments.make-board]\npoints = 20\nown_tests_points = 4\n")
    course = load_course(tmp_path / "course.toml")
    notebook = get_assignment("make-board").notebook_path
    (tmp_path / "subs" / "ada").mkdir(parents=True)
    (tmp_path / "subs" / "ada" / notebook.name).write_bytes(notebook.read_bytes())
    (tmp_path / "subs" / "bo").mkdir()  # nothing handed in
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    done = grade_batch("make-board", [tmp_path / "subs"], results, csv_path=gradebook, jobs=1, seed=3,
                       progress=False, course=course)
    ada = next(r for r in done.reports if r.student == "ada")
    data = json.loads((student_dir(results, "ada") / "results.json").read_text())
    assert data["extra_data"]["max_score"] == 24 and data["score"] == 24, data["output"]
    hidden = [t["max_score"] for t in data["tests"] if t["name"] != OWN_TESTS]
    assert exact_sum(hidden) == 20 and [t["max_score"] for t in data["tests"] if t["name"] == OWN_TESTS] == [4]
    assert gradescope_results(ada)["score"] == 24
    assert "24 / 24 points" in data["output"] and "0001" not in json.dumps(data)
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    assert (rows["ada"]["score"], rows["ada"]["max_score"]) == ("24", "24")
    assert (rows["bo"]["status"], rows["bo"]["max_score"], rows["bo"]["score"]) == ("not submitted", "24", "")
