"""The batch report: message grouping on known messages, the summary of a small batch, links, the command."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from autograder.batch_report import message_pattern, read_batch, summarize, terminal_summary, write_report

AUTOGRADER = [sys.executable, "-m", "autograder.cli"]


@pytest.mark.parametrize("message, pattern", [
    ("game [3, 3] with bombs [[0, 0], [2, 2]], dig [0, 1] again: dig's result is wrong: expected 0, got 1",
     "game <list> with bombs <list>, dig <list> again: dig's result is wrong: expected <n>, got <n>"),
    ("render() is wrong: at [1, 2] expected ' ', got '0'", "render() is wrong: at <list> expected <str>, got <str>"),
    ("render() is wrong: at [0][3][1]: expected '87', got '174'", "render() is wrong: at <list>: expected <str>, got <str>"),
    ('neighbors_2d(3, 4) returned "abc" for (1, 2)', "neighbors_2d(<n>, <n>) returned <str> for <coords>"),
    ("time limit exceeded: this test may use 3 s of CPU time;  the process was killed",
     "time limit exceeded: this test may use <n> s of CPU time; the process was killed"),
    ("A new 10x10x10x10 game differs at 4.5e-3", "A new <shape> game differs at <n>"),
    ("RecursionError: maximum recursion depth exceeded (line 12, in dig; cell 4, line 7, in _reveal)",
     "RecursionError: maximum recursion depth exceeded (line <n>, in dig; cell <n>, line <n>, in _reveal)"),
    ("cannot open /tmp/grader/suite/test_x.py at 0x7f3a2b", "cannot open <path> at <hex>"),
    ("died (SIGSEGV: a crash) in test_new_large_4d", "died (SIGSEGV: a crash) in test_new_large_4d"),
])
def test_message_patterns(message, pattern):
    assert message_pattern(message) == pattern


def test_messages_differing_only_in_values_group_together():
    a = message_pattern("dig([2, 3]) returned 4, expected 7")
    b = message_pattern("dig([0, 0]) returned 12, expected 1")
    c = message_pattern("render([2, 3]) returned 4, expected 7")
    assert a == b != c
    assert len(message_pattern("x" * 1000)) == 300


TESTS = [("A new game", 2.0), ("Dig a safe cell", 3.0), ("Render", 5.0)]


def write_student(root: Path, student: str, outcomes: list[str | None], seconds: float = 1.0,
                  problem: str | None = None, record: bool = True) -> Path:
    """A results folder as the grader writes it: None in ``outcomes`` is a pass, a string the failure."""
    folder = root / student
    folder.mkdir(parents=True)
    tests = []
    for number, ((name, points), outcome) in enumerate(zip(TESTS, outcomes), start=1):
        tests.append({"name": name, "number": str(number), "score": points if outcome is None else 0.0,
                      "max_score": points, "status": "passed" if outcome is None else "failed",
                      "output": "passed" if outcome is None else outcome, "visibility": "visible"})
    score = sum(t["score"] for t in tests)
    output = f"hypermines: {score:g} / 10 points." + (f" {problem}" if problem else "") + f" Graded file {student}.py."
    (folder / "results.json").write_text(json.dumps({
        "score": score, "execution_time": seconds, "output": output, "tests": tests,
        "extra_data": {"assignment": "hypermines", "seed": 1, "student": student}}))
    (folder / "feedback.txt").write_text(f"Assignment hypermines - {student}\n")
    if record:
        (folder / ".report.json").write_text(json.dumps({"student": student, "problem": problem}))
    return folder


@pytest.fixture
def batch(tmp_path) -> Path:
    root = tmp_path / "results"
    write_student(root, "ada", [None, None, None], 1.5)
    write_student(root, "bo", [None, "dig([2, 3]) returned 4, expected 7", None], 2.0)
    write_student(root, "cy", [None, "dig([0, 0]) returned 12, expected 1", "render is wrong at [1, 1]"], 3.0)
    loading = "the submission could not be loaded: SyntaxError: invalid syntax (line 3)"
    write_student(root, "di", ["not run: the submission did not load"] * 3, 0.2, problem=loading)
    write_student(root, "gus", ["not run: the submission did not load"] * 3, 5.0,
                  problem="time limit exceeded while loading the submission (CPU time limit of 5 s exceeded)")
    write_student(root, "ed", [None, "time limit exceeded: this test may use 3 s of CPU time",
                               "not reached: the submission's budget of 10 s of CPU time ran out before this test"],
                  12.0)
    # No grader record: the load failure is read from the tests' messages and the results' output.
    write_student(root, "fay zed", ["not run: the submission did not load"] * 3, 0.1,
                  problem="the submission could not be loaded: ImportError: import of 'os' is not allowed",
                  record=False)
    (root / "stray-file.txt").write_text("not a student")
    return root


def test_summary_of_a_small_batch(batch):
    summary = summarize(read_batch(batch))
    assert [s.student for s in summary.students] == ["ada", "bo", "cy", "di", "ed", "fay zed", "gus"]
    assert summary.scores == [10.0, 7.0, 2.0, 0.0, 2.0, 0.0, 0.0] and summary.max_score == 10.0
    # Worst first: "Dig a safe cell" passes 1 of 7, "Render" 2 of 7, "A new game" 4 of 7.
    assert [(t.name, t.passed, t.attempts) for t in summary.tests] == [
        ("Dig a safe cell", 1, 7), ("Render", 2, 7), ("A new game", 4, 7)]
    dig = summary.tests[0]
    assert [(g.pattern, g.count) for g in dig.failures] == [
        ("not run: the submission did not load", 3), ("dig(<list>) returned <n>, expected <n>", 2),
        ("time limit exceeded: this test may use <n> s of CPU time", 1)]
    assert dig.failures[1].students == ["bo", "cy"]
    assert [s.student for s in summary.load_failures] == ["di", "fay zed", "gus"]
    assert "SyntaxError" in summary.students[3].load_failure
    assert "import of 'os' is not allowed" in summary.students[5].load_failure
    assert [s.student for s in summary.limit_hitters] == ["ed", "gus"]
    assert [name for name, _ in summary.students[4].limit_hits] == ["Dig a safe cell", "Render"]
    assert [name for name, _ in summary.students[6].limit_hits] == ["loading"]
    text = terminal_summary(summary)
    assert "7 submission(s) of hypermines: mean score 3.00 / 10, median 2" in text
    assert "14.3%  Dig a safe cell - 3x not run: the submission did not load" in text
    assert "Hit a time limit: 2 (ed, gus)" in text and "Did not load: 3" in text
    assert "longest 12.0 s" in text
    assert "Loaded but scored nothing: 0" in text


def test_page_links_each_feedback_file_relatively(batch, tmp_path):
    page, _ = write_report(batch)
    assert page == batch / "report.html"
    html = page.read_text()
    assert 'href="ada/feedback.txt"' in html and 'href="fay%20zed/feedback.txt"' in html
    assert "<script" not in html and html.count("<svg") == 3
    elsewhere, _ = write_report(batch, tmp_path / "pages" / "class.html")
    assert 'href="../results/ada/feedback.txt"' in elsewhere.read_text()


def test_an_empty_or_missing_folder_is_refused(tmp_path):
    with pytest.raises(ValueError, match="no student results"):
        read_batch(tmp_path)
    with pytest.raises(ValueError, match="is not a folder"):
        read_batch(tmp_path / "missing")


def test_command_line_writes_the_page_and_prints_the_summary(batch):
    out = subprocess.run(AUTOGRADER + ["report", str(batch)], capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "Did not load: 3" in out.stdout and str(batch / "report.html") in out.stdout
    assert (batch / "report.html").exists()
    out = subprocess.run(AUTOGRADER + ["report", str(batch / "nobody")], capture_output=True, text=True, timeout=300)
    assert out.returncode == 2 and "is not a folder" in out.stderr
