"""Grader speed: the autograder beside `nbgrader autograde`, on the same notebook, in one run.

Both graders take the solved `04-nd-dig` notebook (the source version, its solution cells
filled in) as every student's submission, in one temporary nbgrader course. Timed: one
notebook through each command line (process start included), and a batch of students
(`autograder grade -j 2` against `nbgrader autograde` over the same submitted/ folder). Also
the autograder's own split for one submission: the hidden suite's tests against the
per-submission overhead (pytest session, sandbox start, loading the code, writing results).
The two graders do not run the same tests: nbgrader executes the notebook with its visible
tests; the autograder runs the hidden suite (20 points, original size cases included).
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from autograder.assignments import get_assignment
from autograder.check import reference_submission
from autograder.grading import grade_submission
from autograder.submission import read_submission

from .report import machine, write_section

PYTHON = sys.executable
BIN = Path(sys.executable).parent


def _run(command: list[str], cwd: Path) -> float:
    started = time.perf_counter()
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=1800, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return elapsed


def make_course(root: Path, notebook: Path, students: int) -> None:
    """An nbgrader course: source/, the generated release, and submitted/<student>/<assignment>/."""
    assignment = "hypermines"
    (root / "source" / assignment).mkdir(parents=True)
    shutil.copy(notebook, root / "source" / assignment / notebook.name)
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(root)!r}\n"
        "c.CourseDirectory.db_assignments = [dict(name='hypermines')]\n"
        f"c.CourseDirectory.db_students = [{', '.join(f'dict(id={s!r})' for s in names(students))}]\n"
        "c.ExecutePreprocessor.timeout = 600\n")
    _run([str(BIN / "nbgrader"), "generate_assignment", assignment, "--force"], root)
    for student in names(students):
        folder = root / "submitted" / student / assignment
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / notebook.name)


def names(count: int) -> list[str]:
    return [f"student{i:02d}" for i in range(count)]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--students", type=int, default=4, help="students in the batch")
    parser.add_argument("--no-write", action="store_true", help="print, do not rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)
    assignment = get_assignment("hypermines")
    notebook = assignment.notebook_path
    rows = {}
    with tempfile.TemporaryDirectory() as temp:
        course = Path(temp) / "course"
        make_course(course, notebook, args.students)
        one = course / "submitted" / "student00"
        results = Path(temp) / "results"

        ours_one, theirs_one, ours_batch, theirs_batch = [], [], [], []
        for repeat in range(args.repeats):
            print(f"run {repeat + 1}/{args.repeats}", flush=True)
            ours_one.append(_run([str(BIN / "autograder"), "grade", "--assignment", "hypermines", str(one),
                                  "--results-dir", str(results), "--force", "-j", "1", "--no-progress", "--seed", "1"],
                                 course))
            theirs_one.append(_run([str(BIN / "nbgrader"), "autograde", "hypermines", "--student", "student00",
                                    "--force"], course))
            ours_batch.append(_run([str(BIN / "autograder"), "grade", "--assignment", "hypermines",
                                    str(course / "submitted"), "--results-dir", str(results), "--force", "-j", "2",
                                    "--no-progress", "--seed", "1"], course))
            theirs_batch.append(_run([str(BIN / "nbgrader"), "autograde", "hypermines", "--force"], course))

        # The autograder's own split for one submission, in-process.
        submission = read_submission("student00", one / "hypermines" / notebook.name, assignment.keeps_import)
        totals, overheads, tests = [], [], []
        for _ in range(args.repeats):
            report = grade_submission(assignment, submission, seed=1)
            assert report.score == report.max_score, report.tests
            spent = sum(t.seconds for t in report.tests)
            totals.append(report.execution_time)
            tests.append(spent)
            overheads.append(report.execution_time - spent)
        reference_py = grade_submission(assignment, reference_submission(assignment), seed=1).execution_time

    med = statistics.median
    load = os.getloadavg()[1]
    rows = [
        ("one notebook, command line (process start included)", med(ours_one), med(theirs_one)),
        (f"batch of {args.students} notebooks (autograder -j 2)", med(ours_batch), med(theirs_batch)),
        ("per notebook in the batch", med(ours_batch) / args.students, med(theirs_batch) / args.students),
    ]
    lines = [
        "## Grader", "", f"Machine: {machine()}.", "",
        f"`benchmarks/grader.py`: the solved `04-nd-dig` notebook as every student's submission in one "
        f"temporary nbgrader course, graded by `autograder grade --assignment hypermines` and by "
        f"`nbgrader autograde` (nbgrader {_nbgrader_version()}), medians of {args.repeats} runs. "
        "nbgrader executes the notebook with its visible tests in a kernel, one student after another; "
        "the autograder runs the hidden suite (13 tests, 20 points, the original 4-D and 5-D size cases "
        "included) with the student's code in a sandboxed child process, two students at a time.", "",
        f"Load average during the run (5 min): {load:.1f} on {os.cpu_count()} cores; the machine was shared, so "
        "absolute times are inflated alike on both sides.", "",
        "| measurement | autograder | nbgrader autograde | nbgrader / autograder |", "|---|---:|---:|---:|",
    ]
    for label, ours, theirs in rows:
        lines.append(f"| {label} | {ours:.2f} s | {theirs:.2f} s | {theirs / ours:.1f}x |")
    lines.append(f"| fixed cost per submission (autograder: overhead row below; nbgrader: per notebook in "
                 f"the batch) | {med(overheads):.2f} s | {med(theirs_batch) / args.students:.2f} s | "
                 f"{med(theirs_batch) / args.students / med(overheads):.0f}x |")
    lines += [
        "", "Inside the autograder, one submission (in-process, median):", "",
        "| part | time |", "|---|---:|",
        f"| whole hidden suite on the solved notebook | {med(totals):.2f} s |",
        f"| of which the 13 tests themselves | {med(tests):.2f} s |",
        f"| per-submission overhead (pytest session, sandbox start, loading, reports) | {med(overheads):.2f} s |",
        f"| whole suite on the plain reference `autograder/instructor/reference/hypermines.py` | {reference_py:.2f} s |",
        "", "Most of the suite's time is the student's own code on the original 27,000- and 30,000-cell boards; "
        "the fixed cost per submission is the overhead row.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("grader", body)
    return 0


def _nbgrader_version() -> str:
    import nbgrader

    return nbgrader.__version__


if __name__ == "__main__":
    sys.exit(main())
