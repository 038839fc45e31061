"""Find the students in what the instructor hands the grader, and the file to grade for each.

A SUBMISSION argument is a ``.py`` file, a ``.ipynb`` notebook, a folder of one student, a folder
of student folders, or an nbgrader course (its root, ``submitted/``, or one student's folder there),
read as nbgrader lays it out.

No symbolic link below a folder argument is followed: the folder is resolved once (a link there is
the instructor's choice, except inside an nbgrader course's ``submitted/`` folder, which is all the
students'), and every listing below it goes through :mod:`autograder.nofollow`. A student's folder,
assignment folder, sub-folder or file that is a link is never read through: the student's file to
grade is then the link itself, and reading it gives the problem that names it.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import os
import re
import stat
import unicodedata
from dataclasses import dataclass, replace
from pathlib import Path

from .nofollow import LIST_FLAGS, LinkInPath, entry_kinds, is_real_dir, open_nofollow

__all__ = [
    "discover",
    "folder_name",
    "find_course",
    "inside_submitted",
    "is_course_root",
    "read_timestamp",
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


#: How deep the grader looks for code in a student's folder.
MAX_DEPTH = 32


def _walk_code(folder: int, where: Path, files: list[Path], links: list[Path], depth: int) -> None:
    try:
        with os.scandir(folder) as listing:
            entries = list(listing)
    except OSError:
        return
    for entry in entries:
        if entry.name.startswith("."):
            continue
        path = where / entry.name
        try:
            if entry.is_symlink():
                (files if path.suffix in CODE_SUFFIXES else links).append(path)
            elif entry.is_dir(follow_symlinks=False) and depth < MAX_DEPTH:
                child = os.open(entry.name, LIST_FLAGS, dir_fd=folder)  # a link swapped in now: ELOOP
                try:
                    _walk_code(child, path, files, links, depth + 1)
                finally:
                    os.close(child)
            elif entry.is_file(follow_symlinks=False) and path.suffix in CODE_SUFFIXES:
                files.append(path)
        except OSError:
            continue


def _code_files(folder: Path) -> tuple[list[Path], list[Path]]:
    """The code files anywhere in a student's folder (hidden files and folders left out), and the
    links to anything else found on the way. No link is followed: a code file that is a link is
    kept, and reading it gives the problem that names it."""
    files: list[Path] = []
    links: list[Path] = []
    try:
        top = open_nofollow(folder, directory=True)
    except OSError:
        return files, links
    try:
        _walk_code(top, folder, files, links, 0)
    finally:
        os.close(top)
    return sorted(files), sorted(links)


@dataclass(frozen=True)
class Layout:
    """What the grader looks for in a student's folder, for one assignment."""

    folder: str | None = None  #: the assignment's folder in nbgrader's layout (its course name)
    handed_in: str | None = None  #: the file students hand in (the release notebook's name)
    preferred: tuple[str, ...] = ()  #: file names taken first, in this order
    others: frozenset[str] = frozenset()  #: other assignments' file names: never graded for this one


@dataclass(frozen=True)
class Found:
    """One student and what to grade for them: a file, or why there is nothing (not submitted).

    ``file`` may be a symbolic link (a linked file, or the linked folder that stands where the
    student's folder, assignment folder or code should be): it is never followed, and reading it
    gives a problem that names it."""

    student: str
    file: Path | None
    origin: Path  #: the student's folder, or the file given
    note: str = ""  #: which file was taken, when it is not the one handed out
    missing: str = ""  #: why nothing was submitted; "" when there is a file
    timestamp: str | None = None  #: nbgrader's timestamp.txt, as written
    #: for the instructor, when this student's id was given a suffix because two names collide
    warning: str = ""

    @property
    def relative(self) -> str:
        """The file graded, relative to the student's folder (its name for a file given alone)."""
        if self.file is None:
            return ""
        if self.origin == self.file or not is_real_dir(self.origin):
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
    folded = unicodedata.normalize("NFC", folder_name(student)).casefold()
    return unicodedata.normalize("NFC", folded)


def _timestamp(folder: Path) -> str | None:
    """The text of nbgrader's ``timestamp.txt`` in ``folder`` (a short file, reached through no
    link), or None."""
    try:
        fd = open_nofollow(folder / TIMESTAMP)
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


def _direct_code(folder: Path, kinds: dict[str, str] | None = None) -> list[Path]:
    """The code files directly in ``folder`` (links to files kept: reading one names it)."""
    kinds = entry_kinds(folder) if kinds is None else kinds
    return sorted(
        folder / name
        for name, kind in kinds.items()
        if Path(name).suffix in CODE_SUFFIXES and not name.startswith(".") and kind in ("file", "link")
    )


def _has_course_marker(kinds: dict[str, str]) -> bool:
    return kinds.get(CONFIG_FILE) in ("file", "link") or kinds.get(GRADEBOOK_FILE) in ("file", "link")


def is_course_root(folder: Path) -> bool:
    """Whether ``folder`` is an nbgrader course root: a ``submitted/`` folder (not a link to one)
    beside the course's ``nbgrader_config.py`` or its ``gradebook.db``."""
    kinds = entry_kinds(Path(folder).resolve())
    return kinds.get(SUBMITTED) == "dir" and _has_course_marker(kinds)


def _course_holding(path: Path) -> Path | None:
    """The outermost nbgrader course whose ``submitted/`` folder holds ``path`` (as written, no
    link resolved below the course), or None. Everything in ``submitted/`` is the students', so a
    folder there that looks like a course (its own ``submitted/`` beside an ``nbgrader_config.py``)
    is still a student's folder, never a course."""
    absolute = Path(os.path.abspath(path))
    for ancestor in reversed((absolute, *absolute.parents)):
        if ancestor.name == SUBMITTED and is_course_root(ancestor.parent):
            return ancestor.parent
    return None


def find_course(path: Path) -> Path | None:
    """The nbgrader course a path given to the grader belongs to, or None: ``path`` may be the
    course folder, its ``submitted/`` folder, a student's folder in it, one of that student's
    assignment folders, or a file there.

    The course is found from the instructor's side only: the outermost course whose
    ``submitted/`` holds ``path``, else ``path`` itself when it is a course root. A folder inside a
    course's ``submitted/`` is never a course, whatever it holds, and no link inside ``submitted/``
    is followed to find one: nothing a student hands in is read as the course's configuration."""
    holder = _holder(path)
    if holder is not None:
        return holder
    resolved = Path(path).resolve()
    return resolved if resolved.is_dir() and is_course_root(resolved) else None


def _holder(path: Path) -> Path | None:
    """The course (resolved) whose ``submitted/`` holds ``path`` as written or, for a link the
    instructor gave, where it leads; the path as written is asked first, so a student's link in
    ``submitted/`` never leads to a course."""
    for candidate in (Path(path), Path(path).resolve()):
        holder = _course_holding(candidate)
        if holder is not None:
            return holder.resolve()
    return None


def inside_submitted(path: Path) -> bool:
    """Whether ``path`` lies in an nbgrader course's ``submitted/`` folder: a student's, never a
    place the grader reads settings from."""
    return _holder(path) is not None


def _collected(folder: Path, kinds: dict[str, str]) -> bool:
    """Whether a folder holds an assignment folder nbgrader collected (one with a ``timestamp.txt``)."""
    return any(kind == "dir" and entry_kinds(folder / name).get(TIMESTAMP) == "file" for name, kind in kinds.items())


def _holds_assignment_folders(path: Path, kinds: dict[str, str], layout: Layout) -> bool:
    """Whether the sub-folders of ``path`` are students in nbgrader's layout: one of them holds
    this assignment's folder or a ``timestamp.txt`` one level down."""
    if layout.folder is None:
        return False
    for name, kind in kinds.items():
        if kind != "dir" or name.startswith("."):
            continue
        student = entry_kinds(path / name)
        if student.get(layout.folder) in ("dir", "link") or _collected(path / name, student):
            return True
    return False


def _nbgrader_student(student_dir: Path, layout: Layout) -> Found:
    """One student in nbgrader's layout: ``<student>/<assignment>/<notebook>``, nothing else."""
    student = _clean_id(student_dir.name)
    folder = layout.folder or ""
    assignment_dir = student_dir / folder
    kind = entry_kinds(student_dir).get(folder) if folder else None
    if kind == "link":  # never read through: reading the link itself names it
        return Found(student, assignment_dir, student_dir)
    if kind != "dir":
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


def _is_student_folder(path: Path, kinds: dict[str, str], layout: Layout) -> bool:
    """One student's folder in nbgrader's layout: no code of its own, and this assignment's folder
    or another assignment folder that nbgrader collected (it holds a ``timestamp.txt``)."""
    if layout.folder is None or _direct_code(path, kinds):
        return False
    if kinds.get(layout.folder) in ("dir", "link"):
        return True
    return _collected(path, {name: kind for name, kind in kinds.items() if not name.startswith(".")})


def _from_folder(path: Path, layout: Layout, *, students_here: bool = False, upload: bool = False) -> list[Found]:
    """The students a folder argument (resolved: no link in it) holds, in a stable order. Nothing
    below it is reached through a link: a student's folder that is a link is a student whose file
    is that link, and reading it says so. ``students_here``: the folder is a course's
    ``submitted/``, one student per sub-folder, whatever they hold. ``upload``: the folder is what
    one student uploaded, so nothing in it (an ``nbgrader_config.py``, a ``submitted/``) makes it a
    course."""
    kinds = entry_kinds(path)
    looks_like_a_course = not students_here and not upload and _has_course_marker(kinds)
    course = looks_like_a_course and kinds.get(SUBMITTED) == "dir"
    if looks_like_a_course and kinds.get(SUBMITTED) == "link":
        raise ValueError(
            f"{path / SUBMITTED} is a symbolic link, and the grader follows no link below the folder it is "
            "given: give it the folder that link leads to"
        )
    if course:
        path = path / SUBMITTED
        kinds = entry_kinds(path)
    nbgrader = layout.folder is not None and (course or students_here or _holds_assignment_folders(path, kinds, layout))
    if not nbgrader and _is_student_folder(path, kinds, layout):
        return [_nbgrader_student(path, layout)]
    direct = _direct_code(path, kinds)
    if direct and not nbgrader:
        file = _pick(direct, layout)
        if file is None:
            return [Found(_clean_id(path.name), None, path, missing=NO_CODE, timestamp=_timestamp(path))]
        return [Found(_clean_id(path.name), file, path, timestamp=_timestamp(path))]
    found = []
    for name in sorted(n for n, kind in kinds.items() if kind in ("dir", "link") and not n.startswith(".")):
        student_dir = path / name
        student = _clean_id(name)
        if kinds[name] == "link":  # never read through: reading the link itself names it
            found.append(Found(student, student_dir, student_dir))
            continue
        if nbgrader:
            found.append(_nbgrader_student(student_dir, layout))
            continue
        files, links = _code_files(student_dir)
        file = _pick(files, layout)
        if file is None and links:  # a linked folder where the code would be: the link is named
            file = links[0]
        timestamp = _timestamp(student_dir)
        found.append(Found(student, file, student_dir, missing="" if file else NO_CODE, timestamp=timestamp))
    return found


def _in_course(path: Path) -> tuple[Path, Path] | None:
    """(the course's ``submitted/`` folder, resolved; the path below it) when ``path``, as written,
    lies inside an nbgrader course's ``submitted/`` folder, else None. Everything there is the
    students', so no link in it is followed, even in an argument: ``submitted/*`` expands to the
    students' links too."""
    absolute = Path(os.path.abspath(path))
    for ancestor in reversed(absolute.parents):  # the outermost course: nothing below it is resolved
        if ancestor.name == SUBMITTED and is_course_root(ancestor.parent):
            return ancestor.parent.resolve() / SUBMITTED, absolute.relative_to(ancestor)
    return None


def _course_argument(submitted: Path, below: Path, given: Path, layout: Layout) -> list[Found]:
    """The students an argument inside a course's ``submitted/`` folder holds, reached from that
    folder without following a link: a link on the way is the student's, and reading it names it.

    The layout there is nbgrader's and nothing a student hands in changes it: ``submitted/`` holds
    one folder per student, and anything given below a student's folder is that student's, named
    by the folder (a ``submitted/`` or an ``nbgrader_config.py`` inside it is just a file of theirs)."""
    real = submitted / below
    if not below.parts:
        return _from_folder(real, layout, students_here=True)
    student, student_dir = _clean_id(below.parts[0]), submitted / below.parts[0]
    try:
        os.close(open_nofollow(real, directory=True))
    except LinkInPath:
        return [Found(student, real, student_dir)]
    except OSError:  # not a folder: a file
        if real.suffix not in CODE_SUFFIXES:
            raise ValueError(f"a submission file must be .py or .ipynb, got {real.name}") from None
        if len(below.parts) == 1:  # a file lying directly in submitted/: not a student's folder
            return [Found(_clean_id(_student_name(given)), real, given, timestamp=_timestamp(real.parent))]
        return [Found(student, real, student_dir, timestamp=_timestamp(real.parent))]
    if len(below.parts) == 1 and layout.folder is not None:
        return [_nbgrader_student(real, layout)]
    files, links = _code_files(real)
    file = _pick(files, layout) or (links[0] if links else None)
    return [Found(student, file, student_dir, missing="" if file else NO_CODE, timestamp=_timestamp(real))]


def _digest(text: str, digits: int) -> str:
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()[:digits]


def _distinct_ids(entries: list[Found]) -> list[Found]:
    """Every student with an id of its own: students whose ids would share a results folder (``a
    b.py`` and ``a_b.py``, ``Ana`` and ``ana``) each get their id with a suffix made from the name
    they handed in (the path given, when those names are the same too), so the same submissions
    always get the same ids; each such group gets a warning naming its files."""
    groups: dict[str, list[int]] = {}
    for index, entry in enumerate(entries):
        groups.setdefault(_collision_key(entry.student), []).append(index)
    taken = {key for key, members in groups.items() if len(members) == 1}
    result = list(entries)
    for members in groups.values():
        if len(members) == 1:
            continue
        names = [entries[i].origin.name for i in members]
        renamed = []
        for index, name in zip(members, names):
            entry = entries[index]
            source = name if names.count(name) == 1 else str(entry.origin)
            candidates = [f"{entry.student}-{_digest(source, n)}" for n in (8, 16, 64)]
            student = next((c for c in candidates if _collision_key(c) not in taken), "")
            number = 2
            while not student:
                if _collision_key(f"{candidates[-1]}-{number}") not in taken:
                    student = f"{candidates[-1]}-{number}"
                number += 1
            taken.add(_collision_key(student))
            renamed.append((index, student))
        first = entries[members[0]].student
        graded = "; ".join(
            f"{entries[i].file if entries[i].file is not None else entries[i].origin} as {student!r}"
            for i, student in renamed
        )
        warning = (
            f"{len(members)} submissions would share the results folder {folder_name(first)!r} (their names are "
            "the same once characters that cannot be in a folder name become '_' and case is ignored); each is "
            f"graded under an id of its own: {graded}"
        )
        for index, student in renamed:
            result[index] = replace(entries[index], student=student, warning=warning)
    return result


def discover(paths: list[Path], layout: Layout | None = None, *, upload: bool = False) -> list[Found]:
    """Every student in the given arguments, with the file to grade, in a stable order.

    A file is one student. A folder that holds code files directly is one student. An nbgrader
    course (its root, its ``submitted/`` folder, or one student's folder there) is read as
    nbgrader lays it out: ``submitted/<student>/<assignment folder>/<notebook>``, the assignment
    folder named by the course (``layout.folder``); a student without that folder, or without a
    notebook or ``.py`` in it, has nothing submitted. Any other folder of sub-folders has one
    student per sub-folder. Another assignment's file (``layout.others``) is never graded for
    this one. The same file given twice counts once.

    An argument that is a link is read as what it leads to (the instructor's choice), except inside
    an nbgrader course's ``submitted/`` folder, which is all the students'; below a folder
    argument, and anywhere in ``submitted/``, no link is followed: a student whose folder,
    assignment folder or file is a link gets that link as the file to grade, and reading it gives a
    problem that names it.

    Two students whose ids would share a results folder (``a b.py`` and ``a_b.py``, ``Ana`` and
    ``ana``) are both graded, each under its id with a suffix of its own (see
    :func:`_distinct_ids`), and their entries carry a ``warning`` for the instructor.

    ``upload``: each folder argument is one student's upload (Gradescope's), read as that student's
    data: nothing in it is taken for a course.

    Raises ``ValueError`` when an argument does not exist, or when an nbgrader course's
    ``submitted/`` is a link (never for an ``upload``).
    """
    layout = layout or Layout()
    found: list[Found] = []
    for raw in paths:
        path = Path(raw)
        inside = _in_course(path) if os.path.lexists(path) else None
        if inside is not None:  # a student's link there, dangling or not, is that student's problem
            found += _course_argument(*inside, path, layout)
            continue
        if not path.exists():
            raise ValueError(f"submission not found: {path}")
        if path.is_file():
            if path.suffix not in CODE_SUFFIXES:
                raise ValueError(f"a submission file must be .py or .ipynb, got {path.name}")
            # An argument is the instructor's own choice: a link to a file (or on the way to it) is
            # read as the file it leads to, whose real path then holds no link.
            target = path.resolve()
            timestamp = _timestamp(path.absolute().parent.resolve())
            found.append(Found(_clean_id(_student_name(path)), target, path, timestamp=timestamp))
            continue
        if not path.is_dir():
            raise ValueError(f"a submission must be a .py or .ipynb file or a folder, got {path}")
        found += _from_folder(path.resolve(), layout, upload=upload)
    unique: list[Found] = []
    seen: set[str] = set()
    for entry in found:
        # every path found lies below a resolved argument: the same path is the same submission
        identity = os.path.abspath(entry.file if entry.file is not None else entry.origin)
        if identity in seen:
            continue
        seen.add(identity)
        unique.append(entry)
    return _distinct_ids(unique)


#: A timestamp later than this after the grader's own clock is not believed.
FUTURE_SLACK = dt.timedelta(days=1)


def read_timestamp(text: str, now: dt.datetime | None = None) -> tuple[dt.datetime | None, str]:
    """``(when, "")`` for a usable ``timestamp.txt``, else ``(None, why)``: the text is not a date,
    a date that cannot be put in UTC (``0001-01-01T00:00:00+14:00`` falls before year 1), or one more
    than a day after ``now`` (the grader's clock). The file is the student's: never an error."""
    shown = repr(text.strip()[:60])
    text = text.strip()
    for zone in (" UTC", " GMT", "Z"):
        if text.endswith(zone):
            text = text[: -len(zone)].rstrip() + "+00:00"
            break
    try:
        when = dt.datetime.fromisoformat(text)
        when = (when if when.tzinfo else when.replace(tzinfo=dt.timezone.utc)).astimezone(dt.timezone.utc)
    except (ValueError, OverflowError):
        return None, f"timestamp.txt holds {shown}, which is not a date in UTC's range"
    now = now or dt.datetime.now(dt.timezone.utc)
    if when > now + FUTURE_SLACK:
        return None, f"timestamp.txt holds {shown}, a date in the future"
    return when, ""
