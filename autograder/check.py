"""``autograder check``: prove an assignment is ready before students submit.

Three checks, each on the course's scale (``scale.py``: the hidden tests' points and the own tests'
points): the model answer scores full marks well inside the time budget (for a notebook step, the
source notebook with every solution cell as a student who copied them would hand it in, its own
tests included; for a function-API term, which has no notebook, the reference file); the starter
(release) version scores what it earns without crashing anything (0 for a notebook step; for a
function-API term, whose starter is the reference with its renders unwritten, exactly the tests
that render nothing: ``Assignment.starter_earns``); the release notebook (where there is one) and
the feedback files contain no hidden-test code and no solution code. A notebook step whose
reference is a file of its own (``instructor/reference/``) has a fourth: that file scores full
marks on the hidden tests (it holds no tests of its own to grade).
"""

from __future__ import annotations

import ast
import dataclasses
from collections.abc import Callable
from dataclasses import dataclass

from .assignments import Assignment
from .grading import OWN_TESTS_ID, GradeReport, grade_submission
from .references import model_answer, reference_submission, release_notebook, starter_submission
from .report import feedback_text, gradescope_results
from .scale import on_course_scale
from .submission import Submission

__all__ = [
    "CheckResult",
    "check_assignment",
    "model_answer",
    "reference_submission",
    "starter_submission",
    "release_notebook",
]


@dataclass
class CheckResult:
    """One of the three checks: its name, whether it passed, and what was found (``autograder
    check`` prints it)."""

    name: str
    ok: bool
    detail: str


def _code_lines(source: str, minimum: int = 24) -> set[str]:
    """Distinctive statements of a source file: long enough, not signatures or docstrings."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return set()
    docstrings: set[int] = set()
    for node in ast.walk(tree):
        if (
            isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Module))
            and node.body
            and isinstance(node.body[0], ast.Expr)
            and isinstance(getattr(node.body[0], "value", None), ast.Constant)
        ):
            docstrings.update(range(node.body[0].lineno, (node.body[0].end_lineno or node.body[0].lineno) + 1))
    lines = set()
    for number, line in enumerate(source.splitlines(), start=1):
        text = line.strip()
        if (
            len(text) >= minimum
            and number not in docstrings
            and not text.startswith(("#", "def ", "class ", "@", '"', "'", "import ", "from "))
        ):
            lines.add(text)
    return lines


def _solution_lines(source: str) -> set[str]:
    """The solution's distinctive lines: inside nbgrader's solution markers when it has them."""
    lines = _code_lines(source)
    if "### BEGIN SOLUTION" not in source:
        return lines
    inside, marked = False, set()
    for line in source.splitlines():
        text = line.strip()
        if text == "### BEGIN SOLUTION":
            inside = True
        elif text == "### END SOLUTION":
            inside = False
        elif inside and text in lines:
            marked.add(text)
    return marked


def _shown_by_author(assignment: Assignment) -> set[str]:
    """Lines the source notebook shows outside its solution regions (worked examples, hints):
    seeing them in the release is intended, not a leak."""
    import nbformat

    shown: set[str] = set()
    for cell in nbformat.read(str(assignment.notebook_path), as_version=4).cells:
        inside = False
        for line in str(cell.get("source", "")).splitlines():
            text = line.strip()
            if text == "### BEGIN SOLUTION":
                inside = True
            elif text == "### END SOLUTION":
                inside = False
            elif not inside:
                shown.add(text)
    return shown


class _NoNotebook(Exception):
    """The assignment has no notebook, so no release version to look into."""


def _leaks(text: str, lines: set[str]) -> list[str]:
    return sorted(line for line in lines if line in text)


def check_assignment(
    assignment: Assignment,
    *,
    seed: int = 1,
    time_limit: float | None = None,
    settings: dict | None = None,
    progress=lambda message: None,
    isolation: str = "bwrap",
) -> list[CheckResult]:
    """Run the checks; each result says what was found."""
    from minesweeper_kit.sandbox.isolation import require_isolation

    require_isolation(isolation)
    budget = float(time_limit or assignment.time_limit)

    def grade(submission: Submission, graded: Assignment = assignment) -> GradeReport:
        report = grade_submission(
            graded, submission, seed=seed, time_limit=budget, settings=settings, isolation=isolation
        )
        return on_course_scale(report, graded)

    results = []
    references = []
    if assignment.notebook:
        progress("grading the model answer (every solution cell of the source notebook)")
    else:
        progress("grading the reference solution")
    answer = model_answer if assignment.notebook else reference_submission
    reference_result, reference, reference_report = _check_reference(
        "reference scores full marks well inside the limit", lambda: answer(assignment), grade, budget
    )
    results.append(reference_result)
    references.append(reference)
    reports = [reference_report]
    if assignment.reference_file and assignment.notebook:
        progress(f"grading the instructor's reference file ({assignment.reference_file})")
        hidden_only = dataclasses.replace(assignment, own_tests=False)  # a file of code holds no tests of its own
        file_result, file_reference, file_report = _check_reference(
            f"the instructor's reference file {assignment.reference_file} scores full marks on the hidden tests",
            lambda: reference_submission(assignment),
            lambda submission: grade(submission, hidden_only),
            budget,
        )
        results.append(file_result)
        references.append(file_reference)
        reports.append(file_report)
    progress("grading the starter (release) version")
    starter_result, starter_report = _check_starter(assignment, grade)
    progress("looking for hidden-test and solution code in what students see")
    reports.append(starter_report)
    leaks = _check_leaks(assignment, [r for r in references if r is not None], [r for r in reports if r is not None])
    return [*results, starter_result, leaks]


def _check_reference(
    name: str, reference_of: Callable[[], Submission], grade: Callable[[Submission], GradeReport], budget: float
) -> tuple[CheckResult, Submission | None, GradeReport | None]:
    """A reference scores full marks in at most half the budget, with no grader error; also
    returns the reference and its report for the leak check (None where it could not be read).
    The budget counts CPU seconds of the hidden tests, so half of it is measured so too: on the
    clock, a busy machine (or the own tests' grading, which has a budget of its own) would fail a
    reference that stays well inside it."""
    try:
        reference = reference_of()
        report = grade(reference)
    except (OSError, ValueError) as error:
        return CheckResult(name, False, str(error)), None, None
    if not report.graded:
        return CheckResult(name, False, _not_graded(report)), reference, report
    failed = [f"{t.name}: {t.output}" for t in report.tests if t.status != "passed" and t.max_score > 0]
    cpu = sum(t.seconds for t in report.tests if t.id != OWN_TESTS_ID)
    ok = report.score == report.max_score and cpu <= budget / 2 and not report.internal_errors
    detail = (
        f"{report.score:g}/{report.max_score:g} in {cpu:.1f} s of CPU time "
        f"(budget {budget:g} s, must stay under half; {report.execution_time:.1f} s on the clock)"
    )
    if failed:
        detail += "; failing: " + "; ".join(failed[:3])
    if report.internal_errors:
        detail += "; grader errors: " + report.internal_errors[0][-500:]
    return CheckResult(name, ok, detail), reference, report


def _check_starter(
    assignment: Assignment, grade: Callable[[Submission], GradeReport]
) -> tuple[CheckResult, GradeReport | None]:
    """The release version scores 0 (or exactly the tests of ``starter_earns``) with no grader
    error; also returns its report for the leak check."""
    earns = set(assignment.starter_earns)
    name = (
        "starter version scores what it earns without crashing"
        if earns
        else "starter version scores 0 without crashing"
    )
    try:
        report = grade(starter_submission(assignment))
    except (OSError, ValueError, ImportError) as error:
        return CheckResult(name, False, str(error)), None
    if not report.graded:
        return CheckResult(name, False, _not_graded(report)), report
    passed = {t.id for t in report.tests if t.status == "passed"}
    ok = (passed == earns if earns else report.score == 0) and not report.internal_errors
    detail = f"{report.score:g}/{report.max_score:g}" + (f"; {report.problem}" if report.problem else "")
    if earns:
        detail += f"; passes {', '.join(sorted(passed)) or 'nothing'}"
        if passed != earns:
            detail += f"; should pass exactly {', '.join(sorted(earns))}"
    if report.internal_errors:
        detail += "; grader errors: " + report.internal_errors[0][-500:]
    return CheckResult(name, ok, detail), report


def _not_graded(report: GradeReport) -> str:
    """What a check says when the grader failed: the causes, not a score."""
    return "not graded, because of a problem on the grader's side: " + "; ".join(report.causes)


def _check_leaks(assignment: Assignment, references: list[Submission], reports: list[GradeReport]) -> CheckResult:
    """No line of the hidden suite, and no solution line the author does not show anyway, appears
    in the release notebook or in the feedback of ``reports``."""
    hidden = _code_lines(assignment.suite_path.read_text(encoding="utf-8"))
    solution = set().union(*(_solution_lines(reference.source) for reference in references))
    found = []
    try:
        import nbformat

        if not assignment.notebook:
            raise _NoNotebook
        release_text = nbformat.writes(release_notebook(assignment))
        found += [f"release notebook shows hidden test code: {line}" for line in _leaks(release_text, hidden)]
        shown = _shown_by_author(assignment)
        found += [
            f"release notebook shows solution code: {line}"
            for line in _leaks(release_text, solution)
            if line not in shown
        ]
    except _NoNotebook:
        pass  # students get the course's own handout: only the feedback is the grader's to check
    except (OSError, ImportError) as error:
        found.append(f"release notebook could not be built: {error}")
    for report in reports:
        text = feedback_text(report) + str(gradescope_results(report))
        found += [f"feedback of the {report.student} shows hidden test code: {line}" for line in _leaks(text, hidden)]
        if report.student != "reference":
            found += [f"feedback shows solution code: {line}" for line in _leaks(text, solution)]
    return CheckResult(
        "release notebook and feedback contain no hidden tests or solution code",
        not found,
        "; ".join(found[:5]) or f"checked {len(hidden)} suite lines and {len(solution)} solution lines",
    )
