"""Read a notebook's gradable code: the cells IPython would run, each read the way IPython reads it.

Notebook cells are read the way IPython reads them (its own input transformers turn magics,
shell escapes and help lines into ``get_ipython()`` calls), then parsed; of each cell only
top-level definitions are kept, each as its own source segment. Reading never runs a cell.
"""

from __future__ import annotations

import ast
import json
import re
import warnings
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from minesweeper_kit.owntests.source import DISPLAY_MODULES, CodeCell
from minesweeper_kit.owntests.source import is_definition as _is_definition
from minesweeper_kit.owntests.source import is_display_import as _is_display_import

if TYPE_CHECKING:
    from IPython.core.inputtransformer2 import TransformerManager

__all__ = ["notebook_code", "read_notebook_json", "cell_labels", "test_cells", "CourseCells", "DISPLAY_MODULES"]

#: The id of the notebooks' "check my tests" cell, never one of the student's tests.
CHECK_CELL = "check-own-tests"
#: How much code IPython may read for one notebook, in characters. IPython reads a whole cell
#: again after each magic it rewrites, so a cell counts its length (plus a fixed cost per cell)
#: once, and once more for each line in it that may be a magic or shell command. The course's
#: notebooks come to about 20,000; a notebook at the limit takes IPython a few seconds, and
#: without a limit a crafted one could keep the grader busy for hours.
IPYTHON_WORK_LIMIT = 250_000
CELL_COST = 200
#: CodeCell magics that run their body as Python in the notebook's namespace: the body is read
#: as a cell of its own.
PYTHON_CELL_MAGICS = {"time", "capture"}


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


# ---------------------------------------------------------------------- naming a cell
#: An exercise's heading in a markdown cell: **Exercise 1.4.**
_EXERCISE = re.compile(r"\*\*Exercise (\d+(?:\.\d+)*)\.?\*\*")
#: How much of a cell's first line a label shows.
_FIRST_LINE = 50


def _text(cell: dict) -> str:
    source = cell.get("source", "")
    if isinstance(source, list) and all(isinstance(item, str) for item in source):
        return "".join(source)
    return source if isinstance(source, str) else ""


def _first_line(text: str) -> str:
    line = next((line.strip() for line in text.splitlines() if line.strip()), "")
    return line if len(line) <= _FIRST_LINE else line[: _FIRST_LINE - 3] + "..."


def cell_labels(data: bytes) -> list[tuple[int, str]]:
    """How feedback names each code cell (numbered from 1 among all cells), since JupyterLab shows
    no cell numbers: the first solution cell after an exercise's heading by the exercise
    ("Exercise 1.4"), any other by its first line ('the cell starting "def helper(x):"').
    ``ValueError`` when the notebook cannot be read."""
    notebook = read_notebook_json(data)
    labels, exercise = [], None
    for number, cell in enumerate(notebook["cells"], start=1):
        if cell["cell_type"] == "markdown":
            found = _EXERCISE.search(_text(cell))
            exercise = found.group(1) if found else exercise
        elif cell["cell_type"] == "code":
            solution = (cell.get("metadata", {}).get("nbgrader") or {}).get("solution") is True
            if solution and exercise:
                labels.append((number, f"Exercise {exercise}"))
                exercise = None
            else:
                labels.append((number, f'the cell starting "{_first_line(_text(cell))}"'))
    return labels


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
    name: str = ""  #: the function or class it defines, if it is one


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


def _parse(
    reader: _IPythonReader, text: str, number: int, label: str | None = None
) -> tuple[ast.Module, _Lines, list[int]]:
    """The cell as IPython runs it, parsed; ``_CellError`` names the cell (by ``label`` when
    given, see :func:`cell_labels`) and the line at fault."""
    python = reader.transform(text, number)
    lines = _Lines(python)
    origins = _origins((text if text.endswith("\n") else text + "\n").split("\n"), lines.text)
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(python)
    except SyntaxError as error:
        where = origins[error.lineno - 1] if error.lineno and 0 < error.lineno <= len(origins) else None
        name = label or f"cell {number}"
        place = f"{name}, line {where}" if where else name
        raise _CellError(f"{type(error).__name__} in {place}: {error.msg}") from None
    except (RecursionError, MemoryError):
        raise _CellError(f"cell {number} is nested too deeply for Python to read") from None
    except ValueError as error:
        raise _CellError(f"cell {number} cannot be read as Python: {error}") from None
    return tree, lines, origins


def _cell_code(
    reader: _IPythonReader,
    text: str,
    number: int,
    keep: Callable[[ast.stmt], bool],
    offset: int = 0,
    label: str | None = None,
) -> _CellCode:
    """The statements ``keep`` accepts among a cell's top-level ones, each its own exact text."""
    tree, lines, origins = _parse(reader, text, number, label)
    result = _CellCode()
    body = tree.body
    for index, node in enumerate(body):
        magic = _cell_magic_body(node)
        if magic is not None:
            inner = _cell_code(reader, magic[1], number, keep, offset + origins[node.lineno - 1], label)
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
            piece = _Piece("\n".join(lines.text[first : last + 1]), origins[first : last + 1], name=node.name)
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
@dataclass(frozen=True)
class CourseCells:
    """The code cells the course's own notebook holds (ids and texts): any other code cell a
    student's notebook holds, outside nbgrader's cells, is one the student added."""

    ids: frozenset[str] = frozenset()
    texts: frozenset[str] = frozenset()

    @classmethod
    def of(cls, data: bytes) -> CourseCells:
        """The code cells of the course's notebook (its source or release version)."""
        notebook = read_notebook_json(data)
        code = [(n, c) for n, c in enumerate(notebook["cells"], start=1) if c["cell_type"] == "code"]
        ids = frozenset(str(c["id"]) for _, c in code if isinstance(c.get("id"), str))
        return cls(ids, frozenset(_cell_source(n, c).strip() for n, c in code))

    def added(self, number: int, cell: dict) -> bool:
        """Whether a student's code cell is their own: no nbgrader role, and neither the id nor the
        text of one of the course's cells."""
        if (cell.get("metadata", {}).get("nbgrader") or {}).get("grade_id"):
            return False
        if isinstance(cell.get("id"), str) and cell["id"] in self.ids:
            return False
        return _cell_source(number, cell).strip() not in self.texts


def notebook_code(
    data: bytes, keep_import: Callable[[str], bool] | None = None, course_cells: CourseCells | None = None
) -> tuple[str, list[int], str, list[str], list[tuple[int, int]]]:
    """The gradable code of a notebook.

    Cells nbgrader marks as solutions (``metadata.nbgrader.solution``) if there are any, else
    every code cell. With ``course_cells`` (the course notebook's own cells), the cells a student
    added are graded too, in the notebook's order as nbgrader runs them, so an answer written in a
    new cell counts (a later definition replaces an earlier one, as when the notebook runs; the
    notes say where each graded definition of an added cell came from). Each cell is read as
    IPython reads it (magics, shell escapes and help lines become ``get_ipython()`` calls) and
    parsed; only its top-level imports, functions, classes (with their decorators) and constant
    assignments are kept, each as its own exact source text, so demo lines, widgets, visible
    tests and anything sharing a line or a block with them do not run at grading time.
    ``from __future__`` imports go first. Returns ``(source, cells_used, selection, notes,
    line_map)``; cells are numbered from 1 among all the notebook's cells. ``ValueError`` says
    what is wrong with a notebook that cannot be read, or names the cell and line of a syntax
    error in a chosen cell.

    When solution cells are used, the imports of the other cells for which ``keep_import(name)``
    is true are kept too, so a solution relying on the notebook's set-up imports still works.
    """
    notebook = read_notebook_json(data)
    reader = _IPythonReader()
    cells = [(number, cell) for number, cell in enumerate(notebook["cells"], start=1) if cell["cell_type"] == "code"]
    solutions = [(n, c) for n, c in cells if (c.get("metadata", {}).get("nbgrader") or {}).get("solution") is True]
    added: set[int] = set()
    solution_numbers = {m for m, _ in solutions}  # a set: a notebook may hold a great many cells
    if solutions and course_cells is not None:
        added = {n for n, c in cells if n not in solution_numbers and course_cells.added(n, c)}
    chosen = [(n, c) for n, c in cells if n in added or n in solution_numbers]
    if not solutions:
        chosen, selection = cells, "all code cells"
    elif added:
        selection = "cells marked as solutions and the cells you added"
    else:
        selection = "cells marked as solutions"
    setup: list[tuple[int, _Piece]] = []
    if solutions and keep_import is not None:
        setup = _setup_imports(reader, cells, {n for n, _ in chosen}, keep_import)
    graded: list[tuple[int, list[_Piece]]] = []
    left_out = _CellCode()
    labels = dict(cell_labels(data))
    for number, cell in chosen:
        found = _cell_code(reader, _cell_source(number, cell), number, _is_definition, label=labels.get(number))
        left_out.magics += found.magics
        left_out.statements += found.statements
        left_out.magic_functions += found.magic_functions
        if found.pieces:
            graded.append((number, found.pieces))
    source, line_map = _assemble(setup, graded)
    notes = _origin_notes(graded, added) + _left_out_notes(left_out)
    return source, [number for number, _ in graded], selection, notes, line_map


def test_cells(data: bytes) -> list[CodeCell]:
    """The cells a notebook's own tests are read from (see ``minesweeper_kit.owntests.source``):
    every code cell but those nbgrader grades (the visible and hidden tests) and the "check my
    tests" cell, each as IPython runs it and named as feedback names it. A cell IPython cannot
    read is left out."""
    notebook = read_notebook_json(data)
    reader = _IPythonReader()
    labels = dict(cell_labels(data))
    found = []
    for number, cell in enumerate(notebook["cells"], start=1):
        if cell["cell_type"] != "code":
            continue
        meta = cell.get("metadata", {}).get("nbgrader") or {}
        text = _cell_source(number, cell)
        if meta.get("grade") is True or cell.get("id") == CHECK_CELL or "check_my_tests(" in text:
            continue
        try:
            python = reader.transform(text, number)
        except _CellError:
            continue
        found.append(CodeCell(labels.get(number, f"cell {number}"), python))
    return found


def _origin_notes(graded: list[tuple[int, list[_Piece]]], added: set[int]) -> list[str]:
    """Where the definitions of the cells a student added came from, and which of them replace an
    earlier definition of the same name (the later one is graded, as when the notebook runs)."""
    where: dict[str, list[int]] = {}
    for number, pieces in graded:
        for piece in pieces:
            if piece.name:
                where.setdefault(piece.name, []).append(number)
    notes = []
    mine = [(name, cells[-1]) for name, cells in where.items() if cells[-1] in added]
    if mine:
        shown = ", ".join(f"{name} (cell {cell})" for name, cell in mine)
        notes.append(f"Graded from cells you added: {shown}.")
    for name, cells in where.items():
        if len(cells) > 1:
            earlier = ", ".join(str(c) for c in cells[:-1])
            notes.append(
                f"{name} is defined in cell {earlier} and again in cell {cells[-1]}: the last one is graded, "
                "as when the notebook runs."
            )
    return notes


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
