"""Run a notebook's visible tests against a source, as a student running the notebook would.

The cells are read from the source notebook: its set-up cells (nbgrader grade ids ``setup-*``),
then the code under test in place of the solution cells, then each visible test cell (graded,
but not the hidden-tests cell), in the notebook's order. Everything runs in a fresh Python
process, in a temporary folder, so a mutant that loops, recurses or changes the interpreter
harms nothing here. A cell that has used ``limit`` seconds of CPU time is stopped and counts as
failed, and so do the cells after it (not run): nbgrader stops a cell after 180 s
(``c.Execute.timeout`` in ``minesweeper_kit/release.py``). CPU time, not the clock, so that a busy
machine does not stop a cell that would pass.

Each visible test's result is None when it passed, else the first line of its error.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat

__all__ = ["NOT_RUN", "TIMED_OUT", "hidden_to_visible", "notebook_path", "run_visible", "visible_cells"]

HIDDEN_TESTS = "hidden-tests"
TIMED_OUT = "stopped: it used up its CPU time"
NOT_RUN = "not run: an earlier cell did not finish"
#: The notebook's table of hidden tests: | name | points | `visible test` |
TABLE_ROW = re.compile(r"^\| (?P<name>.+?) \| (?P<points>\d+(?:\.\d+)?) \| `(?P<visible>\w+)` \|$")

RUNNER = r"""
import json, signal, sys

class CellTimeout(BaseException):
    pass

def on_alarm(signum, frame):
    raise CellTimeout()

signal.signal(signal.SIGPROF, on_alarm)
plan = json.load(sys.stdin)
namespace = {"__name__": "__main__"}
results = {}
stopped = False
for kind, name, source in plan["cells"]:
    if stopped:
        if kind == "test":
            results[name] = plan["not_run"]
        continue
    signal.setitimer(signal.ITIMER_PROF, plan["limit"])
    try:
        exec(compile(source, f"<{name}>", "exec"), namespace)
        error = None
    except CellTimeout:
        error, stopped = plan["timed_out"], True
    except BaseException as caught:
        lines = [line for line in str(caught).splitlines() if line.strip()]
        error = type(caught).__name__ + (": " + lines[0] if lines else "")
    finally:
        signal.setitimer(signal.ITIMER_PROF, 0)
    if kind == "test":
        results[name] = error
    elif error is not None:
        results[f"{kind} {name}"] = error
        if error == plan["timed_out"]:
            stopped = True
sys.stdout.flush()
print("\n" + json.dumps(results))
"""


def notebook_path(assignment: str) -> Path:
    from autograder.assignments import get_assignment

    return get_assignment(assignment).notebook_path


def _meta(cell) -> dict:
    return cell.get("metadata", {}).get("nbgrader", {})


def visible_cells(assignment: str) -> list[tuple[str, str, str]]:
    """``(kind, name, source)`` of the cells to run: "setup" cells, one "code" cell standing for
    the solution cells, and the "test" cells (named by their grade id), in the notebook's order."""
    notebook = nbformat.read(notebook_path(assignment), as_version=4)
    cells: list[tuple[str, str, str]] = []
    for cell in notebook.cells:
        meta = _meta(cell)
        grade_id = meta.get("grade_id", "")
        if cell.cell_type != "code":
            continue
        if meta.get("solution"):
            if not any(kind == "code" for kind, _, _ in cells):
                cells.append(("code", "the code under test", ""))
        elif meta.get("grade") and grade_id != HIDDEN_TESTS:
            cells.append(("test", grade_id, cell.source))
        elif grade_id.startswith("setup"):
            cells.append(("setup", grade_id, cell.source))
    return cells


def run_visible(
    assignment: str, source: str, limit: float = 60.0, replace: dict[str, tuple[str, str]] | None = None
) -> dict[str, str | None]:
    """Each visible test of the assignment's notebook (by grade id): None when it passed on
    ``source``, else why it failed. A set-up cell or the code itself failing is reported under
    ``"setup <id>"`` or ``"code the code under test"``.

    ``replace`` changes the text of cells, by grade id: ``(old, new)``, where ``old`` must occur in
    that cell exactly once (else ValueError, so a notebook that changed is not run unchanged). It
    is how a test that compares with a hidden suite graded with smaller settings runs the visible
    cells at the same size: a 1000x1000 flood costs seconds where 300x300 shows the same failure."""
    cells = [(kind, name, source if kind == "code" else text) for kind, name, text in visible_cells(assignment)]
    cells = _replaced(cells, replace or {})
    tests = [name for kind, name, _ in cells if kind == "test"]
    plan = {"cells": cells, "limit": limit, "timed_out": TIMED_OUT, "not_run": NOT_RUN}
    with tempfile.TemporaryDirectory() as folder:
        done = subprocess.run(
            [sys.executable, "-c", RUNNER],
            input=json.dumps(plan),
            capture_output=True,
            text=True,
            cwd=folder,
            timeout=3 * limit * (len(cells) + 1) + 120,  # a safety net: the limit is CPU time
        )
    if done.returncode != 0 or not done.stdout.strip():
        raise RuntimeError(f"the visible tests of {assignment} did not run: {done.stderr[-3000:]}")
    results = json.loads(done.stdout.strip().splitlines()[-1])
    missing = set(tests) - set(results)
    if missing:
        raise RuntimeError(f"no result for the visible tests {sorted(missing)}")
    return results


def _replaced(cells: list[tuple[str, str, str]], replace: dict[str, tuple[str, str]]) -> list[tuple[str, str, str]]:
    """The cells with each ``(old, new)`` of ``replace`` made in the cell of that grade id."""
    unknown = set(replace) - {name for kind, name, _ in cells if kind != "code"}
    if unknown:
        raise ValueError(f"no cells with the grade ids {sorted(unknown)}")
    changed = []
    for kind, name, text in cells:
        if kind != "code" and name in replace:
            old, new = replace[name]
            if text.count(old) != 1:
                raise ValueError(f"cell {name} holds {old!r} {text.count(old)} times, not once")
            text = text.replace(old, new)
        changed.append((kind, name, text))
    return changed


def hidden_to_visible(assignment: str) -> dict[str, str]:
    """The notebook's own table: each hidden test (by the name the feedback gives it) and the
    visible test that stands for it."""
    notebook = nbformat.read(notebook_path(assignment), as_version=4)
    rows = {}
    for cell in notebook.cells:
        if cell.cell_type != "markdown":
            continue
        for line in cell.source.splitlines():
            match = TABLE_ROW.match(line.strip())
            if match:
                rows[match["name"].replace("\\|", "|")] = match["visible"]
    return rows
