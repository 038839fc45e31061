"""Wheats: correct implementations of each graded step other than the reference solution.

A student's own test is valid only if it passes on every correct implementation of the step. The
reference is one; the modules here are others, written on purpose in another way (iterative where
the reference recurses, sets and dictionaries or flat lists where it uses nested lists, another
order of neighbours where the notebook allows any order). A test that depends on the reference's
incidental behaviour (the order of a list the notebook calls unordered, an error the step never
promises, a cell off the board) fails on one of them and is caught as wrong about the step.

The modules are read as text and never imported by the grader: like every implementation the
students' tests run against, they are executed in a sandbox. Each one defines every name of its
step, with the step's import rules.
"""

from __future__ import annotations

from pathlib import Path

__all__ = ["WHEATS", "wheats_for"]

HERE = Path(__file__).resolve().parent

#: For each assignment id, its wheats: (a short label of how it differs, the module file here).
WHEATS: dict[str, tuple[tuple[str, str], ...]] = {
    "neighbors": (("offset-codes", "neighbors.py"),),
    "make-board": (("iterative", "make_board.py"),),
    "flood-fill": (("sets-and-queue", "flood_fill.py"),),
    "hypermines": (("flat-indices", "hypermines.py"),),
    # every function-API term (the mines-* assignments): renamed for the term, as the reference is
    "mines_functions": (("flat-numbers", "mines_functions.py"),),
}


def wheats_for(assignment_id: str) -> list[tuple[str, str]]:
    """The wheats of a step besides the reference, as ``[(name, source_text)]``; none for a step
    without any (the bots are graded by their games, not by tests)."""
    from autograder.assignments import ASSIGNMENTS
    from autograder.references import for_function_api

    known = ASSIGNMENTS.get(assignment_id)
    api = known.function_api() if known is not None else None
    files = WHEATS.get(known.suite if known is not None and known.suite else assignment_id, ())
    found = [(name, (HERE / file_name).read_text(encoding="utf-8")) for name, file_name in files]
    return [(name, for_function_api(source, api)) for name, source in found] if api is not None else found
