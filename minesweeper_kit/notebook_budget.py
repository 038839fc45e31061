"""One time budget for a whole notebook under ``nbgrader autograde``, not one per cell.

nbgrader runs a notebook with its ``Execute`` preprocessor (nbclient underneath), which gives every
cell its own timeout and, with ``interrupt_on_timeout``, interrupts a cell that runs past it and goes
on to the next. A student's function that loops for ever is called by every visible test of its
step, so each of those cells runs to the timeout: eight such cells at 180 s are 24 minutes for one
student. :class:`BudgetedExecute` keeps nbgrader's preprocessor and its settings and adds a budget
for the whole notebook: a cell may still run up to the per-cell ``timeout``, but never past what is
left of ``notebook_timeout``; once that is spent, each later cell gets ``spent_timeout`` seconds, enough
for a cell that does not call the looping code, so a looping student costs about one budget.

The course's nbgrader configuration (``minesweeper_kit.release``) puts it in place of nbgrader's
``Execute`` with :func:`autograde_preprocessors`. Time here is wall-clock time, as nbgrader's own
timeouts are; the grader's CPU-time limits are another matter (``autograder grade``).
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from typing import Any

from nbgrader.preprocessors import Execute
from traitlets import Integer

__all__ = ["BudgetedExecute", "CellBudget", "autograde_preprocessors"]


class CellBudget:
    """The timeout of each cell of one notebook: the per-cell ``timeout``, cut to what is left of the
    notebook's ``budget``, and never below ``floor`` (a spent budget still lets a quick cell run).
    ``clock`` gives the time in seconds (``time.monotonic``; a test passes its own)."""

    def __init__(self, timeout: int, budget: int, floor: int, clock: Callable[[], float] = time.monotonic):
        self.timeout, self.floor, self.clock = timeout, floor, clock
        self.deadline = clock() + budget

    def __call__(self, cell: Any = None) -> int:
        left = math.ceil(self.deadline - self.clock())
        return max(self.floor, min(self.timeout, left))


class BudgetedExecute(Execute):
    """nbgrader's ``Execute`` with one budget for the whole notebook (see the module)."""

    notebook_timeout = Integer(
        300,
        help="Seconds the whole notebook may run: a cell never gets more than what is left of it.",
    ).tag(config=True)
    spent_timeout = Integer(
        5,
        help="Seconds each cell may run once the notebook's budget is spent.",
    ).tag(config=True)

    def preprocess(self, nb: Any, resources: Any = None, km: Any = None) -> Any:
        """Run the notebook as nbgrader does, each cell under :class:`CellBudget`."""
        self.timeout_func = CellBudget(self.timeout, self.notebook_timeout, self.spent_timeout)
        return super().preprocess(nb, resources, km)


def autograde_preprocessors() -> list[type]:
    """nbgrader's own list of ``nbgrader autograde`` preprocessors, with :class:`BudgetedExecute` in
    the place of ``Execute``: for ``c.Autograde.autograde_preprocessors`` in a course's configuration."""
    from nbgrader.converters import Autograde

    defaults = Autograde.class_traits()["autograde_preprocessors"].default()
    return [BudgetedExecute if step is Execute else step for step in defaults]
