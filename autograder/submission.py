"""Find the students in what the instructor hands the grader and turn each submission into source.

A SUBMISSION argument is a ``.py`` file, a ``.ipynb`` notebook, a folder of one student, or an
nbgrader course's ``submitted/`` folder (one student per sub-folder). Reading never raises for
a student's file, whatever its bytes: an unreadable file becomes a :class:`Submission` whose
``problem`` says what is wrong, so one broken submission never stops a batch.

Notebook cells are read the way IPython reads them (its own input transformers turn magics,
shell escapes and help lines into ``get_ipython()`` calls), then parsed; of each cell only
top-level definitions are kept, each as its own source segment.
"""

from __future__ import annotations

import ast
import errno
import hashlib
import io
import json
import os
import re
import stat
import tokenize
import unicodedata
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from IPython.core.inputtransformer2 import TransformerManager

__all__ = ["Submission", "discover", "read_submission", "notebook_code", "folder_name", "MAX_FILE_BYTES"]

CODE_SUFFIXES = (".py", ".ipynb")
#: File names that say nothing about who wrote them: the student is the folder's name.
GENERIC_STEMS = {"lab", "minesweeper", "main", "submission", "solution", "bot", "notebook"}
#: Module names whose imports are widget or display plumbing, dropped from notebooks.
DISPLAY_MODULES = ("ipywidgets", "IPython", "minesweeper_kit.widgets", "anywidget", "matplotlib")
#: Calls allowed in a kept top-level assignment (anything else is demo code).
CONSTANT_CALLS = {
    "set",
    "frozenset",
    "dict",
    "list",
    "tuple",
    "range",
    "object",
    "namedtuple",
    "TypeVar",
    "NamedTuple",
    "str",
    "int",
    "float",
    "bool",
    "field",
    "dataclass",
}
#: The largest file the grader reads. Real submissions are a few hundred kilobytes at most
#: (a notebook's outputs included); anything bigger is refused before it is read whole.
MAX_FILE_BYTES = 20 * 1024 * 1024
#: How much code IPython may read for one notebook, in characters. IPython reads a whole cell
#: again after each magic it rewrites, so a cell counts its length (plus a fixed cost per cell)
#: once, and once more for each line in it that may be a magic or shell command. The course's
#: notebooks come to about 20,000; a notebook at the limit takes IPython a few seconds, and
#: without a limit a crafted one could keep the grader busy for hours.
IPYTHON_WORK_LIMIT = 250_000
CELL_COST = 200
#: Cell magics that run their body as Python in the notebook's namespace: the body is read
#: as a cell of its own.
PYTHON_CELL_MAGICS = {"time", "capture"}
#: The longest results-folder name made from a student id, in UTF-8 bytes.
MAX_FOLDER_BYTES = 100


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
    source_file: str = ""  #: the graded file's name ("" when there was none)
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
        """Rewrite ``line N`` in a message as ``cell C, line L`` for notebook submissions."""
        if self.kind != "notebook" or not self.line_map:
            return message

        def replace(match: re.Match) -> str:
            number = int(match.group(1))
            if 1 <= number <= len(self.line_map):
                cell, line = self.line_map[number - 1]
                return f"cell {cell}, line {line}" if cell else match.group(0)
            return match.group(0)

        return re.sub(r"\bline (\d+)", replace, message)


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


def _pick(files: list[Path], preferred: tuple[str, ...]) -> Path | None:
    """The file to grade among a student's files: a preferred name, else a notebook, else .py."""
    if not files:
        return None
    for name in preferred:
        for path in files:
            if path.name == name:
                return path
    notebooks = [p for p in files if p.suffix == ".ipynb"]
    return (notebooks or files)[0]


def _collision_key(student: str) -> str:
    """Two ids with the same key would share a results folder, here or once the folder is
    copied to a file system that ignores case or Unicode normalisation (macOS, Windows)."""
    return unicodedata.normalize("NFC", folder_name(student)).casefold()


def discover(paths: list[Path], preferred: tuple[str, ...] = ()) -> list[tuple[str, Path | None]]:
    """``(student, file)`` pairs for the given arguments, in a stable order.

    A folder that holds code files directly is one student; a folder that holds only
    sub-folders (an nbgrader ``submitted/`` folder) has one student per sub-folder. A student
    folder without code gives ``(student, None)``. The same file given twice counts once.
    Raises ``ValueError`` when an argument does not exist, or when two students would share
    a results folder (``a b.py`` and ``a_b.py``, ``Ana`` and ``ana``): grading them would let
    one overwrite the other's results.
    """
    found: list[tuple[str, Path | None, Path]] = []  # student, file to grade, where it came from
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ValueError(f"submission not found: {path}")
        if path.is_file():
            if path.suffix not in CODE_SUFFIXES:
                raise ValueError(f"a submission file must be .py or .ipynb, got {path.name}")
            # An argument is the instructor's own choice: a link to a file is read as that file.
            target = path.resolve() if path.is_symlink() else path
            found.append((_clean_id(_student_name(path)), target, path))
            continue
        if not path.is_dir():
            raise ValueError(f"a submission must be a .py or .ipynb file or a folder, got {path}")
        direct = [p for p in path.iterdir() if p.is_file() and p.suffix in CODE_SUFFIXES]
        if direct:
            found.append((_clean_id(path.name), _pick(sorted(direct), preferred), path))
            continue
        for student_dir in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
            found.append((_clean_id(student_dir.name), _pick(_code_files(student_dir), preferred), student_dir))
    unique: list[tuple[str, Path | None]] = []
    seen: set[str] = set()
    owners: dict[str, tuple[str, Path]] = {}
    for student, file, origin in found:
        identity = os.path.realpath(file if file is not None else origin)
        if identity in seen:
            continue
        seen.add(identity)
        key = _collision_key(student)
        if key in owners:
            other, where = owners[key]
            raise ValueError(
                f"two submissions would share the results folder {folder_name(student)!r}: {where} "
                f"(student {other!r}) and {origin} (student {student!r}); their names are the same once "
                "characters that cannot be in a folder name become '_' and case is ignored. Rename one "
                "of them and grade again"
            )
        owners[key] = (student, origin)
        unique.append((student, file))
    return unique


# ---------------------------------------------------------------------- reading one file
def _megabytes(size: int) -> str:
    return f"{size / (1024 * 1024):.1f} MB"


def _too_large(size: int) -> str:
    return (
        f"the file is {_megabytes(size)}; the grader reads files of at most "
        f"{MAX_FILE_BYTES // (1024 * 1024)} MB (in a notebook, outputs count too: clear them and save again)"
    )


def _read_capped(path: Path) -> tuple[bytes, str | None]:
    """The file's bytes, or why they were not read: never a link, a device or a pipe, and never
    more than :data:`MAX_FILE_BYTES` (a larger file is refused before it is read whole)."""
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except OSError as error:
        if error.errno == errno.ELOOP:
            return b"", f"{path.name} is a symbolic link; hand in the file itself"
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


def read_submission(student: str, path: Path | None, keep_import: Callable[[str], bool] | None = None) -> Submission:
    """Read one student's file into a :class:`Submission`; problems are recorded, never raised."""
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
        data, problem = _read_capped(path)
        if problem is not None:
            submission.problem = problem
            return submission
        submission.sha256 = hashlib.sha256(data).hexdigest()
        if submission.kind == "python":
            submission.source = _decode(data, path.name)
            submission.problem = python_syntax_problem(submission.source, path.name)
        else:
            code = notebook_code(data, keep_import)
            submission.source, submission.cells_used, submission.selection, submission.notes, submission.line_map = code
            if not submission.source.strip():
                submission.problem = "the notebook has no code to grade (no code cells with definitions)"
    except ValueError as error:
        submission.problem = str(error)
    except (RecursionError, MemoryError):
        submission.problem = "the file could not be read: it is nested too deeply or is too large to read"
    except Exception as error:  # noqa: BLE001 - whatever the bytes, one student never stops a batch
        submission.problem = f"the file could not be read ({type(error).__name__}: {str(error)[:200]})"
    if submission.problem:
        submission.source, submission.line_map = "", []
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


# ---------------------------------------------------------------------- notebook JSON
def _kind(value: object) -> str:
    """What a JSON value is, in words, for messages."""
    if isinstance(value, bool):
        return "true/false"
    if value is None:
        return "null"
    for types, word in ((str, "a string"), ((int, float), "a number"), (list, "a list"), (dict, "an object")):
        if isinstance(value, types):
            return word
    return type(value).__name__


def _corrupt(reason: str) -> ValueError:
    return ValueError(f"the notebook could not be read (corrupt .ipynb?): {reason}")


def _cell_source(number: int, cell: dict) -> str:
    """A code cell's text with ``\\n`` line ends; ``ValueError`` if it is not text."""
    source = cell.get("source", "")
    if isinstance(source, list):
        for item in source:
            if not isinstance(item, str):
                raise _corrupt(f"cell {number}'s source is a list holding {_kind(item)}, not only strings")
        source = "".join(source)
    elif not isinstance(source, str):
        raise _corrupt(f"cell {number}'s source is {_kind(source)}, not a string or a list of strings")
    try:
        source.encode("utf-8")
    except UnicodeEncodeError as error:
        raise _corrupt(
            f"cell {number} holds U+{ord(source[error.start]):04X}, half of a surrogate pair, which is not text"
        ) from None
    if "\x00" in source:
        raise _corrupt(f"cell {number} holds a NUL character, which cannot be in Python source")
    return source.replace("\r\n", "\n").replace("\r", "\n")


def read_notebook_json(data: bytes) -> dict:
    """A notebook's JSON, checked for everything grading reads (``ValueError`` saying what is wrong).

    Deliberately not nbformat: its schema validation imports format checkers that take seconds
    to load, a cost every submission would pay, and grading needs none of it.
    """
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        raise ValueError(
            f"the notebook could not be read: it is not UTF-8 text (byte 0x{data[error.start]:02x} "
            f"at position {error.start}); save it again from Jupyter"
        ) from None
    try:
        notebook = json.loads(text)
    except RecursionError:
        raise _corrupt("its JSON is nested too deeply") from None
    except ValueError as error:  # JSONDecodeError, or a number too long to convert
        raise _corrupt((str(error).splitlines() or [type(error).__name__])[0][:200]) from None
    if not isinstance(notebook, dict):
        raise _corrupt(f"it is {_kind(notebook)}, not a JSON object with cells")
    version = notebook.get("nbformat", 4)
    if not isinstance(version, int) or isinstance(version, bool):
        raise _corrupt(f"its 'nbformat' is {_kind(version)}, not a whole number")
    if version < 4:
        raise ValueError("the notebook is in an old format (nbformat 3 or earlier): save it again with Jupyter 4+")
    if not isinstance(notebook.get("metadata", {}), dict):
        raise _corrupt(f"its 'metadata' is {_kind(notebook['metadata'])}, not an object")
    cells = notebook.get("cells")
    if not isinstance(cells, list):
        raise _corrupt("it has no list of cells" + (f" ('cells' is {_kind(cells)})" if "cells" in notebook else ""))
    for number, cell in enumerate(cells, start=1):
        if not isinstance(cell, dict):
            raise _corrupt(f"cell {number} is {_kind(cell)}, not an object")
        if not isinstance(cell.get("cell_type"), str):
            raise _corrupt(f"cell {number} has no 'cell_type' string")
        metadata = cell.get("metadata", {})
        if not isinstance(metadata, dict):
            raise _corrupt(f"cell {number}'s metadata is {_kind(metadata)}, not an object")
        nbgrader = metadata.get("nbgrader")
        if nbgrader is not None and not isinstance(nbgrader, dict):
            raise _corrupt(f"cell {number}'s nbgrader metadata is {_kind(nbgrader)}, not an object")
        if cell["cell_type"] == "code":
            _cell_source(number, cell)
    return notebook


# ---------------------------------------------------------------------- one cell as Python
class _CellError(ValueError):
    """A cell that cannot be read as Python; the caller decides whether that matters."""


_MAGIC_CANDIDATE = re.compile(r"^[ \t]*[!%?/,;]|\?[ \t]*$|=[ \t]*[!%]", re.M)


class _IPythonReader:
    """IPython's own input transformers, with a bound on the work a crafted notebook can cause."""

    def __init__(self) -> None:
        self.budget = IPYTHON_WORK_LIMIT
        self.manager: TransformerManager | None = None

    def transform(self, text: str, number: int) -> str:
        if self.manager is None:
            try:
                from IPython.core.inputtransformer2 import TransformerManager
            except ImportError:
                raise ValueError(
                    "notebooks cannot be graded on this machine: IPython, which reads notebook "
                    "cells, is not installed (install the autograder with its 'lab' extras); "
                    "nothing was guessed"
                ) from None
            self.manager = TransformerManager()
        cost = (len(text) + CELL_COST) * (1 + len(_MAGIC_CANDIDATE.findall(text)))
        if cost > self.budget:
            raise ValueError(
                "the notebook has too much code for the grader to read: counting each code cell's length "
                "once, and once more for each line in it that may be a magic or shell command, its cells "
                f"come to more than {IPYTHON_WORK_LIMIT:,} characters by cell {number}; make the code "
                "shorter, or use fewer magics in long cells"
            )
        self.budget -= cost
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                return self.manager.transform_cell(text)
        except Exception as error:  # noqa: BLE001 - IPython refuses (e.g. too many magics in one cell)
            raise _CellError(
                f"cell {number} could not be read as IPython reads it: "
                f"{(str(error).splitlines() or [type(error).__name__])[0][:200]}"
            ) from None


def _origins(original: list[str], python: list[str]) -> list[int]:
    """For each line IPython produced, the cell line (from 1) it came from.

    IPython drops leading blank lines and joins a magic's continuation lines into one; every
    other line keeps its place (possibly dedented), so lines are matched by their content.
    """
    skip = 0
    while skip < len(original) and not original[skip].strip():
        skip += 1
    if len(python) == len(original) - skip:
        return list(range(skip + 1, len(original) + 1))
    keys = [line.strip() for line in original]
    origins, index = [], skip
    for position, line in enumerate(python):
        origins.append(min(index, len(original) - 1) + 1)
        if index < len(original) and keys[index] == line.strip():
            index += 1
            continue
        # A rewritten line: it stands for original lines up to the one before the next match.
        following = python[position + 1].strip() if position + 1 < len(python) else None
        ahead = index + 1
        while following is not None and ahead < min(len(original), index + 1000) and keys[ahead] != following:
            ahead += 1
        index = ahead if following is not None and ahead < len(original) and keys[ahead] == following else index + 1
    return origins


@dataclass
class _Piece:
    """One kept statement: its exact text and, for each of its lines, the cell line it came from."""

    text: str
    lines: list[int]
    future: bool = False


class _Lines:
    """A parsed text's lines, with each line's UTF-8 bytes cached (``ast`` offsets count bytes)."""

    def __init__(self, text: str):
        self.text = text.split("\n")
        self.encoded: dict[int, bytes] = {}

    def raw(self, index: int) -> bytes:
        if index not in self.encoded:
            self.encoded[index] = self.text[index].encode("utf-8")
        return self.encoded[index]

    def segment(self, node: ast.stmt) -> str:
        first, last = node.lineno - 1, (node.end_lineno or node.lineno) - 1
        if first == last:
            return self.raw(first)[node.col_offset : node.end_col_offset].decode("utf-8")
        head = self.raw(first)[node.col_offset :].decode("utf-8")
        tail = self.raw(last)[: node.end_col_offset].decode("utf-8")
        return "\n".join([head, *self.text[first + 1 : last], tail])


def _calls_ipython(node: ast.AST) -> bool:
    return any(
        isinstance(sub, ast.Call)
        and isinstance(sub.func, ast.Attribute)
        and isinstance(sub.func.value, ast.Call)
        and isinstance(sub.func.value.func, ast.Name)
        and sub.func.value.func.id == "get_ipython"
        for sub in ast.walk(node)
    )


def _is_display_import(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(alias.name.startswith(DISPLAY_MODULES) for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return node.module is not None and node.module.startswith(DISPLAY_MODULES)
    return False


def _is_constant_assignment(node: ast.stmt) -> bool:
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    for sub in ast.walk(node.value):
        if isinstance(sub, (ast.Await, ast.Yield, ast.YieldFrom)):
            return False
        if isinstance(sub, ast.Call):
            name = sub.func.id if isinstance(sub.func, ast.Name) else getattr(sub.func, "attr", "")
            if name not in CONSTANT_CALLS:
                return False
    return True


def _is_definition(node: ast.stmt) -> bool:
    """Top-level statements kept from a notebook: imports, functions, classes, constants."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return not _is_display_import(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    return _is_constant_assignment(node)


def _cell_magic_body(node: ast.stmt) -> tuple[str, str] | None:
    """``(name, body)`` of a cell magic whose body is Python run in the notebook's namespace."""
    if not (
        isinstance(node, ast.Expr)
        and isinstance(node.value, ast.Call)
        and isinstance(node.value.func, ast.Attribute)
        and node.value.func.attr == "run_cell_magic"
        and len(node.value.args) == 3
        and all(isinstance(a, ast.Constant) and isinstance(a.value, str) for a in node.value.args)
    ):
        return None
    name, _, body = (str(a.value) for a in node.value.args if isinstance(a, ast.Constant))
    return (name, body) if name in PYTHON_CELL_MAGICS else None


@dataclass
class _CellCode:
    """What one cell gives: kept statements and what was left out."""

    pieces: list[_Piece] = field(default_factory=list)
    magics: int = 0
    statements: int = 0
    magic_functions: list[str] = field(default_factory=list)


def _parse(reader: _IPythonReader, text: str, number: int) -> tuple[ast.Module, _Lines, list[int]]:
    """The cell as IPython runs it, parsed; ``_CellError`` names the cell and line at fault."""
    python = reader.transform(text, number)
    lines = _Lines(python)
    origins = _origins((text if text.endswith("\n") else text + "\n").split("\n"), lines.text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(python)
    except SyntaxError as error:
        where = origins[error.lineno - 1] if error.lineno and 0 < error.lineno <= len(origins) else None
        place = f"cell {number}, line {where}" if where else f"cell {number}"
        raise _CellError(f"{type(error).__name__} in {place}: {error.msg}") from None
    except (RecursionError, MemoryError):
        raise _CellError(f"cell {number} is nested too deeply for Python to read") from None
    except ValueError as error:
        raise _CellError(f"cell {number} cannot be read as Python: {error}") from None
    return tree, lines, origins


def _cell_code(
    reader: _IPythonReader, text: str, number: int, keep: Callable[[ast.stmt], bool], offset: int = 0
) -> _CellCode:
    """The statements ``keep`` accepts among a cell's top-level ones, each its own exact text."""
    tree, lines, origins = _parse(reader, text, number)
    result = _CellCode()
    body = tree.body
    for index, node in enumerate(body):
        magic = _cell_magic_body(node)
        if magic is not None:
            inner = _cell_code(reader, magic[1], number, keep, offset + origins[node.lineno - 1])
            result.pieces += inner.pieces
            result.magics += inner.magics + 1
            result.statements += inner.statements
            result.magic_functions += inner.magic_functions
            continue
        if not keep(node):
            if _calls_ipython(node):
                result.magics += 1
            else:
                result.statements += 1
            continue
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            first = min([node.lineno] + [d.lineno for d in node.decorator_list]) - 1
            last = (node.end_lineno or node.lineno) - 1
            limit = body[index + 1].lineno - 1 if index + 1 < len(body) else len(lines.text)
            for following in body[index + 1 : index + 2]:
                limit = min([limit] + [d.lineno - 1 for d in getattr(following, "decorator_list", [])])
            while last + 1 < limit and lines.text[last + 1].strip().startswith("#"):
                last += 1  # comments right after a definition belong to it (### END SOLUTION)
            piece = _Piece("\n".join(lines.text[first : last + 1]), origins[first : last + 1])
            if _calls_ipython(node):
                result.magic_functions.append(f"{node.name} (cell {number})")
        else:
            piece = _Piece(
                lines.segment(node),
                origins[node.lineno - 1 : node.end_lineno],
                future=isinstance(node, ast.ImportFrom) and node.module == "__future__",
            )
        piece.lines = [line + offset for line in piece.lines]
        result.pieces.append(piece)
    return result


# ---------------------------------------------------------------------- a whole notebook
def notebook_code(
    data: bytes, keep_import: Callable[[str], bool] | None = None
) -> tuple[str, list[int], str, list[str], list[tuple[int, int]]]:
    """The gradable code of a notebook.

    Cells nbgrader marks as solutions (``metadata.nbgrader.solution``) if there are any, else
    every code cell. Each cell is read as IPython reads it (magics, shell escapes and help
    lines become ``get_ipython()`` calls) and parsed; only its top-level imports, functions,
    classes (with their decorators) and constant assignments are kept, each as its own exact
    source text, so demo lines, widgets, visible tests and anything sharing a line or a block
    with them do not run at grading time. ``from __future__`` imports go first. Returns
    ``(source, cells_used, selection, notes, line_map)``; cells are numbered from 1 among all
    the notebook's cells. ``ValueError`` says what is wrong with a notebook that cannot be
    read, or names the cell and line of a syntax error in a chosen cell.

    When solution cells are used, the imports of the other cells for which ``keep_import(name)``
    is true are kept too, so a solution relying on the notebook's set-up imports still works.
    """
    notebook = read_notebook_json(data)
    reader = _IPythonReader()
    cells = [(number, cell) for number, cell in enumerate(notebook["cells"], start=1) if cell["cell_type"] == "code"]
    solutions = [(n, c) for n, c in cells if (c.get("metadata", {}).get("nbgrader") or {}).get("solution") is True]
    chosen, selection = (solutions, "cells marked as solutions") if solutions else (cells, "all code cells")
    setup: list[tuple[int, _Piece]] = []
    if solutions and keep_import is not None:
        setup = _setup_imports(reader, cells, {n for n, _ in solutions}, keep_import)
    graded: list[tuple[int, list[_Piece]]] = []
    left_out = _CellCode()
    for number, cell in chosen:
        found = _cell_code(reader, _cell_source(number, cell), number, _is_definition)
        left_out.magics += found.magics
        left_out.statements += found.statements
        left_out.magic_functions += found.magic_functions
        if found.pieces:
            graded.append((number, found.pieces))
    source, line_map = _assemble(setup, graded)
    return source, [number for number, _ in graded], selection, _left_out_notes(left_out), line_map


def _setup_imports(
    reader: _IPythonReader,
    cells: list[tuple[int, dict]],
    solution_numbers: set[int],
    keep_import: Callable[[str], bool],
) -> list[tuple[int, _Piece]]:
    """The imports of the cells that are not solutions whose every name ``keep_import`` accepts
    (widget and display imports never): the set-up a solution may rely on."""

    def allowed_import(node: ast.stmt) -> bool:
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names = [node.module]
        else:
            return False
        return not _is_display_import(node) and all(keep_import(name) for name in names)

    setup: list[tuple[int, _Piece]] = []
    for number, cell in cells:
        if number not in solution_numbers:
            try:
                found = _cell_code(reader, _cell_source(number, cell), number, allowed_import)
            except _CellError:
                continue  # a broken set-up cell is not graded; its imports are not needed
            setup += [(number, piece) for piece in found.pieces]
    return setup


def _assemble(
    setup: list[tuple[int, _Piece]], graded: list[tuple[int, list[_Piece]]]
) -> tuple[str, list[tuple[int, int]]]:
    """The source and its line map (cell, line; ``(0, 0)`` for a blank separator): every
    ``from __future__`` import first, then the set-up imports, then each graded cell's pieces
    followed by a blank line."""
    pieces: list[str] = []
    line_map: list[tuple[int, int]] = []

    def add(number: int, piece: _Piece) -> None:
        pieces.append(piece.text)
        line_map.extend((number, line) for line in piece.lines)

    everything = setup + [(number, piece) for number, found in graded for piece in found]
    for number, piece in everything:
        if piece.future:
            add(number, piece)
    for number, piece in setup:
        if not piece.future:
            add(number, piece)
    for number, cell_pieces in graded:
        for piece in cell_pieces:
            if not piece.future:
                add(number, piece)
        pieces.append("")
        line_map.append((0, 0))
    return "\n".join(pieces), line_map


def _left_out_notes(left_out: _CellCode) -> list[str]:
    """What the feedback says about the lines of the graded cells that were not kept."""
    notes = []
    if left_out.magics:
        notes.append(f"{left_out.magics} magic or shell line(s) were left out.")
    if left_out.statements:
        notes.append(
            f"{left_out.statements} top-level statement(s) that are not definitions "
            "(demos, widgets, visible tests) were left out."
        )
    if left_out.magic_functions:
        notes.append(
            "IPython magics do not work at grading time, yet these use them: "
            + ", ".join(left_out.magic_functions)
            + "."
        )
    return notes
