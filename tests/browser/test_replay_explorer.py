"""Replay steps through a recorded game; NeighborExplorer colours a student's neighbours."""

from __future__ import annotations

import pytest

from .support import board_locator

pytestmark = pytest.mark.browser

REPLAY = """\
import json
import numpy as np
from minesweeper_kit import Game
from minesweeper_kit.formats import sweepmine
from minesweeper_kit.widgets import Replay
# a won game written as a sweepmine.out log: dig every safe cell in order
game = Game.new((12, 16), 30, seed=8)
game.dig((6, 8))
for at in np.argwhere(~np.asarray(game.mines)):
    game.dig(tuple(int(i) for i in at))
log_text = sweepmine.write_log(sweepmine.log_from_game(game))
replay = Replay(log_text)
replay"""

REPLAY_PROBE = """\
print(json.dumps({"step": replay.step, "revealed": replay.position().revealed_count,
                  "count": replay.count, "state": replay.position().state}))"""

EXPLORER = """\
from minesweeper_kit.widgets import NeighborExplorer
def neighbors(dimensions, coordinates):
    r, c = coordinates
    # a bug on purpose: forgets the row below and includes the cell itself
    return [(r + a, c + b) for a in (-1, 0) for b in (-1, 0, 1)
            if 0 <= r + a < dimensions[0] and 0 <= c + b < dimensions[1]]
explorer = NeighborExplorer(neighbors, (5, 6), cell_size=30)
explorer"""


def test_replay_slider_and_play(page, notebook):
    nb = notebook("replay.ipynb", [REPLAY, REPLAY_PROBE, EXPLORER])
    nb.run(0)
    replay = board_locator(page)
    replay.locator("canvas").wait_for()
    python = nb.probe(1)
    # it opens on the last move, where the game was decided: the logged victory
    assert replay.get_attribute("data-step") == str(python["count"] - 1) == str(python["step"])
    assert python["state"] == "victory"
    assert "#" not in replay.get_attribute("data-view")
    assert "victory" in replay.locator(".msk-step-label").text_content()
    nb.shot("replay-opens-on-the-end")
    replay.locator(".msk-step").fill("0")
    page.wait_for_function("el => el.dataset.step === '0'", arg=replay.element_handle())
    assert set(replay.get_attribute("data-view")) <= {"#", "/"}
    nb.shot("replay-start")
    replay.locator(".msk-step").fill("40")
    page.wait_for_function("el => el.dataset.step === '40'", arg=replay.element_handle())
    nb.shot("replay-step-40")
    python = nb.probe(1)
    assert python["step"] == 40
    opened = sum(ch not in "#F/" for ch in replay.get_attribute("data-view"))
    assert opened == python["revealed"] > 0
    # play at the highest speed from there until the end: the last position is the logged victory
    replay.locator(".msk-speed").select_option("32")
    replay.locator(".msk-play").click()
    page.wait_for_function("el => el.dataset.step === String(%d)" % (python["count"] - 1),
                           arg=replay.element_handle(), timeout=60_000)
    nb.shot("replay-end")
    python = nb.probe(1)
    assert python["step"] == python["count"] - 1
    assert python["state"] == "victory"


def test_neighbor_explorer_shows_missing_and_extra(page, notebook):
    nb = notebook("explorer.ipynb", [REPLAY, REPLAY_PROBE, EXPLORER])
    nb.run(2)
    explorer = board_locator(page)
    explorer.locator("canvas").wait_for()
    explorer.locator("canvas").click(position={"x": 2 * 30 + 15, "y": 2 * 30 + 15})
    page.wait_for_function("el => el.dataset.summary && el.dataset.summary.includes('missing')",
                           arg=explorer.element_handle())
    nb.shot("explorer")
    rows = explorer.get_attribute("data-view").split("/")
    # 1 correct, 2 missing, 3 extra (the cell itself, returned by mistake)
    assert rows[1][1:4] == "111"
    assert rows[2][1] == "1" and rows[2][3] == "1"
    assert rows[2][2] == "3"
    assert rows[3][1:4] == "222"
    assert "5 correct, 3 missing, 1 extra" in explorer.locator(".msk-summary").text_content()
