"""Find and run a student's own tests inside the sandbox, one at a time, by name.

The tests are what a student writes to check their code: ``test_*`` functions, and ``test*``
methods of ``Test*`` classes (``unittest.TestCase`` subclasses, run with their ``setUp`` and
``tearDown``, or plain classes, made with no arguments). The grader asks for the list, then runs
each test and gets back whether it passed and, when not, the exception's first line and the line
of the student's code it came from.

Nothing here is trusted by the grader: a test that tampers with this runner can make itself look
as passing or failing on every implementation alike, which earns nothing (see
``autograder/own_tests.py``). Standard library only: it runs from the sandbox's read-only copy.
"""

from __future__ import annotations

import inspect
import sys
import traceback
import types
from collections.abc import Callable
from typing import Any

__all__ = ["entry_points"]

#: How much of a failure's message comes back.
MESSAGE_CHARACTERS = 600


EntryPoints = tuple[Callable[..., list[str]], Callable[[str], dict]]


def entry_points(namespace: dict[str, Any], filename: str, offset: int = 0) -> EntryPoints:
    """The two entry points the grader calls in the loaded module: the names of its tests (only
    those of the classes named in ``classes``, when given) and the run of one. ``offset`` lines
    come before the student's first line in ``filename``."""

    def listed(classes: list[str] | None = None) -> list[str]:
        names = []
        for name, value in list(namespace.items()):
            if classes is None and name.startswith("test") and isinstance(value, types.FunctionType):
                names.append(name)
            elif isinstance(value, type) and name.startswith("Test") and (classes is None or name in classes):
                names += [f"{name}.{m}" for m in _methods(value)]
        return names

    def run(name: str) -> dict:
        try:
            function = _resolve(namespace, name)
            function()
        except BaseException as error:  # noqa: BLE001 - every way a test fails (sys.exit too) is its result
            return _failure(error, filename, offset)
        return {"outcome": "passed"}

    return listed, run


def _methods(cls: type) -> list[str]:
    """The test methods of a class, in the order they were written (inherited ones after)."""
    seen: dict[str, None] = {}
    for klass in cls.__mro__:
        if klass is object or klass.__module__ == "unittest.case":
            continue
        for name, value in vars(klass).items():
            if name.startswith("test") and callable(value):
                seen.setdefault(name, None)
    return list(seen)


def _resolve(namespace: dict[str, Any], name: str) -> Callable[[], Any]:
    if "." not in name:
        function = namespace[name]
        parameters = [
            p for p in inspect.signature(function).parameters.values() if p.default is inspect.Parameter.empty
        ]
        if parameters:
            raise TypeError(
                f"{name} takes arguments ({', '.join(p.name for p in parameters)}): test functions here are "
                "called with none (pytest fixtures are not available)"
            )
        return function
    class_name, method = name.split(".", 1)
    cls = namespace[class_name]
    unittest = sys.modules.get("unittest")
    if unittest is not None and issubclass(cls, unittest.TestCase):
        return lambda: _run_case(cls(method))
    instance = cls()

    def call() -> None:
        for hook in ("setup_method", "setUp"):
            if callable(getattr(instance, hook, None)):
                getattr(instance, hook)()
                break
        try:
            getattr(instance, method)()
        finally:
            for hook in ("teardown_method", "tearDown"):
                if callable(getattr(instance, hook, None)):
                    getattr(instance, hook)()
                    break

    return call


class _CaseFailed(Exception):
    """A unittest case failed; carries its own exception."""

    def __init__(self, error: BaseException):
        super().__init__(str(error))
        self.error = error


def _run_case(case: Any) -> None:
    """Run one unittest case as unittest does (setUp, the test, tearDown, cleanups), raising what
    failed it."""
    import unittest

    class Keep(unittest.TestResult):
        def __init__(self) -> None:
            super().__init__()
            self.first: BaseException | None = None

        def addFailure(self, test: Any, err: Any) -> None:
            self.first = self.first or err[1]

        def addError(self, test: Any, err: Any) -> None:
            self.first = self.first or err[1]

        def addSkip(self, test: Any, reason: str) -> None:
            self.first = self.first or _Skipped(reason)

    result = Keep()
    case.run(result)
    if result.first is not None:
        raise _CaseFailed(result.first)


class _Skipped(Exception):
    """A test that skipped itself has checked nothing."""


def _failure(error: BaseException, filename: str, offset: int) -> dict:
    if isinstance(error, _CaseFailed):
        error = error.error
    kind = "assertion" if isinstance(error, AssertionError) else "skipped" if isinstance(error, _Skipped) else "error"
    text = str(error).strip()
    first = f"{type(error).__name__}: {text}" if text else type(error).__name__
    if kind == "skipped":
        first = f"the test skipped itself ({text})" if text else "the test skipped itself"
    line = None
    for frame in traceback.extract_tb(error.__traceback__):
        if frame.filename.rsplit("/", 1)[-1] == filename and frame.lineno is not None:
            line = frame.lineno - offset
    return {"outcome": "failed", "kind": kind, "message": first[:MESSAGE_CHARACTERS], "line": line}
