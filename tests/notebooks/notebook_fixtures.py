"""Fixtures shared by the notebook tests: one nbgrader course folder for the whole session (a plugin
of tests/conftest.py).

nbgrader commands are slow (a few seconds each), so the course is built once: every step's
source notebook goes through nbgrader's generate_assignment a single time, and the autograde
tests add their submissions to the same course. Tests that only read the student versions use
`release_folder` instead: a release of their own, so under pytest-xdist they need not share a worker
with the course's users (tests/conftest.py groups the users of each shared fixture).

`autograded` submits every source notebook to that course, complete and once per exercise left
unwritten, and runs nbgrader's autograde on them: the official grades, and nbgrader's own
execution of each complete source notebook (every submission in one nbgrader call, the
assignment given as the glob ``*``, as each nbgrader process takes seconds to start). An exercise
has a copy of its own when visible tests follow it: the own-tests cell has none, as nbgrader gives
it no points (the kit grades it). Those copies hand in no tests of their own either, so their
"check your own tests" cell has nothing to run; the complete notebook's runs the model tests.
"""
import json

import nbformat
import pytest

from minesweeper_kit.release import build_course, nbgrader, release
from notebook_tools import (COMPLETE, GRADED, NO_OWN_TESTS, NOTEBOOKS, OWN_TESTS, exercises_with_visible_tests,
                            unwritten)


@pytest.fixture(scope="session")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nbgrader-course")
    build_course(folder, progress=False)
    return folder


@pytest.fixture(scope="session")
def release_folder(tmp_path_factory):
    """The student versions as `make release` writes them: ``release_folder / <assignment> / <notebook>``."""
    return release(tmp_path_factory.mktemp("release"), progress=False)


@pytest.fixture(scope="session")
def autograded(course):
    """Submit the complete notebook and one copy per tested exercise left unwritten (with no tests of
    the student's own); autograde them all."""
    graded = {}
    for name, assignment in GRADED.items():
        nb = nbformat.read(NOTEBOOKS / name, as_version=4)
        students = {COMPLETE: nb}
        for exercise in exercises_with_visible_tests(nb):
            copy = nbformat.from_dict(json.loads(json.dumps(nb)))
            for cell in copy.cells:
                if cell.id == exercise:
                    cell.source = unwritten(cell.source)
                elif cell.id == OWN_TESTS:
                    cell.source = NO_OWN_TESTS
            students[f"without-{exercise}"] = copy
        for student, notebook in students.items():
            folder = course / "submitted" / student / assignment
            folder.mkdir(parents=True, exist_ok=True)
            nbformat.write(notebook, folder / name)
        graded[assignment] = list(students)
    nbgrader(course, "autograde", "*", "--force")  # every assignment in one nbgrader process
    return graded
