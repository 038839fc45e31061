"""The instructor's solution and the untouched starter, as submissions the grader reads.

The reference is ``instructor/reference/<file>`` where an assignment has one, else the source
notebook's solution cells (the notebook is the one copy of that code); the starter is the release
version of the notebook, as a student would hand it in untouched. ``autograder check`` grades both,
and the grading of students' own tests runs their tests against the reference.

The function-API assignments (one per term of MIT's later Mines labs) share one reference,
written for the newest API; each term's is that text with the term's names put in
(:func:`for_function_api`). Having no notebook, their starter is that reference unfinished: its
render functions raising ``NotImplementedError``, as a student who has written the game but not
yet the renders hands it in.
"""

from __future__ import annotations

import ast
import re

from minesweeper_kit.formats.mit6009 import FunctionAPI, function_api

from .assignments import Assignment, instructor_dir
from .notebook import notebook_code, test_cells
from .submission import Submission

__all__ = ["for_function_api", "model_answer", "reference_submission", "release_notebook", "starter_submission"]

#: The line of the function-API reference that names the visibility key and its meaning.
KEY_LINE = 'KEY, SHOWN = "visible", True'
#: What the reference's text calls, for the API it is written for, what other terms rename.
WRITTEN_FOR = {"render_2d_locations": "render_2d", "render_2d_board": "text_2d", "all_visible": "flag"}


def for_function_api(source: str, api: FunctionAPI) -> str:
    """The function-API reference's text with ``api``'s names: its visibility key (and what True
    means), its render flag and its two 2-D render functions. A name the text lacks is an error,
    never a silent no-op."""
    if source.count(KEY_LINE) != 1:
        raise ValueError(f"the function-API reference must hold the line {KEY_LINE!r} once")
    source = source.replace(KEY_LINE, f"KEY, SHOWN = {api.key!r}, {not api.hidden_key}")
    for written, field in WRITTEN_FOR.items():
        if not re.search(rf"\b{written}\b", source):
            raise ValueError(f"the function-API reference does not mention {written}")
        source = re.sub(rf"\b{written}\b", getattr(api, field), source)
    return source


def reference_submission(assignment: Assignment) -> Submission:
    """The instructor's solution: instructor/reference/<file>, else the source notebook's
    solution cells (the notebook is the one copy of that code)."""
    if assignment.reference_file:
        path = instructor_dir() / "reference" / assignment.reference_file
        source = path.read_text(encoding="utf-8")
        if assignment.api:
            source = for_function_api(source, function_api(assignment.api))
        return Submission("reference", path, source=source, filename=path.name, kind="python")
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
    """The release version of the notebook, graded as a student would hand it in untouched; for a
    function-API term, its reference with the render functions unwritten."""
    if assignment.api:
        reference = reference_submission(assignment)
        api = function_api(assignment.api)
        source = unwritten(reference.source, (api.render_2d, api.text_2d, "render_nd"))
        return Submission("starter", reference.path, source=source, filename="lab.py", kind="python")
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
        test_cells=test_cells(data),  # the notebook's own tests, read as a student's are
    )


def unwritten(source: str, names: tuple[str, ...]) -> str:
    """``source`` with the bodies of the top-level functions ``names`` replaced by ``raise
    NotImplementedError`` (their signatures and docstrings kept), as a handout gives them."""
    tree = ast.parse(source)
    lines = source.splitlines()
    found = [node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name in names]
    if {node.name for node in found} != set(names):
        raise ValueError(f"the source does not define every one of {', '.join(names)}")
    for node in sorted(found, key=lambda n: n.lineno, reverse=True):
        body = node.body[1:] if ast.get_docstring(node) is not None else node.body
        if not body:
            continue
        indent = " " * body[0].col_offset
        lines[body[0].lineno - 1 : node.end_lineno] = [f"{indent}raise NotImplementedError"]
    return "\n".join(lines) + "\n"
