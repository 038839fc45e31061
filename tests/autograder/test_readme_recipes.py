"""Every recipe the README gives for grading reads the course's settings, as the command line does.

The recipes are read from README.md itself: each shell line that runs `autograder grade`, and each
Python block that calls `grade_batch`. Each is run, as written, in a course folder whose
`course.toml` names the assignment `ps4-mines` (the kit's id is `hypermines`) and gives it 25
points: a recipe that ignored the file would find no student (nobody has a `hypermines/` folder)
and grade out of 20. A recipe run elsewhere is named with the test that runs it; a new recipe with
neither fails `test_every_recipe_is_run`.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import shlex
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
from jupyter_port import free_port

REPO = Path(__file__).resolve().parents[2]
README = REPO / "README.md"
COURSE = '[assignments.hypermines]\nname = "ps4-mines"\npoints = 25\n'
#: Recipes run by other tests, with the test that runs them and why not here.
ELSEWHERE = {
    "autograder grade --assignment hypermines .": "tests/autograder/test_nbgrader_course.py runs the cycle in "
    "an nbgrader course (grade, nbgrader autograde, grade again) with its course.toml",
    "autograder grade --assignment bots submitted/ --tournament tournament/": "tests/autograder/"
    "test_bots_batch_tournament.py (the command line, so course.toml is read as for every other command)",
}


def blocks(text: str) -> list[tuple[str, str]]:
    """The README's fenced code blocks: (language, body)."""
    return [(m.group(1), m.group(2)) for m in re.finditer(r"```(\w*)\n(.*?)```", text, re.S)]


def shell_recipes() -> list[str]:
    """Each `autograder grade` line of the README's shell blocks, its comment taken off."""
    lines = []
    for language, body in blocks(README.read_text()):
        if language == "sh":
            for line in body.splitlines():
                command = line.split("  #", 1)[0].strip()
                if command.startswith("autograder grade") and command not in lines:
                    lines.append(command)
    return lines


def python_recipes() -> list[str]:
    return [body for language, body in blocks(README.read_text()) if language == "python" and "grade_batch(" in body]


@pytest.fixture
def recipe_course(tmp_path, reference_source) -> Path:
    """A course folder: ada handed in ps4-mines/lab.py (the reference), bo only hypermines/lab.py.
    (Not named ``course``: that is the session's nbgrader course, whose users tests/conftest.py
    groups and marks nbgrader.)"""
    (tmp_path / "course.toml").write_text(COURSE)
    for student, folder in (("ada", "ps4-mines"), ("bo", "hypermines")):
        (tmp_path / "submitted" / student / folder).mkdir(parents=True)
        (tmp_path / "submitted" / student / folder / "lab.py").write_text(reference_source)
    return tmp_path


def graded_on_the_course(course: Path) -> None:
    """What every recipe must leave: ada graded out of the course's 25 points in ps4-mines/, bo not
    submitted (his folder has the kit's id, not the course's name)."""
    ada = json.loads((course / "results" / "students" / "ada" / "results.json").read_text())
    bo = json.loads((course / "results" / "students" / "bo" / "results.json").read_text())
    assert (ada["score"], ada["extra_data"]["max_score"], ada["extra_data"]["name"]) == (25, 25, "ps4-mines"), ada
    assert ada["extra_data"]["file"] == "ps4-mines/lab.py"
    assert bo["extra_data"]["status"] == "not submitted"


def environment() -> dict[str, str]:
    """The README's commands as a user types them: the venv's `autograder` and `dask` first on PATH."""
    return dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))


def run(command: str, course: Path) -> subprocess.CompletedProcess:
    done = subprocess.run(shlex.split(command), cwd=course, env=environment(), capture_output=True, text=True,
                          timeout=900)
    assert done.returncode == 0, f"{command}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"
    return done


def scheduler_listens(process: subprocess.Popen, log: Path, port: int, within: float = 300.0) -> bool:
    """Whether the scheduler says it listens on ``port`` (True) or exits first (False: the port was
    taken between its choice and the scheduler's start). Its own word, not a connection, which
    whatever took the port would accept as well."""
    said = re.compile(rf"Scheduler at:\s+tcp://127\.0\.0\.1:{port}\b")
    deadline = time.monotonic() + within
    while time.monotonic() < deadline:
        if said.search(log.read_text(errors="replace")):
            return True
        if process.poll() is not None:
            return False
        time.sleep(0.5)
    raise AssertionError(f"the scheduler did not start within {within:.0f} s:\n{log.read_text()[-3000:]}")


def test_every_recipe_is_run():
    """Each `autograder grade` recipe of the README is run below or named in ELSEWHERE."""
    here = set(LOCAL) | {DASK_CLI} | set(ELSEWHERE)
    missing = [line for line in shell_recipes() if line not in here and not line.endswith("tcp://10.0.0.1:8786")]
    assert not missing, f"README recipes no test runs: {missing}"
    assert len(python_recipes()) == 1, "one Python recipe, run by test_the_python_recipe_reads_the_course_file"
    assert "load_course(" in python_recipes()[0]


#: The recipes run as they are, each in the course folder.
LOCAL = [
    "autograder grade --assignment hypermines submitted/ --results-dir results --csv grades.csv -j 2",
    "autograder grade --assignment hypermines submitted/ --results-dir results -j 2",
]
#: The one-machine dask recipe; the several-machines one is the same command with another address.
DASK_CLI = "autograder grade --assignment hypermines submitted/ --results-dir results --dask tcp://127.0.0.1:8786"


@pytest.mark.slow
@pytest.mark.parametrize("command", LOCAL)
def test_each_command_line_recipe_reads_the_course_file(recipe_course, command):
    course = recipe_course
    assert command in shell_recipes(), "the README no longer has this recipe"
    done = run(command, course)
    assert f"course settings from {course / 'course.toml'}" in done.stderr, done.stderr[-2000:]
    graded_on_the_course(course)


@pytest.mark.slow
def test_the_dask_recipe_on_one_machine_reads_the_course_file(recipe_course, tmp_path):
    """The README's block as typed, in order: a scheduler and a worker in the background, `autograder
    doctor --dask`, then the grade (on a free port rather than 8786, which another run may hold)."""
    course = recipe_course
    block = next(body for language, body in blocks(README.read_text()) if language == "sh" and DASK_CLI in body)
    started: list[subprocess.Popen] = []
    try:
        for attempt in range(3):
            port = free_port()
            lines = [line.replace("8786", str(port)) for line in block.strip().splitlines()]
            background = [line.rstrip(" &") for line in lines if line.endswith("&")]
            assert [line.split()[:2] for line in background] == [["dask", "scheduler"], ["dask", "worker"]], lines
            log = tmp_path / f"scheduler-{attempt}.log"
            with open(log, "w") as output:
                scheduler = subprocess.Popen(shlex.split(background[0]), cwd=course, env=environment(),
                                             start_new_session=True, stdout=output, stderr=subprocess.STDOUT)
            started.append(scheduler)
            if scheduler_listens(scheduler, log, port):  # a user starts the worker once the scheduler says so
                break
        else:
            raise AssertionError(f"the scheduler never started on a free port:\n{log.read_text()[-3000:]}")
        started.append(subprocess.Popen(shlex.split(background[1]), cwd=course, env=environment(),
                                        start_new_session=True, stdout=subprocess.DEVNULL,
                                        stderr=subprocess.DEVNULL))
        from distributed import Client

        with Client(f"tcp://127.0.0.1:{port}", timeout=120) as client:
            client.wait_for_workers(2, timeout=300)
        for line in lines:
            if not line.endswith("&"):
                done = run(line, course)
        assert f"course settings from {course / 'course.toml'}" in done.stderr, done.stderr[-2000:]
        graded_on_the_course(course)
    finally:
        for process in started:
            with contextlib.suppress(ProcessLookupError):  # a scheduler that could not start is gone
                os.killpg(process.pid, signal.SIGTERM)
        for process in started:
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()


@pytest.mark.slow
def test_the_python_recipe_reads_the_course_file(recipe_course):
    """The Python block saved as a script in the course folder and run, as the README says."""
    course = recipe_course
    (recipe,) = python_recipes()
    (course / "grade.py").write_text(recipe)
    done = subprocess.run([sys.executable, "grade.py"], cwd=course, env=environment(), capture_output=True,
                          text=True, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    graded_on_the_course(course)
