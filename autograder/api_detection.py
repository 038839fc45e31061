"""Which of MIT's Mines APIs a file is written for, so a file graded for another gets one clear word.

The labs' APIs differ by term: the class ``HyperMinesGame`` (6.009, 2018-2019), the functions
``nd_new_game``, ``nd_dig``, ``nd_render`` (2016-2017), the function APIs of 2020-2024 that the
``mines-*`` assignments grade (``minesweeper_kit.formats.mit6009.FUNCTION_APIS``: their render
names and visibility key tell the terms apart), and 6.101's 2025 Mice-sleeper lab (``reveal_2d``,
``toggle_bed_2d``, ...), another game. A file graded for the wrong one would fail every hidden
test with "your code does not define ..."; :func:`other_api` says instead, once, what the file
defines, which API that is and which assignment grades it.

The names are those the loaded module really has (the sandbox's answer); the visibility key and
the render flag are read from the source's syntax tree: string constants used as a subscript, a
dict key or ``.get``'s argument, and the render functions' second parameter. The check is
conservative: it speaks only when the file lacks what the assignment needs and matches another
API, or uses only another term's visibility key or render names.
"""

from __future__ import annotations

import ast
from collections.abc import Iterable
from dataclasses import dataclass

from minesweeper_kit.formats.mit6009 import FUNCTION_APIS, FunctionAPI
from minesweeper_kit.sandbox import SandboxError

from .assignments import Assignment

__all__ = ["Detected", "OtherAPI", "detect", "other_api"]

CLASS_API = ("HyperMinesGame",)
OLD_FUNCTIONS = ("nd_new_game", "nd_dig", "nd_render")
MICE_FUNCTIONS = ("reveal_2d", "reveal_nd", "toggle_bed_2d", "toggle_bed_nd")
FUNCTIONS = ("new_game_nd", "dig_nd", "render_nd", "new_game_2d", "dig_2d")
KEYS = ("mask", "visible", "hidden")
FLAGS = ("xray", "all_visible")
RENDERS = tuple(dict.fromkeys(name for api in FUNCTION_APIS for name in (api.render_2d, api.text_2d)))


class OtherAPI(SandboxError):
    """The submission is written for another API than the assignment's: its message says which,
    and which assignment grades it (for the student and the instructor alike)."""


@dataclass(frozen=True)
class Detected:
    """What a file was found to be written for."""

    family: str  #: "class", "functions", "2016-2017", "mice" or "" (none of the labs' APIs)
    names: tuple[str, ...]  #: the API's names the file defines, in the API's order
    keys: tuple[str, ...] = ()  #: visibility keys the source uses
    flags: tuple[str, ...] = ()  #: render flags the source's render functions take
    apis: tuple[FunctionAPI, ...] = ()  #: for "functions": the APIs its names and key fit

    def words(self) -> str:
        """What the file defines, for a sentence: "new_game_nd, dig_nd and render_2d_locations
        with the key 'visible'"."""
        shown = list(self.names[:3]) + ([f"{len(self.names) - 3} more"] if len(self.names) > 3 else [])
        text = shown[0] if len(shown) == 1 else ", ".join(shown[:-1]) + " and " + shown[-1]
        if self.family == "class":
            text = f"the class {text}"
        if len(self.keys) == 1:
            text += f" with the key {self.keys[0]!r}"
        return text

    def api_words(self) -> str:
        """Which API that is, in a few words."""
        if self.family == "class":
            return "the 6.009 class API (Spring 2018 to Spring 2019)"
        if self.family == "2016-2017":
            return "the 6.009 API of 2016-2017 (boards as lists, no tuples), which the kit does not grade"
        if self.family == "mice":
            return "6.101's 2025 Mice-sleeper lab, another game, which the kit does not grade"
        flagged = [api for api in self.apis if api.flag in self.flags] or list(self.apis)
        if len(flagged) == 1:
            return flagged[0].describe()
        return "one of " + ", ".join(api.describe() for api in flagged)

    def assignments(self) -> tuple[str, ...]:
        """The assignments that grade such a file (none for an API the kit does not grade)."""
        if self.family == "class":
            return ("hypermines",)
        if self.family == "functions":
            flagged = [api for api in self.apis if api.flag in self.flags] or list(self.apis)
            return tuple(f"mines-{api.id}" for api in flagged)
        return ()


def detect(names: Iterable[str], source: str) -> Detected:
    """What ``source``, whose module defines ``names``, is written for."""
    defined = set(names)
    keys, flags = _keys_and_flags(source)
    for family, wanted in (("class", CLASS_API), ("mice", MICE_FUNCTIONS), ("2016-2017", OLD_FUNCTIONS)):
        found = tuple(name for name in wanted if name in defined)
        if found:
            return Detected(family, found, keys, flags)
    found = tuple(name for name in FUNCTIONS + RENDERS if name in defined)
    if not found:
        return Detected("", ())
    renders = {name for name in RENDERS if name in defined}
    apis = tuple(
        api
        for api in FUNCTION_APIS
        if (not renders or renders & {api.render_2d, api.text_2d}) and (not keys or api.key in keys)
    )
    return Detected("functions", found, keys, flags, apis)


def other_api(assignment: Assignment, names: Iterable[str], source: str) -> str | None:
    """The one message for a file written for another API than ``assignment``'s, or None when it
    should be graded as it is (it fits the assignment's API, or no other one)."""
    defined = set(names)
    detected = detect(defined, source)
    if not detected.family:
        return None
    own = assignment.function_api()
    if own is None:
        if not assignment.names or any(name in defined for name in assignment.names):
            return None
        if assignment.id != "hypermines":
            return None  # the other steps' names are not the labs' APIs
        wanted = "the 6.009 class API (HyperMinesGame)"
    else:
        if detected.family == "functions" and own in detected.apis:
            return None
        wanted = own.describe()
    if detected.family == "functions" and not detected.apis:
        return None  # its names and its key fit no term: grade it, the tests say what is wrong
    where = detected.assignments()
    advice = (
        "; grade it with --assignment " + " or --assignment ".join(where)
        if where
        else "; no assignment of the kit grades it"
    )
    return (
        f"this file defines {detected.words()}: {detected.api_words()}, not {wanted}, which this assignment "
        f"({assignment.id}) grades{advice}"
    )


def _keys_and_flags(source: str) -> tuple[tuple[str, ...], tuple[str, ...]]:
    """The visibility keys ``source`` reads or writes, and the render flags its render functions
    take (none when it does not parse)."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return (), ()
    named = _constant_names(tree)
    keys: set[str] = set()
    flags: set[str] = set()
    for node in ast.walk(tree):
        strings: list[ast.expr] = []
        if isinstance(node, ast.Subscript):
            strings = [node.slice]
        elif isinstance(node, ast.Dict):
            strings = [key for key in node.keys if key is not None]
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get":
            strings = node.args[:1]
        values = [
            named.get(s.id) if isinstance(s, ast.Name) else s.value if isinstance(s, ast.Constant) else None
            for s in strings
        ]
        keys |= {v for v in values if v in KEYS}
        if isinstance(node, ast.FunctionDef) and node.name in RENDERS + ("render_nd",):
            arguments = [a.arg for a in node.args.posonlyargs + node.args.args + node.args.kwonlyargs]
            flags |= {a for a in arguments if a in FLAGS}
    return tuple(k for k in KEYS if k in keys), tuple(f for f in FLAGS if f in flags)


def _constant_names(tree: ast.Module) -> dict[str, object]:
    """Module-level names bound to a constant (``KEY = "visible"``, ``KEY, SHOWN = "mask", True``),
    so ``game[KEY]`` is read as the key it names."""
    named: dict[str, object] = {}
    for node in tree.body:
        if not isinstance(node, ast.Assign):
            continue
        for target in node.targets:
            pairs = [(target, node.value)]
            if isinstance(target, ast.Tuple) and isinstance(node.value, ast.Tuple):
                pairs = list(zip(target.elts, node.value.elts))
            for name, value in pairs:
                if isinstance(name, ast.Name) and isinstance(value, ast.Constant):
                    named[name.id] = value.value
    return named
