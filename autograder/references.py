"""The instructor's solution and the untouched starter, as submissions the grader reads.

The reference is ``instructor/reference/<file>`` where an assignment has one, else the source
notebook's solution cells (the notebook is the one copy of that code); the starter is the release
version of the notebook, as a student would hand it in untouched. ``autograder check`` grades both,
and the grading of students' own tests runs their tests against the reference.
"""

from __future__ import annotations

from .assignments import Assignment, instructor_dir
from .notebook import notebook_code
from .submission import Submission

__all__ = ["model_answer", "reference_submission", "release_notebook", "starter_submission"]


def reference_submission(assignment: Assignment) -> Submission:
    """The instructor's solution: instructor/reference/<file>, else the source notebook's
    solution cells (the notebook is the one copy of that code)."""
    if assignment.reference_file:
        path = instructor_dir() / "reference" / assignment.reference_file
        return Submission("reference", path, source=path.read_text(encoding="utf-8"), filename=path.name, kind="python")
    return _from_notebook("reference", assignment.notebook_path.read_bytes(), assignment)


def model_answer(assignment: Assignment) -> Submission:
    """The source notebook as a student who copied every solution cell would hand it in, the
    cells with the student's own tests included: what ``autograder check`` proves scores full
    marks on the course's scale. For a step whose reference is a notebook, its reference."""
    return _from_notebook("reference", assignment.notebook_path.read_bytes(), assignment)


def release_notebook(assignment: Assignment):
    """The student version of the source notebook: nbgrader's ClearSolutions and ClearHiddenTests
    applied (the hidden-tests cell keeps only its note, as in `nbgrader generate_assignment`)."""
    import nbformat
    from nbgrader.preprocessors import ClearHiddenTests, ClearSolutions

    notebook = nbformat.read(str(assignment.notebook_path), as_version=4)
    released, _ = ClearSolutions(enforce_metadata=False).preprocess(notebook, {})
    released, _ = ClearHiddenTests(enforce_metadata=False).preprocess(released, {})
    return released


def starter_submission(assignment: Assignment) -> Submission:
    """The release version of the notebook, graded as a student would hand it in untouched."""
    import nbformat

    data = nbformat.writes(release_notebook(assignment)).encode("utf-8")
    return _from_notebook("starter", data, assignment)


def _from_notebook(student: str, data: bytes, assignment: Assignment) -> Submission:
    source, cells, selection, notes, line_map = notebook_code(data, assignment.keeps_import)
    return Submission(
        student,
        assignment.notebook_path,
        source=source,
        kind="notebook",
        cells_used=cells,
        selection=selection,
        notes=notes,
        line_map=line_map,
    )
