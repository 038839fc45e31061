"""Shared helpers for the notebook tests: where the notebooks are, how to run one cell by cell, and
the JupyterLab `mines lab` starts."""
from __future__ import annotations

import json
import os
import re
import secrets
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

import nbformat
from jupyter_port import bound_port, free_port
from nbclient import NotebookClient

from minesweeper_kit.widgets.web import token_environment

REPO = Path(__file__).resolve().parents[2]
NOTEBOOKS = REPO / "notebooks"

# Notebook file -> autograder assignment id (docs/assignments.md); 00-play is not graded.
ASSIGNMENTS = {
    "00-play.ipynb": "play",
    "01-neighbors.ipynb": "neighbors",
    "02-make-board.ipynb": "make-board",
    "03-flood-fill.ipynb": "flood-fill",
    "04-nd-dig.ipynb": "hypermines",
    "05-bots.ipynb": "bots",
}
GRADED = {name: assignment for name, assignment in ASSIGNMENTS.items() if assignment != "play"}


@dataclass
class CellError:
    index: int
    cell_id: str
    ename: str
    evalue: str
    source: str


#: The grade id of each graded step's last cell: nbgrader's "autograder tests" cell that stands for
#: the hidden tests (autograder/gradebook.py records the grader's score there).
HIDDEN_TESTS = "hidden-tests"


def nbgrader_meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def is_visible_test(cell) -> bool:
    """A graded cell of the notebook's visible tests (every graded cell but the hidden-tests one)."""
    meta = nbgrader_meta(cell)
    return bool(meta.get("grade")) and meta.get("grade_id") != HIDDEN_TESTS


def execute(path: Path, timeout: int = 300) -> tuple[nbformat.NotebookNode, list[CellError]]:
    """Run every cell in order, carrying on after errors; return the notebook and each cell's error."""
    nb = nbformat.read(path, as_version=4)
    client = NotebookClient(
        nb,
        timeout=timeout,
        kernel_name="python3",
        allow_errors=True,
        resources={"metadata": {"path": str(path.parent)}},
    )
    client.execute()
    return nb, errors_in(nb)


def errors_in(nb: nbformat.NotebookNode) -> list[CellError]:
    """Each error an executed notebook's cells show, in order."""
    errors = []
    for index, cell in enumerate(nb.cells):
        if cell.cell_type != "code":
            continue
        for output in cell.get("outputs", []):
            if output.output_type == "error":
                errors.append(CellError(index, cell.get("id", ""), output.ename, output.evalue, cell.source))
    return errors


def describe(errors: list[CellError]) -> str:
    return "\n".join(f"cell {e.index} ({e.cell_id}): {e.ename}: {e.evalue}\n{e.source[:300]}" for e in errors)


# ---------------------------------------------------------------- exercises and submissions

SOLUTION_REGION = re.compile(r"^([ \t]*)### BEGIN SOLUTION\n.*?^[ \t]*### END SOLUTION[ \t]*$", re.S | re.M)
#: The student id of each assignment's complete submission (the source notebook as it is).
COMPLETE = "complete"


def unwritten(source: str) -> str:
    """The cell as a student who wrote nothing leaves it: each solution region a NotImplementedError."""
    return SOLUTION_REGION.sub(lambda m: f"{m.group(1)}raise NotImplementedError()", source)


def exercises(nb) -> list[str]:
    return [c.id for c in nb.cells if nbgrader_meta(c).get("solution")]


def visible_tests_after(nb, exercise: str) -> list[str]:
    """The grade ids of the visible tests that follow an exercise, up to the next exercise."""
    ids, seen = [], False
    for cell in nb.cells:
        meta = nbgrader_meta(cell)
        if cell.id == exercise:
            seen = True
        elif seen and meta.get("solution"):
            break
        elif seen and is_visible_test(cell):
            ids.append(meta["grade_id"])
    return ids


#: The cell of the students' own tests: an exercise no visible test follows (the kit grades it).
OWN_TESTS = "own-tests"
#: The own-tests cell as a student who wrote no tests hands it in: nothing for its check to run.
NO_OWN_TESTS = "# YOUR CODE HERE\n"


def exercises_with_visible_tests(nb) -> list[str]:
    """The exercises that visible tests follow: every exercise but the own-tests cell."""
    return [exercise for exercise in exercises(nb) if visible_tests_after(nb, exercise)]


# ------------------------------------------------------------------ JupyterLab, as `mines lab` starts it


class Lab:
    """`mines lab --workspace FOLDER` in a subprocess: the build, then the JupyterLab it starts.

    Its runtime, configuration and settings are under ``root``, none of the user's, and its output
    goes to ``root / "lab.log"``: a file, which a talkative server cannot fill as it can a pipe. It
    runs in a session of its own, so stopping it stops its kernels too."""

    def __init__(self, folder: Path, root: Path):
        self.token = secrets.token_hex(16)
        self.runtime = root / "runtime"
        self.log = root / "lab.log"
        env = {**os.environ, "JUPYTER_RUNTIME_DIR": str(self.runtime),
               "JUPYTER_CONFIG_DIR": str(root / "config"), "JUPYTERLAB_SETTINGS_DIR": str(root / "settings"),
               "JUPYTERLAB_WORKSPACES_DIR": str(root / "lab-workspaces")}
        env.pop("JUPYTER_CONFIG_PATH", None)
        with open(self.log, "wb") as log:
            self.process = subprocess.Popen(
                [sys.executable, "-m", "minesweeper_kit.cli", "lab", "--workspace", str(folder), "--no-browser",
                 f"--ServerApp.port={free_port()}", "--ServerApp.ip=127.0.0.1"],
                cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True,
                env=token_environment(env, tempfile.mkdtemp(dir=root), self.token))

    def fetch(self, path: str, data: dict | None = None, timeout: float = 30) -> tuple[int, bytes]:
        """The status and body of a request (a POST of ``data`` as JSON when given); HTTPError on 4xx/5xx."""
        body = None if data is None else json.dumps(data).encode()
        request = urllib.request.Request(f"{self.url}{path}", data=body,
                                         headers={"Authorization": f"token {self.token}"})
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.read()

    def request(self, path: str, data: dict | None = None, timeout: float = 30):
        """The JSON the server answers."""
        return json.loads(self.fetch(path, data, timeout)[1])

    def wait(self, timeout: float = 600) -> None:
        """Until JupyterLab answers; if it never does, stop it and fail with what it printed."""
        deadline = time.monotonic() + timeout
        self.port = bound_port(self.runtime, self.process, self.output, timeout)
        self.url = f"http://127.0.0.1:{self.port}"
        while time.monotonic() < deadline and self.process.poll() is None:
            try:
                self.fetch("/api/status", timeout=5)
                return
            except OSError:
                time.sleep(0.5)
        raise AssertionError("mines lab did not start JupyterLab:\n" + self.output()[-4000:])

    def stop(self) -> None:
        if self.process.poll() is None:
            os.killpg(self.process.pid, 15)
            try:
                self.process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, 9)
                self.process.wait()

    def output(self) -> str:
        """All it printed: it is stopped first, so nothing more comes."""
        self.stop()
        return self.log.read_text(errors="replace")
