"""Grade one submission: run the assignment's hidden pytest suite against its sandbox.

The suite runs here, in the trusted process; the student's code runs in a
:class:`~minesweeper_kit.sandbox.Sandbox`. This module owns the time rules: a whole-submission
budget and a limit per test, both in CPU seconds of the student's process (so a grade does not
depend on the machine's load), finished tests keep their points, tests never reached say so.

A failure on the grader's side is never a score. When the instructor's material is missing or
unreadable, a hidden test raises anything but a student-side failure (``Mismatch``,
``SandboxError``), or the sandbox cannot start (``IsolationUnavailable``, ``SandboxUnavailable``),
the report's status is "not graded": it has no score, and its ``causes`` tell the instructor
what to fix, one line per distinct cause.
"""

from __future__ import annotations

import contextlib
import io
import os
import time
import traceback
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

import pytest

from minesweeper_kit.formats.mit6009 import FunctionAPI
from minesweeper_kit.sandbox import (
    IsolationUnavailable,
    Sandbox,
    SandboxError,
    SandboxUnavailable,
    TimeLimitExceeded,
)
from minesweeper_kit.sandbox.inprocess import IN_PROCESS, InProcessBox

from .api_detection import OtherAPI, other_api
from .assignments import Assignment, InstructorMaterialMissing, instructor_dir, originals_dir
from .misconceptions import OWN_TESTS_ID, misconception_for
from .statuses import GRADED, NOT_GRADED, NOT_SUBMITTED
from .submission import Submission
from .suite import NOTE, Mismatch

__all__ = [
    "TestOutcome",
    "GradeReport",
    "grade_submission",
    "list_tests",
    "not_graded_report",
    "not_submitted_report",
    "GRADED",
    "NOT_GRADED",
    "NOT_SUBMITTED",
]

NOT_REACHED = "not reached: the submission's budget of {budget:g} s of CPU time ran out before this test"
NOT_REACHED_WALL = (
    "not reached: the submission's wall-clock budget of {wall:g} s ran out before this test (its calls waited, "
    "slept or blocked)"
)
#: A hidden test that raised on what this submission answered, where the reference passes it.
UNUSABLE_ANSWER = (
    "the grader could not use what your code returned here ({error}); check the types and shapes your functions "
    "return against the assignment"
)
NOT_LOADED = "not run: the submission did not load"
#: What a test that did not count says when the grader failed (no internal detail: students may see it).
GRADER_FAILED = "not graded: a problem on the grader's side (reported to the instructor)"


@dataclass
class TestOutcome:
    """One hidden test's result, in the shape Gradescope wants."""

    name: str
    max_score: float
    id: str = ""  #: the test function's name (stable across wording changes)
    score: float = 0.0
    status: str = "failed"  #: "passed" or "failed" ("not graded" when the grader failed)
    output: str = ""
    visibility: str = "visible"
    seconds: float = 0.0


@dataclass
class GradeReport:
    """Everything the grader found about one student's submission."""

    student: str
    assignment: str
    score: float | None  #: None when the submission was not graded
    max_score: float
    execution_time: float
    seed: int
    tests: list[TestOutcome] = field(default_factory=list)
    submission: str = ""  #: which file and which cells were graded
    problem: str | None = None  #: why nothing could be graded, if so
    stdout: str = ""
    stderr: str = ""
    protections: list[str] = field(default_factory=list)
    internal_errors: list[str] = field(default_factory=list)  #: for the instructor only
    isolation: str = "bwrap"  #: "bwrap", or "none" when the instructor turned it off
    #: "graded"; "not graded" when the grader failed, "not submitted" when there was nothing to
    #: grade: then there is no score at all
    status: str = GRADED
    causes: list[str] = field(default_factory=list)  #: why not graded, one line per cause, for the instructor
    file: str = ""  #: the file graded, relative to the student's folder
    notes: list[str] = field(default_factory=list)  #: for the student: which file was taken and why
    submitted_at: str | None = None  #: when it was handed in (nbgrader's timestamp.txt), ISO 8601
    late_by: float = 0.0  #: seconds after the due date; 0 when on time or the course sets none
    penalty: float = 0.0  #: points the late policy took off ``score`` (already subtracted)
    #: the name of the student's folder as handed in, when the id differs from it (two names that
    #: collide get suffixed ids): nbgrader's gradebook knows the student by this name
    handed_in_as: str = ""
    #: what the student's own tests did (``own_tests.py``): counts, the planted bugs caught, the
    #: requirement's unmet parts; empty when the step asks for no tests
    own_tests: dict[str, Any] = field(default_factory=dict)
    #: the planted bug (chaff) whose way of failing the hidden tests this submission shares
    #: (``misconceptions.py``): its name, ``bug`` and ``hint``, for one line of feedback; empty
    #: when none does
    misconception: dict[str, str] = field(default_factory=dict)
    #: the course's name of the assignment (nbgrader's folder name); the kit's id when it sets none
    assignment_name: str = ""
    #: handed in after the due date and past its grace: the late policy applies
    late: bool = False
    #: when Gradescope shows the result to the student: the course's ``visibility``, for the whole
    #: result (every test, the score and the overall output)
    visibility: str = "visible"
    #: why the import rule refused the whole file (``disallowed_import = "refuse"``), or "": then
    #: every part of the grade is 0, the student's own tests included
    refused: str = ""

    @property
    def graded(self) -> bool:
        """Whether the score stands: False when the grader failed or nothing was submitted."""
        return self.status == GRADED

    def to_dict(self) -> dict[str, Any]:
        """The report as plain data, so it crosses process and dask boundaries and is written as
        JSON."""
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> GradeReport:
        """The report :meth:`to_dict` gave, rebuilt."""
        known = {f.name for f in fields(cls)}
        data = {k: v for k, v in data.items() if k in known}  # a newer grader's extra keys are ignored
        data["tests"] = [TestOutcome(**t) for t in data.get("tests", [])]
        return cls(**data)


class _GradingPlugin:
    """Fixtures for the suite and the hooks that turn pytest outcomes into scores."""

    def __init__(
        self,
        assignment: Assignment,
        submission: Submission | None,
        seed: int,
        budget: float,
        hide: list[str],
        memory_mb: int | None,
        test_time_limit: float | None = None,
        settings: dict | None = None,
        isolation: str = "bwrap",
    ):
        self.assignment, self.submission, self.run_seed = assignment, submission, seed
        self.budget = budget
        self.hide = hide
        self.memory_mb = memory_mb
        self.test_cap = test_time_limit
        self.run_settings = dict(settings or {})
        self.isolation = isolation
        self.started = time.monotonic()
        self.sandbox: Sandbox | None = None
        self.load_error: SandboxError | None = None
        self.outcomes: dict[str, TestOutcome] = {}
        self.order: list[str] = []
        self.internal_errors: list[str] = []
        self.causes: list[str] = []  #: grader-side failures, each once: the submission is not graded
        self.unavailable: Exception | None = None  #: the sandbox could not start
        self.test_started = 0.0
        self.test_limits: dict[str, float] = {}
        self.wall_budget = assignment.wall_budget(budget)
        #: hidden tests that raised something unexpected, by node id: (the cause for the
        #: instructor, the error's type and message); whose fault it is is decided afterwards
        self.suspects: dict[str, tuple[str, str]] = {}

    # ---------------------------------------------------------------- fixtures
    @pytest.fixture(scope="session")
    def box(self) -> Sandbox:
        if self.submission is None:
            raise RuntimeError("no submission: only listing tests")
        if self.load_error is not None:
            raise self.load_error
        if self.unavailable is not None:
            raise self.unavailable
        if self.sandbox is None:
            try:
                box = InProcessBox if self.isolation == IN_PROCESS else Sandbox
                self.sandbox = box(
                    self.submission.source,
                    filename=self.submission.filename,
                    module_name=self.submission.module_name,
                    limits=self.assignment.limits(self.memory_mb),
                    import_policy=self.assignment.import_policy(),
                    hide=self.hide,
                    load_timeout=min(30.0, self.assignment.test_time_limit, self.test_cap or 30.0),
                    isolation=self.isolation,
                    bot_kit=self.assignment.kit_allowed,
                )
                self.sandbox.set_budget(self.budget)
                self.sandbox.set_window(self.test_limit or None)
                self.sandbox.set_deadline(self.wall_left())
                self.sandbox.start()
                other = other_api(self.assignment, self.sandbox.names, self.submission.source)
                if other is not None:  # one message, not every test's "does not define ..."
                    raise OtherAPI(other)
            except SandboxError as error:
                self.load_error = error
                raise
            except (SandboxUnavailable, IsolationUnavailable) as error:  # the grader's failure, not the student's
                self.unavailable = error
                raise
        return self.sandbox

    @pytest.fixture(scope="session")
    def api(self) -> FunctionAPI | None:
        """The function API the assignment grades (None for a notebook step): the suite the
        function-API terms share reads which one it grades."""
        return self.assignment.function_api()

    @pytest.fixture(scope="session")
    def seed(self) -> int:
        return self.run_seed

    @pytest.fixture(scope="session")
    def settings(self) -> dict:
        """Options of this grading run for the suite (e.g. ``bot_games``)."""
        return self.run_settings

    @pytest.fixture(scope="session")
    def submission_source(self) -> str:
        """The submission's source text, for suites that hand it to another runner (the arena)."""
        if self.submission is None:
            raise RuntimeError("no submission: only listing tests")
        return self.submission.source

    @pytest.fixture(scope="session")
    def originals(self) -> Path:
        return originals_dir()

    # ---------------------------------------------------------------- hooks
    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "points(n): what the test is worth")
        config.addinivalue_line("markers", "time_limit(seconds): the test's own time limit")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            marker = item.get_closest_marker("points")
            value = float(marker.args[0]) if marker and marker.args else 1.0
            doc = (getattr(getattr(item, "function", None), "__doc__", None) or "").strip().splitlines()
            name = doc[0].strip() if doc else item.name
            if hasattr(item, "callspec"):
                name += f" [{item.callspec.id}]"
            self.outcomes[item.nodeid] = TestOutcome(name=name, max_score=value, id=item.name, output="not run")
            self.order.append(item.nodeid)

    def cpu_used(self) -> float:
        return self.sandbox.cpu_seconds() if self.sandbox is not None else 0.0

    def wall_left(self) -> float:
        """Wall-clock seconds left of the submission's budget for its hidden tests."""
        return self.wall_budget - (time.monotonic() - self.started)

    @pytest.hookimpl(tryfirst=True)
    def pytest_runtest_setup(self, item: pytest.Item) -> None:
        self.test_cpu_started = self.cpu_used()  # first: a test skipped below used no time
        if self.load_error is not None:
            pytest.skip(NOT_LOADED)
        if self.unavailable is not None:
            pytest.skip(GRADER_FAILED)
        if self.cpu_used() >= self.budget:
            pytest.skip(NOT_REACHED.format(budget=self.budget))
        if self.wall_left() <= 0:
            pytest.skip(NOT_REACHED_WALL.format(wall=self.wall_budget))
        marker = item.get_closest_marker("time_limit")
        limit = float(marker.args[0]) if marker else self.assignment.test_time_limit
        if self.test_cap is not None:
            limit = min(limit, self.test_cap)
        self.test_limit = limit
        self.test_started = time.monotonic()
        self.test_limits[item.nodeid] = limit
        if self.sandbox is not None:
            self.sandbox.set_window(limit)

    test_limit: float = 0.0
    test_cpu_started: float = 0.0

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item: pytest.Item, call: pytest.CallInfo):
        outcome = yield
        report = outcome.get_result()
        result = self.outcomes.get(item.nodeid)
        if result is None:
            return
        if report.when == "call" or (report.when == "setup" and not report.passed):
            result.seconds = round(self.cpu_used() - self.test_cpu_started, 2)
            if report.passed:
                notes = [str(text) for key, text in report.user_properties if key == NOTE]
                result.score, result.status = result.max_score, "passed"
                result.output = "passed: " + " ".join(notes) if notes else "passed"
            else:
                result.score, result.status = 0.0, "failed"
                result.output = self._message(call, item)

    def _message(self, call: pytest.CallInfo, item: pytest.Item) -> str:
        excinfo = call.excinfo
        if excinfo is None:
            return "failed"
        error = excinfo.value
        if excinfo.errisinstance(pytest.skip.Exception):
            return str(getattr(error, "msg", error))
        if isinstance(error, SandboxError) and self.load_error is not None and error is self.load_error:
            return NOT_LOADED
        if isinstance(error, TimeLimitExceeded):
            if "loading" in str(error):
                return str(error)
            if error.kind == "wall":
                return f"time limit exceeded: {error}"
            if error.kind == "deadline":
                return (
                    f"time limit exceeded: the submission's wall-clock budget of {self.wall_budget:g} s ran out "
                    "during this test (its calls waited, slept or blocked); its process was killed"
                )
            if error.kind == "budget":
                return (
                    f"time limit exceeded: the submission's whole budget of {self.budget:g} s of CPU "
                    "time ran out during this test; its process was killed"
                )
            return (
                f"time limit exceeded: this test may use {self.test_limit:g} s of CPU time "
                f"({self.assignment.limit_note()}); the process was killed"
            )
        if isinstance(error, (Mismatch, SandboxError)):
            text = str(error)
            if self.submission is not None:
                text = self.submission.locate(text)
            return text
        self.internal_errors.append(
            f"{item.nodeid}: " + "".join(traceback.format_exception(excinfo.type, error, excinfo.tb))[-3000:]
        )
        message = " ".join(str(error).split())[:200]
        self.suspects[item.nodeid] = (
            grader_cause(item.nodeid, error, excinfo.tb, self.assignment),
            type(error).__name__ + (f": {message}" if message else ""),
        )
        return GRADER_FAILED

    def add_cause(self, cause: str) -> None:
        """Record a failure on the grader's side once: the submission will not be graded."""
        if cause not in self.causes:
            self.causes.append(cause)

    def close(self) -> tuple[str, str, list[str]]:
        if self.sandbox is None:
            return "", "", []
        stdout, stderr = self.sandbox.output()
        protections = self.sandbox.protections
        self.sandbox.close()
        return stdout, stderr, protections


def grader_cause(nodeid: str, error: BaseException, tb: Any, assignment: Assignment | None = None) -> str:
    """One line for the instructor saying what failed on the grader's side, the same for every
    student it stopped (so a batch prints it once): the sandbox, the missing or unreadable
    material by its path, or where the hidden suite raised."""
    if isinstance(error, (SandboxUnavailable, IsolationUnavailable)):
        text = " ".join(str(error).split())
        return text if text.startswith("the sandbox did not start") else f"the sandbox could not start: {text}"
    if isinstance(error, InstructorMaterialMissing):
        return str(error)
    if isinstance(error, OSError) and error.filename:
        reason = error.strerror or type(error).__name__
        if isinstance(error, (FileNotFoundError, PermissionError, IsADirectoryError, NotADirectoryError)):
            return f"instructor material is missing or unreadable: {error.filename} ({reason})"
        return f"the hidden test {nodeid} could not use {error.filename} ({reason})"
    frames = traceback.extract_tb(tb)
    suite = assignment.suite_path.name if assignment is not None else ""
    inside = [f for f in frames if suite and Path(f.filename).name == suite] or frames[-1:]
    where = f" at {Path(inside[-1].filename).name} line {inside[-1].lineno}, in {inside[-1].name}" if inside else ""
    message = " ".join(str(error).split())[:300]
    return f"the hidden test {nodeid} raised {type(error).__name__}" + (f": {message}" if message else "") + where


def _pytest_args(suite: Path) -> list[str]:
    return [
        str(suite),
        "-q",
        "-p",
        "no:cacheprovider",
        "-p",
        "no:unraisableexception",
        "-p",
        "no:threadexception",
        "-p",
        "no:faulthandler",
        "-p",
        "no:stepwise",
        "-p",
        "no:junitxml",
        "--assert=plain",
        "-o",
        "addopts=",
        "-o",
        "python_files=test_*.py",
        "--rootdir",
        str(suite.parent),
        "-c",
        os.devnull,
        "--noconftest",
        "--confcutdir",
        str(suite.parent),
        "--import-mode=importlib",
        "-W",
        "ignore::pytest.PytestAssertRewriteWarning",
        "--no-header",
        "--tb=no",
    ]


@contextlib.contextmanager
def _quiet_pytest():
    """pytest's output to a buffer, and no third-party plugins: the suites need none."""
    sink = io.StringIO()
    saved = os.environ.get("PYTEST_DISABLE_PLUGIN_AUTOLOAD")
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    try:
        with contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
            yield sink
    finally:
        if saved is None:
            os.environ.pop("PYTEST_DISABLE_PLUGIN_AUTOLOAD", None)
        else:
            os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = saved


def _run_pytest(plugin: _GradingPlugin, suite: Path) -> int:
    with _quiet_pytest() as sink:
        code = pytest.main(_pytest_args(suite), plugins=[plugin])
    if code not in (0, 1):
        plugin.internal_errors.append(f"pytest exited with {code}:\n{sink.getvalue()[-4000:]}")
        lines = [line for line in sink.getvalue().splitlines() if line.strip()]
        summary = next((line for line in reversed(lines) if "Error" in line), lines[-1] if lines else "")
        plugin.add_cause(
            f"the hidden suite {suite} could not be run (pytest exit code {int(code)}): {summary.strip()[:300]}"
        )
    return int(code)


def list_tests(assignment: Assignment) -> list[TestOutcome]:
    """The hidden suite's tests and their points, without running them."""
    plugin = _GradingPlugin(assignment, None, 0, 1.0, [], None)
    with _quiet_pytest() as sink:
        code = pytest.main(_pytest_args(assignment.suite_path) + ["--collect-only"], plugins=[plugin])
    if code not in (0, 5) or not plugin.order:
        raise RuntimeError(f"the {assignment.id} suite could not be collected:\n{sink.getvalue()[-3000:]}")
    return [plugin.outcomes[n] for n in plugin.order]


def default_hide() -> list[str]:
    """Paths a submission must never see: the instructor folder and the original data."""
    hide = []
    for finder in (instructor_dir, originals_dir):
        with contextlib.suppress(Exception):  # a missing folder needs no hiding
            hide.append(str(finder()))
    return hide


def grade_submission(
    assignment: Assignment,
    submission: Submission,
    *,
    seed: int,
    time_limit: float | None = None,
    hide: list[str] | None = None,
    memory_mb: int | None = None,
    test_time_limit: float | None = None,
    settings: dict | None = None,
    isolation: str = "bwrap",
) -> GradeReport:
    """Run the hidden suite on one submission and return its :class:`GradeReport`.

    ``time_limit`` is the whole-submission budget and ``test_time_limit`` caps every test's own
    limit (the suite's markers and the assignment's default), all in CPU seconds of the
    student's process. ``isolation`` is ``"bwrap"`` or ``"none"`` (trusted code only), or
    ``"in-process"``: the hidden suite's box runs the code in this process
    (``minesweeper_kit/sandbox/inprocess.py``), to measure a suite with the kit's own references,
    chaffs and wheats and never a student's; only this function accepts it, and not for a step
    whose own tests are graded (they need their sandboxes). A failure on the grader's side gives a
    "not graded" report (see :func:`not_graded_report`)."""
    if isolation == IN_PROCESS and _grades_own_tests(assignment):
        raise ValueError(f"isolation {IN_PROCESS!r} grades no own tests: turn them off for {assignment.id}")
    started = time.monotonic()
    missing = suite_problem(assignment)
    if missing is not None:
        return not_graded_report(assignment.id, submission, seed, [missing], isolation=isolation)
    budget = float(time_limit or assignment.time_limit)
    hide = list(hide or []) + default_hide()
    plugin = _GradingPlugin(assignment, submission, seed, budget, hide, memory_mb, test_time_limit, settings, isolation)
    if submission.problem:
        try:
            tests = list_tests(assignment)
        except (InstructorMaterialMissing, RuntimeError) as error:
            cause = " ".join(str(error).split())[:500]
            return not_graded_report(assignment.id, submission, seed, [cause], isolation=isolation)
        for test in tests:
            test.output = f"not graded: {submission.problem}"
        try:  # a test.py beside a file that does not parse still runs: it does not need that file
            own = _own_tests(assignment, submission, seed, isolation)
        except (SandboxUnavailable, IsolationUnavailable, InstructorMaterialMissing, OSError) as error:
            cause = (
                f"the student's own tests could not be graded: {type(error).__name__}: {' '.join(str(error).split())}"
            )
            return not_graded_report(assignment.id, submission, seed, [cause[:500]], tests=tests, isolation=isolation)
        if own is not None:
            tests.append(own[0])
        return GradeReport(
            submission.student,
            assignment.id,
            round(sum(t.score for t in tests), 4),
            sum(t.max_score for t in tests),
            round(time.monotonic() - started, 3),
            seed,
            tests,
            submission.describe(),
            submission.problem,
            own_tests=own[1] if own is not None else {},
        )
    try:
        _run_pytest(plugin, assignment.suite_path)
    finally:
        stdout, stderr, protections = plugin.close()
    if plugin.suspects:
        run = (seed, budget, tuple(hide), memory_mb, test_time_limit, settings, isolation)
        _settle_suspects(plugin, _reference_passes(assignment, *run))
    tests = [plugin.outcomes[n] for n in plugin.order]
    if plugin.causes:
        return not_graded_report(
            assignment.id,
            submission,
            seed,
            plugin.causes,
            tests=tests,
            internal_errors=plugin.internal_errors,
            execution_time=round(time.monotonic() - started, 3),
            isolation=isolation,
        )
    problem = None
    if isinstance(plugin.load_error, SandboxError):
        problem = submission.locate(str(plugin.load_error))
    refused = refused_import(assignment, submission)
    try:
        if refused:
            own = _own_tests_refused(assignment, refused)
        else:
            own = _own_tests(assignment, submission, seed, isolation)
    except (SandboxUnavailable, IsolationUnavailable, InstructorMaterialMissing, OSError) as error:
        cause = f"the student's own tests could not be graded: {type(error).__name__}: {' '.join(str(error).split())}"
        return not_graded_report(
            assignment.id,
            submission,
            seed,
            [cause[:500]],
            tests=tests,
            execution_time=round(time.monotonic() - started, 3),
            isolation=isolation,
        )
    if own is not None:
        tests.append(own[0])
    report = GradeReport(
        student=submission.student,
        assignment=assignment.id,
        score=round(sum(t.score for t in tests), 4),
        max_score=sum(t.max_score for t in tests),
        execution_time=round(time.monotonic() - started, 3),
        seed=seed,
        tests=tests,
        submission=submission.describe(),
        problem=problem,
        stdout=stdout,
        stderr=stderr,
        protections=protections,
        internal_errors=plugin.internal_errors,
        isolation=isolation,
        own_tests=own[1] if own is not None else {},
        refused=submission.locate(refused) if refused else "",
    )
    report.misconception = misconception_for(report)
    return report


def _settle_suspects(plugin: _GradingPlugin, reference_passed: frozenset[str] | None) -> None:
    """Decide whose fault each unexpected exception of a hidden test is, by where it happened: a
    test the reference solution passes in the same run (same seed, settings and limits) does not
    raise on valid answers, so here it raised on what this submission answered: the student's,
    and the test fails with a message. Where the reference raises too, or could not be run, the
    fault is proven on the grader's side: the submission is not graded."""
    for nodeid, (cause, error) in plugin.suspects.items():
        if reference_passed is not None and nodeid in reference_passed:
            plugin.outcomes[nodeid].output = UNUSABLE_ANSWER.format(error=error)
        else:
            plugin.add_cause(cause)


#: The hidden tests the reference passes, per run (see :func:`_reference_passes`), kept for the
#: other submissions of a batch.
_REFERENCE_RUNS: dict[str, frozenset[str] | None] = {}


def _reference_passes(
    assignment: Assignment,
    seed: int,
    budget: float,
    hide: tuple[str, ...],
    memory_mb: int | None,
    test_time_limit: float | None,
    settings: dict | None,
    isolation: str,
) -> frozenset[str] | None:
    """The node ids of the hidden tests the reference solution passes, graded as a submission is
    with these settings; None when the reference cannot be read or graded."""
    key = repr(
        (assignment, seed, budget, hide, memory_mb, test_time_limit, sorted((settings or {}).items()), isolation)
    )
    if key not in _REFERENCE_RUNS:
        from .references import reference_submission

        try:
            reference = reference_submission(assignment)
        except (OSError, ValueError, InstructorMaterialMissing):
            _REFERENCE_RUNS[key] = None
            return None
        plugin = _GradingPlugin(
            assignment, reference, seed, budget, list(hide), memory_mb, test_time_limit, settings, isolation
        )
        try:
            _run_pytest(plugin, assignment.suite_path)
        finally:
            plugin.close()
        passed = {n for n in plugin.order if n not in plugin.suspects and plugin.outcomes[n].status == "passed"}
        _REFERENCE_RUNS[key] = None if plugin.causes else frozenset(passed)
    return _REFERENCE_RUNS[key]


#: The name of the result that holds the student's own tests (after the hidden tests); its id,
#: OWN_TESTS_ID, is defined with the misconception matching, which must leave it out.
OWN_TESTS = "Your own tests"
#: What the own-tests result says when the import rule refused the whole file.
OWN_TESTS_REFUSED = "not run: your file was refused for an import the assignment does not allow, so it scores 0"


def refused_import(assignment: Assignment, submission: Submission) -> str:
    """Why the import rule refuses the whole file (the first disallowed import, with its line); ""
    when it does not: every import is allowed, the course lets a disallowed import fail only where
    it runs (``disallowed_import = "lose-tests"``), or the file did not parse (its own problem)."""
    policy = assignment.import_policy()
    if not policy.refuse_file or submission.problem:
        return ""
    found = policy.violations(submission.source)
    return found[0] if found else ""


def _grades_own_tests(assignment: Assignment) -> bool:
    """Whether a grade of this assignment grades the students' own tests (the course may turn them off)."""
    from .own_tests import REQUIREMENTS

    return assignment.id in REQUIREMENTS and assignment.own_tests


def _own_tests_refused(assignment: Assignment, refused: str) -> tuple[TestOutcome, dict[str, Any]] | None:
    """The own-tests result of a file the import rule refused: 0 of their points, not run (a file
    refused scores 0 in every part); None when the step's own tests are worth nothing here."""
    from .own_tests import REQUIREMENTS

    if assignment.id not in REQUIREMENTS or not assignment.own_tests or not assignment.own_tests_points:
        return None
    outcome = TestOutcome(OWN_TESTS, float(assignment.own_tests_points), OWN_TESTS_ID, 0.0, "failed", OWN_TESTS_REFUSED)
    return outcome, {"found": None, "problem": refused}


def _own_tests(
    assignment: Assignment, submission: Submission, seed: int, isolation: str
) -> tuple[TestOutcome, dict[str, Any]] | None:
    """The student's own tests as one more result, and their summary; None when the step asks for
    none. Raises what stopped the grader (a sandbox that does not start, missing instructor
    material): then nothing of the grade stands."""
    from .own_tests import grade_in_submission

    try:
        graded = grade_in_submission(
            assignment,
            submission.source,
            submission.path,
            seed=seed,
            isolation=isolation,
            cells=submission.test_cells if submission.kind == "notebook" else None,
        )
    except SandboxError as error:  # from a sandbox: the student's tests' doing, never the grader's
        points = float(assignment.own_tests_points)
        message = f"your tests could not be run: {' '.join(str(error).split())[:500]}"
        return TestOutcome(OWN_TESTS, points, OWN_TESTS_ID, 0.0, "failed", message), {"problem": message}
    if graded is None:
        return None
    summary = graded.summary
    whole = summary.get("found") and not summary.get("problem") and summary.get("valid") and not summary.get("unmet")
    status = "passed" if whole and graded.score >= graded.max_score else "failed"
    outcome = TestOutcome(OWN_TESTS, graded.max_score, OWN_TESTS_ID, graded.score, status, graded.output)
    return outcome, graded.summary


def suite_problem(assignment: Assignment) -> str | None:
    """Why the assignment's hidden suite cannot be run (a missing instructor folder or suite
    file, named by its path), or None when it is there to run."""
    try:
        suite = assignment.suite_path
    except InstructorMaterialMissing as error:
        return " ".join(str(error).split())
    if not suite.is_file():
        return f"the hidden suite {suite} is missing or is not a file"
    if not os.access(suite, os.R_OK):
        return f"the hidden suite {suite} is not readable"
    return None


def not_graded_report(
    assignment_id: str,
    submission: Submission,
    seed: int,
    causes: list[str],
    *,
    tests: list[TestOutcome] | None = None,
    internal_errors: list[str] | None = None,
    execution_time: float = 0.0,
    isolation: str = "bwrap",
) -> GradeReport:
    """The report of a submission the grader failed on: status "not graded" and no score, so no
    failure of the grader's ever counts against a student. Its tests (when they are known) keep
    their maximum and say they did not count; ``causes`` tell the instructor what to fix."""
    tests = list(tests or [])
    for test in tests:
        test.score, test.status, test.output = 0.0, NOT_GRADED, GRADER_FAILED
    return GradeReport(
        student=submission.student,
        assignment=assignment_id,
        score=None,
        max_score=sum(t.max_score for t in tests),
        execution_time=execution_time,
        seed=seed,
        tests=tests,
        submission=submission.describe(),
        internal_errors=list(internal_errors or []) or list(causes),
        isolation=isolation,
        status=NOT_GRADED,
        causes=list(causes),
    )


def not_submitted_report(
    assignment_id: str, student: str, seed: int, reason: str, *, max_score: float = 0.0
) -> GradeReport:
    """The report of a student who handed in nothing for this assignment: status "not submitted",
    no score and no tests, so it is never counted among the graded nor read as a 0."""
    return GradeReport(
        student=student,
        assignment=assignment_id,
        score=None,
        max_score=max_score,
        execution_time=0.0,
        seed=seed,
        submission=reason,
        status=NOT_SUBMITTED,
    )
