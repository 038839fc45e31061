"""Record the kit's grade in an nbgrader course's gradebook, and the course's policy over the whole notebook.

Each graded step's source notebook ends with one nbgrader "autograder tests" cell, ``hidden-tests``.
nbgrader strips its hidden region from the student version and puts it back when ``nbgrader
autograde`` runs the notebook; the region fails on purpose, so nbgrader scores the cell 0 and never
gives the hidden points by itself. After ``autograder grade``, :func:`record_in_gradebook` writes,
through nbgrader's own :class:`~nbgrader.api.Gradebook`:

* the cell's points: the assignment's scale (``scale.py``: ``points + own_tests_points``), so the
  gradebook counts the kit's grade as every other output does (the source notebook's points are
  the default scale; a course file that sets others changes the cell's points in the gradebook,
  and the summary says so);
* the kit's grade into that cell (``auto_score``), before any late penalty: the penalty is the
  whole notebook's (below);
* the course's policy over the whole notebook, visible tests included: a file the import rule
  refused scores 0 in every autograded cell, and the notebook's late penalty
  (``late_submission_penalty``, which ``nbgrader export`` takes off the total) is recomputed from
  the notebook's total now that the hidden tests are in it: by the course file's late policy when
  it sets a due date (which is then also the gradebook's due date), else by the late plugin
  nbgrader's configuration names, as ``nbgrader autograde`` computes it;
* the kit's feedback into that cell's output in the autograded notebook
  (``autograded/<student>/<assignment>/<notebook>.ipynb``), with the hidden region taken out of its
  source as the student saw it, so ``nbgrader generate_feedback`` shows it.

A manual score (formgrader's) is never touched: nbgrader counts it instead of ``auto_score``
whenever it is set, and the late penalty follows the total it makes (grade again after grading by
hand: the penalty is recomputed). A submission the grader did not grade ("not graded", "not
submitted") changes nothing. ``nbgrader autograde`` run again for a student puts the cell back to 0
and its own late penalty back: record again (``autograder grade`` keeps its results, so that run
only records).

nbgrader is imported only here and only when recording (it belongs to the ``lab`` extra).
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import os
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .assignments import LatePolicy
from .grading import GRADED, NOT_SUBMITTED, GradeReport
from .nofollow import open_nofollow
from .report import feedback_text
from .students import CONFIG_FILE, Found, inside_submitted
from .submission import read_capped

__all__ = ["HIDDEN_TESTS_CELL", "GradebookSummary", "NotebookTotal", "place_for_nbgrader", "record_in_gradebook"]

#: The grade id of the "autograder tests" cell that stands for the hidden tests in each notebook.
HIDDEN_TESTS_CELL = "hidden-tests"
#: nbgrader's default markers of a hidden-test region (``ClearHiddenTests``).
_BEGIN_HIDDEN, _END_HIDDEN = "BEGIN HIDDEN TESTS", "END HIDDEN TESTS"


@dataclass(frozen=True)
class NotebookTotal:
    """A student's grade for the assignment as nbgrader counts it once recorded (what ``nbgrader
    export`` writes): every cell (visible tests, the hidden-tests cell, manual grades), the late
    penalty, and what the total is out of."""

    raw_score: float
    late_penalty: float
    score: float  #: ``max(0, raw_score - late_penalty)``
    max_score: float

    def to_dict(self) -> dict[str, float]:
        """As plain data, for the results folder's record (``report.GRADEBOOK_RECORD``)."""
        return {
            "raw_score": self.raw_score,
            "late_penalty": self.late_penalty,
            "score": self.score,
            "max_score": self.max_score,
        }


@dataclass
class GradebookSummary:
    """What :func:`record_in_gradebook` did, student by student."""

    course: Path
    assignment: str  #: the course's assignment name
    notebook: str | None = None  #: the notebook whose hidden-tests cell was written
    points: float | None = None  #: that cell's points (the assignment's scale)
    #: the cell's points in the gradebook before, when the scale changed them
    points_before: float | None = None
    database: str = ""  #: the gradebook's URL
    recorded: list[str] = field(default_factory=list)  #: score written (and feedback, unless below)
    #: recorded, but a manual score is set on the cell: nbgrader counts the manual score
    manual_kept: list[str] = field(default_factory=list)
    #: the import rule refused the file: every autograded cell of the notebook set to 0
    refused: list[str] = field(default_factory=list)
    not_graded: list[str] = field(default_factory=list)  #: the grader failed: gradebook unchanged
    not_submitted: list[str] = field(default_factory=list)  #: nothing handed in: gradebook unchanged
    #: not in the gradebook yet (``nbgrader autograde`` has not run for them): nothing written
    unknown: list[str] = field(default_factory=list)
    #: score recorded, but the feedback could not be written into the autograded notebook: why
    feedback_missing: dict[str, str] = field(default_factory=dict)
    problem: str | None = None  #: why nothing at all was recorded
    #: the due date written into the gradebook from the course file, and the one it replaced
    due_set: tuple[str, str] | None = None
    #: where the late penalties recorded come from: the course file's policy, or nbgrader's plugin
    late_from: str = ""
    #: nbgrader's own late setting that the course file's policy replaced in the notebooks recorded
    late_replaced: str | None = None
    #: each recorded student's total as nbgrader counts it (by nbgrader's id)
    totals: dict[str, NotebookTotal] = field(default_factory=dict)

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
        if self.points_before is not None:
            lines.append(
                f"  the {HIDDEN_TESTS_CELL} cell counts {_number(self.points or 0)} points (the course's points and "
                f"own tests' points), not the notebook's {_number(self.points_before)}"
            )
        if self.due_set is not None:
            lines.append(f"  due date set to {self.due_set[0]} from the course file (it was {self.due_set[1]})")
        if self.late_from:
            lines.append(f"  late penalties over each notebook's total: {self.late_from}")
        if self.late_replaced:
            lines.append(
                f"  warning: the course file's late policy replaces nbgrader's own ({self.late_replaced}) in the "
                "notebooks recorded; write the late policy in one place"
            )
        if self.refused:
            lines.append(
                f"  a disallowed import refused the file, every autograded cell set to 0: {_names(self.refused)}"
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
    config: Any  #: the course's nbgrader configuration (traitlets Config)
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

    return _Course(
        Path(coursedir.root), coursedir.db_url, coursedir.course_id, autograded, config, _late_penalty(config)
    )


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
    due: str | None = None,
) -> GradebookSummary:
    """Write each graded report's grade and feedback into the course's gradebook, and apply the
    course's policy to each recorded notebook's total (see the module's description); never raises
    for a student, a course or a gradebook that is not ready.

    ``assignment_name`` is the course's name of the assignment (nbgrader's folder name).
    ``notebook`` is the notebook's name without ``.ipynb``; by default the one notebook of the
    assignment that has a ``hidden-tests`` cell. ``due`` (ISO 8601) and ``late_policy`` are the
    course file's due date and late policy: with a due date, the policy sets each notebook's late
    penalty; without one, nbgrader's own late plugin does. What was done, and what was not and why,
    is in the returned summary."""
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
    policy = (late_policy or LatePolicy()) if due is not None else None
    if policy is not None:  # the course file's policy, even one that charges nothing, is the one that counts
        summary.late_replaced = course.late_penalty
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
            graded = [r for r in reports if r.status == GRADED and r.score is not None]
            points = float(cell.max_score)
            if graded and abs(graded[0].max_score - points) > 1e-9:
                problem = _rescale_cell(gradebook, cell, assignment_name, float(graded[0].max_score))
                if problem is not None:
                    summary.problem = problem
                    return summary
                summary.points_before, points = points, float(graded[0].max_score)
            summary.notebook, summary.points = cell.notebook.name, points
            if due is not None:
                _set_due(gradebook, assignment_name, due, summary)
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
                score = hidden_score(report, points)
                changed = grade.auto_score is None or abs(grade.auto_score - score) > 1e-9
                grade.auto_score = score
                if report.refused:
                    summary.refused.append(student)
                    for other in grade.notebook.grades:
                        if other.auto_score is not None:
                            other.auto_score = 0.0
                if grade.manual_score is not None:
                    summary.manual_kept.append(student)
                    if changed:  # as nbgrader's autograde does: a changed auto score under a manual one is reviewed
                        grade.needs_manual_grade = True
                else:
                    grade.needs_manual_grade = False
                summary.recorded.append(student)
                path = course.autograded(student, assignment_name) / f"{cell.notebook.name}.ipynb"
                feedback.append((student, path, _cell_feedback(report, score, points)))
            gradebook.db.commit()  # the notebooks' totals (nbgrader computes them in the database) now count it
            summary.late_from = _late_penalties(gradebook, course, assignment_name, summary.recorded, policy, due)
            gradebook.db.commit()
            for student in summary.recorded:
                submitted = gradebook.find_submission(assignment_name, student)
                raw, penalty = float(submitted.score), float(submitted.late_submission_penalty or 0.0)
                summary.totals[student] = NotebookTotal(
                    raw, penalty, max(0.0, raw - penalty), float(submitted.max_score)
                )
    except SQLAlchemyError as error:
        summary.problem = f"the gradebook {course.db_url} could not be updated: {' '.join(str(error).split())[:500]}"
        summary.recorded, summary.manual_kept, summary.unknown, summary.totals = [], [], [], {}
        return summary
    for student, path, text in feedback:
        reason = write_cell_output(path, text)
        if reason is not None:
            summary.feedback_missing[student] = reason
    return summary


def _rescale_cell(gradebook: Any, cell: Any, assignment: str, points: float) -> str | None:
    """Make the hidden-tests cell worth ``points`` in the gradebook, as ``nbgrader generate_assignment``
    would for a source cell of those points: its grade cell's maximum and its source cell's checksum
    (which counts the points; ``nbgrader autograde`` refuses a locked cell whose checksum differs).
    Returns why it could not (a cell whose stored checksum nbgrader's own rule does not give back),
    or None."""
    import nbformat
    from nbgrader.utils import compute_checksum

    source = gradebook.find_source_cell(HIDDEN_TESTS_CELL, cell.notebook.name, assignment)

    def checksum(worth: float) -> str:
        node = nbformat.v4.new_code_cell(source.source) if source.cell_type == "code" else None
        node = node or nbformat.v4.new_markdown_cell(source.source)
        node.metadata["nbgrader"] = {
            "grade": True,
            "solution": False,
            "locked": bool(source.locked),
            "grade_id": HIDDEN_TESTS_CELL,
            "points": worth,
        }
        return str(compute_checksum(node))

    if checksum(float(cell.max_score)) != source.checksum:
        return (
            f"the {HIDDEN_TESTS_CELL} cell of {assignment} in the gradebook is not the kit's (its checksum "
            f"differs), so it cannot be made worth {points:g} points, the course's scale: run "
            f"`nbgrader generate_assignment {assignment} --force` from the kit's notebook"
        )
    cell.max_score = points
    source.checksum = checksum(points)
    return None


def _set_due(gradebook: Any, assignment: str, due: str, summary: GradebookSummary) -> None:
    """Make the course file's due date the gradebook's (nbgrader keeps naive UTC times), so
    formgrader, ``nbgrader export`` and the late penalties all count lateness from it."""
    when = dt.datetime.fromisoformat(due).astimezone(dt.timezone.utc).replace(tzinfo=None)
    found = gradebook.find_assignment(assignment)
    if found.duedate != when:
        before = found.duedate.isoformat(sep=" ") if found.duedate is not None else "none"
        found.duedate = when
        summary.due_set = (f"{when.isoformat(sep=' ')} UTC", before)


def _late_penalties(
    gradebook: Any, course: _Course, assignment: str, students: list[str], policy: LatePolicy | None, due: str | None
) -> str:
    """Set the late penalty of each recorded student's notebooks from its total as it now stands:
    by the course file's policy when it sets a due date, else by nbgrader's configured late plugin,
    as ``nbgrader autograde`` does (its penalty was computed before the hidden tests counted).
    Returns where the penalties come from, for the summary."""
    plugin = None if policy is not None else _nbgrader_late_plugin(course.config)
    for student in students:
        submitted = gradebook.find_submission(assignment, student)
        seconds = float(submitted.total_seconds_late or 0.0)
        for notebook in submitted.notebooks:
            total = float(notebook.score)
            if seconds <= 0:
                penalty: float | None = None
            elif policy is not None:
                penalty = policy.penalty(seconds, total, float(notebook.max_score)) or None
            else:
                penalty = plugin.late_submission_penalty(student, total, seconds) if plugin is not None else None
            if penalty is not None:  # as nbgrader's AssignLatePenalties: between 0 and the notebook's score
                penalty = min(max(0.0, float(penalty)), total)
            notebook.late_submission_penalty = penalty
    if policy is not None:
        return f"the course file's ({policy.describe()}), due {due}"
    return f"nbgrader's late plugin ({course.late_penalty or 'no penalty'})"


def _nbgrader_late_plugin(config: Any) -> Any:
    """The late plugin the course's nbgrader configuration names, made as ``nbgrader autograde``
    makes it; None when it cannot be made."""
    try:
        from nbgrader.preprocessors import AssignLatePenalties

        assigner = AssignLatePenalties(config=config)
        assigner.init_plugin()
        return assigner.plugin_inst
    except Exception:  # noqa: BLE001 - the course's own plugin, whatever it raises: no penalty from it
        return None


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


def hidden_score(report: GradeReport, points: float) -> float:
    """What the hidden-tests cell counts: the kit's grade before its late penalty (the gradebook
    takes the penalty from the whole notebook), on the cell's ``points``; 0 for a refused file."""
    if not report.max_score or report.score is None or report.refused:
        return 0.0
    before_penalty = report.score + report.penalty
    return round(min(points, max(0.0, before_penalty / report.max_score * points)), 4)


def _cell_feedback(report: GradeReport, score: float, points: float) -> str:
    """The kit's feedback, and what the cell counts in nbgrader when that differs from its score."""
    text = feedback_text(report)
    if report.refused:
        text += "\nIn this notebook every test scores 0, the visible tests included.\n"
    elif report.penalty or abs(points - report.max_score) > 1e-9:
        text += (
            f"\nThis cell counts {_number(score)} of {_number(points)} points; any late penalty is taken from the "
            "notebook's total.\n"
        )
    return text


# ---------------------------------------------------------------------- the notebook where nbgrader reads it
def place_for_nbgrader(found: Found, handed_in: str) -> Found:
    """A student of an nbgrader course whose only notebook has another name than the release's
    (``04-nd-dig (1).ipynb``): nbgrader's autograde skips a notebook it does not know, so the
    notebook is copied, beside it, under the release's name ``handed_in`` (the student's file is
    kept), and that copy is what the kit grades, with a note for the student. Any other student is
    returned as found. The copy is made only where nothing has that name (never through a link,
    never over a file); when it cannot be made, the student is graded from the file as handed in
    and the note says nbgrader will not see it."""
    file = found.file
    if file is None or file.suffix != ".ipynb" or not handed_in.endswith(".ipynb") or file.name == handed_in:
        return found  # not a notebook, or the one nbgrader reads: nothing to put anywhere
    if not inside_submitted(found.origin):
        return found
    note = (
        f"Your notebook is named {file.name}; nbgrader grades only {handed_in}, so a copy of it under that name was "
        f"saved beside it (your file is kept) and graded."
    )
    try:
        data, problem = read_capped(file)
        if problem is not None:
            return found
        folder = open_nofollow(file.parent, directory=True)
        try:
            fd = os.open(handed_in, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW, 0o644, dir_fd=folder)
            with os.fdopen(fd, "wb") as copy:
                copy.write(data)
        finally:
            os.close(folder)
    except OSError as error:
        reason = error.strerror or type(error).__name__
        note = (
            f"Graded {file.name}. nbgrader grades only {handed_in}, and a copy under that name could not be saved "
            f"({reason}): rename your notebook {handed_in} and hand it in again."
        )
        return dataclasses.replace(found, note=note)
    return dataclasses.replace(found, file=file.parent / handed_in, note=note)


_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)


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
