"""The likely misconception behind a submission that fails the hidden tests the way a chaff does.

Each chaff of ``instructor/chaffs/`` is one plausible bug, with the hidden tests it loses
(``loses``), those it keeps (``keeps``; ``OTHERS``: every other one), and texts the feedback of
its first losing test contains (``says``). A student's implementation is matched to a chaff by
what it did, never by reading its code: it matches when

* every test of the chaff's ``loses`` lost its points,
* no test of its ``keeps`` did (with ``OTHERS``: no other test did, so the tests lost are exactly
  ``loses``; a chaff that names its ``keeps`` leaves the tests named in neither list open, as the
  kit's own check of the chaff does), and
* the feedback of the first test of ``loses`` contains each of its ``says`` texts.

When several chaffs match, the one whose lists pin down the most of the suite's tests is taken,
then the one whose ``says`` texts are the longest (the most specific), then the first in the
library: the choice is the same for the same results. The feedback then adds one line,
"Likely misconception: <bug>. Hint: <hint>", where the hint says where to look, never the fix.

Only a graded submission that loaded and lost points in the hidden suite gets a line; the result
of the student's own tests (``own_tests``) is not one of the hidden tests and is never compared.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

__all__ = ["LINE", "OWN_TESTS_ID", "likely_misconception", "matches", "misconception_for", "misconception_line"]

#: The id of the result that holds the student's own tests, left out of the match; the grader
#: (``grading.py``, which imports this module) gives that result this id.
OWN_TESTS_ID = "own_tests"
#: The feedback's line, from the chaff's ``bug`` and ``hint``.
LINE = "Likely misconception: {bug}. Hint: {hint}"


def _outcomes(tests: Sequence[Any]) -> dict[str, tuple[bool, str]]:
    """The hidden tests by id: (passed, output)."""
    return {t.id: (t.status == "passed", t.output or "") for t in tests if t.id and t.id != OWN_TESTS_ID}


def matches(chaff: Any, tests: Sequence[Any]) -> bool:
    """Whether these hidden test results are the chaff's (see the module's docstring)."""
    outcome = _outcomes(tests)
    if not chaff.loses or any(name not in outcome or outcome[name][0] for name in chaff.loses):
        return False
    lost = {name for name, (passed, _) in outcome.items() if not passed}
    if _keeps_all(chaff):
        if lost != set(chaff.loses):
            return False
    elif lost & set(chaff.keeps):
        return False
    first = outcome[chaff.loses[0]][1]
    return all(text in first for text in chaff.says)


def _keeps_all(chaff: Any) -> bool:
    """Whether the chaff's ``keeps`` is the library's ``OTHERS`` (every test not in ``loses``)."""
    return tuple(chaff.keeps) == ("*",)


def _pinned(chaff: Any, tests: Sequence[Any]) -> int:
    """How many of the suite's tests the chaff's lists name (all of them with ``OTHERS``)."""
    names = set(_outcomes(tests))
    if _keeps_all(chaff):
        return len(names)
    return len(names & (set(chaff.loses) | set(chaff.keeps)))


def likely_misconception(chaffs: Sequence[Any], tests: Sequence[Any]) -> Any | None:
    """The chaff these results match best, or None when none matches."""
    found = [(index, chaff) for index, chaff in enumerate(chaffs) if matches(chaff, tests)]
    if not found:
        return None
    return min(found, key=lambda pair: (-_pinned(pair[1], tests), -sum(len(text) for text in pair[1].says), pair[0]))[1]


def misconception_for(report: Any) -> dict[str, str]:
    """For a graded report that loaded and lost points in the hidden suite, the chaff it fails like:
    ``{"chaff": name, "bug": ..., "hint": ...}``; ``{}`` otherwise, or when the step has no chaffs or
    the library cannot be read (the grade never depends on it)."""
    from .statuses import GRADED

    if report.status != GRADED or report.score is None or report.problem:
        return {}
    if all(passed for passed, _ in _outcomes(report.tests).values()):
        return {}
    try:
        from .own_tests import instructor_package

        chaffs = instructor_package("chaffs").chaffs_for(report.assignment)
    except Exception:  # noqa: BLE001 - no library (a course without one), no line: never a failed grade
        return {}
    chaff = likely_misconception(chaffs, report.tests)
    if chaff is None or not chaff.hint:
        return {}
    return {"chaff": chaff.name, "bug": chaff.bug, "hint": chaff.hint}


def misconception_line(misconception: dict[str, str]) -> str:
    """The feedback's line for a report's ``misconception`` entry ("" when it has none)."""
    if not misconception or not misconception.get("bug"):
        return ""
    return LINE.format(bug=misconception["bug"].rstrip("."), hint=misconception.get("hint", ""))
