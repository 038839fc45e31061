"""The standalone page: serve() really starts Voila on loopback, the board plays, Ctrl+C stops it."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from .support import ARTIFACTS, act

pytestmark = pytest.mark.browser


def test_serve_plays_a_board_page_and_stops_on_interrupt(page):
    process = subprocess.Popen(
        [sys.executable, "-c",
         "from minesweeper_kit.widgets.web import serve; serve((9, 9), 10, seed=5)"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/", line)
        assert match, f"serve() did not print its address: {line!r}"
        url, port = match.group(0), int(match.group(1))
        page.goto(url)
        board = page.locator(".msk-board")
        board.locator("canvas").wait_for(timeout=120_000)
        page.screenshot(path=str(ARTIFACTS / "web-01-fresh.png"))
        assert board.get_attribute("data-view") == "/".join(["#" * 9] * 9)
        assert board.locator(".msk-seed").text_content() == "seed 5"
        assert page.locator(".jp-InputArea").count() == 0  # the page shows no code
        act(page, board, 4, 4)
        rows = board.get_attribute("data-view").split("/")
        assert rows[4][4] != "#"
        covered = next((r, c) for r in range(9) for c in range(9) if rows[r][c] == "#")
        act(page, board, *covered, button="right")
        page.screenshot(path=str(ARTIFACTS / "web-02-played.png"))
        assert board.get_attribute("data-view").split("/")[covered[0]][covered[1]] == "F"
        assert board.locator(".msk-mines-left").text_content() == "009"
    finally:
        process.send_signal(signal.SIGINT)
        process.wait(timeout=30)
    assert process.returncode is not None
    time.sleep(0.5)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "Voila still answers after the interrupt"
