"""Each test process's memory bound: a runaway test fails alone, with its name and the memory it
reached, and the run goes on.

A thread of every pytest process that runs tests (each pytest-xdist worker, or the one process
of a run without workers) adds up, a few times a second, the anonymous resident memory (what a
process allocated for itself, not its files or what it shares) of that process and of every
process it started: servers, kernels, sandboxes, nbgrader. Past the bound, by default
``DEFAULT_BOUND`` and otherwise the size in ``BOUND_VARIABLE`` ("4G", "500M"):

* if a process the test started holds the most, it is killed, and the test fails;
* if the test process itself holds the most, :class:`MemoryBoundExceeded` is raised in its main
  thread, inside the test's set-up, call or teardown: the test fails, its frames are cleared and
  the memory they held is freed. A process that stays over the bound all the same (the memory kept
  elsewhere, or the main thread stuck outside Python) is ended, after a note the controller adds
  to its crash report (tests/conftest.py), and pytest-xdist reports the test as a crash.

The bound holds per worker: ``make test`` runs one worker more than the cores, each with the
servers it shares among its tests, so the whole run stays well below the machine's memory.
"""

from __future__ import annotations

import ctypes
import gc
import os
import re
import signal
import threading
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

BOUND_VARIABLE = "MINESWEEPER_TEST_MEMORY"
DEFAULT_BOUND = 4 << 30
#: Where workers leave a note on the test whose memory ended them, for the controller's report.
NOTES_VARIABLE = "MINESWEEPER_TEST_NOTES"
PAGE = os.sysconf("SC_PAGE_SIZE")
#: How often the test process's own memory is read, and how often the whole tree of its processes.
OWN_EVERY, TREE_EVERY = 0.25, 1.0
#: How long the test process may stay over the bound after the exception before it is ended.
GRACE = 10.0


class MemoryBoundExceeded(BaseException):
    """The test's processes used more memory than the bound. Not an ``Exception``, so code under
    test that catches every ``Exception`` does not swallow it."""


def parse_size(text: str) -> int:
    """Bytes from "4G", "512M", "300k" or a plain number of bytes."""
    found = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)i?[bB]?\s*", text)
    if not found:
        raise ValueError(f"{BOUND_VARIABLE}={text!r}: give a size such as 4G or 500M")
    number, unit = found.groups()
    return int(float(number) * (1 << {"": 0, "k": 10, "m": 20, "g": 30}[unit.lower()]))


def size(count: int) -> str:
    return f"{count / (1 << 30):.2f} GiB" if count >= 1 << 30 else f"{count / (1 << 20):.0f} MiB"


def bound_from_environment() -> int:
    text = os.environ.get(BOUND_VARIABLE)
    return parse_size(text) if text else DEFAULT_BOUND


def anonymous_memory(pid: int) -> int:
    """Resident memory that is the process's own (resident less file-backed and shared pages)."""
    try:
        fields = Path(f"/proc/{pid}/statm").read_text().split()
    except OSError:
        return 0
    return (int(fields[1]) - int(fields[2])) * PAGE


def descendants(root: int) -> list[int]:
    """Every live process started, directly or not, by ``root``."""
    children: dict[int, list[int]] = {}
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{entry.name}/stat").read_text()
        except OSError:
            continue
        children.setdefault(int(stat.rsplit(")", 1)[1].split()[1]), []).append(int(entry.name))
    found, todo = [], list(children.get(root, []))
    while todo:
        pid = todo.pop()
        found.append(pid)
        todo.extend(children.get(pid, []))
    return found


def command(pid: int) -> str:
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"process {pid}"
    return " ".join(w.decode(errors="replace") for w in words[:3] if w)[:120] or f"process {pid}"


@dataclass
class _Test:
    nodeid: str
    phase_open: bool = False  # inside the test's set-up, call or teardown
    raised: str = ""  # the message of the exception raised in it, if any
    raised_at: float = 0.0


class MemoryWatch:
    """The watch thread of one test process, and the hooks that tell it which test runs."""

    def __init__(self, bound: int, worker: str = "") -> None:
        self.bound = bound
        self.worker = worker
        self.pid = os.getpid()
        self.main = threading.main_thread().ident
        self.lock = threading.Lock()
        self.test: _Test | None = None
        self.children = 0  # the anonymous memory of the children at the last walk of the tree
        self.stopped = threading.Event()
        self.thread = threading.Thread(target=self._watch, name="memory bound", daemon=True)

    def start(self) -> None:
        self.thread.start()

    def stop(self) -> None:
        self.stopped.set()

    # -- told by the hooks (main thread) --

    def begin(self, nodeid: str) -> None:
        with self.lock:
            self.test = _Test(nodeid)

    def phase(self, is_open: bool) -> None:
        with self.lock:
            if self.test is not None:
                self.test.phase_open = is_open

    def end(self) -> None:
        """After a test: a process still over the bound once the test is over cannot go on."""
        with self.lock:
            test, self.test = self.test, None
        if test is None or not test.raised:
            return
        gc.collect()
        held = anonymous_memory(self.pid)
        if held > self.bound:
            self._leave(f"{test.raised}; {size(held)} were still held after the test ended, so the worker ended")

    # -- the watch thread --

    def _watch(self) -> None:
        last_walk = 0.0
        while not self.stopped.wait(OWN_EVERY):
            now = time.monotonic()
            own = anonymous_memory(self.pid)
            if now - last_walk >= TREE_EVERY or own + self.children > self.bound:
                last_walk = now
                tree = {pid: anonymous_memory(pid) for pid in descendants(self.pid)}
                self.children = sum(tree.values())
                if own + self.children > self.bound:
                    self._over(own, tree, now)

    def _over(self, own: int, tree: dict[int, int], now: float) -> None:
        total = own + sum(tree.values())
        with self.lock:
            test = self.test
            name = test.nodeid if test else "(between tests)"
            reached = f"{name} reached {size(total)} of memory in its processes, over the bound of {size(self.bound)}"
            biggest = max(tree, key=tree.__getitem__, default=None)
            if biggest is not None and tree[biggest] > own:
                with_child = f"{reached}: {command(biggest)} held {size(tree[biggest])} and was killed"
                try:
                    os.kill(biggest, signal.SIGKILL)
                except OSError:
                    return
                self.children -= tree[biggest]
                if test is not None and test.phase_open and not test.raised:
                    self._raise(test, with_child, now)
                return
            if test is not None and test.phase_open and not test.raised:
                self._raise(test, f"{reached} (this worker held {size(own)})", now)
                return
            if test is None:  # memory held between tests (collection, a session fixture's teardown)
                if total <= self.bound * 3 // 2:
                    return
                test = _Test("(between tests)", raised=reached)
            elif now - test.raised_at < GRACE:
                return
        self._leave(f"{test.raised}; still over the bound {GRACE:.0f} s later, so the worker ended")

    def _raise(self, test: _Test, message: str, now: float) -> None:
        """Raise ``MemoryBoundExceeded(message)`` in the main thread, at its next Python step
        (called with the lock held, while a phase of the test is open, so it lands in the test)."""
        test.raised, test.raised_at = message, now
        exception = type("MemoryBoundExceeded", (MemoryBoundExceeded,), {"__init__": _fixed_message(message)})
        ctypes.pythonapi.PyThreadState_SetAsyncExc(ctypes.c_ulong(self.main), ctypes.py_object(exception))

    def _leave(self, message: str) -> None:
        """End this process at once, leaving the message for the controller's crash report."""
        notes = os.environ.get(NOTES_VARIABLE)
        if notes and self.worker:
            Path(notes, f"{self.worker}.txt").write_text(message + "\n", encoding="utf-8")
        os.write(2, f"\n{message}\n".encode())
        os.kill(self.pid, signal.SIGKILL)


def _fixed_message(message: str):
    def __init__(self, *args: object) -> None:
        BaseException.__init__(self, message)

    return __init__


def release_frames(error: BaseException | None) -> None:
    """Clear the local variables of the frames a memory failure passed through, so the memory
    they held is freed (pytest keeps the traceback of a failed test)."""
    if isinstance(error, MemoryBoundExceeded):
        traceback.clear_frames(error.__traceback__)
