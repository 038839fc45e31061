"""The one runner of a student's own tests: the notebooks' check cell and the grader both use it.

A student's tests are run against implementations of the step: correct ones (*wheats*) and ones
with one planted bug each (*chaffs*). A test is *valid* when it passes on every correct one, and
a valid test *catches* a planted bug when it fails on it. The check cell runs the tests against
the kit's correct code and the public planted bugs that ship with it; the grader against the
reference, other correct implementations and its hidden planted bugs. Everything else is this
module, so a verdict means the same in both.

**Isolation.** The tests run in a sandbox of their own (``sandbox/testrunner.py``: pytest's and
unittest's own machinery); the implementations run in another, behind a
:class:`~minesweeper_kit.sandbox.remote.Host`. The tests see stand-ins for the step's names
(``sandbox/remote.py``), never a line of the code behind them. Each implementation is met by a
fresh tests' sandbox, so nothing a test keeps can compare one implementation with another.

**Determinism before credit.** ``random`` is seeded from the grade's seed and the test's name in
both sandboxes, before every test. Each test runs ``repeats`` times on every correct
implementation (the later runs answered from the first run's answers, the implementation's work
not done again, as long as the test asks the same); a test whose outcome changes is *flaky* and
earns nothing.

**Planted bugs, cheaply and fairly.** What a valid test asked of the reference and what it was
answered is kept. Each planted bug is first asked the same questions in the same order
(:meth:`Host.replay`): a bug that answers every one the same cannot change the test's outcome,
which is then the reference's (a pass), without running the test. Only the tests a bug answers
otherwise are run against it, in a fresh sandbox, starting from what the replay was answered (the
bug is not asked again what it was just asked), and a *catch* counts only when the test fails
after the bug's first different answer, on every one of ``repeats`` runs. A test that fails on a
bug before any answer differed fails for another reason (chance, or what another test left), and
that is never a catch. The tests are tried on a bug in the order they ran, and the first that
catches it ends its trial: whether later tests would catch it too changes nothing.

**Bounded.** Each test has ``test_seconds`` of CPU time, its own and the implementation's on its
behalf. Everything the grader does for the student's tests (the tests' sandboxes, their module's
top level in each, the implementations' work answering them, the replays) is charged to one
budget, ``budget_seconds`` of CPU time; once it is spent the tests still undecided fail with a
message saying so. Whatever comes back from a tests' sandbox is the student's data: checked,
cut to size, and never a reason for the grader to raise.
"""

from __future__ import annotations

import json
import random
import re
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

from ..sandbox import ImportPolicy, Limits, LoadError, ResultError, Sandbox, SandboxError, TimeLimitExceeded
from ..sandbox.remote import canonical, request_key
from .source import failable, method_of

__all__ = [
    "Implementation",
    "Limits",
    "OwnTestsLimits",
    "Outcome",
    "TestsFile",
    "TestsRun",
    "cut",
    "run_tests",
]

#: Modules a student's tests may not import: the kit (a correct engine to compare with would make
#: every test "catch" every bug without saying what is right) and the grader.
TEST_DENIED = frozenset({"minesweeper_kit", "autograder"})
#: The longest message of one test that is kept (the rest is cut, and says how much).
MESSAGE_CHARACTERS = 600
#: The longest name of a test that is kept.
NAME_CHARACTERS = 200


def cut(text: str, limit: int) -> str:
    """``text`` at most ``limit`` characters long, saying how much was cut."""
    if len(text) <= limit:
        return text
    rest = len(text.encode("utf-8", "replace")) - len(text[:limit].encode("utf-8", "replace"))
    return f"{text[:limit]} ... cut, {rest} bytes more"


@dataclass(frozen=True)
class Implementation:
    """One implementation the tests run against: correct (a wheat) or with one bug (a chaff)."""

    name: str
    source: str
    correct: bool
    misconception: str = ""  #: for a chaff, the mistake it embodies, as the feedback names it
    hint: str = ""  #: for a chaff, what to look at


@dataclass(frozen=True)
class TestsFile:
    """The student's tests as one file for the tests' sandbox."""

    __test__ = False  # not a test class, whatever pytest's name rule says

    source: str
    filename: str = "test.py"
    classes: tuple[str, ...] | None = None  #: only these classes' tests count (6.009's TestTiny)
    module: str = "lab"  #: what the file imports the tested names as (``import lab``)
    as_names: bool = False  #: a notebook's tests use the tested names without importing them
    #: functions and classes in the file that are not the student's (the course's own tests a
    #: handout's test.py holds): never run
    skip: tuple[str, ...] = ()


@dataclass(frozen=True)
class OwnTestsLimits:
    """The bounds of one run of a student's tests."""

    budget_seconds: float = 60.0  #: CPU seconds for everything done for the tests
    test_seconds: float = 10.0  #: CPU seconds of one test, its own and the tested code's for it
    call_seconds: float = 10.0  #: CPU seconds of one call into an implementation
    repeats: int = 3  #: runs of each test on each correct implementation (and of a catch)
    most_tests: int = 60  #: tests run at most (a generated file of thousands would take it all)
    memory_mb: int = 512  #: of the tests' sandbox
    implementations_memory_mb: int = 1024
    #: wall-clock seconds for everything done for the tests; None: 5 times ``budget_seconds`` plus
    #: 60 s, the hidden tests' rule. It bounds tests (and implementations) that sleep or block a
    #: little under each call's idle guard, call after call.
    wall_seconds: float | None = None

    def wall(self) -> float:
        return self.wall_seconds if self.wall_seconds is not None else 5 * self.budget_seconds + 60


@dataclass
class Outcome:
    """One run of one test on one implementation."""

    outcome: str  #: "passed", "failed", "skipped"
    kind: str = ""  #: "assertion", "error", "timeout", "skipped", "budget", "crash"
    message: str = ""
    line: int | None = None  #: in the tests' file
    diverged: bool = False  #: (on a chaff) an answer differed from the reference's before the end


@dataclass
class TestsRun:
    """What the tests did: each test's outcomes on each implementation, and the calls they made."""

    __test__ = False  # not a test class, whatever pytest's name rule says

    tests: list[str] = field(default_factory=list)  #: in the order they ran
    rows: set[str] = field(default_factory=set)  #: the tests that are rows of a subTest
    outcomes: dict[str, dict[str, list[Outcome]]] = field(default_factory=dict)  #: test -> implementation -> runs
    same: dict[str, set[str]] = field(default_factory=dict)  #: chaff -> tests it answered as the reference did
    calls: list[dict] = field(default_factory=list)  #: the reference's log of the tests' calls
    problem: str = ""  #: why the tests could not be run at all
    problem_line: int | None = None
    seconds: float = 0.0  #: CPU seconds charged to the budget
    wall: float = 0.0  #: wall-clock seconds the run took
    budget_spent: bool = False
    untried: list[str] = field(default_factory=list)  #: chaffs not tried for lack of budget


# ------------------------------------------------------------------------ the implementations
HOST_PROGRAM = """
import os as _os
import sys as _sys
import remote as _remote

def _support(files):
    folder = _os.path.join(_os.getcwd(), "support")
    for relative, text in files.items():
        path = _os.path.join(folder, relative)
        _os.makedirs(_os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(text)
    if files:
        _sys.path.insert(0, folder)

def _load(sources):
    found = {}
    for label, source in sources.items():
        namespace = {"__name__": "lab"}
        exec(compile(source, "lab.py", "exec"), namespace)
        found[label] = namespace
    return found

_HOST = None

def setup(sources, exported, seed, support):
    global _HOST
    _support(support)
    _remote.deterministic(seed)
    _HOST = _remote.Host(_load(sources), tuple(exported), seed)

def use(label):
    _HOST.use(label)
    return _HOST.describe()

def begin(test, made, kept):
    return _HOST.begin(test, made, kept)

def handle(text):
    return _HOST.handle(text)

def calls():
    return _HOST.calls()

def replay(runs):
    return _HOST.replay(runs)
"""


class _Host:
    """The sandbox holding every implementation behind a host; started again when one hangs or
    crashes (the objects made so far are then gone). Its CPU time on the student's behalf is
    what :meth:`cpu` reads."""

    def __init__(
        self,
        library: Sequence[Implementation],
        names: tuple[str, ...],
        isolation: str,
        seed: str,
        support: dict[str, str],
        limits: OwnTestsLimits,
        deadline: float | None = None,
    ):
        self.library, self.names, self.isolation, self.seed = list(library), names, isolation, seed
        self.support, self.limits, self.deadline = support, limits, deadline
        self.box: Sandbox | None = None
        self.current = ""
        self.kinds: dict[str, str] = {}
        self.ended = 0.0  #: CPU seconds of the sandboxes closed so far

    def start(self) -> None:
        self.box = Sandbox(
            HOST_PROGRAM,
            filename="host.py",
            module_name="host",
            limits=Limits(cpu_seconds=3600, memory_mb=self.limits.implementations_memory_mb),
            import_policy=ImportPolicy(label="the implementations"),
            isolation=self.isolation,
            load_timeout=60,
        )
        if self.deadline is not None:
            self.box.set_deadline(self.deadline - time.monotonic())
        self.box.start()
        sources = {i.name: i.source for i in self.library}
        self.box.call("setup", sources, list(self.names), self.seed, self.support, timeout=120)
        if self.current:
            self.use(self.current)

    def cpu(self) -> float:
        """CPU seconds of every sandbox this host ran, the ones started again after a crash too."""
        return self.ended + (self.box.cpu_seconds() if self.box is not None else 0.0)

    def use(self, name: str) -> dict[str, str]:
        if self.box is None or not self.box.alive:
            self.current = ""
            self.start()
        assert self.box is not None
        self.current = name
        self.kinds = dict(self.box.call("use", name, timeout=60))
        return self.kinds

    def begin(self, test: str, made: int, kept: int) -> dict[str, int]:
        assert self.box is not None
        found = self.box.call("begin", test, made, kept, timeout=30)
        return {"made": int(found["made"]), "kept": int(found["kept"])}

    def answer(self, text: str, seconds: float) -> str:
        """One request from the tests, answered by the implementation in use within ``seconds``."""
        assert self.box is not None
        try:
            return str(self.box.call("handle", text, timeout=max(0.05, seconds)))
        except SandboxError as error:  # a hang, a crash, an answer too large: the objects made so far are gone
            self._again()
            if isinstance(error, TimeLimitExceeded):
                what = "the tested code took too long on this input"
            elif isinstance(error, ResultError) and "too large" in str(error):
                sizes = re.search(r"(\d+) bytes; the limit is (\d+)", str(error))
                how = f" ({int(sizes[1]):,} bytes; at most {int(sizes[2]):,})" if sizes else ""
                what = f"the tested code's answer was too large to send to your test{how}"
            else:
                what = "the tested code stopped on this input"
            return json.dumps({"error": {"type": "RuntimeError", "message": what}})

    def replay(self, runs: list, seconds: float) -> list | None:
        """:meth:`Host.replay` within ``seconds``; None when it did not finish (the host then
        starts again)."""
        assert self.box is not None
        try:
            found = self.box.call("replay", runs, timeout=max(0.05, seconds))
        except SandboxError:
            self._again()
            return None
        return list(found)

    def calls(self) -> list[dict]:
        assert self.box is not None
        return [c for c in self.box.call("calls", timeout=60) if isinstance(c, dict)]

    def _again(self) -> None:
        assert self.box is not None
        self.ended += self.box.cpu_seconds()
        self.box.close()
        self.box = None
        self.start()

    def close(self) -> None:
        if self.box is not None:
            self.box.close()


# ---------------------------------------------------------------------------- the tests
DRIVER = """
import testrunner as _runner
_runner.prepare({kinds!r}, "lab", {module!r}, {as_names!r}, {seed!r}, {filename!r})
run = _runner.run
"""


@dataclass
class _Transcript:
    """What one test asked the reference and was answered, and where its numbering started."""

    made: int = 0
    kept: int = 0
    pairs: list[tuple[str, str]] = field(default_factory=list)
    host_seconds: float = 0.0


class _Grade:
    """One run of a student's tests against a library of implementations (see the module)."""

    def __init__(
        self,
        tests: TestsFile,
        library: Sequence[Implementation],
        names: tuple[str, ...],
        seed: int,
        isolation: str,
        limits: OwnTestsLimits,
        support: dict[str, str],
    ):
        self.tests, self.names, self.isolation, self.limits = tests, names, isolation, limits
        self.seed = str(seed)
        self.library = list(library)
        self.reference = next(i for i in self.library if i.correct)
        self.deadline = time.monotonic() + limits.wall()
        self.host = _Host(self.library, names, isolation, self.seed, support, limits, self.deadline)
        self.run = TestsRun()
        self.transcripts: dict[str, _Transcript] = {}
        self.charged = 0.0  #: CPU seconds of the implementations' sandbox charged so far
        self.sandboxes = 0.0  #: CPU seconds of the tests' sandboxes so far
        # the session in progress
        self.box: Sandbox | None = None
        self.implementation: Implementation | None = None
        self.current = ""
        self.repeat = 0
        self.record = False
        self.compare = False
        self.pairs: dict[str, list[tuple[str, str]]] = {}  #: this session's first repeat, by test
        #: ("begin", test) and ("ask", request) of this repeat, answered from the first repeat's
        self.cached: list[tuple[str, str]] = []
        self.caching = False
        self.position: dict[str, int] = {}  #: each test's next request, in this repeat
        self.diverged: set[str] = set()
        self.test_started = (0.0, 0.0)  #: the test's own and the host's CPU seconds at its start
        self.stopped: set[str] = set()
        self.results: dict[str, list[Outcome]] = {}
        self.seen: list[str] = []
        self.problem_told = False
        self.load_failure: Outcome | None = None  #: the file did not load against this implementation
        self.planned: list[str] = []  #: the tests of the plan in progress
        self.chaff_caught = False

    # --- the budget
    def spent(self) -> float:
        own = self.sandboxes + (self.box.cpu_seconds() if self.box is not None else 0.0)
        return own + self.charged

    def left(self) -> float:
        return min(self.limits.budget_seconds - self.spent(), self.wall_left())

    def wall_left(self) -> float:
        return self.deadline - time.monotonic()

    def over_budget(self) -> bool:
        if self.left() <= 0:
            self.run.budget_spent = True
        return self.run.budget_spent

    # --- the sandbox's questions
    def answer(self, text: str) -> str:
        """Every question the tests' sandbox asks during a run: a runner message, or a request
        for the implementation. Never raises: the text is the student's."""
        message: Any = None
        if text.startswith('{"runner"'):
            try:
                message = json.loads(text)
            except (ValueError, RecursionError):
                message = None
        if isinstance(message, dict) and "runner" in message:
            return self._runner(message)
        return self._request(text)

    def _runner(self, message: dict) -> str:
        kind = message.get("runner")
        if kind == "repeat":
            index = message.get("index")
            self.repeat = index if isinstance(index, int) and not isinstance(index, bool) else self.repeat + 1
            assert self.implementation is not None
            if self.record and self.repeat == 1 and not self.run.calls:
                self.run.calls = self.host.calls()  # what the tests did on the reference, once
            self.host.use(self.implementation.name)
            self.position, self.current, self.cached, self.diverged = {}, "", [], set()
            self.caching = bool(self.pairs)  # answered before: the first repeat's, or a replay's
            return "stop" if self.over_budget() else "ok"
        if kind == "collected":
            names = message.get("tests")
            if isinstance(names, list) and not self.seen:
                self.seen = [cut(str(n), NAME_CHARACTERS) for n in names[: self.limits.most_tests * 20]]
            return "ok"
        if kind == "start":
            name = cut(str(message.get("test", "")), NAME_CHARACTERS)
            self.current = name
            base = self.transcripts.get(name)
            found = self.host.begin(name, base.made if base else 0, base.kept if base else 0)
            if self.caching:
                self.cached.append(("begin", name))
            if self.record and self.repeat == 0:
                self.transcripts[name] = _Transcript(found["made"], found["kept"])
            if self.repeat == 0:
                self.pairs.setdefault(name, [])
            self.test_started = (self.box.cpu_seconds() if self.box else 0.0, self.charged)
            self.stopped.discard(name)  # a new run of the test: its time starts again
            return "stop" if self.over_budget() else "ok"
        if kind == "result":
            self._result(message)
            return "stop" if self.over_budget() else "ok"
        if kind == "problem" and not self.current and not self.results:
            # the file did not load (said before any test started: a test cannot say it for the file)
            text = cut(str(message.get("message", "")), MESSAGE_CHARACTERS) or "the tests did not load"
            line = message.get("line")
            line = line if isinstance(line, int) and not isinstance(line, bool) else None
            if self.record and not self.problem_told:  # on the reference: the file's own fault
                self.problem_told = True
                self.run.problem, self.run.problem_line = text, line
            else:  # on another implementation only: every test fails there
                self.load_failure = Outcome("failed", "error", f"the file did not load: {text}", line, True)
            return "ok"
        return "ok"

    def _result(self, message: dict) -> None:
        name = cut(str(message.get("test", "")), NAME_CHARACTERS)
        outcome = message.get("outcome")
        if outcome not in ("passed", "failed", "skipped"):
            outcome, kind, text = "failed", "error", "the test's result could not be read"
        else:
            kind = str(message.get("kind", ""))[:20]
            text = cut(str(message.get("message", "")), MESSAGE_CHARACTERS)
        if outcome == "failed" and name in self.stopped:
            kind = "timeout"
        line = message.get("line")
        line = line if isinstance(line, int) and not isinstance(line, bool) and 0 < line < 10**7 else None
        base = name.split(" [", 1)[0].split(" (", 1)[0] if message.get("row") is True else name
        if message.get("row") is True:
            self.run.rows.add(name)
        diverged = base in self.diverged
        self.results.setdefault(name, []).append(Outcome(outcome, kind, text, line, diverged))

    def _request(self, text: str) -> str:
        """A request from the tests for the implementation in use."""
        test = self.current
        if self.over_budget():
            return json.dumps({"stop": self._budget_message()})
        if test in self.stopped or self._test_over():
            self.stopped.add(test)
            return json.dumps(
                {
                    "stop": f"the test used more than {self.limits.test_seconds:g} s of CPU time "
                    "(its own and the tested code's for it)"
                }
            )
        index = self.position.get(test, 0)
        self.position[test] = index + 1
        key = request_key(text)
        mine = self.pairs.get(test)
        if self.caching and mine is not None and index < len(mine) and mine[index][0] == key:
            self.cached.append(("ask", text))
            answer = mine[index][1]
        else:
            if self.caching:  # the test asked otherwise: the implementation must catch up first
                self.caching = False
                self._catch_up()
            answer = self._live(text)
            if self.repeat == 0 and mine is not None:
                del mine[index:]  # from here on, what this run was answered
                mine.append((key, answer))
        recorded = self.transcripts.get(test)
        if self.record and self.repeat == 0 and recorded is not None:
            recorded.pairs.append((text, answer))
        elif self.compare and recorded is not None and test not in self.diverged:
            if index >= len(recorded.pairs) or request_key(recorded.pairs[index][0]) != key:
                pass  # asked something else with the same answers so far: not the bug's doing
            elif recorded.pairs[index][1] != answer and canonical(recorded.pairs[index][1]) != canonical(answer):
                self.diverged.add(test)
        return answer

    def _live(self, text: str) -> str:
        before = self.host.cpu()
        seconds = min(self.limits.call_seconds, max(0.05, self._test_left()), max(0.05, self.left()))
        answer = self.host.answer(text, seconds)
        used = max(0.0, self.host.cpu() - before)
        self.charged += used
        recorded = self.transcripts.get(self.current)
        if self.record and self.repeat == 0 and recorded is not None:
            recorded.host_seconds += used
        return answer

    def _catch_up(self) -> None:
        """Answer again, live, what this repeat was answered from the first run, so that the
        implementation holds what the test has seen."""
        assert self.implementation is not None
        self.host.use(self.implementation.name)
        for kind, text in self.cached:
            if kind == "begin":
                base = self.transcripts.get(text)
                self.host.begin(text, base.made if base else 0, base.kept if base else 0)
            else:
                self._live(text)
        self.cached = []

    def _test_left(self) -> float:
        own = (self.box.cpu_seconds() if self.box else 0.0) - self.test_started[0]
        host = self.charged - self.test_started[1]
        return self.limits.test_seconds - own - host

    def _test_over(self) -> bool:
        return self._test_left() <= 0

    def _budget_message(self) -> str:
        if self.wall_left() <= 0:
            return (
                f"the own-tests wall-clock budget of {self.limits.wall():g} s ran out (the tests, or the code "
                "they call, waited, slept or blocked)"
            )
        return f"the own-tests budget of {self.limits.budget_seconds:g} s of CPU time was spent"

    # --- one session: a tests' sandbox for one implementation
    def session(
        self,
        implementation: Implementation,
        select: list[str] | None,
        *,
        record: bool = False,
        confirm: bool = False,
        told: dict[str, list[tuple[str, str]]] | None = None,
        plans_of: Callable[[], dict | None] | None = None,
    ) -> dict[str, list[Outcome]]:
        """Run the tests ``select`` chooses (all: None) against ``implementation``, each
        ``repeats`` times, in a fresh tests' sandbox (a fresh one again for the tests left when a
        test stops it). With ``confirm`` (a planted bug) each runs once, and only those that
        failed after a different answer run the other times (a catch needs every run to fail).
        ``told``: each test's first requests as this implementation answered them already (a
        replay): the same requests are answered so again, and the implementation asked only for
        what comes after them. ``plans_of``: the runs to make, one plan at a time, instead."""
        self.implementation, self.record = implementation, record
        self.compare = not implementation.correct
        self.results, self.diverged, self.stopped = {}, set(), set()
        self.pairs = {name: list(pairs) for name, pairs in (told or {}).items()}
        repeats = self.limits.repeats
        goals: list[tuple[Callable[[], list[str] | None], int]]
        if confirm:
            differ = list(select or [])

            def failing() -> list[str]:
                return [n for n in differ if _caught(self.results.get(n, []) + self._rows_of(n))]

            goals = [(lambda: differ, 1), (failing, repeats)]
        else:
            goals = [(lambda: None if select is None and not self.seen else list(select or self.seen), repeats)]
        tried: set[tuple] = set()

        def plans() -> dict | None:
            for names_of, need in goals:
                names = names_of()
                if names is None:
                    key: tuple = ("all", 0)
                    if key in tried:
                        continue
                    tried.add(key)
                    return self._plan(None, 0, need)
                lacking = [n for n in names if n not in self.run.rows and len(self.results.get(n, [])) < need]
                if not lacking:
                    continue
                first = min(len(self.results.get(n, [])) for n in lacking)
                key = (tuple(lacking), first)
                if key in tried:  # asked for before and not answered: do not ask again
                    continue
                tried.add(key)
                return self._plan(lacking, first, need - first)
            return None

        while not self.over_budget():
            self.host.use(implementation.name)
            self.load_failure = None
            crashed = self._sandbox_run(plans_of or plans)
            if self.load_failure is not None:
                for name in (select or self.planned) if select is not None else self.seen:
                    self.results.setdefault(name, []).extend([self.load_failure] * repeats)
                break
            if crashed is None:
                break
            test, cause = crashed
            if not test:  # before any test started: the file's own top level
                if not self.run.problem:
                    self.run.problem = cut(f"the file did not finish loading: {cause}", MESSAGE_CHARACTERS)
                break
            base = test.split(" [", 1)[0].split(" (", 1)[0]
            self.results.setdefault(base, []).append(Outcome("failed", "crash", cause, None, base in self.diverged))
        return self.results

    def _plan(self, select: list[str] | None, start: int, repeats: int) -> dict:
        return {
            "select": select,
            "classes": list(self.tests.classes) if self.tests.classes is not None else None,
            "skip": list(self.tests.skip),
            "start": start,
            "repeats": repeats,
            "test_seconds": self.limits.test_seconds,
            "most": self.limits.most_tests,
        }

    def _rows_of(self, method: str) -> list[Outcome]:
        return [
            o for name, outs in self.results.items() if name != method and name.startswith(method + " ") for o in outs
        ]

    def _sandbox_run(self, plans: Callable[[], dict | None]) -> tuple[str, str] | None:
        """One tests' sandbox, running the plans ``plans`` gives in turn; None when they all
        finished, else the test in progress when it stopped and why."""
        kinds = self.host.kinds
        driver = DRIVER.format(
            kinds=kinds,
            module=self.tests.module,
            as_names=self.tests.as_names,
            seed=self.seed,
            filename=self.tests.filename,
        )
        policy = ImportPolicy(label="your tests", denied=ImportPolicy().denied | TEST_DENIED)
        box = Sandbox(
            driver,
            filename="own_tests_driver.py",
            module_name="own_tests_driver",
            limits=Limits(cpu_seconds=int(self.limits.budget_seconds) + 30, memory_mb=self.limits.memory_mb),
            import_policy=policy,
            isolation=self.isolation,
            callback=self.answer,
            preload=["pytest"],
        )
        box.put_file(self.tests.filename, self.tests.source)
        box.set_deadline(self.wall_left())
        self.box = box
        self.current, self.repeat, self.position, self.cached, self.caching = "", -1, {}, [], False
        try:
            box.start()
            while not self.over_budget():
                plan = plans()
                if plan is None:
                    break
                self.planned = list(plan["select"] or [])
                count = len(plan["select"]) if plan["select"] is not None else self.limits.most_tests
                allowance = min(max(1.0, self.left()), count * plan["repeats"] * self.limits.test_seconds + 30)
                box.call("run", plan, timeout=allowance)
            return None
        except LoadError as error:  # the driver itself did not load: a test file that broke the start
            if not self.run.problem:
                self.run.problem = cut(f"{error.type_name}: {error.message}", MESSAGE_CHARACTERS)
            return None
        except SandboxError as error:
            why = "the test took too long" if isinstance(error, TimeLimitExceeded) else str(error)
            if self.over_budget():
                why = self._budget_message()
            return self.current, cut(why, MESSAGE_CHARACTERS)
        finally:
            self.sandboxes += box.cpu_seconds()
            box.close()
            self.box = None

    # --- the whole grade
    def grade(self) -> TestsRun:
        run = self.run
        self.host.start()
        wheats = [i for i in self.library if i.correct]
        chaffs = [i for i in self.library if not i.correct]
        random.Random(f"{self.seed}:chaffs").shuffle(chaffs)
        first = True
        for wheat in wheats:
            if self.over_budget():
                break
            results = self.session(wheat, None, record=first)
            if first:
                run.tests = _in_order(self.seen, list(results))
                if not run.calls:
                    run.calls = self.host.calls()
                first = False
                if not run.tests or run.problem:
                    break
            for name, outcomes in results.items():
                run.outcomes.setdefault(name, {})[wheat.name] = outcomes
        valid = [name for name in run.tests if self._valid_so_far(name, wheats)]
        can_fail = failable(self.tests.source)  # a test that cannot fail is credited with no catch
        methods = [name for name in valid if name not in run.rows and can_fail.get(method_of(name), True)]
        for chaff in chaffs:
            if self.over_budget():
                run.untried.append(chaff.name)
                continue
            self._try(chaff, methods)
        run.seconds = round(self.spent(), 3)
        return run

    def _valid_so_far(self, name: str, wheats: list[Implementation]) -> bool:
        runs = self.run.outcomes.get(name, {})
        return all(
            len(runs.get(w.name, [])) >= self.limits.repeats and all(o.outcome == "passed" for o in runs[w.name])
            for w in wheats
        )

    def _try(self, chaff: Implementation, methods: list[str]) -> None:
        """The valid tests that can fail, in their order, against one planted bug, until one
        catches it: each replayed first, and run only when the bug answers it otherwise; the tests
        after the first catch are not tried on it (a bug is caught or not; which later tests would
        catch it too changes nothing)."""
        run = self.run
        same: set[str] = set()
        run.same[chaff.name] = same
        pending = list(methods)
        told: dict[str, list[tuple[str, str]]] = {}

        def differing() -> str | None:
            """The next test the bug answers otherwise (replayed), or that cannot be replayed."""
            while pending and not self.over_budget():
                name = pending.pop(0)
                transcript = self.transcripts.get(name)
                if transcript is None:
                    return name
                self.host.use(chaff.name)
                before = self.host.cpu()
                allowance = min(self.left(), transcript.host_seconds * 10 + 2)
                found = self.host.replay([[name, transcript.made, transcript.kept, transcript.pairs]], allowance)
                self.charged += max(0.0, self.host.cpu() - before)
                if found is not None and len(found) == 1 and found[0] is None:
                    same.add(name)
                    continue
                if found is not None and len(found) == 1 and isinstance(found[0], list):
                    # what the replay was answered: the run starts from it, the bug not asked again
                    told[name] = [(request_key(r), str(a)) for (r, _), a in zip(transcript.pairs, found[0])]
                return name
            return None

        current = differing()
        if current is None:
            if pending:
                run.untried.append(chaff.name)
            return
        repeats = self.limits.repeats
        asked: set[tuple[str, int]] = set()

        def caught(name: str, runs: int) -> bool:
            outcomes = [self.results.get(name, [])] + [
                outs for row, outs in self.results.items() if row.startswith(name + " ")
            ]
            return any(len(o) >= runs and _caught(o) for o in outcomes)

        def plans() -> dict | None:
            nonlocal current
            while current is not None:
                done = len(self.results.get(current, []))
                if done == 0 and (current, 0) not in asked:
                    asked.add((current, 0))
                    self.pairs.setdefault(current, list(told.get(current, [])))
                    return self._plan([current], 0, 1)
                if done and caught(current, 1) and done < repeats and (current, done) not in asked:
                    asked.add((current, done))
                    return self._plan([current], done, repeats - done)
                if caught(current, repeats):
                    self.chaff_caught = True
                    return None
                current = differing()
            return None

        self.chaff_caught = False
        results = self.session(chaff, [], confirm=True, plans_of=plans)
        for name, outcomes in results.items():
            run.outcomes.setdefault(name, {})[chaff.name] = outcomes
        if not self.chaff_caught and (pending or current is not None) and self.over_budget():
            run.untried.append(chaff.name)


def _in_order(collected: list[str], ran: list[str]) -> list[str]:
    """The tests as collected, each followed by the rows of its subTests as they ran."""
    rows: dict[str, list[str]] = {}
    for name in ran:
        base = name.split(" [", 1)[0].split(" (", 1)[0]
        if base != name:
            rows.setdefault(base, []).append(name)
    ordered = []
    for name in dict.fromkeys(collected + [n for n in ran if n.split(" [", 1)[0].split(" (", 1)[0] == n]):
        ordered.append(name)
        ordered += rows.pop(name, [])
    for extra in rows.values():
        ordered += extra
    return ordered


def _caught(outcomes: list[Outcome]) -> bool:
    return bool(outcomes) and all(o.outcome == "failed" and o.diverged for o in outcomes)


def run_tests(
    tests: TestsFile,
    library: Sequence[Implementation],
    names: tuple[str, ...],
    *,
    seed: int,
    isolation: str = "bwrap",
    limits: OwnTestsLimits | None = None,
    support: dict[str, str] | None = None,
) -> TestsRun:
    """Run the student's ``tests`` against every implementation of ``library`` (correct ones
    first; the first correct one is the reference whose answers are replayed to the others),
    with stand-ins for ``names``; ``support`` is files (relative path -> text) the
    implementations may import. A problem in the tests is the result's ``problem``; a failure of
    the grader's side (no sandbox starts) raises."""
    limits = limits or OwnTestsLimits()
    started = time.monotonic()
    policy = ImportPolicy(label="your tests", denied=ImportPolicy().denied | TEST_DENIED)
    refused = policy.violations(tests.source)
    if refused:
        return TestsRun(problem=cut(refused[0], MESSAGE_CHARACTERS))
    grade = _Grade(tests, library, names, seed, isolation, limits, support or {})
    try:
        run = grade.grade()
    finally:
        grade.host.close()
    run.wall = round(time.monotonic() - started, 3)
    return run
