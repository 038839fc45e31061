"""Every source notebook (with its solutions) runs top to bottom and all its visible tests pass."""
import nbformat
import pytest

from notebook_tools import ASSIGNMENTS, NOTEBOOKS, describe, execute, nbgrader_meta


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_source_notebook_runs_clean(name):
    nb, errors = execute(NOTEBOOKS / name)
    assert not errors, f"{name} raised errors:\n{describe(errors)}"
    # The board cells dig once from Python and print any error the student's code raised there.
    printed = [o.get("text", "") for c in nb.cells if c.cell_type == "code" for o in c.outputs]
    assert not [t for t in printed if "board error:" in t], f"{name}: a board reported an error: {printed}"


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
