"""Open what students handed in without following a symbolic link anywhere on the way.

``O_NOFOLLOW`` alone checks only the last component of a path: with ``submitted/mallory`` a link
to the instructor's notebooks, ``submitted/mallory/lab.ipynb`` opens the instructor's notebook.
Here every component of the absolute path, from ``/``, is opened on its own with ``O_NOFOLLOW``
relative to the folder opened before it (``dir_fd``): no component can be a link, nor be swapped
for one between two steps, and ``..`` never climbs out (it is removed before the walk, so a path
stays below every folder it names). The grader resolves the folder it is given once (a link there
is the instructor's own choice) and derives every path below that real path, so an honest path
has no link in it at all.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

__all__ = ["LinkInPath", "open_nofollow", "entry_kinds", "is_real_dir", "READ_FLAGS", "LIST_FLAGS"]

_CLOEXEC = getattr(os, "O_CLOEXEC", 0)
_NOFOLLOW = getattr(os, "O_NOFOLLOW", 0)
#: A folder walked through: ``O_PATH`` needs only the right to enter it, not to list it.
_STEP = getattr(os, "O_PATH", os.O_RDONLY) | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC
#: A file opened to be read: never a link, never blocking on a FIFO.
READ_FLAGS = os.O_RDONLY | _NOFOLLOW | getattr(os, "O_NONBLOCK", 0) | _CLOEXEC
#: A folder opened to be listed.
LIST_FLAGS = os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | _NOFOLLOW | _CLOEXEC


class LinkInPath(OSError):
    """A component of a path is a symbolic link, which is never followed: ``link`` is its path."""

    def __init__(self, link: Path):
        super().__init__(errno.ELOOP, "a symbolic link is never followed", str(link))
        self.link = link


def _is_link(name: str, folder: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def open_nofollow(path: str | os.PathLike[str], *, directory: bool = False) -> int:
    """A file descriptor for ``path``, every component of it opened without following a link:
    a file opened for reading (``O_NONBLOCK``: a FIFO does not block; check what it is with
    ``os.fstat``), or with ``directory`` a folder opened to be listed (``os.scandir(fd)``).

    Raises :class:`LinkInPath` naming the first component that is a link, else the ``OSError`` of
    the step that failed (a missing component, one that is not a folder, no permission)."""
    absolute = Path(os.path.abspath(path))  # the working folder as the kernel knows it: no links
    parts = absolute.parts[1:]
    folder = os.open(absolute.anchor or "/", _STEP)
    try:
        walked = Path(absolute.anchor or "/")
        for index, part in enumerate(parts):
            walked = walked / part
            last = index == len(parts) - 1
            flags = (LIST_FLAGS if directory else READ_FLAGS) if last else _STEP
            try:
                opened = os.open(part, flags, dir_fd=folder)
            except OSError as error:
                if _is_link(part, folder):
                    raise LinkInPath(walked) from None
                raise OSError(error.errno, error.strerror, str(walked)) from None
            if not last and not stat.S_ISDIR(os.fstat(opened).st_mode):  # where O_DIRECTORY is unknown
                os.close(opened)
                raise OSError(errno.ENOTDIR, os.strerror(errno.ENOTDIR), str(walked))
            os.close(folder)
            folder = opened
        if not parts:  # the root itself
            opened = os.open("/", LIST_FLAGS if directory else READ_FLAGS)
            os.close(folder)
            folder = opened
    except BaseException:
        os.close(folder)
        raise
    return folder


def entry_kinds(folder: str | os.PathLike[str]) -> dict[str, str]:
    """What a folder holds, by name, without following a link: ``"dir"``, ``"file"`` (regular),
    ``"link"`` or ``"other"`` (a FIFO, a device, a socket). Empty when the folder cannot be
    opened without following a link, or read."""
    try:
        fd = open_nofollow(folder, directory=True)
    except OSError:
        return {}
    kinds: dict[str, str] = {}
    try:
        with os.scandir(fd) as entries:
            for entry in entries:
                try:
                    if entry.is_symlink():
                        kinds[entry.name] = "link"
                    elif entry.is_dir(follow_symlinks=False):
                        kinds[entry.name] = "dir"
                    elif entry.is_file(follow_symlinks=False):
                        kinds[entry.name] = "file"
                    else:
                        kinds[entry.name] = "other"
                except OSError:
                    kinds[entry.name] = "other"
    except OSError:
        return {}
    finally:
        os.close(fd)
    return kinds


def is_real_dir(path: str | os.PathLike[str]) -> bool:
    """Whether ``path`` is a folder reached without following any link."""
    try:
        fd = open_nofollow(path, directory=True)
    except OSError:
        return False
    os.close(fd)
    return True
