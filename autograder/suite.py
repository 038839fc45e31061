"""What hidden suites use: points, per-test limits, and comparisons whose messages are feedback.

A hidden suite is a pytest file run in the trusted grader process. It receives the fixture
``box`` (a :class:`~minesweeper_kit.sandbox.Sandbox` holding the student's code), ``seed`` (this
grading run's seed), ``originals`` (the original assignments' data folder) and ``api`` (the
function API a ``mines-*`` assignment grades, None for the notebook steps). It never uses
``assert``: it raises :class:`Mismatch`, whose message is shown to the student as it is, so it
must name the case and the first difference and never quote the test's code or expected data
beyond that difference. A test that passes may still tell the student something (the bots'
wins against the judge) through :func:`note`.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any

import pytest

from minesweeper_kit.sandbox import Handle, Sandbox

__all__ = [
    "points",
    "time_limit",
    "Mismatch",
    "describe",
    "plural",
    "first_difference",
    "check_equal",
    "coordinate_set",
    "check_coordinates",
    "require",
    "note",
    "NOTE",
]

#: The key of :func:`note`'s text among a test item's ``user_properties``.
NOTE = "feedback"
#: How many missing or unexpected cells a message lists before it counts the rest.
LISTED = 3


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


def plural(count: int, singular: str, plural_form: str | None = None) -> str:
    """``count`` and the noun that agrees with it: ``1 cell``, ``2 cells``, ``0 games``."""
    return f"{count} {singular if count == 1 else (plural_form or singular + 's')}"


def note(request: pytest.FixtureRequest, text: str) -> None:
    """What the student is told when this test passes (by default only that it passed); a test
    takes pytest's ``request`` fixture to give it."""
    request.node.user_properties.append((NOTE, text))


def _index(path: Sequence[int]) -> str:
    return "".join(f"[{i}]" for i in path)


def first_difference(
    actual: Any, expected: Any, path: tuple[int, ...] = (), show: Callable[[Any], str] | None = None
) -> str | None:
    """Where two nested values first differ, as a sentence, or None when they are equal.

    Lists and tuples compare element by element (tuples count as lists), so the message can
    name the first differing cell. Only plain data ever reaches here. Equal JSON texts are
    equal values (and keep True apart from 1), so large equal boards are compared in C.
    ``show`` writes a single value for the message (by default :func:`describe`): the
    flood-fill suite names its statuses (``COVERED`` rather than ``-1``).
    """
    shown = show or describe
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
            found = first_difference(a, e, path + (index,), shown)
            if found:
                return found
        if len(actual) != len(expected):
            where = _index(path) if path else "the top level"
            return f"{where} has {plural(len(actual), 'item')}, expected {len(expected)}"
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
        return f"{where}expected {shown(expected)}, got {shown(actual)}"
    if actual != expected:
        where = f"at {_index(path)}: " if path else ""
        return f"{where}expected {shown(expected)}, got {shown(actual)}"
    return None


def check_equal(actual: Any, expected: Any, *, what: str, case: str, show: Callable[[Any], str] | None = None) -> None:
    """Raise :class:`Mismatch` naming ``case``, ``what`` and the first difference."""
    difference = first_difference(actual, expected, show=show)
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


def cells_text(cells: Sequence[tuple]) -> str:
    """Sorted cells for a message, the first :data:`LISTED` of them and how many more."""
    shown = ", ".join(str(list(cell)) for cell in cells[:LISTED])
    more = len(cells) - LISTED
    return shown + (f" and {more} more" if more > 0 else "")


def set_difference(found: Iterable[tuple], wanted: Iterable[tuple]) -> str | None:
    """What a set of cells lacks and what it has too many of, named apart, or None when equal:
    ``missing: [0, 1]; unexpected: [2, 2] and 1 more``."""
    found, wanted = set(found), set(wanted)
    parts = []
    missing, extra = sorted(wanted - found), sorted(found - wanted)
    if missing:
        parts.append(f"missing: {cells_text(missing)}")
    if extra:
        parts.append(f"unexpected: {cells_text(extra)}")
    return "; ".join(parts) or None


def check_coordinates(actual: Any, expected: Iterable[tuple], *, what: str, case: str) -> None:
    """Compare coordinate lists as sets, naming the missing cells and the unexpected ones apart."""
    found = coordinate_set(actual, what=what, case=case)
    difference = set_difference(found, {tuple(c) for c in expected})
    if difference:
        raise Mismatch(f"{case}: {what} are wrong: {difference}")


def require(box: Sandbox, *names: str) -> None:
    """Fail with a clear message when the submission does not define one of ``names``."""
    missing = [name for name in names if name not in box.names]
    if missing:
        raise Mismatch("your code does not define " + ", ".join(missing))
