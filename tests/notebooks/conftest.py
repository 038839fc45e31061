"""Fixtures shared by the notebook tests: one nbgrader course folder for the whole session.

nbgrader commands are slow (a few seconds each), so the course is built once: every step's
source notebook goes through nbgrader's generate_assignment a single time, and the autograde
tests add their submissions to the same course. Tests that only read the student versions use
`release_folder` instead: a release of their own, so under pytest-xdist they need not share a worker
with the course's users (tests/conftest.py groups the users of each shared fixture).
"""
import pytest

from autograder.release import build_course, release


@pytest.fixture(scope="session")
def course(tmp_path_factory):
    folder = tmp_path_factory.mktemp("nbgrader-course")
    build_course(folder, progress=False)
    return folder


@pytest.fixture(scope="session")
def release_folder(tmp_path_factory):
    """The student versions as `make release` writes them: ``release_folder / <assignment> / <notebook>``."""
    return release(tmp_path_factory.mktemp("release"), progress=False)
