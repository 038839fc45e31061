"""`mines lab` (what `make lab` runs) really starts JupyterLab on the notebooks."""

import contextlib
import json
import os
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from pathlib import Path

from jupyter_port import bound_port, free_port

from minesweeper_kit.widgets.web import token_environment

ROOT = Path(__file__).resolve().parent.parent


@contextlib.contextmanager
def mines_lab(folder: Path, tmp_path: Path) -> Iterator[tuple[dict, str, str]]:
    """`mines lab FOLDER` run from `tmp_path` until the block ends: its listing of the folder (once it
    answers), its address and its token; the start and the stop are the same for every test."""
    token = secrets.token_hex(16)
    server = subprocess.Popen(
        [sys.executable, "-m", "minesweeper_kit.cli", "lab", str(folder), "--no-browser",
         f"--ServerApp.port={free_port()}", "--ServerApp.ip=127.0.0.1"],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, cwd=tmp_path,
        env=token_environment({**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime")},
                              tempfile.mkdtemp(dir=tmp_path), token))

    def printed() -> str:
        server.kill()
        return server.communicate()[0].decode(errors="replace")

    try:
        port = bound_port(tmp_path / "runtime", server, printed)
        listing = None
        deadline = time.monotonic() + 120
        while time.monotonic() < deadline and server.poll() is None:
            try:
                with urllib.request.urlopen(f"http://127.0.0.1:{port}/api/contents?token={token}", timeout=5) as r:
                    listing = json.load(r)
                break
            except OSError:
                time.sleep(0.5)
        if listing is None:
            raise AssertionError("JupyterLab did not answer:\n" + printed()[-3000:])
        yield listing, f"http://127.0.0.1:{port}", token
    finally:
        server.terminate()
        try:
            server.wait(timeout=20)
        except subprocess.TimeoutExpired:
            server.kill()


def test_mines_lab_serves_the_notebooks(tmp_path):
    with mines_lab(ROOT / "notebooks", tmp_path) as (listing, url, token):
        names = {item["name"] for item in listing["content"]}
        assert "04-nd-dig.ipynb" in names
        with urllib.request.urlopen(f"{url}/lab?token={token}", timeout=10) as r:
            assert b"JupyterLab" in r.read()


def test_mines_lab_without_notebooks_says_so(tmp_path):
    result = subprocess.run([sys.executable, "-m", "minesweeper_kit.cli", "lab", str(tmp_path / "nowhere")],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "no notebooks folder" in result.stderr


def test_the_source_notebooks_get_the_workspace_cell_limits_beside_them(tmp_path, monkeypatch):
    """nbgrader's Validate reads nbgrader_config.py where the server runs: `mines lab --source`
    runs it in .lab-source/ beside notebooks/, which holds the workspace's limits, and writes
    nothing into notebooks/."""
    from minesweeper_kit import cli, lab
    from minesweeper_kit.workspace import workspace_config

    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    (notebooks / "01-neighbors.ipynb").write_text("{}")
    started = {}

    def execv(program, argv):
        started.update(cwd=Path.cwd(), argv=argv)
        raise SystemExit(0)

    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("JUPYTER_CONFIG_PATH", "")
    monkeypatch.setattr(lab, "stop_on_sigterm", lambda: None)
    monkeypatch.setattr(lab.os, "execv", execv)
    try:
        cli.main(["lab", "--source", "--no-browser"])
    except SystemExit:
        pass
    assert started["cwd"] == tmp_path / ".lab-source"
    assert f"--ServerApp.root_dir={notebooks.resolve()}" in started["argv"]
    assert (tmp_path / ".lab-source" / "nbgrader_config.py").read_text() == workspace_config()
    assert sorted(p.name for p in notebooks.iterdir()) == ["01-neighbors.ipynb"]


def test_unknown_options_are_refused_outside_lab():
    result = subprocess.run([sys.executable, "-m", "minesweeper_kit.cli", "play", "--nonsense"],
                            capture_output=True, text=True, timeout=60)
    assert result.returncode == 2 and "unrecognized arguments: --nonsense" in result.stderr


def test_a_module_in_the_opened_folder_does_not_replace_the_servers(tmp_path):
    """JupyterLab runs in the folder it opens (nbgrader's Validate reads its nbgrader_config.py
    there), yet a student's file named like a module of the server is not imported by it."""
    folder = tmp_path / "mine"
    folder.mkdir()
    (folder / "tornado.py").write_text("raise SystemExit('the workspace shadowed tornado')\n")
    with mines_lab(folder, tmp_path) as (listing, _, _):
        assert [item["name"] for item in listing["content"]] == ["tornado.py"]
