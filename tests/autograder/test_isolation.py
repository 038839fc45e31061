"""No isolation, no silent downgrade: what the grader does where bubblewrap is missing, and `doctor`."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_kit.sandbox import Sandbox
from minesweeper_kit.sandbox.isolation import IsolationUnavailable, require_isolation

AUTOGRADER = str(Path(sys.executable).parent / "autograder")


def run(args: list[str], path: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([AUTOGRADER, *args], capture_output=True, text=True, env=env, timeout=600, cwd=cwd)


def test_doctor_names_the_isolation_in_force():
    result = run(["doctor"])
    assert result.returncode == 0, result.stdout + result.stderr
    expected = "bwrap as root" if os.geteuid() == 0 else "bwrap in a user namespace"
    assert f"isolation: {expected}" in result.stdout
    assert "no network" in result.stdout and "holds:" in result.stdout
    from minesweeper_kit.sandbox.isolation import MemoryCgroup

    whole = "a memory limit for the sandbox as a whole" in result.stdout
    assert whole == (MemoryCgroup.base() is not None)
    assert whole or "gap:   no cgroup memory controller" in result.stdout or "gap:" in result.stdout


def test_without_bubblewrap_grading_stops_with_a_reason(no_bwrap_path, tmp_path, reference_source):
    submission = tmp_path / "ann.py"
    submission.write_text(reference_source)
    doctor = run(["doctor"], path=no_bwrap_path)
    assert doctor.returncode == 1
    assert "bubblewrap (bwrap) is not installed" in doctor.stdout
    assert "apt-get install bubblewrap" in doctor.stdout
    graded = run(["grade", "--assignment", "hypermines", str(submission), "--results-dir",
                  str(tmp_path / "results"), "--no-progress"], path=no_bwrap_path)
    assert graded.returncode == 3  # not graded: the code never ran, and no score was given
    assert "refusing to run untrusted code without isolation" in graded.stderr
    assert "--isolation none" in graded.stderr or "autograder doctor" in graded.stderr
    results = json.loads((tmp_path / "results" / "ann" / "results.json").read_text())
    assert results["extra_data"]["status"] == "not graded" and "score" not in results


def test_isolation_none_grades_anyway_when_asked(no_bwrap_path, tmp_path, reference_source):
    submission = tmp_path / "ann.py"
    submission.write_text(reference_source)
    graded = run(["grade", "--assignment", "hypermines", str(submission), "--results-dir",
                  str(tmp_path / "results"), "--no-progress", "--isolation", "none", "--seed", "4"],
                 path=no_bwrap_path)
    assert graded.returncode == 0, graded.stderr
    assert "20/20" in graded.stdout
    feedback = (tmp_path / "results" / "ann" / "feedback.txt").read_text()
    assert "without isolation" in feedback


def test_require_rejects_unknown_modes_and_bwrap_where_missing(monkeypatch):
    with pytest.raises(ValueError, match="isolation must be one of bwrap, none"):
        require_isolation("docker")
    from minesweeper_kit.sandbox import isolation

    isolation.status.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    try:
        with pytest.raises(IsolationUnavailable, match="bubblewrap .bwrap. is not installed"):
            Sandbox("x = 1")
    finally:
        monkeypatch.undo()
        isolation.status.cache_clear()
