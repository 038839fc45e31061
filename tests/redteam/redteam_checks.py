"""What every graded red-team case must satisfy, written once for all batteries."""

from __future__ import annotations

import re
import unicodedata

import redteam_cases as cases
from redteam_harness import Run

#: Characters a feedback file may hold that are not printable: the line break and the tab.
ALLOWED_CONTROLS = {"\n", "\t"}


def student_id(case: cases.Case) -> str:
    return cases.ODD_NAME_ID if case.name == cases.ODD_NAME else case.name


def hidden_characters(text: str) -> list[str]:
    """Control, format and separator characters: what could move or hide text in a terminal."""
    return sorted({f"U+{ord(c):04X}" for c in text if c not in ALLOWED_CONTROLS
                   and unicodedata.category(c) in ("Cc", "Cf", "Cs", "Zl", "Zp")})


def check_feedback_layout(run: Run, student: str) -> None:
    """The grader's own lines start at column 0, and only they do: one ``Score:`` line with the
    real score and one ``[PASS]``/``[FAIL]`` line per test, in order; nothing hidden anywhere."""
    report = run.reports[student]
    text = run.feedback(student)
    assert hidden_characters(text) == [], f"hidden characters in the feedback: {hidden_characters(text)}"
    lines = text.split("\n")
    scores = [line for line in lines if line.startswith("Score:")]
    assert scores == [f"Score: {report.score:g} / {report.max_score:g}"], scores
    marks = [line for line in lines if line.startswith(("[PASS]", "[FAIL]"))]
    assert len(marks) == len(report.tests), marks
    for line, test in zip(marks, report.tests):
        assert line.startswith(("[PASS] " if test.status == "passed" else "[FAIL] ") + test.name), (line, test.name)
    written = run.results_json(student)
    assert written["score"] == report.score
    for test in written["tests"]:
        assert hidden_characters(test["output"]) == [], test["output"]


def check_case(run: Run, case: cases.Case) -> None:
    """The exact outcome of one case in one run."""
    student = student_id(case)
    assert student in run.reports, f"no result for {student!r}; graded: {sorted(run.reports)}"
    report = run.reports[student]
    assert report.internal_errors == [], report.internal_errors[0][-3000:]
    assert report.status == case.status, (report.status, report.submission)
    if case.status == "not submitted":  # no score, no tests: only the reason, said to the student
        assert report.score is None and report.tests == [], report
        assert re.fullmatch(case.problem or "", report.submission, re.S), report.submission
        assert "score" not in run.results_json(student)
        return
    if case.passes != cases.BY_OUTCOME:
        passed = {t.id for t in report.tests if t.status == "passed"}
        expected = {t.id for t in report.tests} if case.passes == {"*"} else set(case.passes)
        assert passed == expected, [(t.id, t.output[:300]) for t in report.tests]
        assert report.score == sum(t.max_score for t in report.tests if t.id in expected), report.score
    if case.problem is None:
        assert report.problem is None, report.problem
    else:
        assert report.problem is not None and re.fullmatch(case.problem, report.problem, re.S), report.problem
    for test in report.tests:
        if test.status != "passed" and case.problem is None:
            for message in case.messages:
                assert message in test.output, (test.id, test.output)
    if case.outcome is not None:
        if case.outcome_in == "report":
            case.outcome(report, run.mode)
        else:
            found = cases.reported(report.problem if case.outcome_in == "problem" else report.stdout)
            expected_outcome = case.expected_outcome(run.mode)
            if callable(expected_outcome):
                expected_outcome(found, run.mode)
            else:
                assert found == expected_outcome, found
    check_feedback_layout(run, student)
