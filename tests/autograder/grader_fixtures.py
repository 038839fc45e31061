"""Fixtures of the autograder tests: the reference solution and process checks (a plugin of tests/conftest.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

# Every sandbox this session starts carries this tag, so the survivor checks below see this
# session's sandboxes only, never another run's on the same machine. Each pytest-xdist worker tags
# its own: the controller may have set a tag before starting the workers, and workers sharing one
# would each count the other's sandboxes as survivors.
if os.environ.get("PYTEST_XDIST_WORKER") or "MINESWEEPER_SANDBOX_TAG" not in os.environ:
    os.environ["MINESWEEPER_SANDBOX_TAG"] = f"tests-{os.getpid()}"

from autograder.assignments import instructor_dir
from grader_testkit import path_without_bwrap, sandbox_processes

REPO = Path(__file__).resolve().parents[2]


@pytest.fixture(scope="session")
def reference_source() -> str:
    """The plain HyperMines reference, the base of hostile submissions and mutants."""
    return (instructor_dir() / "reference" / "hypermines.py").read_text(encoding="utf-8")


@pytest.fixture
def no_bwrap_path(tmp_path) -> str:
    """A PATH on which every program this machine has is found except bwrap."""
    return path_without_bwrap(tmp_path / "bin")


@pytest.fixture
def no_survivors():
    """Fail the test if a sandbox process outlives it."""
    before = set(sandbox_processes())
    yield
    import time

    for _ in range(50):
        left = [p for p in sandbox_processes() if p not in before]
        if not left:
            return
        time.sleep(0.1)
    pytest.fail(f"sandbox processes survived: {left}")
