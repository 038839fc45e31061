"""What each step asks of a student's own tests, and the check of it on a log of calls.

A step's requirement is stated in its notebook in the words of :attr:`Requirement.text`. It is
checked on what the tests did on a correct implementation: one list of calls per valid test, each
call a dict with ``name`` (the function, class or method called), ``args`` (plain copies: lists for
tuples), ``value`` (what it answered), and for objects ``made`` (a number for an object a call made)
and ``target`` (the object a method was called on) with ``state`` (its ``state`` after the call),
or ``raised`` (the exception's type name). The grader (``autograder/own_tests.py``) logs calls this
way behind its stand-ins; the notebooks' "check my tests" cell (``testcheck.py``) logs them around
the kit's own implementations. Pure functions only: nothing here runs a test.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from .formats.mit6009 import FUNCTION_APIS

__all__ = ["REQUIREMENTS", "Requirement"]


@dataclass(frozen=True)
class Requirement:
    """What a step asks of the tests, as its notebook states it, and the check of it on the
    reference's log of calls (one list of calls per valid test)."""

    text: str
    check: Callable[[dict[str, list[dict]]], list[str]]  #: what is missing; [] when met
    file_classes: tuple[str, ...] | None = None  #: in a separate test file, the classes that count
    minimum: int = 3  #: valid tests needed
    #: in a separate test file, the tests (functions or classes) the course handed out in it: never
    #: the student's, never run
    course_tests: tuple[str, ...] = ()


def _dims(call: dict) -> int | None:
    """How many dimensions a call's first argument describes (a dimensions list, or a length)."""
    args = call.get("args") or []
    if not args:
        return None
    first = args[0]
    if call.get("name") == "neighbors_1d":
        return 1
    if isinstance(first, list) and first and all(isinstance(x, int) for x in first):
        return len(first)
    return None


def _dimensions_covered(
    calls: dict[str, list[dict]], names: tuple[str, ...], wanted: tuple[int, ...], what: str
) -> list[str]:
    seen = {_dims(c) for test in calls.values() for c in test if c.get("name") in names and "raised" not in c}
    missing = [d for d in wanted if d not in seen]
    if not missing:
        return []
    return [f"no valid test {what} in {', '.join(f'{d}-D' for d in missing)}"]


def _neighbours_rule(calls: dict[str, list[dict]]) -> list[str]:
    names = ("neighbors", "neighbors_1d", "neighbors_2d", "neighbors_3d")
    return _dimensions_covered(calls, names, (1, 2, 3), "asks for neighbours")


def _make_board_rule(calls: dict[str, list[dict]]) -> list[str]:
    problems = _dimensions_covered(calls, ("make_board", "new_board"), (1, 2, 3), "makes a board")
    if not any(c.get("name") == "set_coords" for test in calls.values() for c in test):
        problems.append("no valid test changes a cell with set_coords")
    return problems


def _flood_fill_rule(calls: dict[str, list[dict]]) -> list[str]:
    problems = []
    fields = {str(c.get("args")) for test in calls.values() for c in test if c.get("name") == "MineField"}
    if len(fields) < 2:
        problems.append("fewer than two different mine fields made with MineField(...) in valid tests")
    opened = ("uncover", "flood_fill_iterative")
    if not any(c.get("name") in opened for test in calls.values() for c in test):
        problems.append("no valid test uncovers a cell")
    return problems


def _hypermines_rule(calls: dict[str, list[dict]]) -> list[str]:
    """6.009's requirement: for a 1-D, a 2-D and a 3-D game, a test that makes a new game and digs
    it at least twice in a row with different results (what dig returned, or the game's state)."""
    covered = set()
    for test in calls.values():
        games = {c.get("made"): _dims(c) for c in test if c.get("name") == "HyperMinesGame" and c.get("made")}
        for game, dims in games.items():
            digs = [c for c in test if c.get("name") == "dig" and c.get("target") == game and "raised" not in c]
            outcomes = {(str(c.get("value")), str(c.get("state"))) for c in digs}
            if len(digs) >= 2 and len(outcomes) >= 2:
                covered.add(dims)
    missing = [d for d in (1, 2, 3) if d not in covered]
    if not missing:
        return []
    return [
        f"no valid test makes a {', '.join(f'{d}-D' for d in missing)} game and digs it twice with different results"
    ]


def _function_api_rule(calls: dict[str, list[dict]]) -> list[str]:
    """The function-API handouts' suggestion: for a 1-D, a 2-D and a 3-D game, a test that makes a
    new game and digs games of that many dimensions at least twice with different results (what
    the dig returned, or the game's state after it). A dig's dimensions are read from the game it
    was given (logged after the dig), else from ``dig_2d``, else from the one size of game the
    test made."""
    covered = set()
    for test in calls.values():
        makes = [c for c in test if c.get("name") in ("new_game_nd", "new_game_2d") and "raised" not in c]
        made = {d for d in (2 if c.get("name") == "new_game_2d" else _dims(c) for c in makes) if d is not None}
        outcomes: dict[int, list[tuple[str, str]]] = {}
        for call in test:
            if call.get("name") not in ("dig_nd", "dig_2d") or "raised" in call:
                continue
            args = call.get("args") or []
            game = args[0] if args and isinstance(args[0], dict) else {}
            dimensions = game.get("dimensions")
            if isinstance(dimensions, list):
                dims = len(dimensions)
            elif call.get("name") == "dig_2d":
                dims = 2
            elif len(made) == 1:
                dims = next(iter(made))
            else:
                continue
            outcomes.setdefault(dims, []).append((str(call.get("value")), str(game.get("state"))))
        covered |= {d for d, found in outcomes.items() if d in made and len(found) >= 2 and len(set(found)) >= 2}
    missing = [d for d in (1, 2, 3) if d not in covered]
    if not missing:
        return []
    return [
        f"no valid test makes a {', '.join(f'{d}-D' for d in missing)} game and digs it twice with different results"
    ]


#: The tests the function-API terms' own test.py holds (the course's, whatever the term), never
#: counted as the student's: only the functions and classes a student adds beside them are.
FUNCTION_API_COURSE_TESTS = (
    "test_doctests_run",
    "test_all_doc_strings_exist",
    "test_newsmallgame",
    "test_newmediumgame",
    "test_newlargegame",
    "test_dig_2d",
    "test_render_2d",
    "test_asciismall",
    "test_asciixray",
    "test_2d_integration",
    "test_newsmall6dgame",
    "test_newlarge4dgame",
    "test_nd_integration",
    "test_tiny_dig_nd",
    "Test00_DocTests",
    "Test01_2dNewGame",
    "Test02_2dDig",
    "Test03_2dRender",
    "Test04_RenderASCII",
    "Test05_2dIntegration",
    "Test06_NdNewGame",
    "Test07_NdIntegration",
)

REQUIREMENTS: dict[str, Requirement] = {
    "neighbors": Requirement(
        "at least three tests that together ask for neighbours in 1, 2 and 3 dimensions", _neighbours_rule
    ),
    "make-board": Requirement(
        "at least three tests that together make boards of 1, 2 and 3 dimensions and change a cell with set_coords",
        _make_board_rule,
    ),
    "flood-fill": Requirement(
        "at least three tests that make at least two different mine fields and uncover cells", _flood_fill_rule
    ),
    "hypermines": Requirement(
        "at least three tests, for a 1-D, a 2-D and a 3-D game, each making a new game and digging it at least "
        "twice with different results",
        _hypermines_rule,
        file_classes=("TestTiny",),
    ),
}
# The function-API handouts (Spring 2020, Spring 2022 and the terms between) strongly encourage
# tests of one's own in test.py: one for a 1-D, a 2-D and a 3-D game, each making a new game and
# digging it at least twice with different expected behaviours.
REQUIREMENTS.update(
    {
        f"mines-{api.id}": Requirement(
            "at least three tests of your own in test.py, for a 1-D, a 2-D and a 3-D game, each making a new "
            "game and digging it at least twice with different results",
            _function_api_rule,
            course_tests=FUNCTION_API_COURSE_TESTS,
        )
        for api in FUNCTION_APIS
    }
)
