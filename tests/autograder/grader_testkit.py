"""Helpers shared by the autograder tests (a uniquely named module, imported by name)."""

from __future__ import annotations

import os
from pathlib import Path

CHILD_MARK = "/sandbox/runtime/child.py"
from minesweeper_kit.sandbox.isolation import UID_BASE, UID_SLOTS  # noqa: E402


def _tagged(entry: Path) -> bool:
    """Whether a process carries this test session's sandbox tag (see tests/autograder/grader_fixtures.py);
    other sandboxes on the machine (another grader, another test run) are not this session's."""
    tag = os.environ.get("MINESWEEPER_SANDBOX_TAG")
    if not tag:
        return True
    try:
        return f"MINESWEEPER_SANDBOX_TAG={tag}".encode() in (entry / "environ").read_bytes().split(b"\0")
    except OSError:
        return True


def sandbox_processes() -> list[str]:
    """Command lines of every live sandbox process (bubblewrap or the child) of this test session."""
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
        if (CHILD_MARK in cmdline or UID_BASE <= uid < UID_BASE + UID_SLOTS) and _tagged(entry):
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


def path_without_bwrap(folder: Path) -> str:
    """A PATH (one folder of links) on which every program of this machine is found except bwrap:
    how the tests show a machine without bubblewrap."""
    folder.mkdir(parents=True, exist_ok=True)
    for directory in os.environ.get("PATH", "").split(os.pathsep):
        if not os.path.isdir(directory):
            continue
        for name in os.listdir(directory):
            target = os.path.join(directory, name)
            if name != "bwrap" and not (folder / name).exists() and os.access(target, os.X_OK):
                (folder / name).symlink_to(target)
    return str(folder)
