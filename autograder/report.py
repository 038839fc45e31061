"""What the grader writes: Gradescope ``results.json``, a readable feedback file, a CSV gradebook.

Feedback names each test, its points, for a failure the failing case and its first difference,
and what a passing test has to say (a bot's wins against the judge); when the hidden tests failed
the way one of the step's planted bugs does, one line names the likely misconception and where to
look (``misconceptions.py``). It never shows the hidden tests' code. Instructor-only details (errors on the
grader's side) go to ``grader-log.txt`` beside them, never into the feedback. What the
student's code printed is shown fenced, each line behind ``| ``, and control characters
anywhere in student-made text are shown as escapes, so nothing a submission prints can pass
for the grader's own lines.

A submission the grader failed on (status "not graded", see :mod:`autograder.grading`) gets no
score anywhere: its ``results.json`` has no ``score``, its feedback one plain sentence, its
gradebook row an empty score cell; what went wrong is for the instructor only (``grader-log.txt``
and the command's output).

Each student's files are in a folder of their own, ``RESULTS_DIR/students/<student>/`` (the
name from :func:`autograder.students.folder_name`); a student's name becomes a folder name only
there, so none can take the name of the grader's own files beside ``students/`` (``.grader-key``,
``.batch.json``, ``report.html``, a gradebook CSV written there, a class page).

Each student folder also holds ``grader.json``: the graded file's name and SHA-256, the
SHA-256 of the files written, and an HMAC-SHA256 over those and the report's canonical JSON,
keyed with ``<results>/.grader-key`` (random, mode 0600, made on first use). A resumed batch
keeps a result only when its MAC verifies for the same assignment, student and source file,
so a results folder edited by hand, or a submission changed after grading, is graded again.
Files are replaced atomically (a temporary file, then ``os.replace``) and every path inside
the results folder is opened without following symbolic links.

What the grader writes is readable by its owner only: folders 0700, files 0600 (the results
folder itself too when the grader makes it; one that existed keeps its mode, unless that is
0700 or 0750, the modes the grader gives). With ``group_readable`` (``autograder grade
--group-readable``) folders are 0750 and files 0640, for a course whose staff share a group;
``.grader-key`` stays 0600 either way.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import hmac
import json
import os
import secrets
import stat
from pathlib import Path
from typing import Literal, overload

from minesweeper_kit.csvfile import write_rows
from minesweeper_kit.terminal import shown

from .grading import NOT_GRADED, NOT_LOADED, NOT_SUBMITTED, GradeReport
from .misconceptions import misconception_line
from .students import folder_name

__all__ = [
    "gradescope_results",
    "feedback_text",
    "write_student",
    "read_student",
    "write_csv",
    "summary_table",
    "not_graded_causes",
    "student_dir",
    "grader_key",
    "late_words",
    "results_modes",
    "make_results_dir",
    "set_modes",
    "write_results_file",
    "write_gradebook_totals",
    "GRADEBOOK_RECORD",
    "page_mode",
]

RECORD = ".report.json"
STAMP = "grader.json"
KEY_FILE = ".grader-key"
#: The folder of a results folder that holds one folder per student, and nothing else.
STUDENTS = "students"
#: The batch's record of the seed and course settings of each assignment (see :mod:`autograder.batch`).
BATCH_RECORD = ".batch.json"
#: The page ``autograder report`` writes in a results folder (see :mod:`autograder.batch_report`).
PAGE = "report.html"
#: Each student's total as nbgrader's gradebook counts it, written when the grade was recorded
#: there (see :mod:`autograder.gradebook`), for the report and the class page.
GRADEBOOK_RECORD = "nbgrader-totals.json"
#: Folder and file modes of what the grader writes: its owner only, or its owner and group.
PRIVATE_MODES = (0o700, 0o600)
GROUP_MODES = (0o750, 0o640)
STAMP_FORMAT = 1
#: The files of a student folder whose exact bytes the stamp vouches for.
STAMPED = ("results.json", "feedback.txt")
#: How much of what the student's code printed the feedback shows.
STDOUT_SHOWN = 4000
STUDENT_OUTPUT_HEADER = "Your code printed (shown as it is; not the grader's words):"
#: All a student is told about a submission the grader failed on: no internal detail, no score.
NOT_GRADED_SENTENCE = (
    "Your submission was not graded because of a problem on the grader's side, not in your work; "
    "your instructor has been told."
)

_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NONBLOCK = getattr(os, "O_NONBLOCK", 0)


def student_dir(results_dir: Path, student: str) -> Path:
    """The folder of one student's results, ``RESULTS_DIR/students/<name>``, with a name that is
    safe whatever the student is called (see ``folder_name``)."""
    return Path(results_dir) / STUDENTS / folder_name(student)


def results_modes(group_readable: bool = False) -> tuple[int, int]:
    """The (folder, file) modes of what the grader writes: 0700 and 0600, or 0750 and 0640."""
    return GROUP_MODES if group_readable else PRIVATE_MODES


def _points(value: float) -> str:
    return f"{value:g}"


# ---------------------------------------------------------------------- student-made text
def _visible(text: str, keep: str = "\t") -> str:
    """``text`` with control, invisible-format and line-separator characters written as escapes
    (``\\x1b``, ``\\u202e``; see :mod:`minesweeper_kit.terminal`), but for those in ``keep``."""
    return shown(text, keep)


def _student_lines(text: str) -> list[str]:
    """What the student's code printed, fenced: every line behind ``| ``."""
    shown = text[:STDOUT_SHOWN].rstrip("\n")
    lines = [STUDENT_OUTPUT_HEADER] + ["| " + _visible(line) for line in shown.split("\n")]
    more = "; only its first 4000 characters are shown" if len(text) > STDOUT_SHOWN else ""
    return lines + [f"(end of what your code printed{more})"]


def _extra_data(report: GradeReport) -> dict:
    """What the grader records beside Gradescope's fields: who, what, which file, when, the seed."""
    return {
        "assignment": report.assignment,
        "seed": report.seed,
        "student": report.student,
        "status": report.status,
        "max_score": report.max_score,
        "file": report.file,
        "submitted_at": report.submitted_at,
        "late_by": report.late_by,
        "late": report.late,
        "penalty": report.penalty,
        "name": report.assignment_name or report.assignment,
        "refused": report.refused,
    }


def _late_sentence(report: GradeReport, points: bool = True) -> str:
    """One sentence on lateness and its penalty (without the points taken unless ``points``), or
    "" when on time."""
    if report.late_by <= 0:
        return ""
    text = f"Submitted {late_words(report.late_by)} after the due date"
    if not report.late:
        return text + ", within the grace period."
    if report.penalty > 0 and points:
        return text + f": the late policy took off {_points(report.penalty)} point(s)."
    return text + "."


def late_words(seconds: float) -> str:
    """A lateness in words a person reads at a glance: "3 days 2 h", "2 h 5 min", "40 s"."""
    seconds = max(0, round(seconds))
    days, rest = divmod(seconds, 86400)
    hours, rest = divmod(rest, 3600)
    minutes, secs = divmod(rest, 60)
    if days:
        return f"{days} day{'s' if days != 1 else ''}" + (f" {hours} h" if hours else "")
    if hours:
        return f"{hours} h" + (f" {minutes} min" if minutes else "")
    if minutes:
        return f"{minutes} min"
    return f"{secs} s"


def gradescope_results(report: GradeReport) -> dict:
    """The Gradescope autograder results schema (score, execution_time, output, tests...), with the
    report's status in ``extra_data``. A submission that was not graded, or not submitted, has no
    score at all (at the top or in any test), so nothing can read one into it."""
    if report.status == NOT_SUBMITTED:
        return {
            "execution_time": 0.0,
            "output": f"{report.assignment}: not submitted. {_visible(report.submission)}",
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": [],
            "extra_data": _extra_data(report),
        }
    if not report.graded:
        return {
            "execution_time": report.execution_time,
            "output": NOT_GRADED_SENTENCE,
            "visibility": "visible",
            "stdout_visibility": "hidden",
            "tests": [
                {
                    "name": test.name,
                    "number": str(number),
                    "max_score": test.max_score,
                    "output": "not graded",
                    "visibility": test.visibility,
                }
                for number, test in enumerate(report.tests, start=1)
            ],
            "extra_data": _extra_data(report),
        }
    score = report.score or 0.0
    shown = report.visibility == "visible"  # Gradescope shows the output at once: no score in it otherwise
    if shown:
        output = f"{report.assignment}: {_points(score)} / {_points(report.max_score)} points."
    else:
        output = f"{report.assignment}: graded; {_WHEN_SHOWN.get(report.visibility, _WHEN_SHOWN['hidden'])}."
    if report.refused:
        output += f" {_refused_sentence(report)}"
    elif report.problem:
        problem = _visible(report.problem)
        output += f" {problem}" + ("" if problem.endswith((".", "!", "?")) else ".")  # a sentence of its own
    output += f" {_visible(report.submission)}"
    for note in report.notes:
        output += f" {_visible(note)}"
    late = _late_sentence(report, points=shown)
    if late:
        output += f" {late}"
    likely = misconception_line(report.misconception) if shown else ""
    if likely:
        output += f" {_visible(likely)}"
    return {
        "score": score,
        "execution_time": report.execution_time,
        "output": output,
        "visibility": report.visibility,
        "stdout_visibility": "hidden",
        "tests": [
            {
                "name": test.name,
                "number": str(number),
                "score": test.score,
                "max_score": test.max_score,
                "status": test.status,
                "output": _visible(test.output, "\t\n"),
                "visibility": test.visibility,
            }
            for number, test in enumerate(report.tests, start=1)
        ],
        "extra_data": _extra_data(report),
    }


#: When Gradescope shows a result whose visibility is not "visible", in the student's words.
_WHEN_SHOWN = {
    "after_due_date": "your score and the tests' results are shown after the due date",
    "after_published": "your score and the tests' results are shown when your instructor publishes the grades",
    "hidden": "your score and the tests' results are not shown to you here",
}


def _refused_sentence(report: GradeReport) -> str:
    """What a student whose file the import rule refused is told, in plain words."""
    return (
        f"Your file scores 0 in every test, your own tests included: {_visible(report.refused)}. "
        "This course does not accept a file with an import the assignment does not allow; remove it "
        "and hand the file in again."
    )


def feedback_text(report: GradeReport) -> str:
    """A plain-text report for the student.

    When the submission did not load, that one message comes right after the score, and the
    tests it stopped are listed without repeating it. A submission that was not graded gets one
    plain sentence and nothing else: no score, no test, nothing of the grader's failure.
    """
    if report.status == NOT_SUBMITTED:
        title = f"Assignment {report.assignment} - {_visible(report.student)}"
        return "\n".join([title, "Not submitted", "", _visible(report.submission)]) + "\n"
    if not report.graded:
        return (
            "\n".join(
                [f"Assignment {report.assignment} - {_visible(report.student)}", "Not graded", "", NOT_GRADED_SENTENCE]
            )
            + "\n"
        )
    lines = [
        f"Assignment {report.assignment} - {_visible(report.student)}",
        f"Score: {_points(report.score or 0.0)} / {_points(report.max_score)}",
        "",
    ]
    if report.refused:
        lines += [_refused_sentence(report), ""]
    elif report.problem:
        first, *more = report.problem.split("\n")
        lines += [f"Your code did not load: {_visible(first)}"]
        lines += [f"    {_visible(line)}" for line in more] + [""]
    lines += [
        f"Graded in {report.execution_time:.1f} s (random cases drawn from seed {report.seed}).",
        _visible(report.submission),
        *[_visible(note) for note in report.notes],
        "",
    ]
    late = _late_sentence(report)
    if late:
        lines[2:2] = [late]
    if report.isolation == "none":
        lines += [
            "Warning: graded without isolation (--isolation none): the code ran with the grader's "
            "own rights, outside any sandbox.",
            "",
        ]
    repeats = {NOT_LOADED, f"not graded: {report.problem}"} if report.problem else set()
    width = max((len(t.name) for t in report.tests), default=10)
    for test in report.tests:
        mark = "PASS" if test.status == "passed" else "FAIL"
        lines.append(f"[{mark}] {test.name.ljust(width)}  {_points(test.score)}/{_points(test.max_score)}")
        if test.output and test.output not in repeats and test.output != "passed":
            shown = test.output.removeprefix("passed: ") if test.status == "passed" else test.output
            for part in shown.split("\n"):
                lines.append(f"       {_visible(part)}")
    likely = misconception_line(report.misconception)
    if likely:  # the hidden tests failed the way a planted bug does (``misconceptions.py``)
        lines += ["", _visible(likely)]
    if report.stdout.strip():
        lines += [""] + _student_lines(report.stdout)
    return "\n".join(lines) + "\n"


# ---------------------------------------------------------------------- files, never through links
def _open_dir(path: Path) -> int:
    return os.open(path, os.O_RDONLY | os.O_DIRECTORY | _CLOEXEC)


@overload
def _open_subdir(parent: int, name: str, create: Literal[True], mode: int = ...) -> int: ...
@overload
def _open_subdir(parent: int, name: str, create: bool, mode: int = ...) -> int | None: ...
def _open_subdir(parent: int, name: str, create: bool, mode: int = PRIVATE_MODES[0]) -> int | None:
    """A folder inside ``parent``, never reached through a link; a link or a file in its place
    is removed (the link only, never what it points to) when ``create`` is set, and the folder
    is then given ``mode``."""
    flags = os.O_RDONLY | os.O_DIRECTORY | _NOFOLLOW | _CLOEXEC
    try:
        fd = os.open(name, flags, dir_fd=parent)
    except OSError as error:
        if error.errno not in (errno.ENOENT, errno.ELOOP, errno.ENOTDIR):
            raise
        if not create:
            return None
        if error.errno != errno.ENOENT:
            os.unlink(name, dir_fd=parent)
        with contextlib.suppress(FileExistsError):
            os.mkdir(name, mode, dir_fd=parent)
        fd = os.open(name, flags, dir_fd=parent)
    if create:
        _set_mode(fd, mode)
    return fd


def _set_mode(fd: int, mode: int) -> None:
    """Give an open file or folder exactly ``mode`` (umask aside); one of another owner is left."""
    if stat.S_IMODE(os.fstat(fd).st_mode) != mode:
        with contextlib.suppress(PermissionError):
            os.fchmod(fd, mode)


def _write_file(folder: int, name: str, data: bytes, mode: int = PRIVATE_MODES[1]) -> None:
    """Replace ``name`` in ``folder`` atomically, with exactly ``mode``; a link of that name is
    replaced, not followed."""
    temp = f".{name}.{secrets.token_hex(8)}.tmp"
    fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, mode & 0o600, dir_fd=folder)
    try:
        with open(fd, "wb", closefd=True) as handle:
            os.fchmod(handle.fileno(), mode)
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temp, name, src_dir_fd=folder, dst_dir_fd=folder)
    except BaseException:
        with contextlib.suppress(OSError):
            os.unlink(temp, dir_fd=folder)
        raise


def _read_file(folder: int, name: str, limit: int = 64 * 1024 * 1024) -> bytes | None:
    """A regular file's bytes, or None (missing, a link, not a plain file, too large)."""
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK, dir_fd=folder)
    except OSError:
        return None
    with open(fd, "rb", closefd=True) as handle:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode) or info.st_size > limit:
            return None
        return handle.read(limit + 1)


def _key(results: int, create: bool) -> bytes | None:
    data = _read_file(results, KEY_FILE, 1024)
    if data is None and create:
        temp = f".{KEY_FILE}.{secrets.token_hex(8)}.tmp"
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | _NOFOLLOW | _CLOEXEC, 0o600, dir_fd=results)
        try:
            with open(fd, "wb", closefd=True) as handle:
                handle.write(secrets.token_hex(32).encode("ascii") + b"\n")
                handle.flush()
                os.fsync(handle.fileno())
            with contextlib.suppress(FileExistsError):  # made by a batch running beside this one
                os.link(temp, KEY_FILE, src_dir_fd=results, dst_dir_fd=results, follow_symlinks=False)
        finally:
            os.unlink(temp, dir_fd=results)
        data = _read_file(results, KEY_FILE, 1024)
    if data is None:
        return None
    text = data.strip()
    if len(text) != 64 or any(c not in b"0123456789abcdef" for c in text):
        return None
    return bytes.fromhex(text.decode("ascii"))


def make_results_dir(results_dir: Path, *, group_readable: bool = False) -> bool:
    """Make the results folder (0700, or 0750 when ``group_readable``) and the folders above it
    (the usual modes) if it is missing; True when it was made here. A folder that is already
    there is left as it is (see :func:`set_modes` for what a batch then does)."""
    results_dir = Path(results_dir)
    if results_dir.is_dir():
        return False
    results_dir.parent.mkdir(parents=True, exist_ok=True)
    mode = results_modes(group_readable)[0]
    try:
        os.mkdir(results_dir, mode)
    except FileExistsError:  # made meanwhile by a batch running beside this one
        return False
    folder = _open_dir(results_dir)
    try:
        _set_mode(folder, mode)
    finally:
        os.close(folder)
    return True


def grader_key(results_dir: Path, *, group_readable: bool = False) -> bytes:
    """The key that signs this results folder's records, made (0600) on first use; the results
    folder is made first if missing (see :func:`make_results_dir`).

    ``ValueError`` if ``<results_dir>/.grader-key`` exists but is not a key the grader made (a
    link, a folder, other content): delete it, and every student is graded again."""
    make_results_dir(results_dir, group_readable=group_readable)
    results = _open_dir(results_dir)
    try:
        key = _key(results, create=True)
    finally:
        os.close(results)
    if key is None:
        raise ValueError(
            f"{Path(results_dir) / KEY_FILE} is not a key this grader made (a link, a folder or "
            "other content); delete it and grade again (every student is then graded again)"
        )
    return key


def _set_files_mode(folder: int, mode: int, keep: str = "") -> None:
    """Give every plain file of ``folder`` but ``keep`` exactly ``mode`` (see :func:`_set_file_mode`)."""
    with os.scandir(folder) as entries:
        names = [e.name for e in entries if e.name != keep and e.is_file(follow_symlinks=False)]
    for name in names:
        _set_file_mode(folder, name, mode)


def _set_file_mode(folder: int, name: str, mode: int) -> None:
    """Give the plain file ``name`` of ``folder`` exactly ``mode``; a link, a missing file or
    anything else is left as it is."""
    try:
        info = os.stat(name, dir_fd=folder, follow_symlinks=False)
    except OSError:
        return
    if not stat.S_ISREG(info.st_mode) or stat.S_IMODE(info.st_mode) == mode:
        return
    try:
        fd = os.open(name, os.O_RDONLY | _NOFOLLOW | _CLOEXEC | _NONBLOCK, dir_fd=folder)
    except OSError:
        return
    try:
        if stat.S_ISREG(os.fstat(fd).st_mode):
            _set_mode(fd, mode)
    finally:
        os.close(fd)


def set_modes(results_dir: Path, *, group_readable: bool = False) -> None:
    """Give what the grader wrote in ``results_dir`` the modes :func:`results_modes` says:
    ``students/``, each student's folder and the files in it, and the files beside ``students/``
    (``.batch.json``, ``report.html``, a gradebook or a page written there); ``.grader-key`` stays
    0600, other folders are left as they are. The results folder itself follows too when its mode
    is one the grader gives it (0700 or 0750); any other mode was chosen by someone else and is
    kept. A batch calls it first, so results kept from an earlier run get this run's modes too.
    Links are never followed, and what belongs to another user is left as it is."""
    folder_mode, file_mode = results_modes(group_readable)
    try:
        results = _open_dir(results_dir)
    except OSError:
        return
    try:
        if stat.S_IMODE(os.fstat(results).st_mode) in (PRIVATE_MODES[0], GROUP_MODES[0]):
            _set_mode(results, folder_mode)
        _set_files_mode(results, file_mode, keep=KEY_FILE)
        students = _open_subdir(results, STUDENTS, create=False)
        if students is None:
            return
        try:
            _set_mode(students, folder_mode)
            with os.scandir(students) as entries:
                names = [e.name for e in entries if e.is_dir(follow_symlinks=False)]
            for name in names:
                folder = _open_subdir(students, name, create=False)
                if folder is None:
                    continue
                try:
                    _set_mode(folder, folder_mode)
                    _set_files_mode(folder, file_mode)
                finally:
                    os.close(folder)
        finally:
            os.close(students)
    finally:
        os.close(results)


def write_results_file(path: Path, data: bytes, mode: int) -> None:
    """Replace one of the grader's files (``.batch.json``, a page) atomically with ``data``, with
    exactly ``mode``; a link at ``path`` is replaced, never followed."""
    path = Path(path)
    folder = _open_dir(path.parent)
    try:
        _write_file(folder, path.name, data, mode)
    finally:
        os.close(folder)


def write_gradebook_totals(
    results_dir: Path, assignment: str, totals: dict[str, dict[str, float]], *, group_readable: bool = False
) -> None:
    """Record, beside ``students/``, each student's total in nbgrader's gradebook as just recorded
    (``raw_score``, ``late_penalty``, ``score``, ``max_score``, by the kit's student id): what
    ``nbgrader export`` writes for them, which the report and the class page show beside the kit's
    grade. Students recorded before and not now keep their line."""
    path = Path(results_dir) / GRADEBOOK_RECORD
    record: dict = {}
    with contextlib.suppress(OSError, ValueError):
        loaded = json.loads(path.read_text(encoding="utf-8"))
        record = loaded if isinstance(loaded, dict) and loaded.get("assignment") == assignment else {}
    earlier = record.get("students")
    students: dict = earlier if isinstance(earlier, dict) else {}
    record = {"assignment": assignment, "students": {**students, **totals}}
    data = (json.dumps(record, indent=2, sort_keys=True) + "\n").encode("utf-8")
    write_results_file(path, data, results_modes(group_readable)[1])


def page_mode(*results_dirs: Path) -> int:
    """The mode of a page over these results folders: 0640 when every one of them was graded
    group-readable (its ``students/`` folder is), else 0600. A page shows every student's
    results: it is as private as they are."""
    for results_dir in results_dirs:
        try:
            info = os.stat(Path(results_dir) / STUDENTS)
        except OSError:
            return PRIVATE_MODES[1]
        if not info.st_mode & stat.S_IRGRP:
            return PRIVATE_MODES[1]
    return GROUP_MODES[1] if results_dirs else PRIVATE_MODES[1]


def _canonical(value: object) -> bytes:
    return json.dumps(value, sort_keys=True, separators=(",", ":"), ensure_ascii=True).encode("ascii")


def _signed(
    record: dict, assignment: str, student: str, source_name: str, source_sha256: str, files: dict[str, str]
) -> bytes:
    """The bytes the MAC covers: the report and everything a kept result must still match."""
    return _canonical(
        {
            "format": STAMP_FORMAT,
            "assignment": assignment,
            "student": student,
            "source": {"name": source_name, "sha256": source_sha256},
            "files": files,
            "report": record,
        }
    )


def _mac(key: bytes, signed: bytes) -> str:
    return hmac.new(key, signed, hashlib.sha256).hexdigest()


def write_student(
    report: GradeReport,
    results_dir: Path,
    *,
    source_name: str = "",
    source_sha256: str = "",
    group_readable: bool = False,
) -> Path:
    """Write results.json, feedback.txt, the grader's record and its signed ``grader.json`` (and
    grader-log.txt if the grader failed) for a student, in ``students/<student>/`` of
    ``results_dir``; ``source_name`` and ``source_sha256`` identify the file that was graded.
    Folders 0700 and files 0600, or 0750 and 0640 when ``group_readable``. Returns the student's
    folder."""
    key = grader_key(results_dir, group_readable=group_readable)
    folder_mode, file_mode = results_modes(group_readable)
    record_text = json.dumps(report.to_dict()) + "\n"
    contents = {
        "results.json": (json.dumps(gradescope_results(report), indent=2) + "\n").encode("ascii"),
        "feedback.txt": feedback_text(report).encode("utf-8", "backslashreplace"),
        RECORD: record_text.encode("ascii"),
    }
    files = {name: hashlib.sha256(contents[name]).hexdigest() for name in STAMPED}
    signed = _signed(json.loads(record_text), report.assignment, report.student, source_name, source_sha256, files)
    stamp = {
        "format": STAMP_FORMAT,
        "assignment": report.assignment,
        "student": report.student,
        "source": {"name": source_name, "sha256": source_sha256},
        "files": files,
        "mac": _mac(key, signed),
    }
    results = _open_dir(results_dir)
    try:
        students = _open_subdir(results, STUDENTS, create=True, mode=folder_mode)
        try:
            folder = _open_subdir(students, folder_name(report.student), create=True, mode=folder_mode)
        finally:
            os.close(students)
        try:
            for name, data in contents.items():
                _write_file(folder, name, data, file_mode)
            if report.internal_errors or report.causes:
                parts = list(report.internal_errors)
                if report.causes:
                    causes = [f"- {cause}" for cause in report.causes]
                    parts.insert(0, "\n".join(["not graded, because of a problem on the grader's side:", *causes]))
                log = "\n\n".join(parts) + "\n"
                _write_file(folder, "grader-log.txt", log.encode("utf-8", "backslashreplace"), file_mode)
            else:
                with contextlib.suppress(FileNotFoundError):
                    os.unlink("grader-log.txt", dir_fd=folder)
            stamp_bytes = (json.dumps(stamp, indent=2, ensure_ascii=True) + "\n").encode("ascii")
            _write_file(folder, STAMP, stamp_bytes, file_mode)
        finally:
            os.close(folder)
    finally:
        os.close(results)
    return student_dir(results_dir, report.student)


def read_student(
    results_dir: Path, student: str, assignment: str, *, source_name: str, source_sha256: str
) -> GradeReport | None:
    """The finished report of a student, if one may be kept: its MAC verifies under this results
    folder's key for this assignment, this student and this source file (name and SHA-256),
    and the written files are unchanged. None otherwise: the student is graded again."""
    try:
        results = _open_dir(results_dir)
    except OSError:
        return None
    try:
        key = _key(results, create=False)
        students = _open_subdir(results, STUDENTS, create=False) if key is not None else None
        if key is None or students is None:
            return None
        try:
            folder = _open_subdir(students, folder_name(student), create=False)
        finally:
            os.close(students)
        if folder is None:
            return None
        try:
            stamp_bytes, record_bytes = _read_file(folder, STAMP), _read_file(folder, RECORD)
            written = {name: _read_file(folder, name) for name in STAMPED}
        finally:
            os.close(folder)
        if stamp_bytes is None or record_bytes is None or None in written.values():
            return None
        stamp, record = json.loads(stamp_bytes), json.loads(record_bytes)
        if not isinstance(stamp, dict) or not isinstance(record, dict) or not isinstance(stamp.get("mac"), str):
            return None
        files = {name: hashlib.sha256(data).hexdigest() for name, data in written.items() if data is not None}
        expected = _mac(key, _signed(record, assignment, student, source_name, source_sha256, files))
        if not hmac.compare_digest(stamp["mac"].encode("ascii", "replace"), expected.encode("ascii")):
            return None
        report = GradeReport.from_dict(record)
    except (OSError, ValueError, TypeError, KeyError, RecursionError):
        return None
    finally:
        os.close(results)
    return report if report.assignment == assignment and report.student == student else None


def write_csv(reports: list[GradeReport], path: Path, *, group_readable: bool = False) -> None:
    """A gradebook: one row per student, the total, then each test's points (replaced atomically,
    through :func:`minesweeper_kit.csvfile.write_rows`, so no cell can be a formula).

    The ``status`` column says "graded", "not graded" or "not submitted"; a row not graded or not
    submitted has empty score, percent and test cells (never 0), so a spreadsheet cannot average it
    in. ``file``, ``submitted_at``, ``late_by`` (seconds) and ``penalty`` (points taken off the
    score) say what was graded and when it came in. The file holds every student's grades: it is
    0600, or 0640 when ``group_readable``, wherever it is written."""
    names = []
    for report in reports:
        for test in report.tests:
            if test.name not in names:
                names.append(test.name)
    header = ["student", "score", "max_score", "percent", "execution_time", "seed", "problem", "status"]
    rows: list[list[object]] = [[*header, "file", "submitted_at", "late_by", "penalty", *names]]
    for report in sorted(reports, key=lambda r: r.student):
        by_name = {t.name: t.score for t in report.tests} if report.score is not None else {}
        score, percent = "", ""
        if report.score is not None:
            score = _points(report.score)
            percent = f"{100.0 * report.score / report.max_score if report.max_score else 0.0:.1f}"
        rows.append(
            [
                report.student,
                score,
                _points(report.max_score),
                percent,
                f"{report.execution_time:.2f}",
                report.seed,
                _visible(report.problem or ""),
                report.status,
                _visible(report.file),
                report.submitted_at or "",
                f"{report.late_by:.0f}" if report.late_by else "",
                _points(report.penalty) if report.penalty else "",
            ]
            + [_points(by_name[n]) if n in by_name else "" for n in names]
        )
    write_rows(path, rows, mode=results_modes(group_readable)[1])


def summary_table(reports: list[GradeReport]) -> str:
    """A fixed-width table of students, scores, time and a short note (for a terminal: no
    student-made control characters reach it)."""
    rows = [("student", "score", "time", "note")]
    for report in sorted(reports, key=lambda r: r.student):
        failed = [t for t in report.tests if t.status != "passed"]
        note = report.problem or (f"{len(failed)} test(s) failed" if failed else "all tests passed")
        if report.status == NOT_SUBMITTED:
            note = "not submitted"
        elif report.score is None:
            note = "NOT GRADED: a problem on the grader's side (causes below)"
        elif report.late_by > 0:
            note = f"late by {late_words(report.late_by)}; " + note
        rows.append(
            (
                _visible(report.student),
                "-" if report.score is None else f"{_points(report.score)}/{_points(report.max_score)}",
                f"{report.execution_time:.1f}s",
                _visible(note, "")[:70],
            )
        )
    widths = [max(len(row[i]) for row in rows) for i in range(3)]
    lines = []
    for index, row in enumerate(rows):
        lines.append("  ".join(cell.ljust(widths[i]) if i < 3 else cell for i, cell in enumerate(row)))
        if index == 0:
            lines.append("  ".join("-" * w for w in widths) + "  " + "-" * 4)
    if len(rows) > 1:
        scores = [r.score for r in reports if r.score is not None]
        missing = sum(r.status == NOT_SUBMITTED for r in reports)
        not_graded = sum(r.status == NOT_GRADED for r in reports)
        line = f"{len(reports) - missing} submission(s)"
        if scores:
            line += f", mean score {sum(scores) / len(scores):.2f}"
            if not_graded:
                line += f" over the {len(scores)} graded; {not_graded} not graded"
        else:
            line += ", none graded"
        if missing:
            line += f"; {missing} student(s) submitted nothing"
        lines.append(line)
    return "\n".join(lines)


def not_graded_causes(reports: list[GradeReport]) -> list[tuple[str, list[str]]]:
    """Each distinct reason the grader failed, with the students it left not graded, in the
    order first met: what the instructor has to fix, each said once however many it stopped."""
    causes: dict[str, list[str]] = {}
    for report in reports:
        if report.status == NOT_GRADED:
            for cause in report.causes or ["the grader failed (no cause recorded; see grader-log.txt)"]:
                causes.setdefault(cause, []).append(report.student)
    return list(causes.items())
