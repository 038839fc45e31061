"""A real nbgrader course, end to end: the hidden tests' results reach nbgrader's gradebook.

nbgrader's own commands run the course as an instructor runs it: `generate_assignment` releases
step 2 (under a course name of its own, not the kit's id), students hand in solved copies of the
release version (one with a plausible bug, one that the instructor later grades by hand),
`nbgrader autograde` scores the visible tests and gives the hidden-tests cell 0, the kit grades
the hidden suite and :func:`autograder.gradebook.record_in_gradebook` writes its scores and
feedback. Then `nbgrader export` totals visible + hidden + manual, `nbgrader generate_feedback`
shows the kit's feedback, and a manual grade survives a second recording.
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

from autograder.assignments import LatePolicy
from autograder.gradebook import HIDDEN_TESTS_CELL, GradebookSummary, record_in_gradebook
from autograder.grading import NOT_GRADED, NOT_SUBMITTED, GradeReport
from autograder.report import feedback_text
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
BUG = next(m for m in MUTANTS if m.name == "make_board_one_short")
#: The manual grades the instructor gives in formgrader: cy's hidden tests, and one visible test of bo.
MANUAL_HIDDEN = 5.5
MANUAL_VISIBLE = ("test_make_board", 1.0)
SEED = 11

CONFIG = """\
c = get_config()
c.CourseDirectory.course_id = "minesweeper-course"
c.CourseDirectory.root = {root!r}
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.Execute.timeout = 600
c.LateSubmissionPlugin.penalty_method = "zero"
"""
#: The course file charges lateness too (no one is late: the due date is far off), so recording
#: warns that late work would lose points twice.
COURSE_FILE = f"""\
due = 2099-12-31T23:59:00Z
[late]
penalty_per_day = 0.1

[assignments.{KIT_ID}]
name = "{ASSIGNMENT}"
"""


def nbgrader(course: Path, *args: str) -> str:
    """One nbgrader command in the course folder, as an instructor types it; its output."""
    env = {**os.environ, "PATH": os.pathsep.join([str(NBGRADER.parent), os.environ.get("PATH", "")])}
    done = subprocess.run([str(NBGRADER), *args], cwd=course, env=env, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, f"nbgrader {' '.join(args)} failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return done.stdout + done.stderr


def grade_with_kit(course: Path, work: Path) -> dict[str, GradeReport]:
    """`autograder grade` on the course folder, as the instructor runs it from elsewhere: it finds the
    course's course.toml (the kit's make-board is the course's ps2-boards), reads nbgrader's layout
    and records the results in the gradebook. The reports by student, read back from the results."""
    results = work / "results"
    done = subprocess.run([sys.executable, "-m", "autograder", "grade", "--assignment", KIT_ID, str(course),
                           "--results-dir", str(results), "--seed", str(SEED), "-j", "2", "--no-progress"],
                          cwd=work, capture_output=True, text=True, timeout=1200)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert f"course settings from {course / 'course.toml'}" in done.stderr
    assert f"hidden tests recorded for 3 student(s) in {ASSIGNMENT}/{NOTEBOOK}" in done.stdout, done.stdout
    assert "late work loses points twice" in done.stdout and "penalty_method = 'zero'" in done.stdout, done.stdout
    reports = [GradeReport.from_dict(json.loads(path.read_text())) for path in results.glob("students/*/.report.json")]
    assert "would share the results folder" in done.stderr, done.stderr[-3000:]
    assert all(r.student != r.handed_in_as for r in reports if r.handed_in_as)
    return {report.handed_in_as or report.student: report for report in reports}


def meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def solved(release: nbformat.NotebookNode, source: nbformat.NotebookNode, bug=None) -> nbformat.NotebookNode:
    """The release version with each solution cell written as the source's solution (markers gone),
    with ``bug``'s replacements applied where they match."""
    answers = {c.id: re.sub(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", "", c.source, flags=re.M)
               for c in source.cells if meta(c).get("solution")}
    if bug is not None:
        joined = "\n".join(answers.values())
        assert mutate(joined, bug) != joined
        for old, new in bug.replacements:
            answers = {key: text.replace(old, new) for key, text in answers.items()}
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


@dataclass
class Course:
    root: Path
    points: float                       #: the hidden-tests cell's points
    visible_max: float                  #: the visible tests' points
    reports: dict[str, GradeReport]
    visible: dict[str, dict[str, float]]  #: per student, per visible test, nbgrader's points
    after_autograde: dict[str, dict]    #: per student, the hidden-tests grade before recording
    hidden_errors: dict[str, list[str]]  #: per student, the errors nbgrader's run of that cell showed
    first: GradebookSummary             #: the first recording
    second: GradebookSummary            #: the recording after the manual grades
    released: nbformat.NotebookNode
    validated: str                      #: `nbgrader validate` on the correct student's notebook


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
    stamp = dt.datetime.now(dt.timezone.utc).strftime("%Y-%m-%d %H:%M:%S.%f %Z")
    for student in (CORRECT, BUGGY, HAND_GRADED):
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        nbformat.write(solved(released, source, BUG if student == BUGGY else None), folder / source_path.name)
        (folder / "timestamp.txt").write_text(stamp)
    validated = nbgrader(root / "submitted" / CORRECT / ASSIGNMENT, "validate", source_path.name)
    nbgrader(root, "autograde", ASSIGNMENT, "--create")

    students = (CORRECT, BUGGY, HAND_GRADED)
    ran = {s: autograded_cells(root / "autograded" / s / ASSIGNMENT / source_path.name) for s in students}
    visible = {s: ran[s][0] for s in students}
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        after_autograde = {s: gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, s).to_dict()
                           for s in students}
        for s in students:
            for test_id, points in visible[s].items():
                assert gradebook.find_grade(test_id, NOTEBOOK, ASSIGNMENT, s).auto_score == points, (s, test_id)

    reports = grade_with_kit(root, tmp_path_factory.mktemp("kit"))
    first = record_in_gradebook(root, ASSIGNMENT, list(reports.values()), notebook=NOTEBOOK)

    # The instructor grades by hand in formgrader (which writes manual_score and clears the flag).
    with Gradebook(f"sqlite:///{root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        for cell, student, score in ((HIDDEN_TESTS_CELL, HAND_GRADED, MANUAL_HIDDEN),
                                     (MANUAL_VISIBLE[0], BUGGY, MANUAL_VISIBLE[1])):
            grade = gradebook.find_grade(cell, NOTEBOOK, ASSIGNMENT, student)
            grade.manual_score, grade.needs_manual_grade = score, False
        gradebook.db.commit()
    second = record_in_gradebook(root, ASSIGNMENT, list(reports.values()))  # the notebook found by its cell

    points = {meta(c)["grade_id"]: float(meta(c)["points"]) for c in source.cells if meta(c).get("grade")}
    hidden = points.pop(HIDDEN_TESTS_CELL)
    return Course(root, hidden, sum(points.values()), reports, visible, after_autograde,
                  {s: ran[s][1] for s in students}, first, second, released, validated)


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
    scores 0 however good the code (the correct student's included)."""
    for student, grade in nbgrader_course.after_autograde.items():
        assert grade["auto_score"] == 0 and grade["max_score"] == nbgrader_course.points, (student, grade)
        shown = nbgrader_course.hidden_errors[student]
        assert len(shown) == 1 and shown[0].startswith("RuntimeError: ") and "`autograder grade`" in shown[0], shown


def test_the_kit_scores_are_recorded_scaled_to_the_cell(nbgrader_course):
    course, reports = nbgrader_course, nbgrader_course.reports
    assert sorted(course.first.recorded) == sorted([CORRECT, BUGGY, HAND_GRADED]), course.first.lines()
    assert {reports[CORRECT].student, reports[BUGGY].student}.isdisjoint({CORRECT, BUGGY}), "ids of their own"
    assert course.first.complete and not course.first.manual_kept, course.first.lines()
    assert reports[CORRECT].score == reports[CORRECT].max_score
    assert 0 < reports[BUGGY].score < reports[BUGGY].max_score, feedback_text(reports[BUGGY])
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        for student, report in reports.items():
            grade = gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, student)
            assert grade.auto_score == pytest.approx(report.score / report.max_score * course.points)
        assert not gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, CORRECT).needs_manual_grade
    # formgrader and generate_feedback show the autograded notebook: the cell holds the kit's feedback,
    # as the student saw the cell (no hidden region), and the file keeps nbgrader's read-only mode.
    for student, report in reports.items():
        path = course.root / "autograded" / student / ASSIGNMENT / f"{NOTEBOOK}.ipynb"
        cell = next(c for c in nbformat.read(path, as_version=4).cells if meta(c).get("grade_id") == HIDDEN_TESTS_CELL)
        assert [(o.output_type, o.name) for o in cell.outputs] == [("stream", "stdout")], cell.outputs
        assert cell.outputs[0].text == feedback_text(report)
        assert "HIDDEN TESTS" not in cell.source and "raise" not in cell.source
        assert stat.S_IMODE(path.stat().st_mode) == 0o444


def test_a_manual_grade_survives_recording_again(nbgrader_course):
    course = nbgrader_course
    assert course.second.notebook == NOTEBOOK and course.second.manual_kept == [HAND_GRADED], course.second.lines()
    assert any("manual score stands" in line and HAND_GRADED in line for line in course.second.lines())
    with Gradebook(f"sqlite:///{course.root / 'gradebook.db'}", "minesweeper-course") as gradebook:
        hidden = gradebook.find_grade(HIDDEN_TESTS_CELL, NOTEBOOK, ASSIGNMENT, HAND_GRADED)
        assert (hidden.manual_score, hidden.score) == (MANUAL_HIDDEN, MANUAL_HIDDEN)
        assert not hidden.needs_manual_grade, "the same autograder score asks for no second review"
        visible = gradebook.find_grade(MANUAL_VISIBLE[0], NOTEBOOK, ASSIGNMENT, BUGGY)
        assert visible.manual_score == MANUAL_VISIBLE[1]


def test_nbgrader_export_totals_visible_hidden_and_manual(nbgrader_course):
    course = nbgrader_course
    nbgrader(course.root, "export")
    with open(course.root / "grades.csv", newline="") as file:
        rows = {row["student_id"]: row for row in csv.DictReader(file) if row["assignment"] == ASSIGNMENT}
    assert sorted(rows) == sorted([CORRECT, BUGGY, HAND_GRADED])
    for student, row in rows.items():
        visible = dict(course.visible[student])
        if student == BUGGY:
            visible[MANUAL_VISIBLE[0]] = MANUAL_VISIBLE[1]
        report = course.reports[student]
        hidden = MANUAL_HIDDEN if student == HAND_GRADED else report.score / report.max_score * course.points
        assert float(row["score"]) == pytest.approx(sum(visible.values()) + hidden, abs=1e-6), (student, row)
        assert float(row["max_score"]) == course.visible_max + course.points
    assert float(rows[CORRECT]["score"]) == float(rows[CORRECT]["max_score"])
    assert float(rows[BUGGY]["score"]) < float(rows[BUGGY]["max_score"])


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


def test_a_late_penalty_charged_by_both_the_course_file_and_nbgrader_is_warned_of(nbgrader_course):
    """The kit records scores with its late penalty taken; nbgrader's own late plugin would take
    another from the notebook's total. Recording says so when both charge, and only then (the
    course's `autograder grade` warned: see ``grade_with_kit``)."""
    course, config = nbgrader_course, nbgrader_course.root / "nbgrader_config.py"
    charged, free = LatePolicy(penalty_per_day=0.1), LatePolicy(grace_minutes=30)
    reports = [course.reports[CORRECT]]
    original = config.read_text()
    nbgrader_charges = 'c.LateSubmissionPlugin.penalty_method = "zero"\n'
    assert nbgrader_charges in original
    try:
        twice = record_in_gradebook(course.root, ASSIGNMENT, reports, late_policy=charged)
        assert twice.late_twice == "LateSubmissionPlugin.penalty_method = 'zero'" and twice.recorded == [CORRECT]
        assert any("loses points twice" in line and "penalty_method = 'zero'" in line for line in twice.lines())
        for policy in (free, None):
            once = record_in_gradebook(course.root, ASSIGNMENT, reports, late_policy=policy)
            assert once.late_twice is None and not any("twice" in line for line in once.lines())
        config.write_text(original.replace(nbgrader_charges, ""))
        assert record_in_gradebook(course.root, ASSIGNMENT, reports, late_policy=charged).late_twice is None
        config.write_text(original.replace(nbgrader_charges, "c.AssignLatePenalties.plugin_class = 'plugins.HalfOff'\n"))
        own = record_in_gradebook(course.root, ASSIGNMENT, reports, late_policy=charged)
        assert own.late_twice == "AssignLatePenalties.plugin_class = 'plugins.HalfOff'"
        config.write_text(original.replace(
            nbgrader_charges, "c.AssignLatePenalties.plugin_class = 'nbgrader.plugins.LateSubmissionPlugin'\n"))
        assert record_in_gradebook(course.root, ASSIGNMENT, reports, late_policy=charged).late_twice is None
    finally:
        config.write_text(original)


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
