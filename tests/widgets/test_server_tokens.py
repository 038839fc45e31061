"""Tokens on a shared machine: every Jupyter server the kit or its tests start requires one, and
no command line carries it (any user of the machine reads every process's in /proc).

`mines play --web` refuses a page or a kernel websocket without its token and serves them with it;
the browser tests' JupyterLab and `mines lab` keep their tokens off the command lines of the server
and of every process it starts (its kernels)."""

from __future__ import annotations

import asyncio
import contextlib
import http.client
import json
import os
import re
import select
import signal
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import pytest
from browser.support import run_coroutine
from jupyter_port import free_port

from minesweeper_kit.shutdown import dies_with_this_process
from minesweeper_kit.widgets.web import _redirect_file, token_environment


# ---------------------------------------------------------------------------- processes
def process_tree(root: int) -> list[int]:
    """``root`` and every process descended from it, as /proc shows them now."""
    parents: dict[int, int] = {}
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            with contextlib.suppress(OSError, IndexError, ValueError):
                parents[int(entry.name)] = int((entry / "stat").read_text().rsplit(")", 1)[1].split()[1])
    found, frontier = [root], [root]
    while frontier:
        children = [pid for pid, parent in parents.items() if parent in frontier]
        found += children
        frontier = children
    return found


def command_line(pid: int) -> str:
    try:
        return (Path("/proc") / str(pid) / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def command_lines_holding(text: str) -> list[str]:
    """Every process on the machine whose command line holds ``text`` (this test's own aside)."""
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and int(entry.name) != os.getpid():
            line = command_line(int(entry.name))
            if text in line:
                found.append(f"{entry.name}: {line[:200]}")
    return found


def assert_token_on_no_command_line(server: int, token: str, kernels: int) -> None:
    """The server, its kernels (at least ``kernels`` processes below it) and every other process
    on the machine show command lines without ``token``."""
    tree = process_tree(server)
    assert len(tree) >= 1 + kernels, f"expected the server and {kernels} kernel(s) below it: {tree}"
    lines = {pid: command_line(pid) for pid in tree}
    assert not [line for line in lines.values() if token in line], lines
    assert not command_lines_holding(token)


def _status(port: int, path: str, headers: dict[str, str] | None = None) -> tuple[int, str]:
    """The status and Location of one GET, redirects not followed."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=60)
    try:
        connection.request("GET", path, headers=headers or {})
        response = connection.getresponse()
        body = response.read()
        return response.status, response.getheader("Location") or body.decode(errors="replace")
    finally:
        connection.close()


def _websocket_status(url: str) -> int:
    """101 when a websocket to ``url`` opens, else the HTTP status the server refused it with."""
    from tornado.httpclient import HTTPClientError
    from tornado.websocket import websocket_connect

    async def attempt() -> int:
        try:
            connection = await asyncio.wait_for(websocket_connect(url), 60)
        except HTTPClientError as error:
            return error.code
        connection.close()
        return 101

    return run_coroutine(attempt())


def _stop(process: subprocess.Popen, number: int = signal.SIGINT) -> int | None:
    if process.poll() is None:
        process.send_signal(number)
    try:
        return process.wait(timeout=60)
    except subprocess.TimeoutExpired:
        process.kill()
        return process.wait(timeout=30)


# ---------------------------------------------------------------------------- the helper
def test_the_token_goes_into_a_private_file_and_an_inherited_one_is_dropped(tmp_path):
    env = token_environment({"JUPYTER_TOKEN": "inherited", "PATH": "/bin"}, tmp_path, "abc123")
    assert env == {"PATH": "/bin", "JUPYTER_TOKEN_FILE": str(tmp_path / "token")}
    assert (tmp_path / "token").read_text() == "abc123"  # read as it is: no newline
    assert stat.S_IMODE((tmp_path / "token").stat().st_mode) == 0o600
    with pytest.raises(FileExistsError):  # never written through a file or link already there
        token_environment({}, tmp_path, "other")


def test_the_browser_is_opened_on_a_private_page_that_redirects(tmp_path):
    """`mines play --web` starts the browser with this page's path, not the address holding the token."""
    url = "http://127.0.0.1:8888/?token=abc&x=<1>"
    page = _redirect_file(tmp_path, url)
    assert stat.S_IMODE(page.stat().st_mode) == 0o600
    text = page.read_text()
    assert 'content="0;url=http://127.0.0.1:8888/?token=abc&amp;x=&lt;1&gt;"' in text and "<1>" not in text
    assert page.as_uri().startswith("file://") and "abc" not in page.as_uri()


# ---------------------------------------------------------------------------- mines play --web
@pytest.fixture
def board_page():
    """`mines play --web` on loopback, a free port: its process, port and the address it printed."""
    env = {key: value for key, value in os.environ.items() if key not in ("JUPYTER_TOKEN", "JUPYTER_TOKEN_FILE")}
    process = subprocess.Popen(
        [sys.executable, "-m", "minesweeper_kit.cli", "play", "--web", "--no-browser", "--host", "127.0.0.1",
         "--shape", "5x5", "--mines", "3", "--seed", "2"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=env, preexec_fn=dies_with_this_process())
    try:
        deadline, line = time.monotonic() + 120, ""
        while time.monotonic() < deadline and process.poll() is None and not line:
            if select.select([process.stdout], [], [], 1)[0]:
                line = process.stdout.readline()
        match = re.search(r"http://127\.0\.0\.1:(\d+)/\?token=([0-9a-f]+)", line)
        assert match, f"mines play --web did not print its address with a token: {line!r}"
        yield process, int(match.group(1)), match.group(2)
    finally:
        code = _stop(process)
    assert code == 0, f"mines play --web did not end cleanly on Ctrl+C (exit code {code})"


def test_play_web_refuses_the_page_and_the_kernel_without_its_token(board_page):
    process, port, token = board_page
    for path, headers in (("/", {}), ("/?token=0123456789abcdef", {}), ("/", {"Authorization": "token wrong"})):
        status, where = _status(port, path, headers)
        assert status == 302 and "/login?" in where, (path, status, where)
    status, page = _status(port, f"/?token={token}")
    assert status == 200 and "application/vnd.jupyter.widget-view+json" in page, page[:2000]  # the board
    kernel = re.search(r'"kernelId": "([0-9a-f-]{36})"', page)
    assert kernel, f"the page names no kernel: {page[:2000]}"
    channels = f"ws://127.0.0.1:{port}/api/kernels/{kernel.group(1)}/channels"
    assert _websocket_status(channels) == 403
    assert _websocket_status(channels + "?token=wrong") == 403
    assert _websocket_status(f"{channels}?token={token}") == 101
    assert_token_on_no_command_line(process.pid, token, kernels=1)


# ---------------------------------------------------------------------------- JupyterLab
def _start_kernel(url: str, token: str) -> str:
    request = urllib.request.Request(f"{url}/api/kernels", data=json.dumps({"name": "python3"}).encode(),
                                     headers={"Authorization": f"token {token}", "Content-Type": "application/json"})
    with urllib.request.urlopen(request, timeout=120) as response:
        return json.load(response)["id"]


def _stop_kernel(url: str, token: str, kernel: str) -> None:
    request = urllib.request.Request(f"{url}/api/kernels/{kernel}", method="DELETE",
                                     headers={"Authorization": f"token {token}"})
    with contextlib.suppress(OSError), urllib.request.urlopen(request, timeout=60):
        pass


def _wait_for_children(pid: int, count: int, timeout: float = 60) -> None:
    deadline = time.monotonic() + timeout
    while len(process_tree(pid)) < 1 + count and time.monotonic() < deadline:
        time.sleep(0.2)


def test_the_browser_tests_lab_has_its_token_on_no_command_line(lab):
    assert _status(lab.port, "/api/contents")[0] == 403
    assert _status(lab.port, f"/api/contents?token={lab.token}")[0] == 200
    kernel = _start_kernel(lab.url, lab.token)
    try:
        _wait_for_children(lab.process.pid, 1)
        assert_token_on_no_command_line(lab.process.pid, lab.token, kernels=1)
    finally:
        _stop_kernel(lab.url, lab.token, kernel)


def test_mines_lab_has_its_token_on_no_command_line(tmp_path):
    """`mines lab` leaves the token to JupyterLab, which makes one and prints it; neither puts it on
    a command line (the server's own or its kernels')."""
    runtime = tmp_path / "runtime"
    (tmp_path / "notebooks").mkdir()
    env = {key: value for key, value in os.environ.items() if key not in ("JUPYTER_TOKEN", "JUPYTER_TOKEN_FILE")}
    env.update(JUPYTER_RUNTIME_DIR=str(runtime), JUPYTER_CONFIG_DIR=str(tmp_path / "config"))
    server = subprocess.Popen(
        [sys.executable, "-m", "minesweeper_kit.cli", "lab", str(tmp_path / "notebooks"), "--no-browser",
         f"--ServerApp.port={free_port()}", "--ServerApp.ip=127.0.0.1"],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, cwd=tmp_path, env=env, start_new_session=True,
        preexec_fn=dies_with_this_process())
    try:
        info, deadline = None, time.monotonic() + 120
        while info is None and time.monotonic() < deadline and server.poll() is None:
            files = sorted(runtime.glob("jpserver-*.json"))
            if files:
                with contextlib.suppress(ValueError):
                    info = json.loads(files[0].read_text())
            time.sleep(0.3)
        assert info is not None, "mines lab did not start JupyterLab"
        token, port = info["token"], info["port"]  # the port it took, maybe not the one it was offered
        assert len(token) >= 32
        url = f"http://127.0.0.1:{port}"
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            with contextlib.suppress(OSError):  # written before the server listens
                if _status(port, f"/api/status?token={token}")[0] == 200:
                    break
            time.sleep(0.3)
        assert _status(port, "/api/contents")[0] == 403
        kernel = _start_kernel(url, token)
        try:
            _wait_for_children(server.pid, 1)
            assert_token_on_no_command_line(server.pid, token, kernels=1)
        finally:
            _stop_kernel(url, token, kernel)
    finally:
        _stop(server, signal.SIGTERM)
