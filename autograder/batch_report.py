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

This module computes every figure; the Jinja2 templates in ``autograder/templates`` lay them out
(``report.html``, ``class.html``, and the terminal summaries ``summary.txt`` and
``class_summary.txt``), escaping by default, so what students named and wrote stays text; only
the kit's own inline plots, style and sort script are marked as markup.

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
from typing import Any

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
    name: str = ""  #: the course's name of the assignment ("" when not recorded: the kit's id)
    #: after the due date and past its grace (older results: any time after the due date)
    late: bool = False
    refused: str = ""  #: why the import rule refused the whole file, or ""
    #: the student's total in nbgrader's gradebook as last recorded (``raw_score``, ``late_penalty``,
    #: ``score``, ``max_score``); empty when the grade was not recorded in one
    nbgrader: dict = field(default_factory=dict)

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
    totals = _gradebook_totals(root)
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
        max_score = (  # the recorded maximum is exact; a sum of rounded weights may not be
            _number(extra.get("max_score")) or _number(record.get("max_score")) or sum(t.max_score for t in tests)
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
        student = str(extra.get("student") or record.get("student") or folder.name)
        late = _pick(extra, record, "late")
        students.append(
            StudentResult(
                student=student,
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
                name=str(_pick(extra, record, "name") or _pick(extra, record, "assignment_name") or ""),
                late=bool(late) if late is not None else _number(late_by) > 0,
                refused=str(_pick(extra, record, "refused") or ""),
                nbgrader=totals.get(student, {}),
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


def _gradebook_totals(root: Path) -> dict[str, dict]:
    """Each student's total in nbgrader's gradebook, as the last recording wrote it beside
    ``students/`` (see ``report.GRADEBOOK_RECORD``); empty when the grades were never recorded."""
    from .report import GRADEBOOK_RECORD

    try:
        record = json.loads((root / GRADEBOOK_RECORD).read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    students = record.get("students") if isinstance(record, dict) else None
    if not isinstance(students, dict):
        return {}
    return {str(name): total for name, total in students.items() if isinstance(total, dict)}


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
        """The students who handed in after the due date and its grace: the late policy applies."""
        return [s for s in self.students if s.submitted and s.late]

    @property
    def names(self) -> list[str]:
        """Each assignment of the batch by the course's name, the kit's id beside it when they differ."""
        named = {s.assignment: s.name for s in self.students if s.assignment}
        return [f"{named[a]} ({a})" if named[a] and named[a] != a else a for a in self.assignments]

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
    """ "on time", "2 h 5 min", "20 min, within the grace", or "" when nothing was submitted or the
    grader recorded nothing."""
    if not s.submitted or s.late_by is None:
        return ""
    if s.late_by <= 0:
        return "on time"
    return _late_words(s.late_by) + ("" if s.late else ", within the grace")


def _names(students: list[str], limit: int = 12) -> str:
    return ", ".join(students[:limit]) + (", ..." if len(students) > limit else "")


def _counts_line(s: BatchSummary) -> str:
    n = s.counts
    return (
        f"{len(s.students)} student(s): {n[GRADED]} graded, {n[DID_NOT_LOAD]} did not load (graded, "
        f"0 for what did not run), {n[NOT_GRADED]} not graded (the grader failed), {n[NOT_SUBMITTED]} not submitted."
    )


# ---------------------------------------------------------------------- templates
def _templates(autoescape: bool = True) -> Any:
    """The Jinja2 environment of the report's templates (``autograder/templates``): HTML escaped
    by default, so what students named and wrote stays text; the text summaries unescaped (the
    terminal escapes control characters itself)."""
    from jinja2 import Environment, PackageLoader, StrictUndefined

    return Environment(
        loader=PackageLoader("autograder", "templates"),
        autoescape=autoescape,
        trim_blocks=True,
        lstrip_blocks=True,
        keep_trailing_newline=False,
        undefined=StrictUndefined,
    )


def terminal_summary(summary: BatchSummary, page: Path | None = None, worst: int = 5) -> str:
    """A few lines for the terminal (``templates/summary.txt``): how many fall in each group, who
    was not graded and why, then the scores over the graded, the worst tests over those that
    loaded, load failures, limits, times, lateness and who submitted nothing."""
    s = summary
    scores, graded = s.scores, s.graded
    loaded = s.loaded_scores
    context: dict[str, Any] = {
        "counts_line": _counts_line(s),
        "students": len(s.students),
        "not_graded": len(s.not_graded),
        "causes": [(" ".join(cause.split())[:300], _names(names)) for cause, names in s.not_graded_causes],
        "what": ", ".join(s.names) or "an assignment",
        "graded": len(graded),
        "missing": len(s.not_submitted),
        "missing_names": _names([x.student for x in s.not_submitted]),
        "page": str(page) if page is not None else "",
    }
    if graded:
        over, caught = own_tests_caught(s.students)
        times = [x.seconds for x in graded]
        late = s.late
        context.update(
            mean=f"{statistics.mean(scores):.2f}",
            maximum=_points(s.max_score),
            median=_points(statistics.median(scores)),
            full=sum(x.score >= x.max_score > 0 for x in graded),
            zero=sum(x.score == 0 for x in graded),
            loaded=len(s.loaded),
            loaded_line=""
            if len(loaded) == len(scores)
            else f"Over the {len(loaded)} that loaded: "
            + (
                f"mean score {statistics.mean(loaded):.2f}, median {_points(statistics.median(loaded))}."
                if loaded
                else "none did."
            ),
            worst=[
                f"{100 * t.rate:5.1f}%  {t.name[:60]}"
                + (f" - {t.failures[0].count}x {t.failures[0].pattern[:90]}" if t.failures else "")
                for t in s.tests[:worst]
            ],
            caught_over=over,
            caught=[
                f"{100 * m.share:5.1f}%  ({m.caught} of {m.over})  "
                + "".join(c if c.isprintable() else " " for c in " ".join(m.bug.split()))[:100]
                for m in caught
            ],
            time_median=f"{statistics.median(times):.1f}",
            time_p95=f"{_quantile(times, 0.95):.1f}",
            time_longest=f"{max(times):.1f}",
            hitters=len(s.limit_hitters),
            hitter_names=_names([x.student for x in s.limit_hitters]),
            failed=[(x.student, " ".join((x.not_loaded or "").split())[:110]) for x in s.load_failures],
            zero_scores=[(x.student, " ".join(message.split())[:110]) for x, message in s.loaded_but_zero],
            late=[
                f"{x.student}: {_lateness(x)} late" + (f", {_points(x.penalty)} point(s) off" if x.penalty else "")
                for x in late
            ],
            taken=_points(sum(x.penalty for x in late)) if sum(x.penalty for x in late) else "",
        )
    return _templates(autoescape=False).get_template("summary.txt").render(s=context).rstrip("\n")


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


@dataclass(frozen=True)
class TableCell:
    """One cell of a sortable table, as data: the template escapes ``text`` and lays it out."""

    text: str = ""
    #: what a numeric column sorts by (``data-value``): a number's text, "" for no value (sorted
    #: last), None for no attribute (a text column)
    sort: str | None = None
    text_column: bool = False
    title: str = ""  #: shown on hover
    href: str = ""  #: a relative link around the text
    look: str = ""  #: "code", "muted" or "late": how the text is set
    tag: str = ""  #: a short marker after the text ("late")
    tag_look: str = ""  #: how the marker is set ("late", "muted")
    muted: bool = False  #: the whole cell greyed out


@dataclass(frozen=True)
class TableColumn:
    """A column of a sortable table: its header, how it sorts ("number" or "text"), its tooltip."""

    label: str
    kind: str
    tip: str = ""


#: What a cell shows when there is nothing to show: in a numeric column (sorted last), in a text one.
DASH = TableCell("—", "", look="muted")
TEXT_DASH = TableCell("—", None, True, look="muted")


def _sort(value: float | int | None) -> str:
    """A number as a cell's ``data-value`` ("" for none): an int as itself, so a seed of ten
    digits sorts as itself; a float as Python writes it."""
    if value is None:
        return ""
    return str(value) if isinstance(value, int) and not isinstance(value, bool) else repr(float(value))


def _text(text: str, **looks: Any) -> TableCell:
    return TableCell(text, None, True, **looks)


def _number_cell(text: str, value: float | int | None, **looks: Any) -> TableCell:
    return TableCell(text, _sort(value), **looks)


def _render(template: str, title: str, **context: Any) -> str:
    """A page from ``templates/<template>``: the shared style and the sort script, inline."""
    from markupsafe import Markup

    from minesweeper_kit.report_page import STYLE

    page = _templates().get_template(template)
    return page.render(title=title, style=Markup(STYLE + SORT_STYLE), script=Markup(SORT_SCRIPT), **context) + "\n"


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
    """The report page (``templates/report.html``); links are relative to ``page_dir``, where the
    page will be written. Every figure is computed here; the template lays them out."""
    from markupsafe import Markup

    from minesweeper_kit.report_page import figure_svg

    s = summary
    page: dict[str, Any] = {
        "students_count": len(s.students),
        "written": s.written,
        "course_note": _scale_note(s),
        "counts": _counts(s),
        "not_graded": {
            "count": len(s.not_graded),
            "causes": [
                {"text": cause, "count": len(names), "students": ", ".join(names)}
                for cause, names in s.not_graded_causes
            ],
        }
        if s.not_graded
        else None,
        "scores": None,
        "nbgrader_note": NBGRADER_NOTE if any(x.nbgrader for x in s.students) else "",
        "students": {"head": _student_columns(s), "rows": [_student_row(x, s, Path(page_dir)) for x in s.students]},
    }
    if s.graded:
        scores, loaded = s.scores, s.loaded_scores
        late = s.late
        taken = sum(x.penalty for x in late)
        page["scores"] = {
            "count": len(scores),
            "mean": f"{statistics.mean(scores):.2f}",
            "maximum": _points(s.max_score),
            "median": _points(statistics.median(scores)),
            "loaded": len(loaded),
            "loaded_mean": f"{statistics.mean(loaded):.2f}" if loaded and len(loaded) != len(scores) else "",
            "loaded_median": _points(statistics.median(loaded)) if loaded else "",
            "not_loaded": len(s.load_failures),
            "limit_hitters": len(s.limit_hitters),
            "late": len(late),
            "taken": _points(taken) if taken else "",
            "figure": Markup(figure_svg(_score_figure(s), "scores", "histogram of scores")),
        }
        page["tests"] = _tests(s) if s.tests else None
        if s.tests:
            page["tests"]["figure"] = Markup(figure_svg(_pass_rate_figure(s), "pass-rates", "pass rate of each test"))
        over, caught = own_tests_caught(s.students)
        page["misconceptions"] = (
            {"over": over, "rows": [[m.bug, f"{m.caught} / {m.over}", f"{100 * m.share:.0f}%"] for m in caught]}
            if caught
            else None
        )
        times = [x.seconds for x in s.graded]
        page["times"] = {
            "count": len(times),
            "median": f"{statistics.median(times):.1f}",
            "p95": f"{_quantile(times, 0.95):.1f}",
            "longest": f"{max(times):.1f}",
            "figure": Markup(figure_svg(_time_figure(s), "times", "grading time of each submission")),
            "hitters": [
                {
                    "student": x.student,
                    "time": f"{x.seconds:.1f}",
                    "count": len(x.limit_hits),
                    "messages": [(name, " ".join(message.split())[:300]) for name, message in x.limit_hits[:4]],
                    "more": max(0, len(x.limit_hits) - 4),
                }
                for x in s.limit_hitters
            ],
        }
        failed = s.load_failures
        page["load"] = {
            "failed": [{"student": x.student, "why": x.not_loaded or ""} for x in failed],
            "causes": [
                (count, pattern)
                for pattern, count in Counter(message_pattern(x.not_loaded or "") for x in failed).most_common(5)
            ],
            "zero": [{"student": x.student, "message": message[:1500]} for x, message in s.loaded_but_zero],
        }
    title = f"Batch report: {', '.join(s.names) or 'autograder results'}"
    return _render("report.html", title, page=page)


#: What the page says of the column of nbgrader's totals.
NBGRADER_NOTE = (
    "The nbgrader column is each student's total as nbgrader's gradebook counts it, as recorded by the "
    "last `autograder grade` (what `nbgrader export` writes): the visible tests nbgrader grades, the "
    "hidden-tests cell holding this grade, any manual grade, and the late policy over that whole total."
)

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


def _scale_note(s: BatchSummary) -> str:
    """One sentence on what the assignment is out of, when the results say so."""
    maxima = sorted({x.max_score for x in s.students if x.max_score})
    if len(maxima) != 1:
        return ""
    return f"Every grade on this page is out of {_points(maxima[0])} points (the course's scale), late penalty taken."


def _counts(s: BatchSummary) -> list[dict[str, Any]]:
    """How many students are in each group, what the group means, and which figures count it."""
    rows = []
    for category, count in s.counts.items():
        meaning, figures = _GROUP_MEANING[category]
        who = [x.student for x in s.group(category)] if category != GRADED else []
        rows.append(
            {
                "group": category,
                "count": count,
                "meaning": meaning,
                "figures": figures,
                "who": ", ".join(who[:30]) + (" …" if len(who) > 30 else ""),
            }
        )
    return rows


def _tests(s: BatchSummary) -> dict[str, Any]:
    """The tests, worst first, each with its most common failure groups."""
    return {
        "loaded": len(s.loaded),
        "not_loaded": len(s.load_failures),
        "rows": [
            {
                "name": t.name,
                "points": _points(t.max_score),
                "passed": t.passed,
                "attempts": t.attempts,
                "rate": f"{100 * t.rate:.0f}",
                "groups": [
                    {
                        "count": g.count,
                        "pattern": g.pattern,
                        "first": g.students[0],
                        "example": g.example[:1500],
                        "students": ", ".join(g.students[:30]) + (" …" if len(g.students) > 30 else ""),
                    }
                    for g in t.failures
                ],
            }
            for t in s.tests
        ],
    }


def _note(x: StudentResult) -> str:
    """A one-phrase note on a student's result."""
    category = x.category
    if category == NOT_SUBMITTED:
        return " ".join(x.submission.split())[:200] or "nothing was handed in"
    if category == NOT_GRADED:
        return "a problem on the grader's side (see Not graded)"
    if x.refused:
        return "a disallowed import: the file scores 0"
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
    TableColumn("student", "text"),
    TableColumn("status", "text", "graded, did not load, not graded (the grader failed) or not submitted"),
    TableColumn("file", "text", "the file graded, in the student's folder"),
    TableColumn("score", "number", "after any late penalty"),
    TableColumn("%", "number"),
    TableColumn("tests passed", "number"),
    TableColumn("late by", "number", "after the due date; hover a cell for when it was handed in"),
    TableColumn("penalty", "number", "points the late policy took off the score"),
    TableColumn("time", "number", "the grader's time for the whole submission"),
    TableColumn("seed", "number", "the seed the random cases were drawn from (--seed replays it)"),
    TableColumn("note", "text"),
    TableColumn("feedback", "text"),
]
#: The column added when the grades were recorded in an nbgrader gradebook.
NBGRADER_COLUMN = TableColumn("nbgrader", "number", "the total nbgrader exports (see below the table)")


def _student_columns(s: BatchSummary) -> list[TableColumn]:
    columns = list(_STUDENT_COLUMNS)
    if any(x.nbgrader for x in s.students):
        columns.insert(4, NBGRADER_COLUMN)
    return columns


def _nbgrader_cell(x: StudentResult | None) -> TableCell:
    """A student's total in nbgrader's gradebook, or a dash when none was recorded."""
    total = x.nbgrader if x is not None else None
    if not total:
        return DASH
    score, maximum = _number(total.get("score")), _number(total.get("max_score"))
    penalty = _number(total.get("late_penalty"))
    title = f"{_points(_number(total.get('raw_score')))} before a late penalty of {_points(penalty)}" if penalty else ""
    return _number_cell(f"{_points(score)} / {_points(maximum)}", score, title=title)


def _student_row(x: StudentResult, s: BatchSummary, page_dir: Path) -> list[TableCell]:
    scored = x.graded
    passed = sum(t.passed for t in x.tests)
    lateness = _lateness(x)
    row = [
        _text(x.student),
        _text(x.category),
        _text(x.file, look="code") if x.file else TEXT_DASH,
        _number_cell(f"{_points(x.score)} / {_points(x.max_score)}", x.score) if scored else DASH,
        _number_cell(f"{x.percent:.0f}%", x.percent) if scored else DASH,
        _number_cell(f"{passed} / {len(x.tests)}", passed) if scored else DASH,
        _number_cell(
            lateness,
            x.late_by,
            look="late" if x.late else "",
            title=f"handed in {x.submitted_at}" if x.submitted_at else "",
        )
        if lateness
        else DASH,
        _number_cell(_points(x.penalty), x.penalty) if x.submitted and x.late_by is not None else DASH,
        _number_cell(f"{x.seconds:.1f} s", x.seconds) if x.submitted else DASH,
        _number_cell(str(x.seed), x.seed) if x.submitted and x.seed is not None else DASH,
        _text(_note(x)),
        _text(x.feedback.name, href=_link(x.feedback, page_dir)) if x.feedback else _text("none", look="muted"),
    ]
    if any(y.nbgrader for y in s.students):
        row.insert(4, _nbgrader_cell(x))
    return row


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
        batches.append(AssignmentBatch(", ".join(summary.names) or folder.name, folder, summary))
    names = Counter(b.name for b in batches)
    for b in batches:
        if names[b.name] > 1:
            b.name = f"{b.name} ({b.folder.name})"
    return batches


def _class_students(batches: list[AssignmentBatch]) -> list[str]:
    names = {s.student for b in batches for s in b.summary.students}
    return sorted(names, key=lambda n: (n.lower(), n))


def _class_cell(b: AssignmentBatch, x: StudentResult | None, page_dir: Path) -> TableCell:
    """One student's result for one assignment: score / max (a link to the feedback), or the status."""
    if x is None:
        return TableCell("no result", "", look="muted", title=f"no result for this student in {b.folder}")
    category = x.category
    text = (
        f"{_points(x.score)} / {_points(x.max_score)}"
        if category == GRADED
        else f"did not load ({_points(x.score)} / {_points(x.max_score)})"
        if category == DID_NOT_LOAD
        else category
    )
    title = ""
    if x.late and x.submitted:
        title = f"late by {_lateness(x)}" + (f"; {_points(x.penalty)} point(s) off" if x.penalty else "")
    return TableCell(
        text,
        _sort(x.score if x.graded else None),
        href=_link(x.feedback, page_dir) if x.feedback else "",
        tag="late" if x.late and x.submitted else "",
        tag_look="late",
        title=title,
        muted=category in (NOT_GRADED, NOT_SUBMITTED),
    )


def render_class_html(batches: list[AssignmentBatch], page_dir: str | os.PathLike) -> str:
    """The page over several batches (``templates/class.html``): each assignment's summary with a
    link to its own page, then one row per student with one column per assignment and a total,
    and, when the grades were recorded in nbgrader, nbgrader's total beside it. Links are relative
    to ``page_dir``. Every figure is computed here; the template lays them out."""
    page_dir = Path(page_dir)
    students = _class_students(batches)
    total_max = sum(b.summary.max_score for b in batches)
    recorded = [b for b in batches if any(x.nbgrader for x in b.summary.students)]
    assignments = []
    for b in batches:
        s = b.summary
        n = s.counts
        scores = s.scores
        worst = s.tests[0] if s.tests else None
        assignments.append(
            {
                "name": b.name,
                "folder": str(b.folder),
                "maximum": _points(s.max_score),
                "students": len(s.students),
                "graded": n[GRADED],
                "did_not_load": n[DID_NOT_LOAD],
                "not_graded": n[NOT_GRADED],
                "not_submitted": n[NOT_SUBMITTED],
                "mean": f"{statistics.mean(scores):.2f} / {_points(s.max_score)}" if scores else "—",
                "median": _points(statistics.median(scores)) if scores else "—",
                "worst": f"{worst.name} ({100 * worst.rate:.0f}% of {worst.attempts})" if worst else "—",
                "page_href": _link(b.page, page_dir) if b.page else "",
                "page_name": b.page.name if b.page else "",
            }
        )
    rows = []
    for student in students:
        cells = [_text(student)]
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
        cells.append(_number_cell(shown, earned, tag="(incomplete)" if incomplete else "", tag_look="muted"))
        percent = 100.0 * earned / total_max if total_max else 0.0
        cells.append(_number_cell(f"{percent:.0f}%", percent))
        if recorded:
            cells += _nbgrader_total_cells(recorded, student)
        cells.append(_text("; ".join(notes)))
        rows.append(cells)
    head = (
        [TableColumn("student", "text")]
        + [TableColumn(b.name, "number", f"points in {b.name}, of {_points(b.summary.max_score)}") for b in batches]
        + [
            TableColumn("total", "number", "points earned in every assignment, of the sum of their maxima"),
            TableColumn("%", "number"),
        ]
        + (
            [
                TableColumn("nbgrader total", "number", "the totals nbgrader exports, summed (see above the table)"),
                TableColumn("nbgrader %", "number"),
            ]
            if recorded
            else []
        )
        + [TableColumn("notes", "text")]
    )
    note = ""
    if recorded:
        names = ", ".join(b.name for b in recorded)
        note = (
            f"The nbgrader columns sum, over {names}, each student's total as nbgrader's gradebook counts it "
            "(what `nbgrader export` writes, as recorded by the last `autograder grade`). It differs from the "
            "total beside it, which is the autograder's grade only: nbgrader's counts the visible tests it "
            "grades too, manual grades, and takes the late policy from that whole total."
        )
    context = {
        "students_count": len(students),
        "written": batches[0].summary.written if batches else "",
        "assignments": assignments,
        "total_max": _points(total_max),
        "nbgrader_note": note,
        "head": head,
        "rows": rows,
    }
    return _render("class.html", f"Class report: {', '.join(b.name for b in batches)}", page=context)


def _nbgrader_total_cells(recorded: list[AssignmentBatch], student: str) -> list[TableCell]:
    """A student's nbgrader totals summed over the assignments recorded in a gradebook, out of the
    sum of their maxima (a student nbgrader has no submission from counts 0, as its export does)."""
    earned, maximum = 0.0, 0.0
    for b in recorded:
        x = b.result(student)
        total = x.nbgrader if x is not None else None
        maximum += max((_number(y.nbgrader.get("max_score")) for y in b.summary.students if y.nbgrader), default=0.0)
        if total:
            earned += _number(total.get("score"))
    percent = 100.0 * earned / maximum if maximum else 0.0
    return [
        _number_cell(f"{_points(round(earned, 4))} / {_points(round(maximum, 4))}", earned),
        _number_cell(f"{percent:.0f}%", percent),
    ]


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
    """One paragraph per assignment (its groups, its mean, its page), then where the class page is
    (``templates/class_summary.txt``)."""
    assignments = []
    for b in batches:
        s = b.summary
        scores = s.scores
        assignments.append(
            {
                "name": b.name,
                "folder": str(b.folder),
                "mean": (
                    f"mean score {statistics.mean(scores):.2f} / {_points(s.max_score)} over the {len(scores)} graded"
                    if scores
                    else "nothing graded"
                ),
                "counts_line": _counts_line(s),
                "causes": [(" ".join(cause.split())[:300], _names(names)) for cause, names in s.not_graded_causes],
                "page": str(b.page) if b.page is not None else "",
            }
        )
    text = _templates(autoescape=False).get_template("class_summary.txt")
    return text.render(
        assignments=assignments, students=len(_class_students(batches)), page=str(page) if page else ""
    ).rstrip("\n")


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
