"""What hidden suites use: points, per-test limits, and comparisons whose messages are feedback.

A hidden suite is a pytest file run in the trusted grader process. It receives the fixture
``box`` (a :class:`~minesweeper_kit.sandbox.Sandbox` holding the student's code), ``seed`` (this
grading run's seed) and ``originals`` (the original assignments' data folder). It never uses
``assert``: it raises :class:`Mismatch`, whose message is shown to the student as it is, so it
must name the case and the first difference and never quote the test's code or expected data
beyond that difference.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from typing import Any

import pytest

from minesweeper_kit.sandbox import Handle, Sandbox

__all__ = [
    "points",
    "time_limit",
    "Mismatch",
    "describe",
    "first_difference",
    "check_equal",
    "coordinate_set",
    "require",
]


def points(value: float):
    """``@points(2)``: what a test is worth (all or nothing)."""
    return pytest.mark.points(value)


def time_limit(seconds: float):
    """``@time_limit(30)``: the test's own limit in seconds (the submission's budget still applies)."""
    return pytest.mark.time_limit(seconds)


class Mismatch(AssertionError):
    """A student-facing failure: the message is the feedback."""


def describe(value: Any, width: int = 60) -> str:
    """A short readable form of a value for feedback."""
    if isinstance(value, Handle):
        return f"a {value.type_name} object"
    text = repr(value)
    return text if len(text) <= width else text[: width - 3] + "..."


def _index(path: Sequence[int]) -> str:
    return "".join(f"[{i}]" for i in path)


def first_difference(actual: Any, expected: Any, path: tuple[int, ...] = ()) -> str | None:
    """Where two nested values first differ, as a sentence, or None when they are equal.

    Lists and tuples compare element by element (tuples count as lists), so the message can
    name the first differing cell. Only plain data ever reaches here. Equal JSON texts are
    equal values (and keep True apart from 1), so large equal boards are compared in C.
    """
    if not path:
        try:
            if json.dumps(actual) == json.dumps(expected):
                return None
        except (TypeError, ValueError):
            pass
    if isinstance(expected, (list, tuple)):
        if isinstance(actual, Handle) or not isinstance(actual, (list, tuple)):
            where = f" at {_index(path)}" if path else ""
            return f"expected a list{where}, got {describe(actual)}"
        for index, (a, e) in enumerate(zip(actual, expected)):
            found = first_difference(a, e, path + (index,))
            if found:
                return found
        if len(actual) != len(expected):
            where = _index(path) if path else "the top level"
            return f"{where} has {len(actual)} items, expected {len(expected)}"
        return None
    if isinstance(actual, Handle) or (
        type(actual) is not type(expected)
        and not (
            isinstance(expected, (int, float))
            and not isinstance(expected, bool)
            and isinstance(actual, (int, float))
            and not isinstance(actual, bool)
        )
    ):
        where = f"at {_index(path)}: " if path else ""
        return f"{where}expected {describe(expected)}, got {describe(actual)}"
    if actual != expected:
        where = f"at {_index(path)}: " if path else ""
        return f"{where}expected {describe(expected)}, got {describe(actual)}"
    return None


def check_equal(actual: Any, expected: Any, *, what: str, case: str) -> None:
    """Raise :class:`Mismatch` naming ``case``, ``what`` and the first difference."""
    difference = first_difference(actual, expected)
    if difference:
        raise Mismatch(f"{case}: {what} is wrong: {difference}")


def coordinate_set(value: Any, *, what: str, case: str) -> set[tuple]:
    """A list of coordinates as a set of tuples; duplicates or non-coordinates are a Mismatch."""
    if isinstance(value, Handle) or not isinstance(value, list):
        raise Mismatch(f"{case}: {what} should be a list of coordinates, got {describe(value)}")
    cells = []
    for item in value:
        if isinstance(item, int) and not isinstance(item, bool):
            cells.append((item,))
        elif isinstance(item, list) and all(isinstance(x, int) and not isinstance(x, bool) for x in item):
            cells.append(tuple(item))
        else:
            raise Mismatch(f"{case}: {what} contains {describe(item)}, which is not a coordinate")
    found: set[tuple] = set()
    for cell in cells:  # linear: a 90,000-coordinate answer costs the grader milliseconds
        if cell in found:
            raise Mismatch(f"{case}: {what} lists {list(cell)} more than once")
        found.add(cell)
    return found


def check_coordinates(actual: Any, expected: Iterable[tuple], *, what: str, case: str) -> None:
    """Compare coordinate lists as sets, naming a missing or an extra cell."""
    found = coordinate_set(actual, what=what, case=case)
    wanted = {tuple(c) for c in expected}
    missing = sorted(wanted - found)
    extra = sorted(found - wanted)
    if missing:
        raise Mismatch(
            f"{case}: {what} is missing {list(missing[0])}"
            + (f" and {len(missing) - 1} more" if len(missing) > 1 else "")
        )
    if extra:
        raise Mismatch(
            f"{case}: {what} wrongly includes {list(extra[0])}"
            + (f" and {len(extra) - 1} more" if len(extra) > 1 else "")
        )


def require(box: Sandbox, *names: str) -> None:
    """Fail with a clear message when the submission does not define one of ``names``."""
    missing = [name for name in names if name not in box.names]
    if missing:
        raise Mismatch("your code does not define " + ", ".join(missing))
