"""The chaffs: plausible student bugs, each made from a reference solution's own text.

A chaff is one misconception, written as a few small replacements (old text -> new text) applied
to the reference of its step (the notebook's solution cells, or ``instructor/reference/hypermines.py``),
so the chaffs follow the reference as it changes. A replacement whose old text is missing or
appears more than once is an error, never a silent no-op.

One library serves three readers:

* the grading of a student's own tests (``autograder/own_tests.py``): a valid test catches a
  chaff when it fails on it, and the feedback names the chaff's ``bug``, never its code. Only the
  chaffs marked ``planted`` take part: each is a mistake real students make, with its source in
  ``docs/planted-bugs.md``; the others are mutants that check the hidden suite alone;
* the feedback on a student's implementation: a submission that loses a chaff's hidden tests the
  way the chaff does (its ``loses`` lost, its ``keeps`` kept, its ``says`` said; see
  ``autograder/misconceptions.py``) gets a line naming the likely ``bug`` and its ``hint``;
* the kit's own tests (``tests/autograder/test_mutants.py``), which grade every chaff and check
  what it must show: the hidden tests (by function name) that lose their points, those that keep
  them, and texts its feedback must contain (the failing case and its first difference).

This folder is instructor material, hidden from the sandbox like the suites.
"""

from __future__ import annotations

from dataclasses import dataclass, field

__all__ = ["Chaff", "OTHERS", "chaffs_for", "mutate", "planted_for", "reference_source"]

#: ``keeps=OTHERS``: every hidden test not listed in ``loses`` keeps its points.
OTHERS = ("*",)


@dataclass(frozen=True)
class Chaff:
    """One bug: how to make it from the reference, what the grader must say about it, and the hint
    a student whose code behaves the same way is given."""

    name: str
    bug: str  #: what the student got wrong, in one sentence
    replacements: tuple[tuple[str, str], ...]
    loses: tuple[str, ...]  #: hidden tests that lose points; the first names the bug
    says: tuple[str, ...]  #: texts the first losing test's feedback must contain
    keeps: tuple[str, ...] = OTHERS  #: hidden tests that keep their points
    settings: dict = field(default_factory=dict, hash=False)  #: grading settings (bots: bot_games)
    hint: str = ""  #: where to look, for a student whose code fails this way
    #: planted in the grading of students' own tests: a mistake real students make, its source in
    #: docs/planted-bugs.md; False: a mutant that only checks the hidden suite catches such a bug
    planted: bool = True

    def __post_init__(self) -> None:
        if not self.replacements or not self.loses or not self.says:
            raise ValueError(f"mutant {self.name}: needs replacements, loses and says")
        if not all(
            isinstance(pair, tuple) and len(pair) == 2 and all(isinstance(t, str) for t in pair)
            for pair in self.replacements
        ):
            raise ValueError(f"mutant {self.name}: each replacement is a pair (old text, new text)")
        overlap = set(self.loses) & set(self.keeps)
        if overlap:
            raise ValueError(f"mutant {self.name}: {sorted(overlap)} both lose and keep points")


def mutate(source: str, mutant: Chaff) -> str:
    """The reference source with the mutant's replacements, each of which must match exactly once."""
    for old, new in mutant.replacements:
        count = source.count(old)
        if count != 1:
            raise ValueError(f"mutant {mutant.name}: the reference contains {old!r} {count} times, not once")
        source = source.replace(old, new)
    return source


def reference_source(assignment_id: str) -> str:
    """The source the grader takes as the assignment's reference solution."""
    from autograder.assignments import get_assignment
    from autograder.references import reference_submission

    return reference_submission(get_assignment(assignment_id)).source


def planted_for(assignment_id: str) -> list[Chaff]:
    """The chaffs of one step planted in the grading of students' own tests."""
    return [chaff for chaff in chaffs_for(assignment_id) if chaff.planted]


def chaffs_for(assignment_id: str) -> list[Chaff]:
    """The chaffs of one step (an empty list for a step without any); the assignments that share a
    suite (the function-API terms) share its chaffs, named after the suite."""
    import importlib

    from autograder.assignments import ASSIGNMENTS

    known = ASSIGNMENTS.get(assignment_id)
    name = (known.suite if known is not None and known.suite else assignment_id).replace("-", "_")
    try:
        module = importlib.import_module(f"{__name__}.{name}")
    except ModuleNotFoundError:
        return []
    return list(module.CHAFFS)
