"""The batch report: one page (and a terminal summary) over every student of a graded batch.

It reads the folder ``autograder grade --results-dir`` writes (one sub-folder per student with
Gradescope's ``results.json`` and ``feedback.txt``; the grader's own ``.report.json`` when it is
there) and answers what an instructor asks after grading: how scores spread, which tests fail
most and with which messages, who ran out of time, who did not load and why. Failure messages
are grouped after the case-specific values in them (numbers, coordinates, quoted values, paths)
are replaced by placeholders, so "expected 3, got 4" and "expected 0, got 1" count together.

A submission the grader failed on (status "not graded" in ``results.json``'s ``extra_data``) has no
score: it is counted and listed on its own, with the grader's causes, and never enters the
scores, the averages, the pass rates or the times.

The page is self-contained (inline SVG plots, inline style, no script) and links each student's
feedback file by a relative path, so the folder can be zipped and opened anywhere.
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
from dataclasses import dataclass, field
from pathlib import Path

__all__ = [
    "StudentResult",
    "TestSummary",
    "BatchSummary",
    "message_pattern",
    "read_batch",
    "summarize",
    "terminal_summary",
    "render_html",
    "write_report",
    "report_command",
]

FEEDBACK_NAMES = ("feedback.txt", "feedback.md", "feedback.html")
LIMIT_RE = re.compile(
    r"time limit exceeded|wall-clock guard|not reached: the submission's|"
    r"CPU time limit|budget of [\d.]+ ?s",
    re.I,
)
LOAD_RE = re.compile(r"could not be loaded|did not load|not graded:", re.I)


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
    """One student's graded submission, as read back from the results folder."""

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
    status: str = "graded"  #: "graded", or "not graded" when the grader failed (no score)
    causes: list[str] = field(default_factory=list)  #: why not graded (the grader's record)

    @property
    def graded(self) -> bool:
        """Whether this submission has a score: False when the grader failed on it."""
        return self.status != "not graded"

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


def read_batch(results_dir: str | os.PathLike) -> list[StudentResult]:
    """Every student folder holding a ``results.json``, sorted by student name."""
    root = Path(results_dir)
    if not root.is_dir():
        raise ValueError(f"{str(results_dir)!r} is not a folder (give the --results-dir of autograder grade)")
    students = []
    for results in sorted(root.glob("*/results.json")):
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
        extra = data.get("extra_data") or {}
        tests = [
            TestResult(
                str(t.get("name", f"test {i}")),
                _number(t.get("score")),
                _number(t.get("max_score")),
                str(t.get("status", "passed" if _number(t.get("score")) >= _number(t.get("max_score")) else "failed")),
                str(t.get("output") or ""),
            )
            for i, t in enumerate(data.get("tests") or [], start=1)
        ]
        max_score = (
            sum(t.max_score for t in tests) or _number(record.get("max_score")) or _number(extra.get("max_score"))
        )
        feedback = next((folder / n for n in FEEDBACK_NAMES if (folder / n).is_file()), None)
        status = str(extra.get("status") or record.get("status") or "graded")
        causes = record.get("causes")
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
                problem=record.get("problem") or None,
                feedback=feedback,
                status=status,
                causes=[str(c) for c in causes] if isinstance(causes, list) else [],
            )
        )
    if not students:
        raise ValueError(f"no student results in {str(results_dir)!r}: expected <student>/results.json folders")
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
class BatchSummary:
    """Everything the page and the terminal summary show, computed once by :func:`summarize`."""

    students: list[StudentResult]  #: every student, graded or not
    tests: list[TestSummary]  #: worst pass rate first (graded submissions only)
    assignments: list[str]
    written: str = field(default_factory=lambda: time.strftime("%Y-%m-%d %H:%M"))

    @property
    def graded(self) -> list[StudentResult]:
        """The students with a score: every figure below is computed over these alone."""
        return [s for s in self.students if s.graded]

    @property
    def not_graded(self) -> list[StudentResult]:
        """The students the grader failed on: no score, counted and listed on their own."""
        return [s for s in self.students if not s.graded]

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
    def max_score(self) -> float:
        """The largest maximum score among the students (0 for an empty batch)."""
        return max((s.max_score for s in self.students), default=0.0)

    @property
    def load_failures(self) -> list[StudentResult]:
        """The students whose submission did not load."""
        return [s for s in self.graded if s.load_failure]

    @property
    def limit_hitters(self) -> list[StudentResult]:
        """The students with at least one test stopped by a time limit."""
        return [s for s in self.graded if s.limit_hits]

    @property
    def loaded_but_zero(self) -> list[tuple[StudentResult, str]]:
        """Submissions that loaded yet scored nothing, each with its most common failure message."""
        out = []
        for s in self.graded:
            if s.score == 0 and s.tests and not s.load_failure:
                messages = [t.output for t in s.tests if not t.passed]
                common = Counter(message_pattern(m) for m in messages).most_common(1)[0][0]
                out.append((s, next(m for m in messages if message_pattern(m) == common)))
        return out


def _quantile(values: list[float], q: float) -> float:
    ordered = sorted(values)
    return ordered[max(0, math.ceil(q * len(ordered)) - 1)] if ordered else 0.0


def summarize(students: list[StudentResult], top: int = 3) -> BatchSummary:
    """Per-test pass rates (worst first) with each test's ``top`` most common failure groups, over
    the graded submissions only."""
    graded = [s for s in students if s.graded]
    order: list[str] = []
    for s in graded:
        for t in s.tests:
            if t.name not in order:
                order.append(t.name)
    tests = []
    for name in order:
        results = [(s.student, t) for s in graded for t in s.tests if t.name == name]
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


def terminal_summary(summary: BatchSummary, page: Path | None = None, worst: int = 5) -> str:
    """A few lines for the terminal: who was not graded and why, then over the graded submissions
    scores, the worst tests, load failures, limits, times."""
    s = summary
    scores = s.scores
    graded = s.graded
    what = ", ".join(s.assignments) or "an assignment"
    lines = []
    if s.not_graded:
        lines.append(
            f"NOT GRADED: {len(s.not_graded)} of {len(s.students)} submission(s) (a problem on the grader's "
            "side; no score, and left out of every figure below). Causes:"
        )
        for cause, students in s.not_graded_causes:
            lines.append(
                f"  - {' '.join(cause.split())[:300]} ({', '.join(students[:12])}"
                + (", ..." if len(students) > 12 else "")
                + ")"
            )
        if not graded:
            lines.append(f"No submission of {what} was graded.")
            if page is not None:
                lines.append(f"Report: {page}")
            return "\n".join(lines)
    lines.append(
        f"{len(graded)} {'graded ' if s.not_graded else ''}submission(s) of {what}: mean score "
        f"{statistics.mean(scores):.2f} / {_points(s.max_score)}, median {_points(statistics.median(scores))}; "
        f"{sum(x.score >= x.max_score > 0 for x in graded)} full marks, "
        f"{sum(x.score == 0 for x in graded)} zero."
    )
    lines.append("Worst tests (pass rate, most common failure):")
    for t in s.tests[:worst]:
        common = f" - {t.failures[0].count}x {t.failures[0].pattern[:90]}" if t.failures else ""
        lines.append(f"  {100 * t.rate:5.1f}%  {t.name[:60]}{common}")
    times = [x.seconds for x in graded]
    lines.append(
        f"Time per submission: median {statistics.median(times):.1f} s, 95th percentile "
        f"{_quantile(times, 0.95):.1f} s, longest {max(times):.1f} s."
    )
    hitters = s.limit_hitters
    lines.append(
        f"Hit a time limit: {len(hitters)}"
        + (
            f" ({', '.join(x.student for x in hitters[:12])}" + (", ..." if len(hitters) > 12 else "") + ")"
            if hitters
            else ""
        )
    )
    failed = s.load_failures
    lines.append(f"Did not load: {len(failed)}")
    for x in failed[:12]:
        lines.append(f"  {x.student}: {' '.join((x.load_failure or '').split())[:110]}")
    if len(failed) > 12:
        lines.append(f"  ... and {len(failed) - 12} more")
    zero = s.loaded_but_zero
    lines.append(f"Loaded but scored nothing: {len(zero)}")
    for x, message in zero[:12]:
        lines.append(f"  {x.student}: {' '.join(message.split())[:110]}")
    if page is not None:
        lines.append(f"Report: {page}")
    return "\n".join(lines)


# ---------------------------------------------------------------------- the page
def _score_figure(summary: BatchSummary):
    from minesweeper_kit.tournament_page import new_figure

    fig = new_figure(7.5, 3.2)
    ax = fig.subplots()
    top = summary.max_score or 1.0
    if float(top).is_integer() and top <= 40:  # one bar per whole point, centred on it
        bins: object = [x - 0.5 for x in range(int(top) + 2)]
    else:
        bins = [top * i / 20 for i in range(21)]
    ax.hist(summary.scores, bins=bins, color="#1f6feb", edgecolor="white")
    mean = statistics.mean(summary.scores)
    ax.axvline(mean, color="#d1242f", linestyle="--", linewidth=1)
    ax.text(mean, ax.get_ylim()[1] * 0.95, f" mean {mean:.1f}", color="#d1242f", fontsize=8, va="top")
    ax.set_xlabel(f"score (of {_points(top)} points)")
    ax.set_ylabel("submissions")
    ax.yaxis.get_major_locator().set_params(integer=True)
    return fig


def _pass_rate_figure(summary: BatchSummary):
    from minesweeper_kit.tournament_page import new_figure

    tests = summary.tests
    fig = new_figure(9.0, 1.0 + 0.3 * len(tests))
    ax = fig.subplots()
    ys = list(range(len(tests)))[::-1]
    rates = [100 * t.rate for t in tests]
    colours = ["#d1242f" if r < 50 else "#9a6700" if r < 80 else "#1a7f37" for r in rates]
    ax.barh(ys, rates, color=colours)
    ax.set_yticks(ys, [t.name if len(t.name) <= 60 else t.name[:59] + "…" for t in tests], fontsize=7)
    ax.set_xlim(0, 100)
    ax.set_xlabel("submissions passing, %")
    for y, r in zip(ys, rates):
        ax.text(min(r + 1, 92), y, f"{r:.0f}%", va="center", fontsize=7)
    return fig


def _time_figure(summary: BatchSummary):
    from minesweeper_kit.tournament_page import new_figure

    students = sorted(summary.graded, key=lambda s: s.seconds)
    fig = new_figure(9.0, 3.0)
    ax = fig.subplots()
    colours = ["#d1242f" if s.limit_hits else "#8c959f" if s.load_failure else "#1f6feb" for s in students]
    ax.bar(range(len(students)), [s.seconds for s in students], color=colours, width=0.85)
    ax.set_xticks([])
    ax.set_xlabel("submissions, fastest to slowest (red: hit a time limit; grey: did not load)")
    ax.set_ylabel("grading time, s")
    return fig


def _link(target: Path, page_dir: Path) -> str:
    relative = os.path.relpath(target, page_dir)
    return "/".join(urllib.parse.quote(part) for part in Path(relative).parts)


def render_html(summary: BatchSummary, page_dir: str | os.PathLike) -> str:
    """The report page; links are relative to ``page_dir``, where the page will be written."""
    from minesweeper_kit.tournament_page import esc, html_page

    title = f"Batch report: {', '.join(summary.assignments) or 'autograder results'}"
    if summary.graded:
        body = (
            _overview_section(summary, title)
            + _not_graded_section(summary)
            + _tests_section(summary)
            + _time_section(summary)
            + _load_section(summary)
        )
    else:
        body = [f"<h1>{esc(title)}</h1>", "<p>No submission was graded.</p>"] + _not_graded_section(summary)
    body += _students_section(summary, Path(page_dir))
    return html_page(title, "\n".join(body))


def _overview_section(s: BatchSummary, title: str) -> list[str]:
    """The title, one line of figures, the score histogram and the pass-rate chart."""
    from minesweeper_kit.tournament_page import esc, figure_svg

    scores = s.scores
    not_graded = f", {len(s.not_graded)} not graded (left out of every figure)" if s.not_graded else ""
    return [
        f"<h1>{esc(title)}</h1>",
        f'<p class="muted">{len(s.students)} submissions{not_graded}; mean score {statistics.mean(scores):.2f} of '
        f"{_points(s.max_score)}, median {_points(statistics.median(scores))} over the {len(scores)} graded; "
        f"{len(s.load_failures)} did not load; {len(s.limit_hitters)} hit a time limit; written {esc(s.written)}."
        "</p>",
        "<h2>Scores</h2>",
        '<figure id="scores">'
        + figure_svg(_score_figure(s), "scores", "histogram of scores")
        + "<figcaption>How many submissions earned each score.</figcaption></figure>",
        "<h2>Tests, worst first</h2>",
        '<figure id="pass-rates">'
        + figure_svg(_pass_rate_figure(s), "pass-rates", "pass rate of each test")
        + "<figcaption>Share of submissions passing each test.</figcaption></figure>",
    ]


def _not_graded_section(s: BatchSummary) -> list[str]:
    """Who was not graded (the grader failed on them), and each distinct cause once."""
    from minesweeper_kit.tournament_page import esc, table

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
    from minesweeper_kit.tournament_page import esc, table

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
                "passed",
                "pass rate",
                "most common failure messages (values replaced by <n>, <list>, <str> …)",
            ],
            rows,
            "tests",
            text_columns=(0, 4),
            raw=True,
        )
    ]


def _time_section(s: BatchSummary) -> list[str]:
    """Time per submission: the figures, the chart, and who hit a time limit with which messages."""
    from minesweeper_kit.tournament_page import esc, figure_svg, table

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
        f"<p>Median {statistics.median(times):.1f} s, 95th percentile {_quantile(times, 0.95):.1f} s, "
        f"longest {max(times):.1f} s (the grader's time for the whole submission).</p>",
        '<figure id="times">' + figure_svg(_time_figure(s), "times", "grading time of each submission") + "</figure>",
        "<h3>Who hit a time limit</h3>",
        table(["student", "time", "tests", "messages"], hit_rows, "limits", text_columns=(0, 3), raw=True)
        if hit_rows
        else "<p>Nobody hit a time limit.</p>",
    ]


def _load_section(s: BatchSummary) -> list[str]:
    """Who did not load and the most common causes; who loaded but scored nothing, and why."""
    from minesweeper_kit.tournament_page import esc, table

    body = ["<h2>Did not load</h2>"]
    load_rows = [[esc(x.student), f"<pre>{esc(x.load_failure or '')}</pre>"] for x in s.load_failures]
    if load_rows:
        causes = Counter(message_pattern(x.load_failure or "") for x in s.load_failures)
        body.append("<p>" + "; ".join(f"{n}× <code>{esc(p)}</code>" for p, n in causes.most_common(5)) + "</p>")
        body.append(table(["student", "why"], load_rows, "load-failures", text_columns=(0, 1), raw=True))
    else:
        body.append("<p>Every submission loaded.</p>")
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


def _students_section(s: BatchSummary, page_dir: Path) -> list[str]:
    """Every student: score, tests passed, time, a one-phrase note, and a link to their feedback."""
    from minesweeper_kit.tournament_page import esc, table

    student_rows = []
    for x in s.students:
        link = (
            f'<a href="{esc(_link(x.feedback, page_dir))}">{esc(x.feedback.name)}</a>'
            if x.feedback
            else '<span class="muted">none</span>'
        )
        if not x.graded:
            student_rows.append(
                [
                    esc(x.student),
                    f"not graded / {_points(x.max_score)}",
                    "—",
                    "—",
                    f"{x.seconds:.1f} s",
                    esc("not graded: a problem on the grader's side (see Not graded)"),
                    link,
                ]
            )
            continue
        passed = sum(t.passed for t in x.tests)
        note = (
            "did not load"
            if x.load_failure
            else "hit a time limit"
            if x.limit_hits
            else "all tests passed"
            if passed == len(x.tests)
            else f"{len(x.tests) - passed} test(s) failed"
        )
        student_rows.append(
            [
                esc(x.student),
                f"{_points(x.score)} / {_points(x.max_score)}",
                f"{x.percent:.0f}%",
                f"{passed} / {len(x.tests)}",
                f"{x.seconds:.1f} s",
                esc(note),
                link,
            ]
        )
    return [
        "<h2>Students</h2>",
        table(
            ["student", "score", "%", "tests passed", "time", "note", "feedback"],
            student_rows,
            "students",
            text_columns=(0, 5, 6),
            raw=True,
        ),
    ]


def write_report(results_dir: str | os.PathLike, output: str | os.PathLike | None = None) -> tuple[Path, BatchSummary]:
    """Read the batch, write the page (default ``RESULTS_DIR/report.html``); return its path and summary."""
    summary = summarize(read_batch(results_dir))
    page = Path(output) if output is not None else Path(results_dir) / "report.html"
    page.parent.mkdir(parents=True, exist_ok=True)
    page.write_text(render_html(summary, page.parent.resolve()), encoding="utf-8")
    return page, summary


def report_command(results_dir: str | os.PathLike, output: str | os.PathLike | None = None) -> int:
    """``autograder report``: write the page and print the summary."""
    try:
        page, summary = write_report(results_dir, output)
    except RuntimeError as error:  # matplotlib missing
        print(f"autograder: error: {error}", file=sys.stderr)
        return 2
    print(terminal_summary(summary, page))
    return 0
