"""One scale per assignment: what a grade is out of, the same in every output.

An assignment is out of ``points + own_tests_points``: the hidden tests share ``points`` (the
course's, else the hidden suite's own total) in proportion to the suite's weights, and the
student's own tests are worth ``own_tests_points`` on top (when the step asks for tests and the
course grades them). Weights are exact: each test's share is rounded to 4 decimals by the
largest-remainder rule, so the shares add up to ``points`` exactly (never ``20.0001``), and the
maximum is ``points + own_tests_points`` as written, not a sum of rounded shares. The CSV,
``results.json``, Gradescope, nbgrader's gradebook, the report and the class page all take the
grade from here (``autograder check`` too).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from decimal import Decimal
from fractions import Fraction

from minesweeper_kit.own_tests_requirements import REQUIREMENTS

from .assignments import Assignment
from .grading import OWN_TESTS_ID, GradeReport

__all__ = ["PLACES", "Scale", "apportion", "on_course_scale"]

#: Decimal places of a test's weight and of a score.
PLACES = 4
_UNIT = Fraction(1, 10**PLACES)


def apportion(weights: Sequence[float], total: float) -> list[float]:
    """``weights`` rescaled to add up to ``total``, each rounded to :data:`PLACES` decimals so that
    the rounded shares add up to ``total`` exactly (largest remainder first; ties to the earlier).
    Shares of a zero weight are 0; all weights 0 gives all 0."""
    exact = [Fraction(w) for w in weights]
    whole = sum(exact, Fraction(0))
    if whole == 0:
        return [0.0 for _ in weights]
    target = round(Fraction(Decimal(str(total))) / _UNIT)
    shares = [w * target / whole for w in exact]  # in units of 10**-PLACES
    floors = [share.numerator // share.denominator for share in shares]
    left = target - sum(floors)
    order = sorted(range(len(shares)), key=lambda i: (-(shares[i] - floors[i]), i))
    for i in order[:left]:
        floors[i] += 1
    return [float(Decimal(units).scaleb(-PLACES)) for units in floors]


def asks_for_tests(assignment: Assignment) -> bool:
    """Whether a grade of this assignment has an own-tests result: the step asks for tests of the
    student's own and the course grades them."""
    return assignment.id in REQUIREMENTS and assignment.own_tests


@dataclass(frozen=True)
class Scale:
    """What an assignment is out of: the hidden tests' points and the own tests' points."""

    hidden: float  #: the hidden tests' points: the course's ``points``, else the suite's total
    own: float  #: the own tests' points (0 when the step asks for none or they are reported only)

    @property
    def maximum(self) -> float:
        """``hidden + own``: what every output says the assignment is out of."""
        return _exact(self.hidden + self.own)

    @classmethod
    def of(cls, assignment: Assignment, suite_points: float | None) -> Scale:
        """The scale of ``assignment`` under its course settings; ``suite_points`` is the hidden
        suite's own total (used when the course sets no ``points``; None when it is unknown)."""
        hidden = assignment.points if assignment.points is not None else (suite_points or 0.0)
        own = float(assignment.own_tests_points) if asks_for_tests(assignment) else 0.0
        return cls(float(hidden), own)


def _exact(value: float) -> float:
    """``value`` rounded to :data:`PLACES` decimals, so a sum of such numbers shows as written."""
    return float(round(Decimal(repr(value)), PLACES))


def on_course_scale(report: GradeReport, assignment: Assignment) -> GradeReport:
    """The report's tests and score on the assignment's scale (see the module): the hidden tests
    share the course's ``points``, the own-tests result keeps ``own_tests_points``, the score is
    their sum. A report with no tests (nothing submitted) keeps its maximum; the caller sets it."""
    hidden = [t for t in report.tests if t.id != OWN_TESTS_ID]
    own = [t for t in report.tests if t.id == OWN_TESTS_ID]
    if assignment.points is not None and hidden:
        weights = apportion([t.max_score for t in hidden], assignment.points)
        for test, weight in zip(hidden, weights):
            share = Fraction(test.score) / Fraction(test.max_score) if test.max_score else Fraction(0)
            test.max_score, test.score = weight, _exact(float(share * Fraction(weight)))
    if report.tests:
        report.max_score = _exact(sum(t.max_score for t in hidden + own))
        if report.score is not None:
            report.score = _exact(sum(t.score for t in report.tests))
    return report
