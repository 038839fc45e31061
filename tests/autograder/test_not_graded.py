"""A failure on the grader's side is never a score: the real `autograder` command, run as a subprocess.

Three causes, each with two correct submissions: the instructor's data missing or unreadable, a
hidden test that raises on its own, a sandbox that cannot start (no bubblewrap; bubblewrap whose
sandbox cannot run Python). Each must leave the submissions "not graded" everywhere the grader
writes (results.json, the CSV gradebook, the feedback, `autograder report`), with no score, a
non-zero exit status and the cause printed once for the instructor. The control: with intact
material a correct submission is graded 20/20 and one that does not load is graded 0.
"""

from __future__ import annotations

import ast
import csv
import json
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from pathlib import Path

import pytest

from autograder.assignments import get_assignment, instructor_dir
from autograder.report import student_dir

AUTOGRADER = [sys.executable, "-m", "autograder.cli"]
SENTENCE = "Your submission was not graded because of a problem on the grader's side"
NOT_GRADED_EXIT = 3


def grade(submissions: Path, results: Path, gradebook: Path, env: dict[str, str] | None = None, jobs: int = 1,
          ) -> subprocess.CompletedProcess:
    """``autograder grade`` on ``submissions``: with one worker where the subject is the instructor's
    material, with two (a pool) where what a sandbox reports must come back through the pool."""
    return subprocess.run(AUTOGRADER + ["grade", "--assignment", "hypermines", str(submissions), "--results-dir",
                                        str(results), "--csv", str(gradebook), "--no-progress", "-j", str(jobs),
                                        "--seed", "5"],
                          capture_output=True, text=True, timeout=900, env=env)


def report(results: Path) -> subprocess.CompletedProcess:
    return subprocess.run(AUTOGRADER + ["report", str(results)], capture_output=True, text=True, timeout=300)


def environment(instructor: Path | None = None, path: str | None = None) -> dict[str, str]:
    """This process's environment, with the instructor folder and PATH replaced; the grader then
    reads its data from that folder alone."""
    env = dict(os.environ)
    if instructor is not None:
        env["AUTOGRADER_INSTRUCTOR_DIR"] = str(instructor)
        for name in ("AUTOGRADER_ORIGINALS", "AUTOGRADER_SEED_ORIGINALS"):
            env.pop(name, None)
    if path is not None:
        env["PATH"] = path
    return env


def instructor_copy(tmp_path: Path) -> Path:
    """A copy of the instructor folder (suites, reference, data) to break."""
    copy = tmp_path / "instructor"
    shutil.copytree(instructor_dir(), copy, ignore=shutil.ignore_patterns("__pycache__"))
    return copy


@pytest.fixture
def submissions(tmp_path, reference_source) -> Path:
    """Two correct lab.py files: each cause must be printed once, not once per student."""
    folder = tmp_path / "submitted"
    for student in ("alice", "bob"):
        (folder / student).mkdir(parents=True)
        (folder / student / "lab.py").write_text(reference_source)
    return folder


def assert_not_graded(result: subprocess.CompletedProcess, results: Path, gradebook: Path, students: list[str],
                      cause: str) -> subprocess.CompletedProcess:
    """Not graded in every file and in the report, no score anywhere, the exit status and the cause
    said once for the instructor (never to the student). Returns the `autograder report` run."""
    assert result.returncode == NOT_GRADED_EXIT, result.stdout + result.stderr
    assert result.stderr.count(cause) == 1, result.stderr
    assert f"{len(students)} submission(s) NOT GRADED" in result.stderr
    assert "Traceback" not in result.stderr
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    for student in students:
        folder = student_dir(results, student)
        data = json.loads((folder / "results.json").read_text())
        assert data["extra_data"]["status"] == "not graded"
        assert "score" not in data and all("score" not in test for test in data["tests"]), data
        assert data["output"].startswith(SENTENCE)
        assert sum(test["max_score"] for test in data["tests"]) in (0, 20)
        record = json.loads((folder / ".report.json").read_text())
        assert record["status"] == "not graded" and record["score"] is None
        assert any(cause in line for line in record["causes"]), record["causes"]
        assert cause in (folder / "grader-log.txt").read_text()
        feedback = (folder / "feedback.txt").read_text()
        assert SENTENCE in feedback and "your instructor has been told" in feedback
        assert "Score" not in feedback and "/ 20" not in feedback and cause not in feedback
        assert "Traceback" not in feedback and "[PASS]" not in feedback and "[FAIL]" not in feedback
        row = rows[student]
        assert row["status"] == "not graded" and row["score"] == "" and row["percent"] == ""
    page = report(results)
    assert page.returncode == 0, page.stderr
    assert f"NOT GRADED: {len(students)} of" in page.stdout and cause in page.stdout
    html = (results / "report.html").read_text()
    assert f"Not graded: {len(students)}" in html and cause.replace("'", "&#x27;") in html
    return page


def test_correct_and_unloadable_submissions_are_graded(tmp_path, reference_source):
    """The control: a correct lab.py is graded 20/20, one that does not load is graded 0 (its
    failure is the student's, so it stays a score)."""
    folder = tmp_path / "submitted"
    for student, text in (("alice", reference_source), ("carol", "class HyperMinesGame(:\n")):
        (folder / student).mkdir(parents=True)
        (folder / student / "lab.py").write_text(text)
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    result = grade(folder, results, gradebook, jobs=2)  # through the pool, as the sandbox cases below
    assert result.returncode == 0, result.stderr
    assert "NOT GRADED" not in result.stderr + result.stdout
    alice = json.loads((student_dir(results, "alice") / "results.json").read_text())
    carol = json.loads((student_dir(results, "carol") / "results.json").read_text())
    assert alice["score"] == 20 and alice["extra_data"]["status"] == "graded"
    assert carol["score"] == 0 and carol["extra_data"]["status"] == "graded"
    assert "Score: 0 / 20" in (student_dir(results, "carol") / "feedback.txt").read_text()
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    assert (rows["alice"]["status"], rows["alice"]["score"]) == ("graded", "20")
    assert (rows["carol"]["status"], rows["carol"]["score"]) == ("graded", "0")
    page = report(results)
    assert page.returncode == 0 and "NOT GRADED" not in page.stdout
    assert "2 submission(s) of hypermines: mean score 10.00 / 20" in page.stdout


@pytest.mark.parametrize("breakage", ["missing", "a file"])
def test_missing_or_unreadable_data_is_not_graded(tmp_path, submissions, breakage):
    """The original test data the suite reads through the `originals` fixture is gone, or its
    folder is a file: no submission is graded, and the path is named."""
    instructor = instructor_copy(tmp_path)
    data = instructor / "data"
    shutil.rmtree(data)
    if breakage == "a file":
        data.mkdir()
        (data / "originals").write_text("not a folder\n")
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    result = grade(submissions, results, gradebook, environment(instructor))
    assert_not_graded(result, results, gradebook, ["alice", "bob"], str(data / "originals"))


@pytest.mark.skipif(os.geteuid() != 0, reason="needs root to run the grader as another user")
def test_data_an_ordinary_user_cannot_read_is_not_graded(reference_source):
    """The data folder is there but mode 000, and the grader runs as an ordinary user (root reads
    it anyway): no submission is graded, and the unreadable folder is named."""
    from unprivileged import unprivileged_prefix

    base = Path(tempfile.mkdtemp(prefix="not-graded-"))
    try:
        os.chmod(base, 0o755)
        instructor = instructor_copy(base)
        originals = instructor / "data" / "originals"
        os.chmod(originals, 0)
        work = base / "work"
        for student in ("alice", "bob"):
            (work / "submitted" / student).mkdir(parents=True)
            (work / "submitted" / student / "lab.py").write_text(reference_source)
        os.chmod(work, 0o777)
        results, gradebook = work / "results", work / "grades.csv"
        env = environment(instructor)
        env.update(HOME=str(work), TMPDIR=str(work))
        result = subprocess.run(unprivileged_prefix(base) + AUTOGRADER + [
            "grade", "--assignment", "hypermines", str(work / "submitted"), "--results-dir", str(results),
            "--csv", str(gradebook), "--no-progress", "-j", "1", "--seed", "5"],
            capture_output=True, text=True, timeout=900, env=env, cwd=work)
        assert_not_graded(result, results, gradebook, ["alice", "bob"], str(originals))
    finally:
        shutil.rmtree(base, ignore_errors=True)


def test_missing_hidden_suite_is_not_graded(tmp_path, submissions):
    """No hidden suite at all: every submission is not graded, and the missing file is named."""
    instructor = instructor_copy(tmp_path)
    suite = instructor / "suites" / get_assignment("hypermines").suite_path.name
    suite.unlink()
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    result = grade(submissions, results, gradebook, environment(instructor))
    assert_not_graded(result, results, gradebook, ["alice", "bob"], str(suite))


def plant_error(suite: Path) -> str:
    """Make the suite's first test raise on the grader's side; returns that test's name."""
    text = suite.read_text()
    tree = ast.parse(text)
    test = next(node for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("test_"))
    first = test.body[1] if ast.get_docstring(test) else test.body[0]
    lines = text.splitlines(keepends=True)
    indent = " " * first.col_offset
    lines.insert(first.lineno - 1, f"{indent}raise LookupError('planted in the hidden suite')\n")
    suite.write_text("".join(lines))
    return test.name


def test_a_suite_that_raises_is_not_graded(tmp_path, submissions, reference_source):
    """A hidden test raises on its own (not a Mismatch, not the student's code): the submissions
    graded now are not graded; one graded before with intact material keeps its score, and the
    report's mean is over it alone (a submission not graded is never averaged in as 0)."""
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    earlier = tmp_path / "earlier"
    (earlier / "dora").mkdir(parents=True)
    (earlier / "dora" / "lab.py").write_text(reference_source)
    first = grade(earlier, results, gradebook)
    assert first.returncode == 0, first.stderr
    shutil.copytree(earlier / "dora", submissions / "dora")

    instructor = instructor_copy(tmp_path)
    test = plant_error(instructor / "suites" / get_assignment("hypermines").suite_path.name)
    result = grade(submissions, results, gradebook, environment(instructor))
    cause = f"::{test} raised LookupError: planted in the hidden suite"
    page = assert_not_graded(result, results, gradebook, ["alice", "bob"], cause)
    assert "kept 1 earlier result" in result.stdout
    assert json.loads((student_dir(results, "dora") / "results.json").read_text())["score"] == 20
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    assert (rows["dora"]["status"], rows["dora"]["score"]) == ("graded", "20")
    assert "1 graded submission(s) of hypermines: mean score 20.00 / 20" in page.stdout


PLANTED_TEST = """

@points(1)
def test_planted_reads_the_state_as_text(box):
    \"\"\"The state, read as text\"\"\"
    game = box.call("HyperMinesGame", [2, 2], [[0, 0]])
    if box.get_attr(game, "state").upper() != "ONGOING":
        raise Mismatch("the state is wrong")
"""


STATE_IS_A_NUMBER = """

class HyperMinesGame(HyperMinesGame):
    def __getattribute__(self, name):
        return 5 if name == "state" else super().__getattribute__(name)
"""


def test_a_hidden_test_that_raises_on_a_students_answer_fails_that_test_alone(tmp_path, reference_source):
    """Whose fault an exception is, is decided by where it happened: a hidden test that raises on
    what one submission answered (a state that is a number, which the test reads as text) while
    the reference passes it fails for that student, with a message, and the submission is graded;
    the correct submission beside it is graded in full, and nothing is "not graded"."""
    instructor = instructor_copy(tmp_path)
    suite = instructor / "suites" / get_assignment("hypermines").suite_path.name
    suite.write_text(suite.read_text() + PLANTED_TEST)
    folder = tmp_path / "submitted"
    for student, source in (("alice", reference_source), ("mallory", reference_source + STATE_IS_A_NUMBER)):
        (folder / student).mkdir(parents=True)
        (folder / student / "lab.py").write_text(source)
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    result = grade(folder, results, gradebook, environment(instructor))
    assert result.returncode == 0, result.stdout + result.stderr
    assert "NOT GRADED" not in result.stderr
    alice = json.loads((student_dir(results, "alice") / "results.json").read_text())
    assert (alice["score"], alice["extra_data"]["status"]) == (21, "graded"), alice["output"]
    mallory = json.loads((student_dir(results, "mallory") / "results.json").read_text())
    assert mallory["extra_data"]["status"] == "graded"
    planted = next(test for test in mallory["tests"] if test["name"] == "The state, read as text")
    assert planted["score"] == 0
    assert planted["output"].startswith("the grader could not use what your code returned here (AttributeError: "), \
        planted["output"]
    assert "test_planted" not in planted["output"] and ".upper" not in planted["output"]


def test_without_bubblewrap_nothing_is_graded(tmp_path, submissions, no_bwrap_path):
    """No bubblewrap: the grader refuses to run the code unisolated, and says why."""
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    result = grade(submissions, results, gradebook, environment(path=no_bwrap_path), jobs=2)
    assert_not_graded(result, results, gradebook, ["alice", "bob"], "bubblewrap (bwrap) is not installed")


FAILING_BWRAP = """#!{python}
# bubblewrap whose sandbox cannot run Python: the start-up probe runs as usual, and every child is
# asked to run an interpreter that does not exist, so the real bwrap fails before any student code.
import os, sys
args = sys.argv[1:]
if any(arg.endswith("/child.py") for arg in args):
    args[args.index("--") + 1] = "/nonexistent/python3"
os.execv({bwrap!r}, [{bwrap!r}] + args)
"""


@pytest.fixture
def failing_bwrap_path(tmp_path) -> str:
    """A PATH whose bwrap passes the start-up probe but whose sandboxes cannot run Python."""
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        pytest.skip("needs bubblewrap (make bubblewrap)")
    folder = tmp_path / "fake-bin"
    folder.mkdir()
    (folder / "bwrap").write_text(FAILING_BWRAP.format(python=sys.executable, bwrap=bwrap))
    (folder / "bwrap").chmod(0o755)
    return f"{folder}{os.pathsep}{os.environ.get('PATH', '')}"


def test_a_sandbox_that_cannot_start_is_not_graded(tmp_path, submissions, failing_bwrap_path):
    """Bubblewrap is there but the sandbox fails before the submission is loaded: that is the
    grader's failure (`SandboxUnavailable`), not the student's `LoadError`."""
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    result = grade(submissions, results, gradebook, environment(path=failing_bwrap_path), jobs=2)
    assert_not_graded(result, results, gradebook, ["alice", "bob"],
                      "the sandbox did not start: bwrap: execvp /nonexistent/python3: No such file or directory")


BOT = "from minesweeper_kit.bots.view import Move\n\n\ndef next_move(view):\n    return Move.dig((0, 0))\n"


@pytest.mark.parametrize("machine", ["no bubblewrap", "a sandbox that cannot start"])
def test_the_arena_and_the_tournament_count_no_game_the_bot_never_played(tmp_path, machine, no_bwrap_path,
                                                                         failing_bwrap_path):
    """`mines arena` and `mines tournament` stop with the reason (status 3) instead of recording
    every game as lost to a crash of a bot that never ran."""
    bot = tmp_path / "bot.py"
    bot.write_text(BOT)
    env = environment(path=no_bwrap_path if machine == "no bubblewrap" else failing_bwrap_path)
    mines = [sys.executable, "-m", "minesweeper_kit.cli"]
    arena = subprocess.run(mines + ["arena", str(bot), "--games", "3", "-j", "1", "--quiet"],
                           capture_output=True, text=True, timeout=300, env=env)
    assert arena.returncode == 3, arena.stdout + arena.stderr
    assert "sandbox could not start" in arena.stderr and "crash" not in arena.stdout
    tournament = subprocess.run(mines + ["tournament", str(bot), "reference", "--games", "2", "-j", "1", "--quiet",
                                         "--results-dir", str(tmp_path / "tour")],
                                capture_output=True, text=True, timeout=300, env=env)
    assert tournament.returncode == 3, tournament.stdout + tournament.stderr
    assert "sandbox could not start" in tournament.stderr
    assert not (tmp_path / "tour" / "leaderboard.csv").exists()


def test_on_gradescope_a_submission_not_graded_fails_the_run_and_posts_no_score(tmp_path, reference_source):
    """The exported autograder, its shipped data removed: `run_autograder` exits non-zero and
    leaves no results.json (not even one from an earlier run), so Gradescope shows the run failed
    and posts no score; its output names the cause for the instructor."""
    from autograder.gradescope import export

    archive = export("hypermines", tmp_path / "autograder.zip")
    root = tmp_path / "gs"
    zipfile.ZipFile(archive).extractall(root / "source")
    data = root / "source" / "autograder" / "instructor" / "data"
    shutil.rmtree(data)
    (root / "submission").mkdir()
    (root / "submission" / "lab.py").write_text(reference_source)
    (root / "results").mkdir()
    (root / "results" / "results.json").write_text('{"score": 0}\n')
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": sys.executable, "HOME": str(tmp_path)}
    result = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                            env=env, timeout=600, cwd=tmp_path)
    assert result.returncode != 0, result.stdout + result.stderr
    assert not (root / "results" / "results.json").exists()
    assert "NOT GRADED" in result.stderr and str(data / "originals") in result.stderr
    assert "points" not in result.stdout
