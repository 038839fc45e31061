"""CPU and memory accounting of one sandbox's child, and the guards that stop a call.

**CPU time counts, all of it.** Under bubblewrap the seccomp filter (``seccomp.py``) lets the
child run threads but create no process, so the sandbox's processes are a fixed chain found once,
right after the child has started and before any student code runs: bubblewrap (the grader's own
child), bubblewrap's init (process 1 of the sandbox's PID namespace) and the child's Python. The
kernel keeps the CPU time of every thread of a process, live or ended, in that process's
``/proc/PID/stat``, so one ``pread`` of a file kept open reads the whole child. When the child
has ended, its time is in the ``cutime``/``cstime`` of whoever reaped it (init, then bubblewrap)
and, once the grader has reaped bubblewrap, in the resource usage ``wait4`` returned: a child
that dies between two readings keeps none of its time. A reading is never lower than one before it.

Without bubblewrap (``isolation="none"``, trusted code only) the child may fork: its process tree
is walked through ``/proc`` instead, which loses the time of processes the kernel reaps itself
(``SIGCHLD`` ignored) and of orphans that end between two readings. The guarantee holds only
with bubblewrap and its seccomp filter.

**Guards.** A call is checked while the grader waits on the child's pipe: past its CPU limit it
is stopped, and two wall-clock guards catch code that sleeps or blocks (see :class:`CallGuard`).
CPU time cannot grow faster than wall time times the machine's cores, so the next check need not
come before the remaining CPU limit divided by the cores has passed, and never later than
:data:`IDLE_CHECK` of the idle guard's time: a call that answers quickly costs no reading at all
while the grader waits.
"""

from __future__ import annotations

import contextlib
import os
import time
from collections.abc import Callable

__all__ = ["CLOCK_TICKS", "IDLE_CPU", "CallGuard", "CpuMeter", "limit_for", "process_stat"]

CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100
IDLE_CPU = 0.02  #: CPU seconds that count as "the child is working"
MIN_WAIT = 0.01  #: shortest wait between two checks of a call, in seconds
IDLE_CHECK = 0.1  #: longest wait between two checks, as a share of the idle guard's time
CORES = os.cpu_count() or 1  #: the most cores a child's threads can run on at once
#: Process states (``/proc/PID/stat``) in which a process is not idle by its own choice: running or
#: waiting for a core (R), or in an uninterruptible wait inside the kernel (D: a page read back from
#: a busy disk, memory reclaim). Sleeping (S), stopped (T) and the rest are the code's doing.
_NOT_IDLE_STATES = (b"R", b"D")


def _parse_stat(data: bytes) -> tuple[int, bool]:
    """User and system time plus that of reaped children, in clock ticks, and whether the process
    is running, ready to run or waiting in the kernel, from one ``/proc/PID/stat``."""
    fields = data.rsplit(b")", 1)[1].split()
    return sum(int(x) for x in fields[11:15]), fields[0] in _NOT_IDLE_STATES


def process_stat(pid: int) -> tuple[int, bool] | None:
    """A process's user and system time plus that of the children it reaped, in clock ticks, and
    whether it is running, ready to run or waiting in the kernel (not idle however little CPU
    time it gets); None when it has gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            return _parse_stat(handle.read())
    except (OSError, ValueError, IndexError):
        return None


def _children(pid: int) -> tuple[list[int], int]:
    """The processes ``pid``'s threads have started and not yet seen reaped, and how many ``/proc``
    files were read to find them."""
    found: list[int] = []
    tasks = os.listdir(f"/proc/{pid}/task")
    for task in tasks:
        with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
            found.extend(int(x) for x in handle.read().split())
    return found, 1 + len(tasks)


class CpuMeter:
    """The CPU seconds used by one child (of one start of a sandbox) so far.

    ``root`` is the process the grader started. Until :meth:`settle` finds the fixed chain of
    processes under it, and for good where it finds none (no seccomp filter, ``isolation="none"``),
    each reading walks the process tree. ``reads`` counts the ``/proc`` files read, for the
    benchmark."""

    TREE_REFRESH = 0.1  #: seconds a walked tree is trusted before it is walked again

    def __init__(self, root: int) -> None:
        self.root = root
        self.reads = 0
        self.active = False  #: at the last reading, the child was running, ready or in the kernel
        self._fds: list[int] = []  #: ``/proc/PID/stat`` of the chain, the child's Python first
        self._above: list[float] = []  #: for each, the CPU seconds of the processes above it, when settled
        self._tree: tuple[list[int], float] = ([], 0.0)
        self._last = 0.0

    @property
    def settled(self) -> bool:
        """Whether readings are made on the fixed chain (one read while the child lives)."""
        return bool(self._fds)

    def settle(self) -> bool:
        """Fix the processes read from now on, once the child runs and before student code does:
        bubblewrap, its init and the child's Python, each the only child of the one before. False
        (and the tree walk kept) where the processes are not such a chain."""
        chain, pid = [self.root], self.root
        try:
            while True:
                below, reads = _children(pid)
                self.reads += reads
                if not below:
                    break
                if len(below) > 1 or len(chain) >= 3:
                    return False
                pid = below[0]
                chain.append(pid)
        except (OSError, ValueError):
            return False
        fds: list[int] = []
        try:
            for pid in reversed(chain):
                fds.append(os.open(f"/proc/{pid}/stat", os.O_RDONLY | os.O_CLOEXEC))
            totals = [_parse_stat(os.pread(fd, 4096, 0))[0] / CLOCK_TICKS for fd in fds]
        except (OSError, ValueError, IndexError):
            for fd in fds:
                os.close(fd)
            return False
        self.reads += len(fds)
        self._fds = fds
        self._above = [float(sum(totals[i + 1 :])) for i in range(len(totals))]
        return True

    def read(self, exited: float | None = None) -> float:
        """CPU seconds of the child so far; ``exited`` is the usage ``wait4`` returned once the
        grader reaped its process (every process of the sandbox that was reaped in turn)."""
        value = self._read_chain(exited) if self._fds else self._read_tree(exited)
        self._last = max(self._last, value)
        return self._last

    def _read_chain(self, exited: float | None) -> float:
        # the child's Python first; once it has gone, its time is in the cutime of the process
        # that reaped it, the next one up, and so on to bubblewrap and its wait4 usage
        for index, fd in enumerate(self._fds):
            self.reads += 1
            try:
                ticks, active = _parse_stat(os.pread(fd, 4096, 0))
            except (OSError, ValueError, IndexError):
                continue
            self.active = active and index == 0
            return ticks / CLOCK_TICKS + self._above[index]
        self.active = False
        return exited if exited is not None else 0.0

    def _read_tree(self, exited: float | None) -> float:
        """Each live process counts its own time plus that of the children it has reaped, so a
        process that ended is counted once, by whoever reaped it. Finding the tree's processes
        costs more than reading them, so it is walked afresh at most every :data:`TREE_REFRESH`
        seconds (or when one of them has gone)."""
        now = time.monotonic()
        pids, found_at = self._tree
        if pids and now - found_at < self.TREE_REFRESH:
            total, active = 0, False
            for pid in pids:
                self.reads += 1
                stat = process_stat(pid)
                if stat is None:  # gone: its time moved to whoever reaped it, so look again
                    break
                total += stat[0]
                active = active or stat[1]
            else:
                self.active = active
                return total / CLOCK_TICKS
        total, active, seen, todo = 0, False, [], [self.root]
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            self.reads += 1
            stat = process_stat(pid)
            if stat is None:
                continue
            seen.append(pid)
            total += stat[0]
            active = active or stat[1]
            try:
                below, reads = _children(pid)
            except (OSError, ValueError):
                continue
            self.reads += reads
            todo.extend(below)
        self._tree = (seen, now)
        self.active = active
        if not seen:
            return exited if exited is not None else 0.0
        return total / CLOCK_TICKS

    def close(self) -> None:
        """Close the files kept open; safe to call twice."""
        for fd in self._fds:
            with contextlib.suppress(OSError):
                os.close(fd)
        self._fds = []


def limit_for(
    timeout: float | None, window: float | None, budget: float | None, used: float
) -> tuple[float | None, str]:
    """The CPU seconds a call may use, ``used`` seconds of the sandbox having gone already, and what
    that limit is called in messages (``"call"`` or ``"budget"``): the least of the call's own
    ``timeout``, what is left of the test's ``window`` and of the submission's ``budget``."""
    limits: list[tuple[float, str]] = []
    if timeout is not None:
        limits.append((timeout, "call"))
    if window is not None:
        limits.append((max(0.0, window - used), "call"))
    if budget is not None:
        limits.append((max(0.0, budget - used), "budget"))
    if not limits:
        return None, ""
    return min(limits)


class CallGuard:
    """The checks made while the grader waits on the child during one call.

    ``read`` gives the sandbox's CPU seconds so far and whether its child was running, ready to
    run or waiting in the kernel at that reading. :meth:`over` says whether the call has used up
    ``cpu_limit`` CPU seconds since ``cpu_start``; it raises ``TimeoutError("wall")`` past the
    wall-clock limit (``wall_factor`` times the CPU limit plus ``wall_slack`` seconds) and
    ``TimeoutError("idle")`` when the child has used no CPU time (less than :data:`IDLE_CPU`) for
    ``idle_seconds``, and ``TimeoutError("deadline")`` at ``deadline`` (a ``time.monotonic()``
    reading: the end of the submission's wall-clock budget), whatever the call's own limits.

    A child that is ready to run but gets no core (a machine crowded with other processes), or
    that waits inside the kernel (pages read back from a busy disk), is not idle: at every
    reading where it is in such a state the idle clock starts again. Only the wall-clock limit
    bounds such a call. :meth:`wait` is how long the grader may wait before the next check."""

    def __init__(
        self,
        read: Callable[[], tuple[float, bool]],
        cpu_start: float,
        cpu_limit: float | None,
        *,
        wall_factor: float,
        wall_slack: float,
        idle_seconds: float,
        deadline: float | None = None,
    ) -> None:
        self.read, self.cpu_start, self.cpu_limit = read, cpu_start, cpu_limit
        self.idle_seconds = idle_seconds
        self.deadline = deadline
        now = time.monotonic()
        self.wall_end = None if cpu_limit is None else now + cpu_limit * wall_factor + wall_slack
        self.progress = (now, cpu_start)  # when the child last used CPU time, and how much
        self.cores = CORES
        self.longest = max(MIN_WAIT, idle_seconds * IDLE_CHECK)
        self._next = self._wait_after(now, cpu_start)

    def _wait_after(self, now: float, cpu: float) -> float:
        """Seconds before the next check, the child having used ``cpu`` seconds at ``now``."""
        until_deadline = self.longest if self.deadline is None else self.deadline - now
        if self.cpu_limit is None or self.wall_end is None:
            return max(MIN_WAIT, min(self.longest, until_deadline))
        left = self.cpu_limit - (cpu - self.cpu_start)
        return max(MIN_WAIT, min(left / self.cores, self.longest, self.wall_end - now, until_deadline))

    def wait(self) -> float:
        """How long the grader may wait for the child before it calls :meth:`over`."""
        return self._next

    def paused(self, seconds: float) -> None:
        """The child waited ``seconds`` on the grader (a question it asked, see ``channel.py``):
        that wait is neither idleness nor the child's wall-clock time."""
        if self.wall_end is not None:
            self.wall_end += seconds
        self.progress = (time.monotonic(), self.progress[1])

    def over(self, *, just_sent: bool = False) -> bool:
        """One check: True once the call has used up its CPU limit (see the class).

        ``just_sent`` says the check comes as the child's data arrived (or its request was taken):
        a child caught running right after a write may only be on its way back to sleep, so at
        such a check only CPU time it used shows that it works."""
        if self.deadline is not None and time.monotonic() >= self.deadline:
            raise TimeoutError("deadline")
        if self.cpu_limit is None:
            return False
        now, (cpu, active) = time.monotonic(), self.read()
        if now >= (self.wall_end or 0):
            raise TimeoutError("wall")
        if cpu - self.progress[1] >= IDLE_CPU or (active and not just_sent):  # working, or starved
            self.progress = (now, cpu)
        elif now - self.progress[0] >= self.idle_seconds:
            raise TimeoutError("idle")
        self._next = self._wait_after(now, cpu)
        return cpu - self.cpu_start >= self.cpu_limit
