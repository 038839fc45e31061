"""Grade a student's own tests: valid on every correct implementation, and which planted bugs they catch.

This is how courses that grade students' tests do it (wheats and chaffs). A test is *valid* when
it passes on every correct implementation of the step, the *wheats*: the reference solution and
another written differently (``instructor/wheats/``). A valid test *catches* a *chaff*, one
implementation with a single plausible bug named for its misconception (``instructor/chaffs/``),
when it fails on it. A test that fails on a wheat is wrong about the step, whatever else it
catches: it earns nothing, and the feedback shows its failure on the correct code.

The student's tests are untrusted code and run in a sandbox of their own, one per implementation,
so nothing a test keeps between runs can compare one implementation with another. The
implementations run in another sandbox behind a :class:`~minesweeper_kit.sandbox.remote.Host`:
the tests see stand-ins for the step's names (``sandbox/remote.py``), never a line of the code
behind them, and the implementations are tried in an order drawn from the seed. What the tests
did on the reference (which games they made, how many digs) is read from the host's log, never
from the tests' own sandbox, and checked against the step's stated requirement.
"""

from __future__ import annotations

import ast
import importlib.util
import os
import random
import stat
import sys
import time
import types
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from minesweeper_kit.own_tests_requirements import REQUIREMENTS, Requirement  # noqa: F401 - Requirement: re-exported
from minesweeper_kit.sandbox import ImportPolicy, Limits, LoadError, Sandbox, SandboxError, TimeLimitExceeded
from minesweeper_kit.sandbox.policy import imports_in

from .assignments import Assignment, InstructorMaterialMissing, instructor_dir
from .nofollow import open_nofollow

__all__ = [
    "Implementation",
    "OwnTest",
    "OwnTestsResult",
    "REQUIREMENTS",
    "grade_own_tests",
    "implementations",
    "tests_source",
]

#: CPU seconds one test may take on one implementation, and one call into an implementation.
TEST_SECONDS = 10.0
CALL_SECONDS = 10.0
#: What the feedback says of a submission whose tests file holds no test.
NO_TESTS = "no tests were found"
#: A test file longer than this is read only this far.
MAX_TEST_FILE = 2 << 20
#: At most this many tests are run (a generated file of thousands would take the whole budget).
MAX_TESTS = 60
#: The module name the stand-ins answer to (6.009's ``test.py`` does ``import lab``).
MODULE = "lab"
#: Modules a student's tests may not import: the kit (a correct engine to compare with would make
#: every test "catch" every bug without saying what is right) and the grader.
TEST_DENIED = frozenset({"minesweeper_kit", "autograder"})
#: Test libraries loaded before the import rule applies, when the tests import them: pytest's own
#: imports reach ``socket``, which the rule refuses to the student's code and whatever it calls.
PRELOADED = ("pytest",)


def _imported(source: str) -> set[str]:
    """The top-level modules a source imports."""
    return {name.split(".")[0] for _, name in imports_in(source)}


# ----------------------------------------------------------------------------- the library
@dataclass(frozen=True)
class Implementation:
    """One implementation the tests run against: correct (a wheat) or with one bug (a chaff)."""

    name: str
    source: str
    correct: bool
    misconception: str = ""  #: for a chaff, the mistake it embodies, as the feedback names it
    hint: str = ""  #: for a chaff, what to look at


def implementations(assignment: Assignment) -> list[Implementation]:
    """The wheats and chaffs of a step, from the instructor folder: the reference, the other
    correct implementations in ``wheats/<step>.py`` and the chaffs of ``chaffs/<step>.py``."""
    from .references import reference_submission

    chaffs, wheats = instructor_package("chaffs"), instructor_package("wheats")
    reference = reference_submission(assignment).source
    found = [Implementation("reference", reference, True)]
    found += [Implementation(name, source, True) for name, source in wheats.wheats_for(assignment.id)]
    found += [
        Implementation(chaff.name, chaffs.mutate(reference, chaff), False, chaff.bug, chaff.hint)
        for chaff in chaffs.chaffs_for(assignment.id)
    ]
    return found


def instructor_package(name: str) -> types.ModuleType:
    """The instructor folder's package ``name`` (``chaffs``, ``wheats``), imported from wherever
    the instructor folder is (``AUTOGRADER_INSTRUCTOR_DIR`` included), once per process."""
    folder = instructor_dir() / name
    module_name = f"_autograder_instructor_{name}"
    loaded = sys.modules.get(module_name)
    if loaded is not None and Path(str(loaded.__file__)).parent == folder:
        return loaded
    init = folder / "__init__.py"
    if not init.is_file():
        raise InstructorMaterialMissing(f"the instructor folder has no {name}/ package: {init} is missing")
    spec = importlib.util.spec_from_file_location(module_name, init, submodule_search_locations=[str(folder)])
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[module_name] = module
    spec.loader.exec_module(module)
    return module


# ------------------------------------------------------------------------ the tests' source
@dataclass(frozen=True)
class TestsSource:
    """The code holding a student's tests, ready for the tests' sandbox."""

    source: str
    filename: str
    classes: tuple[str, ...] | None  #: only these classes' tests count (a 6.009 test.py: TestTiny)
    origin: str  #: for the feedback: where the tests were read
    module: str = MODULE  #: the name the graded file is imported by (``import lab``, ``import mines``)
    skip: tuple[str, ...] = ()  #: the course's own tests in the file (``Requirement.course_tests``): not run


def tests_source(assignment: Assignment, graded_source: str, graded_file: Path | None) -> TestsSource | None:
    """Where a student's tests are: a ``test.py`` beside the graded ``.py`` file (6.009's layout,
    where only the class the handout names counts), else the graded code itself (a notebook's
    cells, a single file) with the step's own definitions taken out, so its tests call the
    implementation under test. None when there are no tests."""
    spec = REQUIREMENTS.get(assignment.id)
    if spec is None:
        return None
    if graded_file is not None and graded_file.suffix == ".py":
        beside = graded_file.parent / "test.py"
        text = _read_nofollow(beside) if beside != graded_file else None
        if text is not None:
            module = graded_file.stem if graded_file.stem.isidentifier() else MODULE
            return TestsSource(text, "test.py", spec.file_classes, "test.py", module, spec.course_tests)
    stripped = without_definitions(graded_source, assignment.names)
    if stripped is None or not _defines_tests(stripped):
        return None
    return TestsSource(stripped, "tests.py", None, "your own tests")


def _read_nofollow(path: Path) -> str | None:
    """A file's text, opened without following a link anywhere on its path (as the graded file
    is); None when it is not there, not a file or a link."""
    try:
        fd = open_nofollow(path)
    except OSError:
        return None
    with os.fdopen(fd, "rb") as handle:
        if not stat.S_ISREG(os.fstat(handle.fileno()).st_mode):
            return None
        return handle.read(MAX_TEST_FILE).decode("utf-8", errors="replace")


def without_definitions(source: str, names: Iterable[str]) -> str | None:
    """``source`` with every top-level statement that defines one of ``names`` blanked out (line
    numbers kept); None when it does not parse."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return None
    wanted = set(names)
    lines = source.splitlines()
    for node in tree.body:
        if wanted & _defined(node):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for index in range(first - 1, (node.end_lineno or node.lineno)):
                lines[index] = ""
    return "\n".join(lines) + "\n"


def _defined(node: ast.stmt) -> set[str]:
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for t in targets if isinstance(t, ast.Name)}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return set()


def _defines_tests(source: str) -> bool:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test"):
            return True
        if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
            return True
    return False


# ------------------------------------------------------------------------- requirements
# The requirements are pure functions of the log of calls; the kit holds them, so the notebooks'
# "check my tests" cell states and checks the same requirement without importing the grader
# (imported at the top: REQUIREMENTS, Requirement).


# ---------------------------------------------------------------------------- the results
@dataclass
class OwnTest:
    """One of the student's tests, run against every implementation."""

    name: str
    valid: bool = True
    failure: str = ""  #: how it failed on a correct implementation (its first line and where)
    caught: list[str] = field(default_factory=list)  #: the chaffs it failed on (none when invalid)
    passed: dict[str, bool] = field(default_factory=dict)  #: whether it passed, per implementation


@dataclass
class OwnTestsResult:
    """What the student's tests did: each test, the chaffs caught, the requirement."""

    origin: str
    tests: list[OwnTest]
    chaffs: dict[str, str]  #: every chaff's name -> its misconception
    requirement: str
    unmet: list[str]  #: the parts of the requirement not met
    problem: str = ""  #: why the tests could not be run at all
    seconds: float = 0.0

    @property
    def valid(self) -> list[OwnTest]:
        return [t for t in self.tests if t.valid]

    @property
    def caught(self) -> list[str]:
        """The chaffs some valid test caught, in the library's order."""
        hit = {name for test in self.valid for name in test.caught}
        return [name for name in self.chaffs if name in hit]

    def share(self) -> float:
        """The share of the points earned: the chaffs caught by valid tests, over all chaffs, when
        the requirement is met; half of that when it is not."""
        if self.problem or not self.chaffs:
            return 0.0
        caught = len(self.caught) / len(self.chaffs)
        return caught if not self.unmet else caught / 2

    def feedback(self) -> str:
        """For the student: each test's verdict, the misconceptions caught, how many were missed;
        never a chaff's code."""
        if self.problem == NO_TESTS:
            return f"Your tests ({self.origin}): {NO_TESTS}. This step asks for {self.requirement}."
        if self.problem:
            return f"Your tests ({self.origin}) could not be run: {self.problem}"
        lines = [f"Your tests ({self.origin}): {len(self.valid)} of {len(self.tests)} valid."]
        for test in self.tests:
            if not test.valid:
                lines.append(f"  {test.name}: INVALID, it fails on a correct implementation: {test.failure}")
            elif test.caught:
                names = ", ".join(self.chaffs[c] for c in test.caught)
                lines.append(f"  {test.name}: valid; catches: {names}")
            else:
                lines.append(f"  {test.name}: valid; catches none of the planted bugs")
        caught = self.caught
        missed = len(self.chaffs) - len(caught)
        lines.append(
            f"Planted bugs caught by your valid tests: {len(caught)} of {len(self.chaffs)}"
            + (f" ({missed} missed)." if missed else ".")
        )
        if self.unmet:
            lines.append(f"Requirement ({self.requirement}) not met: {'; '.join(self.unmet)}.")
        return "\n".join(lines)


# ------------------------------------------------------------------------------ running
HOST_PROGRAM = """
import remote as _remote

def _load(sources):
    found = {}
    for label, source in sources.items():
        namespace = {"__name__": "lab"}
        exec(compile(source, "lab.py", "exec"), namespace)
        found[label] = namespace
    return found

_HOST = None

def setup(sources, exported):
    global _HOST
    _HOST = _remote.Host(_load(sources), tuple(exported))

def use(label):
    _HOST.use(label)
    return _HOST.describe()

def begin(test):
    _HOST.begin(test)

def handle(text):
    return _HOST.handle(text)

def calls():
    return _HOST.calls()
"""


def _tests_program(tests: TestsSource, kinds: dict[str, str]) -> str:
    """The tests' sandbox program: one line that puts the stand-ins in place (``import lab``
    finds them too) and names the runner's entry points, then the student's code as written."""
    head = (
        "import sys as _own_sys, remote as _own_remote, testrunner as _own_runner; "
        f"_own_remote.bind(globals(), {kinds!r}, {MODULE!r}); "
        f"_own_sys.modules[{tests.module!r}] = _own_sys.modules[{MODULE!r}]; "
        f"__own_tests__, __run_own_test__ = _own_runner.entry_points(globals(), {tests.filename!r}, 1)\n"
    )
    return head + tests.source


class _Implementations:
    """The sandbox holding every implementation behind a host; restarted when one hangs."""

    def __init__(self, library: list[Implementation], names: tuple[str, ...], isolation: str):
        self.library, self.names, self.isolation = library, names, isolation
        self.box: Sandbox | None = None
        self.current = ""
        self.kinds: dict[str, str] = {}

    def start(self) -> None:
        self.box = Sandbox(
            HOST_PROGRAM,
            filename="host.py",
            module_name="host",
            limits=Limits(cpu_seconds=3600, memory_mb=1024),
            import_policy=ImportPolicy(label="the implementations"),
            isolation=self.isolation,
        )
        self.box.start()
        self.box.call("setup", {i.name: i.source for i in self.library}, list(self.names), timeout=60)
        if self.current:
            self.use(self.current)

    def use(self, name: str) -> dict[str, str]:
        if self.box is None or not self.box.alive:
            self.current = ""
            self.start()
        assert self.box is not None
        self.current = name
        self.kinds = self.box.call("use", name, timeout=30)
        return self.kinds

    def begin(self, test: str) -> None:
        assert self.box is not None
        self.box.call("begin", test, timeout=30)

    def answer(self, text: str) -> str:
        """One request from the tests, answered by the implementation in use."""
        assert self.box is not None
        try:
            return str(self.box.call("handle", text, timeout=CALL_SECONDS))
        except SandboxError as error:  # a hang, or a crash: the objects made so far are gone
            self.box.close()
            self.start()
            what = "took too long on this input" if isinstance(error, TimeLimitExceeded) else "stopped on this input"
            return f'{{"error":{{"type":"RuntimeError","message":"the tested code {what}"}}}}'

    def calls(self) -> list[dict]:
        assert self.box is not None
        return list(self.box.call("calls", timeout=30))

    def close(self) -> None:
        if self.box is not None:
            self.box.close()


def _run_against(
    tests: TestsSource, implementation: Implementation, host: _Implementations, isolation: str
) -> tuple[dict[str, dict], list[dict]]:
    """Every test's outcome on one implementation, in a tests' sandbox of its own, and the host's
    log of their calls."""
    kinds = host.use(implementation.name)
    box = Sandbox(
        _tests_program(tests, kinds),
        filename=tests.filename,
        module_name="own_tests",
        limits=Limits(cpu_seconds=int(TEST_SECONDS * MAX_TESTS), memory_mb=512),
        import_policy=ImportPolicy(label="your tests", denied=ImportPolicy().denied | TEST_DENIED),
        isolation=isolation,
        callback=host.answer,
        preload=[name for name in PRELOADED if name in _imported(tests.source)],
    )
    outcomes: dict[str, dict] = {}
    try:
        box.start()
        names = box.call("__own_tests__", list(tests.classes) if tests.classes else None, timeout=30)
        for name in [str(n) for n in names if str(n).split(".")[0] not in tests.skip][:MAX_TESTS]:
            host.begin(name)
            try:
                outcomes[name] = dict(box.call("__run_own_test__", name, timeout=TEST_SECONDS))
            except TimeLimitExceeded:
                outcomes[name] = {"outcome": "failed", "kind": "error", "message": "took too long", "line": None}
                box.restart()
            except SandboxError as error:
                outcomes[name] = {"outcome": "failed", "kind": "error", "message": str(error)[:600], "line": None}
                if not box.alive:
                    box.restart()
    finally:
        box.close()
    return outcomes, host.calls()


def grade_own_tests(
    assignment: Assignment,
    tests: TestsSource,
    *,
    seed: int,
    isolation: str = "bwrap",
    library: list[Implementation] | None = None,
) -> OwnTestsResult:
    """Run the student's tests against every wheat and chaff of the step (see the module's
    description). A failure to load the tests at all is the result's ``problem``."""
    started = time.monotonic()
    spec = REQUIREMENTS[assignment.id]
    library = list(library if library is not None else implementations(assignment))
    chaffs = {i.name: i.misconception for i in library if not i.correct}
    order = list(library)
    random.Random(seed).shuffle(order)
    host = _Implementations(library, assignment.names, isolation)
    runs: dict[str, dict[str, dict]] = {}
    reference_calls: list[dict] = []
    try:
        for implementation in order:
            outcomes, calls = _run_against(tests, implementation, host, isolation)
            if not outcomes:  # the tests are listed the same way whatever runs behind them
                break
            runs[implementation.name] = outcomes
            if implementation.name == "reference":
                reference_calls = calls
    except LoadError as error:  # the tests do not load: the student's to fix; the grader's own failures propagate
        problem = f"they did not load: {error.type_name}: {error.message}"[:600]
        return OwnTestsResult(
            tests.origin, [], chaffs, spec.text, [], problem=problem, seconds=time.monotonic() - started
        )
    finally:
        host.close()
    names = list(runs.get("reference", {}))
    if not names:
        return OwnTestsResult(
            tests.origin, [], chaffs, spec.text, [], problem=NO_TESTS, seconds=time.monotonic() - started
        )
    results = []
    for name in names:
        test = OwnTest(name)
        for implementation in library:
            outcome = runs[implementation.name].get(name, {"outcome": "failed", "message": "did not run"})
            test.passed[implementation.name] = outcome["outcome"] == "passed"
            if implementation.correct and outcome["outcome"] != "passed" and test.valid:
                test.valid = False
                where = f" (line {outcome['line']})" if outcome.get("line") else ""
                test.failure = f"{outcome.get('message', '')}{where}"
            elif not implementation.correct and outcome["outcome"] != "passed":
                test.caught.append(implementation.name)
        if not test.valid:
            test.caught = []  # wrong about the step: what it fails on says nothing about the bugs
        results.append(test)
    by_test: dict[str, list[dict]] = {}
    for call in reference_calls:
        by_test.setdefault(str(call.get("test")), []).append(call)
    valid_calls = {t.name: by_test.get(t.name, []) for t in results if t.valid}
    unmet = spec.check(valid_calls)
    if len(valid_calls) < spec.minimum:
        unmet.insert(0, f"{len(valid_calls)} valid test(s), {spec.minimum} asked for")
    return OwnTestsResult(tests.origin, results, chaffs, spec.text, unmet, seconds=time.monotonic() - started)


# ------------------------------------------------------------------------- in a grade
@dataclass
class OwnTestsGrade:
    """What a grade takes from the student's own tests: points and the feedback, and a summary as
    plain data for the class report."""

    score: float
    max_score: float
    output: str
    summary: dict[str, Any]


def grade_in_submission(
    assignment: Assignment, source: str, graded_file: Path | None, *, seed: int, isolation: str = "bwrap"
) -> OwnTestsGrade | None:
    """The own-tests part of a submission's grade, or None when the step asks for no tests, the
    course turned them off, or the submission has none and they are worth no points. A submission
    without tests whose tests are worth points gets the requirement, unmet, and 0."""
    spec = REQUIREMENTS.get(assignment.id)
    if spec is None or not assignment.own_tests:
        return None
    points = float(assignment.own_tests_points)
    tests = tests_source(assignment, source, graded_file)
    if tests is None and points == 0:
        return None  # nothing to say that is worth a line in every feedback
    if tests is None:
        text = f"No tests of your own were found. This step asks for {spec.text}."
        return OwnTestsGrade(0.0, points, text, {"found": False})
    result = grade_own_tests(assignment, tests, seed=seed, isolation=isolation)
    summary = {
        "found": True,
        "tests": len(result.tests),
        "valid": len(result.valid),
        "caught": result.caught,
        "chaffs": list(result.chaffs),
        "misconceptions": dict(result.chaffs),  #: each chaff's bug, for the class report
        "unmet": result.unmet,
        "problem": result.problem,
        "seconds": round(result.seconds, 3),
    }
    return OwnTestsGrade(round(points * result.share(), 4), points, result.feedback(), summary)
