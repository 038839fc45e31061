"""A stand-in for :class:`~minesweeper_kit.sandbox.Sandbox` that runs trusted code in this process.

**For trusted code only: the kit's own references, chaffs and wheats, never a student's.** How
strong a hidden suite or a set of planted bugs is, is a property of the suite and the bugs: it
can be measured with the same suite code without a child process per implementation, while how
the sandbox treats wrong or hostile code is shown where the sandbox is the subject (its own tests,
the red team's and the hostile battery's).

:class:`InProcessBox` is a :class:`Sandbox` whose child is the child's own request handling
(``child.Runner``) in this process: every request is the same JSON the pipe would carry, answered
by the same code, and parsed back as the grader parses the child's answers, so plain values,
tuples, handles, ``keep``, captured output, errors with the student's lines, load errors and
answers over ``Limits.message_bytes`` come back as a sandbox gives them. Each request runs in the
box's own working folder, with ``Limits.recursion_limit`` counted from where the child's requests
start, its printed output kept apart, and its CPU limit (the call's, the test's window, the
budget) as a ``SIGPROF`` timer on this process's CPU time: past it, the box is dropped as a killed
child is, its objects with it, and the next call starts it again.

What only a separate process can give is not given: no memory, file, process or open-file limits,
no import rule at run time or audit hook (they would stay in the grader for good), no wall-clock
guards (the deadline is checked between requests), no callbacks. The CPU limit counts every
thread of this process, and needs its main thread. ``autograder.grading`` uses it for the
isolation ``"in-process"``, which only its in-process API accepts, and never for a student's own
tests.
"""

from __future__ import annotations

import base64
import io
import json
import os
import shutil
import signal
import sys
import tempfile
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import accounting, channel, child
from .common import ChildDied
from .lifecycle import describe_exit
from .parent import Sandbox

__all__ = ["IN_PROCESS", "InProcessBox"]

#: The isolation value that selects the stand-in (``autograder.grading``).
IN_PROCESS = "in-process"
#: What :func:`recursion_depth` gives in the sandboxed child where its ``serve`` hands a request to
#: ``Runner.answer``: the requests here get the same room under ``Limits.recursion_limit`` as the
#: child's, however deep the grader calls from (tests/autograder/test_inprocess_box.py checks that
#: a recursion goes exactly as deep in both).
CHILD_DEPTH = 5
#: The shortest CPU limit the timer is set to (a zero would switch it off).
SHORTEST_LIMIT = 0.001


class _CpuLimit(BaseException):
    """Raised by the timer in the code a request runs: its CPU limit is used up."""


def recursion_depth() -> int:
    """The interpreter's recursion depth here, as ``sys.setrecursionlimit`` counts it: one less
    than the lowest limit it accepts (it refuses a limit at or under the depth)."""
    limit = sys.getrecursionlimit()
    low, high = 1, limit
    while low < high:
        middle = (low + high) // 2
        try:
            sys.setrecursionlimit(middle)
        except RecursionError:
            low = middle + 1
        else:
            high = middle
    sys.setrecursionlimit(limit)
    return low - 1


class InProcessBox(Sandbox):
    """The hidden suite's ``box`` for trusted code, in this process (see the module): the
    :class:`Sandbox` interface and its requests, answered by ``child.Runner`` here. Takes the
    arguments of :class:`Sandbox`; ``isolation``, ``hide``, ``audit``, ``bot_kit`` and ``preload``
    change nothing here, and a ``callback`` is refused."""

    def __init__(self, source: str | Path, **options: Any) -> None:
        if options.get("callback") is not None:
            raise ValueError("the in-process stand-in answers no callbacks (a student's own tests need a sandbox)")
        if threading.current_thread() is not threading.main_thread():
            raise RuntimeError("the in-process stand-in runs in the main thread only: its CPU limit is a SIGPROF timer")
        options["isolation"] = "none"  # the Sandbox's own checks of the other arguments, and no bubblewrap
        super().__init__(source, **options)
        self.isolation = IN_PROCESS
        self._runner: child.Runner | None = None
        self._folder: str | None = None
        self._module_before: Any = None
        self._used = 0.0
        self._stopped = False
        self._printed = (child.MemoryStream(self.limits.output_bytes), child.MemoryStream(self.limits.output_bytes))

    # ------------------------------------------------------------------ the child's life, here
    @property
    def alive(self) -> bool:
        return self._runner is not None

    @property
    def pid(self) -> int | None:
        return None

    def _spawn(self) -> None:
        """A fresh working folder with the box's files and a fresh ``child.Runner``, configured as
        the child is (its working folder, limits and import rule)."""
        self._folder = tempfile.mkdtemp(prefix="minesweeper-inprocess-")
        child.place_files(self._folder, {n: base64.b64encode(d).decode("ascii") for n, d in self._files.items()})
        config = {"workdir": self._folder, "limits": asdict(self.limits), "policy": self.policy.to_json()}
        self._module_before = sys.modules.get(self.module_name)
        self._runner = child.Runner(None, config, child.Guard(config))
        self.generation += 1
        self.protections = [IN_PROCESS]

    def kill(self) -> None:
        """Drop the runner and every object it kept, as a killed child loses them; the module its
        load registered gives its name back to whatever had it before."""
        runner, self._runner = self._runner, None
        if runner is not None and runner.module is not None and sys.modules.get(self.module_name) is runner.module:
            if self._module_before is None:
                del sys.modules[self.module_name]
            else:
                sys.modules[self.module_name] = self._module_before

    def _cleanup_process(self) -> None:
        if self._folder is not None:
            shutil.rmtree(self._folder, ignore_errors=True)
            self._folder = None

    def cpu_seconds(self) -> float:
        """CPU seconds (of this process) the box's requests have used so far."""
        return self._used

    def output(self) -> tuple[str, str]:
        """What the code printed outside captured calls: the first ``Limits.output_bytes``
        characters of its stdout and stderr."""
        return self._printed[0].getvalue(), self._printed[1].getvalue()

    # ------------------------------------------------------------------ requests
    def _request(
        self, message: dict[str, Any], *, timeout: float | None, raw: bool = False, grader_only: bool = False
    ) -> Any:
        """One request answered by the runner, within the same CPU limit a sandbox's call has; the
        answer read as :class:`Sandbox` reads the child's."""
        runner = self._runner
        if runner is None:
            raise ChildDied(describe_exit(None))
        if self.deadline is not None and time.monotonic() >= self.deadline:
            self.kill()
            raise self._time_limit_error("deadline", 0.0, "call")
        limit, which = accounting.limit_for(timeout, self.window, self.budget, self.cpu_seconds())
        body = self._answer(runner, json.loads(channel.encode_request(message)), limit)
        if body is None:
            self.kill()
            raise self._time_limit_error("cpu", limit or 0.0, which)
        if len(body) > self.limits.message_bytes:  # the child refuses these first, as here
            self.kill()
            limit_bytes = self.limits.message_bytes
            raise channel.BrokenAnswer(f"the answer is too large ({len(body)} bytes; the limit is {limit_bytes})")
        reply = channel.parse_reply(body, self.generation)
        if not reply.get("ok"):
            raise channel.failure(reply.get("error"))
        return reply.get("value") if raw else reply

    def _answer(self, runner: child.Runner, request: dict[str, Any], limit: float | None) -> bytes | None:
        """``runner.answer(request)`` in the box's folder, with its streams and recursion limit and
        within ``limit`` CPU seconds; None when the limit stopped it."""
        saved = sys.stdout, sys.stderr, sys.stdin, sys.getrecursionlimit(), os.getcwd()
        self._stopped = False
        handler = signal.signal(signal.SIGPROF, self._stop)
        started = time.process_time()
        body: bytes | None = None
        try:
            assert self._folder is not None
            os.chdir(self._folder)
            sys.stdout, sys.stderr, sys.stdin = self._printed[0], self._printed[1], io.StringIO("")
            sys.setrecursionlimit(self.limits.recursion_limit + recursion_depth() - CHILD_DEPTH)
            try:
                if limit is not None:
                    signal.setitimer(signal.ITIMER_PROF, max(limit, SHORTEST_LIMIT))
                body = runner.answer(request)
            finally:
                signal.setitimer(signal.ITIMER_PROF, 0)
        except _CpuLimit:
            pass
        finally:
            signal.signal(signal.SIGPROF, handler)
            sys.stdout, sys.stderr, sys.stdin = saved[0], saved[1], saved[2]
            sys.setrecursionlimit(saved[3])
            os.chdir(saved[4])
            self._used += time.process_time() - started
        return None if self._stopped else body  # stopped: the runner may have answered the timer's exception

    def _stop(self, signum: int, frame: Any) -> None:
        """The timer's handler: the request's CPU limit is used up."""
        self._stopped = True
        raise _CpuLimit()
