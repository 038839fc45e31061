"""`autograder check --course` with own-test points: the model answer must score full marks on the
course's scale (points + own_tests_points) and the release version 0.

Without a course file, `autograder check` runs on every step in tests/test_stands_alone.py. Here a
course gives the steps' own tests 5 points on top of 25: the check now grades the model answer
(every solution cell of the source notebook, its own tests included) out of 30: each notebook's own
tests must be valid and catch every planted bug of its step.
"""

from __future__ import annotations

import re
import subprocess
import sys

import pytest

pytestmark = pytest.mark.slow

STEPS = ("neighbors", "make-board", "flood-fill", "hypermines")
COURSE = "[assignments.{step}]\npoints = 25\nown_tests_points = 5\n"


@pytest.fixture(scope="module")
def checked(tmp_path_factory) -> dict[str, str]:
    """`autograder check --assignment STEP --course course.toml` on each step, its output."""
    folder = tmp_path_factory.mktemp("check")
    out = {}
    for step in STEPS:
        course = folder / f"{step}.toml"
        course.write_text(COURSE.format(step=step))
        done = subprocess.run([sys.executable, "-m", "autograder", "check", "--assignment", step, "--course",
                               str(course)], capture_output=True, text=True, timeout=900, cwd=folder)
        assert done.returncode in (0, 1), done.stderr[-3000:]
        out[step] = done.stdout
    return out


@pytest.mark.parametrize("step", STEPS)
def test_the_check_grades_on_the_course_scale_and_the_release_scores_0(checked, step):
    text = checked[step]
    assert f"[ok] course settings for {step}: points = 25; own_tests_points = 5" in text, text
    assert "[ok] starter version scores 0 without crashing: 0/30" in text, text
    line = next(line for line in text.splitlines() if "reference scores full marks" in line)
    assert re.search(r": [\d.]+/30 in ", line), line
    assert "[ok] release notebook and feedback contain no hidden tests or solution code" in text, text
    if step == "hypermines":  # its reference is a file of its own: full marks on the hidden tests
        assert "[ok] the instructor's reference file hypermines.py scores full marks on the hidden tests: 25/25" \
            in text, text


@pytest.mark.parametrize("step", STEPS)
def test_the_model_answer_scores_full_marks_with_own_test_points(checked, step):
    text = checked[step]
    assert "[ok] reference scores full marks well inside the limit: 30/30" in text, text
    assert "FAILED" not in text, text
