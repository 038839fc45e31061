"""What students hand in beside their code is data: dates, names and sizes never stop a batch,
never reach the instructor's terminal as instructions, and never take the grader's memory.

* ``timestamp.txt`` holding a date that cannot be put in UTC (``0001-01-01T00:00:00+14:00`` once
  raised ``OverflowError`` and stopped the batch: every other student ungraded, no CSV), a date in
  the far future, or no date at all: each is read as "no timestamp", with a warning naming the
  student, through ``autograder grade`` and through Gradescope's entry point;
* folder names and printed text carrying terminal escape sequences (clear screen, a window title,
  an OSC 8 link, a fake line) reach the terminal escaped;
* a 20 MB ``lab.py`` of short lines is refused before it is parsed, and the grader's own memory stays
  bounded.
"""

from __future__ import annotations

import csv
import json
import os
import re
import subprocess
import sys
import zipfile
from pathlib import Path

from autograder.report import student_dir
from redteam_harness import GraderWatch

AUTOGRADER = [sys.executable, "-m", "autograder.cli"]
BAD_DATES = {
    "before-year-one": "0001-01-01T00:00:00+14:00",
    "far-future": "9999-12-31 23:59:59 UTC",
    "not-a-date": "yesterday, around noon",
}
COURSE = """
[assignments.hypermines]
due = 2026-11-01T00:00:00Z
[assignments.hypermines.late]
penalty_per_day = 0.10
"""


def _grade(args: list[str], cwd: Path, timeout: int = 900) -> subprocess.CompletedProcess:
    return subprocess.run(AUTOGRADER + args, capture_output=True, text=True, timeout=timeout, cwd=cwd)


def test_a_bad_timestamp_is_no_timestamp_and_never_stops_the_batch(tmp_path):
    submitted = tmp_path / "submitted"
    for student, stamp in {"alice": "2026-11-03 10:00:00 UTC", **BAD_DATES}.items():
        folder = submitted / student / "hypermines"  # nbgrader's layout: the stamp is the assignment folder's
        folder.mkdir(parents=True)
        (folder / "lab.py").write_text("x = 1\n")
        (folder / "timestamp.txt").write_text(stamp + "\n")
    (tmp_path / "course.toml").write_text(COURSE)
    results, gradebook = tmp_path / "results", tmp_path / "grades.csv"
    done = _grade(["grade", "--assignment", "hypermines", str(submitted), "--results-dir", str(results),
                   "--csv", str(gradebook), "--no-progress", "-j", "2", "--seed", "3"], tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    rows = {row["student"]: row for row in csv.DictReader(gradebook.open(encoding="utf-8"))}
    assert set(rows) == {"alice", *BAD_DATES}
    assert all(row["status"] == "graded" for row in rows.values()), rows
    for student in BAD_DATES:
        assert re.search(rf"warning: {student}: timestamp\.txt holds .*: read as no timestamp", done.stderr), \
            done.stderr
        written = json.loads((student_dir(results, student) / "results.json").read_text(encoding="utf-8"))
        assert "Lateness was not counted: timestamp.txt holds" in written["output"], written["output"]
        assert rows[student]["submitted_at"] == "" and float(rows[student]["late_by"] or 0) == 0, rows[student]
    assert rows["alice"]["submitted_at"].startswith("2026-11-03T10:00:00"), rows["alice"]


def test_a_bad_timestamp_on_gradescope_is_no_timestamp(tmp_path):
    """Gradescope's entry point reads the same file through the same code: a results.json is
    written, the run succeeds."""
    from autograder.gradescope import export

    archive = export("hypermines", tmp_path / "autograder.zip")
    root = tmp_path / "gs"
    zipfile.ZipFile(archive).extractall(root / "source")
    (root / "submission").mkdir()
    (root / "submission" / "lab.py").write_text("x = 1\n")
    (root / "submission" / "timestamp.txt").write_text(BAD_DATES["before-year-one"])
    (root / "results").mkdir()
    env = {"PATH": f"{Path(sys.executable).parent}:/usr/bin:/bin", "AUTOGRADER_ROOT": str(root),
           "AUTOGRADER_PYTHON": sys.executable, "HOME": str(tmp_path)}
    done = subprocess.run(["bash", str(root / "source" / "run_autograder")], capture_output=True, text=True,
                          env=env, timeout=600, cwd=tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    written = json.loads((root / "results" / "results.json").read_text(encoding="utf-8"))
    assert written["score"] == 0 and "timestamp.txt holds" in written["output"], written["output"]


# ---------------------------------------------------------------------------- the terminal
#: What a terminal acts on: ESC (CSI, OSC, the rest), BEL, the C1 controls, a lone carriage return.
_INSTRUCTIONS = re.compile("[\x1b\x07\x80-\x9f\u202e]|\r(?!\n)")
ESCAPES = "\x1b[2J\x1b[H\x1b]0;owned\x07\x1b]8;;http://evil.example/\x1b\\link\x1b]8;;\x1b\\\r0 NOT GRADED\u202e"


def test_escape_sequences_reach_the_terminal_as_text(tmp_path):
    """Two students whose folder names collide once made safe (so the collision warning names both),
    each name full of escape sequences, one of them printing more: nothing the terminal would act
    on reaches stdout or stderr, and the names are there, escaped."""
    submitted = tmp_path / "submitted"
    for name in ("eve" + ESCAPES, "eve" + ESCAPES.replace("owned", "OWNED")):
        folder = submitted / name
        folder.mkdir(parents=True)
        (folder / "lab.py").write_text(f"print({ESCAPES!r})\nx = 1\n")
    done = _grade(["grade", "--assignment", "hypermines", str(submitted), "--results-dir", str(tmp_path / "results"),
                   "--no-progress", "-j", "1", "--seed", "3"], tmp_path)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    said = done.stdout + done.stderr
    assert "would share the results folder" in done.stderr, done.stderr[-2000:]
    assert not _INSTRUCTIONS.search(said), repr(_INSTRUCTIONS.search(said))
    assert "\\x1b[2J" in said or "\\x1b]0;owned" in said, said[-2000:]


# ---------------------------------------------------------------------------- sizes
def test_a_huge_submission_is_refused_before_parsing_and_the_grader_stays_small(tmp_path):
    """20 MB of one-line statements: refused by its size, with the limit named, before any parser
    sees it; the grader's own processes stay under 400 MB (their size with nothing to parse is
    about 100 MB)."""
    folder = tmp_path / "submitted" / "mallory"
    folder.mkdir(parents=True)
    line = "x = 1\n"
    (folder / "lab.py").write_text(line * (20 * 1024 * 1024 // len(line)))
    watch = GraderWatch(os.getpid(), include_root=False, only_new=True)  # not servers other tests started
    done = _grade(["grade", "--assignment", "hypermines", str(folder.parent), "--results-dir", str(tmp_path / "results"),
                   "--no-progress", "-j", "1", "--seed", "3"], tmp_path)
    peak, _ = watch.stop()
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    written = json.loads((student_dir(tmp_path / "results", "mallory") / "results.json").read_text())
    assert written["score"] == 0 and "is too large to grade" in written["output"], written["output"]
    assert peak < 400, f"a grader process reached {peak:.0f} MB"
