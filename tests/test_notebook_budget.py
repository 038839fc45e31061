"""One budget per notebook under `nbgrader autograde`: a looping student costs one limit, not one per cell.

The budget's arithmetic is checked with a clock of the test's own; the course configuration the
release writes is loaded as nbgrader loads it; and a real `nbgrader autograde` of a notebook whose
three graded cells loop for ever shows, in nbclient's own log of each timeout, that together they
were given one budget, where nbgrader's own `Execute` gives each the whole per-cell timeout.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest
from traitlets.config.loader import PyFileConfigLoader

from minesweeper_kit.notebook_budget import BudgetedExecute, CellBudget, autograde_preprocessors
from minesweeper_kit.release import setup_course


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def test_each_cell_gets_what_is_left_of_the_notebooks_budget():
    clock = Clock()
    budget = CellBudget(timeout=180, budget=300, floor=5, clock=clock)
    seen = []
    for spent in (0, 100, 180, 290, 299.5, 300, 5000):
        clock.now = 1000.0 + spent
        seen.append(budget())
    assert seen == [180, 180, 120, 10, 5, 5, 5]


def test_the_release_configuration_runs_autograde_with_the_budget(tmp_path):
    """The course the release builds: nbgrader's own autograde steps, in its order, with the budgeted
    Execute in the place of nbgrader's; 180 s a cell, 300 s a notebook, 5 s a cell after that."""
    from nbgrader.converters import Autograde
    from nbgrader.preprocessors import Execute

    setup_course(tmp_path, assignments=["hypermines"])
    config = PyFileConfigLoader("nbgrader_config.py", path=str(tmp_path)).load_config()
    steps = config.Autograde.autograde_preprocessors
    defaults = Autograde.class_traits()["autograde_preprocessors"].default()
    assert steps == autograde_preprocessors() and len(steps) == len(defaults)
    assert [s for s in steps if s is not BudgetedExecute] == [s for s in defaults if s is not Execute]
    assert steps.index(BudgetedExecute) == defaults.index(Execute) and Execute not in steps
    assert (config.Execute.timeout, config.BudgetedExecute.notebook_timeout, config.BudgetedExecute.spent_timeout) == (
        180, 300, 5)


LOOPING = "while True:\n    pass\n"


@pytest.mark.slow
@pytest.mark.nbgrader
def test_three_looping_cells_share_one_budget_under_nbgrader_autograde(tmp_path):
    """Three graded cells that loop for ever, 20 s a cell and a budget of 2 s for the notebook:
    nbclient logs the timeout it waited for each cell, and together they are one budget and the
    small timeout of each cell after it (2 + 1 + 1 s at most), not 3 x 20 s, nor 3 x 2 s. The loops
    burn CPU until they are stopped, so the budget is small."""
    course = tmp_path / "course"
    (course / "source" / "loop").mkdir(parents=True)
    cells = [nbformat.v4.new_code_cell(LOOPING) for _ in range(3)]
    for number, cell in enumerate(cells):
        cell.metadata["nbgrader"] = {"grade": True, "solution": False, "locked": True, "points": 1,
                                     "grade_id": f"loop-{number}", "schema_version": 3}
    notebook = nbformat.v4.new_notebook(cells=cells)
    notebook.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3", "language": "python"}
    nbformat.write(notebook, course / "source" / "loop" / "loop.ipynb")
    (course / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(course)!r}\n"
        "c.Execute.timeout = 20\n"
        "from minesweeper_kit.notebook_budget import autograde_preprocessors\n"
        "c.Autograde.autograde_preprocessors = autograde_preprocessors()\n"
        "c.BudgetedExecute.notebook_timeout = 2\n"
        "c.BudgetedExecute.spent_timeout = 1\n"
    )
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))

    def nbgrader(*args: str) -> str:
        done = subprocess.run([sys.executable, "-m", "nbgrader", *args], cwd=course, env=env, capture_output=True,
                              text=True, timeout=600)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        return done.stdout + done.stderr

    nbgrader("generate_assignment", "loop")
    (course / "submitted" / "ada" / "loop").mkdir(parents=True)
    (course / "submitted" / "ada" / "loop" / "loop.ipynb").write_bytes(
        (course / "release" / "loop" / "loop.ipynb").read_bytes())
    log = nbgrader("autograde", "loop", "--create")
    waited = [int(s) for s in re.findall(r"Timeout waiting for execute reply \((\d+)s\)", log)]
    assert len(waited) == 3, log[-3000:]
    assert all(1 <= s <= 2 for s in waited) and sum(waited) <= 2 + 1 + 1, waited
    graded = nbformat.read(course / "autograded" / "ada" / "loop" / "loop.ipynb", as_version=4)
    assert all(any(o.get("ename") == "CellTimeoutError" for o in c.outputs) for c in graded.cells)
