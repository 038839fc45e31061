"""A new student's first session, in a real browser: open the student version of step 1 in
JupyterLab, run it, write one exercise (`neighbors`), see its visible test pass, and see the
board that counts with that function come to life.

Reuses the browser tests' session fixtures (a JupyterLab on loopback, Debian's Chromium through
Playwright) and their helpers for running cells and clicking the board.
"""
import shutil
from pathlib import Path

import nbformat
import pytest

from browser.support import Notebook, act  # the session fixtures are in tests/conftest.py

from notebook_tools import nbgrader_meta  # noqa: E402

pytestmark = pytest.mark.browser

NAME = "01-neighbors.ipynb"

STUDENT_ANSWER = '''\
def neighbors(dimensions, coordinates):
    """The in-bounds neighbours of a cell, itself excluded, for any number of axes."""
    if len(dimensions) == 0:
        return []
    rest = neighbors(dimensions[1:], coordinates[1:]) + [tuple(coordinates[1:])]
    first = coordinates[0]
    cells = []
    for value in (first - 1, first, first + 1):
        if 0 <= value < dimensions[0]:
            for tail in rest:
                cell = (value,) + tuple(tail)
                if cell != tuple(coordinates):
                    cells.append(cell)
    return cells
'''

PROBE = '''\
import json
print(json.dumps({"error": neighbors_board.error, "revealed": neighbors_board.revealed,
                  "state": neighbors_board.state}))'''


def cell_index(nb, cell_id):
    return next(i for i, c in enumerate(nb.cells) if c.get("id") == cell_id)


def output_text(notebook, index):
    outputs = notebook.cell(index).locator(".jp-OutputArea-output")
    return " ".join(outputs.nth(i).text_content() for i in range(outputs.count()))


def test_new_student_writes_neighbors_and_the_board_uses_it(course, lab, page):
    released = nbformat.read(course / "release" / "neighbors" / NAME, as_version=4)
    released.cells.append(nbformat.v4.new_code_cell(PROBE))
    nbformat.write(released, lab.notebooks / NAME)
    exercise = cell_index(released, "neighbors")
    test = cell_index(released, "test_neighbors")
    board_cell = next(i for i, c in enumerate(released.cells) if "neighbors_board = Board(" in c.source)
    probe = len(released.cells) - 1
    assert nbgrader_meta(released.cells[exercise]).get("solution")

    page.goto(f"{lab.url}/lab/tree/{NAME}?reset&token={lab.token}")
    page.wait_for_selector(".jp-NotebookPanel .jp-Cell", timeout=90_000)
    page.wait_for_selector(".jp-NotebookPanel [data-status='idle']", state="attached", timeout=90_000)
    notebook = Notebook(page, "walkthrough-01")

    # 1. Run the whole notebook as it comes: the unwritten exercise fails its test, the board says why.
    for index, cell in enumerate(released.cells[:-1]):
        if cell.cell_type == "code":
            notebook.run(index)
    notebook.shot("ran-everything")
    assert "NotImplementedError" in output_text(notebook, test)
    board = notebook.cell(board_cell).locator(".msk-board")  # the board in this cell's output
    board.locator(".msk-error").wait_for()
    assert "NotImplementedError" in board.locator(".msk-error").text_content()

    # 2. Write the exercise in its cell and run it.
    editor = notebook.cell(exercise).locator(".cm-content")
    editor.click()
    page.keyboard.press("Control+a")
    page.keyboard.insert_text(STUDENT_ANSWER)
    notebook.run(exercise)
    notebook.shot("exercise-written")

    # 3. Its visible test now passes: no error in the test cell's output.
    notebook.run(test)
    notebook.shot("test-passes")
    assert "Error" not in output_text(notebook, test), output_text(notebook, test)

    # 4. The board counts with the student's function: it plays, with no error.
    notebook.run(board_cell)
    board = notebook.cell(board_cell).locator(".msk-board")
    board.locator("canvas").wait_for()
    act(page, board, 0, 0)
    notebook.shot("board-plays")
    assert board.locator(".msk-error-message").count() == 0
    state = notebook.probe(probe)
    assert state["error"] == {}
    assert state["revealed"] > 0
    shown = board.get_attribute("data-view").split("/")
    assert any(ch != "#" for row in shown for ch in row), shown
