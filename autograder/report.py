"""What the grader writes: Gradescope ``results.json``, a readable feedback file, a CSV gradebook.

Feedback names each test, its points, and for a failure the failing case and its first
difference; it never shows the hidden tests' code. Instructor-only details (errors on the
grader's side) go to ``grader-log.txt`` beside them, never into the feedback.
"""

from __future__ import annotations

import csv
import json
import re
from pathlib import Path

from .grading import GradeReport

__all__ = ["gradescope_results", "feedback_text", "write_student", "read_student", "write_csv",
           "summary_table", "student_dir"]

RECORD = ".report.json"


def student_dir(results_dir: Path, student: str) -> Path:
    safe = re.sub(r"[^\w.@+-]", "_", student).lstrip(".") or "student"
    return Path(results_dir) / safe


def _points(value: float) -> str:
    return f"{value:g}"


def gradescope_results(report: GradeReport) -> dict:
    """The Gradescope autograder results schema (score, execution_time, output, tests...)."""
    output = f"{report.assignment}: {_points(report.score)} / {_points(report.max_score)} points."
    if report.problem:
        output += f" {report.problem}"
    output += f" {report.submission}"
    return {
        "score": report.score,
        "execution_time": report.execution_time,
        "output": output,
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "tests": [
            {"name": test.name, "number": str(number), "score": test.score, "max_score": test.max_score,
             "status": test.status, "output": test.output, "visibility": test.visibility}
            for number, test in enumerate(report.tests, start=1)
        ],
        "extra_data": {"assignment": report.assignment, "seed": report.seed, "student": report.student},
    }


def feedback_text(report: GradeReport) -> str:
    """A plain-text report for the student."""
    lines = [f"Assignment {report.assignment} - {report.student}",
             f"Score: {_points(report.score)} / {_points(report.max_score)}",
             f"Graded in {report.execution_time:.1f} s (random cases drawn from seed {report.seed}).",
             report.submission, ""]
    if report.problem:
        lines += [f"Your submission could not be graded fully: {report.problem}", ""]
    width = max((len(t.name) for t in report.tests), default=10)
    for test in report.tests:
        mark = "PASS" if test.status == "passed" else "FAIL"
        lines.append(f"[{mark}] {test.name.ljust(width)}  {_points(test.score)}/{_points(test.max_score)}")
        if test.status != "passed" and test.output:
            for part in test.output.splitlines() or [""]:
                lines.append(f"       {part}")
    if report.stdout.strip():
        lines += ["", "What your code printed (first part only):", report.stdout[:4000].rstrip()]
    return "\n".join(lines) + "\n"


def write_student(report: GradeReport, results_dir: Path) -> Path:
    """Write results.json, feedback.txt (and grader-log.txt if the grader failed) for a student."""
    folder = student_dir(results_dir, report.student)
    folder.mkdir(parents=True, exist_ok=True)
    (folder / "results.json").write_text(json.dumps(gradescope_results(report), indent=2) + "\n")
    (folder / "feedback.txt").write_text(feedback_text(report))
    (folder / RECORD).write_text(json.dumps(report.to_dict()) + "\n")
    log = folder / "grader-log.txt"
    if report.internal_errors:
        log.write_text("\n\n".join(report.internal_errors) + "\n")
    elif log.exists():
        log.unlink()
    return folder


def read_student(results_dir: Path, student: str, assignment: str) -> GradeReport | None:
    """The finished report of a student for this assignment, if there is one."""
    record = student_dir(results_dir, student) / RECORD
    try:
        report = GradeReport.from_dict(json.loads(record.read_text()))
    except (OSError, ValueError, TypeError):
        return None
    if report.assignment != assignment or not (record.parent / "results.json").exists():
        return None
    return report


def write_csv(reports: list[GradeReport], path: Path) -> None:
    """A gradebook: one row per student, the total, then each test's points."""
    names = []
    for report in reports:
        for test in report.tests:
            if test.name not in names:
                names.append(test.name)
    with open(path, "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["student", "score", "max_score", "percent", "execution_time", "seed", "problem"] + names)
        for report in sorted(reports, key=lambda r: r.student):
            by_name = {t.name: t.score for t in report.tests}
            percent = 100.0 * report.score / report.max_score if report.max_score else 0.0
            writer.writerow([report.student, _points(report.score), _points(report.max_score),
                             f"{percent:.1f}", f"{report.execution_time:.2f}", report.seed,
                             report.problem or ""] + [_points(by_name[n]) if n in by_name else "" for n in names])


def summary_table(reports: list[GradeReport]) -> str:
    """A fixed-width table of students, scores, time and a short note."""
    rows = [("student", "score", "time", "note")]
    for report in sorted(reports, key=lambda r: r.student):
        failed = [t for t in report.tests if t.status != "passed"]
        note = report.problem or (f"{len(failed)} test(s) failed" if failed else "all tests passed")
        rows.append((report.student, f"{_points(report.score)}/{_points(report.max_score)}",
                     f"{report.execution_time:.1f}s", note[:70]))
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) if i < 3 else cell for i, cell in enumerate(row)))
        if index == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 4)
    if len(rows) > 1:
        total = sum(r.score for r in reports) / max(1, len(reports))
        lines.append(f"{len(reports)} submission(s), mean score {total:.2f}")
    return "\n".join(lines)
