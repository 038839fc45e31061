"""Each assignment's import rule accepts what its handout and its notebook import, and no more.

The rule of an assignment is its original template's imports plus its notebook's own set-up
imports. So a real student file that keeps the template's header (6.009's `import sys` /
`sys.setrecursionlimit(10000)`) loads, a notebook's set-up cell never loses an import, and an
import beyond both is refused with a message naming the line, the module and what is allowed.
"""

from __future__ import annotations

import ast

import nbformat
import pytest

from autograder.assignments import ASSIGNMENTS, get_assignment

#: Imports a notebook makes that its assignment refuses on purpose: the bots notebook runs games
#: with the arena, which a bot itself may not use (it could call the judge). Anything else a
#: notebook's set-up or solution cells import must be accepted.
#: Set-up imports the grader refuses on purpose: the bot's arena, and the "check my tests" cell's
#: checker, which runs the student's tests in their own kernel (graded code never needs it).
REFUSED_ON_PURPOSE = {("bots", "minesweeper_kit.arena")} | {
    (step, "minesweeper_kit.testcheck") for step in ("neighbors", "make-board", "flood-fill", "hypermines")
}

#: 6.009 Lab 3's lab.py header, kept by every real submission, and the end of the Fall 2018
#: lab.py (same class API), which runs the doctests when the file is run as a script.
LAB_HEADER = '"""6.009 Lab 3 -- HyperMines"""\n\nimport sys\nsys.setrecursionlimit(10000)\n# NO ADDITIONAL IMPORTS\n'
LAB_BODY = "\n\nclass HyperMinesGame:\n    def __init__(self, dimensions, bombs):\n        raise NotImplementedError\n"
LAB_MAIN = ("\n\nif __name__ == '__main__':\n    import doctest\n"
            "    _doctest_flags = doctest.NORMALIZE_WHITESPACE | doctest.ELLIPSIS\n"
            "    doctest.testmod(optionflags=_doctest_flags)\n")

#: Project 10 gives no template: students write minesweeper.py from its list of functions and
#: run the handout's scripted game under a main guard. Public submissions also import random
#: (random boards) and sys; the handout forbids neither.
PROJECT10_FILE = (
    "'''\nA student\nCSC 110, Project 10\n'''\nimport random\nimport sys\n\n\n"
    "def read_file(name):\n    with open(name) as f:\n        return f.read()\n\n\n"
    "if __name__ == '__main__':\n    grid = read_file('fiveByFive.txt')\n    moves = ['b0', 'c2']\n"
)

HYPERMINES_ALLOWED = "__future__, collections, contextlib, doctest, io, os, sys, tempfile, typing"


def notebook_imports(assignment_id: str) -> dict[str, set[str]]:
    """Modules imported by the notebook's set-up cells (locked, not solutions) and its solution
    cells, at any depth, keyed by "setup" and "solution"."""
    notebook = nbformat.read(str(get_assignment(assignment_id).notebook_path), as_version=4)
    found: dict[str, set[str]] = {"setup": set(), "solution": set()}
    for cell in notebook.cells:
        meta = cell.metadata.get("nbgrader", {})
        if cell.cell_type != "code" or not (meta.get("solution") or meta.get("locked")):
            continue
        kind = "solution" if meta.get("solution") else "setup"
        source = "\n".join("" if line.lstrip().startswith(("%", "!")) else line
                           for line in cell.source.splitlines())
        for node in ast.walk(ast.parse(source)):
            if isinstance(node, ast.Import):
                found[kind].update(alias.name for alias in node.names)
            elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
                found[kind].add(node.module)
    return found


@pytest.mark.parametrize("assignment_id", sorted(a for a in ASSIGNMENTS if ASSIGNMENTS[a].notebook))
def test_the_notebooks_own_imports_are_accepted(assignment_id):
    imports = notebook_imports(assignment_id)
    assert imports["setup"], f"{assignment_id}: no set-up imports found; did the notebook's cells change?"
    policy = get_assignment(assignment_id).import_policy()
    refused = sorted(name for name in imports["setup"] | imports["solution"]
                     if policy.is_denied(name) and (assignment_id, name) not in REFUSED_ON_PURPOSE)
    assert refused == [], f"{assignment_id} refuses imports its own notebook makes: {refused}"


def test_the_imports_refused_on_purpose_are_refused_and_unused_by_the_solutions():
    for assignment_id, name in sorted(REFUSED_ON_PURPOSE):
        imports = notebook_imports(assignment_id)
        assert name in imports["setup"], f"{assignment_id}'s set-up no longer imports {name}: drop the exception"
        assert name not in imports["solution"]
        assert get_assignment(assignment_id).import_policy().is_denied(name)


def test_the_original_lab_py_header_and_main_block_are_accepted():
    policy = get_assignment("hypermines").import_policy()
    assert policy.violations(LAB_HEADER + LAB_BODY + LAB_MAIN) == []


def test_a_project10_file_with_its_common_imports_is_accepted():
    assert get_assignment("neighbors").import_policy().violations(PROJECT10_FILE) == []


@pytest.mark.parametrize("extra, module", [
    ("import itertools", "itertools"),
    ("from itertools import product", "itertools"),
    ("import random", "random"),
    ("import numpy as np", "numpy"),
    ("import minesweeper_kit", "minesweeper_kit"),
])
def test_hypermines_refuses_an_extra_import_naming_line_module_and_the_allowed_list(extra, module):
    source = LAB_HEADER + extra + "\n" + LAB_BODY
    line = source.splitlines().index(extra) + 1
    assert get_assignment("hypermines").import_policy().violations(source) == [
        f"line {line}: import of '{module}' is not allowed in the hypermines assignment "
        f"(allowed: {HYPERMINES_ALLOWED})"]


def test_an_import_inside_a_method_is_found_on_its_own_line():
    source = LAB_HEADER + LAB_BODY + "\n    def neighbors(self, coords):\n        import itertools\n"
    line = source.splitlines().index("        import itertools") + 1
    (message,) = get_assignment("hypermines").import_policy().violations(source)
    assert message.startswith(f"line {line}: import of 'itertools' is not allowed in the hypermines assignment")


@pytest.mark.parametrize("assignment_id", ["neighbors", "make-board"])
def test_the_recursion_steps_refuse_itertools(assignment_id):
    source = "import random\nfrom itertools import product\n"
    assert get_assignment(assignment_id).import_policy().violations(source) == [
        f"line 2: import of 'itertools' is not allowed in the {assignment_id} assignment"]


def test_flood_fill_refuses_only_what_no_assignment_may_import():
    policy = get_assignment("flood-fill").import_policy()
    assert policy.violations("import random\nimport sys\nimport itertools\nimport collections\n") == []
    assert policy.violations("import random\nimport socket\n") == [
        "line 2: import of 'socket' is not allowed in the flood-fill assignment"]


def test_a_bot_may_use_the_kits_types_but_not_the_arena_or_the_judge():
    policy = get_assignment("bots").import_policy()
    source = ("import numpy as np\nfrom minesweeper_kit.bots import VIEW_FLAG, VIEW_UNKNOWN, Move\n"
              "from minesweeper_kit.arena import play_games\nimport minesweeper_kit.bots.solver\n")
    assert policy.violations(source) == [
        "line 3: import of 'minesweeper_kit.arena' is not allowed in the bots assignment",
        "line 4: import of 'minesweeper_kit.bots.solver' is not allowed in the bots assignment"]
