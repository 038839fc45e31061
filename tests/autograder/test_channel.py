"""The grader's end of the pipes (minesweeper_kit/sandbox/channel.py): the CPU guard is asked
while the grader waits, whatever the child sends."""

from __future__ import annotations

import os
import threading
import time

import pytest

from minesweeper_kit.sandbox import protocol
from minesweeper_kit.sandbox.channel import Pipes


class CountingGuard:
    """A call's guard that says the limit is spent on its third check."""

    def __init__(self) -> None:
        self.asked = 0
        self.just_sent: list[bool] = []

    def wait(self) -> float:
        return 0.2

    def over(self, *, just_sent: bool = False) -> bool:
        self.asked += 1
        self.just_sent.append(just_sent)
        return self.asked >= 3

    def paused(self, seconds: float) -> None:
        pass


def test_the_guard_is_asked_while_an_answer_trickles_in():
    """A child that sends its answer one byte at a time, more often than the guard's wait, never
    leaves the grader waiting with nothing to read: the guard must still be asked, or the CPU the
    child spends between bytes is never counted."""
    request_read, request_write = os.pipe()
    answer_read, answer_write = os.pipe()
    stop = threading.Event()

    def trickle() -> None:
        os.write(answer_write, protocol.HEADER.pack(200))
        for _ in range(200):
            if stop.is_set():
                return
            os.write(answer_write, b" ")
            time.sleep(0.02)

    sender = threading.Thread(target=trickle, daemon=True)
    sender.start()
    guard = CountingGuard()
    pipes = Pipes(request_write, answer_read, message_bytes=1000, alive=lambda: True)
    try:
        with pytest.raises(TimeoutError, match="cpu"):
            pipes.exchange(b'{"call": "f"}', guard)
        assert guard.asked == 3
        # each check came as a byte arrived: the child's running state then proves nothing
        assert guard.just_sent == [True, True, True]
    finally:
        stop.set()
        sender.join()
        for fd in (request_read, request_write, answer_read, answer_write):
            os.close(fd)


def test_a_check_on_a_quiet_wait_says_so():
    """When a wait ends with nothing to read, the guard may trust the child's state at that moment
    (a child ready to run on a crowded machine is not idle)."""
    request_read, request_write = os.pipe()
    answer_read, answer_write = os.pipe()
    guard = CountingGuard()
    pipes = Pipes(request_write, answer_read, message_bytes=1000, alive=lambda: True)
    try:
        with pytest.raises(TimeoutError, match="cpu"):
            pipes.exchange(b'{"call": "f"}', guard)
        assert guard.just_sent == [False, False, False]
    finally:
        for fd in (request_read, request_write, answer_read, answer_write):
            os.close(fd)
