"""Instructor material never ships to students; the Gradescope export runs the same grader, with the
versions the kit was tested with, says whether a sandbox starts there, and names a syntax error's line."""

from __future__ import annotations

import copy
import importlib.metadata
import json
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import nbformat
import pytest
import setuptools

from autograder.course import load_course
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
    templates = {f"autograder/templates/{p.name}" for p in (REPO / "autograder" / "templates").iterdir()}
    assert "autograder/templates/report.html" in templates and templates <= names, sorted(templates - names)
    code = {"autograder/references.py"}  # the grader's module that finds the reference, not one
    leaked = sorted(n for n in names if n.startswith("autograder/instructor") or "instructor" in n
                    or "suites" in n or ("reference" in n.split("/")[-1] and n not in code))
    assert leaked == []


@pytest.fixture(scope="module")
def archive(tmp_path_factory) -> Path:
    """The hypermines autograder zip, exported once for the tests below."""
    return export("hypermines", tmp_path_factory.mktemp("export") / "autograder.zip")


def gradescope_layout(tmp_path: Path, archive: Path, submission: str | bytes, name: str = "lab.py") -> Path:
    """A simulated /autograder: the zip in source/, one student's file in submission/."""
    root = tmp_path / "gs"
    zipfile.ZipFile(archive).extractall(root / "source")
    (root / "submission").mkdir()
    target = root / "submission" / name
    target.write_bytes(submission if isinstance(submission, bytes) else submission.encode("utf-8"))
    return root


def run_script(root: Path, script: str, path: str | None = None) -> subprocess.CompletedProcess:
    """Run setup.sh (its apt-get and pip skipped: this venv has the packages) or run_autograder in
    the layout, with this venv's Python as python3 and PATH as given."""
    env = {"PATH": path or f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": sys.executable, "AUTOGRADER_SKIP_INSTALL": "1", "HOME": str(root)}
    return subprocess.run(["bash", str(root / "source" / script)], capture_output=True, text=True, env=env,
                          timeout=300, cwd=root)


def test_exported_autograder_runs_in_a_simulated_gradescope_layout(tmp_path, archive, reference_source):
    names = zipfile.ZipFile(archive).namelist()
    assert {"setup.sh", "run_autograder", "requirements.txt"} <= set(names)
    assert "autograder/instructor/suites/test_hypermines.py" in names
    # the reference, the other correct implementations and the chaffs ship only in the instructor
    # folder, which the sandbox hides: a student's own tests run against them
    assert {"autograder/instructor/reference/hypermines.py", "autograder/instructor/chaffs/hypermines.py",
            "autograder/instructor/wheats/hypermines.py"} <= set(names)
    assert all(n.startswith("autograder/instructor/") for n in names if "/reference/" in n or "/chaffs/" in n)
    assert "autograder/instructor/data/originals/hypermines/test_inputs/test_integration1.json" in names

    root = gradescope_layout(tmp_path, archive, reference_source)
    setup = run_script(root, "setup.sh")
    assert setup.returncode == 0, setup.stdout + setup.stderr
    record = (root / "source" / "sandbox-check.txt").read_text()
    assert record.startswith("setup.sh sandbox check (") and "passed: a sandbox starts" in record, record
    assert "isolation: bwrap" in record and record in setup.stdout + "\n"  # in the build's log too
    result = run_script(root, "run_autograder")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 20
    assert len(results["tests"]) == 13 and all(t["status"] == "passed" for t in results["tests"])
    for script in ("setup.sh", "run_autograder"):
        info = zipfile.ZipFile(archive).getinfo(script)
        assert (info.external_attr >> 16) & 0o111


def test_requirements_pin_the_versions_installed_here(archive):
    """Gradescope installs exactly the versions of this environment, the one the kit was tested in:
    each of the kit's runtime dependencies, and pytest and IPython, which the grader runs on."""
    text = zipfile.ZipFile(archive).read("requirements.txt").decode()
    pins = dict(line.split("==") for line in text.splitlines() if line and not line.startswith("#"))
    runtime = {re.split(r"[<>=!~;\[ ]", requirement)[0].lower()
               for requirement in importlib.metadata.requires("minesweeper-kit") or []
               if "extra ==" not in requirement}
    assert runtime and runtime | {"pytest", "ipython"} <= set(pins), text
    for name, version in pins.items():
        assert version == importlib.metadata.version(name), (name, version)


def test_without_a_sandbox_setup_says_so_and_every_run_names_it_without_a_score(tmp_path, archive,
                                                                                   reference_source, no_bwrap_path):
    """No bubblewrap in the image: setup.sh still succeeds (the build is not failed for a check that
    may differ where submissions run) but prints and records that no sandbox starts; then each run
    posts no score (no results.json, exit status 1) and its output, the instructor's, gives the
    cause with setup.sh's record."""
    root = gradescope_layout(tmp_path, archive, reference_source)
    setup = run_script(root, "setup.sh", path=no_bwrap_path)
    assert setup.returncode == 0, setup.stdout + setup.stderr
    record = (root / "source" / "sandbox-check.txt").read_text()
    assert "FAILED (autograder doctor exit status 1): no sandbox starts" in record, record
    assert "bubblewrap (bwrap) is not installed" in record and "FAILED" in setup.stdout
    (root / "results").mkdir()
    (root / "results" / "results.json").write_text('{"score": 0}\n')  # an earlier run's file never stays
    result = run_script(root, "run_autograder", path=no_bwrap_path)
    assert result.returncode == 1, result.stdout + result.stderr
    assert not (root / "results" / "results.json").exists()
    assert "NOT GRADED" in result.stderr and "the sandbox could not start" in result.stderr
    assert "when the image was built, setup.sh sandbox check (" in result.stderr
    assert record.splitlines()[0] in result.stderr and "points" not in result.stdout


BROKEN_NOTEBOOK = nbformat.v4.new_notebook(cells=[
    nbformat.v4.new_markdown_cell("# HyperMines"),
    nbformat.v4.new_code_cell("import math\n\ndef helper(x):\n    return x\n"),
    nbformat.v4.new_code_cell("class HyperMinesGame:\n    pass\n\ndef dig(game, coordinates:\n    pass\n"),
])


@pytest.mark.parametrize(("name", "text", "where"), [
    ("lab.py", "class HyperMinesGame:\n    pass\n\ndef dig(game, coordinates:\n    pass\n",
     "SyntaxError in lab.py, line 4: '(' was never closed"),
    ("lab.ipynb", nbformat.writes(BROKEN_NOTEBOOK), 'SyntaxError in the cell starting "class HyperMinesGame:", line 4: '),
], ids=["py", "ipynb"])
def test_on_gradescope_a_syntax_error_names_its_line(tmp_path, archive, name, text, where):
    """The student's results name the line of a syntax error (and the cell, in a notebook), and no
    longer claim "code cells used: none"; it is the student's error, so it is a score (0)."""
    root = gradescope_layout(tmp_path, archive, text, name)
    result = run_script(root, "run_autograder")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and results["extra_data"]["status"] == "graded"
    assert where in results["output"], results["output"]
    assert f"Read {'notebook' if name.endswith('.ipynb') else 'file'} {name}; none of its code was run." in (
        results["output"])
    assert "cells used: none" not in results["output"]
    assert all(where in test["output"] for test in results["tests"]), results["tests"]


def test_the_course_settings_reach_gradescope_visibility_and_points(tmp_path, reference_source):
    """An export made under course settings grades on Gradescope with them: every test has the
    course's visibility and the score its scale; an upload with no code gets 0 and says why."""
    course_file = tmp_path / "course.toml"
    course_file.write_text('[assignments.hypermines]\npoints = 10\nvisibility = "after_published"\n')
    archive = export("hypermines", tmp_path / "autograder.zip", course=load_course(course_file))
    assert json.loads(zipfile.ZipFile(archive).read("course.json")) == {"points": 10, "visibility": "after_published"}
    root = gradescope_layout(tmp_path, archive, reference_source)
    result = run_script(root, "run_autograder")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 10 and sum(t["max_score"] for t in results["tests"]) == 10
    assert {t["visibility"] for t in results["tests"]} == {"after_published"}
    # The whole result follows the course: the top-level visibility too, and the output shown with
    # it says nothing of the score (Gradescope's results.json, as its specification documents it).
    assert_documented_results(results)
    assert results["visibility"] == "after_published" and results["stdout_visibility"] == "hidden"
    assert "10 / 10" not in results["output"] and "points" not in results["output"], results["output"]
    assert "shown when your instructor publishes the grades" in results["output"]
    empty = tmp_path / "empty"
    empty.mkdir()
    root = gradescope_layout(empty, archive, b"notes", name="README.txt")
    result = run_script(root, "run_autograder")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 0 and "nothing was submitted" in results["output"]


#: Gradescope's results.json, as its autograder specification documents it: the top-level fields,
#: each test's fields, and the visibility options (``hidden``, ``after_due_date``,
#: ``after_published``, ``visible``). A test's visibility overrides the top level's; tests that are
#: not visible hide the total score from students, but the top-level output is shown as the
#: top-level visibility says.
DOCUMENTED_TOP = {"score", "execution_time", "output", "visibility", "stdout_visibility", "extra_data", "tests",
                  "leaderboard", "output_format", "test_output_format", "test_name_format"}
DOCUMENTED_TEST = {"score", "max_score", "status", "name", "name_format", "number", "output", "output_format",
                   "tags", "visibility", "extra_data"}
VISIBILITIES = {"hidden", "after_due_date", "after_published", "visible"}


def assert_documented_results(results: dict) -> None:
    """Every field of ``results`` is one Gradescope documents, with a value of the documented kind."""
    assert set(results) <= DOCUMENTED_TOP, set(results) - DOCUMENTED_TOP
    assert isinstance(results.get("score"), (int, float)) or all("score" in t for t in results["tests"])
    assert results.get("visibility", "visible") in VISIBILITIES
    assert results.get("stdout_visibility", "hidden") in VISIBILITIES
    for test in results["tests"]:
        assert set(test) <= DOCUMENTED_TEST, set(test) - DOCUMENTED_TEST
        assert test.get("visibility", "visible") in VISIBILITIES
        assert test.get("status", "passed") in ("passed", "failed")


@pytest.fixture(scope="module")
def wrong_render(tmp_path_factory, reference_source):
    """The batch's report of a hypermines lab.py that renders 0 as "0" (some tests fail), graded
    once on the kit's defaults for the visibilities below."""
    from autograder.batch import grade_batch

    folder = tmp_path_factory.mktemp("visibility")
    (folder / "lab.py").write_text(reference_source.replace("    return ZERO if board == 0 else str(board)",
                                                            "    return str(board)"))
    return grade_batch("hypermines", [folder / "lab.py"], folder / "results", jobs=1, seed=2, progress=False).reports[0]


@pytest.mark.slow
@pytest.mark.parametrize("visibility", sorted(VISIBILITIES))
def test_gradescope_results_follow_the_course_visibility_as_a_whole(tmp_path, wrong_render, visibility):
    """Each of Gradescope's visibilities reaches the top level and every test; only a visible result
    prints the score in its output (a hidden one says when the results are shown instead). The
    visibility is the course file's, put on a copy of one graded report by the batch's own
    finish_report (the export's whole way, course to results.json, is tested above)."""
    from autograder.batch import finish_report
    from autograder.report import gradescope_results

    (tmp_path / "course.toml").write_text(f'[assignments.hypermines]\nvisibility = "{visibility}"\n')
    course = load_course(tmp_path / "course.toml")
    report = finish_report(copy.deepcopy(wrong_render), course.assignment("hypermines"), None)
    results = gradescope_results(report)
    assert_documented_results(results)
    assert results["visibility"] == visibility and {t["visibility"] for t in results["tests"]} == {visibility}
    assert 0 < results["score"] < 20
    score = f"{results['score']:g} / 20 points"
    assert (score in results["output"]) == (visibility == "visible"), results["output"]
    if visibility != "visible":
        assert "render" not in results["output"].lower(), "no word on which tests failed before they are shown"


def test_on_gradescope_a_students_own_tests_are_graded(tmp_path, archive, reference_source):
    """An upload of lab.py with a test.py beside it: the TestTiny tests run against the wheats and
    chaffs the zip carries, and the result says what they caught."""
    tests = (
        "import lab\n\n\nclass TestTiny:\n"
        "    def test_edge(self):\n"
        "        game = lab.HyperMinesGame([1, 3], [[0, 0]])\n"
        "        assert game.board == [['.', 1, 0]]\n"
        "    def test_wrong(self):\n"
        "        assert lab.HyperMinesGame([2, 2], [[0, 0]]).dig([1, 1]) == 3\n"
    )
    root = gradescope_layout(tmp_path, archive, reference_source)
    (root / "submission" / "test.py").write_text(tests)
    assert run_script(root, "setup.sh").returncode == 0
    result = run_script(root, "run_autograder")
    assert result.returncode == 0, result.stdout + result.stderr
    results = json.loads((root / "results" / "results.json").read_text())
    assert results["score"] == 20, results
    own = next(t for t in results["tests"] if t["name"] == "Your own tests")
    assert "Your tests (test.py): 1 of 2 tests valid." in own["output"], own["output"]
    assert "TestTiny.test_wrong: INVALID" in own["output"] and "an axis loses its position 0" in own["output"]
