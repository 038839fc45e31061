"""Shared helpers for the notebook tests: where the notebooks are, and how to run one cell by cell."""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

import nbformat
from nbclient import NotebookClient

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

# Notebook file -> autograder assignment id (docs/assignments.md); 00-play is not graded.
ASSIGNMENTS = {
    "00-play.ipynb": "play",
    "01-neighbors.ipynb": "neighbors",
    "02-make-board.ipynb": "make-board",
    "03-flood-fill.ipynb": "flood-fill",
    "04-nd-dig.ipynb": "hypermines",
    "05-bots.ipynb": "bots",
}
GRADED = {name: assignment for name, assignment in ASSIGNMENTS.items() if assignment != "play"}


@dataclass
class CellError:
    index: int
    cell_id: str
    ename: str
    evalue: str
    source: str


#: The grade id of each graded step's last cell: nbgrader's "autograder tests" cell that stands for
#: the hidden tests (autograder/gradebook.py records the grader's score there).
HIDDEN_TESTS = "hidden-tests"


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_visible_test(cell) -> bool:
    """A graded cell of the notebook's visible tests (every graded cell but the hidden-tests one)."""
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and meta.get("grade_id") != HIDDEN_TESTS


def execute(path: Path, timeout: int = 300) -> tuple[nbformat.NotebookNode, list[CellError]]:
    """Run every cell in order, carrying on after errors; return the notebook and each cell's error."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return nb, errors_in(nb)


def errors_in(nb: nbformat.NotebookNode) -> list[CellError]:
    """Each error an executed notebook's cells show, in order."""
    errors = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                errors.append(CellError(index, cell.get("id", ""), output.ename, output.evalue, cell.source))
    return errors


def describe(errors: list[CellError]) -> str:
    return "\n".join(f"cell {e.index} ({e.cell_id}): {e.ename}: {e.evalue}\n{e.source[:300]}" for e in errors)


# ---------------------------------------------------------------- exercises and submissions

SOLUTION_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$", re.S | re.M)
#: The student id of each assignment's complete submission (the source notebook as it is).
COMPLETE = "complete"


def unwritten(source: str) -> str:
    """The cell as a student who wrote nothing leaves it: each solution region a NotImplementedError."""
    return SOLUTION_REGION.sub(lambda m: f"{m.group(1)}raise NotImplementedError()", source)


def exercises(nb) -> list[str]:
    return [c.id for c in nb.cells if nbgrader_meta(c).get("solution")]


def visible_tests_after(nb, exercise: str) -> list[str]:
    """The grade ids of the visible tests that follow an exercise, up to the next exercise."""
    ids, seen = [], False
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        if cell.id == exercise:
            seen = True
        elif seen and meta.get("solution"):
            break
        elif seen and is_visible_test(cell):
            ids.append(meta["grade_id"])
    return ids
