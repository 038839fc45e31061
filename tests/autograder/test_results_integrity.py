"""Results cannot be forged or silently kept, are never written through a planted link, and
what a student's code printed cannot pass for the grader's own words.

A resumed batch keeps a student's earlier result only when ``grader.json`` carries a valid
HMAC (keyed with the results folder's private ``.grader-key``) over the report, the written
files, the assignment and the graded file's name and SHA-256.
"""

from __future__ import annotations

import json
import stat
from pathlib import Path

import pytest

from autograder.batch import grade_batch
from autograder.grading import NOT_LOADED, GradeReport
from autograder.grading import TestOutcome as Outcome
from autograder.report import (
    KEY_FILE, feedback_text, gradescope_results, grader_key, read_student, student_dir, write_student,
)

SOURCE = {"source_name": "lab.py", "source_sha256": "ab" * 32}
STUB = "class HyperMinesGame:\n    pass\n"  # loads, defines the class, passes no test


def report(student: str = "alice", score: float = 1.0, problem: str | None = None, stdout: str = "",
           outputs: tuple[str, str] = ("passed", "render() is wrong: at [0][1]: expected ' ', got '0'")) -> GradeReport:
    tests = [Outcome("dig reveals a cell", 1.0, id="test_dig", score=1.0 if outputs[0] == "passed" else 0.0,
                         status="passed" if outputs[0] == "passed" else "failed", output=outputs[0]),
             Outcome("render shows the board", 2.0, id="test_render", output=outputs[1])]
    return GradeReport(student, "hypermines", score, 3.0, 1.25, 7, tests, "Graded file lab.py.", problem,
                       stdout=stdout)


def test_a_result_is_kept_only_for_the_same_assignment_student_and_source(tmp_path):
    written = report()
    folder = write_student(written, tmp_path, **SOURCE)
    assert folder == student_dir(tmp_path, "alice") == tmp_path / "students" / "alice"
    kept = read_student(tmp_path, "alice", "hypermines", **SOURCE)
    assert kept is not None and kept.to_dict() == written.to_dict()
    assert read_student(tmp_path, "alice", "hypermines", source_name="lab.py", source_sha256="cd" * 32) is None
    assert read_student(tmp_path, "alice", "hypermines", source_name="lab2.py", source_sha256="ab" * 32) is None
    assert read_student(tmp_path, "alice", "neighbors", **SOURCE) is None
    stamp = json.loads((folder / "grader.json").read_text())
    assert stamp["source"] == {"name": "lab.py", "sha256": "ab" * 32} and len(stamp["mac"]) == 64


def test_the_key_is_private_and_made_once(tmp_path):
    write_student(report(), tmp_path, **SOURCE)
    key_file = tmp_path / KEY_FILE
    assert stat.S_IMODE(key_file.stat().st_mode) == 0o600
    first = key_file.read_bytes()
    assert len(first) == 65 and first.endswith(b"\n")
    write_student(report("bob"), tmp_path, **SOURCE)
    assert key_file.read_bytes() == first
    assert grader_key(tmp_path) == bytes.fromhex(first.decode().strip())


def _forge_results(folder: Path) -> None:
    data = json.loads((folder / "results.json").read_text())
    data["score"] = 3.0
    for test in data["tests"]:
        test["score"], test["status"] = test["max_score"], "passed"
    (folder / "results.json").write_text(json.dumps(data, indent=2) + "\n")


def _forge_record(folder: Path) -> None:
    data = json.loads((folder / ".report.json").read_text())
    data["score"] = 3.0
    (folder / ".report.json").write_text(json.dumps(data) + "\n")


def _forge_feedback(folder: Path) -> None:
    (folder / "feedback.txt").write_text("Score: 3 / 3\n")


def _forge_mac(folder: Path) -> None:
    data = json.loads((folder / "grader.json").read_text())
    data["mac"] = "0" * 64
    (folder / "grader.json").write_text(json.dumps(data))


def _drop_stamp(folder: Path) -> None:
    (folder / "grader.json").unlink()


def _new_key(folder: Path) -> None:
    (folder.parent.parent / KEY_FILE).write_text("1" * 64 + "\n")


def _stamp_of_another_student(folder: Path) -> None:
    for name in ("grader.json", ".report.json", "results.json", "feedback.txt"):
        (folder / name).write_bytes((folder.parent / "bob" / name).read_bytes())


def _record_through_a_link(folder: Path) -> None:
    copy = folder.parent / "record-copy.json"
    copy.write_bytes((folder / ".report.json").read_bytes())
    (folder / ".report.json").unlink()
    (folder / ".report.json").symlink_to(copy)


@pytest.mark.parametrize("tamper", [_forge_results, _forge_record, _forge_feedback, _forge_mac, _drop_stamp,
                                    _new_key, _stamp_of_another_student, _record_through_a_link])
def test_an_edited_results_folder_is_not_trusted(tmp_path, tamper):
    write_student(report(), tmp_path, **SOURCE)
    write_student(report("bob", score=3.0, outputs=("passed", "passed")), tmp_path, **SOURCE)
    assert read_student(tmp_path, "alice", "hypermines", **SOURCE) is not None
    tamper(student_dir(tmp_path, "alice"))
    assert read_student(tmp_path, "alice", "hypermines", **SOURCE) is None


def test_nothing_is_written_through_a_planted_link(tmp_path):
    results, outside = tmp_path / "results", tmp_path / "outside"
    outside.mkdir()
    (outside / "target.txt").write_text("untouched\n")
    (outside / "folder").mkdir()
    student_dir(results, "alice").mkdir(parents=True)
    (student_dir(results, "alice") / "results.json").symlink_to(outside / "target.txt")
    (student_dir(results, "alice") / "feedback.txt").symlink_to(outside / "feedback.txt")  # a dangling link
    student_dir(results, "bob").symlink_to(outside / "folder")
    write_student(report("alice"), results, **SOURCE)
    write_student(report("bob"), results, **SOURCE)
    assert (outside / "target.txt").read_text() == "untouched\n"
    assert sorted(p.name for p in outside.iterdir()) == ["folder", "target.txt"]
    assert list((outside / "folder").iterdir()) == []
    for student in ("alice", "bob"):
        folder = student_dir(results, student)
        assert not folder.is_symlink() and folder.is_dir()
        for name in ("results.json", "feedback.txt", ".report.json", "grader.json"):
            assert not (folder / name).is_symlink() and (folder / name).is_file(), (student, name)
        assert json.loads((folder / "results.json").read_text())["score"] == 1.0
        assert sorted(p.name for p in folder.iterdir()) == [".report.json", "feedback.txt", "grader.json",
                                                            "results.json"]  # no temporary file left


def test_a_planted_key_link_stops_the_grader(tmp_path):
    (tmp_path / "elsewhere").write_text("not a key\n")
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / KEY_FILE).symlink_to(tmp_path / "elsewhere")
    with pytest.raises(ValueError, match=r"\.grader-key is not a key this grader made"):
        write_student(report(), tmp_path / "results", **SOURCE)
    assert (tmp_path / "elsewhere").read_text() == "not a key\n"
    assert not student_dir(tmp_path / "results", "alice").exists()


# ---------------------------------------------------------------------- feedback
def test_what_the_code_printed_cannot_pass_for_the_grader():
    printed = ("[PASS] dig reveals a cell             1/1\n"
               "[PASS] render shows the board         2/2\n"
               "Score: 3 / 3\rScore: 3 / 3\n"
               "\x1b[1A\x1b[2KAll tests passed\u202e\n")
    text = feedback_text(report(stdout=printed))
    lines = text.splitlines()
    start = lines.index("Your code printed (shown as it is; not the grader's words):")
    end = lines.index("(end of what your code printed)")
    assert lines[start + 1:end] == ["| [PASS] dig reveals a cell             1/1",
                                    "| [PASS] render shows the board         2/2",
                                    "| Score: 3 / 3\\x0dScore: 3 / 3",
                                    "| \\x1b[1A\\x1b[2KAll tests passed\\u202e"]
    assert [line for line in lines if line.startswith("Score:")] == ["Score: 1 / 3"]
    assert [line for line in lines if line.startswith("[PASS]")] == ["[PASS] dig reveals a cell      1/1"]
    assert "\r" not in text and "\x1b" not in text and "\u202e" not in text


def test_long_printouts_say_they_were_cut():
    lines = feedback_text(report(stdout="x" * 5000)).splitlines()
    assert lines[-2:] == ["| " + "x" * 4000, "(end of what your code printed; only its first 4000 characters are shown)"]


def test_student_text_in_test_messages_and_gradescope_output_is_escaped():
    sneaky = report(outputs=("passed", "your code raised ValueError: \r[PASS] render shows the board 2/2\x1b[0m"))
    text = feedback_text(sneaky)
    assert "       your code raised ValueError: \\x0d[PASS] render shows the board 2/2\\x1b[0m" in text.splitlines()
    output = gradescope_results(sneaky)["tests"][1]["output"]
    assert output == "your code raised ValueError: \\x0d[PASS] render shows the board 2/2\\x1b[0m"


def test_a_submission_that_did_not_load_says_so_once_at_the_top():
    problem = "the notebook could not be read (corrupt .ipynb?): Expecting value: line 1 column 1 (char 0)"
    failed = report(score=0.0, problem=problem, outputs=(f"not graded: {problem}", f"not graded: {problem}"))
    lines = feedback_text(failed).splitlines()
    assert lines[:4] == ["Assignment hypermines - alice", "Score: 0 / 3", "",
                         f"Your code did not load: {problem}"]
    assert sum(problem in line for line in lines) == 1
    assert lines.index(f"Your code did not load: {problem}") < lines.index(
        "[FAIL] dig reveals a cell      0/1")
    assert lines[-2:] == ["[FAIL] dig reveals a cell      0/1", "[FAIL] render shows the board  0/2"]
    loading = "the submission could not be loaded: SyntaxError: invalid syntax (cell 2, line 4)"
    unloaded = feedback_text(report(score=0.0, problem=loading, outputs=(NOT_LOADED, NOT_LOADED))).splitlines()
    assert unloaded[3] == f"Your code did not load: {loading}"
    assert NOT_LOADED not in "\n".join(unloaded)


# ---------------------------------------------------------------------- resuming a real batch
def _run(submissions: Path, results: Path):
    batch = grade_batch("hypermines", [submissions], results, jobs=1, seed=3, progress=False,
                        time_limit=60, test_time_limit=10)
    return batch, {r.student: r for r in batch.reports}


def test_a_forged_full_mark_result_is_graded_again(tmp_path):
    """A hand-written 20/20 (results.json and the grader's record both edited) for a submission
    that earns 0/20 is not kept: the next run grades it again and writes 0."""
    submissions, results = tmp_path / "submitted", tmp_path / "results"
    (submissions / "mallory").mkdir(parents=True)
    (submissions / "mallory" / "lab.py").write_text(STUB)
    first, reports = _run(submissions, results)
    assert first.graded == ["mallory"] and reports["mallory"].score == 0 and reports["mallory"].max_score == 20
    folder = student_dir(results, "mallory")
    record = json.loads((folder / ".report.json").read_text())
    record["score"] = 20.0
    for test in record["tests"]:
        test["score"], test["status"], test["output"] = test["max_score"], "passed", "passed"
    (folder / ".report.json").write_text(json.dumps(record) + "\n")
    forged = json.loads((folder / "results.json").read_text())
    forged["score"] = 20.0
    for test in forged["tests"]:
        test["score"], test["status"], test["output"] = test["max_score"], "passed", "passed"
    (folder / "results.json").write_text(json.dumps(forged, indent=2) + "\n")

    again, reports = _run(submissions, results)
    assert again.graded == ["mallory"] and again.skipped == []
    assert reports["mallory"].score == 0
    assert json.loads((folder / "results.json").read_text())["score"] == 0


def test_a_result_without_the_graders_stamp_is_graded_again(tmp_path):
    submissions, results = tmp_path / "submitted", tmp_path / "results"
    (submissions / "mallory").mkdir(parents=True)
    (submissions / "mallory" / "lab.py").write_text(STUB)
    folder = student_dir(results, "mallory")
    folder.mkdir(parents=True)
    forged = report("mallory", score=20.0, outputs=("passed", "passed")).to_dict()
    (folder / ".report.json").write_text(json.dumps(forged))
    (folder / "results.json").write_text(json.dumps({"score": 20.0, "tests": []}))
    batch, reports = _run(submissions, results)
    assert batch.graded == ["mallory"] and reports["mallory"].score == 0


def test_a_submission_edited_after_grading_is_graded_again(tmp_path, reference_source):
    submissions, results = tmp_path / "submitted", tmp_path / "results"
    (submissions / "ada").mkdir(parents=True)
    (submissions / "ada" / "lab.py").write_text(STUB)
    first, reports = _run(submissions, results)
    assert first.graded == ["ada"] and reports["ada"].score == 0
    unchanged, reports = _run(submissions, results)
    assert unchanged.graded == [] and unchanged.skipped == ["ada"] and reports["ada"].score == 0
    (submissions / "ada" / "lab.py").write_text(reference_source)
    edited, reports = _run(submissions, results)
    assert edited.graded == ["ada"] and edited.skipped == [] and reports["ada"].score == 20


def test_gradebook_cells_cannot_start_a_spreadsheet_formula(tmp_path):
    import csv

    from autograder.grading import GradeReport
    from autograder.report import write_csv

    reports = [GradeReport(student=name, assignment="hypermines", score=0.0, max_score=20.0, execution_time=0.1,
                           seed=1, problem=problem)
               for name, problem in (("=HYPERLINK(1)", "@SUM(A1)"), ("plain", None))]
    write_csv(reports, tmp_path / "grades.csv")
    rows = list(csv.reader((tmp_path / "grades.csv").open()))
    assert [row[0] for row in rows[1:]] == ["'=HYPERLINK(1)", "plain"]
    assert rows[1][6] == "'@SUM(A1)"


# ---------------------------------------------------------------------- the results folder's layout and modes
GRADERS_NAMES = ["report.html", ".grader-key", ".batch.json", "students", "class-report.html", "grades.csv"]


def modes(root: Path) -> dict[str, int]:
    """The mode of everything below ``root`` (``root`` itself as "."), by relative path."""
    found = {".": stat.S_IMODE(root.lstat().st_mode)}
    for path in sorted(root.rglob("*")):
        assert not path.is_symlink(), path
        found[str(path.relative_to(root))] = stat.S_IMODE(path.lstat().st_mode)
    return found


def assert_modes(root: Path, folder: int, file: int, top: int | None = None) -> None:
    for name, mode in modes(root).items():
        path = root / name
        if name == ".":
            expected = folder if top is None else top
        elif name == KEY_FILE:
            expected = 0o600  # the key is never the group's
        else:
            expected = folder if path.is_dir() else file
        assert mode == expected, (name, oct(mode), oct(expected))


def not_submitted_batch(tmp_path: Path, results: Path, **options):
    """A batch of students with nothing handed in: every file the grader writes, no sandbox."""
    submitted = tmp_path / "submitted"
    for student in ("ada", "bo"):
        (submitted / student).mkdir(parents=True, exist_ok=True)
    return grade_batch("hypermines", [submitted], results, csv_path=results / "grades.csv", progress=False, **options)


def test_results_are_readable_by_their_owner_only(tmp_path):
    from autograder.batch_report import write_report

    results = tmp_path / "made" / "results"
    not_submitted_batch(tmp_path, results)
    write_report(results)
    assert {".batch.json", "grades.csv", "report.html", KEY_FILE, "students"} <= set(modes(results))
    assert_modes(results, 0o700, 0o600)  # the results folder too: the grader made it
    assert stat.S_IMODE((tmp_path / "made").stat().st_mode) != 0o700  # the folders above: the usual modes


def test_group_readable_results_and_a_folder_that_was_there(tmp_path):
    from autograder.batch_report import write_report

    results = tmp_path / "results"
    results.mkdir()
    results.chmod(0o755)  # the instructor's own folder keeps its mode
    not_submitted_batch(tmp_path, results, group_readable=True)
    write_report(results)
    assert_modes(results, 0o750, 0o640, top=0o755)
    # A run without the option makes everything private again, the results kept from before too.
    again = not_submitted_batch(tmp_path, results)
    assert again.graded == [] and len(again.reports) == 2
    assert_modes(results, 0o700, 0o600, top=0o755)


def test_a_results_folder_the_grader_made_follows_the_option(tmp_path):
    results = tmp_path / "results"
    not_submitted_batch(tmp_path, results)
    assert stat.S_IMODE(results.stat().st_mode) == 0o700
    not_submitted_batch(tmp_path, results, group_readable=True)
    assert_modes(results, 0o750, 0o640)


@pytest.mark.parametrize("name", GRADERS_NAMES)
def test_no_student_takes_the_name_of_a_graders_file(tmp_path, name):
    """Every student's folder is in students/: a student called report.html, .grader-key,
    .batch.json, students or grades.csv leaves the grader's own files beside it alone."""
    from autograder.batch_report import PAGE, STUDENTS, write_report
    from autograder.report import PAGE as REPORT_PAGE
    from autograder.report import STUDENTS as REPORT_STUDENTS

    assert (PAGE, STUDENTS) == (REPORT_PAGE, REPORT_STUDENTS)
    results = tmp_path / "results"
    write_student(report(name), results, **SOURCE)
    write_student(report("alice"), results, **SOURCE)
    assert student_dir(results, name).parent == results / "students"
    assert read_student(results, name, "hypermines", **SOURCE) is not None
    page, summary = write_report(results)
    assert page.is_file() and sorted(s.student for s in summary.students) == sorted(["alice", name])
    assert len(grader_key(results)) == 32
    assert sorted(p.name for p in results.iterdir()) == sorted([KEY_FILE, "report.html", "students"])


def test_a_link_in_place_of_the_students_folder_is_replaced(tmp_path):
    results, outside = tmp_path / "results", tmp_path / "outside"
    outside.mkdir()
    results.mkdir()
    (results / "students").symlink_to(outside)
    write_student(report(), results, **SOURCE)
    assert list(outside.iterdir()) == []
    assert not (results / "students").is_symlink() and read_student(results, "alice", "hypermines", **SOURCE)


def test_an_older_results_folder_is_named_as_such(tmp_path):
    """A results folder an older version wrote (<student>/ beside the grader's files) is not read:
    it is graded again, and `autograder report` says so."""
    from autograder.batch_report import read_batch

    write_student(report(), tmp_path, **SOURCE)
    (tmp_path / "students" / "alice").rename(tmp_path / "alice")
    with pytest.raises(ValueError, match="an older version of the grader wrote it: grade again"):
        read_batch(tmp_path)
    assert read_student(tmp_path, "alice", "hypermines", **SOURCE) is None
