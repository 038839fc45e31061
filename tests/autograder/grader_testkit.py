"""Helpers shared by the autograder tests (a uniquely named module, imported by name)."""

from __future__ import annotations

import os
from pathlib import Path

CHILD_MARK = "_sandbox_child.py"


def sandbox_processes() -> list[str]:
    """Command lines of every live sandbox child or process of the unprivileged user."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            cmdline = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            uid = int(next(line.split()[1] for line in (entry / "status").read_text().splitlines()
                           if line.startswith("Uid:")))
            state = next(line.split()[1] for line in (entry / "status").read_text().splitlines()
                         if line.startswith("State:"))
        except (OSError, StopIteration, ValueError):
            continue
        if state == "Z":
            continue
        if CHILD_MARK in cmdline or (os.geteuid() == 0 and uid == 65534):
            found.append(f"{entry.name}: {cmdline[:120]}")
    return found


def survivors_after(before: set[str], wait: float = 5.0) -> list[str]:
    """Sandbox processes not in ``before``, once killed processes have had ``wait`` s to vanish."""
    import time

    deadline = time.monotonic() + wait
    while True:
        left = [p for p in sandbox_processes() if p not in before]
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.1)
