"""The notebooks' "check my tests" cell: a student's own tests, run as the grader runs them, against
the kit's correct implementations of the step and a few public planted bugs.

The course grades a step's own tests with correct implementations and planted bugs (see the
notebooks' "your own tests" exercise): a test is *valid* when it passes on every correct one, and
a valid test *catches* a planted bug when it fails on it. This cell is the grader's runner
(:mod:`minesweeper_kit.owntests`) with other implementations: the kit's correct code
(:mod:`minesweeper_kit.owntests.public`) and planted bugs that ship with it, where the grader
has the reference, other correct code and hidden planted bugs. The same sandboxes (bubblewrap
where the machine has it), the same limits, the same stand-ins for the step's names, the same
rules of what a test may pass and observe, the same verdicts and words: a test valid here is valid
in grading, and nothing a test does can hang or fill the kernel.

The tests are what the kernel ran: the definitions of every cell executed so far (the set-up
cell's helpers included, the notebook's own test cells and this cell left out), read as the
grader reads a notebook's cells (``owntests/source.py``). A cell edited but not run again is
checked as it was run; the grader reads the notebook as it was saved.
"""

from __future__ import annotations

import functools
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

from .own_tests_requirements import REQUIREMENTS
from .owntests import CodeCell, OwnTestsLimits, TestsFile, Verdicts, failable, judge, run_tests, tests_from_cells
from .owntests.public import PUBLIC_STEPS, library

__all__ = ["CHECKED_STEPS", "TestsCheck", "check_my_tests"]

#: The steps whose tests the cell checks, and the names their tests may use.
CHECKED_STEPS: dict[str, tuple[str, ...]] = {
    "neighbors": (
        "read_file",
        "make_empty_grid",
        "update_grid",
        "print_grid",
        "dig",
        "count_total_moves",
        "determine_game_status",
        "neighbors_1d",
        "neighbors_2d",
        "neighbors_3d",
        "neighbors",
    ),
    "make-board": ("make_board", "get_coords", "set_coords", "all_coords", "neighbors", "new_board"),
    "flood-fill": ("MineField", "VisibleField", "flood_fill_iterative"),
    "hypermines": ("HyperMinesGame",),
}
#: First lines of the notebooks' own cells that are never a student's tests.
COURSE_CELLS = ("# Visible test", "# Hidden tests", "# Check your own tests")
#: Seed of the check's randomness (the grader's comes from the grade).
SEED = 2024


@dataclass
class TestsCheck:
    """What the check found, and how it says so."""

    __test__ = False  # not a test class, whatever pytest's name rule says

    step: str
    verdicts: Verdicts
    where_lines: Any = None
    problem_text: str = ""

    @property
    def tests(self) -> list:
        return self.verdicts.tests

    @property
    def bugs(self) -> dict[str, str]:
        return self.verdicts.chaffs

    @property
    def caught(self) -> list[str]:
        return self.verdicts.caught

    @property
    def unmet(self) -> list[str]:
        return self.verdicts.unmet

    @property
    def problem(self) -> str:
        return self.problem_text or self.verdicts.problem

    def where(self, line: int | None) -> str:
        return self.where_lines.where(line) if self.where_lines is not None else ""

    def report(self) -> str:
        if self.problem_text:
            return self.problem_text
        heading = f"Your tests, run against the kit's correct {self.step} code and {len(self.bugs)} public planted bugs"
        text = self.verdicts.text(heading, self.where, "public planted bugs")
        if self.verdicts.problem:
            return text
        missed = [self.bugs[name] for name in self.bugs if name not in self.caught]
        lines = [text] + [f"  not caught: {misconception}" for misconception in missed]
        lines.append(
            "The grader runs your tests the same way, against other planted bugs that stay hidden. What they are "
            "worth is in your course's feedback: by default nothing, they are reported only."
        )
        return "\n".join(lines)


@functools.cache
def _isolation() -> str:
    """Bubblewrap where this machine has it, as the grader; else plain processes with the same
    limits (the tests are the student's own code, on the student's machine)."""
    from .sandbox import status

    return "bwrap" if status().available else "none"


def kernel_cells(namespace: dict[str, Any]) -> list[CodeCell]:
    """The cells the kernel ran, as IPython ran them (``In``), but the notebook's own test cells
    and the check cell, each named by its prompt (``In [12]``)."""
    history = namespace.get("In") or namespace.get("_ih") or []
    cells = []
    for number, text in enumerate(list(history)[:-1]):  # the last one is this very cell
        if not isinstance(text, str) or not text.strip() or "check_my_tests(" in text:
            continue
        first = next((line.strip() for line in text.splitlines() if line.strip()), "")
        if first.startswith(COURSE_CELLS):
            continue
        cells.append(CodeCell(f"In [{number}]", text))
    return cells


def check_my_tests(
    step: str,
    namespace: dict[str, Any] | None = None,
    *,
    show: bool = True,
    cells: Iterable[CodeCell] | None = None,
    isolation: str | None = None,
    limits: OwnTestsLimits | None = None,
) -> TestsCheck:
    """Run the tests the kernel ran (``namespace``: the notebook's ``globals()``; or ``cells``,
    given) against the kit's correct versions of ``step`` and its public planted bugs, within
    ``limits`` (the grader's defaults); print the verdicts when ``show``."""
    if step not in PUBLIC_STEPS:
        raise ValueError(f"no tests check for step {step!r}; the steps are {', '.join(PUBLIC_STEPS)}")
    requirement = REQUIREMENTS[step]
    names = CHECKED_STEPS[step]
    found = library(step)
    chosen = list(cells) if cells is not None else kernel_cells(namespace or {})
    source = tests_from_cells(chosen, names)
    limits = limits or OwnTestsLimits()
    if not failable(source.source):
        problem = (
            "No tests of your own were found: write functions named test_... (or a class named Test... "
            "with test methods) in the cell above, run it, then run this cell again. "
            f"This step asks for {requirement.text}."
        )
        empty = Verdicts(
            [], {i.name: i.misconception for i in found.implementations if not i.correct}, requirement.text, []
        )
        result = TestsCheck(step, empty, source, problem)
    else:
        run = run_tests(
            TestsFile(source.source, "tests.py", None, "lab", as_names=True),
            found.implementations,
            names,
            seed=SEED,
            isolation=isolation or _isolation(),
            limits=limits,
            support=found.support,
        )
        verdicts = judge(
            run, found.implementations, requirement, failable(source.source), limits.repeats, limits.budget_seconds
        )
        result = TestsCheck(step, verdicts, source)
    if show:
        print(result.report())
    return result
