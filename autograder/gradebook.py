"""Record the hidden tests' results in an nbgrader course's gradebook.

Each graded step's source notebook ends with one nbgrader "autograder tests" cell, ``hidden-tests``,
worth the hidden suite's points. nbgrader strips its hidden region from the student version and
puts it back when ``nbgrader autograde`` runs the notebook; the region fails on purpose, so nbgrader
scores the cell 0 and never gives the hidden points by itself. After ``autograder grade``,
:func:`record_in_gradebook` writes, through nbgrader's own :class:`~nbgrader.api.Gradebook`:

* the kit's score into that cell's grade (``auto_score``), scaled to the cell's points, so formgrader
  shows it beside the manually graded cells and ``nbgrader export`` counts it in the total;
* the kit's feedback into that cell's output in the autograded notebook
  (``autograded/<student>/<assignment>/<notebook>.ipynb``), with the hidden region taken out of its
  source as the student saw it, so ``nbgrader generate_feedback`` shows it.

A manual score (formgrader's) is never touched: nbgrader counts it instead of ``auto_score``
whenever it is set. A submission the grader did not grade ("not graded", "not submitted") changes
nothing. ``nbgrader autograde`` run again for a student puts the cell back to 0: record again
(``autograder grade`` keeps its results, so that run only records).

The score recorded is the grader's final score, its own late penalty (when the course sets one)
already taken. nbgrader's late penalty, when the course's nbgrader configuration sets one, applies to
the whole notebook on top of it: a course sets its late policy in one of the two places, and the
summary warns when a course sets both (late work would lose points twice).

nbgrader is imported only here and only when recording (it belongs to the ``lab`` extra).
"""

from __future__ import annotations

import contextlib
import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .assignments import LatePolicy
from .grading import GRADED, NOT_SUBMITTED, GradeReport
from .report import feedback_text
from .students import CONFIG_FILE

__all__ = ["HIDDEN_TESTS_CELL", "GradebookSummary", "record_in_gradebook"]

#: The grade id of the "autograder tests" cell that stands for the hidden tests in each notebook.
HIDDEN_TESTS_CELL = "hidden-tests"
#: nbgrader's default markers of a hidden-test region (``ClearHiddenTests``).
_BEGIN_HIDDEN, _END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"


@dataclass
class GradebookSummary:
    """What :func:`record_in_gradebook` did, student by student."""

    course: Path
    assignment: str  #: the course's assignment name
    notebook: str | None = None  #: the notebook whose hidden-tests cell was written
    points: float | None = None  #: that cell's points
    database: str = ""  #: the gradebook's URL
    recorded: list[str] = field(default_factory=list)  #: score written (and feedback, unless below)
    #: recorded, but a manual score is set on the cell: nbgrader counts the manual score
    manual_kept: list[str] = field(default_factory=list)
    not_graded: list[str] = field(default_factory=list)  #: the grader failed: gradebook unchanged
    not_submitted: list[str] = field(default_factory=list)  #: nothing handed in: gradebook unchanged
    #: not in the gradebook yet (``nbgrader autograde`` has not run for them): nothing written
    unknown: list[str] = field(default_factory=list)
    #: score recorded, but the feedback could not be written into the autograded notebook: why
    feedback_missing: dict[str, str] = field(default_factory=dict)
    problem: str | None = None  #: why nothing at all was recorded
    #: the nbgrader setting that charges lateness again on top of the kit's late penalty, if any
    late_twice: str | None = None

    @property
    def complete(self) -> bool:
        """Whether every graded submission's score and feedback reached the gradebook."""
        return self.problem is None and not self.unknown and not self.feedback_missing

    def lines(self) -> list[str]:
        """The summary for the instructor, one line per kind of outcome."""
        if self.problem is not None:
            return [f"nbgrader gradebook: nothing recorded for {self.assignment}: {self.problem}"]
        where = f"{self.assignment}/{self.notebook}, cell {HIDDEN_TESTS_CELL} ({_number(self.points or 0)} points)"
        lines = [
            f"nbgrader gradebook {self.database}: hidden tests recorded for {len(self.recorded)} student(s) in {where}"
        ]
        if self.late_twice:
            lines.append(
                f"  warning: late work loses points twice: the scores recorded have the course file's late "
                f"penalty taken, and nbgrader takes its own on top ({self.late_twice}); keep one of the two"
            )
        if self.manual_kept:
            lines.append(
                f"  a manual score stands (nbgrader counts it, not the autograder's): {_names(self.manual_kept)}"
            )
        if self.unknown:
            lines.append(
                f"  not in the gradebook, nothing recorded: {_names(self.unknown)}; run "
                f"`nbgrader autograde {self.assignment}` for them, then grade again to record"
            )
        for student, reason in sorted(self.feedback_missing.items()):
            lines.append(f"  {student}: score recorded, feedback not written: {reason}")
        if self.not_graded:
            lines.append(f"  not graded by the autograder, gradebook unchanged: {_names(self.not_graded)}")
        if self.not_submitted:
            lines.append(f"  not submitted, gradebook unchanged: {_names(self.not_submitted)}")
        return lines


def _names(students: list[str]) -> str:
    return ", ".join(students)


def _number(value: float) -> str:
    return f"{value:g}"


# ---------------------------------------------------------------------- the course folder
@dataclass
class _Course:
    root: Path
    db_url: str
    course_id: str
    autograded: Any  #: (student, assignment) -> the student's autograded assignment folder
    late_penalty: str | None  #: the nbgrader setting that makes nbgrader charge lateness, if any


def _course_settings(course_root: Path) -> _Course:
    """The course's gradebook URL, course id and autograded folders, as nbgrader reads them from the
    course's ``nbgrader_config.py`` (nbgrader's defaults without one; the course folder is the root
    unless the file names another)."""
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import Config, PyFileConfigLoader

    root = Path(course_root).resolve()
    config = Config()
    if (root / CONFIG_FILE).is_file():
        config = PyFileConfigLoader(CONFIG_FILE, path=str(root)).load_config()
    coursedir = CourseDirectory(config=config)
    if "root" not in config.CourseDirectory:
        coursedir.root = str(root)

    def autograded(student: str, assignment: str) -> Path:
        return Path(coursedir.format_path(coursedir.autograded_directory, student, assignment))

    return _Course(Path(coursedir.root), coursedir.db_url, coursedir.course_id, autograded, _late_penalty(config))


#: nbgrader's own late plugin, which charges only with a ``penalty_method`` other than "none".
_NBGRADER_LATE_PLUGIN = (
    "nbgrader.plugins.LateSubmissionPlugin",
    "nbgrader.plugins.latesubmission.LateSubmissionPlugin",
)


def _late_penalty(config: Any) -> str | None:
    """The course's nbgrader setting that takes points for lateness (nbgrader's default takes none),
    as the instructor would write it, or None."""
    plugin = config.AssignLatePenalties.get("plugin_class")
    if plugin is not None:
        name = plugin if isinstance(plugin, str) else f"{plugin.__module__}.{plugin.__qualname__}"
        if name not in _NBGRADER_LATE_PLUGIN:  # a plugin of the course's own: assume it charges
            return f"AssignLatePenalties.plugin_class = {name!r}"
    method = config.LateSubmissionPlugin.get("penalty_method", "none")
    if method != "none":
        return f"LateSubmissionPlugin.penalty_method = {method!r}"
    return None


def _missing_database(db_url: str) -> str | None:
    """Why a SQLite gradebook cannot be used (it does not exist: nbgrader would make an empty one),
    or None."""
    from sqlalchemy.engine import make_url

    url = make_url(db_url)
    if not url.drivername.startswith("sqlite") or not url.database or url.database == ":memory:":
        return None
    if not Path(url.database).is_file():
        return f"there is no gradebook at {url.database}"
    return None


# ---------------------------------------------------------------------- recording
def record_in_gradebook(
    course_root: Path,
    assignment_name: str,
    reports: Iterable[GradeReport],
    *,
    notebook: str | None = None,
    late_policy: LatePolicy | None = None,
) -> GradebookSummary:
    """Write each graded report's score and feedback into the course's gradebook (see the module's
    description); never raises for a student, a course or a gradebook that is not ready.

    ``assignment_name`` is the course's name of the assignment (nbgrader's folder name).
    ``notebook`` is the notebook's name without ``.ipynb``; by default the one notebook of the
    assignment that has a ``hidden-tests`` cell. The score written is ``score / max_score`` of
    the cell's points. ``late_policy`` is the late policy the scores were graded under: when it
    costs points and nbgrader charges lateness too, the summary warns. What was done, and what was
    not and why, is in the returned summary."""
    reports = list(reports)
    summary = GradebookSummary(Path(course_root), assignment_name, notebook)
    try:
        from nbgrader.api import Gradebook, MissingEntry
        from sqlalchemy.exc import SQLAlchemyError
    except ImportError as error:
        summary.problem = f"nbgrader is not installed in the grader's environment ({error}): pip install nbgrader"
        return summary
    try:
        course = _course_settings(Path(course_root))
    except Exception as error:  # noqa: BLE001 - the course's own config file, whatever it raises
        summary.problem = f"could not read {Path(course_root) / CONFIG_FILE}: {type(error).__name__}: {error}"
        return summary
    summary.course, summary.database = course.root, course.db_url
    if late_policy is not None and late_policy.costs_points:
        summary.late_twice = course.late_penalty
    missing = _missing_database(course.db_url)
    if missing is not None:
        summary.problem = (
            f"{missing}: run `nbgrader generate_assignment {assignment_name}` and "
            f"`nbgrader autograde {assignment_name}` first"
        )
        return summary
    feedback: list[tuple[str, Path, str]] = []
    try:
        with Gradebook(course.db_url, course.course_id) as gradebook:
            cell = _hidden_cell(gradebook, assignment_name, notebook, summary, MissingEntry)
            if cell is None:
                return summary
            points = float(cell.max_score)
            summary.notebook, summary.points = cell.notebook.name, points
            for report in reports:
                student = report.handed_in_as or report.student  # nbgrader's id: the folder's name
                if report.status == NOT_SUBMITTED:
                    summary.not_submitted.append(student)
                    continue
                if report.status != GRADED or report.score is None:
                    summary.not_graded.append(student)
                    continue
                try:
                    grade = gradebook.find_grade(HIDDEN_TESTS_CELL, cell.notebook.name, assignment_name, student)
                except MissingEntry:
                    summary.unknown.append(student)
                    continue
                score = scaled_score(report, points)
                changed = grade.auto_score is None or abs(grade.auto_score - score) > 1e-9
                grade.auto_score = score
                if grade.manual_score is not None:
                    summary.manual_kept.append(student)
                    if changed:  # as nbgrader's autograde does: a changed auto score under a manual one is reviewed
                        grade.needs_manual_grade = True
                else:
                    grade.needs_manual_grade = False
                summary.recorded.append(student)
                path = course.autograded(student, assignment_name) / f"{cell.notebook.name}.ipynb"
                feedback.append((student, path, _cell_feedback(report, score, points)))
            gradebook.db.commit()
    except SQLAlchemyError as error:
        summary.problem = f"the gradebook {course.db_url} could not be updated: {' '.join(str(error).split())[:500]}"
        summary.recorded, summary.manual_kept, summary.unknown = [], [], []
        return summary
    for student, path, text in feedback:
        reason = write_cell_output(path, text)
        if reason is not None:
            summary.feedback_missing[student] = reason
    return summary


def _hidden_cell(
    gradebook: Any, assignment: str, notebook: str | None, summary: GradebookSummary, missing: type[Exception]
) -> Any:
    """The assignment's hidden-tests grade cell in the gradebook, or None with ``summary.problem`` set."""
    regenerate = (
        f"the course was built from notebooks without the kit's {HIDDEN_TESTS_CELL} cell: update source/{assignment}/ "
        f"from the kit's notebooks and run `nbgrader generate_assignment {assignment} --force`"
    )
    try:
        found = gradebook.find_assignment(assignment)
    except missing:
        summary.problem = (
            f"the gradebook has no assignment {assignment!r}: run `nbgrader generate_assignment {assignment}`, "
            "or set the course's name of the assignment"
        )
        return None
    if notebook is not None:
        try:
            return gradebook.find_grade_cell(HIDDEN_TESTS_CELL, notebook, assignment)
        except missing:
            names = ", ".join(sorted(n.name for n in found.notebooks)) or "none"
            summary.problem = (
                f"notebook {notebook!r} of {assignment} has no {HIDDEN_TESTS_CELL} cell (its notebooks: {names}); "
                + regenerate
            )
            return None
    cells = [c for n in found.notebooks for c in n.grade_cells if c.name == HIDDEN_TESTS_CELL]
    if len(cells) == 1:
        return cells[0]
    if not cells:
        summary.problem = f"no notebook of {assignment} has a {HIDDEN_TESTS_CELL} cell; {regenerate}"
    else:
        names = ", ".join(sorted(c.notebook.name for c in cells))
        summary.problem = (
            f"several notebooks of {assignment} have a {HIDDEN_TESTS_CELL} cell ({names}): name the notebook"
        )
    return None


def scaled_score(report: GradeReport, points: float) -> float:
    """The report's score as a share of ``points`` (the cell's), between 0 and ``points``."""
    if not report.max_score or report.score is None:
        return 0.0
    return round(min(points, max(0.0, report.score / report.max_score * points)), 4)


def _cell_feedback(report: GradeReport, score: float, points: float) -> str:
    text = feedback_text(report)
    if abs(points - report.max_score) > 1e-9:
        text += f"\nIn this course the hidden tests are worth {_number(points)} points: {_number(score)} of them.\n"
    return text


def _without_hidden_region(source: str) -> str:
    """The cell's source as students see it: nbgrader's hidden-test region taken out."""
    kept, inside = [], False
    for line in source.split("\n"):
        if _BEGIN_HIDDEN in line:
            inside = True
        elif _END_HIDDEN in line:
            inside = False
        elif not inside:
            kept.append(line)
    return "\n".join(kept).rstrip("\n")


def write_cell_output(path: Path, text: str) -> str | None:
    """Make ``text`` the only output (a stdout stream) of the hidden-tests cell of the notebook at
    ``path``, its source the student's version, and replace the file atomically with the same
    permissions (nbgrader makes autograded notebooks read-only). Returns why it could not, or None."""
    import nbformat

    try:
        notebook = nbformat.read(str(path), as_version=4)
    except FileNotFoundError:
        return f"{path} does not exist (run `nbgrader autograde` for this student)"
    except (OSError, ValueError) as error:
        return f"{path} could not be read: {error}"
    cells = [
        c for c in notebook.cells if c.get("metadata", {}).get("nbgrader", {}).get("grade_id") == HIDDEN_TESTS_CELL
    ]
    if len(cells) != 1 or cells[0].cell_type != "code":
        return f"{path} has no code cell {HIDDEN_TESTS_CELL}"
    cell = cells[0]
    cell.source = _without_hidden_region(cell.source)
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=text)]
    try:
        mode = stat.S_IMODE(path.stat().st_mode)
        handle, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
        try:
            with os.fdopen(handle, "w", encoding="utf-8") as file:
                nbformat.write(notebook, file)
            os.chmod(temporary, mode)
            os.replace(temporary, path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(temporary)
            raise
    except OSError as error:
        return f"{path} could not be written: {error}"
    return None
