"""The debugging tools appear for the student who needs them: each step's student version, its
exercises answered with a bug (or one of them not written at all), goes through Run All in
JupyterLab; the run reaches the end although a visible test fails, and every explorer, board and
replay of the step is drawn, showing a message rather than raising where the student's code is
missing.

Each case opens its own notebook, with a kernel of its own, in the session's JupyterLab page, which
is loaded once (support.py says why)."""

from __future__ import annotations

import re
from pathlib import Path

import nbformat
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from notebook_tools import NO_OWN_TESTS, OWN_TESTS

from .support import Notebook, open_in_lab, run_all_cells

pytestmark = pytest.mark.browser

NOTEBOOKS = Path(__file__).resolve().parents[2] / "notebooks"
ASSIGNMENTS = {"01-neighbors.ipynb": "neighbors", "02-make-board.ipynb": "make-board",
               "03-flood-fill.ipynb": "flood-fill", "04-nd-dig.ipynb": "hypermines", "05-bots.ipynb": "bots"}
MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", re.M)
SOLUTION_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$", re.S | re.M)

# Per step: the exercise cell that gets the bug, the bug (a line of the reference answer and what
# the student wrote instead; None: the student left the whole cell empty), and the cells of the
# step's tools with how many widgets each draws.
CASES = {
    "01-buggy": ("01-neighbors.ipynb", "read_file",
                 ('        grid.append(["X" if cell == "1" else "0" for cell in cells])',
                  '        grid.insert(0, ["X" if cell == "1" else "0" for cell in cells])  # rows upside down'),
                 {"demo-18": 1, "demo-explore-small": 2, "demo-24": 1, "demo-26": 1}),
    "02-buggy": ("02-make-board.ipynb", "make_board",
                 ("    return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]",
                  "    return [make_board(dimensions[1:], elem)] * dimensions[0]  # one list, repeated"),
                 {"demo-14": 1}),
    "02-missing": ("02-make-board.ipynb", "new_board", None, {"demo-14": 1}),
    "03-buggy": ("03-flood-fill.ipynb", "MineField",
                 ("        return self._mines[r][c]", "        return int(self._mines[r][c])  # 1 or 0"),
                 {"demo-10": 1, "demo-15": 1}),
    "04-buggy": ("04-nd-dig.ipynb", "HyperMinesGame",
                 ('            return " " if board == 0 else str(board)', "            return str(board)  # '0' shown"),
                 {"demo-06": 1, "demo-07": 1}),
    "05-buggy": ("05-bots.ipynb", "next_move",
                 "    return Move.dig(tuple(int(v) for v in np.argwhere(view.unknown)[0]))  # no thinking",
                 {"demo-replay-arena": 1, "demo-13": 1, "demo-replay-game": 1}),
}


def answered(source_nb, exercise: str, bug) -> dict[str, str]:
    """What the student wrote in each exercise cell: the reference answer, except in `exercise`, and
    no tests of their own: the step's check cell then says so instead of running the reference tests
    against the kit's implementations again. The walkthrough runs them through that cell once per
    step, and tests/notebooks/test_testcheck_cell.py checks the verdicts it prints."""
    answers = {}
    for cell in source_nb.cells:
        if not cell.metadata.get("nbgrader", {}).get("solution"):
            continue
        text = MARKER.sub("", cell.source)
        if cell.id == OWN_TESTS:
            text = NO_OWN_TESTS
        elif cell.id == exercise:
            if bug is None:
                text = "# not written yet\n"
            elif isinstance(bug, str):  # the whole answer replaced
                text = SOLUTION_REGION.sub(lambda m: bug, cell.source)
            else:
                assert text.count(bug[0]) == 1, f"{exercise}: the line to break is not in the answer: {bug[0]}"
                text = text.replace(bug[0], bug[1])
        answers[cell.id] = text
    return answers


def outputs(notebook: Notebook, index: int) -> str:
    found = notebook.cell(index).locator(".jp-OutputArea-output")
    return " ".join(found.nth(i).text_content() for i in range(found.count()))


def outputs_once_shown(notebook: Notebook, index: int, text: str, timeout_ms: int = 60_000) -> str:
    """The cell's outputs once one of them shows ``text``, or as they are when ``timeout_ms`` is up.

    A cell's number comes with the kernel's reply, its printed text on another channel: the run can
    look over (every cell numbered) a moment before the last cells' text is on the page."""
    try:
        notebook.cell(index).locator(".jp-OutputArea-output", has_text=text).first.wait_for(timeout=timeout_ms)
    except PlaywrightTimeout:  # never shown: the caller's assertion says what the cell shows instead
        pass
    return outputs(notebook, index)


@pytest.mark.parametrize("case", sorted(CASES))
def test_run_all_with_a_bug_reaches_every_tool(release_folder, lab, page, case):
    name, exercise, bug, tools = CASES[case]
    # the student version, as `make release` builds it (the session's, shared with the walkthrough)
    student = nbformat.read(release_folder / ASSIGNMENTS[name] / name, as_version=4)
    typed = answered(nbformat.read(NOTEBOOKS / name, as_version=4), exercise, bug)
    for cell in student.cells:
        if cell.id in typed:
            assert "raise NotImplementedError()" in cell.source
            cell.source = typed[cell.id]
    written = f"failing-{case}.ipynb"
    nbformat.write(student, lab.notebooks / written)
    index = {cell.id: i for i, cell in enumerate(student.cells)}
    assert set(tools) <= set(index)

    open_in_lab(page, lab, written)
    notebook = Notebook(page, f"failing-{case}")

    prompts = run_all_cells(page, notebook, timeout=600)
    notebook.shot("ran-all")
    # the run went to the end: every code cell ran, although a visible test failed on the way
    assert all(re.search(r"\[\d+\]", p) for p in prompts), f"Run All stopped: {prompts}"
    tests = [i for i, c in enumerate(student.cells) if c.metadata.get("nbgrader", {}).get("grade")]
    failed = [student.cells[i].id for i in tests if "Error" in outputs(notebook, i)]
    assert failed, "the bug should make a visible test fail"
    if "check-own-tests" in index:  # handed in without tests of the student's own (answered)
        missing = "No tests of your own were found"
        shown = outputs_once_shown(notebook, index["check-own-tests"], missing)
        assert missing in shown, shown[-1500:]

    for cell_id, count in tools.items():
        cell = notebook.cell(index[cell_id])
        cell.scroll_into_view_if_needed()
        shown = outputs(notebook, index[cell_id])
        errors = cell.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']")
        assert errors.count() == 0 and "Traceback" not in shown, (
            f"{cell_id} raised instead of showing the tool: {shown[-1500:]}")
        widgets = cell.locator(".msk-board")
        widgets.first.wait_for()
        assert widgets.count() == count, f"{cell_id}: {widgets.count()} widgets drawn, {count} expected"
        for k in range(count):
            widget = widgets.nth(k)
            box = widget.locator("canvas").bounding_box()
            assert box and box["width"] > 0 and box["height"] > 0, f"{cell_id}: widget {k} has no canvas"
            assert widget.get_attribute("data-view"), f"{cell_id}: widget {k} drew nothing"
        notebook.shot(f"tool-{cell_id}")

    if bug is None:  # the board of a function never written says so, in the board
        board = notebook.cell(index["demo-14"]).locator(".msk-board").first
        message = board.locator(".msk-error-message").text_content()
        assert "Error in new_board: NameError: new_board is not defined yet" in message, message
