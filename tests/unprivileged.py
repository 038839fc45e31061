"""Running a program as an ordinary user from a root test session, with this Python reachable.

The red team grades as that user, and so do the tests that show the sandbox works wherever Python
lives: both start the grader through :func:`unprivileged_prefix`.
"""

from __future__ import annotations

import json
import os
import pwd
import shutil
import stat
import subprocess
import sys
import tempfile
from pathlib import Path

#: The ordinary account the unprivileged runs use (setpriv from root).
UNPRIVILEGED_UID = 1000


def _traversable(path: Path, uid: int, gid: int) -> bool:
    info = path.stat()
    if info.st_uid == uid:
        return bool(info.st_mode & stat.S_IXUSR)
    if info.st_gid == gid:
        return bool(info.st_mode & stat.S_IXGRP)
    return bool(info.st_mode & stat.S_IXOTH)


def unprivileged_prefix(staging: Path, uid: int = UNPRIVILEGED_UID) -> list[str]:
    """The command prefix that runs a program as ``uid`` with this Python still reachable.

    When the Python installation sits below a folder that user cannot enter (a home of mode
    700), a private mount namespace covers that folder with an empty tmpfs and shows just the
    installation's top folder inside it again."""
    user = pwd.getpwuid(uid)
    needed: dict[Path, set[Path]] = {}
    for root in {Path(os.path.realpath(p)) for p in (sys.base_prefix, sys.prefix)}:
        for ancestor in reversed(root.parents):
            if ancestor != Path("/") and not _traversable(ancestor, uid, user.pw_gid):
                child = ancestor / root.relative_to(ancestor).parts[0]
                needed.setdefault(ancestor, set()).add(child)
                break
    become = ["setpriv", f"--reuid={uid}", f"--regid={user.pw_gid}", "--clear-groups"]
    if not needed:
        return become
    stage = tempfile.mkdtemp(prefix="python-", dir=staging)  # stays empty: the mounts are private
    steps = []
    for number, (hidden, children) in enumerate(sorted(needed.items())):
        moves = []
        for index, child in enumerate(sorted(children)):
            staged = f"{stage}/{number}-{index}"
            steps += [f"mkdir -p {staged}", f"mount --bind {child} {staged}"]
            moves += [f"mkdir -p {child}", f"mount --move {staged} {child}"]
        steps += [f"mount -t tmpfs -o mode=755 tmpfs {hidden}"] + moves
    script = " && ".join(steps) + ' && exec "$0" "$@"'
    return ["unshare", "-m", "sh", "-c", script] + become


def run_python(mode: str, program: str, *args: str, timeout: float = 300) -> dict:
    """``python -c program args`` run from ``/`` as root (``mode`` "root") or as the ordinary user
    (any other mode), with a plain environment; the JSON object its last line prints. A program
    that fails fails the calling test with its output."""
    staging = None
    prefix: list[str] = []
    if mode != "root":
        staging = Path(tempfile.mkdtemp(prefix="as-user-"))
        os.chmod(staging, 0o755)
        prefix = unprivileged_prefix(staging)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": "/tmp", "TMPDIR": "/tmp",
           "PYTHONDONTWRITEBYTECODE": "1", "MINESWEEPER_SANDBOX_TAG": os.environ.get("MINESWEEPER_SANDBOX_TAG", "")}
    try:
        done = subprocess.run(prefix + [sys.executable, "-c", program, *args], capture_output=True, text=True,
                              timeout=timeout, cwd="/", env=env)
    finally:
        if staging is not None:
            shutil.rmtree(staging, ignore_errors=True)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])
