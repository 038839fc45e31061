"""The board in Jupyter Notebook 7 (`jupyter notebook`), the other front end students may open.

Notebook 7 is built from JupyterLab's parts, so the same helpers run its cells; its own server is
started here, once for this module, next to the session's JupyterLab. Its page is loaded here from
scratch, in a context of its own: while JupyterLab is loaded once per session and each test opens
its notebook in the running app (support.py), this test loads a whole front end's app for its
notebook, as a student's browser does.
"""

from __future__ import annotations

import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from jupyter_port import bound_port, free_port

from minesweeper_kit.shutdown import dies_with_this_process
from minesweeper_kit.widgets.web import token_environment

from .support import Notebook, act, board_locator, wait_for_kernel

pytestmark = pytest.mark.browser

CELLS = ["""\
import json
import tempfile
from minesweeper_kit.widgets import Board
board = Board((9, 9), 10, seed=3)
board""", """\
cube = Board((3, 6, 6), 6, seed=4)
cube""", """\
print(json.dumps({"digs": board.digs, "revealed": board.game.revealed_count, "state": board.game.state,
                  "marks": board.game.marks.tolist(), "cube_revealed": cube.game.revealed_count}))"""]


class NotebookServer:
    """A Jupyter Notebook 7 server on loopback, with a token, in a folder of its own."""

    def __init__(self, root: Path) -> None:
        self.root = root / "notebooks"
        self.root.mkdir()
        self.token = secrets.token_hex(16)
        self.log = open(root / "notebook.log", "w")
        env = dict(os.environ, JUPYTER_CONFIG_DIR=str(root / ".config"), JUPYTER_RUNTIME_DIR=str(root / ".runtime"))
        self.process = subprocess.Popen(
            [sys.executable, "-m", "notebook", "--no-browser", "--ip=127.0.0.1", f"--port={free_port()}",
             f"--ServerApp.root_dir={self.root}", "--allow-root"],
            stdout=self.log, stderr=subprocess.STDOUT, env=token_environment(env, tempfile.mkdtemp(dir=root), self.token),
            start_new_session=True,
            preexec_fn=dies_with_this_process())  # as the session's JupyterLab (support.Lab)
        try:
            self._wait_ready(root)
        except BaseException:  # a fixture that fails to start is never torn down: stop it here
            self.stop()
            raise

    def _wait_ready(self, root: Path) -> None:
        deadline = time.monotonic() + 90
        self.port = bound_port(root / ".runtime", self.process, (root / "notebook.log").read_text, 90)
        self.url = f"http://127.0.0.1:{self.port}"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"Jupyter Notebook exited: {(root / 'notebook.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("Jupyter Notebook did not answer within 90 s")

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, 15)
            self.process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
        self.log.close()


@pytest.fixture(scope="module")
def notebook7(tmp_path_factory):
    server = NotebookServer(tmp_path_factory.mktemp("notebook7"))
    yield server
    server.stop()


def test_boards_play_in_notebook_7(page, notebook7):
    name = "notebook7.ipynb"
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nb.cells = [nbformat.v4.new_code_cell(source) for source in CELLS]
    nbformat.write(nb, notebook7.root / name)
    page.goto(f"{notebook7.url}/notebooks/{name}?token={notebook7.token}")
    wait_for_kernel(page)  # Notebook 7 shows the kernel's name and state as JupyterLab does
    assert page.locator("#main-panel, .jp-LabShell").count() > 0
    assert "/notebooks/" in page.url  # Notebook 7's own page, not JupyterLab's /lab
    notebook = Notebook(page, "notebook7")
    notebook.run_all(2)
    board = board_locator(page, 0)
    board.locator("canvas").wait_for()
    notebook.shot("fresh")
    assert board.get_attribute("data-view").split("/") == ["#" * 9] * 9

    act(page, board, 4, 4)                   # a left click digs
    rows = board.get_attribute("data-view").split("/")
    assert rows[4][4] != "#"
    covered = next((r, c) for r, row in enumerate(rows) for c, face in enumerate(row) if face == "#")
    act(page, board, *covered, button="right")   # a right click flags a covered cell
    notebook.shot("played")
    python = notebook.probe(2)
    assert python["digs"] == 1 and python["revealed"] > 0 and python["state"] == "ongoing"
    assert python["marks"][covered[0]][covered[1]] == 1, covered
    assert board.locator(".msk-mines-left").text_content() == "009"

    cube = board_locator(page, 1)
    cube.locator("canvas").wait_for()
    act(page, cube, 2, 2)
    notebook.shot("cube")
    assert notebook.probe(2)["cube_revealed"] > 0
    assert cube.locator("input[type=range]").count() == 1  # the slice slider of a 3-D board
