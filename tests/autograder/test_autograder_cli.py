"""The `autograder` command, run as a real subprocess: grade, list, check, --help, resume."""

from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get_assignment
from autograder.report import student_dir

REPO = Path(__file__).resolve().parents[2]

AUTOGRADER = [sys.executable, "-m", "autograder.cli"]
NOTEBOOK = get_assignment("hypermines").notebook_path


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(AUTOGRADER + list(args), capture_output=True, text=True, cwd=cwd, timeout=600)


@pytest.mark.parametrize("command", [[], ["grade"], ["list"], ["check"], ["doctor"], ["export-gradescope"]])
def test_every_command_has_help(command):
    result = run(*command, "--help")
    assert result.returncode == 0
    assert "usage: autograder" in result.stdout and "--help" in result.stdout


def test_list_shows_tests_and_points():
    result = run("list", "--assignment", "hypermines")
    assert result.returncode == 0, result.stderr
    assert "hypermines: HyperMines" in result.stdout
    assert "     2  A whole 203-dig game on the original 4x4x2x3x3x2 board, won" in result.stdout
    assert "    20  total" in result.stdout


def test_unknown_assignment_is_refused():
    result = run("grade", "--assignment", "nope", "x.py")
    assert result.returncode == 2 and "invalid choice" in result.stderr


@pytest.fixture(scope="module")
def class_folder(tmp_path_factory, reference_source):
    """An nbgrader submitted/ folder, submitted/<student>/hypermines/: a notebook, a lab.py, a broken
    file, and a student who handed in only another assignment. (Not named ``course``: that is the
    session's nbgrader course, whose users tests/conftest.py groups and marks nbgrader.)"""
    root = tmp_path_factory.mktemp("course")
    submitted = root / "submitted"
    for student in ("alice", "bob", "carol"):
        (submitted / student / "hypermines").mkdir(parents=True)
    notebook = nbformat.read(NOTEBOOK, as_version=4)
    nbformat.write(notebook, submitted / "alice" / "hypermines" / "04-nd-dig.ipynb")
    (submitted / "bob" / "hypermines" / "lab.py").write_text(reference_source.replace(
        "    return ZERO if board == 0 else str(board)", "    return str(board)"))
    (submitted / "carol" / "hypermines" / "lab.py").write_text("class HyperMinesGame(:\n")
    (submitted / "dave" / "make-board").mkdir(parents=True)
    (submitted / "dave" / "make-board" / "lab.py").write_text(reference_source)
    return root


@pytest.mark.slow
def test_grade_a_course_folder(class_folder):
    course = class_folder
    results, gradebook = course / "results", course / "grades.csv"
    result = run("grade", "--assignment", "hypermines", str(course / "submitted"), "--results-dir", str(results),
                 "--csv", str(gradebook), "-j", "2", "--seed", "11")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert any(line.startswith("alice") and "20/20" in line and "all tests passed" in line for line in lines)
    assert any(line.startswith("carol") and "0/20" in line and "SyntaxError" in line for line in lines)
    assert any(line.startswith("dave") and "not submitted" in line for line in lines)
    assert "seed 11; graded 3, kept 0" in result.stdout
    assert "grading hypermines" in result.stderr  # the progress bar

    alice = json.loads((student_dir(results, "alice") / "results.json").read_text())
    assert alice["score"] == 20 and alice["execution_time"] > 0
    assert {"name", "score", "max_score", "status", "output", "visibility"} <= set(alice["tests"][0])
    assert alice["extra_data"]["seed"] == 11

    bob = json.loads((student_dir(results, "bob") / "results.json").read_text())
    assert 0 < bob["score"] < 20
    feedback = (student_dir(results, "bob") / "feedback.txt").read_text()
    assert "expected ' ', got '0'" in feedback and "Graded file lab.py." in feedback
    assert "Graded lab.py: there is no 04-nd-dig.ipynb in hypermines/." in feedback
    assert bob["extra_data"]["file"] == "hypermines/lab.py"
    dave = json.loads((student_dir(results, "dave") / "results.json").read_text())
    assert dave["extra_data"]["status"] == "not submitted" and "score" not in dave and dave["tests"] == []
    alice_feedback = (student_dir(results, "alice") / "feedback.txt").read_text()
    cells = nbformat.read(str(REPO / "notebooks" / "04-nd-dig.ipynb"), as_version=4).cells  # numbered from 1
    solutions = [n for n, c in enumerate(cells, 1) if c.cell_type == "code" and c.metadata.get("nbgrader", {}).get("solution")]
    used = ", ".join(map(str, solutions))  # the answer cell and the own-tests cell
    assert f"Graded notebook 04-nd-dig.ipynb: cells marked as solutions; code cells used: {used}." in alice_feedback
    assert "carol" in (student_dir(results, "carol") / "feedback.txt").read_text()
    assert "line 1" in (student_dir(results, "carol") / "feedback.txt").read_text()

    rows = list(csv.DictReader(gradebook.open()))
    assert [r["student"] for r in rows] == ["alice", "bob", "carol", "dave"]
    assert rows[0]["score"] == "20" and rows[2]["score"] == "0"
    assert rows[3]["status"] == "not submitted" and rows[3]["score"] == ""

    again = run("grade", "--assignment", "hypermines", str(course / "submitted"), "--results-dir", str(results),
                "--no-progress")
    assert again.returncode == 0 and "graded 0, kept 3" in again.stdout
    forced = run("grade", "--assignment", "hypermines", str(course / "submitted" / "bob"), "--results-dir",
                 str(results), "--force", "--no-progress", "-j", "1")
    assert forced.returncode == 0 and "graded 1, kept 0" in forced.stdout


def test_grading_without_the_instructor_folder_fails_clearly(tmp_path, reference_source):
    (tmp_path / "lab.py").write_text(reference_source)
    env_python = [sys.executable, "-c", "import sys; from autograder.cli import main; sys.exit(main())"]
    result = subprocess.run(env_python + ["grade", "--assignment", "hypermines", str(tmp_path / "lab.py"),
                                          "--results-dir", str(tmp_path / "r")],
                            capture_output=True, text=True, timeout=300,
                            env={"PATH": "/usr/bin:/bin", "AUTOGRADER_INSTRUCTOR_DIR": str(tmp_path / "none")})
    assert result.returncode == 3  # not graded: a problem on the grader's side is never a score
    assert "the hidden test suites are not installed" in result.stderr
    results = json.loads(next((tmp_path / "r").glob("students/*/results.json")).read_text())
    assert results["extra_data"]["status"] == "not graded" and "score" not in results
