"""The student's tests as one file: read from a notebook's cells the way the grader reads a notebook.

A notebook's tests are not a file of their own: they are ``test_*`` functions and ``Test*``
classes in the student's cells, next to helpers they wrote and the set-up cell's helpers the
notebook invites them to use (``check``, ``printed_by``). The tests' file is every definition
(imports, functions, classes, constants: the grader's reading rule, :func:`is_definition`) of
every code cell but the notebook's own test cells and the check cell, in the notebook's order,
with the step's own names taken out, so that the stand-ins answer for them. The grader reads the
cells from the notebook file (``autograder/own_tests.py``), the check cell from what the kernel
ran (``testcheck.py``); both build the file here.

:func:`failable` tells which tests can fail at all: a test with no assertion, no comparison that
raises and no expected exception passes whatever the code does, and does not count toward a
step's requirement.
"""

from __future__ import annotations

import ast
import builtins
from collections.abc import Iterable
from dataclasses import dataclass

__all__ = [
    "CONSTANT_CALLS",
    "DISPLAY_MODULES",
    "CodeCell",
    "TestsSource",
    "defined",
    "failable",
    "is_definition",
    "tests_from_cells",
    "without_names",
]

#: Module names whose imports are widget or display plumbing, dropped from notebooks.
DISPLAY_MODULES = ("ipywidgets", "IPython", "minesweeper_kit.widgets", "anywidget", "matplotlib")
#: Calls allowed in a kept top-level assignment (anything else is demo code).
CONSTANT_CALLS = frozenset(
    {
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
)


def is_display_import(node: ast.stmt) -> bool:
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


def is_definition(node: ast.stmt) -> bool:
    """Top-level statements kept from a notebook: imports, functions, classes, constants."""
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return not is_display_import(node)
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return True
    return _is_constant_assignment(node)


def defined(node: ast.stmt) -> set[str]:
    """The names a top-level statement binds."""
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return {node.name}
    if isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign)):
        targets = node.targets if isinstance(node, ast.Assign) else [node.target]
        return {t.id for t in targets if isinstance(t, ast.Name)}
    if isinstance(node, (ast.Import, ast.ImportFrom)):
        return {(a.asname or a.name).split(".")[0] for a in node.names}
    return set()


def without_names(source: str, names: Iterable[str]) -> str | None:
    """``source`` with every top-level statement that defines one of ``names`` blanked out (line
    numbers kept); None when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    wanted = set(names)
    lines = source.splitlines()
    for node in tree.body:
        if wanted & defined(node):
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            for index in range(first - 1, node.end_lineno or node.lineno):
                lines[index] = ""
    return "\n".join(lines) + "\n"


@dataclass(frozen=True)
class CodeCell:
    """One code cell as Python runs it (IPython's transformations applied) and how to name it."""

    label: str  #: "Exercise 1.7", 'the cell starting "def helper"', "In [12]"
    text: str


@dataclass(frozen=True)
class TestsSource:
    """The tests' file and, for each of its lines, the cell and the line in it it came from."""

    __test__ = False  # not a test class, whatever pytest's name rule says

    source: str
    lines: tuple[tuple[str, int], ...]  #: file line N (from 1) -> (cell label, line in it); ("", 0): none

    def where(self, line: int | None) -> str:
        """A line of the file as the student knows it: ``Exercise 1.7, line 5``."""
        if line is None or not 0 < line <= len(self.lines) or not self.lines[line - 1][0]:
            return ""
        label, number = self.lines[line - 1]
        return f"{label}, line {number}"


def _unbound(node: ast.stmt, known: set[str]) -> bool:
    """Whether a kept assignment reads a name nothing kept before it binds (a demo's ``row = [...
    for cell in cells]`` whose ``cells`` came from a line that is not a definition): running it
    would stop the whole file."""
    if not isinstance(node, (ast.Assign, ast.AnnAssign)) or node.value is None:
        return False
    local: set[str] = set()
    for sub in ast.walk(node.value):
        if isinstance(sub, ast.comprehension):
            local |= {n.id for n in ast.walk(sub.target) if isinstance(n, ast.Name)}
        elif isinstance(sub, ast.Lambda):
            local |= {a.arg for a in sub.args.args + sub.args.kwonlyargs}
    read = {n.id for n in ast.walk(node.value) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Load)}
    return bool(read - local - known - set(dir(builtins)))


def tests_from_cells(cells: Iterable[CodeCell], names: Iterable[str]) -> TestsSource:
    """The tests' file of a notebook: every definition of ``cells`` (in order; a cell that does not
    parse is left out) but those of ``names``, ``from __future__`` imports first. A constant that
    reads a name no kept statement binds is left out too."""
    wanted = set(names)
    known = set(wanted)
    future: list[tuple[list[str], list[tuple[str, int]]]] = []
    body: list[tuple[list[str], list[tuple[str, int]]]] = []
    for cell in cells:
        try:
            tree = ast.parse(cell.text)
        except (SyntaxError, ValueError, RecursionError, MemoryError):
            continue
        lines = cell.text.splitlines()
        for index, node in enumerate(tree.body):
            if not is_definition(node) or wanted & defined(node) or _unbound(node, known):
                continue
            known |= defined(node)
            first = min([node.lineno] + [d.lineno for d in getattr(node, "decorator_list", [])])
            last = node.end_lineno or node.lineno
            following = tree.body[index + 1] if index + 1 < len(tree.body) else None
            limit = len(lines)
            if following is not None:
                limit = min([following.lineno] + [d.lineno for d in getattr(following, "decorator_list", [])]) - 1
            while last < limit and lines[last].strip().startswith("#"):
                last += 1  # comments right after a definition belong to it (### END SOLUTION)
            piece = (lines[first - 1 : last], [(cell.label, n) for n in range(first, last + 1)])
            if isinstance(node, ast.ImportFrom) and node.module == "__future__":
                future.append(piece)
            else:
                body.append(piece)
        if body:
            body.append(([""], [("", 0)]))
    text: list[str] = []
    where: list[tuple[str, int]] = []
    for piece_lines, piece_where in future + body:
        text += piece_lines
        where += piece_where
    return TestsSource("\n".join(text) + "\n", tuple(where))


tests_from_cells.__test__ = False  # type: ignore[attr-defined]  # not a test, whatever pytest's name rule says


# ------------------------------------------------------------------ tests that can fail
#: Calls that check something by their name alone: ``self.assertEqual``, ``pytest.raises``,
#: ``pytest.fail``, ``self.fail``, ``numpy.testing.assert_equal``.
_CHECKS = ("assert",)
_CHECK_NAMES = ("fail", "raises", "warns")


def failable(source: str) -> dict[str, bool]:
    """For each test function and test method of ``source`` (named as the runner names them:
    ``test_one``, ``TestTiny.test_two``), whether it can fail: whether it holds, or calls a
    helper of the file that holds, an ``assert``, a ``raise``, or a call of an assertion or an
    expected exception (``self.assertEqual``, ``pytest.raises``, ``self.fail``; the set-up
    cell's ``check`` raises, so a test calling it can fail)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return {}
    functions = {node.name: node for node in tree.body if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))}
    classes = {node.name: node for node in tree.body if isinstance(node, ast.ClassDef)}
    memo: dict[int, bool] = {}

    def methods_of(cls: ast.ClassDef) -> dict[str, ast.AST]:
        found: dict[str, ast.AST] = {}
        for base in cls.bases:
            if isinstance(base, ast.Name) and base.id in classes and base.id != cls.name:
                found.update(methods_of(classes[base.id]))
        for item in cls.body:
            if isinstance(item, (ast.FunctionDef, ast.AsyncFunctionDef)):
                found[item.name] = item
        return found

    def can_fail(node: ast.AST, methods: dict[str, ast.AST], depth: int = 0) -> bool:
        if id(node) in memo:
            return memo[id(node)]
        memo[id(node)] = False  # a helper calling itself proves nothing
        result = False
        for sub in ast.walk(node):
            if isinstance(sub, (ast.Assert, ast.Raise)):
                result = True
            elif isinstance(sub, ast.Call):
                name = sub.func.id if isinstance(sub.func, ast.Name) else getattr(sub.func, "attr", "")
                if name.startswith(_CHECKS) or name in _CHECK_NAMES:
                    result = True
                elif depth < 20:
                    helper: ast.AST | None = None
                    if isinstance(sub.func, ast.Name) and name in functions:
                        helper = functions[name]
                    elif isinstance(sub.func, ast.Attribute) and name in methods:
                        helper = methods[name]
                    if helper is not None and can_fail(helper, methods, depth + 1):
                        result = True
            if result:
                break
        memo[id(node)] = result
        return result

    found: dict[str, bool] = {}
    for name, node in functions.items():
        if name.startswith("test"):
            found[name] = can_fail(node, {})
    for name, cls in classes.items():
        if not name.startswith("Test") and not any(
            (isinstance(b, ast.Attribute) and b.attr == "TestCase") or (isinstance(b, ast.Name) and b.id == "TestCase")
            for b in cls.bases
        ):
            continue
        methods = methods_of(cls)
        fixtures = [methods[m] for m in ("setUp", "setup_method", "setUpClass") if m in methods]
        for method, body in methods.items():
            if method.startswith("test"):
                found[f"{name}.{method}"] = can_fail(body, methods) or any(can_fail(f, methods) for f in fixtures)
    return found


def method_of(name: str) -> str:
    """The function or method a test's name (a parametrized case, a subTest's row) belongs to."""
    return name.split(" [", 1)[0].split(" (", 1)[0].split("[", 1)[0]
