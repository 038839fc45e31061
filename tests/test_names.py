"""Names that say one thing: no public class, function or constant is defined twice across the
kit and the grader (the command modules' entry points excepted), and neighbours is spelled once."""

from __future__ import annotations

import ast
import collections
import pathlib

REPO = pathlib.Path(__file__).resolve().parents[1]
PACKAGES = ("minesweeper_kit", "autograder")
#: Entry points every command module has by convention (`mines` and `autograder` call them).
ENTRY_POINTS = {"main", "register", "run", "build_parser"}


def module_files():
    for package in PACKAGES:
        for path in sorted((REPO / package).rglob("*.py")):
            # the hidden suites, and the check cell's implementations of the students' steps (the
            # handouts' API, spelled as the handouts spell it), are not the packages' API
            if "instructor" not in path.parts and path.parent.name != "public":
                yield path


def defined_names(tree: ast.Module):
    """Top-level public names a module defines (a plain re-export `X = module.X` is not a definition)."""
    for node in tree.body:
        if isinstance(node, (ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            yield node.name
        elif isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if not isinstance(target, ast.Name):
                    continue
                if isinstance(node.value, ast.Attribute) and node.value.attr == target.id:
                    continue
                yield target.id


def test_no_public_name_is_defined_in_two_modules():
    homes = collections.defaultdict(list)
    for path in module_files():
        for name in defined_names(ast.parse(path.read_text())):
            if not name.startswith("_") and name not in ENTRY_POINTS:
                homes[name].append(path.relative_to(REPO).as_posix())
    assert {name: files for name, files in homes.items() if len(files) > 1} == {}


def test_the_kit_spells_neighbours_one_way():
    """The kit's own API says `neighbours`; the students' `neighbors` is the handouts' spelling."""
    spelled = []
    for path in module_files():
        for node in ast.walk(ast.parse(path.read_text())):
            if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and "neighbors" in node.name.lower():
                spelled.append(f"{path.relative_to(REPO)}:{node.lineno} {node.name}")
    assert spelled == []
