"""The graded assignments: what each one grades, with which limits and which hidden suite.

Five follow the notebook steps. Five more grade MIT's later Mines labs as their terms handed them
out, one per function API (`minesweeper_kit.formats.mit6009.FUNCTION_APIS`): they have no
notebook, share one hidden suite and one reference, and differ only in the API they ask for.

Hidden suites and reference solutions live in ``autograder/instructor/``, which is kept out of
the wheel students can install; the grader finds that folder next to this package (an editable
install or a course checkout) or through ``AUTOGRADER_INSTRUCTOR_DIR``.
"""

from __future__ import annotations

import contextlib
import functools
import math
import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from minesweeper_kit.formats.mit6009 import FUNCTION_APIS, FunctionAPI
from minesweeper_kit.sandbox import DEFAULT_DENIED, ImportPolicy, Limits

from .notebook import CourseCells
from .students import Layout

__all__ = [
    "Assignment",
    "ASSIGNMENTS",
    "get_assignment",
    "instructor_dir",
    "originals_dir",
    "originals_from",
    "ORIGINALS_VARIABLE",
    "ORIGINALS_PARTS",
    "notebooks_dir",
    "InstructorMaterialMissing",
]

PACKAGE_DIR = Path(__file__).resolve().parent
#: The folders of the original data: the 6.009 HyperMines tests, Project 10's boards and games,
#: the Sweepmine files.
ORIGINALS_PARTS = ("hypermines", "project10", "sweepmine")


class InstructorMaterialMissing(RuntimeError):
    """The hidden suites or the course's data are not where the grader looks for them."""


def instructor_dir() -> Path:
    """The folder of hidden suites and reference solutions, or a clear error."""
    override = os.environ.get("AUTOGRADER_INSTRUCTOR_DIR")
    path = Path(override) if override else PACKAGE_DIR / "instructor"
    if not (path / "suites").is_dir():
        raise InstructorMaterialMissing(
            f"the hidden test suites are not installed: {path / 'suites'} does not exist. They are "
            "kept out of the student wheel on purpose; grade from a course checkout (or an "
            "editable install: pip install -e .) or set AUTOGRADER_INSTRUCTOR_DIR to the folder "
            "holding suites/ and reference/."
        )
    return path


#: Names the folder of original data to use instead of the kit's copy (``--originals``).
ORIGINALS_VARIABLE = "AUTOGRADER_ORIGINALS"


@contextlib.contextmanager
def originals_from(path: str | None) -> Iterator[None]:
    """Grade with the original data at ``path`` (the controller's ``--originals``, carried to a dask
    worker in the job) for the block; None leaves the process's own setting alone."""
    if not path:
        yield
        return
    before = os.environ.get(ORIGINALS_VARIABLE)
    os.environ[ORIGINALS_VARIABLE] = path
    try:
        yield
    finally:
        if before is None:
            os.environ.pop(ORIGINALS_VARIABLE, None)
        else:
            os.environ[ORIGINALS_VARIABLE] = before


def originals_dir() -> Path:
    """The original assignments' test data the hidden suites compare with: the folder named by
    ``AUTOGRADER_ORIGINALS`` when an instructor sets it, else ``data/originals`` in the instructor
    folder, where the kit ships its own copy (see its README for where each file came from)."""
    override = os.environ.get(ORIGINALS_VARIABLE)
    if override:
        path, source = Path(override), "AUTOGRADER_ORIGINALS"
    else:
        path, source = instructor_dir() / "data" / "originals", "the instructor folder"
    unreadable = [name for name in ORIGINALS_PARTS if not _readable_folder(path / name)]
    if unreadable:
        raise InstructorMaterialMissing(
            f"the original assignments' test data is not readable at {path} (from {source}): "
            f"{', '.join(unreadable)} missing or unreadable. It ships in autograder/instructor/data/originals; set "
            "AUTOGRADER_ORIGINALS (or --originals) only to use other data laid out the same way."
        )
    return path


def _readable_folder(path: Path) -> bool:
    """Whether ``path`` is a folder this process may list and enter (checked up front, so a grade
    names the folder once rather than each file a hidden test failed to open)."""
    return path.is_dir() and os.access(path, os.R_OK | os.X_OK)


def notebooks_dir() -> Path:
    """The source notebooks (with nbgrader solution cells): ``AUTOGRADER_NOTEBOOKS`` or the
    checkout's ``notebooks/``."""
    override = os.environ.get("AUTOGRADER_NOTEBOOKS")
    return Path(override) if override else PACKAGE_DIR.parent / "notebooks"


@dataclass(frozen=True)
class LatePolicy:
    """How lateness costs points: nothing within the grace period, then a share of the points per
    started day, and everything after ``max_days`` (None: no limit)."""

    grace_minutes: float = 0.0
    penalty_per_day: float = 0.0
    max_days: float | None = None

    def penalty(self, late_seconds: float, score: float, max_score: float) -> float:
        """The points taken off ``score`` for a submission ``late_seconds`` after the due date."""
        if late_seconds <= self.grace_minutes * 60:
            return 0.0
        days = late_seconds / 86400
        if self.max_days is not None and days > self.max_days:
            return score
        started = math.ceil(days - 1e-9)
        return round(min(score, self.penalty_per_day * started * max_score), 4)

    @property
    def costs_points(self) -> bool:
        """Whether a late submission can lose points under this policy."""
        return bool(self.penalty_per_day) or self.max_days is not None

    def describe(self) -> str:
        """The policy in one sentence, for feedback and ``autograder check``."""
        if not self.penalty_per_day and self.max_days is None:
            return "late submissions are marked, with no penalty"
        parts = []
        if self.grace_minutes:
            parts.append(f"{self.grace_minutes:g} minutes' grace")
        if self.penalty_per_day:
            parts.append(f"{100 * self.penalty_per_day:g}% of the points per started day late")
        if self.max_days is not None:
            parts.append(f"no points after {self.max_days:g} day(s)")
        return "late policy: " + ", ".join(parts)


@dataclass(frozen=True)
class Assignment:
    """One graded step: its names, its hidden suite, its limits and its import rule."""

    id: str
    title: str
    notebook: str  #: source notebook stem, e.g. "04-nd-dig"; "" for an assignment without one
    names: tuple[str, ...]  #: what the student defines
    allowed_imports: frozenset[str] | None = None
    time_limit: float = 100.0  #: whole-submission budget, CPU seconds
    #: whole-submission budget of wall-clock seconds for the hidden tests; None: derived from the
    #: CPU budget (:meth:`wall_budget`)
    wall_limit: float | None = None
    test_time_limit: float = 30.0  #: default per-test limit, CPU seconds
    #: every per-test limit is at least this many times the reference solution's CPU time
    limit_factor: float = 10.0
    memory_mb: int = 1024
    reference_file: str | None = None  #: instructor/reference/<file>; else notebook solutions
    file_names: tuple[str, ...] = ()  #: preferred file names inside a student's folder
    extra_denied: frozenset[str] = field(default_factory=frozenset)
    kit_allowed: bool = False  #: may import minesweeper_kit (the bots' BotView and Move)
    # What a course file (course.toml, autograder.course) may change; the defaults are the kit's.
    course_name: str = ""  #: the course's name for it, nbgrader's folder name; the id when empty
    release_file: str = ""  #: the file students hand in; the release notebook when empty
    points: float | None = None  #: the score's scale; the hidden suite's own points when None
    visibility: str = "visible"  #: Gradescope's visibility of every test
    disallowed_import: str = "refuse"  #: "refuse" the file, or "lose-tests" that reach the import
    due: str | None = None  #: the due date, ISO 8601 in UTC
    late: LatePolicy = field(default_factory=LatePolicy)
    seed: int | None = None  #: the course's fixed seed of the random cases, if it sets one
    #: whether a student's own tests are graded (valid on correct code, planted bugs caught) when
    #: the submission holds some, and what they are worth on top of the hidden tests' points
    own_tests: bool = True
    own_tests_points: float = 0.0
    #: CPU seconds for everything done for the student's own tests (their sandboxes, the
    #: implementations' work answering them), the grader's work on the student's behalf
    own_tests_time_limit: float = 60.0
    #: the function API (``FunctionAPI.id``) of a term of MIT's later Mines labs this grades; "" else
    api: str = ""
    suite: str = ""  #: the hidden suite's name, ``suites/test_<suite>.py``; the id's when empty
    #: the hidden tests an untouched starter passes (``autograder check``): none for a notebook
    #: step; for a handout whose 2-D game comes written, the tests that need nothing else
    starter_earns: tuple[str, ...] = ()
    recursion_limit: int = 10_000  #: sys.setrecursionlimit in the sandbox

    @property
    def folder(self) -> str:
        """The assignment's folder in an nbgrader course: ``submitted/<student>/<folder>/``."""
        return self.course_name or self.id

    @property
    def handed_in(self) -> str:
        """The file name students hand in: the release notebook's unless the course says otherwise
        (an assignment without a notebook: its first file name)."""
        return self.release_file or (f"{self.notebook}.ipynb" if self.notebook else self.file_names[0])

    @property
    def suite_path(self) -> Path:
        """The hidden pytest suite, ``instructor/suites/test_<suite or id>.py`` (never shipped to
        students)."""
        return instructor_dir() / "suites" / f"test_{(self.suite or self.id).replace('-', '_')}.py"

    def function_api(self) -> FunctionAPI | None:
        """The function API this assignment grades, or None for a notebook step."""
        return next((api for api in FUNCTION_APIS if api.id == self.api), None) if self.api else None

    @property
    def notebook_path(self) -> Path:
        """The source notebook, with every solution: the reference and the release version are made
        from it."""
        return notebooks_dir() / f"{self.notebook}.ipynb"

    def import_policy(self) -> ImportPolicy:
        """The course rule on imports (the sandbox, not this rule, is the security boundary)."""
        kit = set() if self.kit_allowed else {"minesweeper_kit"}
        direct = (
            frozenset({"minesweeper_kit.arena", "minesweeper_kit.bots.solver"}) if self.kit_allowed else frozenset()
        )
        return ImportPolicy(
            allowed=self.allowed_imports,
            label=f"the {self.id} assignment",
            denied=DEFAULT_DENIED | kit | self.extra_denied,
            direct_denied=direct,
            refuse_file=self.disallowed_import == "refuse",
        )

    def keeps_import(self, name: str) -> bool:
        """Whether a notebook's set-up import of ``name`` goes along with the solution cells."""
        return not self.import_policy().is_denied(name)

    def limit_note(self) -> str:
        """How the per-test limits were chosen, for feedback."""
        return (
            f"each test's limit is at least {self.limit_factor:g} times the CPU time the reference "
            "solution needs for it"
        )

    def wall_budget(self, cpu_budget: float | None = None) -> float:
        """The wall-clock seconds the hidden tests of one submission may take in all: the course's
        ``wall_limit``, else 5 times the CPU budget plus 60 s. Generous for honest code, which
        spends close to its CPU time, even on a machine so busy it gets a fifth of a core; it bounds
        code that sleeps or blocks in every call, which the per-call guards allow one call at a
        time (5 s idle each, and 1,700 calls in a HyperMines grade)."""
        if self.wall_limit is not None:
            return self.wall_limit
        return 5 * (cpu_budget if cpu_budget is not None else self.time_limit) + 60

    def limits(self, memory_mb: int | None = None) -> Limits:
        """The sandbox limits of one submission: the assignment's memory (or ``memory_mb``) and a
        CPU rlimit 20 s above the budget, so the budget, not the rlimit, is what stops a slow
        submission."""
        return Limits(
            memory_mb=memory_mb or self.memory_mb,
            cpu_seconds=int(self.time_limit) + 20,
            recursion_limit=self.recursion_limit,
        )

    def layout(self) -> Layout:
        """What to look for in a student's folder: this assignment's folder and files, and the other
        steps' notebooks, which are never graded for this one. A generic name another assignment also
        prefers (``lab.py``, ``minesweeper.py``) stays gradable: students of any step use them."""
        mine = self.preferred_files()
        others = {
            n
            for a in ASSIGNMENTS.values()
            if a.id != self.id and a.notebook
            for n in (a.handed_in, f"{a.notebook}.ipynb")
        }
        others -= set(mine)
        return Layout(folder=self.folder, handed_in=self.handed_in, preferred=mine, others=frozenset(others))

    def course_cells(self) -> CourseCells | None:
        """The code cells of the course's notebook for this step (None when it cannot be read):
        any other code cell in a student's notebook is one they added, and is graded too."""
        if not self.notebook:
            return None
        try:
            return _course_cells(self.notebook_path)
        except (OSError, ValueError, InstructorMaterialMissing):
            return None

    def preferred_files(self) -> tuple[str, ...]:
        """File names looked for first in a student's folder: the step's notebook, then the original
        assignment's names."""
        notebook = (f"{self.notebook}.ipynb",) if self.notebook else ()
        return tuple(dict.fromkeys((self.handed_in,) + notebook + self.file_names))


ASSIGNMENTS: dict[str, Assignment] = {
    a.id: a
    for a in [
        # Project 10 names no rule on imports and hands out no template (students write minesweeper.py
        # from the function list), so anything goes except itertools, which step 1's notebook refuses
        # for the N-D neighbours ("`itertools` cannot be imported"). The notebook's set-up cell
        # imports contextlib, io, os and tempfile: allowed.
        Assignment(
            id="neighbors",
            title="The 2-D text game and neighbours in N dimensions",
            notebook="01-neighbors",
            names=(
                "read_file",
                "make_empty_grid",
                "update_grid",
                "print_grid",
                "dig",
                "count_total_moves",
                "determine_game_status",
                "neighbors_1d",
                "neighbors_2d",
                "neighbors_3d",
                "neighbors",
            ),
            extra_denied=frozenset({"itertools"}),
            file_names=("minesweeper.py",),
        ),
        # Step 2's notebook: "`itertools` cannot be imported" (the recursion is the exercise). Its
        # set-up cell imports contextlib, io, os and tempfile: allowed.
        Assignment(
            id="make-board",
            title="Recursive N-D boards",
            notebook="02-make-board",
            names=("make_board", "get_coords", "set_coords", "all_coords", "neighbors", "new_board"),
            extra_denied=frozenset({"itertools"}),
        ),
        # CS455's handout sets no rule on imports; step 3's set-up cell imports contextlib, io, os,
        # tempfile, random and sys, and its MineField cell imports random: all allowed.
        Assignment(
            id="flood-fill",
            title="The 2-D game with flood fill (CS455 semantics)",
            notebook="03-flood-fill",
            names=("MineField", "VisibleField", "flood_fill_iterative"),
            # the 1000x1000 iterative flood: 90 s stated in the notebook; the reference needs 4.6-6.4 s,
            # up to 8 s on a busy machine
            limit_factor=8.0,
        ),
        # 6.009's handout forbids adding imports to lab.py, whose template begins `import sys` /
        # `sys.setrecursionlimit(10000)` / `# NO ADDITIONAL IMPORTS` (the Fall 2018 template also
        # ends with `import doctest` under `if __name__ == '__main__':`). Allowed: sys and doctest
        # (the templates), contextlib, io, os and tempfile (step 4's set-up cell), and __future__,
        # typing and collections (annotations; the reference solution uses them). itertools stays
        # out: the handout asks students to leave it alone.
        Assignment(
            id="hypermines",
            title="HyperMines: the 6.009 API in N dimensions",
            notebook="04-nd-dig",
            names=("HyperMinesGame",),
            allowed_imports=frozenset(
                {"sys", "doctest", "contextlib", "io", "os", "tempfile", "__future__", "typing", "collections"}
            ),
            reference_file="hypermines.py",
            file_names=("lab.py",),
        ),
        # The tournament's rules name no imports: a bot may use numpy, the standard library and the
        # kit's BotView/Move types; import_policy refuses minesweeper_kit.arena and
        # minesweeper_kit.bots.solver by name. Step 5's set-up cell imports the arena to run games in
        # the notebook: that one import is refused on purpose, and the solution cell does not use it.
        Assignment(
            id="bots",
            title="A bot graded by its win rate against the judge",
            notebook="05-bots",
            names=("next_move",),
            time_limit=300.0,
            test_time_limit=240.0,
            kit_allowed=True,
        ),
    ]
}

#: What the handouts of the function-API terms import in lab.py ("# NO ADDITIONAL IMPORTS
#: ALLOWED!" under `import typing` and `import doctest` from Spring 2022 on; before that "# NO
#: IMPORTS ALLOWED!" with `import doctest` under `if __name__ == "__main__":`), and __future__
#: for annotations. Their test.py raises the recursion limit to 20000 before importing lab.py:
#: the sandbox does the same, so a recursive flood that passed the term's tests passes here.
FUNCTION_API_IMPORTS = frozenset({"doctest", "typing", "__future__"})
#: The hidden tests of the function-API suite that its starter passes (the reference with its
#: render functions unwritten, ``references.starter_submission``): the tests that render nothing.
FUNCTION_API_STARTER_EARNS = (
    "test_new_small_6d",
    "test_new_large_4d",
    "test_new_2d_games",
    "test_random_new_games",
    "test_nothing_after_the_end",
    "test_victory",
)


def function_api_assignment(api: FunctionAPI) -> Assignment:
    """The assignment that grades a lab.py written for ``api``, as its term's handout asks."""
    return Assignment(
        id=f"mines-{api.id}",
        title=f"Mines, function API: {api.course} {api.terms} ({api.render_2d}, {api.text_2d}, key {api.key!r})",
        notebook="",
        names=api.names,
        allowed_imports=FUNCTION_API_IMPORTS,
        reference_file="mines_functions.py",
        file_names=("lab.py",),
        api=api.id,
        suite="mines_functions",
        starter_earns=FUNCTION_API_STARTER_EARNS,
        recursion_limit=20_000,
    )


ASSIGNMENTS.update({a.id: a for a in map(function_api_assignment, FUNCTION_APIS)})


@functools.lru_cache(maxsize=16)
def _course_cells(path: Path) -> CourseCells:
    return CourseCells.of(path.read_bytes())


def get_assignment(assignment_id: str) -> Assignment:
    """The assignment with this id, or a ValueError listing the known ones."""
    try:
        return ASSIGNMENTS[assignment_id]
    except KeyError:
        raise ValueError(f"unknown assignment {assignment_id!r}; known: {', '.join(ASSIGNMENTS)}") from None
