"""A real nbgrader course, end to end: the grade nbgrader exports is the grade course.toml describes.

nbgrader's own commands run the course as an instructor runs it, in the order the README gives:
`generate_assignment` releases step 2 (under a course name of its own, not the kit's id), students
hand in solved copies of the release version, `autograder grade` grades the hidden tests (and
copies a renamed notebook to the release's name), `nbgrader autograde` scores the visible tests and
gives the hidden-tests cell 0, `autograder grade` again records the kit's grades and the course's
policy (late penalties, the import rule) over each whole notebook through nbgrader's gradebook
API, the instructor grades by hand in formgrader, and `autograder grade` records once more. Then
`nbgrader export` must give each student the total course.toml says, computed here by hand:
on time, within the grace, late, past max_days, a refused import, a renamed notebook, a buggy
submission and manual grades; `nbgrader generate_feedback` shows the kit's feedback.
"""

from __future__ import annotations

import csv
import datetime as dt
import html
import json
import os
import re
import stat
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import nbformat
import pytest
from nbgrader.api import Gradebook

from autograder.course import load_course
from autograder.gradebook import HIDDEN_TESTS_CELL, record_in_gradebook
from autograder.grading import NOT_GRADED, NOT_SUBMITTED, GradeReport
from autograder.report import GRADEBOOK_RECORD, feedback_text
from autograder.students import find_course
from autograder.instructor.chaffs import mutate
from autograder.instructor.chaffs.make_board import CHAFFS as MUTANTS

pytestmark = [pytest.mark.slow, pytest.mark.nbgrader]

REPO = Path(__file__).resolve().parents[2]
NBGRADER = Path(sys.executable).parent / "nbgrader"
KIT_ID = "make-board"
ASSIGNMENT = "ps2-boards"  #: the course's name of the assignment
NOTEBOOK = "02-make-board"
#: The correct and the buggy student's nbgrader ids differ only in case: the kit grades them under ids
#: of their own (suffixed), and records each under its nbgrader id.
CORRECT, BUGGY, HAND_GRADED = "ada", "Ada", "cy"
GRACE, LATE, TOO_LATE, REFUSED, RENAMED = "grace", "late", "toolate", "imports", "renamer"
STUDENTS = (CORRECT, BUGGY, HAND_GRADED, GRACE, LATE, TOO_LATE, REFUSED, RENAMED)
#: The students who hand in tests of their own, where the totals need them: full marks, the late
#: penalty over the whole scale, and a refused file's own tests. The others leave the own-tests cell
#: empty: 0 of its points, and nothing of theirs for the grader to run.
WITH_OWN_TESTS = (CORRECT, LATE, REFUSED)
OWN_TESTS_CELL = "own-tests"
BUG = next(m for m in MUTANTS if m.name == "make_board_one_short")
#: The manual grades the instructor gives in formgrader: cy's hidden tests, and one visible test of Ada.
MANUAL_HIDDEN = 5.5
MANUAL_VISIBLE = ("test_make_board", 1.0)
SEED = 11
#: The course's scale: the hidden tests are worth 20 points and the students' own tests 4 on top.
POINTS, OWN_POINTS = 20, 4
DUE = dt.datetime(2026, 3, 2, 12, 0, tzinfo=dt.timezone.utc)
#: When each student handed in (nbgrader's timestamp.txt): on time, 20 minutes late (inside the 30
#: minutes' grace), 1 day 10 hours late (two started days), 4 days late (past max_days = 3).
HANDED_IN = {GRACE: DUE + dt.timedelta(minutes=20), LATE: DUE + dt.timedelta(days=1, hours=10),
             TOO_LATE: DUE + dt.timedelta(days=4)}
ON_TIME = DUE - dt.timedelta(hours=3)
RENAMED_AS = f"{NOTEBOOK} (1).ipynb"

CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "minesweeper-course"
c.CourseDirectory.root = {root!r}
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.Execute.timeout = 600
c.LateSubmissionPlugin.penalty_method = "zero"
"""
#: The course's policy, written once: nbgrader's own late setting above (everything taken from a
#: late notebook) is replaced by this one, and recording says so.
COURSE_FILE = f"""\
due = {DUE.strftime("%Y-%m-%dT%H:%M:%SZ")}
[late]
grace_minutes = 30
penalty_per_day = 0.1
max_days = 3

[assignments.{KIT_ID}]
name = "{ASSIGNMENT}"
points = {POINTS}
own_tests_points = {OWN_POINTS}
"""


def nbgrader(course: Path, *args: str) -> str:
    """One nbgrader command in the course folder, as an instructor types it; its output."""
    env = {**os.environ, "PATH": os.pathsep.join([str(NBGRADER.parent), os.environ.get("PATH", "")])}
    done = subprocess.run([str(NBGRADER), *args], cwd=course, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def grade_with_kit(course: Path, results: Path) -> subprocess.CompletedProcess:
    """`autograder grade` on the course folder, as the instructor runs it from elsewhere: it finds the
    course's course.toml (the kit's make-board is the course's ps2-boards), reads nbgrader's layout
    and records the results in the gradebook."""
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", KIT_ID, str(course),
                           "--results-dir", str(results), "--seed", str(SEED), "-j", "2", "--no-progress"],
                          cwd=results.parent, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"course settings from {course / 'course.toml'}" in done.stderr
    return done


def read_reports(results: Path) -> dict[str, GradeReport]:
    """The kit's reports by nbgrader's id, read back from the results folder."""
    reports = [GradeReport.from_dict(json.loads(path.read_text())) for path in results.glob("students/*/.report.json")]
    assert all(r.student != r.handed_in_as for r in reports if r.handed_in_as)
    return {report.handed_in_as or report.student: report for report in reports}


def meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def solved(release: nbformat.NotebookNode, source: nbformat.NotebookNode, bug=None,
           extra: str = "", own_tests: bool = True) -> nbformat.NotebookNode:
    """The release version with each solution cell written as the source's solution (markers gone),
    with ``bug``'s replacements applied where they match, and ``extra`` put first in the first one;
    without ``own_tests``, the own-tests cell emptied."""
    answers = {c.id: re.sub(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", "", c.source, flags=re.M)
               for c in source.cells if meta(c).get("solution")}
    if bug is not None:
        joined = "\n".join(answers.values())
        assert mutate(joined, bug) != joined
        for old, new in bug.replacements:
            answers = {key: text.replace(old, new) for key, text in answers.items()}
    if not own_tests:
        answers[OWN_TESTS_CELL] = "# YOUR CODE HERE\n"
    if extra:
        first = next(iter(answers))
        answers[first] = extra + answers[first]
    copy = nbformat.from_dict(json.loads(json.dumps(release)))
    for cell in copy.cells:
        if cell.id in answers:
            cell.source = answers[cell.id]
    return copy


def errors(cell) -> list[str]:
    return [f"{o.ename}: {o.evalue}" for o in cell.get("outputs", []) if o.output_type == "error"]


def autograded_cells(autograded: Path) -> tuple[dict[str, float], list[str]]:
    """What nbgrader's rule gives each visible test of an autograded notebook (its points when the
    cell shows no error, else 0), and the errors the hidden-tests cell shows."""
    cells = [c for c in nbformat.read(autograded, as_version=4).cells if meta(c).get("grade")]
    visible = {meta(c)["grade_id"]: 0.0 if errors(c) else float(meta(c)["points"])
               for c in cells if meta(c)["grade_id"] != HIDDEN_TESTS_CELL}
    return visible, next(errors(c) for c in cells if meta(c)["grade_id"] == HIDDEN_TESTS_CELL)


def export_rows(course: Path) -> dict[str, dict[str, str]]:
    """`nbgrader export`, as the instructor runs it: the assignment's row of each student."""
    nbgrader(course, "export")
    with open(course / "grades.csv", newline="") as file:
        return {row["student_id"]: row for row in csv.DictReader(file) if row["assignment"] == ASSIGNMENT}


@dataclass
class Course:
    root: Path
    results: Path                       #: the kit's results folder
    visible_max: float                  #: the visible tests' points (the source notebook's)
    reports: dict[str, GradeReport]
    visible: dict[str, dict[str, float]]  #: per student, per visible test, nbgrader's points
    after_autograde: dict[str, dict]    #: per student, the hidden-tests grade before recording
    hidden_errors: dict[str, list[str]]  #: per student, the errors nbgrader's run of that cell showed
    first_run: str                      #: what the first `autograder grade` printed, stdout and stderr
    recording: str                      #: what the `autograder grade` that recorded printed
    after_manual: str                   #: what the `autograder grade` after the manual grades printed
    released: nbformat.NotebookNode
    validated: str                      #: `nbgrader validate` on the correct student's notebook
    exported: dict[str, dict[str, str]]  #: `nbgrader export` after the last recording, each student's row


@pytest.fixture(scope="module")
def nbgrader_course(tmp_path_factory) -> Course:
    root = tmp_path_factory.mktemp("nbgrader-course")
    (root / "nbgrader_config.py").write_text(CONFIG.format(root=str(root)))
    (root / "course.toml").write_text(COURSE_FILE)
    source_path = REPO / "notebooks" / f"{NOTEBOOK}.ipynb"
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    (root / "source" / ASSIGNMENT / source_path.name).write_bytes(source_path.read_bytes())
    nbgrader(root, "generate_assignment", ASSIGNMENT, "--force")

    source = nbformat.read(source_path, as_version=4)
    released = nbformat.read(root / "release" / ASSIGNMENT / source_path.name, as_version=4)
    for student in STUDENTS:
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        notebook = solved(released, source, BUG if student == BUGGY else None,
                          "import itertools\n\n" if student == REFUSED else "", student in WITH_OWN_TESTS)
        nbformat.write(notebook, folder / (RENAMED_AS if student == RENAMED else source_path.name))
        when = HANDED_IN.get(student, ON_TIME)
        (folder / "timestamp.txt").write_text(when.strftime("%Y-%m-%d %H:%M:%S.%f UTC"))
    validated = nbgrader(root / "submitted" / CORRECT / ASSIGNMENT, "validate", source_path.name)

    # The README's order: the kit's grade first (it puts the renamed notebook where nbgrader reads
    # it), nbgrader's visible tests, then the kit again, which records.
    work = tmp_path_factory.mktemp("kit")
    results = work / "results"
    first = grade_with_kit(root, results)
    first_run = first.stdout + first.stderr
    nbgrader(root, "autograde", ASSIGNMENT, "--create")
    ran = {s: autograded_cells(root / "autograded" / s / ASSIGNMENT / source_path.name) for s in STUDENTS}
    visible = {s: ran[s][0] for s in STUDENTS}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        after_autograde = {s: gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, s).to_dict()
                           for s in STUDENTS}
        for s in STUDENTS:
            for test_id, points in visible[s].items():
                assert gradebook.find_grade(test_id, NOTEBOOK, ASSIGNMENT, s).auto_score == points, (s, test_id)
    recording = grade_with_kit(root, results)
    assert "graded 0, kept 8" in recording.stdout, recording.stdout  # the second run only records
    reports = read_reports(results)

    # The instructor grades by hand in formgrader (which writes manual_score and clears the flag).
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        for cell, student, score in ((HIDDEN_TESTS_CELL, HAND_GRADED, MANUAL_HIDDEN),
                                     (MANUAL_VISIBLE[0], BUGGY, MANUAL_VISIBLE[1])):
            grade = gradebook.find_grade(cell, NOTEBOOK, ASSIGNMENT, student)
            grade.manual_score, grade.needs_manual_grade = score, False
        gradebook.db.commit()
    after_manual = grade_with_kit(root, results).stdout  # the README: grade again after grading by hand
    exported = export_rows(root)  # once: the tests that read the totals share it

    points = {meta(c)["grade_id"]: float(meta(c)["points"]) for c in source.cells if meta(c).get("grade")}
    points.pop(HIDDEN_TESTS_CELL)
    return Course(root, results, sum(points.values()), reports, visible, after_autograde,
                  {s: ran[s][1] for s in STUDENTS}, first_run, recording.stdout, after_manual, released, validated,
                  exported)


def expected_totals(course: Course) -> dict[str, tuple[float, float]]:
    """Each student's (raw score, late penalty) as course.toml describes them, by hand: the
    visible tests as nbgrader scores them (a manual grade instead where there is one), the hidden
    tests and own tests on the course's scale, then the late policy over the whole notebook: 10 %
    of its points per started day after the 30 minutes' grace, everything after 3 days; a file
    with a refused import scores 0 in every cell."""
    out = {}
    maximum = course.visible_max + POINTS + OWN_POINTS
    for student in STUDENTS:
        visible = dict(course.visible[student])
        if student == BUGGY:
            visible[MANUAL_VISIBLE[0]] = MANUAL_VISIBLE[1]
        if student == HAND_GRADED:
            hidden = MANUAL_HIDDEN
        elif student == BUGGY:  # the hidden tests it passed, at their weight on the scale (it wrote no tests)
            hidden = sum(t.score for t in course.reports[student].tests)
        else:
            hidden = POINTS + (OWN_POINTS if student in WITH_OWN_TESTS else 0)
        raw = sum(visible.values()) + hidden
        penalty = 0.0
        if student == LATE:
            penalty = 2 * 0.1 * maximum
        elif student == TOO_LATE:
            penalty = raw
        if student == REFUSED:
            raw = 0.0
        out[student] = (raw, penalty)
    return out


def test_the_student_version_has_the_cell_without_its_hidden_region(nbgrader_course):
    cell = next(c for c in nbgrader_course.released.cells if meta(c).get("grade_id") == HIDDEN_TESTS_CELL)
    assert cell is nbgrader_course.released.cells[-1]
    assert meta(cell)["locked"] and meta(cell)["grade"] and not meta(cell)["solution"]
    assert "HIDDEN TESTS" not in cell.source and "raise" not in cell.source
    assert "the course's autograder runs the hidden tests" in " ".join(cell.source.replace("#", "").split())
    validated = nbgrader_course.validated
    assert "Success! Your notebook passes all the tests." in validated, validated[-2000:]


def test_nbgrader_autograde_scores_the_hidden_cell_0(nbgrader_course):
    """nbgrader puts the hidden region back and runs it: it fails, naming the grader, so the cell
    scores 0 however good the code (the correct student's included), out of the course's scale,
    which the kit's first run wrote into the gradebook."""
    for student, grade in nbgrader_course.after_autograde.items():
        assert grade["auto_score"] == 0 and grade["max_score"] == POINTS + OWN_POINTS, (student, grade)
        shown = nbgrader_course.hidden_errors[student]
        assert len(shown) == 1 and shown[0].startswith("RuntimeError: ") and "`autograder grade`" in shown[0], shown
    first = nbgrader_course.first_run
    assert f"the {HIDDEN_TESTS_CELL} cell counts 24 points (the course's points and own tests' points), not the " \
           "notebook's 14" in first, first
    assert f"not in the gradebook, nothing recorded" in first and f"nbgrader autograde {ASSIGNMENT}" in first


def test_the_kit_grades_are_recorded_on_the_course_scale(nbgrader_course):
    """The hidden-tests cell counts the kit's grade before its late penalty, out of points +
    own_tests_points; the kit's own outputs say the same scale."""
    course, reports = nbgrader_course, nbgrader_course.reports
    recording = course.recording
    assert f"hidden tests recorded for 8 student(s) in {ASSIGNMENT}/{NOTEBOOK}, cell {HIDDEN_TESTS_CELL} (24 points)" \
        in recording, recording
    assert "would share the results folder" in course.first_run, course.first_run[-3000:]
    assert {reports[CORRECT].student, reports[BUGGY].student}.isdisjoint({CORRECT, BUGGY}), "ids of their own"
    assert reports[CORRECT].score == reports[CORRECT].max_score == POINTS + OWN_POINTS
    assert 0 < reports[BUGGY].score < reports[BUGGY].max_score, feedback_text(reports[BUGGY])
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        for student, report in reports.items():
            grade = gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, student)
            assert grade.max_score == POINTS + OWN_POINTS
            if student not in (REFUSED,):
                assert grade.auto_score == pytest.approx(report.score + report.penalty), student
        assert not gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, CORRECT).needs_manual_grade
    # formgrader and generate_feedback show the autograded notebook: the cell holds the kit's feedback,
    # as the student saw the cell (no hidden region), and the file keeps nbgrader's read-only mode.
    for student, report in reports.items():
        path = course.root / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        cell = next(c for c in nbformat.read(path, as_version=4).cells if meta(c).get("grade_id") == HIDDEN_TESTS_CELL)
        assert [(o.output_type, o.name) for o in cell.outputs] == [("stream", "stdout")], cell.outputs
        assert cell.outputs[0].text.startswith(feedback_text(report))
        assert "HIDDEN TESTS" not in cell.source and "raise" not in cell.source
        assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_manual_grade_survives_recording_again(nbgrader_course):
    course = nbgrader_course
    assert f"a manual score stands (nbgrader counts it, not the autograder's): {HAND_GRADED}\n" in course.after_manual
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        hidden = gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, HAND_GRADED)
        assert (hidden.manual_score, hidden.score) == (MANUAL_HIDDEN, MANUAL_HIDDEN)
        assert not hidden.needs_manual_grade, "the same autograder score asks for no second review"
        visible = gradebook.find_grade(MANUAL_VISIBLE[0], NOTEBOOK, ASSIGNMENT, BUGGY)
        assert visible.manual_score == MANUAL_VISIBLE[1]


def test_nbgrader_export_totals_are_the_course_policy_over_the_whole_notebook(nbgrader_course):
    """`nbgrader export`: every student's total is the one course.toml describes, computed by hand
    (``expected_totals``): the visible tests count, the late penalty and max_days take from the
    whole notebook, a refused import leaves 0 everywhere, a manual grade counts instead of the
    kit's, the renamed notebook is graded on both sides."""
    course = nbgrader_course
    rows = course.exported
    assert sorted(rows) == sorted(STUDENTS)
    maximum = course.visible_max + POINTS + OWN_POINTS
    assert maximum == 38
    for student, (raw, penalty) in expected_totals(course).items():
        row = rows[student]
        assert float(row["max_score"]) == maximum, (student, row)
        assert float(row["raw_score"]) == pytest.approx(raw, abs=1e-6), (student, row)
        assert float(row["late_submission_penalty"]) == pytest.approx(penalty, abs=1e-6), (student, row)
        assert float(row["score"]) == pytest.approx(max(0.0, raw - penalty), abs=1e-6), (student, row)
    assert float(rows[CORRECT]["score"]) == maximum, rows[CORRECT]
    for student in (GRACE, RENAMED):  # everything but the own tests they did not write
        assert float(rows[student]["score"]) == maximum - OWN_POINTS, rows[student]
    assert float(rows[LATE]["score"]) == pytest.approx(30.4) and float(rows[TOO_LATE]["score"]) == 0
    assert float(rows[REFUSED]["score"]) == 0 and float(rows[BUGGY]["score"]) < maximum
    assert rows[LATE]["duedate"].startswith("2026-03-02 12:00:00"), rows[LATE]
    # What the kit recorded as nbgrader's totals (for its report and class page) is what export says.
    recorded = json.loads((course.results / GRADEBOOK_RECORD).read_text())
    assert recorded["assignment"] == ASSIGNMENT
    ids = {report.student: nbgrader_id for nbgrader_id, report in course.reports.items()}
    for kit_id, total in recorded["students"].items():
        row = rows[ids[kit_id]]
        assert total["score"] == pytest.approx(float(row["score"])), (kit_id, total, row)
        assert total["max_score"] == float(row["max_score"])


def test_the_policy_reaches_the_kits_outputs_and_the_feedback(nbgrader_course):
    """The kit's own grade follows the same policy: lateness inside the grace costs nothing and is
    not late; a refused import scores 0 in every test, own tests included, and says so plainly; a
    notebook without tests of its own scores 0 for them, and is told none were found; the renamed
    notebook was copied, kept, and the student told."""
    reports = nbgrader_course.reports
    grace, late, toolate, refused = (reports[s] for s in (GRACE, LATE, TOO_LATE, REFUSED))
    assert grace.late_by == 20 * 60 and not grace.late and grace.penalty == 0
    assert late.late and late.penalty == pytest.approx(0.2 * 24) and late.score == pytest.approx(0.8 * 24)
    assert toolate.score == 0 and toolate.penalty == POINTS  # everything it scored: no own tests
    assert refused.score == 0 and refused.refused and all(t.score == 0 for t in refused.tests)
    own = next(t for t in refused.tests if t.id == "own_tests")
    assert own.max_score == OWN_POINTS and own.output.startswith("not run: your file was refused")
    text = feedback_text(refused)
    assert "could not be graded" not in text
    assert "Your file scores 0 in every test, your own tests included: " in text and "itertools" in text
    for student in sorted(set(STUDENTS) - set(WITH_OWN_TESTS)):  # an empty own-tests cell: 0 of their points
        mine = next(t for t in reports[student].tests if t.id == "own_tests")
        assert (mine.score, mine.max_score) == (0, OWN_POINTS), (student, mine)
        assert mine.output.startswith("No tests of your own were found"), (student, mine.output)
    renamed = reports[RENAMED]
    folder = nbgrader_course.root / "submitted" / RENAMED / ASSIGNMENT
    assert (folder / RENAMED_AS).is_file() and (folder / f"{NOTEBOOK}.ipynb").read_bytes() == (
        folder / RENAMED_AS).read_bytes()
    assert renamed.file == f"{ASSIGNMENT}/{NOTEBOOK}.ipynb" and renamed.score == POINTS
    assert any(f"Your notebook is named {RENAMED_AS}" in note for note in renamed.notes), renamed.notes
    assert f"Your notebook is named {RENAMED_AS}" in feedback_text(renamed)


def test_nbgrader_feedback_shows_the_kit_feedback(nbgrader_course):
    course = nbgrader_course
    nbgrader(course.root, "generate_feedback", ASSIGNMENT)
    for student, report in course.reports.items():
        page = html.unescape((course.root / "feedback" / student / ASSIGNMENT / f"{NOTEBOOK}.html").read_text())
        lines = [line.strip() for line in feedback_text(report).splitlines() if line.strip()]
        missing = [line for line in lines if line not in page]
        assert not missing, f"{student}: feedback lines missing from nbgrader's feedback: {missing[:5]}"
        assert "BEGIN HIDDEN TESTS" not in page and "scores 0 until the autograder" not in page
    failing = next(t for t in course.reports[BUGGY].tests if t.status != "passed")
    assert failing.output.splitlines()[0].strip() in html.unescape(
        (course.root / "feedback" / BUGGY / ASSIGNMENT / f"{NOTEBOOK}.html").read_text())


def test_what_is_not_recorded_is_said(nbgrader_course):
    """A grader-side failure and a missing submission change nothing; a student nbgrader has not
    autograded is named with the command to run; a wrong course name is a problem, not a crash."""
    course = nbgrader_course
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        before = gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, CORRECT).auto_score
    base = course.reports[CORRECT]
    reports = [
        GradeReport(CORRECT, KIT_ID, None, base.max_score, 0.0, SEED, status=NOT_GRADED, causes=["no sandbox"]),
        GradeReport(BUGGY, KIT_ID, None, 0.0, 0.0, SEED, status=NOT_SUBMITTED),
        GradeReport("dee", KIT_ID, base.score, base.max_score, 0.0, SEED),
    ]
    summary = record_in_gradebook(course.root, ASSIGNMENT, reports)
    assert (summary.recorded, summary.not_graded, summary.not_submitted, summary.unknown) == (
        [], [CORRECT], [BUGGY], ["dee"]), summary.lines()
    assert not summary.complete
    assert any("dee" in line and f"nbgrader autograde {ASSIGNMENT}" in line for line in summary.lines())
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        assert gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, CORRECT).auto_score == before
    wrong = record_in_gradebook(course.root, KIT_ID, [base])
    assert wrong.problem and "no assignment 'make-board'" in wrong.problem and not wrong.recorded
    assert record_in_gradebook(course.root, ASSIGNMENT, [base], notebook="01-neighbors").problem


def test_without_a_course_due_date_nbgraders_own_late_plugin_counts_the_whole_notebook(nbgrader_course):
    """A course that keeps its late policy in nbgrader (no due date in course.toml): recording
    recomputes the penalty with nbgrader's configured plugin over the notebook's total, hidden
    tests included (nbgrader's own run computed it while the hidden tests counted 0); the course
    file's policy, when it sets one, replaces nbgrader's and the summary says so."""
    course = nbgrader_course
    late = course.reports[LATE]
    try:
        by_nbgrader = record_in_gradebook(course.root, ASSIGNMENT, [late])
        assert by_nbgrader.late_replaced is None and "nbgrader's late plugin" in by_nbgrader.late_from
        total = by_nbgrader.totals[LATE]
        assert total.late_penalty == total.raw_score == 38 and total.score == 0  # penalty_method = "zero"
        settings = load_course(course.root / "course.toml").assignment(KIT_ID)
        by_course = record_in_gradebook(course.root, ASSIGNMENT, [late], late_policy=settings.late, due=settings.due)
        assert by_course.late_replaced == "LateSubmissionPlugin.penalty_method = 'zero'"
        assert any("replaces nbgrader's own" in line for line in by_course.lines()), by_course.lines()
        assert by_course.totals[LATE].late_penalty == pytest.approx(7.6)
    finally:
        settings = load_course(course.root / "course.toml").assignment(KIT_ID)
        record_in_gradebook(course.root, ASSIGNMENT, [late], late_policy=settings.late, due=settings.due)


def test_a_course_without_a_gradebook_is_left_alone(tmp_path):
    (tmp_path / "submitted" / "ada").mkdir(parents=True)
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    report = GradeReport(CORRECT, KIT_ID, 1.0, 1.0, 0.0, SEED)
    summary = record_in_gradebook(tmp_path, ASSIGNMENT, [report])
    assert summary.problem and "no gradebook" in summary.problem and not summary.recorded
    assert not (tmp_path / "gradebook.db").exists(), "recording must never create an empty gradebook"


def test_find_course_recognises_the_course_from_what_the_grader_is_given(tmp_path):
    course = tmp_path / "course"
    notebook = course / "submitted" / "ada" / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
    notebook.parent.mkdir(parents=True)
    notebook.write_text("{}")
    assert find_course(course) is None, "no nbgrader_config.py and no gradebook.db: not a course"
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    for given in (course, course / "submitted", course / "submitted" / "ada", notebook.parent, notebook):
        assert find_course(given) == course.resolve(), given
    (course / "source").mkdir()
    assert find_course(course / "source") is None, "outside submitted/ is not a submission"
    assert find_course(tmp_path) is None


def test_the_report_shows_nbgraders_totals_as_exported(nbgrader_course):
    """`autograder report` on the course's results: the course's name, the scale, and the nbgrader
    column of every recorded student is what `nbgrader export` gives them."""
    from test_batch_report import table_rows

    course = nbgrader_course
    done = subprocess.run([sys.executable, "-m", "autograder", "report", str(course.results)], capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    assert f"submission(s) of {ASSIGNMENT} ({KIT_ID})" in done.stdout, done.stdout
    page = (course.results / "report.html").read_text()
    assert "out of 24 points" in page
    rows = course.exported
    ids = {report.student: nbgrader_id for nbgrader_id, report in course.reports.items()}
    shown = {row["student"]: row["nbgrader"] for row in table_rows(page, "students")}
    assert set(shown) == set(ids)
    for kit_id, text in shown.items():
        row = rows[ids[kit_id]]
        assert text == f"{float(row['score']):g} / {float(row['max_score']):g}", (kit_id, text, row)
