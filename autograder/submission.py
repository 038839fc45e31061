"""Find the students in what the instructor hands the grader and turn each submission into source.

A SUBMISSION argument is a ``.py`` file, a ``.ipynb`` notebook, a folder of one student, or an
nbgrader course's ``submitted/`` folder (one student per sub-folder). Reading never raises for
a student's mistake: an unreadable file becomes a :class:`Submission` whose ``problem`` says
what is wrong, so one broken submission never stops a batch.
"""

from __future__ import annotations

import ast
import json
import io
import re
import tokenize
from dataclasses import dataclass, field
from pathlib import Path

__all__ = ["Submission", "discover", "read_submission", "notebook_code"]

CODE_SUFFIXES = (".py", ".ipynb")
#: File names that say nothing about who wrote them: the student is the folder's name.
GENERIC_STEMS = {"lab", "minesweeper", "main", "submission", "solution", "bot", "notebook"}
#: Module names whose imports are widget or display plumbing, dropped from notebooks.
DISPLAY_MODULES = ("ipywidgets", "IPython", "minesweeper_kit.widgets", "anywidget", "matplotlib")
#: Calls allowed in a kept top-level assignment (anything else is demo code).
CONSTANT_CALLS = {"set", "frozenset", "dict", "list", "tuple", "range", "object", "namedtuple",
                  "TypeVar", "NamedTuple", "str", "int", "float", "bool", "field", "dataclass"}


@dataclass
class Submission:
    """One student's code, ready for the sandbox, and what was done to get it."""

    student: str
    path: Path
    source: str = ""
    filename: str = "submission.py"
    kind: str = "python"                  #: "python" or "notebook"
    cells_used: list[int] = field(default_factory=list)
    selection: str = ""                   #: how the notebook's cells were chosen
    notes: list[str] = field(default_factory=list)
    problem: str | None = None            #: why the submission cannot be graded at all
    line_map: list[tuple[int, int]] = field(default_factory=list)  #: source line -> (cell, line)

    @property
    def module_name(self) -> str:
        stem = Path(self.filename).stem
        return stem if stem.isidentifier() else "submission"

    def describe(self) -> str:
        """One paragraph for the feedback: which file and which cells were graded."""
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


def _student_name(path: Path) -> str:
    stem = path.stem
    if stem.lower() in GENERIC_STEMS or re.fullmatch(r"\d\d-[\w-]+", stem):
        return path.parent.name or stem
    return stem


def _code_files(folder: Path) -> list[Path]:
    return sorted(p for p in folder.rglob("*") if p.suffix in CODE_SUFFIXES and p.is_file()
                  and not any(part.startswith(".") for part in p.relative_to(folder).parts))


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


def discover(paths: list[Path], preferred: tuple[str, ...] = ()) -> list[tuple[str, Path | None]]:
    """``(student, file)`` pairs for the given arguments, in a stable order.

    A folder that holds code files directly is one student; a folder that holds only
    sub-folders (an nbgrader ``submitted/`` folder) has one student per sub-folder. A student
    folder without code gives ``(student, None)``.
    """
    found: list[tuple[str, Path | None]] = []
    for raw in paths:
        path = Path(raw)
        if not path.exists():
            raise ValueError(f"submission not found: {path}")
        if path.is_file():
            if path.suffix not in CODE_SUFFIXES:
                raise ValueError(f"a submission file must be .py or .ipynb, got {path.name}")
            found.append((_student_name(path), path))
            continue
        direct = [p for p in path.iterdir() if p.is_file() and p.suffix in CODE_SUFFIXES]
        if direct:
            found.append((path.name, _pick(sorted(direct), preferred)))
            continue
        for student_dir in sorted(p for p in path.iterdir() if p.is_dir() and not p.name.startswith(".")):
            found.append((student_dir.name, _pick(_code_files(student_dir), preferred)))
    seen: dict[str, int] = {}
    unique = []
    for student, file in found:
        seen[student] = seen.get(student, 0) + 1
        unique.append((student if seen[student] == 1 else f"{student}-{seen[student]}", file))
    return unique


def _decode(data: bytes, name: str) -> str:
    """Source text as Python reads it: UTF-8 unless a PEP 263 coding line says otherwise."""
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError:
        encoding = "utf-8"  # no usable declaration: Python's default, whose error is clearer
    except LookupError as error:
        raise ValueError(f"{name} declares an unknown source encoding ({error})") from None
    try:
        return data.decode(encoding)
    except UnicodeDecodeError as error:
        raise ValueError(f"{name} is not valid {encoding.upper()} text: byte 0x{data[error.start]:02x} at "
                         f"position {error.start} cannot be decoded; save the file as UTF-8") from None
    except LookupError as error:
        raise ValueError(f"{name} declares an unknown source encoding ({error})") from None


def read_submission(student: str, path: Path | None, keep_import=None) -> Submission:
    """Read one student's file into a :class:`Submission`; problems are recorded, not raised."""
    if path is None:
        return Submission(student, Path(student), problem="no .py or .ipynb file was found in the submission")
    submission = Submission(student, path, filename=path.name if path.suffix == ".py" else "submission.py",
                            kind="python" if path.suffix == ".py" else "notebook")
    if submission.kind == "python" and not Path(submission.filename).stem.isidentifier():
        submission.filename = "submission.py"
    try:
        data = path.read_bytes()
    except OSError as error:
        submission.problem = f"the file could not be read: {error.strerror}"
        return submission
    if submission.kind == "python":
        try:
            submission.source = _decode(data, path.name)
        except ValueError as error:
            submission.problem = str(error)
        return submission
    try:
        code = notebook_code(data, keep_import)
    except ValueError as error:
        submission.problem = str(error)
        return submission
    submission.source, submission.cells_used, submission.selection, submission.notes, submission.line_map = code
    if not submission.source.strip():
        submission.problem = "the notebook has no code to grade (no code cells with definitions)"
    return submission


def _is_magic(line: str) -> bool:
    stripped = line.lstrip()
    return stripped.startswith(("%", "!")) or (stripped.endswith("?") and not stripped.startswith("#")
                                               and "(" not in stripped)


def _is_display_import(node: ast.stmt) -> bool:
    if isinstance(node, ast.Import):
        return all(alias.name.startswith(DISPLAY_MODULES) for alias in node.names)
    if isinstance(node, ast.ImportFrom):
        return bool(node.module) and node.module.startswith(DISPLAY_MODULES)
    return False


def _is_definition(node: ast.stmt) -> bool:
    """Top-level statements kept from a notebook: imports, functions, classes, constants."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return not _is_display_import(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Try)):
        return True
    if isinstance(node, (ast.Assign, ast.AnnAssign)) and node.value is not None:
        for sub in ast.walk(node.value):
            if isinstance(sub, ast.Call):
                name = sub.func.id if isinstance(sub.func, ast.Name) else getattr(sub.func, "attr", "")
                if name not in CONSTANT_CALLS:
                    return False
        return True
    return False


def read_notebook_json(data: bytes) -> dict:
    """A notebook's JSON, checked only for what grading reads (a list of cells that are dicts).

    Deliberately not nbformat: its schema validation imports format checkers that take seconds
    to load, a cost every submission would pay, and grading needs none of it.
    """
    try:
        notebook = json.loads(data.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        reason = str(error).splitlines()[0][:200]
        raise ValueError(f"the notebook could not be read (corrupt .ipynb?): {reason}") from None
    if not isinstance(notebook, dict) or not isinstance(notebook.get("cells"), list) \
            or not all(isinstance(cell, dict) for cell in notebook["cells"]):
        raise ValueError("the notebook could not be read (corrupt .ipynb?): it has no list of cells")
    if notebook.get("nbformat", 4) < 4:
        raise ValueError("the notebook is in an old format (nbformat 3 or earlier): save it again with Jupyter 4+")
    return notebook


def notebook_code(data: bytes, keep_import=None):
    """The gradable code of a notebook.

    Cells nbgrader marks as solutions (``metadata.nbgrader.solution``) if there are any, else
    every code cell; magics and shell lines are dropped, and of what parses only top-level
    definitions (imports, functions, classes, constant assignments) are kept, so demo lines,
    widgets and visible tests do not run at grading time. A cell that does not parse is kept
    whole, so the student sees its syntax error. Returns ``(source, cells_used, selection,
    notes, line_map)``; cells are numbered from 1 among all the notebook's cells.

    When solution cells are used, the imports of the other cells for which ``keep_import(name)``
    is true are kept too, so a solution relying on the notebook's set-up imports still works.
    """
    notebook = read_notebook_json(data)
    cells = [(number, cell) for number, cell in enumerate(notebook["cells"], start=1)
             if cell.get("cell_type") == "code"]
    solutions = [(n, c) for n, c in cells
                 if (c.get("metadata", {}).get("nbgrader", {}) or {}).get("solution") is True]
    chosen, selection = (solutions, "cells marked as solutions") if solutions else (cells, "all code cells")
    pieces: list[str] = []
    line_map: list[tuple[int, int]] = []
    used: list[int] = []
    if solutions and keep_import is not None:
        solution_numbers = {n for n, _ in solutions}
        for number, cell in cells:
            if number in solution_numbers:
                continue
            source = cell.get("source", "")
            source = "".join(source) if isinstance(source, list) else str(source)
            try:
                tree = ast.parse("\n".join("" if _is_magic(l) else l for l in source.splitlines()))
            except SyntaxError:
                continue
            lines = source.splitlines()
            for node in tree.body:
                if isinstance(node, (ast.Import, ast.ImportFrom)) and not _is_display_import(node):
                    names = [a.name for a in node.names] if isinstance(node, ast.Import) else [node.module or ""]
                    if node.lineno == node.end_lineno and all(keep_import(n) for n in names):
                        pieces.append(lines[node.lineno - 1])
                        line_map.append((number, node.lineno))
    dropped_magics = dropped_statements = 0
    for number, cell in chosen:
        source = cell.get("source", "")
        source = "".join(source) if isinstance(source, list) else str(source)
        lines = source.splitlines()
        kept_lines = []
        for index, line in enumerate(lines, start=1):
            if _is_magic(line):
                dropped_magics += 1
                kept_lines.append((index, ""))
            else:
                kept_lines.append((index, line))
        text = "\n".join(line for _, line in kept_lines)
        try:
            tree = ast.parse(text)
        except SyntaxError:
            selected = list(range(1, len(kept_lines) + 1))
        else:
            selected = []
            starts = [min([n.lineno] + [d.lineno for d in getattr(n, "decorator_list", [])]) for n in tree.body]
            for index, node in enumerate(tree.body):
                if _is_definition(node):
                    end = node.end_lineno
                    limit = starts[index + 1] - 1 if index + 1 < len(starts) else len(kept_lines)
                    while end < limit and kept_lines[end][1].strip().startswith("#"):
                        end += 1  # trailing comments belong to the definition (### END SOLUTION)
                    selected.extend(range(starts[index], end + 1))
                else:
                    dropped_statements += 1
        if not selected:
            continue
        used.append(number)
        for line_number in selected:
            pieces.append(kept_lines[line_number - 1][1])
            line_map.append((number, line_number))
        pieces.append("")
        line_map.append((0, 0))
    notes = []
    if dropped_magics:
        notes.append(f"{dropped_magics} magic or shell line(s) were left out.")
    if dropped_statements:
        notes.append(f"{dropped_statements} top-level statement(s) that are not definitions "
                     "(demos, widgets, visible tests) were left out.")
    return "\n".join(pieces), used, selection, notes, line_map
