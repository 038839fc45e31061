"""Which modules a submission may import: a course rule, checked before loading and at run time.

Shared by the grader (a static check of the source, with line numbers) and the child (the import
guard), so the rule is written once. Standard library only: the child runs it from a read-only
copy inside the sandbox. This is not a security boundary; the operating system's isolation is.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass
from typing import Any

__all__ = ["DEFAULT_DENIED", "ImportPolicy", "imports_in"]

#: Modules no submission may import, whatever its assignment: they exist to reach outside.
DEFAULT_DENIED = frozenset(
    {
        "socket",
        "_socket",
        "ssl",
        "_ssl",
        "subprocess",
        "_posixsubprocess",
        "multiprocessing",
        "_multiprocessing",
        "ctypes",
        "_ctypes",
        "pty",
        "resource",
        "autograder",
    }
)


@dataclass(frozen=True)
class ImportPolicy:
    """Which modules the submission may import.

    ``allowed=None`` means anything not denied; otherwise only the listed top-level modules
    (and their submodules). ``direct_denied`` lists modules the submission's own import
    statements may not name, though modules it may use can import them. ``label`` names the
    assignment in messages. ``refuse_file``: a disallowed import anywhere in the source refuses
    the whole file before it loads; without it only running the import fails (ImportError), so
    only what reaches it is lost.
    """

    allowed: frozenset[str] | None = None
    denied: frozenset[str] = DEFAULT_DENIED
    label: str = "this assignment"
    direct_denied: frozenset[str] = frozenset()
    refuse_file: bool = True

    def is_denied(self, name: str, direct: bool = True) -> bool:
        """Whether importing ``name`` is refused; ``direct`` for the submission's own statements."""
        top = name.split(".")[0]
        if name in self.denied or top in self.denied:
            return True
        if not direct:
            return False
        if any(name == d or name.startswith(d + ".") for d in self.direct_denied):
            return True
        return self.allowed is not None and top not in self.allowed

    def message(self, name: str) -> str:
        """What a student is told when the import of ``name`` is refused: the assignment and, where
        there is a list, what is allowed."""
        if self.allowed is not None:
            allowed = ", ".join(sorted(self.allowed)) or "nothing"
            return f"import of '{name}' is not allowed in {self.label} (allowed: {allowed})"
        return f"import of '{name}' is not allowed in {self.label}"

    def violations(self, source: str) -> list[str]:
        """Messages for the imports of ``source`` this policy refuses (static check)."""
        found: list[str] = []
        for line, name in imports_in(source):
            if self.is_denied(name):
                message = f"line {line}: {self.message(name)}"
                if message not in found:
                    found.append(message)
        return found

    def to_json(self) -> dict[str, Any]:
        """The policy as plain data, for the child's configuration."""
        return {
            "allowed": None if self.allowed is None else sorted(self.allowed),
            "denied": sorted(self.denied),
            "direct_denied": sorted(self.direct_denied),
            "label": self.label,
        }

    @classmethod
    def from_json(cls, data: dict[str, Any]) -> ImportPolicy:
        """The policy :meth:`to_json` gave, rebuilt inside the child."""
        allowed = data.get("allowed")
        return cls(
            allowed=None if allowed is None else frozenset(allowed),
            denied=frozenset(data.get("denied", ())),
            label=str(data.get("label", "this assignment")),
            direct_denied=frozenset(data.get("direct_denied", ())),
        )


def imports_in(source: str) -> list[tuple[int | str, str]]:
    """Each module ``source`` names in an import statement, ``__import__`` or ``import_module``
    call, with its line, in the order of the tree; none when it does not parse."""
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return []
    found: list[tuple[int | str, str]] = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        elif (
            isinstance(node, ast.Call)
            and node.args
            and isinstance(node.args[0], ast.Constant)
            and isinstance(node.args[0].value, str)
            and (
                (isinstance(node.func, ast.Name) and node.func.id == "__import__")
                or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module")
            )
        ):
            names = [node.args[0].value]
        found += [(getattr(node, "lineno", "?"), name) for name in names]
    return found
