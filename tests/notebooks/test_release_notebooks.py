"""The student versions `make release` builds: they run, they fail only where the student must
write code, and they hold no solution and no hidden-test text."""
import re
import subprocess
import sys
from pathlib import Path

import nbformat
import pytest

from notebook_tools import ASSIGNMENTS, NOTEBOOKS, REPO, describe, execute, is_visible_test, nbgrader_meta

SOLUTION_REGION = re.compile(r"### BEGIN SOLUTION\n(.*?)### END SOLUTION", re.S)


def release_notebook(course: Path, name: str) -> Path:
    return course / "release" / ASSIGNMENTS[name] / name


def exercise_names(source_nb) -> set[str]:
    """Names the solution cells define at top level (functions, classes): the student's to write."""
    names = set()
    for cell in source_nb.cells:
        if nbgrader_meta(cell).get("solution"):
            names.update(re.findall(r"^(?:def|class) (\w+)", cell.source, re.M))
    return names


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_release_fails_only_where_the_student_writes_code(course, name):
    source = nbformat.read(NOTEBOOKS / name, as_version=4)
    names = exercise_names(source)
    released, errors = execute(release_notebook(course, name))
    for error in errors:
        cell = released.cells[error.index]
        assert error.ename == "NotImplementedError", f"{name}: unexpected error\n{describe([error])}"
        assert not nbgrader_meta(cell).get("solution"), f"{name}: defining the exercise failed\n{describe([error])}"
        assert any(re.search(rf"\b{n}\b", cell.source) for n in names), (
            f"{name}: cell {error.index} raised NotImplementedError without calling an exercise\n{describe([error])}")
    graded = [i for i, c in enumerate(released.cells) if is_visible_test(c)]
    failed = {e.index for e in errors}
    # Every visible test must fail on the blank student version: a test that passes there tests nothing.
    assert set(graded) <= failed, f"{name}: visible tests passing on unwritten code: {sorted(set(graded) - failed)}"
    if name == "00-play.ipynb":
        assert not errors
    # The boards play the student's code: on unwritten code they show its NotImplementedError.
    printed = " ".join(o.get("text", "") for c in released.cells if c.cell_type == "code" for o in c.outputs)
    if name in ("01-neighbors.ipynb", "02-make-board.ipynb", "03-flood-fill.ipynb", "04-nd-dig.ipynb"):
        assert "board error:" in printed and "NotImplementedError" in printed, f"{name}: no board reached student code"


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_release_holds_no_solution(course, name):
    source = nbformat.read(NOTEBOOKS / name, as_version=4)
    released = nbformat.read(release_notebook(course, name), as_version=4)
    text = nbformat.writes(released)
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    by_id = {c.id: c for c in released.cells}
    for cell in source.cells:
        if not nbgrader_meta(cell).get("solution"):
            continue
        inside = {line.strip() for region in SOLUTION_REGION.findall(cell.source) for line in region.splitlines()}
        outside = {line.strip() for line in SOLUTION_REGION.sub("", cell.source).splitlines()}
        secret = {line for line in inside - outside if line}
        assert secret, f"{name}: solution cell {cell.id} has no solution lines"
        student_cell = by_id[cell.id]
        leaked = secret & {line.strip() for line in student_cell.source.splitlines()}
        assert not leaked, f"{name}: solution lines left in the student version of {cell.id}: {leaked}"
        assert "raise NotImplementedError()" in student_cell.source


@pytest.mark.parametrize("name", sorted(ASSIGNMENTS))
def test_release_holds_no_hidden_test_text(course, name):
    released = release_notebook(course, name).read_text()
    assert "HIDDEN TESTS" not in released
    hidden_sources = [p for p in (REPO / "autograder").rglob("*.py")
                      if "instructor" in p.parts or p.name.startswith(("hidden", "suite"))]
    for path in hidden_sources:
        for line in path.read_text().splitlines():
            line = line.strip()
            # Long lines of code, not comments, docstrings, imports or signatures: a match would be a
            # copied test or answer (the notebooks import from the kit as the suites do, and the
            # stubs state the API every implementation, the instructor's included, defines).
            if (len(line) >= 45 and not line.startswith(("#", '"', "'", "import ", "from ", "def ", "class "))
                    and line in released):
                pytest.fail(f"{name}: a line of {path.relative_to(REPO)} appears in the student version: {line}")


def test_release_command_writes_every_step(tmp_path):
    out = tmp_path / "release"
    done = subprocess.run([sys.executable, "-m", "minesweeper_kit.release", "--output", str(out), "--only", "play",
                           "neighbors"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (out / "play" / "00-play.ipynb").is_file()
    assert (out / "neighbors" / "01-neighbors.ipynb").is_file()
    assert sorted(p.name for p in out.iterdir()) == ["neighbors", "play"]


def test_release_command_rejects_an_unknown_step(tmp_path):
    done = subprocess.run([sys.executable, "-m", "minesweeper_kit.release", "--output", str(tmp_path),
                           "--only", "nope"], cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1 and "unknown assignment(s) nope" in done.stderr


def test_release_command_names_the_step_nbgrader_could_not_build(tmp_path):
    """All steps are generated in one nbgrader process: a step it cannot build still fails the
    release with exit 1, nbgrader's own error, and the step named."""
    notebooks = tmp_path / "notebooks"
    notebooks.mkdir()
    for name in ("00-play.ipynb", "01-neighbors.ipynb"):
        (notebooks / name).write_bytes((NOTEBOOKS / name).read_bytes())
    (notebooks / "01-neighbors.ipynb").write_text('{"cells": "not a list"}')
    done = subprocess.run([sys.executable, "-m", "minesweeper_kit.release", "--output", str(tmp_path / "out"),
                           "--notebooks", str(notebooks), "--only", "play", "neighbors"],
                          cwd=REPO, capture_output=True, text=True)
    assert done.returncode == 1, done.stdout + done.stderr
    assert "`nbgrader generate_assignment neighbors` failed" in done.stderr, done.stderr[-3000:]
    assert "[ERROR]" in done.stderr
    assert not (tmp_path / "out").exists(), "a failed release wrote a partial output folder"
