"""The planted bugs students' own tests are graded on: at least 12 a step, each a real mistake with
its source in docs/planted-bugs.md, none about the lab's scaffolding, and every one caught by a
valid test of the project's data, the source notebook's own tests: the model answer (every
solution cell of notebooks/, its own tests included) earns full own-test marks."""

from __future__ import annotations

import dataclasses
import re
from pathlib import Path

import pytest

from autograder.assignments import get_assignment
from autograder.instructor.chaffs import planted_for
from autograder.instructor.chaffs.hypermines import DUMP
from autograder.own_tests import grade_in_submission
from autograder.submission import read_submission

ROOT = Path(__file__).resolve().parents[2]
STEPS = {"neighbors": "01-neighbors", "make-board": "02-make-board", "flood-fill": "03-flood-fill",
         "hypermines": "04-nd-dig"}


def table(step: str, column: int = 3) -> dict[str, str]:
    """The docs table of a step: each planted bug's name -> a cell of its row (3: its source, 4:
    the test that catches it)."""
    text = (ROOT / "docs" / "planted-bugs.md").read_text(encoding="utf-8")
    section = text.split(f"`{step}`", 1)[1].split("\n## ", 1)[0]
    rows = {}
    for line in section.splitlines():
        found = re.match(r"\| `([a-z0-9_]+)` \| (.+?) \| (.+) \| (.+) \|$", line)
        if found:
            rows[found.group(1)] = found.group(column)
    return rows


@pytest.mark.parametrize("step", STEPS)
def test_every_planted_bug_is_in_the_docs_table_with_its_source(step):
    planted = [chaff.name for chaff in planted_for(step)]
    assert len(planted) >= 12, f"{step}: only {len(planted)} planted bugs"
    rows = table(step)
    assert sorted(rows) == sorted(planted), "the docs table lists exactly the planted bugs"
    for name, source in rows.items():
        assert "@" in source or "notebook" in source, f"{name}: no source ({source})"


@pytest.mark.parametrize("step", STEPS)
def test_no_planted_bug_is_about_the_scaffolding(step):
    """The given dump and from_dict are the lab's scaffolding: no planted bug changes them."""
    for chaff in planted_for(step):
        for old, _ in chaff.replacements:
            assert "def dump" not in old and "def from_dict" not in old and old not in DUMP, chaff.name


@pytest.mark.slow
@pytest.mark.parametrize("step", STEPS)
def test_the_model_answer_earns_full_own_test_marks(step):
    """Every solution cell of the source notebook, its own tests included, graded as a student's
    notebook is with own tests worth 5 points: every test valid, every planted bug caught, the
    requirement met; each bug named at the test the docs table says catches it."""
    assignment = dataclasses.replace(get_assignment(step), own_tests_points=5.0)
    path = ROOT / "notebooks" / f"{STEPS[step]}.ipynb"
    submission = read_submission("model", path, assignment.keeps_import, assignment.course_cells())
    assert submission.problem is None, submission.problem
    graded = grade_in_submission(assignment, submission.source, path, seed=11, cells=submission.test_cells)
    assert graded is not None
    assert graded.score == graded.max_score == 5.0, graded.output
    assert sorted(graded.summary["caught"]) == sorted(c.name for c in planted_for(step)), graded.output
    assert graded.summary["valid"] == graded.summary["tests"] and not graded.summary["unmet"], graded.output
    assert "In this course your own tests are worth 5 points" in graded.output
    bug_of = {text: name for name, text in graded.summary["misconceptions"].items()}
    named_at = {}
    for line in graded.output.splitlines():
        found = re.match(r"  (\S+): valid; catches: (.+)$", line)
        if found:
            named_at.update({bug_of[text]: f"`{found.group(1)}`" for text in found.group(2).split("; ")})
    assert named_at == table(step, column=4)
