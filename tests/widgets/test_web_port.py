"""`mines play --web` serves on the port it prints, even when another process takes that port first.

A port found free is free only until someone binds it: a kernel's ZeroMQ sockets take ports the same
way, and a Voila allowed to move on would serve elsewhere while the address printed led to that
kernel."""

from __future__ import annotations

import re
import select
import signal
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator

import pytest

from minesweeper_kit.shutdown import dies_with_this_process

ZMQ_GREETING = b"\xff" + b"\x00" * 8 + b"\x7f"  # what a kernel's socket says first, not HTTP


@pytest.fixture
def kernel_like_port() -> Iterator[int]:
    """A loopback port held by a listener that answers every connection as a ZeroMQ socket does."""
    listener = socket.socket()
    listener.bind(("127.0.0.1", 0))
    listener.listen()
    listener.settimeout(0.2)
    done = threading.Event()

    def answer() -> None:
        while not done.is_set():
            try:
                connection, _ = listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            with connection:
                connection.sendall(ZMQ_GREETING)

    thread = threading.Thread(target=answer, daemon=True)
    thread.start()
    try:
        yield listener.getsockname()[1]
    finally:
        done.set()
        thread.join(timeout=10)
        listener.close()


def _first_line(process: subprocess.Popen, timeout: float = 120) -> str:
    deadline, line = time.monotonic() + timeout, ""
    while time.monotonic() < deadline and process.poll() is None and not line:
        if select.select([process.stdout], [], [], 1)[0]:
            line = process.stdout.readline()
    return line


def _stop(process: subprocess.Popen) -> int:
    if process.poll() is None:
        process.send_signal(signal.SIGINT)
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        raise


def test_a_port_taken_before_voila_binds_it_is_chosen_again(kernel_like_port, tmp_path):
    """The first port picked is taken by the time Voila starts: the page is served on another one,
    and the address printed is that one."""
    driver = (
        "import sys\n"
        "from minesweeper_kit import Rules\n"
        "from minesweeper_kit.widgets import web\n"
        "picks, pick = [int(sys.argv[1])], web._free_port\n"
        "web._free_port = lambda host: picks.pop() if picks else pick(host)\n"
        "web.serve(Rules(shape=(5, 5), mines=3), seed=2)\n"
    )
    log = tmp_path / "stderr"
    with open(log, "w") as stderr:  # a file: Voila's log cannot fill it as it could a pipe
        process = subprocess.Popen([sys.executable, "-c", driver, str(kernel_like_port)], stdout=subprocess.PIPE,
                                   stderr=stderr, text=True, preexec_fn=dies_with_this_process())
    try:
        line = _first_line(process)
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)", line)
        assert match, f"no address printed: {line!r}\n{log.read_text()[-3000:]}"
        assert int(match.group(1)) != kernel_like_port
        with urllib.request.urlopen(match.group(0), timeout=120) as page:
            assert "application/vnd.jupyter.widget-view+json" in page.read().decode()  # the board
    finally:
        code = _stop(process)
    assert code == 0, log.read_text()[-3000:]


def test_a_port_asked_for_and_taken_is_an_error_that_names_it(kernel_like_port):
    result = subprocess.run(
        [sys.executable, "-m", "minesweeper_kit.cli", "play", "--web", "--no-browser", "--port", str(kernel_like_port),
         "--shape", "5x5", "--mines", "3"],
        capture_output=True, text=True, timeout=180, preexec_fn=dies_with_this_process())
    assert result.returncode == 1, result
    assert f"mines play: port {kernel_like_port} on 127.0.0.1 is in use" in result.stderr, result.stderr[-3000:]
    assert "Traceback" not in result.stderr and result.stdout == "", result
