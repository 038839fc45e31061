"""Nothing under a student's folder is configuration.

``submitted/mallory/`` of an nbgrader course holds what a course root holds: an empty-looking
``submitted/`` with a fake classmate in it, an ``nbgrader_config.py`` that would run her code as the
grader, a ``course.toml`` that gives the assignment 1000 points and a ``.batch.json``. Graded the
documented ways (her folder named on the command line, the whole course, and from inside her
folder), as root and as the unprivileged user side by side, none of it is read or run: the
instructor's configuration is the one loaded, the scale is the kit's, and her classmate does not
exist.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from autograder.report import student_dir
from redteam_harness import MODES, finish, grade, readable

#: hypermines is out of 20 without a course file (README, autograder list).
POINTS = 20


def _course(top: Path, marker: str) -> Path:
    """A course of the instructor's (no course.toml of its own) whose submitted/mallory holds a
    course's files, each of which leaves a trace if it is ever read or run."""
    course = top / "course"
    (course / "submitted").mkdir(parents=True)
    (course / "nbgrader_config.py").write_text(
        f"open({str(top / 'instructor-config-ran')!r}, 'w').write('ran')\nc = get_config()\n"
    )
    mallory = course / "submitted" / "mallory"
    (mallory / "hypermines").mkdir(parents=True)
    (mallory / "hypermines" / "lab.py").write_text("x = 1\n")
    (mallory / "hypermines" / "timestamp.txt").write_text("2026-11-20 10:00:00 UTC\n")
    (mallory / "nbgrader_config.py").write_text(
        f"open({str(top / f'{marker}-config-ran')!r}, 'w').write('ran')\nc = get_config()\n"
    )
    (mallory / "course.toml").write_text(
        '[assignments.hypermines]\nname = "hypermines"\npoints = 1000\nseed = 666\n'
    )
    (mallory / ".batch.json").write_text(json.dumps({"seed": 666, "settings": {"points": 1000}}))
    fake = mallory / "submitted" / "alice" / "hypermines"
    fake.mkdir(parents=True)
    (fake / "lab.py").write_text("x = 2\n")
    (fake / "timestamp.txt").write_text("2026-11-20 10:00:00 UTC\n")
    readable(top)
    os.chmod(top, 0o777)  # the unprivileged run's configuration leaves its trace here too
    return course


@pytest.mark.parametrize("given", ["student-folder", "course", "from-inside"])
def test_nothing_in_a_students_folder_is_read_as_the_courses_settings(stage, given):
    tops = {mode: stage.base / f"configuration-{given}-{mode}" for mode in MODES}
    courses = {mode: _course(top, stage.markers[mode]) for mode, top in tops.items()}
    processes = {}
    for mode, course in courses.items():
        mallory = course / "submitted" / "mallory"
        argument = {"student-folder": mallory, "course": course, "from-inside": Path(".")}[given]
        cwd = mallory if given == "from-inside" else None
        processes[mode] = grade(stage, mode, [argument], tops[mode] / "results", cwd=cwd)
    runs = finish(processes)
    for mode, top in tops.items():
        run, results = runs[mode], top / "results"
        said = run.stdout + run.stderr
        # no gradebook.db in this course: the grade is written, the gradebook is not (exit 4)
        assert run.returncode == 4, (mode, said[-3000:])
        assert "there is no gradebook" in run.stderr, (mode, run.stderr[-2000:])
        assert (top / "instructor-config-ran").exists(), "the course's own nbgrader_config.py is read"
        assert not (top / f"{stage.markers[mode]}-config-ran").exists(), "the student's config ran"
        assert "course settings from" not in run.stderr, (mode, run.stderr[-2000:])
        written = json.loads((student_dir(results, "mallory") / "results.json").read_text(encoding="utf-8"))
        assert written["score"] == 0
        assert sum(test["max_score"] for test in written["tests"]) == pytest.approx(POINTS), written["tests"]
        graded = sorted(p.name for p in (results / "students").iterdir())
        assert graded == ["mallory"], (mode, graded)
        if given == "from-inside":
            assert "is in a student's folder" in run.stderr, run.stderr[-2000:]
