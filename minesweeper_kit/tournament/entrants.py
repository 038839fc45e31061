"""Who plays what: the bots of a tournament (`Entrant`) and its sets of games (`Event`)."""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from ..arena import BUILTIN_BOTS, Rules, Subtask, subtask
from ..presets import PRESETS


def slug(name: str) -> str:
    """A name made safe for a file or folder name (results folders use it)."""
    return re.sub(r"[^\w.-]+", "_", name).strip("._") or "bot"


@dataclass(frozen=True)
class Entrant:
    """One bot of the tournament: a built-in name or a file, with the SHA-256 that identifies it."""

    name: str
    source: str  #: built-in name, or the file's absolute path
    sha256: str
    sandboxed: bool
    text: str | None = None  #: the file's source as read at the start (None for built-ins)

    @property
    def builtin(self) -> bool:
        """A kit bot (played in-process), not a file."""
        return self.text is None


@dataclass(frozen=True)
class Event:
    """A set of games every bot plays: a preset's board, or a Sweepmine subtask."""

    name: str
    rules: Rules | Subtask
    run_seed: int

    @property
    def subtask(self) -> Subtask | None:
        """The Sweepmine subtask this event plays, or None for a preset."""
        return self.rules if isinstance(self.rules, Subtask) else None


def builtin_sha256(name: str) -> str:
    """Built-in bots are identified by their name and the source of the kit's bots package."""
    digest = hashlib.sha256(name.encode())
    for path in sorted((Path(__file__).resolve().parent.parent / "bots").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def _is_link(name: str, folder: int) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except OSError:
        return False


def _folder_bots(folder: str | os.PathLike) -> dict[str, bytes]:
    """Every ``*.py`` bot file of ``folder`` (not ``_*`` or hidden), by absolute path, with its
    bytes. The folder is the caller's choice and may be reached through a link; nothing in it is:
    a bot file that is a link, or anything but a regular file, is refused with its name, and each
    file is opened with ``O_NOFOLLOW`` relative to the folder already open, so no name can be swapped
    for a link between the listing and the reading."""
    directory = Path(folder).resolve()
    if not directory.is_dir():
        raise ValueError(f"--dir {str(folder)!r} is not a folder")
    flags = os.O_RDONLY | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        opened = os.open(directory, os.O_RDONLY | getattr(os, "O_DIRECTORY", 0) | getattr(os, "O_CLOEXEC", 0))
    except OSError as error:
        raise ValueError(f"cannot read the folder {str(folder)!r}: {error.strerror}") from None
    found: dict[str, bytes] = {}
    try:
        with os.scandir(opened) as listing:
            names = sorted(e.name for e in listing if e.name.endswith(".py") and not e.name.startswith(("_", ".")))
        for name in names:
            shown = Path(folder) / name
            try:
                fd = os.open(name, flags, dir_fd=opened)
            except OSError as error:
                if _is_link(name, opened):
                    raise ValueError(
                        f"{shown} is a symbolic link: --dir follows no link; copy the bot file itself there"
                    ) from None
                raise ValueError(f"cannot read the bot file {shown}: {error.strerror}") from None
            try:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise ValueError(f"{shown} is not a regular file: a bot is a .py file")
                with os.fdopen(os.dup(fd), "rb") as handle:
                    found[str(directory / name)] = handle.read()
            finally:
                os.close(fd)
    finally:
        os.close(opened)
    return found


def find_entrants(
    bots: Sequence[str | os.PathLike], folder: str | os.PathLike | None = None, trusted: bool = False
) -> list[Entrant]:
    """The bots named (built-in names or .py files) and every ``*.py`` of ``folder``, in that order.

    A name is the file's stem, or parent/stem when two files share a stem. Files run sandboxed
    unless ``trusted``; built-in bots always run in-process. A file named is read as given (a
    link there is the caller's choice); in ``folder`` no link is followed (see ``_folder_bots``).
    """
    sources: list[str] = []
    read: dict[str, bytes] = {}
    for bot in bots:
        name = str(bot)
        if name in BUILTIN_BOTS:
            sources.append(name)
        elif Path(name).is_dir():
            raise ValueError(f"{name} is a folder: give it with --dir (or folder=...)")
        elif not Path(name).is_file():
            raise ValueError(f"no bot file {name!r} (built-in bots: {', '.join(BUILTIN_BOTS)})")
        else:
            sources.append(str(Path(name).resolve()))
    if folder is not None:
        read = _folder_bots(folder)
        if not read:
            raise ValueError(f"the folder {str(folder)!r} holds no bot files (*.py)")
        sources += list(read)
    unique = list(dict.fromkeys(sources))
    if len(unique) < 2:
        raise ValueError(f"a tournament needs at least two different bots, got {len(unique)}")
    stems = Counter(Path(s).stem for s in unique if s not in BUILTIN_BOTS)
    entrants = []
    for source in unique:
        if source in BUILTIN_BOTS:
            entrants.append(Entrant(source, source, builtin_sha256(source), False))
            continue
        path = Path(source)
        name = (
            path.stem if stems[path.stem] == 1 and path.stem not in BUILTIN_BOTS else f"{path.parent.name}/{path.stem}"
        )
        data = read[source] if source in read else path.read_bytes()
        entrants.append(
            Entrant(name, source, hashlib.sha256(data).hexdigest(), not trusted, data.decode("utf-8", errors="replace"))
        )
    names = [e.name for e in entrants]
    slugs = {slug(n) for n in names}
    if len(set(names)) != len(names) or len(slugs) != len(names):
        raise ValueError(f"two bots would share a name: {', '.join(sorted(names))}")
    return entrants


def make_events(
    presets: Sequence[str] = ("beginner", "intermediate", "expert"),
    seed: int = 0,
    sweepmine: bool = False,
    subtasks: Sequence[int] = (1, 2, 3, 4, 5, 6),
) -> list[Event]:
    """The presets' events (run seed = seed), or with ``sweepmine`` the chosen subtasks (seed + n)."""
    if sweepmine:
        return [Event(f"subtask {number}", subtask(number), int(seed) + number) for number in subtasks]
    for name in presets:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}: choose from {', '.join(PRESETS)}")
    return [Event(name, Rules.preset(name), int(seed)) for name in dict.fromkeys(presets)]
