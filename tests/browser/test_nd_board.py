"""A 3-D board: the slider over the extra axis moves (in the browser alone), hovering marks neighbours and
slices, its label tells the slice's place from its index, and a board opens on the slice of its last dig."""

from __future__ import annotations

import pytest

from .support import act, board_locator

pytestmark = pytest.mark.browser

SETUP = """\
import json
from minesweeper_kit.widgets import Board
board = Board((3, 4, 5), 3, seed=11, cell_size=30)
board"""

PROBE = """\
g = board.game
print(json.dumps({"slice": board.slice_index, "open": g.revealed.tolist(),
                  "marks": g.marks.tolist(), "digs": board.digs}))"""

ONE_D = """\
line = Board((12,), 2, seed=4)
line"""

SHOW_FIRST = "board.slice_index = [0]  # the value Python already holds"


def test_slider_moves_and_clicks_land_in_the_visible_slice(page, notebook):
    nb = notebook("board_3d.ipynb", [SETUP, PROBE, ONE_D, SHOW_FIRST])
    nb.run(0)
    board = board_locator(page)
    board.locator("canvas").wait_for()
    sliders = board.locator(".msk-slider-input")
    assert sliders.count() == 1
    assert board.get_attribute("data-view") == "/".join(["#" * 5] * 4)
    assert board.locator(".msk-slider-label").text_content() == "axis 0: slice 1 of 3 (index 0)"
    nb.shot("slice-0")

    # move the slider to slice 2 (keyboard on the range input) and check both sides
    sliders.first.press("ArrowRight")
    sliders.first.press("ArrowRight")
    page.wait_for_function("el => el.querySelector('.msk-slider-label').textContent === 'axis 0: slice 3 of 3 (index 2)'",
                           arg=board.element_handle())
    assert nb.probe(1)["slice"] == [0]  # the slice position stays in the browser: no message to the kernel

    # a right click in this slice flags cell (2, 1, 3) on the Python side
    act(page, board, 1, 3, button="right")
    nb.shot("slice-2-flag")
    assert board.get_attribute("data-view").split("/")[1][3] == "F"
    python = nb.probe(1)
    assert python["marks"][2][1][3] == 1
    assert sum(v for plane in python["marks"] for row in plane for v in row) == 1

    # hover a cell: its neighbours in this slice and the neighbouring slice 1 are marked
    canvas = board.locator("canvas")
    canvas.hover(position={"x": 2 * 30 + 15, "y": 2 * 30 + 15})
    page.wait_for_function("el => el.dataset.hover === '2,2,2'", arg=board.element_handle())
    nb.shot("hover")
    strip = board.locator(".msk-strip-cell")
    classes = [strip.nth(i).get_attribute("class") for i in range(3)]
    assert "msk-current" in classes[2]
    assert "msk-neighbour-slice" in classes[1]
    assert "msk-neighbour-slice" not in classes[0]
    highlight = canvas.evaluate("""(canvas) => {
        const ctx = canvas.getContext('2d'), dpr = canvas.width / canvas.clientWidth;
        const at = (x, y) => Array.from(ctx.getImageData(Math.round(x * dpr), Math.round(y * dpr), 1, 1).data.slice(0, 3));
        return {near: at(1 * 30 + 5, 1 * 30 + 5), far: at(4 * 30 + 5, 0 * 30 + 5)};
    }""")
    assert highlight["near"] != highlight["far"]
    page.mouse.move(1, 1)

    # back to slice 0 by clicking its box in the strip; a dig there lands at (0, r, c)
    strip.nth(0).click()
    page.wait_for_function("el => el.querySelector('.msk-slider-label').textContent === 'axis 0: slice 1 of 3 (index 0)'",
                           arg=board.element_handle())
    act(page, board, 0, 0)
    nb.shot("slice-0-dig")
    python = nb.probe(1)
    assert python["slice"] == [0]
    assert python["open"][0][0][0] is True
    assert python["digs"] == 1

    # slid to slice 1 in the browser, Python still holds [0]; assigning [0] brings the view back
    sliders.first.press("ArrowRight")
    page.wait_for_function("el => el.querySelector('.msk-slider-label').textContent === 'axis 0: slice 2 of 3 (index 1)'",
                           arg=board.element_handle())
    nb.run(3)
    page.wait_for_function("el => el.querySelector('.msk-slider-label').textContent === 'axis 0: slice 1 of 3 (index 0)'",
                           arg=board.element_handle())
    assert board.get_attribute("data-view").split("/")[0][0] != "#"  # slice 0's dug corner is drawn


def test_one_dimensional_board_is_one_row(page, notebook):
    nb = notebook("board_1d.ipynb", [SETUP, PROBE, ONE_D])
    nb.run(0)
    nb.run(2)
    line = board_locator(page, 1)
    line.locator("canvas").wait_for()
    assert line.get_attribute("data-rows") == "1"
    assert line.get_attribute("data-cols") == "12"
    assert line.locator(".msk-slider-input").count() == 0
    act(page, line, 0, 6)
    nb.shot("one-row")
    assert line.get_attribute("data-view")[6] != "#"
    assert "/" not in line.get_attribute("data-view")


SCRIPTED = """\
from minesweeper_kit.widgets import Board
cube = Board((3, 8, 8), 10, seed=8, cell_size=30)
cube.dig((1, 4, 4))  # a first dig from Python, as the notebooks make one
tesseract = Board((3, 3, 6, 6), 12, seed=9, cell_size=20)
tesseract.dig((1, 2, 3, 3))
display(cube, tesseract)"""


def test_boards_open_on_the_slice_of_the_scripted_dig(page, notebook):
    nb = notebook("board_scripted.ipynb", [SCRIPTED])
    nb.run(0)
    cube, tesseract = board_locator(page, 0), board_locator(page, 1)
    cube.locator("canvas").wait_for()
    tesseract.locator("canvas").wait_for()
    nb.shot("scripted-digs")
    assert cube.locator(".msk-slider-label").text_content() == "axis 0: slice 2 of 3 (index 1)"
    assert cube.get_attribute("data-view").split("/")[4][4] != "#"  # the dug cell is on show
    labels = tesseract.locator(".msk-slider-label").all_text_contents()
    assert labels == ["axis 0: slice 2 of 3 (index 1)", "axis 1: slice 3 of 3 (index 2)"]
    assert tesseract.get_attribute("data-view").split("/")[3][3] != "#"
    strip = cube.locator(".msk-strip-cell")
    assert strip.nth(1).get_attribute("title") == "axis 0: slice 2 of 3 (index 1)"
    assert "msk-current" in strip.nth(1).get_attribute("class")
