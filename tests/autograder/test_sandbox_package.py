"""The sandbox is a package of the kit on its own: it never imports the grader, and its wire is
written down in full in ``protocol.py``."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_kit.sandbox import protocol

SANDBOX = Path(__file__).resolve().parents[2] / "minesweeper_kit" / "sandbox"
MODULES = sorted(SANDBOX.glob("*.py"))


def imported_names(path: Path) -> set[str]:
    """Every module an ``import`` anywhere in the file names (inside functions too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            found.update(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.add(node.module)
    return found


@pytest.mark.parametrize("path", MODULES, ids=lambda p: p.name)
def test_no_sandbox_module_imports_the_grader(path):
    assert not {name for name in imported_names(path) if name.split(".")[0] == "autograder"}


def test_the_sandbox_imports_with_the_grader_unimportable():
    names = ", ".join(f"minesweeper_kit.sandbox.{p.stem}" for p in MODULES if p.name not in ("__init__.py", "child.py"))
    script = (
        "import sys\n"
        "sys.modules['autograder'] = None  # any import of it now raises ImportError\n"
        f"import minesweeper_kit.sandbox, {names}\n"
        "loaded = sorted(m for m in sys.modules if m.split('.')[0] == 'autograder' and sys.modules[m] is not None)\n"
        "assert not loaded, loaded\n"
    )
    result = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr


def runner_operations() -> set[str]:
    """The operations ``child.Runner`` answers: its ``op_*`` methods."""
    tree = ast.parse((SANDBOX / "child.py").read_text(encoding="utf-8"))
    (runner,) = (n for n in tree.body if isinstance(n, ast.ClassDef) and n.name == "Runner")
    return {f.name[3:] for f in runner.body if isinstance(f, ast.FunctionDef) and f.name.startswith("op_")}


def test_the_protocol_docstring_names_every_operation_the_child_answers():
    operations = runner_operations()
    assert {"load", "call", "fetch", "get_attr", "set_attr", "has", "put_file", "release"} <= operations
    doc = protocol.__doc__ or ""
    missing = sorted(op for op in operations if f"* ``{op}``" not in doc)
    assert not missing, f"protocol.py's docstring does not describe: {missing}"


def configuration_fields() -> set[str]:
    """The keys of the configuration ``Sandbox._configure`` sends as the first request."""
    tree = ast.parse((SANDBOX / "parent.py").read_text(encoding="utf-8"))
    (method,) = (n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == "_configure")
    (config,) = (n.value for n in ast.walk(method) if isinstance(n, ast.Assign) and isinstance(n.value, ast.Dict))
    return {k.value for k in config.keys if isinstance(k, ast.Constant)}


def test_the_protocol_docstring_names_every_configuration_field():
    from dataclasses import fields

    from minesweeper_kit.sandbox import Limits

    doc = protocol.__doc__ or ""
    config = configuration_fields()
    assert {"workdir", "policy", "limits", "files"} <= config
    missing = sorted(name for name in config | {f.name for f in fields(Limits)} if f"``{name}``" not in doc)
    assert not missing, f"protocol.py's docstring does not describe: {missing}"


def test_the_bot_kit_exports_what_the_kit_exports_from_the_modules_it_ships(tmp_path):
    """A bot written against ``minesweeper_kit.bots`` loads in the sandbox as it does outside."""
    import glob

    import minesweeper_kit.bots as bots
    from minesweeper_kit.bots import adapters, view
    from minesweeper_kit.sandbox.botkit import build_bot_kit

    expected = sorted(n for n in bots.__all__ if hasattr(view, n) or hasattr(adapters, n))
    build_bot_kit(tmp_path)
    site = [p for p in sys.path if p.endswith(("site-packages", "dist-packages"))]
    script = (
        f"import sys; sys.path[:0] = {[str(tmp_path), *site]!r}\n"
        "import minesweeper_kit.bots as bots\n"
        f"print(sorted(n for n in {expected!r} if not hasattr(bots, n)))\n"
    )
    result = subprocess.run([sys.executable, "-I", "-S", "-c", script], capture_output=True, text=True, timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == "[]", f"missing from the bot kit's minesweeper_kit.bots: {result.stdout}"
    assert glob.glob(str(tmp_path / "minesweeper_kit" / "bots" / "solver.py")) == []


RUNTIME_CACHE = """
import importlib.util, json, os, sys
from minesweeper_kit.sandbox.lifecycle import runtime_folder
found = {}
for kit in (False, True):
    folder = runtime_folder(kit)
    for root, _dirs, files in os.walk(folder):
        for name in files:
            if name.endswith(".py"):
                source = os.path.join(root, name)
                cached = os.path.join(root, "__pycache__", name[:-3] + "." + sys.implementation.cache_tag + ".pyc")
                data = open(cached, "rb").read() if os.path.exists(cached) else b""
                with open(source, "rb") as handle:
                    fresh = importlib.util.source_hash(handle.read())
                found[os.path.relpath(source, folder) + (" (kit)" if kit else "")] = (
                    None if not data else [int.from_bytes(data[4:8], "little"), data[8:16] == fresh])
print(json.dumps(found))
"""


def test_the_childs_modules_are_compiled_once_where_the_child_finds_them(tmp_path):
    """A child's Python runs with ``-B`` from a folder it cannot write: each module it imports
    (not ``child.py``, its main script) has its byte-code beside it, checked against the source's
    hash, even when the grader itself keeps its byte-code elsewhere (``PYTHONPYCACHEPREFIX``)."""
    import json
    import os

    env = {**os.environ, "PYTHONPYCACHEPREFIX": str(tmp_path / "elsewhere"), "TMPDIR": str(tmp_path)}
    done = subprocess.run([sys.executable, "-c", RUNTIME_CACHE], capture_output=True, text=True, env=env, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    found = json.loads(done.stdout)
    assert found.pop("child.py") is None and found.pop("child.py (kit)") is None
    assert any(name.startswith("kit/minesweeper_kit/") for name in found), sorted(found)
    checked_hash = 0b11  # the flags of a pyc checked against its source's hash
    assert {name: value for name, value in found.items() if value != [checked_hash, True]} == {}, found
