"""Find the students in what the instructor hands the grader, and the file to grade for each.

A SUBMISSION argument is a ``.py`` file, a ``.ipynb`` notebook, a folder of one student, a folder
of student folders, or an nbgrader course (its root, ``submitted/``, or one student's folder there),
read as nbgrader lays it out.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass
from pathlib import Path

__all__ = [
    "discover",
    "folder_name",
    "find_course",
    "is_course_root",
    "parse_timestamp",
    "Found",
    "Layout",
    "CODE_SUFFIXES",
]

CODE_SUFFIXES = (".py", ".ipynb")
#: File names that say nothing about who wrote them: the student is the folder's name.
GENERIC_STEMS = {"lab", "minesweeper", "main", "submission", "solution", "bot", "notebook"}
#: nbgrader's names: the folder of submissions, the file that records when one was made, and the
#: files that mark a course's root.
SUBMITTED = "submitted"
TIMESTAMP = "timestamp.txt"
CONFIG_FILE = "nbgrader_config.py"
GRADEBOOK_FILE = "gradebook.db"
NO_CODE = "nothing was submitted: no .py or .ipynb file was found"
#: The longest results-folder name made from a student id, in UTF-8 bytes.
MAX_FOLDER_BYTES = 100


# ---------------------------------------------------------------------- finding students
def folder_name(student: str) -> str:
    """The results folder's name for a student id: safe on every file system, at most 100 bytes."""
    safe = re.sub(r"[^\w.@+-]", "_", student).lstrip(".") or "student"
    if len(safe.encode("utf-8")) > MAX_FOLDER_BYTES:
        digest = hashlib.sha256(student.encode("utf-8", "surrogatepass")).hexdigest()[:12]
        safe = safe.encode("utf-8")[: MAX_FOLDER_BYTES - 13].decode("utf-8", "ignore") + "-" + digest
    return safe


def _clean_id(name: str) -> str:
    """A student id from a file or folder name: text only (undecodable bytes and control
    characters would break the feedback file and the gradebook)."""
    text = name.encode("utf-8", "surrogateescape").decode("utf-8", "replace")
    return "".join("_" if unicodedata.category(c) in ("Cc", "Cf", "Zl", "Zp") else c for c in text)


def _student_name(path: Path) -> str:
    stem = path.stem
    if stem.lower() in GENERIC_STEMS or re.fullmatch(r"\d\d-[\w-]+", stem):
        return path.parent.name or stem
    return stem


def _code_files(folder: Path) -> list[Path]:
    return sorted(
        p
        for p in folder.rglob("*")
        if p.suffix in CODE_SUFFIXES
        and p.is_file()
        and not any(part.startswith(".") for part in p.relative_to(folder).parts)
    )


@dataclass(frozen=True)
class Layout:
    """What the grader looks for in a student's folder, for one assignment."""

    folder: str | None = None  #: the assignment's folder in nbgrader's layout (its course name)
    handed_in: str | None = None  #: the file students hand in (the release notebook's name)
    preferred: tuple[str, ...] = ()  #: file names taken first, in this order
    others: frozenset[str] = frozenset()  #: other assignments' file names: never graded for this one


@dataclass(frozen=True)
class Found:
    """One student and what to grade for them: a file, or why there is nothing (not submitted)."""

    student: str
    file: Path | None
    origin: Path  #: the student's folder, or the file given
    note: str = ""  #: which file was taken, when it is not the one handed out
    missing: str = ""  #: why nothing was submitted; "" when there is a file
    timestamp: str | None = None  #: nbgrader's timestamp.txt, as written

    @property
    def relative(self) -> str:
        """The file graded, relative to the student's folder (its name for a file given alone)."""
        if self.file is None:
            return ""
        if self.origin == self.file or not self.origin.is_dir():
            return self.file.name
        try:
            return self.file.relative_to(self.origin).as_posix()
        except ValueError:
            return self.file.name


def _pick(files: list[Path], layout: Layout) -> Path | None:
    """The file to grade among a student's files: a preferred name, else a notebook, else .py;
    never another assignment's file."""
    files = [f for f in files if f.name not in layout.others]
    if not files:
        return None
    for name in layout.preferred:
        for path in files:
            if path.name == name:
                return path
    notebooks = [p for p in files if p.suffix == ".ipynb"]
    return (notebooks or files)[0]


def _collision_key(student: str) -> str:
    """Two ids with the same key would share a results folder, here or once the folder is
    copied to a file system that ignores case or Unicode normalisation (macOS, Windows)."""
    return unicodedata.normalize("NFC", folder_name(student)).casefold()


def _timestamp(folder: Path) -> str | None:
    """The text of nbgrader's ``timestamp.txt`` in ``folder`` (a short file, never a link), or None."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(folder / TIMESTAMP, flags)
    except OSError:
        return None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        text = os.read(fd, 200).decode("utf-8", "replace").strip()
    except OSError:
        return None
    finally:
        os.close(fd)
    return text or None


def _direct_code(folder: Path) -> list[Path]:
    return sorted(
        p for p in folder.iterdir() if p.suffix in CODE_SUFFIXES and not p.name.startswith(".") and p.is_file()
    )


def is_course_root(folder: Path) -> bool:
    """Whether ``folder`` is an nbgrader course root: a ``submitted/`` folder beside the course's
    ``nbgrader_config.py`` or its ``gradebook.db``."""
    folder = Path(folder)
    return (folder / SUBMITTED).is_dir() and ((folder / CONFIG_FILE).is_file() or (folder / GRADEBOOK_FILE).is_file())


def find_course(path: Path) -> Path | None:
    """The nbgrader course a path given to the grader belongs to, or None: ``path`` may be the
    course folder, its ``submitted/`` folder, a student's folder in it, one of that student's
    assignment folders, or a file there."""
    start = Path(path).resolve()
    if not start.is_dir():
        start = start.parent
    for candidate in [start, *start.parents][:4]:
        if is_course_root(candidate) and (candidate == start or start.is_relative_to(candidate / SUBMITTED)):
            return candidate
    return None


def _holds_assignment_folders(path: Path, layout: Layout) -> bool:
    """Whether the sub-folders of ``path`` are students in nbgrader's layout: one of them holds
    this assignment's folder or a ``timestamp.txt`` one level down."""
    if layout.folder is None:
        return False
    for student in path.iterdir():
        if not student.is_dir() or student.name.startswith("."):
            continue
        if (student / layout.folder).is_dir() or any(
            (sub / TIMESTAMP).is_file() for sub in student.iterdir() if sub.is_dir()
        ):
            return True
    return False


def _nbgrader_student(student_dir: Path, layout: Layout) -> Found:
    """One student in nbgrader's layout: ``<student>/<assignment>/<notebook>``, nothing else."""
    student = _clean_id(student_dir.name)
    folder = layout.folder or ""
    assignment_dir = student_dir / folder
    if not folder or not assignment_dir.is_dir():
        return Found(student, None, student_dir, missing=f"nothing was submitted: there is no {folder}/ folder")
    timestamp = _timestamp(assignment_dir)
    files = [f for f in _direct_code(assignment_dir) if f.name not in layout.others]
    for name in layout.preferred:
        for path in files:
            if path.name == name:
                note = (
                    "" if name == layout.handed_in else f"Graded {name}: there is no {layout.handed_in} in {folder}/."
                )
                return Found(student, path, student_dir, note=note, timestamp=timestamp)
    notebooks = [f for f in files if f.suffix == ".ipynb"]
    single = notebooks if len(notebooks) == 1 else [f for f in files if f.suffix == ".py"] if not notebooks else []
    if len(single) == 1:
        kind = "notebook" if notebooks else ".py file"
        note = f"Graded {single[0].name}, the only {kind} in {folder}/: there is no {layout.handed_in}."
        return Found(student, single[0], student_dir, note=note, timestamp=timestamp)
    if not files:
        return Found(
            student,
            None,
            student_dir,
            missing=f"nothing was submitted: {folder}/ holds no notebook or .py file",
            timestamp=timestamp,
        )
    names = ", ".join(f.name for f in files)
    return Found(
        student,
        None,
        student_dir,
        missing=f"{folder}/ holds {len(files)} files ({names}) and none is {layout.handed_in}: the grader cannot tell "
        "which to grade; rename the one to grade",
        timestamp=timestamp,
    )


def _is_student_folder(path: Path, layout: Layout) -> bool:
    """One student's folder in nbgrader's layout: no code of its own, and this assignment's folder
    or another assignment folder that nbgrader collected (it holds a ``timestamp.txt``)."""
    if layout.folder is None or _direct_code(path):
        return False
    if (path / layout.folder).is_dir():
        return True
    return any((sub / TIMESTAMP).is_file() for sub in path.iterdir() if sub.is_dir() and not sub.name.startswith("."))


def _from_folder(path: Path, layout: Layout) -> list[Found]:
    """The students a folder argument holds, in a stable order."""
    course = is_course_root(path)
    if course:
        path = path / SUBMITTED
    nbgrader = layout.folder is not None and (course or _holds_assignment_folders(path, layout))
    if not nbgrader and _is_student_folder(path, layout):
        return [_nbgrader_student(path, layout)]
    direct = _direct_code(path)
    if direct and not nbgrader:
        file = _pick(direct, layout)
        if file is None:
            return [Found(_clean_id(path.name), None, path, missing=NO_CODE, timestamp=_timestamp(path))]
        return [Found(_clean_id(path.name), file, path, timestamp=_timestamp(path))]
    found = []
    for student_dir in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
        if nbgrader:
            found.append(_nbgrader_student(student_dir, layout))
            continue
        file = _pick(_code_files(student_dir), layout)
        student = _clean_id(student_dir.name)
        timestamp = _timestamp(student_dir)
        found.append(Found(student, file, student_dir, missing="" if file else NO_CODE, timestamp=timestamp))
    return found


def discover(paths: list[Path], layout: Layout | None = None) -> list[Found]:
    """Every student in the given arguments, with the file to grade, in a stable order.

    A file is one student. A folder that holds code files directly is one student. An nbgrader
    course (its root, its ``submitted/`` folder, or one student's folder there) is read as
    nbgrader lays it out: ``submitted/<student>/<assignment folder>/<notebook>``, the assignment
    folder named by the course (``layout.folder``); a student without that folder, or without a
    notebook or ``.py`` in it, has nothing submitted. Any other folder of sub-folders has one
    student per sub-folder. Another assignment's file (``layout.others``) is never graded for
    this one. The same file given twice counts once.

    Raises ``ValueError`` when an argument does not exist, or when two students would share
    a results folder (``a b.py`` and ``a_b.py``, ``Ana`` and ``ana``): grading them would let
    one overwrite the other's results.
    """
    layout = layout or Layout()
    found: list[Found] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ValueError(f"submission not found: {path}")
        if path.is_file():
            if path.suffix not in CODE_SUFFIXES:
                raise ValueError(f"a submission file must be .py or .ipynb, got {path.name}")
            # An argument is the instructor's own choice: a link to a file is read as that file.
            target = path.resolve() if path.is_symlink() else path
            found.append(Found(_clean_id(_student_name(path)), target, path, timestamp=_timestamp(path.parent)))
            continue
        if not path.is_dir():
            raise ValueError(f"a submission must be a .py or .ipynb file or a folder, got {path}")
        found += _from_folder(path, layout)
    unique: list[Found] = []
    seen: set[str] = set()
    owners: dict[str, tuple[str, Path]] = {}
    for entry in found:
        identity = os.path.realpath(entry.file if entry.file is not None else entry.origin)
        if identity in seen:
            continue
        seen.add(identity)
        key = _collision_key(entry.student)
        if key in owners:
            other, where = owners[key]
            raise ValueError(
                f"two submissions would share the results folder {folder_name(entry.student)!r}: {where} "
                f"(student {other!r}) and {entry.origin} (student {entry.student!r}); their names are the same "
                "once characters that cannot be in a folder name become '_' and case is ignored. Rename one "
                "of them and grade again"
            )
        owners[key] = (entry.student, entry.origin)
        unique.append(entry)
    return unique


def parse_timestamp(text: str) -> dt.datetime | None:
    """When a submission was made, from nbgrader's ``timestamp.txt`` ("2026-11-20 13:04:22.123456
    UTC" by default, or ISO 8601), in UTC; a time without a zone is nbgrader's default, UTC. None
    when the text is not a date."""
    text = text.strip()
    for zone in (" UTC", " GMT", "Z"):
        if text.endswith(zone):
            text = text[: -len(zone)].rstrip() + "+00:00"
            break
    try:
        when = dt.datetime.fromisoformat(text)
    except ValueError:
        return None
    return (when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc)
