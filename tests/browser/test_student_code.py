"""Student code on the board: its errors show in the widget, and compare outlines its mistakes."""

from __future__ import annotations

import pytest

from .support import act, board_locator

pytestmark = pytest.mark.browser

STUDENT = """\
import json
from minesweeper_kit import HyperMinesGame
from minesweeper_kit.widgets import Board
class MyGame(HyperMinesGame):
    def dig(self, coordinates):
        if tuple(coordinates) == (0, 0):
            raise IndexError("no digging in the corner")
        return super().dig(coordinates)
    def render(self, xray=False):
        # a bug on purpose: every number shows one too many
        return [[str(int(v) + 1) if v.isdigit() else v for v in row]
                for row in super().render(xray)]
board = Board((6, 6), 4, play=MyGame, seed=5)
board"""

PROBE = """\
g = board.game
numbers = [[g.mask[r][c] and g.board[r][c] not in ('.', 0) for c in range(6)] for r in range(6)]
print(json.dumps({"digs": board.digs, "error": board.error, "state": g.state if g else None,
                  "open": g.mask if g else None, "numbers": numbers,
                  "diff": list(board.diff)}))"""

OUTLINE_RGB = (233, 30, 99)


def edge_pixel(board, row: int, col: int) -> tuple[int, int, int]:
    return tuple(board.locator("canvas").evaluate(
        """(canvas, [r, c]) => {
            const cs = Number(canvas.closest('.msk-board').dataset.cellSize);
            const dpr = canvas.width / canvas.clientWidth;
            const x = Math.floor((c * cs + 1) * dpr), y = Math.round((r * cs + cs / 2) * dpr);
            return Array.from(canvas.getContext('2d').getImageData(x, y, 1, 1).data.slice(0, 3));
        }""", [row, col]))


def test_student_error_shows_and_board_stays_usable(page, notebook):
    nb = notebook("student_code.ipynb", [STUDENT, PROBE])
    nb.run(0)
    board = board_locator(page)
    board.locator("canvas").wait_for()
    nb.shot("fresh")

    act(page, board, 0, 0)
    error = board.locator(".msk-error")
    error.wait_for()
    nb.shot("error")
    assert "Error in MyGame.dig: IndexError: no digging in the corner" in error.text_content()
    assert "line 7" in board.locator(".msk-error-where").text_content()
    assert "cell In[" in board.locator(".msk-error-where").text_content()
    assert "raise IndexError" in board.locator(".msk-error-code").text_content()
    python = nb.probe(1)
    assert python["error"]["message"] == "IndexError: no digging in the corner"
    assert python["state"] == "ongoing"
    assert not any(any(row) for row in python["open"])

    # the board still plays: another cell digs, and the error goes away
    act(page, board, 3, 3)
    nb.shot("after-error")
    assert board.locator(".msk-error-message").count() == 0
    rows = board.get_attribute("data-view").split("/")
    assert rows[3][3] != "#"
    python = nb.probe(1)
    assert python["error"] == {}
    assert python["open"][3][3] is True
    assert python["digs"] == 2

    # compare with the engine: exactly the student's (wrong) numbers are outlined
    board.locator(".msk-compare").click()
    page.wait_for_function("el => el.querySelector('.msk-compare.msk-on')",
                           arg=board.element_handle())
    page.mouse.move(1, 1)
    python = nb.probe(1)
    nb.shot("compare")
    wrong = [(r, c) for r in range(6) for c in range(6) if python["numbers"][r][c]]
    assert wrong, "the first dig should show at least one number"
    outlined = [(i // 6, i % 6) for i, d in enumerate(python["diff"]) if d]
    assert outlined == wrong
    page.wait_for_timeout(200)
    for r, c in wrong:
        assert edge_pixel(board, r, c) == OUTLINE_RGB, (r, c)
    same = [(r, c) for r in range(6) for c in range(6) if not python["numbers"][r][c]]
    assert all(edge_pixel(board, r, c) != OUTLINE_RGB for r, c in same)
