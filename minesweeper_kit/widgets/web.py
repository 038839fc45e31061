"""A board as a page of its own: Voila renders a one-cell notebook holding the widget.

``serve`` writes that notebook into a temporary folder, starts Voila on loopback and blocks until
interrupted (Ctrl+C), then stops Voila and removes the folder. The page shows only the board: no
code, no notebook chrome.

The page and its kernel's websocket need a token, as ``mines lab``'s JupyterLab does: anyone else
on a shared machine can reach a loopback port, and a kernel runs any code it is sent. The token is
made here with :mod:`secrets` and reaches Voila through a file only its user can read, named in
``JUPYTER_TOKEN_FILE`` (jupyter_server reads it once, at start), never on a command line, which
every user can read in ``/proc``. It is shown only in the address printed for the user, and the
browser is opened on a file that redirects there, as jupyter_server does for JupyterLab.
"""

from __future__ import annotations

import contextlib
import html
import http.client
import os
import secrets
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


# A port found free can be taken before Voila binds it (a kernel's ZeroMQ sockets take ports the same
# way); Voila is told to take no other, so the address printed is the one it serves, and a port of
# our own choosing that was lost is chosen again this many times.
_PORT_ATTEMPTS = 5


def _family(host: str) -> socket.AddressFamily:
    return socket.AF_INET6 if ":" in host else socket.AF_INET


def _free_port(host: str) -> int:
    with socket.socket(_family(host)) as s:
        s.bind((host, 0))
        return s.getsockname()[1]


def _port_taken(host: str, port: int) -> bool:
    """Whether something listens on `port` now (a port in TIME_WAIT only is free)."""
    with socket.socket(_family(host)) as s:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            s.bind((host, port))
        except OSError:
            return True
    return False


class _VoilaStopped(RuntimeError):
    """Voila ended before it answered."""


def _wait_until_up(url: str, process: subprocess.Popen, stop: threading.Event, timeout: float = 60) -> bool:
    """Wait until Voila answers at `url` (True), or `stop` is set first (False). `url` is best a page
    that starts no kernel (the login page): every visit of the board's page starts one."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise _VoilaStopped(f"Voila stopped early with exit code {process.returncode}")
        try:
            with urllib.request.urlopen(url, timeout=2):
                return True
        except (OSError, http.client.HTTPException):  # not listening yet, or not Voila (yet) on that port
            if stop.wait(0.2):
                return False
    raise RuntimeError(f"Voila did not answer at {url} within {timeout:.0f} s")


def _start_voila(notebook: Path, host: str, port: int, env: dict[str, str]) -> subprocess.Popen:
    from .server import server_options  # needs jupyter_server, as Voila does

    return subprocess.Popen(
        [
            sys.executable,
            "-m",
            "voila",
            str(notebook),
            "--no-browser",
            f"--port={port}",
            "--Voila.port_retries=0",  # this port or none: the address printed must be the one served
            f"--Voila.ip={host}",
            "--Voila.auto_token=True",  # a token is required; it comes from JUPYTER_TOKEN_FILE
            "--Voila.tornado_settings={'autoreload': False}",
            "--theme=light",
            "--show_tracebacks=True",
            *server_options("Voila"),  # a board's answers sent at once, not held back by Nagle
        ],
        cwd=notebook.parent,
        env=env,
        start_new_session=True,
    )


def serve(
    rules: Rules,
    *,
    seed: int | None = None,
    host: str = "127.0.0.1",
    port: int = 0,
    open_browser: bool = False,
) -> None:
    """Serve one board as a web page on loopback until interrupted; `port` 0 picks a free one."""
    if host not in ("127.0.0.1", "localhost", "::1"):
        raise ValueError(f"the board page is served on loopback only, got host {host!r}")
    text = board_notebook(rules, seed=seed)
    stop = threading.Event()
    previous = _stop_on_signals(stop)  # from here on Ctrl+C stops the page in order
    try:
        with tempfile.TemporaryDirectory(prefix="mines-web-") as folder:
            notebook = Path(folder) / "board.ipynb"
            notebook.write_text(text)
            token = secrets.token_hex(24)
            env = token_environment(dict(os.environ, JUPYTER_RUNTIME_DIR=str(Path(folder) / "runtime")), folder, token)
            for attempt in range(1, _PORT_ATTEMPTS + 1):
                chosen = port or _free_port(host)
                process = _start_voila(notebook, host, chosen, env)
                base = f"http://{'[::1]' if host == '::1' else host}:{chosen}/"
                url = f"{base}?token={token}"
                try:
                    try:
                        up = _wait_until_up(base + "login", process, stop)
                    except _VoilaStopped:
                        if not _port_taken(host, chosen):
                            raise
                        if port:
                            raise RuntimeError(f"port {port} on {host} is in use: give another, or none") from None
                        if attempt == _PORT_ATTEMPTS:
                            raise
                        continue  # the port picked for it was taken first: pick another
                    if up:
                        print(f"the board is at {url}  (Ctrl+C stops it)", flush=True)
                        if open_browser:
                            webbrowser.open(_redirect_file(Path(folder), url).as_uri())
                    while process.poll() is None and not stop.wait(0.5):
                        pass
                    break
                except KeyboardInterrupt:  # serve() called off the main thread keeps Python's own Ctrl+C
                    break
                finally:
                    _stop_server(process)
    finally:
        for number, handler in previous.items():
            signal.signal(number, handler)


def token_environment(env: dict[str, str], folder: str | Path, token: str) -> dict[str, str]:
    """``env`` for a Jupyter server (Voila, JupyterLab) that must require ``token``: the token
    written to ``folder/token`` (readable by its owner only; ``folder`` should be private) and named
    in ``JUPYTER_TOKEN_FILE``, so it never appears on a command line. A ``JUPYTER_TOKEN`` inherited
    from the caller would take precedence over the file, so it is dropped."""
    path = Path(folder) / "token"
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(token)  # read as it is: no newline
    env = {key: value for key, value in env.items() if key != "JUPYTER_TOKEN"}
    env["JUPYTER_TOKEN_FILE"] = str(path)
    return env


def _redirect_file(folder: Path, url: str) -> Path:
    """A page (its owner's only) that sends the browser on to ``url``: the browser is started with
    this file's path, so the token in ``url`` is on no command line."""
    path = folder / "open.html"
    quoted = html.escape(url, quote=True)
    descriptor = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600)
    with os.fdopen(descriptor, "w") as handle:
        handle.write(
            f'<!DOCTYPE html><html><head><meta charset="utf-8"><meta http-equiv="refresh" content="0;url={quoted}">'
            f'</head><body><p>The board is at <a href="{quoted}">{quoted}</a>.</p></body></html>\n'
        )
    return path


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
