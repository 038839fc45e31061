"""The batch report: message grouping on known messages, the summary of a small batch, links, the command;
the four groups counted apart, worst tests over the submissions that loaded, the students' table and its
sort script, and the class page over several results folders."""

from __future__ import annotations

import json
import subprocess
import sys
from html import unescape
from html.parser import HTMLParser
from pathlib import Path

import pytest

from autograder.batch_report import (
    CATEGORIES,
    SORT_SCRIPT,
    message_pattern,
    read_batch,
    summarize,
    terminal_summary,
    write_report,
)
from autograder.grading import GradeReport
from autograder.grading import TestOutcome as Outcome
from autograder.report import student_dir
from autograder.report import write_student as write_results

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
    """A results folder as the grader writes it: None in ``outcomes`` is a pass, a string the failure.
    The student's folder is named as given (the grader would write "fay zed" as fay_zed)."""
    folder = student_dir(root, student).with_name(student)
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
    # Worst first, over the 4 that loaded (di, fay zed and gus did not): "Dig a safe cell" passes
    # 1 of 4, "Render" 2 of 4, "A new game" 4 of 4.
    assert [(t.name, t.passed, t.attempts) for t in summary.tests] == [
        ("Dig a safe cell", 1, 4), ("Render", 2, 4), ("A new game", 4, 4)]
    dig = summary.tests[0]
    assert [(g.pattern, g.count) for g in dig.failures] == [
        ("dig(<list>) returned <n>, expected <n>", 2), ("time limit exceeded: this test may use <n> s of CPU time", 1)]
    assert dig.failures[0].students == ["bo", "cy"]
    assert summary.counts == {"graded": 4, "did not load": 3, "not graded": 0, "not submitted": 0}
    assert [s.student for s in summary.load_failures] == ["di", "fay zed", "gus"]
    assert "SyntaxError" in summary.students[3].load_failure
    assert "import of 'os' is not allowed" in summary.students[5].load_failure
    assert [s.student for s in summary.limit_hitters] == ["ed", "gus"]
    assert [name for name, _ in summary.students[4].limit_hits] == ["Dig a safe cell", "Render"]
    assert [name for name, _ in summary.students[6].limit_hits] == ["loading"]
    text = terminal_summary(summary)
    assert "7 submission(s) of hypermines: mean score 3.00 / 10, median 2" in text
    assert "Over the 4 that loaded: mean score 5.25, median 4.5." in text
    assert "25.0%  Dig a safe cell - 2x dig(<list>) returned <n>, expected <n>" in text
    assert "7 student(s): 4 graded, 3 did not load" in text and "0 not submitted" in text
    assert "Hit a time limit: 2 (ed, gus)" in text and "Did not load: 3" in text
    assert "longest 12.0 s" in text
    assert "Loaded but scored nothing: 0" in text


def test_page_links_each_feedback_file_relatively(batch, tmp_path):
    page, _ = write_report(batch)
    assert page == batch / "report.html"
    html = page.read_text()
    assert 'href="students/ada/feedback.txt"' in html and 'href="students/fay%20zed/feedback.txt"' in html
    assert html.count("<script") == 1 and html.count("<svg") == 3
    elsewhere, _ = write_report(batch, tmp_path / "pages" / "class.html")
    assert 'href="../results/students/ada/feedback.txt"' in elsewhere.read_text()


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


def test_an_older_results_folder_is_read_without_the_newer_fields(batch):
    """Folders written before file, lateness and the not-submitted status were recorded: the file
    is read from the grader's sentence, lateness is unknown (shown as a dash), nobody is late."""
    students = {s.student: s for s in read_batch(batch)}
    assert students["ada"].file == "ada.py" and students["ada"].seed == 1
    assert students["ada"].late_by is None and students["ada"].submitted_at is None and students["ada"].penalty == 0
    assert summarize(list(students.values())).late == []
    page, _ = write_report(batch)
    rows = {row["student"]: row for row in table_rows(page.read_text(), "students")}
    assert rows["ada"]["file"] == "ada.py" and rows["ada"]["late by"] == "—" and rows["ada"]["seed"] == "1"


# ---------------------------------------------------------------------- a class as the grader writes it
NOT_LOADED = "not run: the submission did not load"
UNDEFINED = "your code does not define HyperMinesGame"


def graded(student: str, outcomes: list[str | None], *, assignment: str = "hypermines", seconds: float = 1.0,
           problem: str | None = None, file: str = "lab.py", late_by: float = 0.0, penalty: float = 0.0,
           submitted_at: str | None = "2025-03-03T09:00:00+00:00", seed: int = 7) -> GradeReport:
    """A graded report: None in ``outcomes`` is a pass, a string the failure's message."""
    tests = [Outcome(name, points, id=f"test_{number}", score=points if outcome is None else 0.0,
                         status="passed" if outcome is None else "failed",
                         output="passed" if outcome is None else outcome)
             for number, ((name, points), outcome) in enumerate(zip(TESTS, outcomes), start=1)]
    earned = sum(t.score for t in tests)
    return GradeReport(student, assignment, max(0.0, earned - penalty), 10.0, seconds, seed, tests,
                       submission=f"Graded file {Path(file).name}.", problem=problem, file=file,
                       submitted_at=submitted_at, late_by=late_by, late=late_by > 0, penalty=penalty)


def not_graded(student: str, assignment: str = "hypermines") -> GradeReport:
    tests = [Outcome(name, points, id=f"test_{n}", status="not graded", output="not graded")
             for n, (name, points) in enumerate(TESTS, start=1)]
    return GradeReport(student, assignment, None, 10.0, 0.4, 7, tests, status="not graded", file="lab.py",
                       causes=["the hidden suite test_hypermines.py is missing"])


def not_submitted(student: str, assignment: str = "hypermines") -> GradeReport:
    return GradeReport(student, assignment, None, 10.0, 0.0, 7, submission="No file for this assignment was found.",
                       status="not submitted")


def write_batch(root: Path, reports: list[GradeReport]) -> Path:
    for report in reports:
        write_results(report, root)
    return root


HYPERMINES = [
    graded("ada", [None, None, None], file="hypermines/04-nd-dig.ipynb", seed=20261123),
    graded("bo", [None, "dig([2, 3]) returned 4, expected 7", None], seconds=2.0, late_by=7500.0, penalty=1.0,
           submitted_at="2025-03-03T11:05:00+00:00"),
    graded("cy", [None, "dig([0, 0]) returned 12, expected 1", "render is wrong at [1, 1]"], seconds=3.0),
    graded("di", [NOT_LOADED] * 3, seconds=0.2,
           problem="the submission could not be loaded: SyntaxError: invalid syntax (line 3)"),
    graded("eve", [UNDEFINED] * 3, seconds=0.5),  # loaded, but defines nothing the tests call
    not_graded("fay"),
    not_submitted("gus"),
]


@pytest.fixture
def hypermines(tmp_path) -> Path:
    return write_batch(tmp_path / "class" / "hypermines", HYPERMINES)


class Tables(HTMLParser):
    """Every table of a page: its attributes, its header cells and its rows, each cell's text and
    attributes; and every script element."""

    def __init__(self, html: str):
        super().__init__()
        self.tables: dict[str, dict] = {}
        self.scripts: list[tuple[dict, str]] = []
        self._table: dict | None = None
        self._cell: dict | None = None
        self._script: dict | None = None
        self.feed(html)

    def handle_starttag(self, tag, attrs):
        attributes = dict(attrs)
        if tag == "table":
            self._table = {"attrs": attributes, "head": [], "rows": []}
            self.tables[attributes.get("id", "")] = self._table
        elif tag == "tr" and self._table is not None:
            self._table["rows"].append([])
        elif tag in ("th", "td") and self._table is not None:
            self._cell = {"attrs": attributes, "text": "", "tag": tag}
        elif tag == "script":
            self._script = attributes
            self.scripts.append((attributes, ""))

    def handle_endtag(self, tag):
        if tag in ("th", "td") and self._cell is not None and self._table is not None:
            self._cell["text"] = " ".join(self._cell["text"].split())
            (self._table["head"] if tag == "th" else self._table["rows"][-1]).append(self._cell)
            self._cell = None
        elif tag == "table":
            self._table = None
        elif tag == "script":
            self._script = None

    def handle_data(self, data):
        if self._script is not None:
            self.scripts[-1] = (self.scripts[-1][0], self.scripts[-1][1] + data)
        elif self._cell is not None:
            self._cell["text"] += data


def table_rows(html: str, table_id: str, attrs: bool = False) -> list[dict]:
    """The rows of a table as {header: cell text}, or {header: (text, attributes)} with ``attrs``."""
    found = Tables(html).tables[table_id]
    head = [h["text"] for h in found["head"]]
    return [{h: ((c["text"], c["attrs"]) if attrs else c["text"]) for h, c in zip(head, row)}
            for row in found["rows"] if row]


def test_the_four_groups_are_counted_apart(hypermines):
    summary = summarize(read_batch(hypermines))
    assert summary.counts == {"graded": 3, "did not load": 2, "not graded": 1, "not submitted": 1}
    assert list(summary.counts) == list(CATEGORIES)
    assert [s.student for s in summary.loaded] == ["ada", "bo", "cy"]
    assert [s.student for s in summary.load_failures] == ["di", "eve"]
    assert [s.student for s in summary.not_graded] == ["fay"]
    assert [s.student for s in summary.not_submitted] == ["gus"]
    # Scores are over the graded (those that did not load at their 0), after the late penalty.
    assert summary.scores == [10.0, 6.0, 2.0, 0.0, 0.0] and summary.loaded_scores == [10.0, 6.0, 2.0]
    assert [s.student for s in summary.late] == ["bo"]
    assert [s.student for s, _ in summary.loaded_but_zero] == []
    text = terminal_summary(summary)
    assert ("7 student(s): 3 graded, 2 did not load (graded, 0 for what did not run), 1 not graded (the grader "
            "failed), 1 not submitted.") in text
    assert "NOT GRADED: 1 of 7" in text and "the hidden suite test_hypermines.py is missing (fay)" in text
    assert "5 graded submission(s) of hypermines: mean score 3.60 / 10, median 2" in text
    assert "Over the 3 that loaded: mean score 6.00, median 6." in text
    assert "Did not load: 2" in text and "  di: the submission could not be loaded: SyntaxError" in text
    assert "  eve: loaded, but defines nothing the tests call: your code does not define HyperMinesGame" in text
    assert "Late: 1 (1 point(s) taken off in all)" in text and "  bo: 2 h 5 min late, 1 point(s) off" in text
    assert "Not submitted: 1 (gus)" in text


def test_worst_tests_leave_out_the_submissions_that_did_not_load(hypermines):
    """Blank and unloadable submissions fail every test for one reason that says nothing about the
    tests: with them the first test would lead the list; without them "Dig a safe cell" does."""
    summary = summarize(read_batch(hypermines))
    assert [(t.name, t.passed, t.attempts) for t in summary.tests] == [
        ("Dig a safe cell", 1, 3), ("Render", 2, 3), ("A new game", 3, 3)]
    patterns = [g.pattern for t in summary.tests for g in t.failures]
    assert patterns == ["dig(<list>) returned <n>, expected <n>", "render is wrong at <list>"]
    assert not any(s in g.students for t in summary.tests for g in t.failures for s in ("di", "eve", "fay", "gus"))
    text = terminal_summary(summary)
    assert "Worst tests over the 3 submission(s) that loaded" in text
    assert "33.3%  Dig a safe cell - 2x dig(<list>) returned <n>, expected <n>" in text
    assert "does not define" not in text.split("Worst tests")[1].split("Time per")[0]
    html = write_report(hypermines)[0].read_text()
    assert "Over the 3 submissions that loaded" in html and "Share of the 3 submissions that loaded" in html
    tests = table_rows(html, "tests")
    assert [(row["test"], row["passed (of those that loaded)"]) for row in tests] == [
        ("Dig a safe cell", "1 / 3"), ("Render", "2 / 3"), ("A new game", "3 / 3")]
    assert "not run" not in Tables(html).tables["tests"]["rows"].__repr__()


def test_the_page_counts_the_groups_apart_and_says_what_each_figure_is_over(hypermines):
    html = write_report(hypermines)[0].read_text()
    counts = {row["group"]: row for row in table_rows(html, "counts")}
    assert {group: row["students"] for group, row in counts.items()} == {
        "graded": "3", "did not load": "2", "not graded": "1", "not submitted": "1"}
    assert counts["not submitted"]["who"] == "gus" and counts["did not load"]["who"] == "di, eve"
    assert counts["not graded"]["counted in"] == "none" and counts["not submitted"]["counted in"] == "none"
    assert ("Over the 5 graded submissions (those that did not load at the score they got): mean score 3.60 "
            "of 10") in html
    assert "over the 3 that loaded: mean 6.00, median 6" in html
    assert "How many of the 5 graded submissions earned each score" in html
    assert '<p id="times-over">Over the 5 graded submissions' in html
    assert 'Not graded: 1</h2>' in html and "the hidden suite test_hypermines.py is missing" in html
    assert [row["student"] for row in table_rows(html, "load-failures")] == ["di", "eve"]
    assert html.count("<svg") == 3


def test_the_students_table_has_file_seed_and_lateness(hypermines):
    html = write_report(hypermines)[0].read_text()
    rows = {row["student"]: row for row in table_rows(html, "students")}
    head = [h["text"] for h in Tables(html).tables["students"]["head"]]
    assert head == ["student", "status", "file", "score", "%", "tests passed", "late by", "penalty", "time", "seed",
                    "note", "feedback"]
    assert list(rows) == ["ada", "bo", "cy", "di", "eve", "fay", "gus"]
    assert {name: row["status"] for name, row in rows.items()} == {
        "ada": "graded", "bo": "graded", "cy": "graded", "di": "did not load", "eve": "did not load",
        "fay": "not graded", "gus": "not submitted"}
    assert (rows["ada"]["file"], rows["ada"]["seed"], rows["ada"]["late by"]) == (
        "hypermines/04-nd-dig.ipynb", "20261123", "on time")
    assert (rows["bo"]["score"], rows["bo"]["late by"], rows["bo"]["penalty"]) == ("6 / 10", "2 h 5 min", "1")
    assert (rows["cy"]["file"], rows["cy"]["penalty"], rows["cy"]["tests passed"]) == ("lab.py", "0", "1 / 3")
    assert rows["di"]["score"] == "0 / 10" and rows["di"]["note"] == "did not load"
    assert rows["eve"]["note"] == "defined nothing the tests call"
    assert rows["fay"]["score"] == "—" and rows["fay"]["note"].startswith("a problem on the grader's side")
    gus = rows["gus"]
    assert (gus["score"], gus["late by"], gus["time"], gus["file"]) == ("—", "—", "—", "—")
    assert gus["note"] == "No file for this assignment was found." and gus["feedback"] == "feedback.txt"
    # Numeric columns sort by a number each cell carries; a cell without one (—) sorts last.
    cells = {row["student"][0]: row for row in table_rows(html, "students", attrs=True)}
    assert cells["ada"]["seed"][1]["data-value"] == "20261123"
    assert cells["bo"]["late by"][1]["data-value"] == "7500.0" and "2025-03-03T11:05:00" in cells["bo"]["late by"][1][
        "title"]
    assert cells["bo"]["score"][1]["data-value"] == "6.0" and cells["gus"]["score"][1]["data-value"] == ""
    assert 'href="students/bo/feedback.txt"' in html and 'href="students/gus/feedback.txt"' in html


def test_the_students_table_sorts_by_an_inline_script(hypermines):
    html = write_report(hypermines)[0].read_text()
    page = Tables(html)
    # One script, inline, asking for nothing: no source attribute, no address, no loading of any kind.
    assert len(page.scripts) == 1
    attributes, code = page.scripts[0]
    assert attributes == {} and code == SORT_SCRIPT
    for word in ("://", "src", "fetch", "XMLHttpRequest", "import", "http", "location", "cookie", "innerHTML"):
        assert word not in code, word
    assert "<link" not in html and 'src="' not in html.replace('src="data:', "")
    assert "http" not in html.replace("http://www.w3.org", "")
    # The script sorts every table.sortable by the clicked header: numbers by data-value.
    assert 'querySelectorAll("table.sortable")' in code and 'addEventListener("click"' in code
    assert 'getAttribute("data-sort") === "number"' in code and 'getAttribute("data-value")' in code
    students = page.tables["students"]
    assert students["attrs"]["class"] == "sortable"
    kinds = {h["text"]: h["attrs"]["data-sort"] for h in students["head"]}
    assert {name for name, kind in kinds.items() if kind == "number"} == {
        "score", "%", "tests passed", "late by", "penalty", "time", "seed"}
    assert set(kinds.values()) == {"number", "text"}
    numeric = [i for i, h in enumerate(students["head"]) if h["attrs"]["data-sort"] == "number"]
    for row in students["rows"][1:]:
        for i in numeric:
            value = row[i]["attrs"]["data-value"]
            assert value == "" or float(value) == float(value), (row[0]["text"], i, value)
    # Without the script the table is whole and in the students' order.
    assert [r[0]["text"] for r in students["rows"][1:]] == ["ada", "bo", "cy", "di", "eve", "fay", "gus"]


def test_student_made_text_stays_escaped_in_every_new_cell(tmp_path):
    hostile = "<img src=x onerror=alert(1)>"
    report = graded(hostile, [None, None, None], file='<script>alert("f")</script>.py')
    root = write_batch(tmp_path / "results", [report, not_submitted("</td><script>x()</script>")])
    html = write_report(root)[0].read_text()
    assert hostile not in html and "<script>alert" not in html and "<script>x()" not in html
    assert "&lt;img src=x onerror=alert(1)&gt;" in html
    assert "&lt;script&gt;alert(&#34;f&#34;)&lt;/script&gt;.py" in html  # markupsafe writes " as &#34;
    assert html.count("<script") == 1
    names = [row["student"] for row in table_rows(html, "students")]
    assert sorted(names) == sorted([hostile, "</td><script>x()</script>"])


def test_nobody_graded_still_lists_who_did_not_submit(tmp_path):
    root = write_batch(tmp_path / "results", [not_submitted("ada"), not_graded("bo")])
    page, summary = write_report(root)
    text = terminal_summary(summary)
    assert "No submission of hypermines was graded." in text and "Not submitted: 1 (ada)" in text
    html = page.read_text()
    assert "No submission was graded." in html
    assert {r["student"]: r["status"] for r in table_rows(html, "students")} == {
        "ada": "not submitted", "bo": "not graded"}


FLOOD_FILL = [
    graded("ada", [None, "fill is wrong", "render is wrong"], assignment="flood-fill"),  # 2 / 10
    graded("bo", [NOT_LOADED] * 3, assignment="flood-fill", problem="the submission could not be loaded: x"),
    not_submitted("cy", "flood-fill"),
    # di: no result at all in this folder
    graded("eve", [None, None, None], assignment="flood-fill", late_by=90000.0, penalty=2.0),  # 8 / 10
    graded("fay", [None, None, None], assignment="flood-fill"),
    graded("gus", [None, None, "render is wrong"], assignment="flood-fill"),  # 5 / 10
]


def test_several_results_folders_make_one_class_page(hypermines):
    from autograder.batch_report import CLASS_PAGE, write_class_report

    flood = write_batch(hypermines.parent / "flood-fill", FLOOD_FILL)
    page, batches = write_class_report([hypermines, flood])
    assert page == hypermines.parent / CLASS_PAGE and [b.name for b in batches] == ["hypermines", "flood-fill"]
    assert (hypermines / "report.html").is_file() and (flood / "report.html").is_file()
    html = page.read_text()
    assert html.count("<script") == 1 and Tables(html).scripts[0][1] == SORT_SCRIPT
    table = Tables(html).tables["class"]
    assert table["attrs"]["class"] == "sortable"
    assert [(h["text"], h["attrs"]["data-sort"]) for h in table["head"]] == [
        ("student", "text"), ("hypermines", "number"), ("flood-fill", "number"), ("total", "number"),
        ("%", "number"), ("notes", "text")]
    rows = {row["student"]: row for row in table_rows(html, "class")}
    assert list(rows) == ["ada", "bo", "cy", "di", "eve", "fay", "gus"]
    cells = {name: (r["hypermines"], r["flood-fill"], r["total"], r["notes"]) for name, r in rows.items()}
    assert cells == {
        "ada": ("10 / 10", "2 / 10", "12 / 20", ""),
        "bo": ("6 / 10 late", "did not load (0 / 10)", "6 / 20", ""),
        "cy": ("2 / 10", "not submitted", "2 / 20", "not submitted: flood-fill"),
        "di": ("did not load (0 / 10)", "no result", "0 / 20", "no result: flood-fill"),
        "eve": ("did not load (0 / 10)", "8 / 10 late", "8 / 20", ""),
        "fay": ("not graded", "10 / 10", "10 / 20 (incomplete)", "not graded: hypermines"),
        "gus": ("not submitted", "5 / 10", "5 / 20", "not submitted: hypermines"),
    }
    assert rows["ada"]["%"] == "60%"
    values = {r["student"][0]: r for r in table_rows(html, "class", attrs=True)}
    assert values["ada"]["total"][1]["data-value"] == "12.0"
    assert values["cy"]["flood-fill"][1]["data-value"] == "" and values["di"]["hypermines"][1]["data-value"] == "0.0"
    assert values["eve"]["flood-fill"][1]["title"] == "late by 1 day 1 h; 2 point(s) off"
    # Each score links to the student's feedback, each assignment to its own page, relatively.
    assert 'href="hypermines/students/ada/feedback.txt"' in html
    assert 'href="flood-fill/students/eve/feedback.txt"' in html
    summaries = {r["assignment"]: r for r in table_rows(html, "assignments")}
    assert {name: (r["graded"], r["did not load"], r["not graded"], r["not submitted"], r["page"])
            for name, r in summaries.items()} == {
        "hypermines": ("3", "2", "1", "1", "report.html"), "flood-fill": ("4", "1", "0", "1", "report.html")}
    assert summaries["hypermines"]["worst test (pass rate over those that loaded)"] == "Dig a safe cell (33% of 3)"
    assert 'href="hypermines/report.html"' in html and 'href="flood-fill/report.html"' in html


def test_the_command_with_several_folders_writes_the_class_page(hypermines, tmp_path):
    flood = write_batch(hypermines.parent / "flood-fill", FLOOD_FILL)
    out = subprocess.run(AUTOGRADER + ["report", str(hypermines), str(flood)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 0, out.stderr
    page = hypermines.parent / "class-report.html"
    assert page.is_file() and f"Class report: {page}" in out.stdout
    assert "hypermines (" in out.stdout and "  Report: " + str(hypermines / "report.html") in out.stdout
    assert "7 student(s) across 2 assignment(s)." in out.stdout
    elsewhere = tmp_path / "pages" / "class.html"
    out = subprocess.run(AUTOGRADER + ["report", str(hypermines), str(flood), "-o", str(elsewhere)],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert 'href="../class/hypermines/students/ada/feedback.txt"' in elsewhere.read_text()
    out = subprocess.run(AUTOGRADER + ["report", str(hypermines), str(hypermines)], capture_output=True, text=True,
                         timeout=300)
    assert out.returncode == 2 and "given twice" in out.stderr
    out = subprocess.run(AUTOGRADER + ["report", "--help"], capture_output=True, text=True, timeout=300)
    assert "class-report.html" in " ".join(out.stdout.split())


def test_results_json_alone_is_enough(hypermines):
    """Without the grader's record (.report.json), extra_data carries the status, file, seed and
    lateness; the groups and the table are the same."""
    for record in hypermines.glob("students/*/.report.json"):
        record.unlink()
    students = {s.student: s for s in read_batch(hypermines)}
    assert (students["bo"].file, students["bo"].late_by, students["bo"].penalty, students["bo"].seed) == (
        "lab.py", 7500.0, 1.0, 7)
    assert students["bo"].submitted_at == "2025-03-03T11:05:00+00:00"
    assert students["ada"].file == "hypermines/04-nd-dig.ipynb"
    assert summarize(list(students.values())).counts == {
        "graded": 3, "did not load": 2, "not graded": 1, "not submitted": 1}


# ---------------------------------------------------------------------- the class's own tests and the chaffs
#: Planted bugs of a made-up library: the names the grader records and their misconceptions (one
#: with markup, as if an instructor's text held some).
PLANTED = {
    "axis_edge": "an axis loses its position 0",
    "zero_as_0": "render shows a 0 as '0' instead of ' '",
    "marked_up": "<b>dig</b> & <script>x()</script> counts twice",
}


def own(report: GradeReport, caught: list[str] | None, *, problem: str | None = None,
        bugs: dict[str, str] | None = PLANTED) -> GradeReport:
    """The report with an own-tests summary as ``own_tests.py`` records it; None: no tests found."""
    if caught is None:
        report.own_tests = {"found": False}
    else:
        report.own_tests = {"found": True, "tests": 4, "valid": 3, "caught": caught, "chaffs": list(bugs or PLANTED),
                            "unmet": [], "problem": problem, "seconds": 1.0}
        if bugs is not None:
            report.own_tests["misconceptions"] = dict(bugs)
    return report


def test_the_page_shows_each_planted_bug_caught_by_a_share_of_the_class_least_first(tmp_path):
    reports = [
        own(graded("ada", [None, None, None]), ["axis_edge", "zero_as_0", "marked_up"]),
        own(graded("bo", [None, "dig([2, 3]) returned 4, expected 7", None]), ["axis_edge", "zero_as_0"]),
        own(graded("cy", [None, None, "render is wrong"]), ["axis_edge"]),
        own(graded("di", [None, None, None]), []),
        own(graded("eve", [None, None, None]), None),  # no tests found: not counted
        own(graded("fay", [None, None, None]), [], problem="the tests could not be run"),  # not counted
        own(not_graded("gus"), ["axis_edge", "zero_as_0", "marked_up"]),  # not graded: not counted
        not_submitted("hal"),
    ]
    page, summary = write_report(write_batch(tmp_path / "results", reports))
    html = page.read_text()
    assert table_rows(html, "misconceptions") == [
        {"misconception": "<b>dig</b> & <script>x()</script> counts twice", "caught by (submissions)": "1 / 4",
         "share": "25%"},
        {"misconception": "render shows a 0 as '0' instead of ' '", "caught by (submissions)": "2 / 4",
         "share": "50%"},
        {"misconception": "an axis loses its position 0", "caught by (submissions)": "3 / 4", "share": "75%"},
    ]
    assert "Over the 4 graded submissions whose own tests were found and graded" in html
    # What an instructor's or a student's text holds stays text.
    assert "<b>dig</b>" not in html and "<script>x()" not in html
    assert "&lt;b&gt;dig&lt;/b&gt; &amp; &lt;script&gt;x()&lt;/script&gt; counts twice" in html
    assert html.count("<script") == 1
    text = terminal_summary(summary)
    assert ("Planted bugs caught by the students' own tests, over the 4 submission(s) whose tests were found and "
            "graded (least caught first):") in text
    lines = text.splitlines()
    first = lines.index(next(line for line in lines if line.startswith("Planted bugs caught")))
    assert lines[first + 1:first + 4] == [
        "   25.0%  (1 of 4)  <b>dig</b> & <script>x()</script> counts twice",
        "   50.0%  (2 of 4)  render shows a 0 as '0' instead of ' '",
        "   75.0%  (3 of 4)  an axis loses its position 0",
    ]


def test_a_summary_without_the_bugs_names_them_from_the_chaff_library(tmp_path):
    """An older summary recorded the chaffs' names only: the page looks their bugs up in the
    instructor's chaff library (hypermines' own)."""
    names = {"edge_off_by_one": "", "zero_rendered_as_0": ""}
    reports = [own(graded("ada", [None, None, None]), ["zero_rendered_as_0"], bugs=None),
               own(graded("bo", [None, None, None]), [], bugs=None)]
    for report in reports:
        report.own_tests["chaffs"] = list(names)
    html = write_report(write_batch(tmp_path / "results", reports))[0].read_text()
    assert [(row["misconception"], row["share"]) for row in table_rows(html, "misconceptions")] == [
        ("an axis loses its position 0", "0%"), ("render shows a 0 as '0' instead of ' '", "50%")]


def test_no_own_tests_no_planted_bugs_section(hypermines):
    page, summary = write_report(hypermines)
    html = page.read_text()
    assert "misconceptions" not in Tables(html).tables and "Planted bugs" not in html
    assert "Planted bugs" not in terminal_summary(summary)


# ---------------------------------------------------------------------- the course's names, scale, grace, nbgrader
def test_the_class_page_says_the_course_names_the_scale_the_grace_and_nbgraders_totals(tmp_path):
    """Results graded under a course file: the columns carry the course's names (the kit's id beside
    them), a maximum of 24 is shown as 24, a student inside the grace period is not marked late,
    and where the grades were recorded in nbgrader the page shows nbgrader's totals beside the
    kit's, with why they differ."""
    from autograder.batch_report import write_class_report
    from autograder.report import write_gradebook_totals

    def on_scale(report: GradeReport) -> GradeReport:
        report.assignment_name, report.max_score = "ps4-mines", 24.0
        return report

    ada = on_scale(graded("ada", [None, None, None], late_by=600.0))  # 10 min late, inside a 30 min grace
    ada.late, ada.score = False, 24.0
    bo = on_scale(graded("bo", [None, "dig is wrong", None], late_by=90000.0, penalty=2.0))
    hypermines = write_batch(tmp_path / "class" / "hypermines", [ada, bo, on_scale(not_submitted("cy"))])
    flood = write_batch(tmp_path / "class" / "flood-fill", [graded("ada", [None, None, None], assignment="flood-fill")])
    write_gradebook_totals(hypermines, "ps4-mines", {
        "ada": {"raw_score": 44.0, "late_penalty": 0.0, "score": 44.0, "max_score": 44.0},
        "bo": {"raw_score": 30.0, "late_penalty": 8.8, "score": 21.2, "max_score": 44.0}})
    page, batches = write_class_report([hypermines, flood])
    html = page.read_text()
    assert [b.name for b in batches] == ["ps4-mines (hypermines)", "flood-fill"]
    rows = {row["student"]: row for row in table_rows(html, "class")}
    assert list(table_rows(html, "class")[0]) == ["student", "ps4-mines (hypermines)", "flood-fill", "total", "%",
                                                   "nbgrader total", "nbgrader %", "notes"]
    assert rows["ada"]["ps4-mines (hypermines)"] == "24 / 24"  # inside the grace: not marked late
    assert rows["bo"]["ps4-mines (hypermines)"] == "5 / 24 late"
    assert rows["cy"]["ps4-mines (hypermines)"] == "not submitted"
    assert (rows["ada"]["total"], rows["ada"]["%"]) == ("34 / 34", "100%")
    # nbgrader's totals: ps4-mines only (flood-fill was not recorded in a gradebook); cy counts 0 of 44.
    assert [(rows[s]["nbgrader total"], rows[s]["nbgrader %"]) for s in ("ada", "bo", "cy")] == [
        ("44 / 44", "100%"), ("21.2 / 44", "48%"), ("0 / 44", "0%")]
    assert "nbgrader's counts the visible tests it grades too" in unescape(html)
    summary = {row["assignment"]: row for row in table_rows(html, "assignments")}
    assert summary["ps4-mines (hypermines)"]["out of"] == "24"
    own_page = (hypermines / "report.html").read_text()
    students = {row["student"]: row for row in table_rows(own_page, "students")}
    assert students["ada"]["late by"] == "10 min, within the grace" and students["bo"]["late by"] == "1 day 1 h"
    assert students["bo"]["nbgrader"] == "21.2 / 44" and students["cy"]["nbgrader"] == "—"
    assert "Batch report: ps4-mines (hypermines)" in own_page and "out of 24 points" in own_page
    text = terminal_summary(summarize(read_batch(hypermines)))
    assert "submission(s) of ps4-mines (hypermines)" in text and "Late: 1 " in text
