"""Imports go one way: no two modules of the kit or the grader import each other, however indirectly,
and the student's side (`mines lab`, its workspace build) never loads the grader.

The import graph is read from the source with `ast`, not from an interpreter, so every import
counts: at the top of a module, inside a function, under ``if TYPE_CHECKING:``. An import is an
edge to the module it reads from: ``from .x import name`` and ``import pkg.x`` lead to ``x``,
``from pkg import name`` to ``pkg.name`` when that is a module and to ``pkg`` (its
``__init__``) when it is not. The parent packages Python runs on the way are not edges: a
package's ``__init__`` that imports its own modules would otherwise always close a cycle. Names
given to ``importlib.import_module`` as strings are not seen (``mines``' command list).
"""

from __future__ import annotations

import ast
import functools
import json
import subprocess
import sys
import textwrap
from collections import deque
from dataclasses import dataclass
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("minesweeper_kit", "autograder")


@dataclass(frozen=True)
class Edge:
    """One import: the module that imports, the one it imports, and where (file and line)."""

    source: str
    target: str
    where: str


def module_files(root: Path, packages: tuple[str, ...]) -> dict[str, Path]:
    """Every module of the packages by its dotted name (a package by its ``__init__.py``)."""
    modules = {}
    for package in packages:
        for path in sorted((root / package).rglob("*.py")):
            if "__pycache__" in path.parts:
                continue
            parts = path.relative_to(root).with_suffix("").parts
            if parts[-1] == "__init__":
                parts = parts[:-1]
            modules[".".join(parts)] = path
    return modules


def import_edges(root: Path, packages: tuple[str, ...] = PACKAGES) -> dict[str, list[Edge]]:
    """Each module's imports of modules of the packages, in the order of their lines."""
    modules = module_files(root, packages)

    def known(name: str) -> str | None:
        """The module itself, or the nearest enclosing package that is one of ours."""
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, list[Edge]] = {}
    for name, path in modules.items():
        package = name if path.name == "__init__.py" else name.rpartition(".")[0]
        where = path.relative_to(root).as_posix()
        edges = graph[name] = []
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"), filename=str(path))):
            targets: list[str | None] = []
            if isinstance(node, ast.Import):
                targets = [known(alias.name) for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                if node.level:
                    base = package.split(".")[: len(package.split(".")) - (node.level - 1)]
                    origin = ".".join(base + ([node.module] if node.module else []))
                else:
                    origin = node.module or ""
                for alias in node.names:
                    submodule = f"{origin}.{alias.name}"
                    targets.append(submodule if submodule in modules else known(origin))
            for target in targets:
                if target is not None and target != name:
                    edges.append(Edge(name, target, f"{where}:{node.lineno}"))
        edges.sort(key=lambda edge: int(edge.where.rpartition(":")[2]))
    return graph


def cycles(graph: dict[str, list[Edge]]) -> list[tuple[list[str], list[Edge]]]:
    """Each group of modules that reach one another (Tarjan's strongly connected components), with
    one shortest cycle through it as the edges that close it; empty when imports go one way."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    groups: list[set[str]] = []

    def visit(module: str) -> None:
        index[module] = low[module] = len(index)
        stack.append(module)
        on_stack.add(module)
        for edge in graph[module]:
            if edge.target not in index:
                visit(edge.target)
                low[module] = min(low[module], low[edge.target])
            elif edge.target in on_stack:
                low[module] = min(low[module], index[edge.target])
        if low[module] == index[module]:
            group = set()
            while True:
                member = stack.pop()
                on_stack.discard(member)
                group.add(member)
                if member == module:
                    break
            if len(group) > 1:
                groups.append(group)

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return [(sorted(group), _shortest_cycle(graph, group)) for group in groups]


def _shortest_cycle(graph: dict[str, list[Edge]], group: set[str]) -> list[Edge]:
    """The shortest way from the group's first module (by name) back to itself, inside the group."""
    start = min(group)
    came_by: dict[str, Edge] = {}
    queue = deque([start])
    while queue:
        module = queue.popleft()
        for edge in graph[module]:
            if edge.target == start:
                path = [edge]
                while path[0].source != start:
                    path.insert(0, came_by[path[0].source])
                return path
            if edge.target in group and edge.target not in came_by:
                came_by[edge.target] = edge
                queue.append(edge.target)
    raise AssertionError(f"no cycle through {start}")  # not reached: the group is strongly connected


def describe(cycle: list[Edge]) -> str:
    """``a (a.py:3) -> b (b.py:9) -> a``: each module, the line of its import of the next."""
    return " -> ".join(f"{edge.source} ({edge.where})" for edge in cycle) + f" -> {cycle[0].source}"


@functools.cache
def project_graph() -> dict[str, list[Edge]]:
    return import_edges(ROOT)


def test_no_module_of_the_kit_or_the_grader_imports_itself_back():
    graph = project_graph()
    assert {"minesweeper_kit.game", "minesweeper_kit.rules", "autograder.cli"} <= set(graph)
    found = []
    for group, cycle in cycles(graph):
        found.append(describe(cycle))
        if len(group) > len(cycle):
            found.append(f"    (the same knot holds {', '.join(group)})")
    assert not found, "import cycles (break each by moving the shared piece to the module it belongs in):\n" + (
        "\n".join(found)
    )


def test_the_kit_never_imports_the_grader():
    """The kit is what students and bot writers install; the grader is built on it, never under it."""
    graph = project_graph()
    found = [
        f"{edge.source} ({edge.where}) -> {edge.target}"
        for module, edges in graph.items()
        if module.split(".")[0] == "minesweeper_kit"
        for edge in edges
        if edge.target.split(".")[0] == "autograder"
    ]
    assert not found, found


def test_the_graph_sees_imports_inside_functions_and_names_the_cycle(tmp_path):
    """The reader itself: a cycle closed by a relative import inside a function is found and
    named; a package's ``__init__`` importing its own module is not one."""
    files = {
        "pkg/__init__.py": "from .a import A\n",
        "pkg/a.py": "from .b import helper\n\nA = 1\n",
        "pkg/b.py": "def helper():\n    from . import a\n    return a.A\n",
        "pkg/sub/__init__.py": "",
        "pkg/sub/c.py": "import os\nimport pkg.b\nfrom .. import A\nfrom ..sub import d\n",
        "pkg/sub/d.py": "",
    }
    for name, text in files.items():
        (tmp_path / name).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / name).write_text(text)
    graph = import_edges(tmp_path, ("pkg",))
    assert [(e.target, e.where) for e in graph["pkg.sub.c"]] == [
        ("pkg.b", "pkg/sub/c.py:2"),
        ("pkg", "pkg/sub/c.py:3"),
        ("pkg.sub.d", "pkg/sub/c.py:4"),
    ]
    ((group, cycle),) = cycles(graph)
    assert group == ["pkg.a", "pkg.b"]
    assert describe(cycle) == "pkg.a (pkg/a.py:1) -> pkg.b (pkg/b.py:2) -> pkg.a"


# `mines lab` as the student runs it, up to the point where JupyterLab would replace the process:
# the `mines` parser (every subcommand's module), the notebooks found, the workspace built (one step
# missing, so nbgrader really runs), and then which modules of the grader were loaded.
LAB_SCRIPT = textwrap.dedent(
    """
    import json, sys
    from pathlib import Path

    import minesweeper_kit.lab as lab
    import minesweeper_kit.workspace as workspace
    from minesweeper_kit.cli import build_parser

    root, folder = Path(sys.argv[1]), Path(sys.argv[2])
    notebooks = lab.find_notebooks(root)
    assert notebooks == root / "notebooks", notebooks
    first, *others = workspace.step_notebooks().values()
    folder.mkdir()
    for name in others:
        (folder / name).write_text("{}")
    args, extra = build_parser().parse_known_args(["lab", "--workspace", str(folder)])
    chosen, message = lab.choose_folder(args)
    assert chosen == folder and (folder / first).is_file(), message
    print(json.dumps(sorted(m for m in sys.modules if m == "autograder" or m.startswith("autograder."))))
    """
)


@pytest.mark.slow
def test_mines_lab_builds_the_workspace_without_loading_the_grader(tmp_path):
    done = subprocess.run(
        [sys.executable, "-c", LAB_SCRIPT, str(ROOT), str(tmp_path / "workspace")],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    loaded = json.loads(done.stdout.strip().splitlines()[-1])
    assert loaded == [], f"`mines lab` loaded the grader: {loaded}"
