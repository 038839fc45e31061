"""Every source notebook (with its solutions) runs top to bottom and all its visible tests pass.

The one error allowed is the hidden-tests cell's under nbgrader's autograde: its hidden region fails
on purpose, so nbgrader never gives the hidden points by itself (autograder/gradebook.py records
the kit's score there; tests/autograder/test_nbgrader_course.py)."""
import nbformat
import pytest

from notebook_tools import (ASSIGNMENTS, COMPLETE, GRADED, HIDDEN_TESTS, NOTEBOOKS, describe, errors_in, execute,
                            nbgrader_meta)


def assert_runs_clean(name: str, nb: nbformat.NotebookNode) -> None:
    errors = [e for e in errors_in(nb) if e.cell_id != HIDDEN_TESTS]
    assert not errors, f"{name} raised errors:\n{describe(errors)}"
    outputs = [o for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert outputs, f"{name}: no cell has any output: was it executed?"
    # The board cells dig once from Python and print any error the student's code raised there.
    printed = [o.get("text", "") for o in outputs]
    assert not [t for t in printed if "board error:" in t], f"{name}: a board reported an error: {printed}"


@pytest.mark.parametrize("name", sorted(GRADED))
def test_source_notebook_runs_clean(course, autograded, name):
    """A graded step's source notebook, submitted as it is, has been run by nbgrader's autograde
    (the ``autograded`` fixture): its executed copy is read, not run a second time."""
    path = course / "autograded" / COMPLETE / GRADED[name] / name
    assert path.is_file(), f"nbgrader's autograde left no executed copy of {name} at {path}"
    assert_runs_clean(name, nbformat.read(path, as_version=4))


def test_ungraded_source_notebook_runs_clean():
    name = next(name for name in ASSIGNMENTS if name not in GRADED)
    assert_runs_clean(name, execute(NOTEBOOKS / name)[0])


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_source_notebook_is_saved_without_outputs(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    for cell in nb.cells:
        if cell.cell_type == "code":
            assert cell.outputs == [] and cell.execution_count is None, f"{name}: cell {cell.id} has outputs"


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_grade_cells_are_locked_and_ids_unique(name):
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    ids = [nbgrader_meta(c)["grade_id"] for c in nb.cells if nbgrader_meta(c)]
    assert len(ids) == len(set(ids)), f"{name}: repeated grade ids"
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        if meta.get("grade"):
            assert meta["locked"] and meta["points"] > 0 and not meta["solution"], cell.id
        if meta.get("solution"):
            assert "### BEGIN SOLUTION" in cell.source and "### END SOLUTION" in cell.source, cell.id
