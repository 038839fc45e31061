"""Student code on the board: its errors show in the widget, the x-ray shows the student's own numbers,
and compare outlines every one of its mistakes, covered cells included."""

from __future__ import annotations

import pytest
from student_bugs import ALIASING_NEW_BOARD

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
numbers = [[g.board[r][c] not in ('.', 0) for c in range(6)] for r in range(6)]  # the cells render gets wrong
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

    # compare with the engine: exactly the student's wrong numbers are outlined, covered or not
    board.locator(".msk-compare").click()
    page.wait_for_function("el => el.querySelector('.msk-compare.msk-on')",
                           arg=board.element_handle())
    page.mouse.move(1, 1)
    python = nb.probe(1)
    nb.shot("compare")
    wrong = [(r, c) for r in range(6) for c in range(6) if python["numbers"][r][c]]
    assert wrong, "the board should hold at least one number"
    assert any(not python["open"][r][c] for r, c in wrong), "some wrong numbers should still be covered"
    outlined = [(i // 6, i % 6) for i, d in enumerate(python["diff"]) if d]
    assert outlined == wrong
    page.wait_for_timeout(200)
    for r, c in wrong:
        assert edge_pixel(board, r, c) == OUTLINE_RGB, (r, c)
    same = [(r, c) for r in range(6) for c in range(6) if not python["numbers"][r][c]]
    assert all(edge_pixel(board, r, c) != OUTLINE_RGB for r, c in same)


ALIASING = f"""\
import json
from minesweeper_kit import Game
from minesweeper_kit.widgets import Board
from minesweeper_kit.widgets.codes import CellCode, full_board_codes
{ALIASING_NEW_BOARD}
board = Board((8, 8), 4, play=new_board, seed=11, cell_size=30)
board.dig((4, 4))  # safe on the student's board too: the game goes on
board"""

ALIASING_PROBE = """\
def text(codes):
    return "/".join("".join("*" if v == CellCode.MINE else "." if v == 0 else str(v) for v in row)
                    for row in codes.tolist())
theirs = [["*" if v == "." else "." if v == 0 else str(v) for v in row]
          for row in new_board([8, 8], board.driver.mine_list)]
engine = Game.from_mines((8, 8), board.driver.mine_list)
print(json.dumps({"theirs": "/".join("".join(row) for row in theirs),
                  "truth": text(full_board_codes(engine.mines, engine.numbers)),
                  "shown": board.board_view().tolist(), "error": board.error}))"""


def test_an_aliasing_new_board_shows_its_own_numbers_and_every_wrong_one_outlined(page, notebook):
    nb = notebook("aliasing.ipynb", [ALIASING, ALIASING_PROBE])
    nb.run(0)
    board = board_locator(page)
    board.locator("canvas").wait_for()
    python = nb.probe(1)
    assert python["error"] == {} and board.get_attribute("data-state") == "ongoing"
    assert python["theirs"] != python["truth"], "the shared rows should change the numbers"

    board.locator(".msk-xray").click()
    page.wait_for_function("el => el.dataset.xray", arg=board.element_handle())
    page.mouse.move(1, 1)
    nb.shot("aliasing-xray")
    assert board.get_attribute("data-xray") == python["theirs"]  # the student's numbers, not the kit's

    board.locator(".msk-compare").click()
    page.wait_for_function("el => el.dataset.diff", arg=board.element_handle())
    page.mouse.move(1, 1)
    page.wait_for_timeout(200)
    nb.shot("aliasing-compare")
    theirs, truth = python["theirs"].split("/"), python["truth"].split("/")
    marked = board.get_attribute("data-diff").split("/")
    wrong = [(r, c) for r in range(8) for c in range(8) if theirs[r][c] != truth[r][c]]
    covered = [(r, c) for r, c in wrong if python["shown"][r][c] < -(2 ** 30)]
    assert covered, "some wrong numbers should still be covered"
    assert all(marked[r][c] == "!" for r, c in wrong), (marked, wrong)
    for r, c in wrong:
        assert edge_pixel(board, r, c) == OUTLINE_RGB, (r, c)
