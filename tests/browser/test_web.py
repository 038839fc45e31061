"""The standalone page: `mines play --web` really starts Voila on loopback, the board plays under
the rules given on the command line, and Ctrl+C stops it cleanly."""

from __future__ import annotations

import re
import signal
import socket
import subprocess
import sys
import time

import pytest

from .support import act, step_shot

pytestmark = pytest.mark.browser


def test_play_web_serves_a_board_page_and_stops_on_interrupt(page):
    process = subprocess.Popen(
        [sys.executable, "-m", "minesweeper_kit.cli", "play", "--web", "--no-browser", "--shape", "9x9",
         "--mines", "10", "--seed", "5"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    try:
        line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\S*", line)
        assert match, f"mines play --web did not print its address: {line!r}"
        url, port = match.group(0), int(match.group(1))
        page.goto(url)
        board = page.locator(".msk-board")
        board.locator("canvas").wait_for(timeout=120_000)
        step_shot(page, "web-01-fresh")
        assert board.get_attribute("data-view") == "/".join(["#" * 9] * 9)
        assert board.locator(".msk-seed").text_content() == "seed 5"
        assert page.locator(".jp-InputArea").count() == 0  # the page shows no code
        act(page, board, 4, 4)
        rows = board.get_attribute("data-view").split("/")
        assert rows[4][4] != "#"
        covered = next((r, c) for r in range(9) for c in range(9) if rows[r][c] == "#")
        act(page, board, *covered, button="right")
        step_shot(page, "web-02-played")
        assert board.get_attribute("data-view").split("/")[covered[0]][covered[1]] == "F"
        assert board.locator(".msk-mines-left").text_content() == "009"
    finally:
        running_until_interrupt = process.poll() is None
        process.send_signal(signal.SIGINT)
        try:
            code = process.wait(timeout=60)
        except subprocess.TimeoutExpired:
            process.kill()
            code = None
    assert running_until_interrupt, "the page had already stopped before Ctrl+C"
    assert code is not None, "the page was still served 60 s after Ctrl+C"
    # serve() catches the interrupt and returns: a clean exit, not Python's death by SIGINT (-2).
    assert code == 0, f"mines play --web should end cleanly on Ctrl+C (exit code 0), got {code}"
    time.sleep(0.5)
    with socket.socket() as s:
        assert s.connect_ex(("127.0.0.1", port)) != 0, "Voila still answers after the interrupt"
