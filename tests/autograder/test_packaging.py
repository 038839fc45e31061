"""Instructor material never ships to students; the Gradescope export runs the same grader."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import setuptools

from autograder.gradescope import export

REPO = Path(__file__).resolve().parents[2]


def test_the_wheel_holds_no_instructor_material(tmp_path):
    source = tmp_path / "src"
    shutil.copytree(REPO, source, ignore=shutil.ignore_patterns(
        ".venv", ".git", "build", "dist", "*.egg-info", "node_modules", "__pycache__", "test-artifacts"))
    # Offline: the venv's own setuptools builds it, and pip may not look at any index.
    result = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-build-isolation", "--no-deps", "--no-index",
                             "--wheel-dir", str(tmp_path / "dist"), str(source)],
                            capture_output=True, text=True, timeout=600)
    assert result.returncode == 0, (
        f"the wheel did not build offline with this venv's setuptools {setuptools.__version__} (the project's "
        "metadata needs setuptools>=77):\n" + result.stdout[-3000:] + result.stderr[-3000:])
    (wheel,) = (tmp_path / "dist").glob("*.whl")
    names = set(zipfile.ZipFile(wheel).namelist())
    # The sandbox lives in the kit (the arena uses it too): every module of it ships.
    sandbox = {f"minesweeper_kit/sandbox/{p.name}" for p in (REPO / "minesweeper_kit" / "sandbox").glob("*.py")}
    assert {"minesweeper_kit/sandbox/child.py", "minesweeper_kit/sandbox/parent.py"} <= sandbox
    assert sandbox <= names, sorted(sandbox - names)
    assert "autograder/sandbox.py" not in names  # moved to the kit; no stale copy
    assert {"autograder/cli.py", "autograder/grading.py", "minesweeper_kit/game.py"} <= names
    assert {"minesweeper_kit/py.typed", "autograder/py.typed", "minesweeper_kit/widgets/static/board.js"} <= names
    leaked = sorted(n for n in names if n.startswith("autograder/instructor") or "instructor" in n
                    or "suites" in n or "reference" in n.split("/")[-1])
    assert leaked == []


def test_exported_autograder_runs_in_a_simulated_gradescope_layout(tmp_path, reference_source):
    archive = export("hypermines", tmp_path / "autograder.zip")
    names = zipfile.ZipFile(archive).namelist()
    assert {"setup.sh", "run_autograder", "requirements.txt"} <= set(names)
    assert "autograder/instructor/suites/test_hypermines.py" in names
    assert not any("reference" in n for n in names)
    assert "autograder/instructor/data/originals/hypermines/test_inputs/test_integration1.json" in names

    root = tmp_path / "gs"
    zipfile.ZipFile(archive).extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / "lab.py").write_text(reference_source)
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": sys.executable, "HOME": str(tmp_path)}
    result = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                            env=env, timeout=300, cwd=tmp_path)
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 20
    assert len(results["tests"]) == 13 and all(t["status"] == "passed" for t in results["tests"])
    info = zipfile.ZipFile(archive).getinfo("run_autograder")
    assert (info.external_attr >> 16) & 0o111
