"""The student workspace `make lab` opens (`mines lab`): built once with nbgrader, never overwriting a
student's work, holding no solution and nothing of the instructor's folder, with JupyterLab's root
there, and the kit's nbgrader settings beside the notebooks; and nbgrader's Validate on its
notebooks agrees with the visible tests, and with the grader on time, and neither Validate nor
JupyterLab prints warnings or news a student can do nothing about.

The workspace is built the way `make lab` builds it: `mines lab` runs in a subprocess with a
workspace folder of the test's own, and the JupyterLab it starts is asked, while it runs, what it
serves, what its news setting is, what the Validate button answers and what a kernel prints.
Validate runs as a student runs it: `nbgrader validate` in a folder holding the workspace's
notebooks and its nbgrader_config.py.
"""
import asyncio
import json
import os
import re
import secrets
import subprocess
import sys
import urllib.error
import urllib.request
from pathlib import Path
from typing import NamedTuple

import nbformat
import pytest

from autograder.report import student_dir
from minesweeper_kit import workspace as ws
from minesweeper_kit.workspace import build_workspace
from browser.support import run_coroutine
from grader_testkit import course_file_without_own_tests
from notebook_tools import ASSIGNMENTS, GRADED, NOTEBOOKS, REPO, Lab, is_visible_test, nbgrader_meta

pytestmark = pytest.mark.nbgrader

SOLUTION_REGION = re.compile(r"^[ \t]*### BEGIN SOLUTION\n(.*?)^[ \t]*### END SOLUTION[ \t]*\n?", re.S | re.M)
STEPS = sorted(ASSIGNMENTS)
#: What Validate and JupyterLab must not print: news a student can do nothing about.
WARNINGS = ("without encryption", "No nbgrader_config.py")
#: JupyterLab's settings of its notification extension, where the news pop-up is set.
NOTIFICATION_SETTINGS = "/lab/api/settings/@jupyterlab/apputils-extension:notification"


def answered(ask):
    """What ``ask()`` returned, and None; or None and the error it raised, as text: a request that
    fails in the fixture fails the test that reads its answer, not every test of the workspace."""
    try:
        return ask(), None
    except Exception as error:  # noqa: BLE001 - whatever it is, the test that reads the answer shows it
        return None, f"{type(error).__name__}: {error}"


@pytest.fixture(scope="module")
def workspace(tmp_path_factory):
    """A workspace built by `mines lab`, and what its JupyterLab served and answered while it ran:
    its contents, requests for what lies outside, the news setting, the Validate button's request
    on 01-neighbors and a kernel's answer to a line of code; then all it printed."""
    root = tmp_path_factory.mktemp("student")
    folder = root / "workspace"
    lab = Lab(folder, root)
    try:
        lab.wait()
        _, body = lab.fetch("/api/contents")
        served = sorted(item["name"] for item in json.loads(body)["content"])
        outside = []
        for path in ("/api/contents/..", "/api/contents/../notebooks/03-flood-fill.ipynb",
                     "/files/../notebooks/03-flood-fill.ipynb", "/api/contents/%2E%2E%2Fnotebooks"):
            try:
                status, _ = lab.fetch(path)
                outside.append((path, status))
            except urllib.error.HTTPError as error:
                outside.append((path, error.code))
        news = answered(lambda: lab.request(NOTIFICATION_SETTINGS))
        validated = answered(lambda: lab.request("/assignments/validate", {"path": "01-neighbors.ipynb"}, timeout=600))
        kernel = answered(lambda: run_coroutine(run_code(lab, lab.request("/api/kernels", {"name": "python3"})["id"],
                                                         "print(6 * 7)")))
    finally:
        printed = lab.output()
    return {"folder": folder, "served": served, "outside": outside, "printed": printed, "news": news,
            "validated": validated, "kernel": kernel}


async def run_code(lab: Lab, kernel: str, code: str) -> str:
    """Run ``code`` on a kernel through JupyterLab's websocket, as a notebook does: its stdout."""
    from tornado.httpclient import HTTPRequest
    from tornado.websocket import websocket_connect

    url = f"ws://127.0.0.1:{lab.port}/api/kernels/{kernel}/channels"
    socket = await websocket_connect(HTTPRequest(url, headers={"Authorization": f"token {lab.token}"}))
    msg_id = secrets.token_hex(8)
    socket.write_message(json.dumps({
        "header": {"msg_id": msg_id, "msg_type": "execute_request", "username": "", "session": secrets.token_hex(8),
                   "version": "5.3", "date": ""},
        "parent_header": {}, "metadata": {}, "channel": "shell",
        "content": {"code": code, "silent": False, "store_history": False, "user_expressions": {},
                    "allow_stdin": False, "stop_on_error": True}}))
    printed, replied, idle = "", False, False
    while not (replied and idle):  # the reply (shell) and the outputs (iopub) come in either order
        message = json.loads(await asyncio.wait_for(socket.read_message(), 60))
        if message.get("parent_header", {}).get("msg_id") != msg_id:
            continue
        if message["msg_type"] == "stream":
            printed += message["content"]["text"]
        replied = replied or message["msg_type"] == "execute_reply"
        idle = idle or (message["msg_type"] == "status" and message["content"]["execution_state"] == "idle")
    socket.close()
    return printed


def test_make_lab_serves_only_the_student_versions(workspace):
    folder = workspace["folder"]
    held = sorted(STEPS + ["nbgrader_config.py"])  # with Validate's settings
    assert sorted(p.name for p in folder.iterdir()) == held, "the workspace holds something else"
    assert workspace["served"] == held, workspace["served"]
    for path, status in workspace["outside"]:
        assert status in (403, 404), f"{path} answered {status}: JupyterLab reaches outside the workspace"
    assert "added " + ", ".join(STEPS) in workspace["printed"], workspace["printed"][-2000:]


@pytest.mark.slow
def test_mines_lab_validates_quietly_without_news(workspace):
    """The Validate button's request, a notebook's kernel and the news setting, on the JupyterLab
    `mines lab` starts: Validate reads the workspace's settings (no "No nbgrader_config.py"), no
    kernel warns about plain TCP, and the news pop-up is off."""
    settings, error = workspace["news"]
    assert error is None, f"the notification settings were not answered: {error}"
    assert settings["schema"]["properties"]["fetchNews"]["default"] == "false", settings["schema"]
    assert "fetchNews" not in settings["settings"], settings["settings"]

    result, error = workspace["validated"]
    assert error is None, f"the Validate button's request failed: {error}"
    assert result["success"], result
    assert "NotImplementedError" in json.dumps(result["value"]), result

    printed, error = workspace["kernel"]
    assert error is None, f"the kernel did not run the code: {error}"
    assert printed == "42\n"
    for warning in WARNINGS:
        assert warning not in workspace["printed"], workspace["printed"][-4000:]


def test_the_workspace_gets_the_settings(workspace):
    text = (workspace["folder"] / ws.CONFIG_NAME).read_text()
    assert text == ws.workspace_config()
    config = {}
    exec(compile(text, ws.CONFIG_NAME, "exec"), {"get_config": lambda: _Sections(config)})
    assert config["Execute"]["timeout"] == ws.CELL_TIMEOUT
    assert config["Execute"]["iopub_timeout"] >= 30 and config["Execute"]["startup_timeout"] >= 120


class _Sections(dict):
    """Enough of traitlets' Config for `c.Section.name = value`, recorded in a plain dict."""

    def __init__(self, record):
        super().__init__()
        self._record = record

    def __getattr__(self, section):
        return _Section(self._record.setdefault(section, {}))


class _Section:
    def __init__(self, values):
        object.__setattr__(self, "values", values)

    def __setattr__(self, name, value):
        self.values[name] = value


def solution_lines(name: str) -> set[str]:
    """Every line of the source notebook's solution regions (stripped, not blank), except the lines
    the notebook also shows outside them: a worked example's `for dr in (-1, 0, 1):` is meant to be
    read, and finding it in the workspace proves nothing."""
    nb = nbformat.read(NOTEBOOKS / name, as_version=4)
    inside, shown = set(), set()
    for cell in nb.cells:
        inside |= {line.strip() for region in SOLUTION_REGION.findall(cell.source) for line in region.splitlines()}
        shown |= {line.strip() for line in SOLUTION_REGION.sub("", cell.source).splitlines()}
    return {line for line in inside - shown if line}


@pytest.mark.parametrize("name", STEPS)
def test_workspace_holds_no_solution(workspace, name):
    secret = solution_lines(name)
    if name != "00-play.ipynb":
        assert secret, f"{name}: no solution lines found in the source, so this test would check nothing"
    student = nbformat.read(workspace["folder"] / name, as_version=4)
    text = nbformat.writes(student)
    assert "BEGIN SOLUTION" not in text and "END SOLUTION" not in text
    seen = {line.strip() for cell in student.cells for line in cell.source.splitlines()}
    leaked = sorted(secret & seen)
    assert not leaked, f"{name}: solution lines in the student workspace: {leaked[:5]}"


def instructor_lines() -> dict[str, set[str]]:
    """Every statement line in autograder/instructor/ long enough to be more than a coincidence
    (24 characters, as `autograder check` counts them); comments, signatures, imports and quoted
    lines aside. The suites' docstrings are the names the feedback shows, and the notebooks list
    them on purpose."""
    found = {}
    for path in sorted((REPO / "autograder" / "instructor").rglob("*.py")):
        lines = {line.strip() for line in path.read_text().splitlines()}
        found[str(path.relative_to(REPO))] = {
            line for line in lines
            if len(line) >= 24 and not line.startswith(("#", "def ", "class ", "@", '"', "'", "import ", "from "))}
    return found


def shown_by_the_sources() -> set[str]:
    """Lines the source notebooks show outside their solution regions (given code such as step
    4's dump()): public already, so a suite that repeats one leaks nothing."""
    shown = set()
    for name in STEPS:
        for cell in nbformat.read(NOTEBOOKS / name, as_version=4).cells:
            shown |= {line.strip() for line in SOLUTION_REGION.sub("", cell.source).splitlines()}
    return shown


def test_workspace_holds_nothing_of_the_instructor_folder(workspace):
    lines = instructor_lines()
    assert sum(map(len, lines.values())) > 100, "too few instructor lines to make this test meaningful"
    public = shown_by_the_sources()
    for name in STEPS:
        # The cells' own text, not the notebook's JSON, where every quote would be escaped.
        text = "\n".join(cell.source for cell in
                         nbformat.read(workspace["folder"] / name, as_version=4).cells)
        for path, code in lines.items():
            copied = sorted(line for line in code - public if line in text)
            assert not copied, f"{name} holds lines of {path}: {copied[:3]}"


def test_a_second_build_keeps_the_students_work(workspace, tmp_path):
    """Build again after the student wrote in one notebook and deleted another: the first stays as
    the student left it, the second comes back as a fresh student version."""
    folder = workspace["folder"]
    edited, deleted = folder / "03-flood-fill.ipynb", folder / "02-make-board.ipynb"
    nb = nbformat.read(edited, as_version=4)
    cell = next(c for c in nb.cells if nbgrader_meta(c).get("solution"))
    cell.source = cell.source.replace("raise NotImplementedError()", "pass  # my own start")
    nbformat.write(nb, edited)
    mine = edited.read_bytes()
    fresh = deleted.read_bytes()
    deleted.unlink()

    report = build_workspace(folder, NOTEBOOKS, progress=False)
    assert report.added == ("02-make-board.ipynb",)
    assert "03-flood-fill.ipynb" in report.kept and len(report.kept) == len(STEPS) - 1
    assert edited.read_bytes() == mine
    assert "pass  # my own start" in edited.read_text()
    assert deleted.read_bytes() == fresh

    again = build_workspace(folder, NOTEBOOKS, progress=False)  # everything there: nothing built
    assert again.added == () and sorted(again.kept) == STEPS
    assert edited.read_bytes() == mine


def test_the_workspace_cannot_be_the_sources():
    with pytest.raises(ValueError, match="cannot be the source notebooks' folder"):
        build_workspace(NOTEBOOKS, NOTEBOOKS, progress=False)
    with pytest.raises(ValueError, match="cannot sit inside"):
        build_workspace(NOTEBOOKS / "workspace", NOTEBOOKS, progress=False)


def test_mines_lab_source_opens_the_sources(tmp_path):
    """`mines lab --source` (make lab-source) says it opens the solutions; checked without starting
    a server by naming a JupyterLab option that makes it print its version and exit."""
    done = subprocess.run([sys.executable, "-m", "minesweeper_kit.cli", "lab", "--source", "--version"],
                          cwd=REPO, capture_output=True, text=True, timeout=120,
                          env={**os.environ, "JUPYTER_RUNTIME_DIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr
    assert f"opening the SOURCE notebooks in {NOTEBOOKS}" in done.stdout
    assert "every solution is in them" in done.stdout


# ------------------------------------------------------------------ nbgrader's Validate


def solved(student, source):
    """The student version with every solution cell written as the source's solution (markers gone)."""
    answers = {c.id: c.source for c in source.cells if nbgrader_meta(c).get("solution")}
    copy = nbformat.from_dict(json.loads(json.dumps(student)))
    for cell in copy.cells:
        if cell.id in answers:
            cell.source = re.sub(r"^[ \t]*### (BEGIN|END) SOLUTION[ \t]*\n", "", answers[cell.id], flags=re.M)
    return copy


VALIDATING = re.compile(r"^\[ValidateApp \| INFO\] Validating '(.+?)'[ \t]*$", re.M)


class Validated(NamedTuple):
    """One `nbgrader validate` run on the notebooks of a folder."""

    folder: Path
    printed: dict[str, str]  #: what it printed for each notebook, by file name
    output: str  #: all it printed


def validate_each(folder) -> Validated:
    """`nbgrader validate` on every notebook of ``folder`` in one nbgrader process (each start costs
    seconds), run there as a student runs it. nbgrader logs the path before it validates each one,
    so its output is cut at those lines (unbuffered, so the log and the results keep their order)."""
    names = sorted(p.name for p in folder.glob("*.ipynb"))
    done = subprocess.run([sys.executable, "-u", "-m", "nbgrader", "validate", *names], cwd=folder,
                          stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=1800)
    parts = VALIDATING.split(done.stdout)
    printed = {Path(path).name: text for path, text in zip(parts[1::2], parts[2::2])}
    assert sorted(printed) == names, f"nbgrader validated {sorted(printed)} of {names}:\n{done.stdout[-3000:]}"
    return Validated(folder, printed, done.stdout)


# The bot of the reference solution, made to sleep 20 ms on each move until it has spent 45 s of the
# clock in all, then as fast as the reference: the first visible test's 100 beginner games take those
# 45 s, half as much again as nbgrader's default of 30 s for a cell, so that cell runs past the
# default. nbgrader's limit for a cell is of the clock, which a sleep runs past as surely as work;
# the notebook's own visible test measures the bot's CPU time against its 240 s budget, and a sleep
# spends none of it, so the case costs the machine next to nothing. It records the clock time it
# spent in a file. The solved 05-bots that Validate runs below is this bot.
SLOW_BOT = """

import json as _json
import time as _time

_fast_move = next_move
_spent = {"moves": 0, "wall": 0.0}


def next_move(view):
    if _spent["wall"] >= 45:
        return _fast_move(view)
    start = _time.monotonic()
    _time.sleep(0.020)
    move = _fast_move(view)
    _spent["moves"] += 1
    _spent["wall"] += _time.monotonic() - start
    with open("bot-time.json", "w") as out:
        _json.dump(_spent, out)
    return move
"""


@pytest.fixture(scope="module")
def validated_solved(workspace, tmp_path_factory) -> Validated:
    """Validate on each workspace notebook with every solution cell written in (05-bots's bot made
    slow: SLOW_BOT), beside the workspace's nbgrader_config.py."""
    folder = tmp_path_factory.mktemp("solved")
    (folder / ws.CONFIG_NAME).write_bytes((workspace["folder"] / ws.CONFIG_NAME).read_bytes())
    for name in sorted(GRADED):
        student = nbformat.read(workspace["folder"] / name, as_version=4)
        notebook = solved(student, nbformat.read(NOTEBOOKS / name, as_version=4))
        if name == "05-bots.ipynb":
            next(c for c in notebook.cells if nbgrader_meta(c).get("solution")).source += SLOW_BOT
        nbformat.write(notebook, folder / name)
    return validate_each(folder)


@pytest.fixture(scope="module")
def validated_unsolved(workspace, tmp_path_factory) -> Validated:
    """Validate on each workspace notebook as the student first gets it, beside the workspace's
    nbgrader_config.py."""
    folder = tmp_path_factory.mktemp("unsolved")
    for name in [*sorted(GRADED), ws.CONFIG_NAME]:
        (folder / name).write_bytes((workspace["folder"] / name).read_bytes())
    return validate_each(folder)


@pytest.mark.parametrize("name", sorted(GRADED))
def test_validate_passes_a_solved_workspace_notebook(validated_solved, name):
    out = validated_solved.printed[name]
    assert "Success! Your notebook passes all the tests." in out, out[-3000:]


@pytest.mark.parametrize("name", sorted(GRADED))
def test_validate_fails_the_student_version_with_the_visible_tests(validated_unsolved, name):
    folder, printed = validated_unsolved.folder, validated_unsolved.printed
    out = printed[name]
    assert "VALIDATION FAILED" in out, out[-3000:]
    graded = sum(1 for c in nbformat.read(folder / name, as_version=4).cells if is_visible_test(c))
    failed = int(re.search(r"VALIDATION FAILED ON (\d+) CELL", out).group(1))
    assert failed == graded, f"{name}: {failed} cells failed, the notebook has {graded} visible tests"
    assert "NotImplementedError" in out
    assert any('Visible test "' in line for line in out.splitlines()), "the failing test cells are not shown"


def test_validate_prints_no_warning(validated_unsolved):
    out = validated_unsolved.printed["01-neighbors.ipynb"]
    assert "VALIDATION FAILED" in out and "NotImplementedError" in out, out[-3000:]
    for warning in WARNINGS:
        assert warning not in validated_unsolved.output, validated_unsolved.output[-3000:]


@pytest.mark.slow
def test_validate_passes_a_bot_within_the_budget(validated_solved):
    """The issue's case: with nbgrader's default limit, five cells failed and Validate said the bot
    would not get full credit, while the grader gave it 10/10."""
    out = validated_solved.printed["05-bots.ipynb"]
    assert "Success! Your notebook passes all the tests." in out, out[-4000:]
    for warning in WARNINGS:
        assert warning not in validated_solved.output, validated_solved.output[-3000:]
    spent = json.loads((validated_solved.folder / "bot-time.json").read_text())
    assert spent["wall"] >= 0.020 * spent["moves"] and spent["wall"] >= 45, spent


# Two natural misreadings of step 3's rules: mines left counted from the cells showing MINE_GUESS
# (so a win with no guess leaves 0), and a questioned mine left as QUESTION in the end view of a
# loss. Each must fail its visible test with the rule in the message. The official grade may take
# points for it only in the hidden test that visible test mirrors, and exactly as many. The
# grader's random games end most of their games with a win, so they always meet the first rule;
# a loss on a questioned mine is rarer, so for the second the grade is only held to that bound.
MISREADINGS = {
    "mines-left-from-cells": (
        "        return self._field.num_mines() - self._guesses",
        "        return self._field.num_mines() - sum(row.count(MINE_GUESS) for row in self._status)",
        "num_mines_left() after a win without any guess", True),
    "questioned-mine-stays": (
        "                    if mine and status in (COVERED, QUESTION):",
        "                    if mine and status == COVERED:",
        "end view of the loss, row 0", False),
}
FAMILY = "Random fields played move by move agree with the engine (flood, marks, end view)"


@pytest.mark.parametrize("misreading", sorted(MISREADINGS))
def test_validate_and_the_grade_agree_on_a_misread_rule(workspace, tmp_path, misreading):
    name = "03-flood-fill.ipynb"
    old, new, message, always_met = MISREADINGS[misreading]
    source = nbformat.read(NOTEBOOKS / name, as_version=4)
    cell = next(c for c in source.cells if c.id == "VisibleField")
    assert cell.source.count(old) == 1, f"the reference solution changed: {old!r} is gone"
    cell.source = cell.source.replace(old, new)
    student = solved(nbformat.read(workspace["folder"] / name, as_version=4), source)
    folder = tmp_path / misreading
    folder.mkdir()
    nbformat.write(student, folder / name)

    printed = validate_each(folder).printed[name]
    assert "VALIDATION FAILED ON 1 CELL(S)" in printed, printed[-3000:]
    assert message in printed and "expected:" in printed and "got:" in printed

    settings = course_file_without_own_tests(tmp_path / "settings", "flood-fill")  # worth no points here
    graded = subprocess.run(
        [sys.executable, "-m", "autograder.cli", "grade", "--assignment", "flood-fill", "--seed", "1",
         "--results-dir", str(tmp_path / "results"), "--no-progress", "--course", str(settings), str(folder / name)],
        cwd=REPO, capture_output=True, text=True, timeout=900)
    assert graded.returncode == 0, graded.stdout[-2000:] + graded.stderr[-2000:]
    report = json.loads((student_dir(tmp_path / "results", misreading) / "results.json").read_text())
    lost = {t["name"]: t["max_score"] - t["score"] for t in report["tests"] if t["score"] < t["max_score"]}
    visible = next(c for c in student.cells if c.id == "test_VisibleField_marks_and_end")
    assert set(lost) <= {FAMILY}, f"the grade took points elsewhere: {lost}"
    assert lost.get(FAMILY, 0) in (0, nbgrader_meta(visible)["points"]), lost
    if always_met:
        assert lost == {FAMILY: nbgrader_meta(visible)["points"]}, lost
