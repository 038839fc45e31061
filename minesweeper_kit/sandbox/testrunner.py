"""Run a student's own tests inside the sandbox, as their framework runs them, and report each one.

The tests are a file of the student's (``test.py`` beside a 6.009 ``lab.py``, or the tests of a
notebook gathered into one file). They run under pytest's own machinery, in this process:
plain ``test_*`` functions and ``Test*`` classes as pytest runs them (assert rewriting, so a bare
``assert a == b`` shows both values; ``parametrize``; the ``tmp_path``, ``capsys`` and
``monkeypatch`` fixtures), and ``unittest.TestCase`` classes as unittest runs them (pytest hands
each case to unittest: ``setUp``/``tearDown``, ``setUpClass``/``tearDownClass``, ``subTest`` with
each row reported on its own, ``skip``, ``expectedFailure``, methods in alphabetical order).

Before each test, ``random`` (and every generator made without a seed, and the system's random
bytes) starts from a seed made of the grade's seed and the test's name, so a test draws the same
numbers on every run. Each test may use ``test_seconds`` of CPU time (the timer raises
:class:`~remote.TestStopped`, which ``except Exception`` does not catch, and raises it again every
half second until the test has ended).

Results go to the grader as they come, through the child's channel (``remote.channel``), as JSON
text: ``{"runner": "collected", "tests": [...]}``, then for each test ``{"runner": "start", "test":
name}`` and ``{"runner": "result", "test": name, "outcome": "passed"|"failed"|"skipped", "kind":
..., "message": ..., "line": ...}`` (a ``subTest`` row is a test of its own, named after its
method); ``{"runner": "repeat", "index": i}`` before each run of the whole selection, and
``{"runner": "problem", "message": ..., "line": ...}`` when the file does not load. The grader
answers each with a short text (``"stop"`` ends the run).

Nothing here is trusted by the grader: a test can write to the channel too. What it can forge
only makes it look the same on every implementation, which earns nothing. Standard library only
at import (pytest is imported when the tests run): it runs from the sandbox's read-only copy, in
the implementations' sandbox too (:func:`remote.deterministic`).
"""

from __future__ import annotations

import builtins
import json
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

try:  # in the tests' sandbox, beside remote.py
    import remote  # type: ignore[import-not-found]
except ImportError:  # read as part of the kit
    from . import remote

__all__ = ["prepare", "run", "TEXT_CHARACTERS"]

#: How much of a failure's message is sent (the grader cuts it again).
TEXT_CHARACTERS = 1500
#: The timer's interval once a test has used its time.
AGAIN = 0.5

_STATE: dict[str, Any] = {"seed": "", "filename": "test.py"}


def prepare(kinds: dict[str, str], module: str, alias: str, into_builtins: bool, seed: str, filename: str) -> None:
    """Put the stand-ins in place (``import lab`` and ``import <alias>`` find them; with
    ``into_builtins`` a notebook's tests, which never import them, find them as names), and make
    randomness repeatable."""
    stand = remote.bind({}, kinds, module)
    sys.modules[alias] = stand
    if into_builtins:
        for name in kinds:
            setattr(builtins, name, getattr(stand, name))
    remote.deterministic(seed)
    _STATE["seed"], _STATE["filename"] = seed, filename


def _tell(message: dict) -> str:
    """Send one message to the grader; its answer."""
    send = remote.channel
    if send is None:
        return ""
    return str(send(json.dumps(message, separators=(",", ":"))))


def run(plan: dict) -> dict:
    """Run the tests ``plan`` selects: ``select`` (test names, or None for all), ``classes`` (only
    these classes' tests, or None), ``skip`` (functions and classes never run), ``repeats`` (how
    many runs of the whole selection, numbered from ``start``), ``most`` (tests run at most),
    ``test_seconds``. Returns ``{"tests": [...]}``, the names collected."""
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    import pytest

    folder = os.getcwd()
    path = os.path.join(folder, _STATE["filename"])
    select = plan.get("select")
    collector = _Collector(
        _STATE["filename"],
        None if select is None else set(select),
        plan.get("classes"),
        float(plan.get("test_seconds") or 10.0),
        int(plan.get("most") or 60),
        set(plan.get("skip") or ()),
    )
    arguments = [
        path,
        "-p",
        "no:cacheprovider",
        "-p",
        "no:terminal",
        "-p",
        "no:faulthandler",
        "-p",
        "no:stepwise",
        "-p",
        "no:pastebin",
        "-p",
        "no:junitxml",
        "--noconftest",
        "--import-mode=importlib",
        "--capture=sys",
        f"--rootdir={folder}",
        f"--basetemp={os.path.join(folder, 'pytest-tmp')}",  # tmp_path: the same path on every run
        "-o",
        f"log_file={os.path.join(folder, '.own-tests.log')}",  # pytest's default, /dev/null, is not writable here
        "-W",
        "ignore",
    ]
    first = int(plan.get("start") or 0)
    for index in range(first, first + max(1, int(plan.get("repeats") or 1))):
        if _tell({"runner": "repeat", "index": index}) == "stop":
            break
        collector.repeat = index - first
        try:
            pytest.main(arguments, plugins=[collector])
        except BaseException as error:  # noqa: BLE001 - a test that broke pytest itself: say so, go on
            _tell({"runner": "problem", "message": _text(f"the test run stopped: {type(error).__name__}: {error}")})
        if collector.stopped:
            break
    return {"tests": collector.collected}


def _text(text: str) -> str:
    return text if len(text) <= TEXT_CHARACTERS else text[:TEXT_CHARACTERS] + "..."


def _name(nodeid: str) -> str:
    """A test's name as feedback shows it: ``TestTiny.test_one``, ``test_sum[1-2]``."""
    tail = nodeid.split("::", 1)[1] if "::" in nodeid else nodeid
    return tail.replace("::", ".")


class _Collector:
    """The pytest plugin: selects, times and seeds each test, and sends its result."""

    def __init__(
        self,
        filename: str,
        select: set[str] | None,
        classes: list[str] | None,
        seconds: float,
        most: int,
        skip: set[str],
    ) -> None:
        self.filename, self.select, self.classes, self.seconds, self.most = filename, select, classes, seconds, most
        self.skip = skip
        self.collected: list[str] = []
        self.phases: dict[str, list] = {}
        self.rows: dict[str, int] = {}
        self.labels: dict[str, dict[str, int]] = {}
        self.repeat = 0
        self.stopped = False

    # --- collection
    def pytest_collectreport(self, report: Any) -> None:
        if report.failed:
            message, line = _collection_error(report, self.filename)
            _tell({"runner": "problem", "message": message, "line": line})

    def pytest_collection_modifyitems(self, session: Any, config: Any, items: list) -> None:
        kept: list[Any] = []
        dropped: list[Any] = []
        for item in items:
            name = _name(item.nodeid)
            cls = name.split(".", 1)[0] if "." in name.split("[", 1)[0] else None
            wanted = (
                (self.classes is None or cls in self.classes)
                and (self.select is None or name in self.select)
                and name.split("[", 1)[0].split(".", 1)[0] not in self.skip
            )
            (kept if wanted else dropped).append(item)
        dropped += kept[max(1, int(self.most)) :]
        kept = kept[: max(1, int(self.most))]
        items[:] = kept
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        if self.repeat == 0:
            self.collected = [_name(item.nodeid) for item in kept]
            _tell({"runner": "collected", "tests": self.collected})

    # --- each test
    def pytest_runtest_protocol(self, item: Any, nextitem: Any) -> Any:
        name = _name(item.nodeid)
        self.phases[name] = []
        self.rows[name] = 0
        self.labels[name] = {}
        remote.forget()
        if _tell({"runner": "start", "test": name}) == "stop":
            self.stopped = True
            item.session.shouldstop = "the grader stopped the run"
        remote._seed_random(f"{_STATE['seed']}:{name}")
        _arm(self.seconds)
        return None  # pytest's own protocol runs the test

    def pytest_runtest_logreport(self, report: Any) -> None:
        name = _name(report.nodeid)
        if type(report).__name__ == "SubtestReport":
            self.rows[name] = self.rows.get(name, 0) + 1
            label = _row_label(report, self.rows[name])
            seen = self.labels.setdefault(name, {})
            seen[label] = seen.get(label, 0) + 1
            if seen[label] > 1:  # two rows with the same parameters: told apart by their order
                label = f"{label} #{seen[label]}"
            _tell({"runner": "result", "test": f"{name} {label}", "row": True, **self._outcome([report])})
            return
        self.phases.setdefault(name, []).append(report)

    def pytest_runtest_logfinish(self, nodeid: str, location: Any) -> None:
        _disarm()
        name = _name(nodeid)
        reports = self.phases.pop(name, [])
        if reports:
            _tell({"runner": "result", "test": name, **self._outcome(reports)})

    def _outcome(self, reports: list) -> dict:
        for report in reports:
            if report.failed:
                return _failure(report, self.filename)
        for report in reports:
            if report.skipped:
                if hasattr(report, "wasxfail"):  # failed as the test expected: that is its pass
                    return {"outcome": "passed", "kind": "", "message": "", "line": None}
                reason = str(report.longrepr[2]) if isinstance(report.longrepr, tuple) else ""
                reason = reason[len("Skipped: ") :] if reason.startswith("Skipped: ") else reason
                return {"outcome": "skipped", "kind": "skipped", "message": _text(str(reason)), "line": None}
        return {"outcome": "passed", "kind": "", "message": "", "line": None}


def _row_label(report: Any, number: int) -> str:
    context = getattr(report, "context", None)
    parts = []
    message = getattr(context, "msg", None)
    if message is not None:
        parts.append(f"[{message}]")
    params = getattr(context, "kwargs", None) or {}
    if params:
        parts.append("(" + ", ".join(f"{k}={v}" for k, v in params.items()) + ")")
    return " ".join(parts) if parts else f"(row {number})"


def _failure(report: Any, filename: str) -> dict:
    longrepr = report.longrepr
    crash = getattr(longrepr, "reprcrash", None)
    message = str(getattr(crash, "message", "") or "") if crash is not None else ""
    if not message:
        message = "\n".join(line[2:] for line in str(longrepr).splitlines() if line.startswith("E ")) or str(longrepr)
    lines = [line for line in message.splitlines() if "Use -v to get" not in line]
    message = "\n".join(lines).strip()
    kind = "error"
    if message.startswith("assert ") or message == "assert":
        message, kind = "AssertionError: " + message, "assertion"
    elif message.startswith("AssertionError"):
        kind = "assertion"
    elif message.startswith(("remote.TestStopped", "TestStopped")):
        message, kind = message.split(":", 1)[-1].strip(), "timeout"
    if report.when != "call":
        message = f"in the test's {report.when}: {message}"
    return {"outcome": "failed", "kind": kind, "message": _text(message), "line": _line(longrepr, filename)}


def _line(longrepr: Any, filename: str) -> int | None:
    """The last line of the test file the failure passed through."""
    found = None
    entries = getattr(getattr(longrepr, "reprtraceback", None), "reprentries", None) or []
    for entry in entries:
        location = getattr(entry, "reprfileloc", None)
        if location is not None and os.path.basename(str(location.path)) == filename:
            found = int(location.lineno)
    return found


def _collection_error(report: Any, filename: str) -> tuple[str, int | None]:
    text = str(getattr(report, "longreprtext", "") or report.longrepr)
    errors = [line[2:].strip() for line in text.splitlines() if line.startswith("E ")]
    line = None
    for row in text.splitlines():
        marker = f'{filename}", line '
        if marker in row:
            digits = row.split(marker, 1)[1].split(",", 1)[0].split()[0]
            if digits.isdigit():
                line = int(digits)
        elif row.startswith(f"{filename}:"):
            digits = row.split(":", 2)[1]
            if digits.isdigit():
                line = int(digits)
    message = errors[-1] if errors else (text.strip().splitlines() or ["the file could not be loaded"])[-1]
    if len(errors) > 1 and errors[-1].startswith(("^", "~")):
        message = errors[-2]
    return _text(message), line


# ------------------------------------------------------------------------------ the timer
def _stop(signum: int, frame: Any) -> None:
    raise remote.TestStopped(f"the test used more than {_STATE.get('seconds', 0):g} s of CPU time")


def _arm(seconds: float) -> None:
    _STATE["seconds"] = seconds
    if hasattr(signal, "setitimer"):
        signal.signal(signal.SIGPROF, _stop)
        signal.setitimer(signal.ITIMER_PROF, max(seconds, 0.01), AGAIN)


def _disarm() -> None:
    if hasattr(signal, "setitimer"):
        signal.setitimer(signal.ITIMER_PROF, 0, 0)


Entry = Callable[[dict], dict]
