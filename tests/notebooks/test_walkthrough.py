"""Every step as a student meets it, in a real browser: open the student version in JupyterLab,
type the solutions into the exercise cells, Run All, click the boards, and check that every visible
test passes and that the boards play the student's code (and, on step 3, that nbgrader's Validate
button agrees).

One JupyterLab and one Chromium serve the whole session (tests/conftest.py), and one page that
holds JupyterLab: each step's notebook opens in the running app, as from its file browser, with a
kernel of its own, rather than loading the whole app again for every step (tests/browser/support.py
says why; the app's boot is still exercised, by the session's first browser test and by Notebook 7).
Screenshots of each step go to test-artifacts/browser/ when asked (MINESWEEPER_SCREENSHOTS=1), those
of a run that went wrong always.
"""
import re
import time

import nbformat
import pytest

from browser.support import Notebook, act, answer_kernel_dialog, open_in_lab, version  # the session fixtures are in tests/conftest.py

from notebook_tools import ASSIGNMENTS, NOTEBOOKS, nbgrader_meta

pytestmark = pytest.mark.browser

MARKER = re.compile(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", re.M)

# Per step: the cells whose boards are clicked, and a probe that reads the Python side back. A probe
# prints one JSON line; "mine" says the board runs the student's code (their class, their function).
WALK = {
    "00-play.ipynb": (["demo-04", "demo-08", "demo-10", "demo-13"], """\
print(json.dumps({"errors": [b.error for b in (classic, cube, ring, charged)],
                  "played": [b.game.revealed_count for b in (classic, cube, ring, charged)],
                  "mine": True}))"""),
    "01-neighbors.ipynb": (["demo-18", "demo-26"], """\
print(json.dumps({"errors": [b.error for b in (text_board, neighbors_board)] + [nd_explorer.error],
                  "played": [text_board.revealed, neighbors_board.revealed],
                  "mine": "   a  b  c" in text_board.driver.printed
                          and neighbors_board.driver.__class__.__name__ != "EngineDriver"}))"""),
    "02-make-board.ipynb": (["demo-14"], """\
print(json.dumps({"errors": [numbers_board.error], "played": [numbers_board.revealed],
                  "mine": numbers_board.driver.inner._new_board is new_board}))"""),
    "03-flood-fill.ipynb": (["demo-10", "demo-15"], """\
print(json.dumps({"errors": [field_board.error, big_board.error],
                  "played": [field_board.revealed, big_board.revealed],
                  "mine": isinstance(field_board.game, VisibleField)
                          and isinstance(big_board.game, VisibleField)
                          and type(big_board.game).__name__ == "StackVisibleField"}))"""),
    "04-nd-dig.ipynb": (["demo-06", "demo-07"], """\
print(json.dumps({"errors": [cube_board.error, tesseract_board.error],
                  "played": [cube_board.revealed, tesseract_board.revealed],
                  "mine": isinstance(cube_board.game, HyperMinesGame)
                          and isinstance(tesseract_board.game, HyperMinesGame)}))"""),
    "05-bots.ipynb": ([], """\
print(json.dumps({"errors": [bot_board.error], "played": [bot_board.revealed],
                  "mine": len(moves) > 0 and bot_board.game.state != "ongoing"}))"""),
}

PROBE_HEAD = "import json\n"


def answers(name: str) -> dict[str, str]:
    """What the student types into each exercise cell: the reference solution, markers removed."""
    source = nbformat.read(NOTEBOOKS / name, as_version=4)
    return {c.id: MARKER.sub("", c.source) for c in source.cells if nbgrader_meta(c).get("solution")}


def run_all(page, notebook: Notebook, timeout: float = 420) -> None:
    """Run → Run All Cells from the menu, then wait until every code cell has run; if the run
    stops early (a cell raised), fail with that cell's error. A Run All given while the kernel is
    still connecting after the page loads is lost, so it is given again until cells start."""
    prompts = ".jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt"  # one notebook per page
    for attempt in range(4):
        answer_kernel_dialog(page)  # a dialog over the menu bar takes every click
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item:visible", has_text=re.compile(r"^Run All Cells")).first.click()
        try:
            page.wait_for_function(
                f"() => [...document.querySelectorAll('{prompts}')].some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))",
                timeout=15_000)
            break
        except Exception:
            if attempt == 3:
                notebook.shot("run-all-did-not-start", always=True)
                raise
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        texts = page.locator(prompts).all_text_contents()
        if all(re.search(r"\[\d+\]", t) for t in texts):
            return
        if not any("*" in t for t in texts):
            time.sleep(1)  # no cell running, some never ran: an error stopped the run
            texts = page.locator(prompts).all_text_contents()
            if not any("*" in t for t in texts) and not all(re.search(r"\[\d+\]", t) for t in texts):
                notebook.shot("run-all-stopped", always=True)
                errors = page.locator(".jp-NotebookPanel .jp-OutputArea-output[data-mime-type="
                                      "'application/vnd.jupyter.stderr']").all_text_contents()
                raise AssertionError("Run All stopped early:\n" + "\n".join(e[-1500:] for e in errors))
        time.sleep(0.5)
    notebook.shot("run-all-timeout", always=True)
    raise AssertionError(f"Run All did not finish within {timeout:g} s")


def outputs(notebook: Notebook, index: int) -> str:
    found = notebook.cell(index).locator(".jp-OutputArea-output")
    return " ".join(found.nth(i).text_content() for i in range(found.count()))


def click_a_covered_cell(page, board) -> tuple[int, int] | None:
    """Dig the first covered cell of the slice on show, as a student's click; None if none is left."""
    rows = board.get_attribute("data-view").split("/")
    covered = next(((r, c) for r, row in enumerate(rows) for c, face in enumerate(row) if face == "#"), None)
    if covered is None or board.get_attribute("data-state") != "ongoing":
        return None
    before = version(board)
    act(page, board, *covered)
    assert version(board) > before
    return covered


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_student_walks_through_the_step(release_folder, lab, page, name):
    released = nbformat.read(release_folder / ASSIGNMENTS[name] / name, as_version=4)
    board_cells, probe_source = WALK[name]
    released.cells.append(nbformat.v4.new_code_cell(PROBE_HEAD + probe_source))
    nbformat.write(released, lab.notebooks / name)
    index = {cell.id: i for i, cell in enumerate(released.cells)}
    probe = len(released.cells) - 1
    typed = answers(name)
    assert set(typed) <= set(index), "an exercise cell of the source is missing from the student version"

    open_in_lab(page, lab, name)
    notebook = Notebook(page, f"walkthrough-{name.removesuffix('.ipynb')}")
    notebook.shot("opened")

    # 1. Write every exercise, typed into its cell as a student would.
    for cell_id, answer in typed.items():
        cell = notebook.cell(index[cell_id])
        assert "raise NotImplementedError()" in cell.locator(".cm-content").text_content()
        cell.locator(".cm-content").click()
        page.keyboard.press("Control+a")
        page.keyboard.insert_text(answer)
    if typed:
        notebook.shot("exercises-written")

    # 2. Run everything from the menu: every visible test passes (Run All would stop at a failure).
    run_all(page, notebook)
    notebook.shot("ran-all")
    for i, cell in enumerate(released.cells):
        if nbgrader_meta(cell).get("grade"):
            shown = outputs(notebook, i)
            assert "Error" not in shown and "Traceback" not in shown, f"{cell.id}: {shown[-1500:]}"
    assert page.locator(".jp-NotebookPanel:visible .msk-has-error").count() == 0

    # 3. Click each board: it answers from the student's code, with no error.
    for cell_id in board_cells:
        board = notebook.cell(index[cell_id]).locator(".msk-board").first
        board.locator("canvas").wait_for()
        board.scroll_into_view_if_needed()
        clicked = click_a_covered_cell(page, board)
        notebook.shot(f"clicked-{cell_id}")
        assert board.locator(".msk-error-message").count() == 0, board.locator(".msk-error-message").text_content()
        if clicked is not None:
            face = board.get_attribute("data-view").split("/")[clicked[0]][clicked[1]]
            assert face != "#", f"{cell_id}: the clicked cell {clicked} is still covered"

    # On step 5 the student's bot plays the board by itself: it shows a finished game.
    if name == "05-bots.ipynb":
        board = notebook.cell(index["demo-13"]).locator(".msk-board").first
        board.scroll_into_view_if_needed()
        notebook.shot("bot-played")
        assert board.get_attribute("data-state") in ("victory", "defeat")
        assert "#" * 9 not in board.get_attribute("data-view")

    # 4. The Python side: no board error, every board played, and the boards run the student's code.
    state = notebook.probe(probe)
    assert all(error == {} for error in state["errors"]), state["errors"]
    assert all(count > 0 for count in state["played"]), state["played"]
    assert state["mine"] is True

    # 5. On step 3, nbgrader's Validate button (what the README tells students to press) agrees.
    if name == "03-flood-fill.ipynb":
        page.locator(".jp-NotebookPanel:visible .validate-button").click()
        dialog = page.locator(".jp-Dialog")
        dialog.wait_for(timeout=300_000)
        page.wait_for_function("() => !document.querySelector('.jp-Dialog')?.textContent.includes('Validating')",
                               timeout=300_000)
        notebook.shot("validated")
        text = dialog.text_content()
        assert "Validation Results" in text and "Success" in text, text[-1500:]
        dialog.locator("button").last.click()
