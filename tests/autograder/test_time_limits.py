"""Time limits are fair: set from the reference's CPU time, and stated as what they are.

``Assignment.limit_factor`` promises that every test's limit is at least that many times the
CPU time the reference solution needs in it. Each assignment's reference is graded here on the
hidden suite alone (its own tests are not held to those limits, so their grading is left out) and
each test's limit, read as grading reads it (the suite's ``time_limit`` marker, else the
assignment's ``test_time_limit``), is compared with the CPU seconds the reference used in it
(``TestOutcome.seconds``).

The bots assignment is left out of that comparison on purpose: its suite plays the bot's games
in the arena's own sandboxes under their own budget, so ``TestOutcome.seconds`` (the grading
sandbox's CPU time) does not include them and says nothing about that budget.

Then two submissions run out of time for real: one that computes past a test's CPU limit must
be told the CPU limit and how limits are chosen; one that sleeps must be stopped by the
wall-clock guard and told so.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import time
from pathlib import Path

import pytest

from autograder.assignments import Assignment, get_assignment
from autograder.check import reference_submission
from autograder.grading import OWN_TESTS_ID, grade_submission
from autograder.submission import Submission

pytestmark = pytest.mark.slow

SEED = 31337
FACTOR_SENTENCE = "each test's limit is at least 10 times the CPU time the reference solution needs for it"
WALL_GUARD = ("time limit exceeded: wall-clock guard: the code used no CPU time for 5 s (it slept, waited "
              "or blocked); the process was killed")


class _LimitReader:
    """A pytest plugin that reads each collected test's limit as the grader does."""

    def __init__(self, default: float):
        self.default = default
        self.limits: dict[str, float] = {}

    def pytest_configure(self, config: pytest.Config) -> None:
        config.addinivalue_line("markers", "points(n): what the test is worth")
        config.addinivalue_line("markers", "time_limit(seconds): the test's own time limit")

    def pytest_collection_modifyitems(self, items: list[pytest.Item]) -> None:
        for item in items:
            marker = item.get_closest_marker("time_limit")
            self.limits[item.name] = float(marker.args[0]) if marker else self.default


def suite_limits(assignment: Assignment) -> dict[str, float]:
    """Each hidden test's own limit in CPU seconds, by test function name."""
    reader = _LimitReader(assignment.test_time_limit)
    suite = assignment.suite_path
    args = [str(suite), "--collect-only", "-q", "-p", "no:cacheprovider", "--noconftest", "-c", os.devnull,
            "--rootdir", str(suite.parent), "--import-mode=importlib", "-o", "addopts=",
            "-o", "python_files=test_*.py"]
    sink = io.StringIO()
    with pytest.MonkeyPatch.context() as patch, contextlib.redirect_stdout(sink), contextlib.redirect_stderr(sink):
        patch.setenv("PYTEST_DISABLE_PLUGIN_AUTOLOAD", "1")  # as grading runs the suites: no other plugins
        code = pytest.main(args, plugins=[reader])
    assert code == 0 and reader.limits, sink.getvalue()[-3000:]
    return reader.limits


@pytest.mark.parametrize("assignment_id", ["neighbors", "make-board", "flood-fill", "hypermines"])
def test_every_limit_is_at_least_the_factor_times_the_reference(assignment_id):
    assignment = get_assignment(assignment_id)
    limits = suite_limits(assignment)
    hidden_only = dataclasses.replace(assignment, own_tests=False)
    report = grade_submission(hidden_only, reference_submission(assignment), seed=SEED)
    assert report.score == report.max_score, [(t.id, t.output) for t in report.tests if t.status != "passed"]
    assert report.internal_errors == []
    hidden = [t for t in report.tests if t.id != OWN_TESTS_ID]  # the reference's own tests run outside the suite
    assert {t.id for t in hidden} == set(limits)
    measured = {t.id: t.seconds for t in hidden}
    # CPU time grows when another process shares the core's caches; a test that looks too tight is
    # measured again (at most twice) and its least CPU time is the reference's own cost.
    for _ in range(2):
        close = [name for name, seconds in measured.items() if limits[name] < assignment.limit_factor * seconds]
        if not close:
            break
        again = grade_submission(hidden_only, reference_submission(assignment), seed=SEED)
        measured.update({t.id: min(measured[t.id], t.seconds) for t in again.tests if t.id in close})
    print(f"{assignment_id}: limit / reference CPU seconds:",
          {name: f"{limits[name]:g} / {seconds:.2f}" for name, seconds in measured.items()})
    too_tight = {name: f"limit {limits[name]:g} s < {assignment.limit_factor:g} x {seconds:.2f} s"
                 for name, seconds in measured.items() if limits[name] < assignment.limit_factor * seconds}
    assert too_tight == {}, f"{assignment_id}: CPU seconds of the reference per test: {measured}"


#: A HyperMinesGame that computes forever when asked for the original lab's "dig ongoing" dig, and
#: gives wrong answers quickly everywhere else.
SPINNER = '''
class HyperMinesGame:
    def __init__(self, dimensions, bombs):
        self.dimensions, self.board, self.mask, self.state = dimensions, [], [], "ongoing"

    def dig(self, coordinates):
        if self.dimensions == [2, 4, 2] and list(coordinates) == [0, 3, 0]:
            while True:
                pass
        return 0

    def render(self, xray=False):
        return []
'''

#: A HyperMinesGame that computes forever as soon as a game is made.
ENDLESS = '''
class HyperMinesGame:
    def __init__(self, dimensions, bombs):
        while True:
            pass
'''

#: A flood-fill submission whose flood sleeps instead of working.
SLEEPER = '''
import time


class MineField:
    def __init__(self, field):
        self.field = field


class VisibleField:
    def __init__(self, mine_field):
        self.mine_field = mine_field


def flood_fill_iterative(visible, row, col):
    time.sleep(600)
'''


def source_submission(student: str, source: str, tmp_path: Path) -> Submission:
    path = tmp_path / f"{student}.py"
    path.write_text(source)
    return Submission(student, path, source=source, filename=path.name, kind="python")


def test_computing_past_a_tests_limit_is_stopped_there_and_told_the_cpu_limit(tmp_path):
    assignment = get_assignment("hypermines")
    report = grade_submission(assignment, source_submission("spinner", SPINNER, tmp_path), seed=SEED,
                              time_limit=5, test_time_limit=0.5)
    outcome = {t.id: t for t in report.tests}
    assert outcome["test_dig_ongoing"].status == "failed"
    assert outcome["test_dig_ongoing"].output == (
        f"time limit exceeded: this test may use 0.5 s of CPU time ({FACTOR_SENTENCE}); the process was killed")
    # Stopped at its own limit, the test leaves the rest of the budget to the tests after it.
    assert [t.id for t in report.tests if "not reached" in t.output] == []
    assert report.internal_errors == []


def test_when_the_budget_runs_out_the_tests_left_say_so_and_count_no_time(tmp_path):
    assignment = get_assignment("hypermines")
    report = grade_submission(assignment, source_submission("endless", ENDLESS, tmp_path), seed=SEED,
                              time_limit=1, test_time_limit=0.75)
    reached = [t for t in report.tests if "not reached" not in t.output]
    left = [t for t in report.tests if "not reached" in t.output]
    assert len(reached) == 2 and left, [(t.id, t.output) for t in report.tests]
    assert reached[0].output.startswith("time limit exceeded: this test may use 0.75 s of CPU time")
    assert reached[1].output.startswith("time limit exceeded: the submission's whole budget of 1 s")
    assert {t.seconds for t in left} == {0.0}, [(t.id, t.seconds) for t in left]
    # the seconds reported add up to the budget the submission was given, not more
    assert sum(t.seconds for t in report.tests) <= 1 + 0.3, [(t.id, t.seconds) for t in report.tests]
    assert report.internal_errors == []


def test_sleeping_is_stopped_by_the_wall_clock_guard(tmp_path):
    assignment = get_assignment("flood-fill")
    report = grade_submission(assignment, source_submission("sleeper", SLEEPER, tmp_path), seed=SEED,
                              time_limit=20)
    outcome = {t.id: t for t in report.tests}
    for name in ("test_flood_fill_iterative_small", "test_flood_fill_iterative_1000x1000"):
        assert outcome[name].status == "failed"
        assert outcome[name].output == WALL_GUARD
    assert report.internal_errors == []


# ---------------------------------------------------------------------------- how often the guard reads
def test_the_guard_checks_no_sooner_than_cpu_time_could_reach_the_limit():
    """CPU time grows at most as fast as wall time times the cores, so the next check waits for the
    remaining limit divided by the cores, never longer than a tenth of the idle guard's time, and
    never less than ``MIN_WAIT`` (a call at its limit does not spin)."""
    from minesweeper_kit.sandbox import accounting

    used = [0.0]
    guard = accounting.CallGuard(lambda: (used[0], False), 0.0, 8.0, wall_factor=10.0, wall_slack=10.0,
                                 idle_seconds=100.0)
    cores = os.cpu_count() or 1
    assert guard.wait() == pytest.approx(min(8.0 / cores, 10.0))
    used[0] = 7.0
    assert guard.over() is False
    assert guard.wait() == pytest.approx(min(1.0 / cores, 10.0))
    used[0] = 7.9999
    assert guard.over() is False
    assert guard.wait() == accounting.MIN_WAIT
    used[0] = 8.0
    assert guard.over() is True
    short = accounting.CallGuard(lambda: (0.0, False), 0.0, 600.0, wall_factor=10.0, wall_slack=10.0, idle_seconds=5.0)
    assert short.wait() == pytest.approx(0.5)  # the idle guard's tenth bounds it
    unlimited = accounting.CallGuard(lambda: (0.0, False), 0.0, None, wall_factor=10.0, wall_slack=10.0,
                                     idle_seconds=5.0)
    assert unlimited.over() is False and unlimited.wait() == pytest.approx(0.5)


def test_a_child_seen_running_just_after_it_wrote_is_not_kept_from_the_idle_guard():
    """A child that writes a byte every second and sleeps in between uses no CPU time, but a check
    made as its byte arrives finds it running, on its way back to sleep. Only checks made on a quiet
    wait may take the running state as work; otherwise the sleeper is stopped by the wall-clock
    limit, many times later, instead of the idle guard."""
    from minesweeper_kit.sandbox import accounting

    def guard() -> accounting.CallGuard:
        return accounting.CallGuard(lambda: (0.0, True), 0.0, 600.0, wall_factor=10.0, wall_slack=10.0,
                                    idle_seconds=0.2)

    trickled = guard()
    assert trickled.over(just_sent=True) is False
    time.sleep(0.25)
    with pytest.raises(TimeoutError, match="idle"):
        trickled.over(just_sent=True)
    starved = guard()  # found ready to run on a quiet wait: a crowded machine, not a sleeper
    time.sleep(0.25)
    assert starved.over() is False
    time.sleep(0.25)
    assert starved.over() is False


def test_a_call_that_answers_at_once_reads_the_cpu_time_once(no_survivors):
    """Under bubblewrap the child's processes are fixed once it has started, so the grader keeps
    their ``/proc/PID/stat`` open: a call that answers before the guard's first check costs one
    read of one file, where walking the process tree cost several per reading."""
    from minesweeper_kit.sandbox import Sandbox

    with Sandbox("def f():\n    return 1\n", idle_seconds=60.0) as box:
        assert box._meter is not None and box._meter.settled
        for _ in range(5):
            before = box.proc_reads_total
            assert box.call("f", timeout=30) == 1
            assert box.proc_reads_total - before == 1
