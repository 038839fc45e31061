"""nbgrader's own `autograde` on submitted copies of the source notebooks: full marks on the
visible tests for the reference solutions, fewer points on them whenever an exercise they test is
left unwritten, and the same total as the kit's `autograder grade` on the same files (a student's
self-check and the official grade never disagree). The hidden-tests cell counts in nbgrader's
maximum, but its points come from the kit (autograder/gradebook.py,
tests/autograder/test_nbgrader_course.py).
`autograder check` on every notebook runs in tests/test_stands_alone.py, in a clone of the
repository with nothing beside it.

The submissions and their autograding are the ``autograded`` fixture (notebook_fixtures.py).
"""
import json
import subprocess
import sys

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.report import student_dir
from grader_testkit import course_file_without_own_tests
from notebook_tools import (COMPLETE, GRADED, HIDDEN_TESTS, NOTEBOOKS, OWN_TESTS, REPO, exercises,
                            exercises_with_visible_tests, is_visible_test, nbgrader_meta, visible_tests_after)


def nbgrader_scores(course, assignment, students):
    """Each student's nbgrader score and maximum on the visible tests (the hidden-tests cell left out)."""
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        scores = {}
        for student in students:
            grades = [g for nb in gradebook.find_submission(assignment, student).notebooks for g in nb.grades
                      if g.name != HIDDEN_TESTS]
            scores[student] = (sum(g.score for g in grades), sum(g.max_score for g in grades))
        return scores


@pytest.mark.parametrize("name", sorted(GRADED))
def test_nbgrader_gives_full_marks_to_the_reference(course, autograded, name):
    """Full marks on the visible tests; the hidden-tests cell counts in the maximum."""
    assignment = GRADED[name]
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    points = sum(nbgrader_meta(c).get("points", 0) for c in nb.cells if is_visible_test(c))
    hidden = next(nbgrader_meta(c)["points"] for c in nb.cells if nbgrader_meta(c).get("grade_id") == HIDDEN_TESTS)
    score, max_score = nbgrader_scores(course, assignment, [COMPLETE])[COMPLETE]
    assert (score, max_score) == (points, points)
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(assignment, COMPLETE)
        assert submission.max_score == points + hidden


@pytest.mark.parametrize("name", sorted(GRADED))
def test_nbgrader_takes_points_for_an_unwritten_exercise(course, autograded, name):
    """Each exercise a visible test follows, left unwritten, costs points on the visible tests (the
    hidden-tests cell scores 0 in nbgrader whatever is written), the tests after it first. The only
    exercise with no copy of its own is the own-tests cell, which nbgrader gives no points."""
    assignment = GRADED[name]
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    tested = exercises_with_visible_tests(nb)
    untested = [cell for cell in nb.cells if cell.id in set(exercises(nb)) - set(tested)]
    assert all(cell.id == OWN_TESTS and not nbgrader_meta(cell).get("grade") for cell in untested), (
        f"{name}: exercises no visible test follows: {[cell.id for cell in untested]}")
    assert autograded[assignment] == [COMPLETE] + [f"without-{exercise}" for exercise in tested]
    scores = nbgrader_scores(course, assignment, autograded[assignment])
    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        for exercise in tested:
            student = f"without-{exercise}"
            score, max_score = scores[student]
            assert score < max_score, f"{name}: {exercise} unwritten, yet full marks on the visible tests"
            for grade_id in visible_tests_after(nb, exercise):
                grade = gradebook.find_grade(grade_id, name.removesuffix(".ipynb"), assignment, student)
                assert grade.score == 0, f"{name}: {grade_id} scored {grade.score} with {exercise} unwritten"


@pytest.mark.parametrize("name", sorted(GRADED))
def test_autograder_and_nbgrader_agree(course, autograded, name, tmp_path):
    """`autograder grade` on the nbgrader submitted/ folder gives every student nbgrader's total on
    the visible tests. The students' own tests, worth no points here, are not graded: that would
    cost 4 to 8 s of CPU for each of the 20 submissions (grader_testkit.NO_OWN_TESTS)."""
    assignment = GRADED[name]
    students = autograded[assignment]
    results = tmp_path / "results"
    settings = course_file_without_own_tests(tmp_path / "settings", assignment)
    done = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--assignment", assignment, "--results-dir",
         str(results), "--seed", "1", "--no-progress", "-j", "2", "--course", str(settings),
         str(course / "submitted")],
        cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, f"autograder grade failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    expected = nbgrader_scores(course, assignment, students)
    for student in students:
        report = json.loads((student_dir(results, student) / "results.json").read_text())
        official = sum(test.get("score", 0) for test in report["tests"])
        possible = sum(test.get("max_score", 0) for test in report["tests"])
        score, max_score = expected[student]
        assert (official, possible) == (score, max_score), (
            f"{name}, student {student}: autograder {official}/{possible}, nbgrader {score}/{max_score}")
