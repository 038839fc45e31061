"""Run untrusted Python code in a child process isolated by the operating system.

Used by the autograder (student submissions) and the arena (bot files); it imports neither.

* ``parent.py``: :class:`Sandbox`, the grader's side: start, call, limits in CPU seconds, kill.
* ``lifecycle.py``, ``accounting.py``, ``channel.py``, ``common.py``: what it is made of: the
  child's process life, its CPU time and the guards, the request channel, the shared names.
* ``child.py``: the child's side, run inside the sandbox from a read-only copy.
* ``protocol.py``: the messages between them, written down in its docstring.
* ``policy.py``: the import rule (a course rule, checked on both sides).
* ``isolation.py``: bubblewrap, identities, and what holds on this machine (`status`).
* ``seccomp.py``: the seccomp filter bubblewrap installs: no new process or user namespace inside the sandbox.
* ``botkit.py``: the part of the kit a sandboxed bot may import.
"""

from . import common
from .common import *  # noqa: F403  (Limits, Handle and the errors: the names in common.__all__)
from .isolation import IsolationStatus, IsolationUnavailable, status
from .parent import Sandbox
from .policy import DEFAULT_DENIED, ImportPolicy

__all__ = ["Sandbox", "ImportPolicy", "DEFAULT_DENIED", "IsolationStatus", "IsolationUnavailable", "status"]
__all__ += common.__all__  # listed once, in common.py
