"""The widgets' front ends as anywidget loads them: one ES module text per widget.

``static/common.js`` holds what every widget shares (the cell codes and their symbols, the geometry
of the visible slice, the sliders over the extra axes, drawing, the hover neighbourhood);
``static/<name>.js`` holds one widget. anywidget hands a widget's ``_esm`` to the browser as a
single module, loaded from a blob URL where relative imports do not resolve, so :func:`esm` joins
the two files into one module text when the widget's class is defined.

The convention both files follow, checked by :func:`esm` (a file that breaks it raises
``ValueError`` on import instead of showing a blank widget):

* ``common.js`` imports nothing and has no default export. A top-level declaration a widget may use
  starts with ``export`` (``export const``, ``export function``).
* ``<name>.js`` starts with one ``import { a, b } from "./common.js";`` naming exported declarations
  of ``common.js``, declares at top level no name ``common.js`` declares, and ends with
  ``export default { render: ... };``. It has no other ``import`` or ``export``.
* ``esm(name)`` is ``common.js`` with the word ``export`` taken off its declarations, followed by
  ``<name>.js`` without its import line: one module whose only export is the widget's default.

Top-level declarations start at the beginning of a line; nested ones are indented. Each file stays
a valid ES module on its own, so an editor or ``node --check`` can read it as it is.
"""

from __future__ import annotations

import re
from pathlib import Path

STATIC = Path(__file__).parent / "static"
COMMON = "common"

_DECLARATION = re.compile(
    r"^(export +)?(?:async +)?(?:function\*? *|const +|let +|var +|class +)([A-Za-z_$][\w$]*)", re.M
)
_COMMON_IMPORT = re.compile(r"^import\s*\{([^}]*)\}\s*from\s*[\"']\./common\.js[\"'];?[ \t]*\n?", re.M)
_IMPORT = re.compile(r"^import\b", re.M)
_EXPORT = re.compile(r"^export\b(?! +default\b)", re.M)
_EXPORT_DEFAULT = re.compile(r"^export +default\b", re.M)


def declarations(text: str) -> list[str]:
    """The names a script declares at top level (functions, classes, ``const``/``let``/``var``)."""
    return [match.group(2) for match in _DECLARATION.finditer(text)]


def exports(text: str) -> list[str]:
    """The names a script declares at top level with ``export`` in front."""
    return [match.group(2) for match in _DECLARATION.finditer(text) if match.group(1)]


def source(name: str) -> str:
    """The text of ``static/<name>.js``."""
    path = STATIC / f"{name}.js"
    if not re.fullmatch(r"[a-z][a-z0-9_]*", name) or not path.is_file():
        raise ValueError(f"no front end called {name!r} in {STATIC}")
    return path.read_text(encoding="utf-8")


def shared() -> str:
    """``common.js`` as it goes into every widget's module: its declarations without ``export``."""
    text = source(COMMON)
    if _IMPORT.search(text) or _EXPORT_DEFAULT.search(text):
        raise ValueError("common.js must import nothing and have no default export")
    return _DECLARATION.sub(lambda m: m.group(0)[len(m.group(1) or "") :], text)


def esm(name: str) -> str:
    """One widget's front end as a single ES module: the shared module, then ``static/<name>.js``."""
    if name == COMMON:
        raise ValueError("common.js is shared by the widgets, not a widget of its own")
    text = source(name)
    imports = _COMMON_IMPORT.findall(text)
    if len(imports) > 1:
        raise ValueError(f"{name}.js imports from common.js more than once")
    body = _COMMON_IMPORT.sub("", text)
    if _IMPORT.search(body):
        raise ValueError(f"{name}.js imports from somewhere other than ./common.js")
    if _EXPORT.search(body) or len(_EXPORT_DEFAULT.findall(body)) != 1:
        raise ValueError(f"{name}.js must export exactly one thing, its default")
    common = source(COMMON)
    wanted = {n.strip() for n in imports[0].split(",") if n.strip()} if imports else set()
    if missing := sorted(wanted - set(exports(common))):
        raise ValueError(f"{name}.js imports {', '.join(missing)}, which common.js does not export")
    if again := sorted(set(declarations(body)) & set(declarations(common))):
        raise ValueError(f"{name}.js declares {', '.join(again)} again: use the one in common.js")
    return f"// ---- static/common.js\n{shared()}\n// ---- static/{name}.js\n{body}"
