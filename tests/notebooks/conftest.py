"""Fixtures shared by the notebook tests: one nbgrader course folder for the whole session.

nbgrader commands are slow (a few seconds each), so the course is built once: every step's
source notebook goes through `nbgrader generate_assignment` a single time, and the autograde
tests add their submissions to the same course.
"""
import pytest

from autograder.release import build_course


@pytest.fixture(scope="session")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nbgrader-course")
    build_course(folder, progress=False)
    return folder
