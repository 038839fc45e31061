"""Helpers shared by the autograder tests (a uniquely named module, imported by name)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

CHILD_MARK = "/sandbox/runtime/child.py"
from minesweeper_kit.sandbox.isolation import UID_BASE, UID_SLOTS  # noqa: E402

#: A course's settings that leave out the grading of the students' own tests. That grading runs a
#: submission's tests against every wheat and chaff of its step, in a sandbox each: 4 to 8 s of CPU
#: a submission, for a row worth no points unless a course gives it some. Tests about something else
#: (a cluster, the agreement with nbgrader's totals, a misread rule, the hidden suites' strength,
#: the misconception line) grade without it; the own tests are graded where they are the subject
#: (test_own_tests.py, test_planted_bugs.py, the clone's check on the course's scale).
NO_OWN_TESTS = {"own_tests": False}


def course_without_own_tests(*assignments: str):
    """The in-process form (``grade_batch(course=...)``) of a course without own-tests grading."""
    from autograder.course import Course

    return Course(None, {assignment: dict(NO_OWN_TESTS) for assignment in assignments})


def grade_in_process(assignment: str, sources: dict[str, str], folder: Path, settings: dict | None = None,
                     seed: int = 7) -> dict:
    """Named sources of the kit's own (references, chaffs, wheats, files written by the tests), each
    graded on the hidden suite alone, one after the other in one process, with the suite's box in
    that process too (isolation "in-process", ``minesweeper_kit/sandbox/inprocess.py``): for tests
    that measure a hidden suite, whose verdicts are those of a sandbox (tests/autograder/
    test_inprocess_box.py), without a sandbox and a batch's workers for each. Trusted code only. The
    reports as a batch finishes them, by name.

    The process is a plain interpreter started for the purpose, not the test run's own: CPython
    3.11 maps and unmaps a chunk of its frame stack at every call that crosses a chunk's edge, so
    deep recursions such as the N-D games cost what the depth of the stack beneath them makes them
    cost. Under a pytest-xdist worker the hypermines chaffs took 61 s of CPU time (27 s of it the
    kernel's); in a plain interpreter they take 34 s, as in ``autograder grade``'s own child."""
    folder.mkdir(parents=True, exist_ok=True)
    for name, source in sources.items():
        (folder / f"{name}.py").write_text(source)
    request = {"assignment": assignment, "names": list(sources), "folder": str(folder),
               "settings": settings or None, "seed": seed}
    answer = folder / "in-process-reports.json"
    done = subprocess.run([sys.executable, __file__, json.dumps(request), str(answer)],
                          capture_output=True, text=True, timeout=1800)
    assert done.returncode == 0, f"the in-process grading failed:\n{done.stdout[-3000:]}\n{done.stderr[-5000:]}"
    from autograder.grading import GradeReport

    return {name: GradeReport.from_dict(data) for name, data in json.loads(answer.read_text()).items()}


def _grade_here(assignment: str, names: list[str], folder: str, settings: dict | None, seed: int) -> dict:
    """`grade_in_process`'s work, in the interpreter it starts: the reports as plain data."""
    from autograder.assignments import get_assignment
    from autograder.batch import finish_report
    from autograder.course import apply_settings
    from autograder.grading import grade_submission
    from autograder.submission import read_submission
    from minesweeper_kit.sandbox.inprocess import IN_PROCESS

    graded = apply_settings(get_assignment(assignment), dict(NO_OWN_TESTS))
    reports = {}
    for name in names:
        submission = read_submission(name, Path(folder) / f"{name}.py", graded.keeps_import, graded.course_cells())
        report = grade_submission(graded, submission, seed=seed, settings=settings, isolation=IN_PROCESS)
        reports[name] = finish_report(report, graded, None).to_dict()
    return reports


def course_file_without_own_tests(folder: Path, *assignments: str) -> Path:
    """The same as a course file for the command line (``--course``)."""
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "course.toml"
    path.write_text("".join(f"[assignments.{assignment}]\nown_tests = false\n" for assignment in assignments))
    return path


def _tagged(entry: Path) -> bool:
    """Whether a process carries this test session's sandbox tag (see tests/autograder/grader_fixtures.py);
    other sandboxes on the machine (another grader, another test run) are not this session's."""
    tag = os.environ.get("MINESWEEPER_SANDBOX_TAG")
    if not tag:
        return True
    try:
        return f"MINESWEEPER_SANDBOX_TAG={tag}".encode() in (entry / "environ").read_bytes().split(b"\0")
    except OSError:
        return True


def sandbox_processes() -> list[str]:
    """Command lines of every live sandbox process (bubblewrap or the child) of this test session."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            uid = int(next(line.split()[1] for line in (entry / "status").read_text().splitlines()
                           if line.startswith("Uid:")))
            state = next(line.split()[1] for line in (entry / "status").read_text().splitlines()
                         if line.startswith("State:"))
        except (OSError, StopIteration, ValueError):
            continue
        if state == "Z":
            continue
        if (CHILD_MARK in cmdline or UID_BASE <= uid < UID_BASE + UID_SLOTS) and _tagged(entry):
            found.append(f"{entry.name}: {cmdline[:120]}")
    return found


def survivors_after(before: set[str], wait: float = 5.0) -> list[str]:
    """Sandbox processes not in ``before``, once killed processes have had ``wait`` s to vanish."""
    import time

    deadline = time.monotonic() + wait
    while True:
        left = [p for p in sandbox_processes() if p not in before]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)


def path_without_bwrap(folder: Path) -> str:
    """A PATH (one folder of links) on which every program of this machine is found except bwrap:
    how the tests show a machine without bubblewrap."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            target = os.path.join(directory, name)
            if name != "bwrap" and not (folder / name).exists() and os.access(target, os.X_OK):
                (folder / name).symlink_to(target)
    return str(folder)


if __name__ == "__main__":  # `grade_in_process`'s child: sys.argv holds the request and the answer's path
    _request = json.loads(sys.argv[1])
    Path(sys.argv[2]).write_text(json.dumps(_grade_here(**_request)))
