"""A student's own tests, run against correct implementations and planted bugs.

One runner serves the notebooks' "check my tests" cell (``minesweeper_kit.testcheck``, with the
public planted bugs of ``public.py``) and the grader (``autograder/own_tests.py``, with the hidden
ones): ``runner.py`` runs the tests, ``verdicts.py`` says what the runs mean, ``source.py`` reads a
notebook's tests into one file, and ``minesweeper_kit.own_tests_requirements`` holds what each
step asks of them.
"""

from .runner import Implementation, Outcome, OwnTestsLimits, TestsFile, TestsRun, cut, run_tests
from .source import CodeCell, TestsSource, failable, tests_from_cells, without_names
from .verdicts import Verdict, Verdicts, judge

__all__ = [
    "CodeCell",
    "Implementation",
    "OwnTestsLimits",
    "Outcome",
    "TestsFile",
    "TestsRun",
    "TestsSource",
    "Verdict",
    "Verdicts",
    "cut",
    "failable",
    "judge",
    "run_tests",
    "tests_from_cells",
    "without_names",
]
