"""The workspace's nbgrader settings and JupyterLab start: the settings file and its cell time
limit, and neither the Validate button nor JupyterLab prints warnings or news a student can do
nothing about.

The Validate button's request goes to the JupyterLab that `mines lab` starts, on a workspace that
build_workspace made (the student versions and the kit's nbgrader_config.py). `nbgrader validate`
on the workspace's notebooks, beside that file, runs in test_workspace.py: no warning, and a bot
within its budget passes although its cell runs past nbgrader's default limit.
"""
import asyncio
import json
import secrets
from pathlib import Path

import nbformat
import pytest

from minesweeper_kit import workspace as ws
from browser.support import run_coroutine
from notebook_tools import NOTEBOOKS, Lab

pytestmark = pytest.mark.nbgrader

WARNINGS = ("without encryption", "No nbgrader_config.py")


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    """A workspace as `mines lab` builds it (the step notebooks and nbgrader_config.py)."""
    folder = tmp_path_factory.mktemp("student") / "workspace"
    ws.build_workspace(folder, NOTEBOOKS, progress=False)
    return folder


# ------------------------------------------------------------------ the settings file


def test_the_workspace_gets_the_settings(student):
    text = (student / ws.CONFIG_NAME).read_text()
    assert text == ws.workspace_config()
    config = {}
    exec(compile(text, ws.CONFIG_NAME, "exec"), {"get_config": lambda: _Sections(config)})
    assert config["Execute"]["timeout"] == ws.CELL_TIMEOUT
    assert config["Execute"]["iopub_timeout"] >= 30 and config["Execute"]["startup_timeout"] >= 120


class _Sections(dict):
    """Enough of traitlets' Config for `c.Section.name = value`, recorded in a plain dict."""

    def __init__(self, record):
        super().__init__()
        self._record = record

    def __getattr__(self, section):
        return _Section(self._record.setdefault(section, {}))


class _Section:
    def __init__(self, values):
        object.__setattr__(self, "values", values)

    def __setattr__(self, name, value):
        self.values[name] = value


def test_the_settings_are_rewritten_only_while_they_are_the_kits(tmp_path):
    target = tmp_path / ws.CONFIG_NAME
    assert ws.write_config(tmp_path) == "written"
    assert ws.write_config(tmp_path) == "unchanged"

    # An older version the kit wrote: its checksum still matches, so it is brought up to date.
    body = "c = get_config()\nc.Execute.timeout = 30\n"
    target.write_text(f"# minesweeper-kit settings, sha256 {ws._digest(body)}\n{body}")
    assert ws.write_config(tmp_path) == "updated"
    assert target.read_text() == ws.workspace_config()

    # The student's edit: the checksum no longer matches, and the file stays as they wrote it.
    mine = target.read_text().replace(f"timeout = {ws.CELL_TIMEOUT}", "timeout = 5000")
    target.write_text(mine)
    assert ws.write_config(tmp_path) == "kept"
    assert target.read_text() == mine

    # A file of the student's own, without the kit's first line.
    target.write_text("c = get_config()\n")
    assert ws.write_config(tmp_path) == "kept"
    assert target.read_text() == "c = get_config()\n"


def test_the_cell_time_limit_covers_the_budgets_the_notebooks_state():
    """The limit is worked out from the notebooks' stated budgets: if one of them changes, so must it."""
    bots = "\n".join(c.source for c in nbformat.read(NOTEBOOKS / "05-bots.ipynb", as_version=4).cells)
    assert "240 seconds of CPU time" in bots and "2.4 seconds per beginner" in bots
    assert ws.SLOWEST_GRADED_CELL >= 240 + 3110 * 2.4 / 81
    stated = {"02-make-board.ipynb": 30, "03-flood-fill.ipynb": 90, "04-nd-dig.ipynb": 100}
    for name, seconds in stated.items():
        text = "\n".join(c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells)
        assert f"{seconds} seconds" in text, f"{name} no longer states {seconds} seconds"
        assert ws.SLOWEST_GRADED_CELL >= seconds
    assert ws.CELL_TIMEOUT >= 2 * ws.SLOWEST_GRADED_CELL


async def run_code(lab: Lab, kernel: str, code: str) -> str:
    """Run ``code`` on a kernel through JupyterLab's websocket, as a notebook does: its stdout."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = f"ws://127.0.0.1:{lab.port}/api/kernels/{kernel}/channels"
    socket = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {lab.token}"}))
    msg_id = secrets.token_hex(8)
    socket.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "", "session": secrets.token_hex(8),
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    printed, replied, idle = "", False, False
    while not (replied and idle):  # the reply (shell) and the outputs (iopub) come in either order
        message = json.loads(await asyncio.wait_for(socket.read_message(), 60))
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed += message["content"]["text"]
        replied = replied or message["msg_type"] == "execute_reply"
        idle = idle or (message["msg_type"] == "status" and message["content"]["execution_state"] == "idle")
    socket.close()
    return printed


@pytest.mark.slow
def test_mines_lab_validates_quietly_without_news(student, tmp_path):
    """The Validate button's request, a notebook's kernel and the news setting, on the JupyterLab
    `mines lab` starts: Validate reads the workspace's settings (no "No nbgrader_config.py"), no
    kernel warns about plain TCP, and the news pop-up is off."""
    lab = Lab(student, tmp_path)
    try:
        lab.wait()
        settings = lab.request("/lab/api/settings/@jupyterlab/apputils-extension:notification")
        assert settings["schema"]["properties"]["fetchNews"]["default"] == "false", settings["schema"]
        assert "fetchNews" not in settings["settings"], settings["settings"]

        result = lab.request("/assignments/validate", {"path": "01-neighbors.ipynb"}, timeout=600)
        assert result["success"], result
        assert "NotImplementedError" in json.dumps(result["value"]), result

        kernel = lab.request("/api/kernels", {"name": "python3"})["id"]
        assert run_coroutine(run_code(lab, kernel, "print(6 * 7)")) == "42\n"
    finally:
        lab.stop()
    printed = lab.output()
    for warning in WARNINGS:
        assert warning not in printed, printed[-4000:]
