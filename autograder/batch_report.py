"""The batch report: one page (and a terminal summary) over every student of a graded batch, and
one page over several batches (a class across assignments).

It reads the folder ``autograder grade --results-dir`` writes (one folder per student in its
``students/`` folder, with Gradescope's ``results.json`` and ``feedback.txt``; the grader's own
``.report.json`` when it is there) and answers what an instructor asks after grading: how scores
spread, which tests fail most and with which messages, which planted bugs (misconceptions) the
students' own tests catch least, who ran out of time, who did not load and why, who handed in late
and who handed in nothing. Failure messages are grouped after the case-specific values in them
(numbers, coordinates, quoted values, paths) are replaced by placeholders, so "expected 3, got 4"
and "expected 0, got 1" count together.

Every student is in exactly one of four groups, counted and shown apart:

- **graded**: a score, and the submission loaded;
- **did not load**: a score (0 for every test it stopped), but none of its code could be tested:
  it did not load, or it loaded yet defined nothing the tests call (every test says "does not
  define ...");
- **not graded** (``extra_data.status``): the grader failed on it, so there is no score;
- **not submitted** (``extra_data.status``): the student handed in nothing; no score, no tests.

Scores (the histogram, mean and median) are over the graded and did-not-load submissions (the
score each will get, penalties included), with the figures over those that loaded beside them;
the pass rates, the worst tests and their failure messages are over the submissions that loaded
only, so blank submissions never lead them; times are over every submission that was graded.
Each figure on the page says what it is computed over.

The page is self-contained (inline SVG plots, inline style, and a few lines of inline script that
sort the students' table when a column header is clicked; no network, and every table reads the
same without the script) and links each student's feedback file by a relative path, so the
folder can be zipped and opened anywhere. A page shows every student's results, so it is as
private as they are: 0600, or 0640 when the results were graded ``--group-readable``.
"""

from __future__ import annotations

import contextlib
import json
import math
import os
import re
import statistics
import sys
import time
import urllib.parse
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from .statuses import GRADED, NOT_GRADED, NOT_SUBMITTED

__all__ = [
    "StudentResult",
    "TestSummary",
    "BatchSummary",
    "Misconception",
    "CATEGORIES",
    "message_pattern",
    "own_tests_caught",
    "read_batch",
    "summarize",
    "terminal_summary",
    "render_html",
    "write_report",
    "class_summary",
    "render_class_html",
    "write_class_report",
    "report_command",
    "SORT_SCRIPT",
    "CLASS_PAGE",
]

FEEDBACK_NAMES = ("feedback.txt", "feedback.md", "feedback.html")
LIMIT_RE = re.compile(
    r"time limit exceeded|wall-clock guard|not reached: the submission's|"
    r"CPU time limit|budget of [\d.]+ ?s",
    re.I,
)
LOAD_RE = re.compile(r"could not be loaded|did not load|not graded:", re.I)
#: What a test says when the code it calls is not there at all (``autograder.suite.require``).
UNDEFINED_RE = re.compile(r"does not define\b", re.I)

DID_NOT_LOAD = "did not load"
#: The four groups every student falls in, in the order they are shown.
CATEGORIES = (GRADED, DID_NOT_LOAD, NOT_GRADED, NOT_SUBMITTED)
#: The file name of the page over several batches, written by default in the first one's parent.
CLASS_PAGE = "class-report.html"
#: The page of one batch, in its results folder; the students' folders are in ``students/`` there
#: (the names :mod:`autograder.report` gives them, not imported: it loads the grader).
PAGE, STUDENTS = "report.html", "students"


# ---------------------------------------------------------------------- message grouping
_QUOTED = re.compile(r"""(?<![\w'"])('[^'\n]*'|"[^"\n]*")(?![\w'"])""")
_INNER_LIST = re.compile(r"\[[^\[\]]*\]")
_COORDS = re.compile(r"(?<![\w)\]])\(\s*-?\d+(?:\s*,\s*-?\d+)+\s*,?\s*\)")  # not call arguments
_SHAPE = re.compile(r"(?<![\w.])\d+(?:x\d+)+(?![\w.])")
_PATH = re.compile(r"(?:[A-Za-z]:)?(?:[\\/][\w.\-]+){2,}[\\/]?")
_HEX = re.compile(r"\b0x[0-9a-fA-F]+\b")
_NUMBER = re.compile(r"(?<![A-Za-z_\d.])[-+]?\d+(?:\.\d+)?(?:[eE][-+]?\d+)?(?![A-Za-z_\d])")


def message_pattern(text: str, limit: int = 300) -> str:
    """A failure message with its case-specific values replaced, for grouping.

    Quoted values become ``<str>``, bracketed lists (coordinates, boards, nested lists)
    ``<list>``, number tuples ``<coords>``, shapes like 10x10x4 ``<shape>``, file paths
    ``<path>``, addresses ``<hex>``, other numbers ``<n>``; whitespace is collapsed. Numbers
    inside names (``neighbors_2d``, ``SIGSEGV``) stay.
    """
    t = " ".join(str(text).split())
    t = _PATH.sub("<path>", t)
    t = _QUOTED.sub("<str>", t)
    previous = None
    while previous != t:
        previous, t = t, _INNER_LIST.sub("<list>", t)
    t = re.sub(r"(?:<list>){2,}", "<list>", t)  # board[1][2][3]-style indices: one placeholder
    t = _COORDS.sub("<coords>", t)
    t = _HEX.sub("<hex>", t)
    t = _SHAPE.sub("<shape>", t)
    t = _NUMBER.sub("<n>", t)
    return t if len(t) <= limit else t[: limit - 1] + "…"


# ---------------------------------------------------------------------- reading a batch
@dataclass
class TestResult:
    """One test of one student, as ``results.json`` records it."""

    name: str
    score: float
    max_score: float
    status: str
    output: str

    @property
    def passed(self) -> bool:
        """Whether the recorded status says the test passed."""
        return self.status == "passed"


@dataclass
class StudentResult:
    """One student's result for one assignment, as read back from the results folder."""

    student: str
    folder: Path
    assignment: str
    score: float
    max_score: float
    seconds: float
    tests: list[TestResult]
    output: str = ""
    problem: str | None = None  #: why nothing could be graded (the grader's record)
    feedback: Path | None = None
    #: "graded"; "not graded" when the grader failed (no score); "not submitted" (nothing handed in)
    status: str = GRADED
    causes: list[str] = field(default_factory=list)  #: why not graded (the grader's record)
    file: str = ""  #: the file graded, relative to the student's folder ("" when not recorded)
    seed: int | None = None  #: the seed the random cases were drawn from
    submitted_at: str | None = None  #: when it was handed in (ISO 8601), if known
    late_by: float | None = None  #: seconds after the due date (0: on time); None when not recorded
    penalty: float = 0.0  #: points the late policy took off ``score`` (already subtracted)
    submission: str = ""  #: the grader's sentence on what was read (or why nothing was)
    #: the summary of the student's own tests (the grader's record, ``own_tests.py``): found,
    #: valid, the planted bugs caught...; empty when the step asks for none or it was not recorded
    own_tests: dict = field(default_factory=dict)

    @property
    def submitted(self) -> bool:
        """Whether the student handed anything in."""
        return self.status != NOT_SUBMITTED

    @property
    def graded(self) -> bool:
        """Whether this submission has a score: False when the grader failed on it or nothing was
        submitted."""
        return self.status == GRADED

    @property
    def percent(self) -> float:
        """The score as a percentage of the maximum (0 when the maximum is 0)."""
        return 100.0 * self.score / self.max_score if self.max_score else 0.0

    @property
    def load_failure(self) -> str | None:
        """Why the submission did not load, or None if it did."""
        if self.problem:
            return self.problem
        if self.tests and all(not t.passed for t in self.tests) and any(LOAD_RE.search(t.output) for t in self.tests):
            for t in self.tests:  # the sandbox's own message, if a test carries it
                if "could not be loaded" in t.output:
                    return t.output
            match = re.match(r"^[^:]*: [\d.]+ / [\d.]+ points\.\s*(.*)$", self.output, re.S)
            return (match.group(1) if match else self.output).strip() or "the submission did not load"
        return None

    @property
    def defines_nothing(self) -> str | None:
        """The message of a submission that loaded but defined nothing the tests call (every test
        says "does not define ..."), or None."""
        if self.tests and all(not t.passed and UNDEFINED_RE.search(t.output) for t in self.tests):
            return next(t.output for t in self.tests)
        return None

    @property
    def not_loaded(self) -> str | None:
        """Why none of the submission's code could be tested (it did not load, or defined nothing
        the tests call), or None when it loaded."""
        failure = self.load_failure
        if failure:
            return failure
        nothing = self.defines_nothing
        return f"loaded, but defines nothing the tests call: {nothing}" if nothing else None

    @property
    def category(self) -> str:
        """ "graded", "did not load", "not graded" or "not submitted" (see :data:`CATEGORIES`)."""
        if self.status == NOT_SUBMITTED:
            return NOT_SUBMITTED
        if not self.graded:
            return NOT_GRADED
        return DID_NOT_LOAD if self.not_loaded else GRADED

    @property
    def loaded(self) -> bool:
        """Whether the submission was graded and its code could be tested."""
        return self.category == GRADED

    @property
    def earned(self) -> float:
        """The points its tests earned, before any late penalty."""
        return sum(t.score for t in self.tests)

    @property
    def limit_hits(self) -> list[tuple[str, str]]:
        """(test, message) for every test that ran out of time or was never reached, and
        ("loading", message) when loading the submission ran out of time."""
        hits = [(t.name, t.output) for t in self.tests if LIMIT_RE.search(t.output or "")]
        failure = self.load_failure
        if failure and LIMIT_RE.search(failure):
            hits.insert(0, ("loading", failure))
        return hits


def _number(value: object, default: float = 0.0) -> float:
    try:
        out = float(value)  # type: ignore[arg-type]
    except (TypeError, ValueError):
        return default
    return out if math.isfinite(out) else default


def _integer(value: object) -> int | None:
    if isinstance(value, bool):
        return None
    if isinstance(value, int):
        return value
    if isinstance(value, str) and re.fullmatch(r"-?\d+", value.strip()):
        return int(value)
    return None


_GRADED_FILE = re.compile(r"\b(?:Graded|Read) (?:file|notebook) (\S+?)[.:;]?(?:\s|$)")


def _pick(extra: dict, record: dict, key: str) -> object:
    """A field from ``extra_data``, else from the grader's record (older folders have neither)."""
    value = extra.get(key)
    return record.get(key) if value is None else value


def read_batch(results_dir: str | os.PathLike) -> list[StudentResult]:
    """Every student folder (``students/<student>/``) holding a ``results.json``, sorted by student name."""
    root = Path(results_dir)
    if not root.is_dir():
        raise ValueError(f"{str(results_dir)!r} is not a folder (give the --results-dir of autograder grade)")
    students = []
    for results in sorted(root.glob(f"{STUDENTS}/*/results.json")):
        folder = results.parent
        try:
            data = json.loads(results.read_text(encoding="utf-8"))
        except (OSError, ValueError) as error:
            raise ValueError(f"{results} is not readable JSON: {error}") from None
        if not isinstance(data, dict):
            raise ValueError(f"{results} does not hold a Gradescope results object")
        record: dict = {}
        with contextlib.suppress(OSError, ValueError):
            record = json.loads((folder / ".report.json").read_text(encoding="utf-8"))
        if not isinstance(record, dict):
            record = {}
        extra = data.get("extra_data")
        if not isinstance(extra, dict):
            extra = {}
        tests = [
            TestResult(
                str(t.get("name", f"test {i}")),
                _number(t.get("score")),
                _number(t.get("max_score")),
                str(t.get("status", "passed" if _number(t.get("score")) >= _number(t.get("max_score")) else "failed")),
                str(t.get("output") or ""),
            )
            for i, t in enumerate(data.get("tests") or [], start=1)
            if isinstance(t, dict)
        ]
        max_score = (
            sum(t.max_score for t in tests) or _number(record.get("max_score")) or _number(extra.get("max_score"))
        )
        feedback = next((folder / n for n in FEEDBACK_NAMES if (folder / n).is_file()), None)
        status = str(extra.get("status") or record.get("status") or GRADED)
        causes = record.get("causes")
        submission = str(record.get("submission") or "")
        file = str(_pick(extra, record, "file") or "")
        if not file:  # an older grader: the file is named in its sentence on what it read
            match = _GRADED_FILE.search(submission or str(data.get("output") or ""))
            file = match.group(1) if match else ""
        late_by = _pick(extra, record, "late_by")
        submitted_at = _pick(extra, record, "submitted_at")
        own_tests = record.get("own_tests")
        students.append(
            StudentResult(
                student=str(extra.get("student") or record.get("student") or folder.name),
                folder=folder,
                assignment=str(extra.get("assignment") or record.get("assignment") or ""),
                score=_number(data.get("score")),
                max_score=max_score,
                seconds=_number(data.get("execution_time")),
                tests=tests,
                output=str(data.get("output") or ""),
                problem=str(record.get("problem")) if record.get("problem") else None,
                feedback=feedback,
                status=status,
                causes=[str(c) for c in causes] if isinstance(causes, list) else [],
                file=file,
                seed=_integer(_pick(extra, record, "seed")),
                submitted_at=str(submitted_at) if submitted_at else None,
                late_by=None if late_by is None else max(0.0, _number(late_by)),
                penalty=_number(_pick(extra, record, "penalty")),
                submission=submission,
                own_tests=own_tests if isinstance(own_tests, dict) else {},
            )
        )
    if not students:
        older = any(root.glob("*/grader.json"))  # an older grader's layout: <student>/ beside the grader's files
        older_note = " (an older version of the grader wrote it: grade again)" if older else ""
        raise ValueError(
            f"no student results in {str(results_dir)!r}{older_note}: "
            f"expected {STUDENTS}/<student>/results.json folders"
        )
    return sorted(students, key=lambda s: s.student.lower())


# ---------------------------------------------------------------------- the summary
@dataclass
class FailureGroup:
    """The failures of one test whose messages share a pattern: how many, one example, and whose."""

    pattern: str
    count: int
    example: str
    students: list[str]


@dataclass
class TestSummary:
    """One test across the batch: how many attempted and passed it, and its most common failure
    groups."""

    name: str
    max_score: float
    attempts: int
    passed: int
    failures: list[FailureGroup]  #: most common first

    @property
    def rate(self) -> float:
        """The share of attempts that passed (0 when nobody attempted it)."""
        return self.passed / self.attempts if self.attempts else 0.0


@dataclass
class Misconception:
    """One planted bug (a chaff) across the class: how many of the students' own tests caught it."""

    name: str
    bug: str  #: the misconception, in one sentence (the chaff library's words)
    caught: int  #: submissions whose valid tests caught it
    over: int  #: submissions whose own tests were found and graded

    @property
    def share(self) -> float:
        """The share of those submissions whose tests caught it (0 when there are none)."""
        return self.caught / self.over if self.over else 0.0


def _library_bugs(assignment: str) -> dict[str, str]:
    """Each chaff's bug from the instructor's chaff library, for summaries that did not record
    them (an older grader); empty when the library cannot be read here."""
    try:
        from .own_tests import instructor_package

        return {c.name: c.bug for c in instructor_package("chaffs").chaffs_for(assignment)}
    except Exception:  # noqa: BLE001 - no library here: the chaffs are named as recorded
        return {}


def own_tests_caught(students: list[StudentResult]) -> tuple[int, list[Misconception]]:
    """Over the graded submissions whose own tests were found and graded (no problem stopped
    them): how many there are, and each planted bug with how many of them caught it, least
    caught first (then in the library's order), named by its misconception."""
    over = [s for s in students if s.graded and s.own_tests.get("found") is True and not s.own_tests.get("problem")]
    order: list[str] = []
    bugs: dict[str, str] = {}
    for s in over:
        names = s.own_tests.get("chaffs")
        for name in names if isinstance(names, list) else []:
            if isinstance(name, str) and name not in order:
                order.append(name)
        recorded = s.own_tests.get("misconceptions")
        if isinstance(recorded, dict):
            for name, bug in recorded.items():
                if isinstance(name, str) and isinstance(bug, str):
                    bugs.setdefault(name, bug)
    missing = [name for name in order if name not in bugs]
    if missing:
        for assignment in sorted({s.assignment for s in over if s.assignment}):
            for name, bug in _library_bugs(assignment).items():
                bugs.setdefault(name, bug)
    rows = []
    for name in order:
        caught = 0
        for s in over:
            found = s.own_tests.get("caught")
            caught += isinstance(found, list) and name in found
        rows.append(Misconception(name, bugs.get(name, name), caught, len(over)))
    rows.sort(key=lambda m: (m.share, order.index(m.name)))
    return len(over), rows


@dataclass
class BatchSummary:
    """Everything the page and the terminal summary show, computed once by :func:`summarize`."""

    students: list[StudentResult]  #: every student, whatever their group
    tests: list[TestSummary]  #: worst pass rate first, over the submissions that loaded
    assignments: list[str]
    written: str = field(default_factory=lambda: time.strftime("%Y-%m-%d %H:%M"))

    def group(self, category: str) -> list[StudentResult]:
        """The students of one of :data:`CATEGORIES`."""
        return [s for s in self.students if s.category == category]

    @property
    def counts(self) -> dict[str, int]:
        """How many students fall in each of :data:`CATEGORIES` (every one listed, zeros too)."""
        found = Counter(s.category for s in self.students)
        return {category: found[category] for category in CATEGORIES}

    @property
    def graded(self) -> list[StudentResult]:
        """The students with a score (those that did not load included, at the score they got):
        the scores and the times are computed over these."""
        return [s for s in self.students if s.graded]

    @property
    def loaded(self) -> list[StudentResult]:
        """The graded students whose code could be tested: the pass rates are computed over these."""
        return self.group(GRADED)

    @property
    def not_graded(self) -> list[StudentResult]:
        """The students the grader failed on: no score, counted and listed on their own."""
        return self.group(NOT_GRADED)

    @property
    def not_submitted(self) -> list[StudentResult]:
        """The students who handed in nothing: no score, counted and listed on their own."""
        return self.group(NOT_SUBMITTED)

    @property
    def not_graded_causes(self) -> list[tuple[str, list[str]]]:
        """Each distinct cause of the grader's failures, with the students it stopped."""
        causes: dict[str, list[str]] = {}
        for s in self.not_graded:
            for cause in s.causes or ["(no cause recorded; see the student's grader-log.txt)"]:
                causes.setdefault(cause, []).append(s.student)
        return list(causes.items())

    @property
    def scores(self) -> list[float]:
        """Every graded student's score, in the students' order (for the histogram and the averages)."""
        return [s.score for s in self.graded]

    @property
    def loaded_scores(self) -> list[float]:
        """The scores of the submissions that loaded."""
        return [s.score for s in self.loaded]

    @property
    def max_score(self) -> float:
        """The largest maximum score among the students (0 for an empty batch)."""
        return max((s.max_score for s in self.students), default=0.0)

    @property
    def load_failures(self) -> list[StudentResult]:
        """The students whose submission did not load (or defined nothing the tests call)."""
        return self.group(DID_NOT_LOAD)

    @property
    def limit_hitters(self) -> list[StudentResult]:
        """The students with at least one test stopped by a time limit."""
        return [s for s in self.graded if s.limit_hits]

    @property
    def late(self) -> list[StudentResult]:
        """The students who handed in after the due date."""
        return [s for s in self.students if s.submitted and (s.late_by or 0) > 0]

    @property
    def loaded_but_zero(self) -> list[tuple[StudentResult, str]]:
        """Submissions that loaded yet earned nothing, each with its most common failure message."""
        out = []
        for s in self.loaded:
            messages = [t.output for t in s.tests if not t.passed]
            if s.earned == 0 and messages:
                common = Counter(message_pattern(m) for m in messages).most_common(1)[0][0]
                out.append((s, next(m for m in messages if message_pattern(m) == common)))
        return out


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else 0.0


def summarize(students: list[StudentResult], top: int = 3) -> BatchSummary:
    """Per-test pass rates (worst first) with each test's ``top`` most common failure groups, over
    the submissions that loaded only (a blank or unloadable submission fails every test for one
    reason that says nothing about the tests)."""
    loaded = [s for s in students if s.loaded]
    order: list[str] = []
    for s in loaded:
        for t in s.tests:
            if t.name not in order:
                order.append(t.name)
    tests = []
    for name in order:
        results = [(s.student, t) for s in loaded for t in s.tests if t.name == name]
        groups: dict[str, list[tuple[str, str]]] = {}
        for student, t in results:
            if not t.passed:
                groups.setdefault(message_pattern(t.output or "(no message)"), []).append((student, t.output))
        failures = sorted(
            (FailureGroup(p, len(v), v[0][1] or "(no message)", [x for x, _ in v]) for p, v in groups.items()),
            key=lambda g: (-g.count, g.pattern),
        )[:top]
        tests.append(
            TestSummary(
                name, max(t.max_score for _, t in results), len(results), sum(t.passed for _, t in results), failures
            )
        )
    tests.sort(key=lambda t: (t.rate, order.index(t.name)))
    return BatchSummary(students, tests, sorted({s.assignment for s in students if s.assignment}))


def _points(value: float) -> str:
    return f"{value:g}"


def _late_words(seconds: float) -> str:
    from .report import late_words

    return late_words(seconds)


def _lateness(s: StudentResult) -> str:
    """ "on time", "2 h 5 min", or "" when nothing was submitted or the grader recorded nothing."""
    if not s.submitted or s.late_by is None:
        return ""
    return _late_words(s.late_by) if s.late_by > 0 else "on time"


def _names(students: list[str], limit: int = 12) -> str:
    return ", ".join(students[:limit]) + (", ..." if len(students) > limit else "")


def _counts_line(s: BatchSummary) -> str:
    n = s.counts
    return (
        f"{len(s.students)} student(s): {n[GRADED]} graded, {n[DID_NOT_LOAD]} did not load (graded, "
        f"0 for what did not run), {n[NOT_GRADED]} not graded (the grader failed), {n[NOT_SUBMITTED]} not submitted."
    )


def terminal_summary(summary: BatchSummary, page: Path | None = None, worst: int = 5) -> str:
    """A few lines for the terminal: how many fall in each group, who was not graded and why, then
    the scores over the graded, the worst tests over those that loaded, load failures, limits,
    times, lateness and who submitted nothing."""
    s = summary
    scores = s.scores
    graded = s.graded
    what = ", ".join(s.assignments) or "an assignment"
    lines = [_counts_line(s)]
    if s.not_graded:
        lines.append(
            f"NOT GRADED: {len(s.not_graded)} of {len(s.students)} submission(s) (a problem on the grader's "
            "side; no score, and left out of every figure below). Causes:"
        )
        for cause, students in s.not_graded_causes:
            lines.append(f"  - {' '.join(cause.split())[:300]} ({_names(students)})")
    missing = s.not_submitted
    if not graded:
        lines.append(f"No submission of {what} was graded.")
        if missing:
            lines.append(f"Not submitted: {len(missing)} ({_names([x.student for x in missing])})")
        if page is not None:
            lines.append(f"Report: {page}")
        return "\n".join(lines)
    lines.append(
        f"{len(graded)} {'graded ' if s.not_graded else ''}submission(s) of {what}: mean score "
        f"{statistics.mean(scores):.2f} / {_points(s.max_score)}, median {_points(statistics.median(scores))}; "
        f"{sum(x.score >= x.max_score > 0 for x in graded)} full marks, "
        f"{sum(x.score == 0 for x in graded)} zero."
    )
    loaded = s.loaded_scores
    if len(loaded) != len(scores):
        lines.append(
            f"Over the {len(loaded)} that loaded: "
            + (
                f"mean score {statistics.mean(loaded):.2f}, median {_points(statistics.median(loaded))}."
                if loaded
                else "none did."
            )
        )
    if s.tests:
        lines.append(
            f"Worst tests over the {len(s.loaded)} submission(s) that loaded (pass rate, most common failure):"
        )
        for t in s.tests[:worst]:
            common = f" - {t.failures[0].count}x {t.failures[0].pattern[:90]}" if t.failures else ""
            lines.append(f"  {100 * t.rate:5.1f}%  {t.name[:60]}{common}")
    else:
        lines.append("Worst tests: none to show (no submission loaded).")
    over, caught = own_tests_caught(s.students)
    if caught:
        lines.append(
            f"Planted bugs caught by the students' own tests, over the {over} submission(s) whose tests were "
            "found and graded (least caught first):"
        )
        for m in caught:
            bug = "".join(c if c.isprintable() else " " for c in " ".join(m.bug.split()))
            lines.append(f"  {100 * m.share:5.1f}%  ({m.caught} of {m.over})  {bug[:100]}")
    times = [x.seconds for x in graded]
    lines.append(
        f"Time per graded submission: median {statistics.median(times):.1f} s, 95th percentile "
        f"{_quantile(times, 0.95):.1f} s, longest {max(times):.1f} s."
    )
    hitters = s.limit_hitters
    lines.append(
        f"Hit a time limit: {len(hitters)}" + (f" ({_names([x.student for x in hitters])})" if hitters else "")
    )
    failed = s.load_failures
    lines.append(f"Did not load: {len(failed)}")
    for x in failed[:12]:
        lines.append(f"  {x.student}: {' '.join((x.not_loaded or '').split())[:110]}")
    if len(failed) > 12:
        lines.append(f"  ... and {len(failed) - 12} more")
    zero = s.loaded_but_zero
    lines.append(f"Loaded but scored nothing: {len(zero)}")
    for x, message in zero[:12]:
        lines.append(f"  {x.student}: {' '.join(message.split())[:110]}")
    late = s.late
    if late:
        taken = sum(x.penalty for x in late)
        lines.append(f"Late: {len(late)}" + (f" ({_points(taken)} point(s) taken off in all)" if taken else ""))
        for x in late[:12]:
            penalty = f", {_points(x.penalty)} point(s) off" if x.penalty else ""
            lines.append(f"  {x.student}: {_lateness(x)} late{penalty}")
        if len(late) > 12:
            lines.append(f"  ... and {len(late) - 12} more")
    if missing:
        lines.append(f"Not submitted: {len(missing)} ({_names([x.student for x in missing])})")
    if page is not None:
        lines.append(f"Report: {page}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the page
#: The style the sortable tables add to the shared one.
SORT_STYLE = """
table.sortable th button { font: inherit; font-weight: 600; color: inherit; background: none; border: 0;
  padding: 0; cursor: pointer; text-align: inherit; }
table.sortable th[aria-sort="ascending"] button::after { content: " \\25B2"; }
table.sortable th[aria-sort="descending"] button::after { content: " \\25BC"; }
table.sortable td:not(.text) { white-space: nowrap; }
.late { color: #9a6700; }
"""

#: Sorts a ``table.sortable`` by the column whose header is clicked (again: the other way). A
#: ``th`` with ``data-sort="number"`` sorts its cells' ``data-value`` as numbers (an empty value
#: last); other columns sort their text. The script only adds the header buttons and moves rows:
#: without it the tables read the same, in the order written.
SORT_SCRIPT = """
(function () {
  var tables = document.querySelectorAll("table.sortable");
  Array.prototype.forEach.call(tables, function (table) {
    var heads = table.tHead.rows[0].cells;
    Array.prototype.forEach.call(heads, function (th, column) {
      var button = document.createElement("button");
      button.type = "button";
      button.title = "sort by this column";
      while (th.firstChild) { button.appendChild(th.firstChild); }
      th.appendChild(button);
      button.addEventListener("click", function () {
        var up = th.getAttribute("aria-sort") !== "ascending";
        var numeric = th.getAttribute("data-sort") === "number";
        var body = table.tBodies[0];
        var rows = Array.prototype.slice.call(body.rows);
        var key = function (row) {
          var cell = row.cells[column];
          var text = !cell ? "" : cell.hasAttribute("data-value") ? cell.getAttribute("data-value") : cell.textContent;
          return numeric ? (text.trim() === "" ? NaN : Number(text)) : text.trim().toLowerCase();
        };
        rows.sort(function (a, b) {
          var x = key(a), y = key(b);
          if (numeric) {
            if (isNaN(x) || isNaN(y)) { return isNaN(x) - isNaN(y); }
            return up ? x - y : y - x;
          }
          var order = x.localeCompare(y, undefined, {numeric: true});
          return up ? order : -order;
        });
        Array.prototype.forEach.call(heads, function (other) { other.removeAttribute("aria-sort"); });
        th.setAttribute("aria-sort", up ? "ascending" : "descending");
        rows.forEach(function (row) { body.appendChild(row); });
      });
    });
  });
})();
"""


def _page(title: str, body: list[str]) -> str:
    """The shared page with the sortable tables' style and script (inline, at the end of the body)."""
    from minesweeper_kit.report_page import html_page

    page = html_page(title, "\n".join(body) + f"\n<script>{SORT_SCRIPT}</script>")
    return page.replace("</style>", SORT_STYLE + "</style>", 1)


def _td(html: str, value: float | str | None = "", *, text: bool = False, title: str = "") -> str:
    """One cell of a sortable table: ``html`` is trusted markup; ``value`` (a number, or None for
    "no value", sorted last) is what a numeric column sorts by."""
    from minesweeper_kit.report_page import esc

    attributes = ' class="text"' if text else ""
    if value is None:
        attributes += ' data-value=""'
    elif not isinstance(value, str):  # every digit: a seed of ten digits sorts as itself
        attributes += f' data-value="{value if isinstance(value, int) else repr(float(value))}"'
    if title:
        attributes += f' title="{esc(title)}"'
    return f"<td{attributes}>{html}</td>"


def _sortable_table(table_id: str, head: list[tuple[str, str, str]], rows: list[list[str]]) -> str:
    """A table the script sorts: ``head`` is (label, "number" or "text", tooltip) per column, each
    row a list of :func:`_td` cells."""
    from minesweeper_kit.report_page import esc

    cells = []
    for label, kind, tip in head:
        css = ' class="text"' if kind == "text" else ""
        tooltip = f' title="{esc(tip)}"' if tip else ""
        cells.append(f'<th scope="col" data-sort="{esc(kind)}"{css}{tooltip}>{esc(label)}</th>')
    body = "\n".join("<tr>" + "".join(row) + "</tr>" for row in rows)
    return (
        f'<table id="{esc(table_id)}" class="sortable">\n<thead><tr>{"".join(cells)}</tr></thead>\n'
        f"<tbody>\n{body}\n</tbody>\n</table>"
    )


def _score_figure(summary: BatchSummary):
    from minesweeper_kit.report_page import new_figure

    fig = new_figure(7.5, 3.2)
    ax = fig.subplots()
    top = summary.max_score or 1.0
    if float(top).is_integer() and top <= 40:  # one bar per whole point, centred on it
        bins: object = [x - 0.5 for x in range(int(top) + 2)]
    else:
        bins = [top * i / 20 for i in range(21)]
    loaded = summary.loaded_scores
    not_loaded = [s.score for s in summary.load_failures]
    ax.hist(
        [loaded, not_loaded],
        bins=bins,
        stacked=True,
        color=["#1f6feb", "#8c959f"],
        edgecolor="white",
        label=[f"loaded ({len(loaded)})", f"did not load ({len(not_loaded)})"],
    )
    mean = statistics.mean(summary.scores)
    ax.axvline(mean, color="#d1242f", linestyle="--", linewidth=1)
    ax.text(mean, ax.get_ylim()[1] * 0.95, f" mean {mean:.1f}", color="#d1242f", fontsize=8, va="top")
    ax.set_xlabel(f"score (of {_points(top)} points)")
    ax.set_ylabel("submissions")
    ax.yaxis.get_major_locator().set_params(integer=True)
    if not_loaded:
        ax.legend(fontsize=8, loc="best")
    return fig


def _pass_rate_figure(summary: BatchSummary):
    from minesweeper_kit.report_page import new_figure

    tests = summary.tests
    fig = new_figure(9.0, 1.0 + 0.3 * len(tests))
    ax = fig.subplots()
    ys = list(range(len(tests)))[::-1]
    rates = [100 * t.rate for t in tests]
    colours = ["#d1242f" if r < 50 else "#9a6700" if r < 80 else "#1a7f37" for r in rates]
    ax.barh(ys, rates, color=colours)
    ax.set_yticks(ys, [t.name if len(t.name) <= 60 else t.name[:59] + "…" for t in tests], fontsize=7)
    ax.set_xlim(0, 100)
    ax.set_xlabel(f"of the {len(summary.loaded)} submissions that loaded, % passing")
    for y, r in zip(ys, rates):
        ax.text(min(r + 1, 92), y, f"{r:.0f}%", va="center", fontsize=7)
    return fig


def _time_figure(summary: BatchSummary):
    from minesweeper_kit.report_page import new_figure

    students = sorted(summary.graded, key=lambda s: s.seconds)
    fig = new_figure(9.0, 3.0)
    ax = fig.subplots()
    colours = ["#d1242f" if s.limit_hits else "#8c959f" if not s.loaded else "#1f6feb" for s in students]
    ax.bar(range(len(students)), [s.seconds for s in students], color=colours, width=0.85)
    ax.set_xticks([])
    ax.set_xlabel("graded submissions, fastest to slowest (red: hit a time limit; grey: did not load)")
    ax.set_ylabel("grading time, s")
    return fig


def _link(target: Path, page_dir: Path) -> str:
    relative = os.path.relpath(target, page_dir)
    return "/".join(urllib.parse.quote(part) for part in Path(relative).parts)


def render_html(summary: BatchSummary, page_dir: str | os.PathLike) -> str:
    """The report page; links are relative to ``page_dir``, where the page will be written."""
    from minesweeper_kit.report_page import esc

    title = f"Batch report: {', '.join(summary.assignments) or 'autograder results'}"
    body = [f"<h1>{esc(title)}</h1>"] + _counts_section(summary) + _not_graded_section(summary)
    if summary.graded:
        body += _overview_section(summary) + _tests_section(summary) + _misconceptions_section(summary)
        body += _time_section(summary) + _load_section(summary)
    else:
        body += ["<p>No submission was graded.</p>"]
    body += _students_section(summary, Path(page_dir))
    return _page(title, body)


_GROUP_MEANING = {
    GRADED: ("a score, and the submission loaded", "every figure"),
    DID_NOT_LOAD: (
        "a score (0 for every test it stopped): the submission did not load, or loaded but defined "
        "nothing the tests call",
        "the scores and the times; not the pass rates",
    ),
    NOT_GRADED: ("no score: the grader failed on it (see Not graded)", "none"),
    NOT_SUBMITTED: ("no score: nothing was handed in", "none"),
}


def _counts_section(s: BatchSummary) -> list[str]:
    """How many students are in each group, what the group means, and which figures count it."""
    from minesweeper_kit.report_page import esc, table

    rows = []
    for category, count in s.counts.items():
        meaning, figures = _GROUP_MEANING[category]
        who = [x.student for x in s.group(category)] if category != GRADED else []
        names = esc(", ".join(who[:30]) + (" …" if len(who) > 30 else ""))
        rows.append([esc(category), str(count), esc(meaning), esc(figures), names])
    return [
        f'<p class="muted">{len(s.students)} students; written {esc(s.written)}.</p>',
        table(
            ["group", "students", "meaning", "counted in", "who"], rows, "counts", text_columns=(0, 2, 3, 4), raw=True
        ),
    ]


def _overview_section(s: BatchSummary) -> list[str]:
    """One line of figures, the score histogram and the pass-rate chart, each saying what it is over."""
    from minesweeper_kit.report_page import figure_svg

    scores, loaded = s.scores, s.loaded_scores
    over_loaded = (
        f"; over the {len(loaded)} that loaded: mean {statistics.mean(loaded):.2f}, median "
        f"{_points(statistics.median(loaded))}"
        if loaded and len(loaded) != len(scores)
        else ""
    )
    late = s.late
    taken = sum(x.penalty for x in late)
    body = [
        "<h2>Scores</h2>",
        f'<p id="score-figures">Over the {len(scores)} graded submissions (those that did not load at the score '
        f"they got): mean score {statistics.mean(scores):.2f} of {_points(s.max_score)}, median "
        f"{_points(statistics.median(scores))}{over_loaded}. Hit a time limit: {len(s.limit_hitters)}; handed in "
        f"late: {len(late)}" + (f" ({_points(taken)} point(s) taken off in all)" if taken else "") + ".</p>",
        '<figure id="scores">'
        + figure_svg(_score_figure(s), "scores", "histogram of scores")
        + f"<figcaption>How many of the {len(scores)} graded submissions earned each score (after any late "
        f"penalty): blue, the {len(loaded)} that loaded; grey, the {len(s.load_failures)} that did not load."
        "</figcaption></figure>",
        "<h2>Tests, worst first</h2>",
    ]
    if not s.tests:
        return body + ['<p id="tests-over">No submission loaded: there are no pass rates to show.</p>']
    return body + [
        f'<p id="tests-over">Over the {len(s.loaded)} submissions that loaded; the {len(s.load_failures)} that '
        "did not load, and those not graded or not submitted, are left out.</p>",
        '<figure id="pass-rates">'
        + figure_svg(_pass_rate_figure(s), "pass-rates", "pass rate of each test")
        + f"<figcaption>Share of the {len(s.loaded)} submissions that loaded passing each test.</figcaption>"
        "</figure>",
    ]


def _not_graded_section(s: BatchSummary) -> list[str]:
    """Who was not graded (the grader failed on them), and each distinct cause once."""
    from minesweeper_kit.report_page import esc, table

    if not s.not_graded:
        return []
    rows = [
        [f"<pre>{esc(cause)}</pre>", str(len(students)), esc(", ".join(students))]
        for cause, students in s.not_graded_causes
    ]
    return [
        f'<h2 id="not-graded">Not graded: {len(s.not_graded)}</h2>',
        "<p>A problem on the grader's side, not in these submissions, stopped their grading: they have no "
        "score and are left out of every figure on this page. Fix each cause, then grade them again.</p>",
        table(["cause", "submissions", "students"], rows, "not-graded", text_columns=(0, 2), raw=True),
    ]


def _tests_section(s: BatchSummary) -> list[str]:
    """The table of tests, worst first, each with its most common failure groups folded open."""
    from minesweeper_kit.report_page import esc, table

    if not s.tests:
        return []
    rows = []
    for t in s.tests:
        groups = "".join(
            f"<details><summary>{g.count}× <code>{esc(g.pattern)}</code></summary>"
            f'<p class="muted">for example ({esc(g.students[0])}):</p><pre>{esc(g.example[:1500])}</pre>'
            f'<p class="muted">{esc(", ".join(g.students[:30]))}{" …" if len(g.students) > 30 else ""}</p></details>'
            for g in t.failures
        )
        rows.append(
            [
                esc(t.name),
                _points(t.max_score),
                f"{t.passed} / {t.attempts}",
                f"{100 * t.rate:.0f}%",
                groups or '<span class="muted">—</span>',
            ]
        )
    return [
        table(
            [
                "test",
                "points",
                "passed (of those that loaded)",
                "pass rate",
                "most common failure messages (values replaced by <n>, <list>, <str> …)",
            ],
            rows,
            "tests",
            text_columns=(0, 4),
            raw=True,
        )
    ]


def _misconceptions_section(s: BatchSummary) -> list[str]:
    """Each planted bug (a misconception of the step, in the chaff library's words) with the share
    of the class whose own tests caught it, least caught first; nothing when no own tests were
    graded."""
    from minesweeper_kit.report_page import esc, table

    over, caught = own_tests_caught(s.students)
    if not caught:
        return []
    rows = [[esc(m.bug), f"{m.caught} / {m.over}", f"{100 * m.share:.0f}%"] for m in caught]
    return [
        '<h2 id="misconceptions-caught">Planted bugs the class\'s own tests catch, least caught first</h2>',
        f'<p id="misconceptions-over">Over the {over} graded submissions whose own tests were found and graded: '
        "the share whose valid tests caught each planted bug, named by its misconception. The first rows are "
        "the misconceptions the class's tests miss most.</p>",
        table(
            ["misconception", "caught by (submissions)", "share"],
            rows,
            "misconceptions",
            text_columns=(0,),
            raw=True,
        ),
    ]


def _time_section(s: BatchSummary) -> list[str]:
    """Time per submission: the figures, the chart, and who hit a time limit with which messages."""
    from minesweeper_kit.report_page import esc, figure_svg, table

    times = [x.seconds for x in s.graded]
    hit_rows = [
        [
            esc(x.student),
            f"{x.seconds:.1f} s",
            str(len(x.limit_hits)),
            "<br>".join(f"<b>{esc(name)}</b>: {esc(' '.join(msg.split())[:300])}" for name, msg in x.limit_hits[:4])
            + (f"<br>… {len(x.limit_hits) - 4} more" if len(x.limit_hits) > 4 else ""),
        ]
        for x in s.limit_hitters
    ]
    return [
        "<h2>Time per submission</h2>",
        f'<p id="times-over">Over the {len(times)} graded submissions: median {statistics.median(times):.1f} s, '
        f"95th percentile {_quantile(times, 0.95):.1f} s, longest {max(times):.1f} s (the grader's time for the "
        "whole submission).</p>",
        '<figure id="times">' + figure_svg(_time_figure(s), "times", "grading time of each submission") + "</figure>",
        "<h3>Who hit a time limit</h3>",
        table(["student", "time", "tests", "messages"], hit_rows, "limits", text_columns=(0, 3), raw=True)
        if hit_rows
        else "<p>Nobody hit a time limit.</p>",
    ]


def _load_section(s: BatchSummary) -> list[str]:
    """Who did not load and the most common causes; who loaded but scored nothing, and why."""
    from minesweeper_kit.report_page import esc, table

    body = ["<h2>Did not load</h2>"]
    failed = s.load_failures
    load_rows = [[esc(x.student), f"<pre>{esc(x.not_loaded or '')}</pre>"] for x in failed]
    if load_rows:
        causes = Counter(message_pattern(x.not_loaded or "") for x in failed)
        body.append(
            f"<p>{len(failed)} submission(s): graded (0 for every test they stopped), but left out of the pass "
            "rates. " + "; ".join(f"{n}× <code>{esc(p)}</code>" for p, n in causes.most_common(5)) + "</p>"
        )
        body.append(table(["student", "why"], load_rows, "load-failures", text_columns=(0, 1), raw=True))
    else:
        body.append("<p>Every graded submission loaded.</p>")
    zero = s.loaded_but_zero
    if zero:
        body.append("<h3>Loaded, but scored nothing</h3>")
        body.append(
            table(
                ["student", "most common failure"],
                [[esc(x.student), f"<pre>{esc(message[:1500])}</pre>"] for x, message in zero],
                "zero-scores",
                text_columns=(0, 1),
                raw=True,
            )
        )
    return body


def _note(x: StudentResult) -> str:
    """A one-phrase note on a student's result."""
    category = x.category
    if category == NOT_SUBMITTED:
        return " ".join(x.submission.split())[:200] or "nothing was handed in"
    if category == NOT_GRADED:
        return "a problem on the grader's side (see Not graded)"
    if category == DID_NOT_LOAD:
        return "defined nothing the tests call" if not x.load_failure else "did not load"
    passed = sum(t.passed for t in x.tests)
    return (
        "hit a time limit"
        if x.limit_hits
        else "all tests passed"
        if passed == len(x.tests)
        else f"{len(x.tests) - passed} test(s) failed"
    )


_STUDENT_COLUMNS = [
    ("student", "text", ""),
    ("status", "text", "graded, did not load, not graded (the grader failed) or not submitted"),
    ("file", "text", "the file graded, in the student's folder"),
    ("score", "number", "after any late penalty"),
    ("%", "number", ""),
    ("tests passed", "number", ""),
    ("late by", "number", "after the due date; hover a cell for when it was handed in"),
    ("penalty", "number", "points the late policy took off the score"),
    ("time", "number", "the grader's time for the whole submission"),
    ("seed", "number", "the seed the random cases were drawn from (--seed replays it)"),
    ("note", "text", ""),
    ("feedback", "text", ""),
]


def _student_row(x: StudentResult, page_dir: Path) -> list[str]:
    from minesweeper_kit.report_page import esc

    dash = '<span class="muted">—</span>'
    link = (
        f'<a href="{esc(_link(x.feedback, page_dir))}">{esc(x.feedback.name)}</a>'
        if x.feedback
        else '<span class="muted">none</span>'
    )
    scored = x.graded
    passed = sum(t.passed for t in x.tests)
    lateness = _lateness(x)
    late_css = ' class="late"' if (x.late_by or 0) > 0 else ""
    when = f"handed in {x.submitted_at}" if x.submitted_at else ""
    return [
        _td(esc(x.student), text=True),
        _td(esc(x.category), text=True),
        _td(f"<code>{esc(x.file)}</code>" if x.file else dash, text=True),
        _td(f"{_points(x.score)} / {_points(x.max_score)}", x.score) if scored else _td(dash, None),
        _td(f"{x.percent:.0f}%", x.percent) if scored else _td(dash, None),
        _td(f"{passed} / {len(x.tests)}", passed) if scored else _td(dash, None),
        _td(f"<span{late_css}>{esc(lateness)}</span>", x.late_by, title=when) if lateness else _td(dash, None),
        _td(_points(x.penalty), x.penalty) if x.submitted and x.late_by is not None else _td(dash, None),
        _td(f"{x.seconds:.1f} s", x.seconds) if x.submitted else _td(dash, None),
        _td(str(x.seed), x.seed) if x.submitted and x.seed is not None else _td(dash, None),
        _td(esc(_note(x)), text=True),
        _td(link, text=True),
    ]


def _students_section(s: BatchSummary, page_dir: Path) -> list[str]:
    """Every student (not submitted ones too): status, file, score, tests passed, lateness and
    penalty, time, seed, a one-phrase note, and a link to their feedback. Sorted by clicking a
    column header."""
    return [
        "<h2>Students</h2>",
        '<p class="muted">Click a column header to sort by it (again for the other way).</p>',
        _sortable_table("students", _STUDENT_COLUMNS, [_student_row(x, page_dir) for x in s.students]),
    ]


def write_report(results_dir: str | os.PathLike, output: str | os.PathLike | None = None) -> tuple[Path, BatchSummary]:
    """Read the batch, write the page (default ``RESULTS_DIR/report.html``); return its path and summary."""
    summary = summarize(read_batch(results_dir))
    page = Path(output) if output is not None else Path(results_dir) / PAGE
    page.parent.mkdir(parents=True, exist_ok=True)
    _write_page(page, render_html(summary, page.parent.resolve()), [results_dir])
    return page, summary


def _write_page(page: Path, html: str, results_dirs: Sequence[str | os.PathLike]) -> None:
    """Replace a page atomically, as private as the results it shows (see ``report.page_mode``)."""
    from .report import page_mode, write_results_file

    write_results_file(page, html.encode("utf-8"), page_mode(*(Path(d) for d in results_dirs)))


# ---------------------------------------------------------------------- several batches: the class
@dataclass
class AssignmentBatch:
    """One assignment's batch in the class view: its results folder, its summary, its own page."""

    name: str  #: the column's heading: the assignment, or the folder when that is ambiguous
    folder: Path
    summary: BatchSummary
    page: Path | None = None

    def result(self, student: str) -> StudentResult | None:
        """The student's result in this batch, or None when the folder holds none."""
        return next((s for s in self.summary.students if s.student == student), None)


def class_summary(results_dirs: Sequence[str | os.PathLike]) -> list[AssignmentBatch]:
    """Each results folder read and summarised, in the order given; the column names are the
    assignments (with the folder's name added where two folders hold the same assignment)."""
    folders = [Path(d) for d in results_dirs]
    seen: set[Path] = set()
    for folder in folders:
        key = Path(os.path.abspath(folder))
        if key in seen:
            raise ValueError(f"{str(folder)!r} is given twice")
        seen.add(key)
    batches = []
    for folder in folders:
        summary = summarize(read_batch(folder))
        batches.append(AssignmentBatch(", ".join(summary.assignments) or folder.name, folder, summary))
    names = Counter(b.name for b in batches)
    for b in batches:
        if names[b.name] > 1:
            b.name = f"{b.name} ({b.folder.name})"
    return batches


def _class_students(batches: list[AssignmentBatch]) -> list[str]:
    names = {s.student for b in batches for s in b.summary.students}
    return sorted(names, key=lambda n: (n.lower(), n))


def _class_cell(b: AssignmentBatch, x: StudentResult | None, page_dir: Path) -> str:
    """One student's result for one assignment: score / max (a link to the feedback), or the status."""
    from minesweeper_kit.report_page import esc

    if x is None:
        return _td('<span class="muted">no result</span>', None, title=f"no result for this student in {b.folder}")
    category = x.category
    text = (
        f"{_points(x.score)} / {_points(x.max_score)}"
        if category == GRADED
        else f"did not load ({_points(x.score)} / {_points(x.max_score)})"
        if category == DID_NOT_LOAD
        else category
    )
    html = f'<a href="{esc(_link(x.feedback, page_dir))}">{esc(text)}</a>' if x.feedback else esc(text)
    title = ""
    if (x.late_by or 0) > 0 and x.submitted:
        title = f"late by {_lateness(x)}" + (f"; {_points(x.penalty)} point(s) off" if x.penalty else "")
        html += ' <span class="late">late</span>'
    if category in (NOT_GRADED, NOT_SUBMITTED):
        html = f'<span class="muted">{html}</span>'
    return _td(html, x.score if x.graded else None, title=title)


def render_class_html(batches: list[AssignmentBatch], page_dir: str | os.PathLike) -> str:
    """The page over several batches: each assignment's summary with a link to its own page, then
    one row per student with one column per assignment and a total. Links are relative to
    ``page_dir``."""
    from minesweeper_kit.report_page import esc, table

    page_dir = Path(page_dir)
    title = f"Class report: {', '.join(b.name for b in batches)}"
    students = _class_students(batches)
    total_max = sum(b.summary.max_score for b in batches)
    summary_rows = []
    for b in batches:
        s = b.summary
        n = s.counts
        scores = s.scores
        worst = s.tests[0] if s.tests else None
        summary_rows.append(
            [
                esc(b.name),
                f"<code>{esc(str(b.folder))}</code>",
                str(len(s.students)),
                str(n[GRADED]),
                str(n[DID_NOT_LOAD]),
                str(n[NOT_GRADED]),
                str(n[NOT_SUBMITTED]),
                f"{statistics.mean(scores):.2f} / {_points(s.max_score)}" if scores else "—",
                _points(statistics.median(scores)) if scores else "—",
                f"{esc(worst.name)} ({100 * worst.rate:.0f}% of {worst.attempts})" if worst else "—",
                f'<a href="{esc(_link(b.page, page_dir))}">{esc(b.page.name)}</a>' if b.page else "—",
            ]
        )
    rows = []
    for student in students:
        cells = [_td(esc(student), text=True)]
        earned, notes, incomplete = 0.0, [], False
        for b in batches:
            x = b.result(student)
            cells.append(_class_cell(b, x, page_dir))
            if x is None:
                notes.append(f"no result: {b.name}")
            elif x.graded:
                earned += x.score
            else:
                notes.append(f"{x.category}: {b.name}")
                incomplete = incomplete or x.category == NOT_GRADED
        shown = f"{_points(earned)} / {_points(total_max)}"
        if incomplete:
            shown += ' <span class="muted">(incomplete)</span>'
        cells.append(_td(shown, earned))
        percent = 100.0 * earned / total_max if total_max else 0.0
        cells.append(_td(f"{percent:.0f}%", percent))
        cells.append(_td(esc("; ".join(notes)), text=True))
        rows.append(cells)
    head = (
        [("student", "text", "")]
        + [(b.name, "number", f"points in {b.name}, of {_points(b.summary.max_score)}") for b in batches]
        + [
            ("total", "number", "points earned in every assignment, of the sum of their maxima"),
            ("%", "number", ""),
            ("notes", "text", ""),
        ]
    )
    body = [
        f"<h1>{esc(title)}</h1>",
        f'<p class="muted">{len(students)} students, {len(batches)} assignments; written '
        f"{esc(batches[0].summary.written if batches else '')}.</p>",
        "<h2>Assignments</h2>",
        "<p>Each assignment's groups (as on its own page), its mean and median over its graded submissions "
        "(those that did not load at the score they got), and its worst test over the submissions that "
        "loaded.</p>",
        table(
            [
                "assignment",
                "results",
                "students",
                "graded",
                "did not load",
                "not graded",
                "not submitted",
                "mean (graded)",
                "median",
                "worst test (pass rate over those that loaded)",
                "page",
            ],
            summary_rows,
            "assignments",
            text_columns=(0, 1, 9, 10),
            raw=True,
        ),
        "<h2>Students</h2>",
        f"<p>One row per student, one column per assignment: the score (after any late penalty) of its "
        f"maximum, or why there is none. The total is the points earned in every assignment out of "
        f"{_points(total_max)}, the sum of the assignments' maxima: not submitted, and no result, count "
        "0; a total with an assignment not graded is incomplete until it is graded. Click a column header "
        "to sort by it.</p>",
        _sortable_table("class", head, rows),
    ]
    return _page(title, body)


def write_class_report(
    results_dirs: Sequence[str | os.PathLike], output: str | os.PathLike | None = None
) -> tuple[Path, list[AssignmentBatch]]:
    """Write each batch's own page (``DIR/report.html``) and the page over all of them (default:
    ``class-report.html`` in the first folder's parent); return its path and the batches."""
    if not results_dirs:
        raise ValueError("no results folder given")
    page = Path(output) if output is not None else Path(os.path.abspath(results_dirs[0])).parent / CLASS_PAGE
    own_pages = {Path(os.path.abspath(Path(d) / PAGE)) for d in results_dirs}
    if Path(os.path.abspath(page)) in own_pages:
        raise ValueError(f"{str(page)!r} is where an assignment's own page goes: write the class page elsewhere")
    batches = class_summary(results_dirs)
    for b in batches:
        b.page = b.folder / PAGE
        _write_page(b.page, render_html(b.summary, b.folder.resolve()), [b.folder])
    page.parent.mkdir(parents=True, exist_ok=True)
    _write_page(page, render_class_html(batches, page.parent.resolve()), results_dirs)
    return page, batches


def class_terminal_summary(batches: list[AssignmentBatch], page: Path | None = None) -> str:
    """One paragraph per assignment (its groups, its mean, its page), then where the class page is."""
    lines = []
    for b in batches:
        s = b.summary
        scores = s.scores
        mean = (
            f"mean score {statistics.mean(scores):.2f} / {_points(s.max_score)} over the {len(scores)} graded"
            if scores
            else "nothing graded"
        )
        lines.append(f"{b.name} ({b.folder}): {mean}.")
        lines.append("  " + _counts_line(s))
        for cause, students in s.not_graded_causes:
            lines.append(f"  NOT GRADED: {' '.join(cause.split())[:300]} ({_names(students)})")
        if b.page is not None:
            lines.append(f"  Report: {b.page}")
    students = _class_students(batches)
    lines.append(f"{len(students)} student(s) across {len(batches)} assignment(s).")
    if page is not None:
        lines.append(f"Class report: {page}")
    return "\n".join(lines)


def report_command(
    results_dirs: str | os.PathLike | Sequence[str | os.PathLike], output: str | os.PathLike | None = None
) -> int:
    """``autograder report``: write the page and print the summary; with several results folders,
    each one's page and the class page over them."""
    dirs = [results_dirs] if isinstance(results_dirs, (str, os.PathLike)) else list(results_dirs)
    try:
        if len(dirs) == 1:
            page, summary = write_report(dirs[0], output)
            print(terminal_summary(summary, page))
        else:
            page, batches = write_class_report(dirs, output)
            print(class_terminal_summary(batches, page))
    except RuntimeError as error:  # matplotlib missing
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    return 0
