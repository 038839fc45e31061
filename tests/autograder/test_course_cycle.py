"""A course cycle as an nbgrader instructor runs it: the layout read exactly, course settings as
data (names, points, visibility, late policy, the import rule), answers in cells the student
added, and a batch stopped by Ctrl+C that keeps its work and resumes with its own seed."""

from __future__ import annotations

import csv
import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import nbformat
import pytest

from autograder.assignments import get_assignment
from autograder.course import CourseError, load_course
from autograder.references import reference_submission
from autograder.report import student_dir
from autograder.students import discover
from grader_testkit import course_file_without_own_tests

AUTOGRADER = [sys.executable, "-m", "autograder"]
KIT_IDS = ("make-board", "flood-fill", "hypermines")


def run(*args: str, cwd: Path | None = None) -> subprocess.CompletedProcess:
    return subprocess.run(AUTOGRADER + list(args), capture_output=True, text=True, cwd=cwd, timeout=900)


def make_board_answer() -> str:
    """make-board's model answer as one lab.py: the steps here are about the batch and the course's
    settings, and it grades in a fraction of HyperMines' time."""
    return reference_submission(get_assignment("make-board")).source


def stamp(folder: Path, when: str) -> None:
    """nbgrader's timestamp.txt, in its default format."""
    (folder / "timestamp.txt").write_text(when + " UTC")


# ---------------------------------------------------------------------- the layout, exactly
def make_class(root: Path, students: int = 32, seed: int = 5) -> dict[tuple[str, str], str | None]:
    """A class in nbgrader's layout, with what each student handed in for each assignment drawn
    at random: the release's notebook, a renamed one, a .py, two notebooks, an empty folder, or
    nothing. Returns the file that must be graded for (student, kit id), relative to the
    student's folder (None: not submitted)."""
    rng = random.Random(seed)
    expected: dict[tuple[str, str], str | None] = {}
    for number in range(1, students + 1):
        student = root / "submitted" / f"student{number:02d}"
        student.mkdir(parents=True)
        for kit_id in KIT_IDS:
            assignment = get_assignment(kit_id)
            folder = student / assignment.folder
            kind = rng.choice(["release", "release", "release", "renamed", "py", "two", "empty", "none"])
            if kind == "none":
                expected[(student.name, kit_id)] = None
                continue
            folder.mkdir()
            stamp(folder, "2026-11-20 10:00:00.000000")
            release = assignment.handed_in
            if kind == "release":
                (folder / release).write_text("{}")
                # the student's other files sit beside it: another step's notebook never counts
                (folder / "02-make-board.ipynb" if kit_id != "make-board" else folder / "notes.py").write_text("")
                expected[(student.name, kit_id)] = f"{assignment.folder}/{release}"
            elif kind == "renamed":
                (folder / release.replace(".ipynb", "-v2.ipynb")).write_text("{}")
                expected[(student.name, kit_id)] = f"{assignment.folder}/{release.replace('.ipynb', '-v2.ipynb')}"
            elif kind == "py":
                (folder / "answer.py").write_text("")
                expected[(student.name, kit_id)] = f"{assignment.folder}/answer.py"
            elif kind == "two":
                (folder / "a.ipynb").write_text("{}")
                (folder / "b.ipynb").write_text("{}")
                expected[(student.name, kit_id)] = None
            else:
                expected[(student.name, kit_id)] = None
    return expected


def test_a_class_in_nbgrader_layout_is_read_exactly(tmp_path):
    """32 students, three assignments: each assignment's folder alone is read, with the release's
    notebook first, else the single other notebook or .py (with a note); a missing folder, an empty
    one or an ambiguous one is not submitted; the course root, submitted/ and one student's folder
    give the same answer."""
    (tmp_path / "nbgrader_config.py").write_text("c = get_config()\n")
    expected = make_class(tmp_path)
    for kit_id in KIT_IDS:
        layout = get_assignment(kit_id).layout()
        for argument in (tmp_path, tmp_path / "submitted"):
            found = {entry.student: entry for entry in discover([argument], layout)}
            assert len(found) == 32
            for student, entry in found.items():
                want = expected[(student, kit_id)]
                if want is None:
                    assert entry.file is None and entry.missing, (kit_id, student, entry)
                    continue
                assert entry.relative == want, (kit_id, student, entry)
                assert entry.timestamp == "2026-11-20 10:00:00.000000 UTC"
                taken = Path(want).name
                assert (entry.note == "") == (taken == get_assignment(kit_id).handed_in), entry
                if entry.note:
                    assert taken in entry.note
        # one student's folder is one student, never one "student" per assignment folder
        alone = discover([tmp_path / "submitted" / "student07"], layout)
        assert [entry.student for entry in alone] == ["student07"]
        want = expected[("student07", kit_id)]
        assert (alone[0].relative or None) == want


def test_a_flat_folder_of_students_still_grades_and_never_takes_another_steps_notebook(tmp_path):
    """Outside nbgrader's layout (a folder per student, files inside), another assignment's
    notebook is never graded for this one, and a student with none of this one's files has
    nothing submitted."""
    (tmp_path / "ada").mkdir()
    (tmp_path / "ada" / "02-make-board.ipynb").write_text("{}")
    (tmp_path / "bo").mkdir()
    (tmp_path / "bo" / "02-make-board.ipynb").write_text("{}")
    (tmp_path / "bo" / "lab.py").write_text("")
    found = {e.student: e for e in discover([tmp_path], get_assignment("hypermines").layout())}
    assert found["ada"].file is None and "nothing was submitted" in found["ada"].missing
    assert found["bo"].relative == "lab.py"
    # a generic name is gradable for any step: a neighbors student's lab.py is graded
    found = {e.student: e for e in discover([tmp_path], get_assignment("neighbors").layout())}
    assert found["bo"].relative == "lab.py" and found["ada"].file is None


def test_not_submitted_is_its_own_status_everywhere(tmp_path):
    """A student who handed in nothing is neither graded nor a 0: status "not submitted" in
    results.json, the CSV and the terminal, with no score and no feedback about functions."""
    submitted = tmp_path / "submitted"
    (submitted / "ada" / "make-board").mkdir(parents=True)
    (submitted / "ada" / "make-board" / "lab.py").write_text(make_board_answer())
    (submitted / "bo" / "hypermines").mkdir(parents=True)
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    settings = course_file_without_own_tests(tmp_path / "settings", "make-board")  # not the subject here
    done = run("grade", "--assignment", "make-board", str(submitted), "--results-dir", str(results),
               "--csv", str(gradebook), "--no-progress", "--seed", "3", "--course", str(settings))
    assert done.returncode == 0, done.stderr
    assert "1 submission(s), mean score 14.00; 1 student(s) submitted nothing" in done.stdout
    data = json.loads((student_dir(results, "bo") / "results.json").read_text())
    assert data["extra_data"]["status"] == "not submitted" and "score" not in data and data["tests"] == []
    feedback = (student_dir(results, "bo") / "feedback.txt").read_text()
    assert "Not submitted" in feedback and "make-board/" in feedback and "define" not in feedback
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    assert rows["bo"]["status"] == "not submitted" and rows["bo"]["score"] == "" and rows["bo"]["percent"] == ""
    assert rows["ada"]["file"] == "make-board/lab.py" and rows["ada"]["score"] == "14"


# ---------------------------------------------------------------------- course settings as data
COURSE = """
due = 2026-11-20T12:00:00Z
[late]
grace_minutes = 30
penalty_per_day = 0.1
max_days = 3

[assignments.make-board]
name = "ps2-boards"
points = 25
visibility = "after_due_date"
"""


def test_course_settings_name_points_visibility_and_lateness(tmp_path):
    """The course's folder name is read, the score is on its scale, every test has its visibility,
    and lateness (from timestamp.txt) costs what the late policy says: nothing inside the grace,
    10% of the points per started day, everything after three days."""
    (tmp_path / "course.toml").write_text(COURSE + "own_tests = false\n")  # the own tests are not the subject
    source = make_board_answer()
    submitted = tmp_path / "submitted"
    times = {
        "ontime": "2026-11-20 11:59:00.000000",
        "grace": "2026-11-20 12:20:00.000000",
        "late": "2026-11-21 22:00:00.000000",  # 1 day 10 h late: two started days
        "toolate": "2026-11-25 12:00:00.000000",
    }
    for student, when in times.items():
        folder = submitted / student / "ps2-boards"
        folder.mkdir(parents=True)
        (folder / "lab.py").write_text(source)
        stamp(folder, when)
    (submitted / "wrongname" / "make-board").mkdir(parents=True)  # the kit's id is not the course's name
    (submitted / "wrongname" / "make-board" / "lab.py").write_text(source)
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    done = run("grade", "--assignment", "make-board", str(submitted), "--results-dir", str(results),
               "--csv", str(gradebook), "--no-progress", "-j", "2", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert f"course settings from {tmp_path / 'course.toml'}" in done.stderr
    scores = {}
    for student in times:
        data = json.loads((student_dir(results, student) / "results.json").read_text())
        assert sum(t["max_score"] for t in data["tests"]) == pytest.approx(25)
        assert {t["visibility"] for t in data["tests"]} == {"after_due_date"}
        scores[student] = (data["score"], data["extra_data"]["penalty"], data["extra_data"]["late_by"])
    assert scores["ontime"] == (25, 0, 0)
    assert scores["grace"][:2] == (25, 0) and scores["grace"][2] == 20 * 60
    assert scores["late"][:2] == (pytest.approx(20), pytest.approx(5))
    assert scores["toolate"][:2] == (0, 25)
    late_feedback = (student_dir(results, "late") / "feedback.txt").read_text()
    assert "Score: 20 / 25" in late_feedback
    assert "Submitted 1 day 10 h after the due date: the late policy took off 5 point(s)." in late_feedback
    wrong = json.loads((student_dir(results, "wrongname") / "results.json").read_text())
    assert wrong["extra_data"]["status"] == "not submitted"
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open())}
    assert rows["late"]["late_by"] == str(34 * 3600) and rows["late"]["penalty"] == "5"
    assert rows["ontime"]["submitted_at"] == "2026-11-20T11:59:00+00:00"


def test_a_disallowed_import_costs_the_file_or_only_the_tests_that_reach_it(tmp_path, reference_source):
    """`import copy` inside render: "refuse" (the default) refuses the file; "lose-tests" costs
    only the tests that call render."""
    source = reference_source.replace(
        '        return _render(self.board, self.mask, xray)',
        "        import copy\n\n        return _render(copy.deepcopy(self.board), self.mask, xray)",
    )
    assert source != reference_source
    (tmp_path / "lab.py").write_text(source)
    scores = {}
    for policy in ("refuse", "lose-tests"):
        (tmp_path / f"{policy}.toml").write_text(f'[assignments.hypermines]\ndisallowed_import = "{policy}"\n')
        results = tmp_path / policy
        done = run("grade", "--assignment", "hypermines", str(tmp_path / "lab.py"), "--results-dir", str(results),
                   "--course", str(tmp_path / f"{policy}.toml"), "--no-progress", "--seed", "2")
        assert done.returncode == 0, done.stderr
        data = json.loads(next(results.glob("students/*/results.json")).read_text())
        scores[policy] = data
    assert scores["refuse"]["score"] == 0 and "import of 'copy' is not allowed" in scores["refuse"]["output"]
    partial = scores["lose-tests"]
    assert 0 < partial["score"] < 20, partial["score"]
    failed = [t for t in partial["tests"] if t["status"] != "passed"]
    assert failed and all("import of 'copy' is not allowed" in t["output"] for t in failed), failed


def test_autograder_check_validates_the_course_file(tmp_path):
    good = tmp_path / "course.toml"
    good.write_text(COURSE)
    done = run("check", "--course", str(good))
    assert done.returncode == 0, done.stderr
    assert "course settings for make-board: course_name = ps2-boards; points = 25" in done.stdout
    for text, words in [
        ('[assignments.hypermines]\npoints = "many"\n', "points must be a number above 0"),
        ("[assignments.hypermine]\n", "unknown assignment(s) 'hypermine'"),
        ("[assignments.hypermines]\nvisibilty = 'hidden'\n", "unknown setting(s) visibilty"),
        ("due = 2026-11-20T12:00:00\n", "due needs a time zone"),
        ("[assignments.bots]\nname = 'x'\n[assignments.hypermines]\nname = 'x'\n", "share the name 'x'"),
        ("[late]\npenalty_per_day = 2\n", "at most 1"),
        ("[assignments.hypermines]\npoints = 12.34567\n", "points has at most 4 decimal places"),
        ("[assignments.bots]\nown_tests_points = 3\n", "the bots step asks for no tests of the students' own"),
        ("[assignments.hypermines\n", "not valid TOML"),
    ]:
        bad = tmp_path / "bad.toml"
        bad.write_text(text)
        done = run("check", "--course", str(bad))
        assert done.returncode == 2 and words in done.stderr and "Traceback" not in done.stderr, (text, done.stderr)
        with pytest.raises(CourseError):
            load_course(bad)
    assert load_course(None).assignment("hypermines") == get_assignment("hypermines")  # defaults: today's


# ---------------------------------------------------------------------- answers outside the answer cell
def test_an_answer_written_in_an_added_cell_is_graded_and_the_feedback_says_where(tmp_path, reference_source):
    """A student left the answer cell as handed out and wrote HyperMinesGame in a new cell below it:
    graded as nbgrader runs the notebook (20/20), and the feedback names the cell it came from."""
    notebook = nbformat.read(get_assignment("hypermines").notebook_path, as_version=4)
    index = next(i for i, c in enumerate(notebook.cells) if c.metadata.get("nbgrader", {}).get("solution"))
    notebook.cells[index].source = "# YOUR CODE HERE\nraise NotImplementedError()"
    added = nbformat.v4.new_code_cell(reference_source)
    notebook.cells.insert(index + 1, added)
    folder = tmp_path / "ada"
    folder.mkdir()
    nbformat.write(notebook, folder / "04-nd-dig.ipynb")
    results = tmp_path / "results"
    settings = course_file_without_own_tests(tmp_path / "settings", "hypermines")  # not the subject here
    done = run("grade", "--assignment", "hypermines", str(folder), "--results-dir", str(results), "--no-progress",
               "--course", str(settings))
    assert done.returncode == 0, done.stderr
    data = json.loads((student_dir(results, "ada") / "results.json").read_text())
    assert data["score"] == 20, data["output"]
    feedback = (student_dir(results, "ada") / "feedback.txt").read_text()
    assert "Graded from cells you added: " in feedback and f"HyperMinesGame (cell {index + 2})" in feedback
    assert "cells marked as solutions and the cells you added" in feedback


# ---------------------------------------------------------------------- interrupts and resumes
def test_ctrl_c_keeps_the_finished_results_and_a_resume_keeps_the_seed(tmp_path):
    """Ctrl+C during a batch: exit 130, no traceback, one line with the count and how to resume,
    the CSV of what is done; a resume uses the recorded seed, a different --seed is refused, and
    --force regrades everyone with the new one."""
    source = make_board_answer()
    # ten, though each grades in under a second: once two are graded, eight are left, seconds of
    # work for the Ctrl+C to land in
    for number in range(10):
        (tmp_path / "subs" / f"s{number}").mkdir(parents=True)
        (tmp_path / "subs" / f"s{number}" / "lab.py").write_text(source)
    settings = str(course_file_without_own_tests(tmp_path / "settings", "make-board"))  # not the subject here
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    command = AUTOGRADER + ["grade", "--assignment", "make-board", str(tmp_path / "subs"), "--results-dir",
                            str(results), "--csv", str(gradebook), "-j", "1", "--no-progress", "--course", settings]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    deadline = time.monotonic() + 600
    while len(list(results.glob("students/*/results.json"))) < 2 and time.monotonic() < deadline:
        time.sleep(0.2)
    assert len(list(results.glob("students/*/results.json"))) >= 2
    asked = time.monotonic()
    os.killpg(process.pid, signal.SIGINT)  # what Ctrl+C in a terminal does: the whole foreground group
    stdout, stderr = process.communicate(timeout=300)
    print(f"stopped {time.monotonic() - asked:.1f} s after Ctrl+C")
    assert process.returncode == 130, stderr
    assert "Traceback" not in stderr and "KeyboardInterrupt" not in stderr
    line = next(l for l in stderr.splitlines() if "stopped by SIGINT" in l)
    seed = json.loads((results / ".batch.json").read_text())["make-board"]["seed"]
    assert f"resumes with seed {seed}" in line and "of 10 submission(s) graded" in line
    rows = list(csv.DictReader(gradebook.open()))
    finished = {folder.parent.name for folder in results.glob("students/*/results.json")}
    assert {row["student"] for row in rows} == finished and all(row["score"] == "14" for row in rows)

    refused = run("grade", "--assignment", "make-board", str(tmp_path / "subs"), "--results-dir", str(results),
                  "--seed", str(seed + 1), "--no-progress", "--course", settings)
    assert refused.returncode == 2 and f"graded with seed {seed}" in refused.stderr and "--force" in refused.stderr
    resumed = run("grade", "--assignment", "make-board", str(tmp_path / "subs"), "--results-dir", str(results),
                  "--csv", str(gradebook), "--no-progress", "-j", "2", "--course", settings)
    assert resumed.returncode == 0, resumed.stderr
    assert f"seed {seed}; graded {10 - len(finished)}, kept {len(finished)}" in resumed.stdout
    assert {row["seed"] for row in csv.DictReader(gradebook.open())} == {str(seed)}
    forced = run("grade", "--assignment", "make-board", str(tmp_path / "subs"), "--results-dir", str(results),
                 "--csv", str(gradebook), "--seed", str(seed + 1), "--force", "--no-progress", "-j", "2",
                 "--course", settings)
    assert forced.returncode == 0, forced.stderr
    assert {row["seed"] for row in csv.DictReader(gradebook.open())} == {str(seed + 1)}


# ---------------------------------------------------------------------- a renamed notebook in an nbgrader course
def test_a_renamed_notebook_is_copied_where_nbgrader_reads_it_and_never_through_a_link(tmp_path, reference_source):
    """In an nbgrader course, a student's only notebook under another name is copied beside it under
    the release's name (nbgrader's autograde skips a notebook it does not know), the original kept,
    and the copy is what is graded, with a note; outside a course, with `--no-gradebook`, or where
    something already has the release's name (a link), nothing is written."""
    from autograder.gradebook import place_for_nbgrader

    course = tmp_path / "course"
    (course / "nbgrader_config.py").parent.mkdir()
    (course / "nbgrader_config.py").write_text("c = get_config()\n")
    folder = course / "submitted" / "ada" / "hypermines"
    folder.mkdir(parents=True)
    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(reference_source)])
    nbformat.write(notebook, folder / "04-nd-dig (1).ipynb")
    layout = get_assignment("hypermines").layout()

    done = run("grade", "--assignment", "hypermines", str(course), "--results-dir", str(tmp_path / "kept"),
               "--no-progress", "--no-gradebook", "--seed", "2")
    assert done.returncode == 0, done.stderr
    assert sorted(p.name for p in folder.iterdir()) == ["04-nd-dig (1).ipynb"], "--no-gradebook: no copy"

    (entry,) = discover([course], layout)
    assert entry.file == folder / "04-nd-dig (1).ipynb"
    placed = place_for_nbgrader(entry, "04-nd-dig.ipynb")
    assert placed.file == folder / "04-nd-dig.ipynb" and placed.student == "ada"
    assert placed.file.read_bytes() == (folder / "04-nd-dig (1).ipynb").read_bytes()
    assert "Your notebook is named 04-nd-dig (1).ipynb; nbgrader grades only 04-nd-dig.ipynb" in placed.note
    assert place_for_nbgrader(placed, "04-nd-dig.ipynb") == placed
    (again,) = discover([course], layout)  # the next run finds the release's name itself
    assert again.file == folder / "04-nd-dig.ipynb" and again.note == ""

    # A link at the release's name is never written through: the student keeps their file, is told.
    (folder / "04-nd-dig.ipynb").unlink()
    target = tmp_path / "instructor-only.ipynb"
    target.write_text("not the student's")
    (folder / "04-nd-dig.ipynb").symlink_to(target)
    refused = place_for_nbgrader(entry, "04-nd-dig.ipynb")
    assert refused.file == entry.file and "could not be saved" in refused.note
    assert target.read_text() == "not the student's"

    # A step handed in as a .py file has no notebook for nbgrader: a notebook is never copied to it.
    assert place_for_nbgrader(entry, "lab.py") == entry

    # Outside an nbgrader course nothing is copied.
    flat = tmp_path / "flat" / "bo"
    flat.mkdir(parents=True)
    nbformat.write(notebook, flat / "mine.ipynb")
    (outside,) = discover([tmp_path / "flat"], layout)
    assert place_for_nbgrader(outside, "04-nd-dig.ipynb") == outside and sorted(flat.iterdir()) == [flat / "mine.ipynb"]

    # Graded through the command line (recording on): the copy is graded, the note in the feedback.
    (folder / "04-nd-dig.ipynb").unlink()
    done = run("grade", "--assignment", "hypermines", str(course), "--results-dir", str(tmp_path / "results"),
               "--no-progress", "--seed", "2")
    assert done.returncode in (0, 4), done.stderr  # 4: the course has no gradebook to record in
    assert (folder / "04-nd-dig.ipynb").read_bytes() == (folder / "04-nd-dig (1).ipynb").read_bytes()
    feedback = (student_dir(tmp_path / "results", "ada") / "feedback.txt").read_text()
    assert "Score: 20 / 20" in feedback and "a copy of it under that name was saved beside it" in feedback
