"""Each test process's memory bound: a runaway test fails alone, with its name and the memory it
reached, and the run goes on.

Every pytest process that runs tests (each pytest-xdist worker, or the one process of a run
without workers) starts a watchdog, a small process of its own (``python memory_bound.py``), that
adds up, a few times a second, the anonymous resident memory (what a process allocated for itself,
not its files or what it shares) of the test process and of every process it started: servers,
kernels, sandboxes, nbgrader. A process, not a thread: the test process's threads and open files
stay what the tests see (the sandbox's tests count them). Past the bound, by default
``DEFAULT_BOUND`` and otherwise the size in ``BOUND_VARIABLE`` ("4G", "500M"):

* if a process the test started holds the most, the watchdog kills it;
* either way it tells the test process (``SIGNAL``, the figures through a pipe), which raises
  :class:`MemoryBoundExceeded` in the test's set-up, call or teardown: the test fails, its frames are
  cleared and the memory they held is freed;
* a test process that stays over the bound all the same (the memory kept elsewhere, or its main
  thread stuck outside Python) is ended, after a note the controller adds to its crash report
  (tests/conftest.py), and pytest-xdist reports the test as a crash.

The bound holds per worker: ``make test`` runs one worker more than the cores, each with the
servers it shares among its tests, so the whole run stays well below the machine's memory.
"""

from __future__ import annotations

import gc
import os
import re
import signal
import subprocess
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

BOUND_VARIABLE = "MINESWEEPER_TEST_MEMORY"
DEFAULT_BOUND = 4 << 30
#: Where a test process ended for its memory leaves a note for the controller's crash report.
NOTES_VARIABLE = "MINESWEEPER_TEST_NOTES"
#: The signal the watchdog sends the test process (a real-time one: nothing else here uses it).
SIGNAL = signal.SIGRTMIN + 5
PAGE = os.sysconf("SC_PAGE_SIZE")
#: How often the test process's own memory is read, and how often the whole tree of its processes.
OWN_EVERY, TREE_EVERY = 0.25, 1.0
#: How long the test process may stay over the bound after it was told before it is ended.
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
    """Every live process started, directly or not, by ``root`` and not yet reaped: the tree is
    followed down through each thread's ``children`` file, which reads a file per thread of the
    tree's processes rather than the ``stat`` of every process on the machine (a third of the CPU
    time with about 120 processes running, less the smaller the tree)."""
    found: list[int] = []
    todo = [root]
    while todo:
        pid = todo.pop()
        try:
            tasks = os.listdir(f"/proc/{pid}/task")
        except OSError:  # ended meanwhile
            continue
        for task in tasks:
            try:
                with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                    children = [int(child) for child in handle.read().split()]
            except OSError:
                continue
            found.extend(children)
            todo.extend(children)
    return found


def command(pid: int) -> str:
    try:
        words = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    except OSError:
        return f"process {pid}"
    return " ".join(w.decode(errors="replace") for w in words[:3] if w)[:120] or f"process {pid}"


def leave_note(pid: int, message: str) -> None:
    notes = os.environ.get(NOTES_VARIABLE)
    if notes:
        Path(notes, f"{pid}.txt").write_text(message + "\n", encoding="utf-8")
    os.write(2, f"\n{message}\n".encode())


# --------------------------------------------------------------------------- the test process


@dataclass
class _Test:
    nodeid: str
    phase_open: bool = False  # inside the test's set-up, call or teardown
    raised: str = ""  # the message of the exception raised in it, if any


class MemoryWatch:
    """The test process's side: starts the watchdog, and fails the running test when told."""

    def __init__(self, bound: int) -> None:
        self.bound = bound
        self.pid = os.getpid()
        self.test: _Test | None = None
        self.watchdog: subprocess.Popen | None = None
        self.pipe = -1
        self.own = -1  # /proc/self/statm, kept open: reading it opens nothing

    def start(self) -> None:
        from minesweeper_kit.shutdown import dies_with_this_process

        self.own = os.open(f"/proc/{self.pid}/statm", os.O_RDONLY | os.O_CLOEXEC)
        self.pipe, write = os.pipe2(os.O_CLOEXEC | os.O_NONBLOCK)
        signal.signal(SIGNAL, self._told)
        self.watchdog = subprocess.Popen(
            [sys.executable, __file__, str(self.pid), str(self.bound), str(write)],
            pass_fds=[write], stdin=subprocess.DEVNULL, preexec_fn=dies_with_this_process(signal.SIGKILL),
        )
        os.close(write)

    def stop(self) -> None:
        if self.watchdog is not None:
            self.watchdog.kill()
            self.watchdog.wait()
            self.watchdog = None

    def held(self) -> int:
        return (lambda f: (int(f[1]) - int(f[2])) * PAGE)(os.pread(self.own, 200, 0).split())

    # -- told by the hooks --

    def begin(self, nodeid: str) -> None:
        self.test = _Test(nodeid)

    def phase(self, is_open: bool) -> None:
        if self.test is not None:
            self.test.phase_open = is_open

    def end(self) -> None:
        """After a test that was stopped: a process still over the bound cannot go on."""
        test, self.test = self.test, None
        if test is None or not test.raised:
            return
        gc.collect()
        if self.held() > self.bound:
            leave_note(self.pid, f"{test.raised}; {size(self.held())} were still held after the test ended, "
                                 "so the worker ended")
            os.kill(self.pid, signal.SIGKILL)

    def _told(self, number: int, frame: object) -> None:
        """The watchdog's signal: read what it found and, inside a test's phase, fail the test."""
        try:
            found = os.read(self.pipe, 65536).decode(errors="replace").splitlines()
        except BlockingIOError:
            return
        test = self.test
        if not found or test is None or not test.phase_open or test.raised:
            return
        kind, total, detail = found[-1].split(" ", 2)
        if kind == "own":
            own, detail = detail.split(" ", 1)
            if self.held() + int(total) - int(own) <= self.bound:  # freed since the watchdog looked
                return
        reached = f"{test.nodeid} reached {size(int(total))} of memory in its processes, over the bound of " \
                  f"{size(self.bound)}"
        test.raised = f"{reached}: {detail}" if kind == "child" else f"{reached} {detail}"
        raise MemoryBoundExceeded(test.raised)


def release_frames(error: BaseException | None) -> None:
    """Clear the local variables of the frames a memory failure passed through, so the memory
    they held is freed (pytest keeps the traceback of a failed test)."""
    if isinstance(error, MemoryBoundExceeded):
        traceback.clear_frames(error.__traceback__)


# --------------------------------------------------------------------------- the watchdog


def watch(parent: int, bound: int, pipe: int) -> None:
    """Watch ``parent`` and every process it started (but this one) until ``parent`` ends."""
    me, children, last_walk, over_since = os.getpid(), 0, 0.0, None
    while True:
        time.sleep(OWN_EVERY)
        try:
            os.kill(parent, 0)
        except OSError:
            return
        now = time.monotonic()
        own = anonymous_memory(parent)
        if now - last_walk < TREE_EVERY and own + children <= bound:
            continue
        last_walk = now
        tree = {pid: anonymous_memory(pid) for pid in descendants(parent) if pid != me}
        children = sum(tree.values())
        total = own + children
        if total <= bound:
            over_since = None
            continue
        biggest = max(tree, key=tree.__getitem__, default=None)
        if biggest is not None and tree[biggest] > own:
            detail = f"{command(biggest)} held {size(tree[biggest])} and was killed"
            try:
                os.kill(biggest, signal.SIGKILL)
            except OSError:
                continue
            children -= tree[biggest]
            _tell(parent, pipe, f"child {total} {detail}")
            continue
        _tell(parent, pipe, f"own {total} {own} (this worker held {size(own)})")
        over_since = over_since if over_since is not None else now
        if now - over_since > GRACE:
            leave_note(parent, f"the worker held {size(own)} ({size(total)} with its processes), over the bound "
                               f"of {size(bound)}, for {GRACE:.0f} s after the test was told, so it was ended")
            os.kill(parent, signal.SIGKILL)
            return


def _tell(parent: int, pipe: int, line: str) -> None:
    try:
        os.write(pipe, (line + "\n").encode())
        os.kill(parent, SIGNAL)
    except OSError:
        pass


if __name__ == "__main__":
    watch(int(sys.argv[1]), int(sys.argv[2]), int(sys.argv[3]))
