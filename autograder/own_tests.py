"""Grade a student's own tests: valid on every correct implementation, and which planted bugs they catch.

This is how courses that grade students' tests do it (wheats and chaffs). A test is *valid* when
it passes on every correct implementation of the step, the *wheats*: the reference solution and
another written differently (``instructor/wheats/``). A valid test *catches* a *chaff*, one
implementation with a single plausible bug named for its misconception (``instructor/chaffs/``),
when it fails on it. The tests are run by the kit's runner (``minesweeper_kit/owntests/``), the
one the notebooks' "check my tests" cell uses with the public planted bugs, so a verdict means
the same in both: each test run as its framework runs it, repeated, seeded, against stand-ins
for the step's names, with a budget of CPU time of its own (``own_tests_time_limit``).

This module says where a submission's tests are (a ``test.py`` beside a 6.009 ``lab.py``, or
the notebook's cells), which implementations they meet, and what the grade and the feedback take
from the verdicts.
"""

from __future__ import annotations

import importlib.util
import os
import stat
import sys
import types
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from minesweeper_kit.own_tests_requirements import REQUIREMENTS, Requirement  # noqa: F401 - Requirement: re-exported
from minesweeper_kit.owntests import (
    CodeCell,
    Implementation,
    OwnTestsLimits,
    TestsFile,
    TestsSource,
    Verdicts,
    failable,
    judge,
    run_tests,
    tests_from_cells,
    without_names,
)

from .assignments import Assignment, InstructorMaterialMissing, instructor_dir
from .nofollow import open_nofollow
from .submission import MAX_SOURCE_BYTES, source_too_large

__all__ = [
    "FoundTests",
    "Implementation",
    "OwnTestsResult",
    "REQUIREMENTS",
    "grade_own_tests",
    "implementations",
    "tests_source",
    "worth",
]

#: What the feedback says of a submission whose tests file holds no test.
NO_TESTS = "no tests were found"
#: A test file longer than this is not parsed (as for the graded ``.py``; see ``submission``).
MAX_TEST_FILE = MAX_SOURCE_BYTES
#: The module name the stand-ins answer to (6.009's ``test.py`` does ``import lab``).
MODULE = "lab"


# ----------------------------------------------------------------------------- the library
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
        if getattr(chaff, "planted", True)
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
class FoundTests:
    """A student's tests, ready for the runner, and how the feedback names where they are."""

    file: TestsFile
    origin: str  #: "test.py", "your own tests"
    lines: TestsSource | None = None  #: a notebook's: each line's cell and line in it
    problem: str = ""  #: why the tests are not run at all (a file too large to read)
    #: the name the student gave the file the tests were read from, where the tests' sandbox holds
    #: them under another ("" when the two are the same)
    shown: str = ""

    @property
    def source(self) -> str:
        return self.file.source

    def where(self, line: int | None) -> str:
        """A line of the tests' file as the student knows it."""
        if line is None:
            return ""
        if self.lines is not None:
            return self.lines.where(line)
        return f"{self.shown or self.file.filename}, line {line}"


def tests_source(
    assignment: Assignment,
    graded_source: str,
    graded_file: Path | None,
    cells: list[CodeCell] | None = None,
) -> FoundTests | None:
    """Where a student's tests are: a ``test.py`` beside the graded ``.py`` file (6.009's layout,
    where only the class the handout names counts), else a notebook's ``cells`` (every definition
    but the step's own, the set-up cell's helpers included), else the graded code itself with the
    step's own definitions taken out, so its tests call the implementation under test. None when
    there are no tests."""
    spec = REQUIREMENTS.get(assignment.id)
    if spec is None:
        return None
    if graded_file is not None and graded_file.suffix == ".py":
        beside = graded_file.parent / "test.py"
        text = _read_nofollow(beside) if beside != graded_file else None
        too_large = source_too_large(len(text.encode("utf-8")), "test.py") if text is not None else None
        if too_large:
            return FoundTests(TestsFile("", "test.py", spec.file_classes, MODULE), "test.py", problem=too_large)
        if text is not None:
            module = graded_file.stem if graded_file.stem.isidentifier() else MODULE
            return FoundTests(TestsFile(text, "test.py", spec.file_classes, module, skip=spec.course_tests), "test.py")
    if cells is not None:
        found = tests_from_cells(cells, assignment.names)
        if not _defines_tests(found.source):
            return None
        return FoundTests(TestsFile(found.source, "tests.py", None, MODULE, as_names=True), "your own tests", found)
    stripped = without_names(graded_source, assignment.names)
    if stripped is None or not _defines_tests(stripped):
        return None
    # The tests' sandbox holds them as tests.py whatever the graded file is called: under the
    # student's own name they could be taken for a module the tests import (a lab.py is the stand-ins'
    # module, lab) or for one pytest reads (conftest.py), and no test would be found.
    name = graded_file.name if graded_file is not None and graded_file.suffix == ".py" else ""
    return FoundTests(TestsFile(stripped, "tests.py", None, MODULE, as_names=True), "your own tests", shown=name)


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
        return handle.read(MAX_TEST_FILE + 1).decode("utf-8", errors="replace")  # one byte more: too large


def _defines_tests(source: str) -> bool:
    return bool(failable(source)) or (
        "def test" in source and any(line.startswith(("def test", "async def test")) for line in source.splitlines())
    )


# ---------------------------------------------------------------------------- the results
def worth(points: float) -> str:
    """What the student's own tests are worth in this course, in one sentence."""
    if points <= 0:
        return "In this course your own tests are reported only: they are worth 0 points."
    return (
        f"In this course your own tests are worth {points:g} points: that many times the share of the planted bugs "
        "your valid tests catch, half of it while the step's requirement is not met."
    )


@dataclass
class OwnTestsResult:
    """What the student's tests did: the verdicts, and where the tests were read."""

    origin: str
    verdicts: Verdicts
    found: FoundTests | None = None

    @property
    def tests(self) -> list:
        return self.verdicts.tests

    @property
    def valid(self) -> list:
        return self.verdicts.valid

    @property
    def caught(self) -> list[str]:
        return self.verdicts.caught

    @property
    def chaffs(self) -> dict[str, str]:
        return self.verdicts.chaffs

    @property
    def unmet(self) -> list[str]:
        return self.verdicts.unmet

    @property
    def problem(self) -> str:
        return self.verdicts.problem

    @property
    def seconds(self) -> float:
        return self.verdicts.seconds

    def share(self) -> float:
        return self.verdicts.share()

    def feedback(self, points: float | None = None) -> str:
        """For the student: each test's verdict, the misconceptions caught, how many were missed,
        the requirement, and what the tests are worth; never a chaff's code."""
        where = self.found.where if self.found is not None else (lambda line: f"line {line}" if line else "")
        heading = f"Your tests ({self.origin})"
        if self.verdicts.problem == NO_TESTS:
            text = f"{heading}: {NO_TESTS}. This step asks for {self.verdicts.requirement}."
        else:
            text = self.verdicts.text(heading, where)
        return text if points is None else f"{text}\n{worth(points)}"


def grade_own_tests(
    assignment: Assignment,
    tests: FoundTests,
    *,
    seed: int,
    isolation: str = "bwrap",
    library: list[Implementation] | None = None,
    limits: OwnTestsLimits | None = None,
) -> OwnTestsResult:
    """Run the student's tests against every wheat and chaff of the step (see the module's
    description). A failure to load the tests at all is the result's ``problem``; the grader's
    own failures (no sandbox starts, missing instructor material) raise."""
    spec = REQUIREMENTS[assignment.id]
    library = list(library if library is not None else implementations(assignment))
    limits = limits or OwnTestsLimits(
        budget_seconds=float(assignment.own_tests_time_limit),
        # the course's wall_limit bounds the own tests as it bounds the hidden tests; else the
        # hidden tests' rule, from the own tests' CPU budget
        wall_seconds=None if assignment.wall_limit is None else float(assignment.wall_limit),
    )
    run = run_tests(tests.file, library, assignment.names, seed=seed, isolation=isolation, limits=limits)
    if not run.problem and not run.tests:
        run.problem = NO_TESTS
        if tests.file.classes:
            classes = " or ".join(tests.file.classes)
            run.problem = (
                f"{NO_TESTS}: {tests.file.filename} has no class {classes} with test methods "
                f"(the handout's tests go in {classes})"
            )
    verdicts = judge(run, library, spec, failable(tests.source), limits.repeats, limits.budget_seconds)
    return OwnTestsResult(tests.origin, verdicts, tests)


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
    assignment: Assignment,
    source: str,
    graded_file: Path | None,
    *,
    seed: int,
    isolation: str = "bwrap",
    cells: list[CodeCell] | None = None,
) -> OwnTestsGrade | None:
    """The own-tests part of a submission's grade, or None when the step asks for no tests, the
    course turned them off, or the submission has none and they are worth no points. A submission
    without tests whose tests are worth points gets the requirement, unmet, and 0."""
    spec = REQUIREMENTS.get(assignment.id)
    if spec is None or not assignment.own_tests:
        return None
    points = float(assignment.own_tests_points)
    tests = tests_source(assignment, source, graded_file, cells)
    if tests is None and points == 0:
        return None  # nothing to say that is worth a line in every feedback
    if tests is None:
        text = f"No tests of your own were found. This step asks for {spec.text}.\n{worth(points)}"
        return OwnTestsGrade(0.0, points, text, {"found": False})
    if tests.problem:
        text = f"Your tests ({tests.origin}): {tests.problem}. This step asks for {spec.text}.\n{worth(points)}"
        return OwnTestsGrade(0.0, points, text, {"found": True, "problem": tests.problem})
    result = grade_own_tests(assignment, tests, seed=seed, isolation=isolation)
    verdicts = result.verdicts
    summary = {
        "found": True,
        "tests": len([t for t in verdicts.tests if not t.row]),
        "valid": len([t for t in verdicts.valid if not t.row]),
        "flaky": len([t for t in verdicts.tests if t.status == "flaky"]),
        "caught": result.caught,
        "chaffs": list(result.chaffs),
        "misconceptions": dict(result.chaffs),  #: each chaff's bug, for the class report
        "unmet": result.unmet,
        "problem": result.problem,
        "seconds": round(result.seconds, 3),
        "budget_spent": verdicts.budget_spent,
    }
    return OwnTestsGrade(round(points * result.share(), 4), points, result.feedback(points), summary)
