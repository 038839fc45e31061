"""The workspace's nbgrader settings and JupyterLab start: Validate agrees with the grader on time,
and neither Validate nor JupyterLab prints warnings or news a student can do nothing about.

Validate runs as a student runs it: `nbgrader validate` in a workspace that build_workspace made
(the student versions and the kit's nbgrader_config.py), and the Validate button's request to the
JupyterLab that `mines lab` starts.
"""
import asyncio
import json
import re
import secrets
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from minesweeper_kit import workspace as ws
from browser.support import run_coroutine
from notebook_tools import NOTEBOOKS, Lab, nbgrader_meta

pytestmark = pytest.mark.nbgrader

WARNINGS = ("without encryption", "No nbgrader_config.py")


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    """A workspace as `mines lab` builds it (the step notebooks and nbgrader_config.py)."""
    folder = tmp_path_factory.mktemp("student") / "workspace"
    ws.build_workspace(folder, NOTEBOOKS, progress=False)
    return folder


def validate(folder: Path, *names: str, timeout: float = 3600) -> str:
    """`nbgrader validate` run in ``folder`` as a student runs it there: its whole output."""
    done = subprocess.run([sys.executable, "-m", "nbgrader", "validate", *names], cwd=folder,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
    return done.stdout


def solved(folder: Path, name: str) -> nbformat.NotebookNode:
    """The workspace's notebook with each solution cell written as the source's solution."""
    answers = {c.id: c.source for c in nbformat.read(NOTEBOOKS / name, as_version=4).cells
               if nbgrader_meta(c).get("solution")}
    nb = nbformat.read(folder / name, as_version=4)
    for cell in nb.cells:
        if cell.id in answers:
            cell.source = re.sub(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", "", answers[cell.id], flags=re.M)
    return nb


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


# ------------------------------------------------------------------ nbgrader validate


def test_validate_prints_no_warning(student, tmp_path):
    folder = tmp_path / "workspace"
    folder.mkdir()
    for name in ("01-neighbors.ipynb", ws.CONFIG_NAME):
        (folder / name).write_bytes((student / name).read_bytes())
    out = validate(folder, "01-neighbors.ipynb", timeout=600)
    assert "VALIDATION FAILED" in out and "NotImplementedError" in out, out[-3000:]
    for warning in WARNINGS:
        assert warning not in out, out[-3000:]


# The bot of the reference solution, made to sleep 20 ms on each move until it has spent 45 s of the
# clock in all, then as fast as the reference: the first visible test's 100 beginner games take those
# 45 s, half as much again as nbgrader's default of 30 s for a cell, so that cell runs past the
# default. nbgrader's limit for a cell is of the clock, which a sleep runs past as surely as work;
# the notebook's own visible test measures the bot's CPU time against its 240 s budget, and a sleep
# spends none of it, so the case costs the machine next to nothing. It records the clock time it
# spent in a file.
SLOW_BOT = """

import json as _json
import time as _time

_fast_move = next_move
_spent = {"moves": 0, "wall": 0.0}


def next_move(view):
    if _spent["wall"] >= 45:
        return _fast_move(view)
    start = _time.monotonic()
    _time.sleep(0.020)
    move = _fast_move(view)
    _spent["moves"] += 1
    _spent["wall"] += _time.monotonic() - start
    with open("bot-time.json", "w") as out:
        _json.dump(_spent, out)
    return move
"""


@pytest.mark.slow
def test_validate_passes_a_bot_within_the_budget(student, tmp_path):
    """The issue's case: with nbgrader's default limit, five cells failed and Validate said the bot
    would not get full credit, while the grader gave it 10/10."""
    name = "05-bots.ipynb"
    folder = tmp_path / "workspace"
    folder.mkdir()
    (folder / ws.CONFIG_NAME).write_bytes((student / ws.CONFIG_NAME).read_bytes())
    nb = solved(student, name)
    cell = next(c for c in nb.cells if nbgrader_meta(c).get("solution"))
    cell.source += SLOW_BOT
    nbformat.write(nb, folder / name)

    out = validate(folder, name)
    assert "Success! Your notebook passes all the tests." in out, out[-4000:]
    for warning in WARNINGS:
        assert warning not in out, out[-3000:]
    spent = json.loads((folder / "bot-time.json").read_text())
    assert spent["wall"] >= 0.020 * spent["moves"] and spent["wall"] >= 45, spent


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
