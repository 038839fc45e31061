"""A board as a page of its own: Voila renders a one-cell notebook holding the widget.

``serve`` writes that notebook into a temporary folder, starts Voila on loopback and blocks until
interrupted (Ctrl+C), then stops Voila and removes the folder. The page shows only the board: no
code, no notebook chrome.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.request
import webbrowser
from pathlib import Path
from typing import Any

import nbformat

from ..rules import Rules


def board_notebook(rules: Rules, *, seed: int | None = None) -> str:
    """The notebook Voila renders: one cell that builds and shows the board under `rules`."""
    options = ", ".join(f"{name}={value!r}" for name, value in rules.as_dict().items())
    code = (
        "from minesweeper_kit import Rules\n"
        "from minesweeper_kit.widgets import Board\n"
        f"Board(Rules({options}), seed={None if seed is None else int(seed)})"
    )
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(code)]
    return nbformat.writes(nb)


def _free_port(host: str) -> int:
    with socket.socket() as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _wait_until_up(url: str, process: subprocess.Popen, stop: threading.Event, timeout: float = 60) -> bool:
    """Wait until Voila answers at `url` (True), or `stop` is set first (False)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"Voila stopped early with exit code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except OSError:
            if stop.wait(0.2):
                return False
    raise RuntimeError(f"Voila did not answer at {url} within {timeout:.0f} s")


def serve(
    rules: Rules,
    *,
    seed: int | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    open_browser: bool = False,
) -> None:
    """Serve one board as a web page on loopback until interrupted."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the board page is served on loopback only, got host {host!r}")
    from .server import server_options  # needs jupyter_server, as Voila does

    text = board_notebook(rules, seed=seed)
    port = port or _free_port(host)
    stop = threading.Event()
    previous = _stop_on_signals(stop)  # from here on Ctrl+C stops the page in order
    try:
        with tempfile.TemporaryDirectory(prefix="mines-web-") as folder:
            notebook = Path(folder) / "board.ipynb"
            notebook.write_text(text)
            env = dict(os.environ, JUPYTER_RUNTIME_DIR=str(Path(folder) / "runtime"))
            process = subprocess.Popen(
                [
                    sys.executable,
                    "-m",
                    "voila",
                    str(notebook),
                    "--no-browser",
                    f"--port={port}",
                    f"--Voila.ip={host}",
                    "--Voila.tornado_settings={'autoreload': False}",
                    "--theme=light",
                    "--show_tracebacks=True",
                    *server_options("Voila"),  # a board's answers sent at once, not held back by Nagle
                ],
                cwd=folder,
                env=env,
                start_new_session=True,
            )
            url = f"http://{host}:{port}/"
            try:
                if _wait_until_up(url, process, stop):
                    print(f"the board is at {url}  (Ctrl+C stops it)", flush=True)
                    if open_browser:
                        webbrowser.open(url)
                while process.poll() is None and not stop.wait(0.5):
                    pass
            except KeyboardInterrupt:  # serve() called off the main thread keeps Python's own Ctrl+C
                pass
            finally:
                _stop_server(process)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def _stop_on_signals(stop: threading.Event) -> dict[int, Any]:
    """Ctrl+C and SIGTERM set `stop` instead of raising inside whatever runs at that moment.

    A KeyboardInterrupt raised inside `Popen.poll` can leave the Popen's wait lock held, and the
    shutdown's `wait` then never returns; a flag read by the loop shuts down in order.
    """
    previous: dict[int, Any] = {}
    if threading.current_thread() is not threading.main_thread():
        return previous
    for number in (signal.SIGINT, signal.SIGTERM):
        previous[number] = signal.signal(number, lambda *_: stop.set())
    return previous


def _stop_server(process: subprocess.Popen) -> None:
    """SIGTERM to Voila's process group, SIGKILL 10 s later if it is still there; every wait bounded."""
    for number in (signal.SIGTERM, signal.SIGKILL):
        if process.poll() is not None:
            return
        with contextlib.suppress(ProcessLookupError):
            os.killpg(process.pid, number)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=10)
