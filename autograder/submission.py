"""Turn one student's file into source for the sandbox: a ``.py`` as it is, a notebook through
:mod:`autograder.notebook`.

Reading never raises for a student's file, whatever its bytes: an unreadable file becomes a
:class:`Submission` whose ``problem`` says what is wrong, so one broken submission never stops a
batch.
"""

from __future__ import annotations

import ast
import contextlib
import hashlib
import io
import os
import re
import stat
import tokenize
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from minesweeper_kit.owntests.source import CodeCell

from .nofollow import LinkInPath, open_nofollow
from .notebook import CourseCells, cell_labels, notebook_code, test_cells

__all__ = [
    "Submission",
    "read_submission",
    "read_capped",
    "python_syntax_problem",
    "refused_link",
    "MAX_FILE_BYTES",
    "MAX_SOURCE_BYTES",
]

#: The largest file the grader reads. Real submissions are a few hundred kilobytes at most
#: (a notebook's outputs included); anything bigger is refused before it is read whole.
MAX_FILE_BYTES = 20 * 1024 * 1024

#: The most code the grader parses for one ``.py`` submission. Parsing costs the grader's own memory,
#: up to some 450 bytes per byte of source for the densest code (one short statement a line), so this
#: keeps one submission's parse near 250 MB. Real submissions are 10 to 100 KB. A notebook's code is
#: bounded more tightly by the notebook reader's ``IPYTHON_WORK_LIMIT``, as its cells are read.
MAX_SOURCE_BYTES = 512 * 1024


def source_too_large(size: int, what: str) -> str | None:
    """Why ``size`` bytes of code are not parsed (``what`` names them), or None when they may be."""
    if size <= MAX_SOURCE_BYTES:
        return None
    return (
        f"{what} is too large to grade: {size // 1024} KB of code, and the grader reads at most "
        f"{MAX_SOURCE_BYTES // 1024} KB (real answers are far smaller)"
    )


@dataclass
class Submission:
    """One student's code, ready for the sandbox, and what was done to get it."""

    student: str
    path: Path
    source: str = ""
    filename: str = "submission.py"
    kind: str = "python"  #: "python" or "notebook"
    cells_used: list[int] = field(default_factory=list)
    selection: str = ""  #: how the notebook's cells were chosen
    notes: list[str] = field(default_factory=list)
    problem: str | None = None  #: why the submission cannot be graded at all
    line_map: list[tuple[int, int]] = field(default_factory=list)  #: source line -> (cell, line)
    #: how feedback names each cell: (cell, "Exercise 1.4" or its first line), see ``cell_labels``
    cell_labels: list[tuple[int, str]] = field(default_factory=list)
    source_file: str = ""  #: the graded file's name ("" when there was none)
    #: a notebook's cells its own tests are read from (``notebook.test_cells``)
    test_cells: list[CodeCell] = field(default_factory=list)
    sha256: str = ""  #: SHA-256 of the bytes read ("" when none were)

    @property
    def module_name(self) -> str:
        """The module name the source is loaded under: the file's stem when it is a valid identifier
        (so a 6.009 ``lab.py`` is ``lab``), else ``submission``."""
        stem = Path(self.filename).stem
        return stem if stem.isidentifier() else "submission"

    def describe(self) -> str:
        """One paragraph for the feedback: which file and which cells were graded. A submission that
        could not be read says only which file was read, since none of its code ran (its
        ``problem`` says why; "code cells used: none" would only hide that)."""
        if self.problem:
            what = f"notebook {self.path.name}" if self.kind == "notebook" else f"file {self.path.name}"
            return f"Read {what}; none of its code was run." if self.source_file else "No file was read."
        if self.kind == "notebook":
            cells = ", ".join(str(c) for c in self.cells_used) or "none"
            text = f"Graded notebook {self.path.name}: {self.selection}; code cells used: {cells}."
        else:
            text = f"Graded file {self.path.name}."
        if self.notes:
            text += " " + " ".join(self.notes)
        return text

    def locate(self, message: str) -> str:
        """Rewrite ``line N`` in a message as the notebook's place, ``Exercise 1.4, line L`` (or the
        cell's first line, see ``cell_labels``; ``cell C, line L`` without labels)."""
        if self.kind != "notebook" or not self.line_map:
            return message
        labels = {int(cell): str(label) for cell, label in self.cell_labels}

        def replace(match: re.Match) -> str:
            number = int(match.group(1))
            if 1 <= number <= len(self.line_map):
                cell, line = self.line_map[number - 1]
                return f"{labels.get(cell, f'cell {cell}')}, line {line}" if cell else match.group(0)
            return match.group(0)

        return re.sub(r"\bline (\d+)", replace, message)


# ---------------------------------------------------------------------- reading one file
def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _too_large(size: int) -> str:
    return (
        f"the file is {_megabytes(size)}; the grader reads files of at most "
        f"{MAX_FILE_BYTES // (1024 * 1024)} MB (in a notebook, outputs count too: clear them and save again)"
    )


#: The end of what a student is told when a link stood where their file or folder should be.
_LINK_ADVICE = " is a symbolic link; hand in the {} itself"


def _link_problem(path: Path, link: Path) -> str:
    """What a student is told when a link stands on the way to their file: the link, named by its
    folder and name (a file link by its name), and what to hand in instead."""
    if link == Path(os.path.abspath(path)) and path.suffix in (".py", ".ipynb"):
        return link.name + _LINK_ADVICE.format("file")
    shown = f"{link.parent.name}/{link.name}" if link.parent.name else link.name
    return shown + _LINK_ADVICE.format("folder")


def refused_link(problem: str | None) -> bool:
    """Whether a submission's problem is a link the grader refused to follow (nothing was read)."""
    return problem is not None and problem.endswith(tuple(_LINK_ADVICE.format(w) for w in ("file", "folder")))


def read_capped(path: Path) -> tuple[bytes, str | None]:
    """The file's bytes, or why they were not read: never through a link (no component of its path
    may be one, see :mod:`autograder.nofollow`; :class:`LinkInPath` is raised), never a device or a
    pipe, and never more than :data:`MAX_FILE_BYTES` (a larger file is refused before it is read
    whole)."""
    try:
        fd = open_nofollow(path)
    except LinkInPath:
        raise  # read_submission names the link
    except OSError as error:
        return b"", f"the file could not be read: {error.strerror}"
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return b"", f"{path.name} is not a regular file"
        if info.st_size > MAX_FILE_BYTES:
            return b"", _too_large(info.st_size)
        chunks, size = [], 0
        while size <= MAX_FILE_BYTES:
            chunk = os.read(fd, min(1 << 20, MAX_FILE_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
        if size > MAX_FILE_BYTES:  # it grew while being read
            return b"", _too_large(size)
        return b"".join(chunks), None
    except OSError as error:
        return b"", f"the file could not be read: {error.strerror}"
    finally:
        os.close(fd)


def _decode(data: bytes, name: str) -> str:
    """Source text as Python reads it: UTF-8 (a byte-order mark allowed) unless a PEP 263
    coding line says otherwise."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as error:
        if "unknown encoding" in str(error):
            raise ValueError(f"{name} declares an unknown source encoding ({error})") from None
        encoding = "utf-8-sig"  # no usable declaration: Python's default, whose error is clearer
    try:
        text = data.decode(encoding)
    except UnicodeDecodeError as error:
        label = "UTF-8" if encoding.startswith("utf-8") else encoding.upper()
        raise ValueError(
            f"{name} is not valid {label} text: byte 0x{data[error.start]:02x} at "
            f"position {error.start} cannot be decoded; save the file as UTF-8"
        ) from None
    except (LookupError, UnicodeError) as error:
        raise ValueError(f"{name} declares a source encoding Python cannot read it with ({error})") from None
    if "\x00" in text:
        raise ValueError(
            f"{name} contains a NUL character at position {text.index(chr(0))}: it is not "
            "Python source text (saved as UTF-16, or a binary file?); save it as UTF-8"
        )
    return text.removeprefix("\ufeff")


def read_submission(
    student: str,
    path: Path | None,
    keep_import: Callable[[str], bool] | None = None,
    course_cells: CourseCells | None = None,
) -> Submission:
    """Read one student's file into a :class:`Submission`; problems are recorded, never raised.
    ``course_cells`` (the course notebook's own cells) lets a notebook's added cells be graded."""
    if path is None:
        return Submission(student, Path(student), problem="no .py or .ipynb file was found in the submission")
    path = Path(path)
    submission = Submission(
        student,
        path,
        filename=path.name if path.suffix == ".py" else "submission.py",
        kind="python" if path.suffix == ".py" else "notebook",
        source_file=path.name,
    )
    if submission.kind == "python" and not Path(submission.filename).stem.isidentifier():
        submission.filename = "submission.py"
    try:
        try:
            data, problem = read_capped(path)
        except LinkInPath as found:  # nothing was read: the feedback says no file was
            submission.problem, submission.source_file = _link_problem(path, found.link), ""
            return submission
        if problem is not None:
            submission.problem = problem
            return submission
        submission.sha256 = hashlib.sha256(data).hexdigest()
        if submission.kind == "python":
            too_large = source_too_large(len(data), path.name)
            if too_large is not None:
                submission.problem = too_large
                return submission
            submission.source = _decode(data, path.name)
            submission.problem = python_syntax_problem(submission.source, path.name)
        else:
            code = notebook_code(data, keep_import, course_cells)
            submission.source, submission.cells_used, submission.selection, submission.notes, submission.line_map = code
            submission.cell_labels = cell_labels(data)
            submission.test_cells = test_cells(data)
            if not submission.source.strip():
                submission.problem = "the notebook has no code to grade (no code cells with definitions)"
    except ValueError as error:
        submission.problem = str(error)
    except (RecursionError, MemoryError):
        submission.problem = "the file could not be read: it is nested too deeply or is too large to read"
    except Exception as error:  # noqa: BLE001 - whatever the bytes, one student never stops a batch
        submission.problem = f"the file could not be read ({type(error).__name__}: {str(error)[:200]})"
    if submission.problem:
        submission.source, submission.line_map, submission.cell_labels = "", [], []
        if submission.kind == "notebook" and not submission.test_cells and submission.sha256:
            with contextlib.suppress(Exception):  # a notebook whose code does not load may still hold tests
                submission.test_cells = test_cells(data)
    return submission


def python_syntax_problem(source: str, name: str) -> str | None:
    """Where a ``.py`` file does not parse, in the words a notebook's error uses ("SyntaxError in
    lab.py, line 4: '(' was never closed"), or None when it parses.

    Found when the file is read, before any sandbox starts, so the feedback names the line
    whatever the machine, and a file that cannot run is never handed to a sandbox. Errors only the
    compiler finds (``return`` outside a function) are still reported, with their line, when the
    sandbox loads the file."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # SyntaxWarnings (an invalid escape) are not the student's error
            ast.parse(source, filename=name)
    except SyntaxError as error:
        where = f", line {error.lineno}" if error.lineno else ""
        return f"{type(error).__name__} in {name}{where}: {error.msg}"
    return None
