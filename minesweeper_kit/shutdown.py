"""Stopping in order: SIGTERM ends a command the way Ctrl+C does, and children end with their parent.

Python's default action for SIGTERM ends the process at once: no ``finally`` block, ``with`` block
or ``atexit`` handler runs, so a server, sandbox or worker the process started is left running,
re-parented to init. After :func:`stop_on_sigterm`, SIGTERM raises :class:`Terminated`, a
``KeyboardInterrupt``, so whatever already stops in order on Ctrl+C (pytest's fixture teardown, a
sandbox's ``with`` block, the grader's batch) stops the same way on SIGTERM.

A process can still end before it stops its children (SIGKILL, a crash). A child started with
:func:`dies_with_this_process` as its ``preexec_fn`` is then sent SIGTERM by the kernel (Linux's
``PR_SET_PDEATHSIG``) and stops in its own order.
"""

from __future__ import annotations

import functools
import os
import signal
import sys
import threading
from collections.abc import Callable
from types import FrameType

__all__ = [
    "Terminated",
    "exit_status",
    "stop_on_sigterm",
    "stops_requested",
    "die_with_parent",
    "dies_with_this_process",
]

_PR_SET_PDEATHSIG = 1  # from <sys/prctl.h>

#: Every stop asked of this process through :func:`stop_on_sigterm`'s handler, by signal number.
_REQUESTED: list[int] = []


class Terminated(KeyboardInterrupt):
    """SIGTERM arrived. A KeyboardInterrupt, so code that stops in order on Ctrl+C (pytest, the
    grader's batch, a command's ``except KeyboardInterrupt``) stops the same way on SIGTERM."""

    signal_number = signal.SIGTERM


def exit_status(stop: KeyboardInterrupt) -> int:
    """The exit status of a command that ``stop`` ended: 128 plus the signal's number, as a shell
    reports a process that signal killed (130 for Ctrl+C, 143 for SIGTERM)."""
    return 128 + int(getattr(stop, "signal_number", signal.SIGINT))


def stop_on_sigterm(before: Callable[[], None] | None = None) -> bool:
    """From now on the first SIGTERM raises :class:`Terminated` in the main thread, after calling
    ``before`` (to pass the signal on to worker processes, say).

    Later SIGTERMs are ignored: the orderly stop is under way, and a second exception would cut it
    short (a worker often gets SIGTERM twice: once sent to its whole process group, once passed on
    by its parent). They are ignored by a handler, not ``SIG_IGN``, which children would inherit.
    Returns False, changing nothing, off the main thread, where Python cannot set a handler."""
    if threading.current_thread() is not threading.main_thread():
        return False
    stopping = False

    def handler(number: int, frame: FrameType | None) -> None:
        nonlocal stopping
        _REQUESTED.append(number)
        if stopping:
            return
        stopping = True
        if before is not None:
            before()
        raise Terminated()

    # SIGINT keeps Python's own handler: asyncio and anyio handle Ctrl+C in their own way only
    # when they find that handler in place (a replacement, however alike, leaves event loops, such
    # as JupyterLab's and nbclient's, to be stopped at an arbitrary point)
    signal.signal(signal.SIGTERM, handler)
    return True


def stops_requested() -> list[int]:
    """The SIGTERMs that asked this process to stop since :func:`stop_on_sigterm`, oldest first.

    The exception a handler raises goes where the main thread happens to be, and Python drops an
    exception raised inside a finalizer or a weak reference's callback (it prints "Exception
    ignored"); a loop that must stop (the grader's batch) also looks here at each turn."""
    return list(_REQUESTED)


@functools.cache
def _prctl() -> Callable[..., int] | None:
    """libc's prctl, looked up once, before any fork (a ``preexec_fn`` must not load libraries)."""
    if not sys.platform.startswith("linux"):
        return None
    import ctypes

    try:
        return ctypes.CDLL(None, use_errno=True).prctl
    except (OSError, AttributeError):
        return None


def die_with_parent(parent: int, number: int = signal.SIGTERM) -> None:
    """Have the kernel send signal ``number`` to this process when its parent ``parent`` ends, or
    send it now if ``parent`` has ended already (Linux; nothing elsewhere).

    Strictly, the kernel watches the *thread* that started this process: start it from a thread
    that lives as long as its process, such as the main thread."""
    prctl = _prctl()
    if prctl is None:
        return
    prctl(_PR_SET_PDEATHSIG, int(number), 0, 0, 0)
    if os.getppid() != parent:  # the parent ended before the request was made
        os.kill(os.getpid(), number)


def dies_with_this_process(number: int = signal.SIGTERM) -> Callable[[], None]:
    """A ``preexec_fn`` for :class:`subprocess.Popen`: the child gets signal ``number`` when this
    process ends, however it ends (see :func:`die_with_parent` on threads)."""
    _prctl()
    return functools.partial(die_with_parent, os.getpid(), number)
