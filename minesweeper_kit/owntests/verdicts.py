"""What a run of a student's own tests means: each test's verdict, the planted bugs caught, the
step's requirement, and the words the student reads.

* **valid**: passed on every run on every correct implementation. A valid test *catches* a
  planted bug when it failed on it on every run, each time after the bug answered something
  differently from the correct code (see ``runner.py``).
* **invalid**: failed on a correct implementation, on every run: it is wrong about the step, and
  what it fails on says nothing about the bugs.
* **flaky**: passed on some runs and failed on others of the same correct code: chance, which
  earns nothing.
* **skipped**: the test skipped itself; **not run**: the budget was spent before it ran.

A valid test that cannot fail (no assertion, no comparison that raises, no expected exception;
``source.failable``) catches nothing by construction and does not count toward the requirement.
The share of the points is the planted bugs caught by valid tests over all of them, half of that
while the requirement is not met. The check cell and the grader print these verdicts with the
same words; only the implementations differ.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from ..own_tests_requirements import Requirement
from .runner import Implementation, Outcome, TestsRun, cut
from .source import method_of

__all__ = ["FEEDBACK_CHARACTERS", "Verdict", "Verdicts", "judge"]

VALID, INVALID, FLAKY, SKIPPED, NOT_RUN = "valid", "invalid", "flaky", "skipped", "not run"
#: The longest feedback kept for one submission's own tests (the rest is cut, and says how much).
FEEDBACK_CHARACTERS = 20_000
#: The rows of one subTest loop shown in the feedback (the others are counted).
ROWS_SHOWN = 20


@dataclass
class Verdict:
    """One of the student's tests."""

    name: str
    status: str = VALID
    failure: str = ""  #: how it failed on a correct implementation
    line: int | None = None  #: where (a line of the tests' file)
    caught: list[str] = field(default_factory=list)  #: the planted bugs it catches
    can_fail: bool = True
    row: bool = False  #: a row of a subTest
    passed: dict[str, bool] = field(default_factory=dict)  #: its first run on each implementation

    @property
    def valid(self) -> bool:
        return self.status == VALID


@dataclass
class Verdicts:
    """Every test's verdict, the planted bugs, the requirement."""

    tests: list[Verdict]
    chaffs: dict[str, str]  #: each planted bug's name -> its misconception, in the library's order
    requirement: str
    unmet: list[str]
    problem: str = ""
    problem_line: int | None = None
    seconds: float = 0.0
    budget_spent: bool = False
    untried: list[str] = field(default_factory=list)
    budget: float = 0.0

    @property
    def valid(self) -> list[Verdict]:
        return [t for t in self.tests if t.valid]

    @property
    def caught(self) -> list[str]:
        """The planted bugs some valid test caught, in the library's order."""
        hit = {name for test in self.valid for name in test.caught}
        return [name for name in self.chaffs if name in hit]

    def share(self) -> float:
        """The share of the points earned: the planted bugs caught by valid tests, over all of them,
        when the requirement is met; half of that when it is not."""
        if self.problem or not self.chaffs:
            return 0.0
        caught = len(self.caught) / len(self.chaffs)
        return caught if not self.unmet else caught / 2

    def lines(self, where: Callable[[int | None], str], bugs: str = "planted bugs") -> list[str]:
        """Each test's verdict, the bugs caught and missed, the requirement."""
        shown = [t for t in self.tests if not t.row]
        valid = [t for t in shown if t.valid]
        lines = [f"{len(valid)} of {len(shown)} tests valid."]
        rows_shown: dict[str, int] = {}
        for test in self.tests:
            if test.row:
                method = method_of(test.name)
                rows_shown[method] = rows_shown.get(method, 0) + 1
                if rows_shown[method] > ROWS_SHOWN:
                    continue
            lines.append("  " + self._verdict(test, where))
        hidden = sum(max(0, n - ROWS_SHOWN) for n in rows_shown.values())
        if hidden:
            lines.append(f"  ({hidden} more subTest rows not shown)")
        caught = self.caught
        missed = len(self.chaffs) - len(caught)
        lines.append(
            f"{bugs[0].upper() + bugs[1:]} caught by your valid tests: {len(caught)} of {len(self.chaffs)}"
            + (f" ({missed} missed)." if missed else ".")
        )
        if caught:
            lines.append(
                f"(Each of the {bugs} is named at the first of your tests, in the order they ran, that catches it; the "
                "tests after it are not tried on it.)"
            )
        if self.untried:
            lines.append(
                f"{len(self.untried)} of them could not be tried: the own-tests budget of {self.budget:g} s of CPU "
                "time was spent."
            )
        if self.unmet:
            lines.append(f"Requirement ({self.requirement}): NOT met: {'; '.join(self.unmet)}.")
        else:
            lines.append(f"Requirement ({self.requirement}): met.")
        return lines

    def _verdict(self, test: Verdict, where: Callable[[int | None], str]) -> str:
        place = where(test.line)
        at = f" ({place})" if place else ""
        failure = _indented(test.failure)
        if test.status == INVALID:
            return f"{test.name}: INVALID, it fails on a correct implementation{at}: {failure}"
        if test.status == FLAKY:
            return (
                f"{test.name}: FLAKY, it passed on some runs and failed on others of the same correct code, so it "
                f"earns nothing (its last failure{at}: {failure})"
            )
        if test.status == SKIPPED:
            return f"{test.name}: skipped ({test.failure or 'it skipped itself'}); not counted"
        if test.status == NOT_RUN:
            return f"{test.name}: not run: {test.failure}"
        if not test.can_fail:
            return (
                f"{test.name}: valid, but it cannot fail (no assertion, no comparison that raises, no expected "
                "exception): it catches nothing and does not count toward the requirement"
            )
        if test.caught:
            return f"{test.name}: valid; catches: {'; '.join(self.chaffs[c] for c in test.caught)}"
        return f"{test.name}: valid; catches no planted bug the tests before it missed"

    def text(self, heading: str, where: Callable[[int | None], str], bugs: str = "planted bugs") -> str:
        """The whole feedback on the tests, under ``heading``, cut to :data:`FEEDBACK_CHARACTERS`."""
        if self.problem:
            place = where(self.problem_line)
            return cut(f"{heading} could not be run: {self.problem}" + (f" ({place})" if place else ""), 2000)
        lines = self.lines(where, bugs)
        return cut("\n".join([f"{heading}: {lines[0]}"] + lines[1:]), FEEDBACK_CHARACTERS)


def _indented(message: str) -> str:
    """A failure's message in the feedback: its first line, then the others indented under it."""
    lines = [line.rstrip() for line in message.splitlines() if line.strip()]
    return "\n      ".join(lines) if lines else message


def judge(
    run: TestsRun,
    library: Sequence[Implementation],
    requirement: Requirement,
    can_fail: dict[str, bool],
    repeats: int,
    budget: float = 0.0,
) -> Verdicts:
    """The verdicts of a run (see the module)."""
    wheats = [i.name for i in library if i.correct]
    chaffs = {i.name: i.misconception for i in library if not i.correct}
    verdicts = Verdicts(
        [],
        chaffs,
        requirement.text,
        [],
        problem=run.problem,
        problem_line=run.problem_line,
        seconds=run.seconds,
        budget_spent=run.budget_spent,
        untried=list(run.untried),
        budget=budget,
    )
    if run.problem:
        return verdicts
    spent = f"the own-tests budget of {budget:g} s of CPU time was spent" if budget else "the budget was spent"
    for name in run.tests:
        outcomes = run.outcomes.get(name, {})
        test = Verdict(name, row=name in run.rows, can_fail=can_fail.get(method_of(name), True))
        test.passed = {impl: runs[0].outcome == "passed" for impl, runs in outcomes.items() if runs}
        _wheat_verdict(test, [outcomes.get(w, []) for w in wheats], repeats, spent if run.budget_spent else "")
        if test.valid and test.can_fail:
            test.caught = [c for c in chaffs if _catches(outcomes.get(c, []), repeats)]
        verdicts.tests.append(test)
    calls: dict[str, list[dict]] = {}
    for call in run.calls:
        calls.setdefault(str(call.get("test")), []).append(call)
    invalid_rows = {method_of(t.name) for t in verdicts.tests if t.row and not t.valid}
    counted = {
        t.name: calls.get(t.name, [])
        for t in verdicts.tests
        if t.valid and t.can_fail and not t.row and t.name not in invalid_rows
    }
    verdicts.unmet = requirement.check(counted)
    if len(counted) < requirement.minimum:
        verdicts.unmet.insert(
            0,
            f"{len(counted)} valid test(s) that can fail (an assertion, a comparison or an expected exception), "
            f"{requirement.minimum} asked for",
        )
    return verdicts


def _wheat_verdict(test: Verdict, runs: list[list[Outcome]], repeats: int, budget: str) -> None:
    everything = [o for per_wheat in runs for o in per_wheat]
    failures = [o for o in everything if o.outcome == "failed"]
    missing = any(len(per_wheat) < repeats for per_wheat in runs)
    if missing and budget and not failures:
        test.status, test.failure = NOT_RUN, budget
        return
    if any(len({o.outcome for o in per_wheat}) > 1 for per_wheat in runs):
        last = failures[-1] if failures else next(o for o in everything if o.outcome != "passed")
        test.status, test.failure, test.line = FLAKY, last.message or last.kind, last.line
        return
    if failures:
        first = failures[0]
        test.status, test.failure, test.line = INVALID, first.message or first.kind, first.line
        return
    if missing:
        test.status = INVALID
        test.failure = "it ran on one correct implementation and not on another"
        return
    skipped = [o for o in everything if o.outcome == "skipped"]
    if skipped:
        test.status, test.failure = SKIPPED, skipped[0].message


def _catches(outcomes: list[Outcome], repeats: int) -> bool:
    """Failed on every run, each time after an answer of the bug's differed from the correct one's."""
    return len(outcomes) >= repeats and all(o.outcome == "failed" and o.diverged for o in outcomes)
