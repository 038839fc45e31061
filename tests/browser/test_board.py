"""The board widget in a real JupyterLab and Chromium: clicks change the canvas and the game."""

from __future__ import annotations

import pytest

from .support import act, board_locator, version, wait_update_after

pytestmark = pytest.mark.browser

SETUP = """\
import json
from minesweeper_kit.widgets import Board
board = Board((9, 9), 10, seed=3)
board"""

PROBE = """\
g = board.game
print(json.dumps({"digs": board.digs, "revealed": g.revealed_count, "state": g.state,
                  "mines_left": g.mines_left, "marks": g.marks.tolist(),
                  "open": g.revealed.tolist(), "mines": g.mines.tolist()}))"""

COVERED_RGB = (189, 189, 189)
OPEN_RGB = (230, 230, 230)


def view_rows(board) -> list[str]:
    return board.get_attribute("data-view").split("/")


def pixel(board, row: int, col: int) -> tuple[int, int, int]:
    """The canvas colour near the top-left corner inside a cell (away from the digit)."""
    return tuple(board.locator("canvas").evaluate(
        """(canvas, [r, c]) => {
            const cs = Number(canvas.closest('.msk-board').dataset.cellSize);
            const dpr = canvas.width / canvas.clientWidth;
            const x = Math.round((c * cs + 4) * dpr), y = Math.round((r * cs + 4) * dpr);
            return Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3));
        }""", [row, col]))


def test_left_and_right_clicks_play_the_engine(page, notebook):
    nb = notebook("board_engine.ipynb", [SETUP, PROBE])
    nb.run(0)
    board = board_locator(page)
    board.locator("canvas").wait_for()
    nb.shot("fresh")
    assert view_rows(board) == ["#" * 9] * 9
    assert board.get_attribute("data-state") == "ongoing"
    assert board.locator(".msk-mines-left").text_content() == "010"
    assert pixel(board, 0, 0) == COVERED_RGB

    # left click digs: the first dig is safe, so (4, 4) opens at least itself
    act(page, board, 4, 4)
    nb.shot("after-dig")
    rows = view_rows(board)
    assert rows[4][4] != "#"
    assert pixel(board, 4, 4) == OPEN_RGB
    python = nb.probe(1)
    assert python["digs"] == 1
    assert python["open"][4][4] is True
    assert python["state"] == "ongoing"
    shown_open = sum(ch not in "#F?" for row in rows for ch in row)
    assert python["revealed"] == shown_open >= 1
    for r in range(9):
        for c in range(9):
            assert (rows[r][c] != "#") == python["open"][r][c], (r, c)

    # right click cycles flag -> question -> covered on a covered cell; no context menu opens
    target = next((r, c) for r in range(9) for c in range(9) if rows[r][c] == "#")
    act(page, board, *target, button="right")
    nb.shot("flag")
    assert page.locator(".lm-Menu").count() == 0 or not page.locator(".lm-Menu").first.is_visible()
    assert view_rows(board)[target[0]][target[1]] == "F"
    assert board.locator(".msk-mines-left").text_content() == "009"
    python = nb.probe(1)
    assert python["marks"][target[0]][target[1]] == 1
    assert python["mines_left"] == 9
    assert python["digs"] == 1

    act(page, board, *target, button="right")
    assert view_rows(board)[target[0]][target[1]] == "?"
    assert nb.probe(1)["marks"][target[0]][target[1]] == 2
    act(page, board, *target, button="right")
    assert view_rows(board)[target[0]][target[1]] == "#"
    assert nb.probe(1)["marks"][target[0]][target[1]] == 0

    # flag mode: a left click marks instead of digging
    board.locator(".msk-flag-mode").click()
    act(page, board, *target)
    assert view_rows(board)[target[0]][target[1]] == "F"
    python = nb.probe(1)
    assert python["marks"][target[0]][target[1]] == 1
    assert python["digs"] == 1
    board.locator(".msk-flag-mode").click()
    nb.shot("flag-mode")

    # dig a mine that is not flagged: defeat and the end view
    mines = python["mines"]
    mine = next((r, c) for r in range(9) for c in range(9)
                if mines[r][c] and (r, c) != target)
    act(page, board, *mine)
    nb.shot("defeat")
    rows = view_rows(board)
    assert board.get_attribute("data-state") == "defeat"
    assert rows[mine[0]][mine[1]] == "X"
    assert board.locator(".msk-face").text_content() == "☹"
    unflagged = [(r, c) for r in range(9) for c in range(9)
                 if mines[r][c] and (r, c) not in (mine, target)]
    assert all(rows[r][c] == "*" for r, c in unflagged)
    expected_target = "F" if mines[target[0]][target[1]] else "x"
    assert rows[target[0]][target[1]] == expected_target
    python = nb.probe(1)
    assert python["state"] == "defeat"
    assert python["digs"] == 2

    # new game from the face button: everything covered again, a new game on the Python side
    before = version(board)
    board.locator(".msk-face").click()
    wait_update_after(page, board, before)
    page.wait_for_function("el => el.dataset.state === 'ongoing'", arg=board.element_handle())
    nb.shot("new-game")
    assert view_rows(board) == ["#" * 9] * 9
    python = nb.probe(1)
    assert python["state"] == "ongoing"
    assert python["revealed"] == 0
    assert python["digs"] == 0
