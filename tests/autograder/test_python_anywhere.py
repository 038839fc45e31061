"""The sandbox works wherever Python lives, and says what is wrong when it cannot.

Each test makes a real virtual environment under the system temp folder (where many users and CI
systems keep checkouts and venvs, and where the sandbox mounts a private ``/tmp`` of its own),
with this run's packages reachable through a ``.pth`` file, and grades a correct ``lab.py``
through that venv's interpreter: as root, and as an ordinary user.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import sysconfig
import tempfile
from pathlib import Path

import pytest
from unprivileged import UNPRIVILEGED_UID, unprivileged_prefix

from autograder.assignments import instructor_dir
from autograder.report import student_dir

pytestmark = pytest.mark.venv

RUN_CLI = "import sys; from autograder.cli import main; sys.exit(main())"


def make_venv(base: Path, interpreter: str) -> tuple[Path, Path]:
    """A venv made by ``interpreter`` in ``base`` that sees this run's packages (the kit's
    editable install included) without installing anything, and a folder holding a correct
    ``lab.py``: the venv's python and that folder."""
    venv = base / "venv"
    subprocess.run([interpreter, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        capture_output=True, text=True, check=True,
    ).stdout.strip()
    ours = sysconfig.get_paths()["purelib"]
    Path(purelib, "kit-under-test.pth").write_text(f"import site; site.addsitedir({ours!r})\n")
    work = base / "work"
    (work / "alice").mkdir(parents=True)
    shutil.copy(instructor_dir() / "reference" / "hypermines.py", work / "alice" / "lab.py")
    os.chmod(work, 0o777)
    os.chmod(work / "alice", 0o755)
    return python, work


@pytest.fixture
def temp_base():
    """A fresh folder of the system temp dir, readable by every user."""
    base = Path(tempfile.mkdtemp(prefix="kit-venv-"))
    os.chmod(base, 0o755)
    yield base
    shutil.rmtree(base, ignore_errors=True)


@pytest.fixture
def temp_venv(temp_base):
    """A venv there, made by this run's interpreter."""
    return make_venv(temp_base, sys.executable)


def grade(prefix: list[str], python: Path, work: Path, name: str) -> tuple[subprocess.CompletedProcess, dict]:
    results = work / name
    command = prefix + [str(python), "-c", RUN_CLI, "grade", "--assignment", "hypermines", "--no-progress",
                        "-j", "1", "--seed", "3", "--results-dir", str(results), str(work / "alice")]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(work),
           "TMPDIR": str(work), "PYTHONDONTWRITEBYTECODE": "1"}
    done = subprocess.run(command, capture_output=True, text=True, env=env, cwd=work, timeout=600)
    path = student_dir(results, "alice") / "results.json"
    assert path.is_file(), f"no results were written:\n{done.stdout}\n{done.stderr}"
    return done, json.loads(path.read_text())


def test_the_venv_lives_under_the_temp_folder(temp_venv):
    python, _ = temp_venv
    where = subprocess.run([str(python), "-c", "import sys; print(sys.prefix)"], capture_output=True, text=True,
                           check=True).stdout.strip()
    assert Path(where).resolve().is_relative_to(Path(tempfile.gettempdir()).resolve())


def test_a_venv_under_the_temp_folder_grades_as_root(temp_venv):
    if os.geteuid() != 0:
        pytest.fail("this test grades as root: run the suite as root (make test does, in CI)")
    python, work = temp_venv
    done, results = grade([], python, work, "results-root")
    assert done.returncode == 0, done.stderr
    assert results["score"] == 20, results
    assert all(test["status"] == "passed" for test in results["tests"])


def test_a_venv_under_the_temp_folder_grades_as_an_ordinary_user(temp_venv, tmp_path):
    if os.geteuid() != 0:
        pytest.fail("this test starts as root and grades through setpriv as an ordinary user")
    python, work = temp_venv
    staging = Path(tempfile.mkdtemp(prefix="kit-stage-"))
    try:
        done, results = grade(unprivileged_prefix(staging), python, work, "results-user")
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    assert done.returncode == 0, done.stderr
    assert (work / "results-user").stat().st_uid == UNPRIVILEGED_UID, "the grade did not run as the ordinary user"
    assert results["score"] == 20, results
    assert all(test["status"] == "passed" for test in results["tests"])


def test_a_venv_whose_interpreter_is_reached_through_links_grades(temp_base):
    """A distribution's venv reaches its binary through links in folders the sandbox does not show
    whole (``.venv/bin/python3`` to ``/usr/bin/python3`` to ``python3.11``): each link must be
    there inside, or the venv's python is not found and nothing is graded."""
    if os.geteuid() != 0:
        pytest.fail("this test grades as root: run the suite as root (make test does, in CI)")
    links = temp_base / "links"
    links.mkdir(mode=0o755)
    binary = os.path.realpath(getattr(sys, "_base_executable", sys.executable))
    (links / "python3").symlink_to(binary)  # the one link outside the venv and the binary's folder
    python, work = make_venv(temp_base, str(links / "python3"))
    assert os.readlink(python.parent / "python3") == str(links / "python3"), "the venv does not use the link"
    done, results = grade([], python, work, "results-linked")
    assert done.returncode == 0, done.stderr
    assert results["score"] == 20, results


def test_doctor_names_an_interpreter_the_sandbox_cannot_run(temp_venv):
    """As root every sandbox runs as a user id of its own: a venv only its owner can read cannot run
    there, and doctor says so, naming the folder, instead of suggesting to install bubblewrap."""
    if os.geteuid() != 0:
        pytest.fail("this test probes the sandbox as root")
    python, work = temp_venv
    venv = python.parent.parent
    os.chmod(venv, 0o700)
    try:
        done = subprocess.run([str(python), "-c", RUN_CLI, "doctor"], capture_output=True, text=True, timeout=120)
        graded = subprocess.run(
            [str(python), "-c", RUN_CLI, "grade", "--assignment", "hypermines", "--no-progress", "--results-dir",
             str(work / "results-hidden"), str(work / "alice")], capture_output=True, text=True, timeout=300)
    finally:
        os.chmod(venv, 0o755)
    cause = f"{venv} is not readable by other users (mode 0700)"
    assert done.returncode == 1, done.stdout
    assert "cannot be executed inside the sandbox" in done.stdout, done.stdout
    assert cause in done.stdout, done.stdout
    assert "install Debian's bubblewrap" not in done.stdout, done.stdout
    # grading says the same, and gives no score: the student's code never ran
    assert graded.returncode == 3, graded.stdout + graded.stderr
    assert cause in graded.stderr, graded.stderr
    results = json.loads((student_dir(work / "results-hidden", "alice") / "results.json").read_text())
    assert results["extra_data"]["status"] == "not graded" and "score" not in results, results
