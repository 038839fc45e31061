"""Where a Jupyter server the tests started really listens.

A port found free beforehand can be taken before the server binds it: by a kernel of a test running
beside this one, whose ZeroMQ sockets take ports the same way. The server then moves on to another
port (its `port_retries`), and a test still knocking at the first one talks to that kernel instead
(`BadStatusLine` on ZeroMQ's greeting). Only the server's own info file, `jpserver-PID.json` in its
runtime folder, names the port it took; the tests read it there."""

from __future__ import annotations

import contextlib
import json
import socket
import subprocess
import time
from collections.abc import Callable
from pathlib import Path


def free_port() -> int:
    """A port free now: a starting point for the server, not a promise (see the module's docstring)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def bound_port(runtime: Path, process: subprocess.Popen, printed: Callable[[], str], timeout: float = 120) -> int:
    """The port of the one server whose runtime folder is ``runtime`` (a folder of the test's own),
    once it has written its info file; fails with what it ``printed`` if it exits or never does."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise AssertionError(f"the Jupyter server exited ({process.returncode}):\n{printed()[-4000:]}")
        for info in sorted(runtime.glob("jpserver-*.json")):
            with contextlib.suppress(OSError, ValueError, KeyError, TypeError):  # half written: read it again
                return int(json.loads(info.read_text())["port"])
        time.sleep(0.2)
    raise AssertionError(f"the Jupyter server wrote no info file in {timeout:.0f} s:\n{printed()[-4000:]}")
