"""The kit stands alone: a clone of it with nothing beside it works, and no file looks outside it.

The clone is made from HEAD, then given the working tree's tracked files as they are (each file
``git diff HEAD`` names copied in, or deleted where it is deleted), so it tests what is being
worked on, not only the last commit; files git does not track stay out, as in a real clone. It
lives in a fresh temporary folder that holds nothing else, and every command below runs
in a private mount namespace where this checkout itself is covered by an empty folder (its
virtual environment alone is shown again, for the installed packages), so a path that leads out
of the clone, relative (to a sibling folder) or absolute (this checkout), finds nothing. There the
clone's own code runs: the conformance tests on the original data, ``autograder check`` on every
assignment (on a course's scale where the step's own tests are worth points), and ``autograder
grade`` of a wrong file per assignment, whose full marks are what the check proved the reference
scores.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

import nbformat
import pytest

from autograder.report import student_dir

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO / "tests" / "notebooks"))

from autograder.assignments import get_assignment  # noqa: E402
from autograder.instructor.chaffs import mutate, reference_source  # noqa: E402
from autograder.references import model_answer, reference_submission  # noqa: E402
from grader_testkit import course_file_without_own_tests  # noqa: E402
from minesweeper_kit.own_tests_requirements import REQUIREMENTS  # noqa: E402
from notebook_tools import GRADED, nbgrader_meta  # noqa: E402

pytestmark = [pytest.mark.slow, pytest.mark.nbgrader]

ASSIGNMENTS = ("neighbors", "make-board", "flood-fill", "hypermines", "bots")
#: Text that would point outside the repository: the folder beside it, or a sibling's data.
OUTSIDE = re.compile(r"\.\./shared|seed-originals|parents\[\d\]\.parent")
#: The course the check runs on for a step that asks for tests of the students' own: they are worth
#: points, so the model answer's own tests must be valid and catch every planted bug of the step.
POINTS, OWN_TESTS_POINTS = 25, 5
COURSE = f"[assignments.{{step}}]\npoints = {POINTS}\nown_tests_points = {OWN_TESTS_POINTS}\n"


def _mutants(assignment: str) -> list:
    import importlib

    return importlib.import_module(f"autograder.instructor.chaffs.{assignment.replace('-', '_')}").CHAFFS


@pytest.fixture(scope="module")
def clone():
    """``git clone`` of this checkout's HEAD into a new temporary folder with nothing beside it,
    holding the working tree's tracked files as they are."""
    if os.geteuid() != 0:
        pytest.fail("the stand-alone test covers this checkout in a private mount namespace: run it as root")
    base = Path(tempfile.mkdtemp(prefix="kit-alone-"))
    target = base / "kit"
    subprocess.run(["git", "clone", "-q", "--no-hardlinks", str(REPO), str(target)], check=True)
    _working_tree_into(target)
    assert sorted(p.name for p in base.iterdir()) == ["kit"]
    yield target
    shutil.rmtree(base, ignore_errors=True)


def _working_tree_into(target: Path) -> None:
    """Each tracked file that differs from HEAD (``git diff --name-only HEAD``, renames as a
    deletion and an addition) copied from this checkout into ``target``, or deleted there where it
    is deleted here; the clone's index follows, so ``git ls-files`` there lists them too."""
    listed = subprocess.run(["git", "diff", "--name-only", "--no-renames", "-z", "HEAD"], cwd=REPO,
                            capture_output=True, check=True).stdout.decode()
    names = [name for name in listed.split("\0") if name]
    for name in names:
        source, copy = REPO / name, target / name
        if source.is_file() or source.is_symlink():
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.unlink(missing_ok=True)
            shutil.copy2(source, copy, follow_symlinks=False)
        else:
            copy.unlink(missing_ok=True)
    if names:
        subprocess.run(["git", "update-index", "--add", "--remove", "-z", "--stdin"], cwd=target,
                       input="\0".join(names).encode(), check=True)


def hiding_this_checkout(stage: str) -> list[str]:
    """A command prefix: a private mount namespace in which this checkout is an empty folder, but
    for the virtual environment the tests run from (when it lies inside the checkout; moved there
    through the empty folder ``stage``)."""
    steps, venv = [], Path(sys.prefix).resolve()
    inside = venv.is_relative_to(REPO) and venv != REPO
    if inside:
        steps += [f"mount --bind {venv} {stage}"]
    steps += [f"mount -t tmpfs -o mode=755 tmpfs {REPO}"]
    if inside:
        steps += [f"mkdir -p {venv}", f"mount --move {stage} {venv}"]
    return ["unshare", "-m", "--propagation", "private", "sh", "-c", " && ".join(steps) + ' && exec "$0" "$@"']


def run_in_clone(clone: Path, *args: str, timeout: float = 900) -> subprocess.CompletedProcess:
    """Run ``python ARGS`` in the clone, its own packages first, with this checkout hidden."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_", "COV_"))}
    env["PYTHONPATH"] = str(clone)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    stage = tempfile.mkdtemp(prefix="kit-venv-stage-")  # stays empty outside: the mounts are private
    try:
        return subprocess.run(hiding_this_checkout(stage) + [sys.executable, *args], cwd=clone, env=env,
                              capture_output=True, text=True, timeout=timeout)
    finally:
        os.rmdir(stage)


@pytest.fixture(scope="module")
def checked(clone, tmp_path_factory):
    """``autograder check`` in the clone, run once per assignment by the first test that asks: on
    :data:`COURSE` for a step that asks for tests of the students' own, else on the kit's defaults."""
    folder = tmp_path_factory.mktemp("courses")
    done: dict[str, subprocess.CompletedProcess] = {}

    def check(assignment: str) -> subprocess.CompletedProcess:
        if assignment not in done:
            course = []
            if assignment in REQUIREMENTS:
                (folder / f"{assignment}.toml").write_text(COURSE.format(step=assignment))
                course = ["--course", str(folder / f"{assignment}.toml")]
            done[assignment] = run_in_clone(clone, "-m", "autograder", "check", "--assignment", assignment, *course)
        return done[assignment]

    return check


def test_no_file_of_the_project_names_a_place_outside_it(clone):
    files = subprocess.run(["git", "ls-files", "-z"], cwd=clone, capture_output=True, check=True).stdout
    found = []
    for name in files.decode().split("\0"):
        path = clone / name
        if not name or name == "tests/test_stands_alone.py" or not path.is_file():
            continue
        text = path.read_bytes().decode("utf-8", "replace")
        found += [f"{name}: {m.group(0)}" for m in OUTSIDE.finditer(text)]
    assert not found, f"files that point outside the repository: {found}"


def test_the_clone_runs_its_own_code_and_cannot_see_this_checkout(clone):
    code = ("import autograder, json, minesweeper_kit, os; print(autograder.__file__); "
            f"print(minesweeper_kit.__file__); print(json.dumps(os.listdir({str(REPO)!r})))")
    done = run_in_clone(clone, "-c", code)
    assert done.returncode == 0, done.stderr
    grader, kit, listing = done.stdout.splitlines()
    assert grader.startswith(str(clone)) and kit.startswith(str(clone)), done.stdout
    venv = Path(sys.prefix).resolve()
    expected = [venv.relative_to(REPO).parts[0]] if venv.is_relative_to(REPO) else []
    assert sorted(json.loads(listing)) == expected, listing


def test_the_conformance_tests_pass_in_the_clone(clone):
    done = run_in_clone(clone, "-m", "pytest", "-q", "-p", "no:cacheprovider", "-p", "no:xdist", "-p", "no:randomly",
                        "tests/conformance", "tests/notebooks/test_reference_solutions.py")
    assert done.returncode == 0, done.stdout[-4000:] + done.stderr[-2000:]
    summary = done.stdout.strip().splitlines()[-1]
    passed = int(re.search(r"(\d+) passed", summary).group(1))
    assert passed >= 40 and "failed" not in summary and "error" not in summary and "skipped" not in summary, summary


@pytest.mark.parametrize("name", sorted(GRADED))
def test_autograder_check_passes_in_the_clone(checked, clone, name):
    """`autograder check`: the notebook's solutions score full marks, its starter version 0, and
    neither its release version nor the feedback shows a hidden test or a solution. (The only run
    of the check on every assignment: through the command line, as an instructor runs it.) A step
    that asks for tests of the students' own is checked on a course that gives them 5 points on top
    of 25, so the model answer (every solution cell of the source notebook, its own tests included)
    is graded out of 30: the notebook's own tests must be valid and catch every planted bug of the
    step. The bots step, which asks for none, is checked on the kit's defaults."""
    assignment = GRADED[name]
    done = checked(assignment)
    assert done.returncode == 0, f"autograder check {assignment} failed:\n{done.stdout[-3000:]}\n{done.stderr[-2000:]}"
    if assignment in REQUIREMENTS:
        assert f"[ok] course settings for {assignment}: points = 25; own_tests_points = 5" in done.stdout, done.stdout
        points = POINTS + OWN_TESTS_POINTS
    else:
        notebook = nbformat.read(clone / "notebooks" / name, as_version=4)
        points = sum(nbgrader_meta(c).get("points", 0) for c in notebook.cells
                     if nbgrader_meta(c).get("grade") and nbgrader_meta(c).get("grade_id") != "hidden-tests")
    assert f"[ok] reference scores full marks well inside the limit: {points}/{points} in" in done.stdout, done.stdout
    assert f"[ok] starter version scores 0 without crashing: 0/{points}" in done.stdout, done.stdout
    assert "[ok] release notebook and feedback contain no hidden tests or solution code" in done.stdout, done.stdout
    if assignment == "hypermines":  # its reference is a file of its own: full marks on the hidden tests
        assert "[ok] the instructor's reference file hypermines.py scores full marks on the hidden tests: 25/25" \
            in done.stdout, done.stdout
    assert "[fail" not in done.stdout.lower() and "FAILED" not in done.stdout, done.stdout


def proven_full_marks(assignment: str, output: str) -> float:
    """What the clone's check proved the assignment's reference source (``reference_source``)
    scores on the hidden tests alone, on the scale a wrong file is graded on below. A step whose
    reference is a file of its own: the check grades that file on the hidden tests. Any other: the
    check's model answer is that source with the notebook's own tests beside it, at full marks with
    them, so the hidden tests' part is the total less the own tests' points. (The score is what
    counts here, whether or not that check also passed on time: its own test says that.)"""
    graded = get_assignment(assignment)
    if graded.reference_file:
        assert reference_submission(graded).source == reference_source(assignment)
        found = re.search(rf"^\[\w+\] the instructor's reference file {re.escape(graded.reference_file)} scores full "
                          r"marks on the hidden tests: ([\d.]+)/\1 in ", output, re.M)
        own = 0
    else:
        assert model_answer(graded).source == reference_source(assignment)
        found = re.search(r"^\[\w+\] reference scores full marks well inside the limit: ([\d.]+)/\1 in ", output, re.M)
        own = OWN_TESTS_POINTS if assignment in REQUIREMENTS else 0
    assert found, f"the check did not prove the reference of {assignment} scores full marks:\n{output[-3000:]}"
    return float(found.group(1)) - own


@pytest.mark.parametrize("assignment", ASSIGNMENTS)
def test_a_wrong_file_is_graded_in_the_clone(checked, clone, assignment, tmp_path):
    """A file with one plausible bug (the first of the assignment's mutants) loses points, graded
    by the clone's own grader and data, out of the full marks the clone's check proved the same
    reference source earns (proven_full_marks): the check grades the reference itself. The wrong
    file is graded on the check's course with its own tests left out (grader_testkit.NO_OWN_TESTS):
    the check grades the model answer's in the clone, with every wheat and chaff."""
    full = proven_full_marks(assignment, checked(assignment).stdout)
    mutant = _mutants(assignment)[0]
    submitted = tmp_path / "submitted"
    submitted.mkdir()
    (submitted / "wrong.py").write_text(mutate(reference_source(assignment), mutant))
    results = tmp_path / "results"
    extra = ["--bot-games", "30"] if assignment == "bots" else []
    if assignment in REQUIREMENTS:
        (tmp_path / "course.toml").write_text(COURSE.format(step=assignment) + "own_tests = false\n")
        extra += ["--course", str(tmp_path / "course.toml")]
    else:
        extra += ["--course", str(course_file_without_own_tests(tmp_path / "settings", assignment))]
    done = run_in_clone(clone, "-m", "autograder", "grade", "--assignment", assignment, "--seed", "5", "-j", "1",
                        "--no-progress", "--results-dir", str(results), *extra, str(submitted / "wrong.py"))
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    wrong = json.loads((student_dir(results, "wrong") / "results.json").read_text())
    assert full > 0
    assert round(sum(t["max_score"] for t in wrong["tests"]), 4) == full, wrong  # shares of 4 places (scale.py)
    assert wrong["score"] < full, f"{mutant.bug}: yet full marks in the clone"
    assert any(t["status"] == "failed" for t in wrong["tests"]), wrong
