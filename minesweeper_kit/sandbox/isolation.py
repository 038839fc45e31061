"""Operating-system isolation for untrusted code: bubblewrap, and what holds on this machine.

The boundary is the kernel's, not Python's. Every sandboxed child is started by Debian's
``bwrap`` (bubblewrap) in fresh mount, PID, IPC, UTS, network and cgroup namespaces. Its file
system is an empty tmpfs holding only read-only views of the system libraries, the Python
installation and the child's own runtime folder, plus a private, size-limited working folder
and ``/tmp``: no checkout, no ``.git``, no notebooks, no instructor folder, no home.

Who the child is depends on who grades:

* **as root**, bwrap runs privileged (no user namespace) and the child switches, before Python
  starts, to a host user id of its own, taken from a range no account uses and held by a lock
  for the child's lifetime, so no two sandboxes (and no real user) share an identity, and the
  process-count limit counts that sandbox alone;
* **as an ordinary user**, bwrap runs unprivileged in a new user namespace (nested user
  namespaces disabled); the process-count limit is counted per user namespace, so per sandbox.

Either way, a seccomp filter (``seccomp.py``, read by bwrap from a pipe: ``--seccomp FD``) makes
every attempt to create a process or a user namespace inside the sandbox fail with ``EPERM``:
threads still run, and the child's CPU time, every thread of it, is in the one process the grader
reads (``accounting.py``).

Where bubblewrap or user namespaces are missing, :func:`status` says why and how to fix it,
and :class:`IsolationUnavailable` stops a run unless isolation ``"none"`` was asked for.
"""

from __future__ import annotations

import atexit
import errno
import fcntl
import functools
import os
import shutil
import stat
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from . import seccomp

__all__ = [
    "IsolationUnavailable",
    "IsolationStatus",
    "python_problem",
    "site_paths",
    "status",
    "require_isolation",
    "bwrap_command",
    "seccomp_fd",
    "UidLease",
    "MemoryCgroup",
    "WORKDIR",
    "RUNTIME",
    "ISOLATION_CHOICES",
]

WORKDIR = "/sandbox/work"  #: the child's working folder and HOME (private tmpfs)
RUNTIME = "/sandbox/runtime"  #: the child's own code, read-only
ISOLATION_CHOICES = ("bwrap", "none")
#: Host user ids handed to sandboxes when grading as root: far above any account's.
UID_BASE, UID_SLOTS = 1_900_000_000, 4096


class IsolationUnavailable(RuntimeError):
    """The machine cannot isolate untrusted code; the message says why and what to do."""


@dataclass(frozen=True)
class IsolationStatus:
    """What isolation this machine gives a sandboxed child, and why."""

    available: bool
    mode: str  #: "bwrap as root", "bwrap in a user namespace" or "none"
    reason: str  #: one sentence: why this mode (or why none)
    bwrap: str | None = None
    version: str | None = None
    holds: list[str] = field(default_factory=list)
    gaps: list[str] = field(default_factory=list)

    def describe(self) -> str:
        """The text ``autograder doctor`` prints: the mode, why, and each guarantee that holds or is
        missing."""
        lines = [f"isolation: {self.mode}", f"why: {self.reason}"]
        if self.bwrap:
            lines.append(f"bubblewrap: {self.bwrap} ({self.version or 'version unknown'})")
        lines += [f"  holds: {item}" for item in self.holds]
        lines += [f"  gap:   {item}" for item in self.gaps]
        return "\n".join(lines)


_HOLDS_COMMON = [
    "file system: only read-only system libraries, the Python installation and the child's runtime; "
    "no checkout, .git, notebooks, instructor folder or home",
    "a private tmpfs working folder and /tmp, each size-limited",
    "no network (a new network namespace holding only its own loopback)",
    "new PID, IPC, UTS and cgroup namespaces; its own session; killed when the grader dies",
    "rlimits: address space per process, CPU seconds, file size, open files, process count",
]


def _fix_hint() -> str:
    if sys.platform == "darwin":
        return (
            "macOS has no bubblewrap: grade untrusted code in a Linux container or VM "
            "(the Gradescope export does), or pass --isolation none for trusted code only"
        )
    return (
        "install Debian's bubblewrap (as root: apt-get install bubblewrap) and allow user "
        "namespaces (sysctl kernel.unprivileged_userns_clone=1 where that switch exists), or "
        "grade as root; pass --isolation none only for code you trust"
    )


@functools.lru_cache(maxsize=1)
def status() -> IsolationStatus:
    """Probe this machine once: is bubblewrap there, and does a sandbox really start?"""
    if not sys.platform.startswith("linux"):
        return IsolationStatus(False, "none", f"{sys.platform} is not Linux; {_fix_hint()}")
    bwrap = shutil.which("bwrap")
    if bwrap is None:
        return IsolationStatus(False, "none", f"bubblewrap (bwrap) is not installed; {_fix_hint()}")
    version = _bwrap_version(bwrap)
    root = os.geteuid() == 0
    failure = _probe_failure(bwrap, root)
    if failure is not None:
        return IsolationStatus(False, "none", failure, bwrap, version)
    return _status_as_root(bwrap, version) if root else _status_as_user(bwrap, version)


def _bwrap_version(bwrap: str) -> str | None:
    """What ``bwrap --version`` prints, or None when it says nothing or cannot run."""
    try:
        return subprocess.run([bwrap, "--version"], capture_output=True, text=True, timeout=30).stdout.strip() or None
    except (OSError, subprocess.TimeoutExpired):
        return None


def _probe_failure(bwrap: str, root: bool) -> str | None:
    """Start one empty sandbox as a real child would be started; None when it ran, else why not.

    When Python fails, a second sandbox runs a system program instead, to tell a bubblewrap that
    cannot work here (the install hint) from a Python installation the sandbox cannot run (named,
    with what is wrong with it); when that fails too, a third one without the seccomp filter tells
    a kernel that refuses the filter from a bubblewrap that does not work at all."""
    python = _run_probe(bwrap, root, [python_in_sandbox(), "-I", "-S", "-c", _PYTHON_PROBE, *site_paths()])
    if python is None:
        return None
    program = shutil.which("true")
    system = _run_probe(bwrap, root, [program], show=(program,)) if program else python
    if system is not None:
        if program and seccomp.unsupported() is None and _run_probe(bwrap, root, [program], (program,), False) is None:
            return (
                f"bubblewrap starts a sandbox here, but not with the seccomp filter that keeps sandboxed code "
                f"from creating user namespaces ({system}); this kernel needs seccomp filters "
                "(CONFIG_SECCOMP_FILTER), as every mainstream distribution's has"
            )
        return f"bubblewrap could not start a sandbox here ({system}); {_fix_hint()}"
    return (
        f"bubblewrap works here, but the Python interpreter {sys.executable} cannot be executed inside "
        f"the sandbox ({python}); {python_problem(root)}"
    )


#: What a child needs of the installation besides starting: to read every package folder (a
#: venv its user cannot read still starts, as the bare base interpreter, and then imports nothing).
_PYTHON_PROBE = "import os, sys\nfor folder in sys.argv[1:]: os.listdir(folder)\n"


def _run_probe(
    bwrap: str, root: bool, argv: list[str], show: tuple[str, ...] = (), filtered: bool = True
) -> str | None:
    """Run ``argv`` in a sandbox built as a child's is (its seccomp filter too, unless not
    ``filtered``); None when it exited 0, else bwrap's last word."""
    filter_fd = seccomp_fd() if filtered else None
    command = bwrap_command(
        bwrap,
        argv,
        uid=_probe_uid() if root else None,
        runtime=None,
        tmp_mb=1,
        work_mb=1,
        hide=(),
        show=show,
        seccomp_fd=filter_fd,
    )
    try:
        probe = subprocess.run(
            command,
            capture_output=True,
            text=True,
            timeout=60,
            stdin=subprocess.DEVNULL,
            pass_fds=() if filter_fd is None else (filter_fd,),
        )
    except (OSError, subprocess.TimeoutExpired) as error:
        return str(error)
    finally:
        if filter_fd is not None:
            os.close(filter_fd)
    if probe.returncode == 0:
        return None
    detail = (probe.stderr or probe.stdout).strip().splitlines()
    return detail[-1] if detail else f"exit code {probe.returncode}"


def python_problem(root: bool) -> str:
    """Why this Python installation may not run inside a sandbox, as a sentence for the instructor.

    Everything is shown at the path it has here, so what remains to go wrong is access: grading as
    root, every sandbox runs as a user id of its own, which reads only what other users may read."""
    executable = os.path.realpath(sys.executable)
    folders = _python_roots() + [p for p in site_paths() if os.path.isdir(p)]
    if root:
        for folder in folders:
            inside = [folder]
            if executable.startswith(folder + "/"):
                inside += _ancestors_below(folder, executable)
            for path in inside:
                mode = os.stat(path).st_mode
                if mode & 0o005 != 0o005:
                    return (
                        f"{path} is not readable by other users (mode {stat.S_IMODE(mode):04o}), and a "
                        "sandbox started by root runs as an unprivileged user id of its own: make the "
                        "Python installation readable by others (chmod -R o+rX on it) or use one that is"
                    )
        if not os.stat(executable).st_mode & 0o001:
            return f"{executable} is not executable by other users: chmod o+x it"
    return (
        "the sandbox shows the Python installation read-only at the path it has here ("
        + ", ".join(folders)
        + "): check that each folder is readable and that the interpreter runs from it"
    )


def _ancestors_below(top: str, path: str) -> list[str]:
    """The folders strictly between ``top`` and ``path``'s folder, outermost first, plus that folder."""
    found = []
    folder = os.path.dirname(path)
    while folder != top and folder.startswith(top + "/"):
        found.append(folder)
        folder = os.path.dirname(folder)
    return found[::-1]


#: What is missing without the seccomp filter, whoever grades.
_NO_FILTER_CPU = (
    "sandboxed code may start processes: their CPU time is found by walking the process tree, which "
    "misses children the kernel reaps itself (SIGCHLD ignored) and orphans that end between two readings"
)


def _status_as_root(bwrap: str, version: str | None) -> IsolationStatus:
    """What holds when root grades: a leased host uid per sandbox, and a memory cgroup where one can be made."""
    memory = MemoryCgroup.base()
    holds = _HOLDS_COMMON + [
        "an unprivileged host user id of its own per sandbox, no capabilities, "
        "no_new_privs; the process-count limit counts that sandbox alone"
    ]
    gaps = []
    no_filter = seccomp.unsupported()
    if no_filter is None:
        holds.append(seccomp.SUMMARY)
    else:
        gaps.append(
            f"sandboxed code may create a user namespace of its own ({no_filter}; bubblewrap's "
            "--disable-userns needs a user namespace, which grading as root does not use): inside it, "
            "it holds capabilities over its own new namespaces only"
        )
        gaps.append(_NO_FILTER_CPU)
    if memory is not None:
        holds.append(f"a memory limit for the sandbox as a whole (cgroup v1 memory controller, {memory})")
    else:
        gaps.append(
            "no cgroup memory controller to write here: memory is limited by address space (the "
            "sandbox's one process, or per process times the process-count limit without the seccomp "
            "filter); memory files and tmpfs pages are not address space"
        )
    return IsolationStatus(
        True,
        "bwrap as root",
        "the grader runs as root: bubblewrap sets up the namespaces and the "
        "child switches to a host user id no other sandbox or account uses",
        bwrap,
        version,
        holds,
        gaps,
    )


def _status_as_user(bwrap: str, version: str | None) -> IsolationStatus:
    """What holds when an ordinary user grades: a user namespace per sandbox, the grader's own uid."""
    return IsolationStatus(
        True,
        "bwrap in a user namespace",
        "the grader runs as an ordinary user and the kernel allows unprivileged user namespaces",
        bwrap,
        version,
        _HOLDS_COMMON
        + [
            "a user namespace of its own (nested ones disabled), no capabilities outside "
            "it; the process-count limit is counted per user namespace"
        ]
        + ([seccomp.SUMMARY] if seccomp.unsupported() is None else []),
        ([] if seccomp.unsupported() is None else [_NO_FILTER_CPU])
        + [
            "the child's host user id is the grader's (inside its own namespaces it reaches nothing "
            "the grader owns except the read-only views above)",
            "memory is limited by address space (the sandbox's one process, or per process times the "
            "process-count limit without the seccomp filter), not by a cgroup for the sandbox as a whole: "
            "memory files and tmpfs pages are not address space",
        ],
    )


def require_isolation(isolation: str) -> IsolationStatus:
    """The status for a run that asked for ``isolation``; raises when bwrap was asked and is missing."""
    if isolation not in ISOLATION_CHOICES:
        raise ValueError(f"isolation must be one of {', '.join(ISOLATION_CHOICES)}, got {isolation!r}")
    if isolation == "none":
        return IsolationStatus(
            False,
            "none",
            "--isolation none was given: untrusted code runs with the grader's own rights",
            gaps=["no isolation at all"],
        )
    found = status()
    if not found.available:
        raise IsolationUnavailable(
            "refusing to run untrusted code without isolation: "
            + found.reason
            + ". Run `autograder doctor` for details."
        )
    return found


def _probe_uid() -> int:
    return UID_BASE + UID_SLOTS  # just above the leased range: the probe runs no untrusted code


# ---------------------------------------------------------------------------- command line
def _ancestors(path: str) -> list[str]:
    parts = Path(path).parts[1:-1]
    return ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]


def python_in_sandbox() -> str:
    """This interpreter's path as the sandbox can run it: its folders resolved, as the sandbox
    shows them (``..`` or a linked folder on the way, as in ``../../.venv/bin/python`` or a venv
    under a linked /tmp, is not there), its own name kept, since a venv's python is a link whose
    place tells Python which venv it runs."""
    folder, name = os.path.split(os.path.abspath(sys.executable))
    return os.path.join(os.path.realpath(folder), name)


def _python_roots() -> list[str]:
    """Folders holding the Python installation this process runs (venv and base)."""
    roots = {os.path.realpath(p) for p in (sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix)}
    # A virtual environment's python is a symlink; its target must be there too.
    executable = os.path.realpath(sys.executable)
    if not any(executable.startswith(r.rstrip("/") + "/") for r in roots):
        roots.add(os.path.dirname(executable))
    return sorted(r for r in roots if r not in ("/", "/usr") and os.path.isdir(r))


def executable_links() -> list[tuple[str, str]]:
    """The symbolic links from this interpreter's path to the file it runs, each as (where it is,
    what it says), its folders resolved as the sandbox shows them.

    A venv made from a distribution's Python reaches the binary through several
    (``.venv/bin/python`` to ``python3`` to ``/usr/bin/python3`` to ``python3.11``); the sandbox
    must show each one, not only the file at the end, or the venv's python is not found."""
    links = []
    path = python_in_sandbox()
    for _ in range(40):  # the kernel's own limit on links followed
        if not os.path.islink(path):
            break
        target = os.readlink(path)
        links.append((path, target))
        folder, name = os.path.split(os.path.join(os.path.dirname(path), target))
        path = os.path.join(os.path.realpath(folder), name)
    return links


def site_paths() -> list[str]:
    """The installation's package folders on ``sys.path`` (a venv's, the base's, a user site).

    The child starts with ``-S`` (no ``site``: its ``.pth`` hooks point into checkouts the child
    cannot see, and skipping them saves tens of milliseconds a start) and adds these itself, so
    each must be shown inside the sandbox wherever it lives: at its real place, the only one the
    sandbox shows (a linked folder on the way is not there)."""
    found = [p for p in sys.path if p and os.path.basename(p.rstrip("/")) in ("site-packages", "dist-packages")]
    return list(dict.fromkeys(os.path.realpath(p) for p in found))


def _masked_packages() -> list[str]:
    """Installed copies of the kit and the grader inside the Python installation: never shown.

    An editable install keeps them in the checkout, which is not shown anyway; a wheel install
    puts them in site-packages, which is."""
    found = []
    for name in ("minesweeper_kit", "autograder"):
        for entry in sys.path:
            candidate = os.path.join(entry, name) if entry else ""
            if candidate and os.path.isdir(candidate):
                found.append(os.path.realpath(candidate))
    return sorted(set(found))


#: The namespaces and session every sandbox gets, whoever grades.
_NAMESPACE_OPTIONS = (
    "--die-with-parent",
    "--new-session",
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
    "--unshare-net",
    "--unshare-cgroup-try",
    "--hostname",
    "sandbox",
)


class _MountPlan:
    """The file-system part of a bwrap command line, built in order: what is shown read-only,
    the folders made to hold it, and what is covered again."""

    def __init__(self, command: list[str]) -> None:
        self.command = command
        self.shown: list[str] = []  #: folders bound read-only, so their contents need no binding of their own
        self._made: set[str] = set()

    def is_shown(self, path: str) -> bool:
        """Whether ``path`` is a shown folder or lies inside one."""
        return any(path == s or path.startswith(s + "/") for s in self.shown)

    def parents(self, path: str) -> None:
        """Make the folders above ``path`` (each once), so a binding there has somewhere to go."""
        for folder in _ancestors(path):
            if folder not in self._made:
                self._made.add(folder)
                self.command.extend(["--perms", "0755", "--dir", folder])

    def show_system_libraries(self) -> None:
        """``/lib*``, ``/bin``, ``/sbin`` (as the symlinks they often are) and ``/usr/lib*``, read-only."""
        for name in ("lib", "lib64", "lib32", "libx32", "bin", "sbin"):
            top = "/" + name
            if os.path.islink(top):
                self.command += ["--symlink", os.readlink(top), top]
            elif os.path.isdir(top):
                self.command += ["--ro-bind", top, top]
                self.shown.append(top)
        for name in ("lib", "lib64", "lib32", "libx32"):
            folder = "/usr/" + name
            if os.path.isdir(folder) and not os.path.islink(folder):
                self.parents(folder + "/x")
                self.command += ["--ro-bind", folder, folder]
                self.shown.append(folder)

    def show_python(self) -> None:
        """The Python installation this process runs (venv and base), its package folders and its
        executable, read-only, at the paths they have here, wherever they are (under ``/tmp`` too:
        the private ``/tmp`` is mounted first, so these land on top of it)."""
        folders = _python_roots() + [p for p in site_paths() if os.path.isdir(p)]
        for root in folders:
            if self.is_shown(root):
                continue
            self.parents(root + "/x")
            self.parents(root)
            self.command += ["--ro-bind", root, root]
            self.shown.append(root)
        executable = os.path.realpath(sys.executable)
        if not any(executable.startswith(s + "/") for s in self.shown):
            self.parents(executable)
            self.command += ["--ro-bind", executable, executable]
        for link, target in executable_links():
            if not self.is_shown(link):
                self.parents(link)
                self.command += ["--symlink", target, link]

    def switch_user(self, uid: int, argv: list[str]) -> list[str]:
        """Show ``setpriv`` and give bwrap the capabilities it needs to run ``argv`` as host user
        ``uid`` with no capabilities and ``no_new_privs`` (grading as root); the new argv."""
        setpriv = shutil.which("setpriv") or "/usr/bin/setpriv"
        real = os.path.realpath(setpriv)
        if not any(real.startswith(s + "/") for s in self.shown):
            self.parents(real)
            self.command += ["--ro-bind", real, real]
        self.command += ["--cap-add", "CAP_SETUID", "--cap-add", "CAP_SETGID", "--cap-add", "CAP_SETPCAP"]
        return [
            real,
            f"--reuid={uid}",
            f"--regid={uid}",
            "--clear-groups",
            "--no-new-privs",
            "--inh-caps=-all",
            "--bounding-set=-all",
            "--",
        ] + list(argv)

    def cover(self, paths: list[str]) -> None:
        """Hide each path that falls inside a shown folder: an empty tmpfs over a folder,
        ``/dev/null`` over a file."""
        for path in paths:
            if self.is_shown(path):
                if os.path.isdir(path):
                    self.command += ["--tmpfs", path]
                elif os.path.exists(path):
                    self.command += ["--ro-bind", "/dev/null", path]

    def add_system_folders(self, tmp_mb: int) -> None:
        """``/proc``, ``/dev`` and the size-limited tmpfs ``/tmp``: first, so that whatever is shown
        later from the host's ``/tmp`` (a venv, a checkout's runtime) is bound on top of it, not
        covered by it. ``/proc/1``, bubblewrap's init, is covered by an empty read-only folder:
        grading as an ordinary user it runs as the child's own uid, and nothing of it is the
        child's business (its memory, descriptors and environment)."""
        self.command += ["--proc", "/proc", "--size", "4096", "--tmpfs", "/proc/1", "--remount-ro", "/proc/1"]
        self.command += ["--dev", "/dev"]
        self.command += ["--size", str(tmp_mb * 1024 * 1024), "--perms", "1777", "--tmpfs", "/tmp"]
        self._made.add("/tmp")

    def show_files(self, paths: tuple[str, ...] | list[str]) -> None:
        """Single files (a probe's program), read-only, unless a shown folder holds them already."""
        for path in paths:
            real = os.path.realpath(path)
            if not self.is_shown(real):
                self.parents(real)
                self.command += ["--ro-bind", real, real]

    def add_private_folders(self, work_mb: int, runtime: str | None) -> None:
        """The size-limited tmpfs :data:`WORKDIR`, and the runtime folder read-only at
        :data:`RUNTIME`."""
        self.parents(WORKDIR)
        self.command += ["--size", str(work_mb * 1024 * 1024), "--perms", "0777", "--tmpfs", WORKDIR]
        if runtime is not None:
            self.parents(RUNTIME)
            self.command += ["--ro-bind", runtime, RUNTIME]


def bwrap_command(
    bwrap: str,
    argv: list[str],
    *,
    uid: int | None,
    runtime: str | None,
    tmp_mb: int,
    work_mb: int,
    hide: tuple[str, ...] | list[str] = (),
    env: dict[str, str] | None = None,
    show: tuple[str, ...] | list[str] = (),
    seccomp_fd: int | None = None,
) -> list[str]:
    """The full ``bwrap ... -- argv`` command for one child.

    ``uid`` is the host user id to switch to (grading as root) or None (user namespace).
    ``runtime`` is a folder bound read-only at :data:`RUNTIME`. ``hide`` lists paths covered
    by an empty tmpfs even if they fall inside a shown folder. ``show`` lists extra single files
    shown read-only (the probes' programs). ``seccomp_fd`` is a descriptor from :func:`seccomp_fd`,
    which the command's process must inherit (``pass_fds``): bwrap reads the filter from it.
    """
    plan = _MountPlan([bwrap, *_NAMESPACE_OPTIONS])
    if uid is None:
        plan.command += ["--unshare-user", "--disable-userns"]
    if seccomp_fd is not None:
        plan.command += ["--seccomp", str(seccomp_fd)]
    plan.add_system_folders(tmp_mb)
    plan.show_system_libraries()
    plan.show_python()
    plan.show_files(show)
    if uid is not None:
        argv = plan.switch_user(uid, argv)
    plan.cover(sorted(set(_masked_packages()) | {os.path.realpath(p) for p in hide}))
    plan.add_private_folders(work_mb, runtime)
    command = plan.command + ["--chdir", WORKDIR, "--clearenv"]
    for key, value in (env or {}).items():
        command += ["--setenv", key, value]
    return command + ["--"] + list(argv)


def seccomp_fd() -> int | None:
    """A new descriptor holding the sandbox's seccomp filter, for one bwrap command (see
    :func:`bwrap_command`), or None where this machine gets none (:func:`status` lists the gap).
    bwrap reads it to the end, so each sandbox needs its own; close it once bwrap has started."""
    return seccomp.filter_fd()


# ---------------------------------------------------------------------------- identities
def _lease_folder() -> Path:
    """A folder only root can write, holding one lock file per leased user id."""
    for base in ("/run", tempfile.gettempdir()):
        folder = Path(base) / "minesweeper-kit-sandbox-uids"
        try:
            os.mkdir(folder, 0o700)
        except FileExistsError:
            pass
        except OSError:
            continue
        info = os.lstat(folder)
        if stat.S_ISDIR(info.st_mode) and info.st_uid == 0 and not info.st_mode & 0o022:
            return folder
    raise IsolationUnavailable(
        "no safe folder for the sandboxes' user-id locks (/run or the temp "
        "folder is writable by others and holds a foreign entry)"
    )


class UidLease:
    """A host user id held by this process for one sandbox's lifetime (grading as root).

    A lock file per id, locked with ``flock``: other grader processes skip a held id, and the
    kernel frees the lock if this process dies, so ids are never leaked.
    """

    def __init__(self) -> None:
        folder = _lease_folder()
        start = (os.getpid() * 7919) % UID_SLOTS
        for step in range(UID_SLOTS):
            slot = (start + step) % UID_SLOTS
            fd = os.open(folder / f"{slot}.lock", os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC, 0o600)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError as error:
                os.close(fd)
                if error.errno in (errno.EWOULDBLOCK, errno.EAGAIN):
                    continue
                raise
            self.fd, self.uid = fd, UID_BASE + slot
            return
        raise IsolationUnavailable(f"all {UID_SLOTS} sandbox user ids are in use")

    def release(self) -> None:
        """Give the uid back (close its lock file); safe to call twice."""
        if self.fd >= 0:
            os.close(self.fd)
            self.fd = -1


# ---------------------------------------------------------------------------- memory
#: What one sandbox's TCP sockets may hold in the kernel's buffers (its network is its own loopback;
#: graded code has no use for more).
TCP_BUFFER_BYTES = 16 * 1024 * 1024


class MemoryCgroup:
    """A memory limit for one sandbox as a whole, where this machine lets the grader set one.

    Grading as root on a machine with the cgroup v1 memory controller (as here), each sandbox
    gets its own cgroup whose limit covers every process of the sandbox and the files it writes
    to its tmpfs folders; the kernel's OOM killer stops the sandbox, not the machine. Where no
    such controller is writable (an ordinary user, or cgroup v2, which this kit does not drive
    yet), :meth:`create` returns None and only the per-process limits hold.
    """

    ROOTS = ("/sys/fs/cgroup/memory",)

    def __init__(self, path: str) -> None:
        self.path = path
        self._oom_control: int | None = None  #: kept open: it is read after every request

    @classmethod
    @functools.lru_cache(maxsize=1)
    def base(cls) -> str | None:
        """The folder under which sandbox cgroups are made, or None where that is not possible."""
        if os.geteuid() != 0:
            return None
        for root in cls.ROOTS:
            if not os.path.isfile(os.path.join(root, "memory.limit_in_bytes")):
                continue
            folder = os.path.join(root, "minesweeper-kit-sandboxes")
            try:
                os.makedirs(folder, exist_ok=True)
                probe = tempfile.mkdtemp(prefix="probe-", dir=folder)
                with open(os.path.join(probe, "memory.limit_in_bytes"), "w") as handle:
                    handle.write(str(64 * 1024 * 1024))
                os.rmdir(probe)
            except OSError:
                continue
            return folder
        return None

    @classmethod
    def create(cls, limit_bytes: int) -> MemoryCgroup | None:
        """A new cgroup for one sandbox, limited to ``limit_bytes``, or None where this machine
        cannot make one (then only the per-process limits hold)."""
        base = cls.base()
        if base is None:
            return None
        _sweep_stale(base)
        try:
            path = tempfile.mkdtemp(prefix="box-", dir=base)
            limits = {
                "memory.limit_in_bytes": limit_bytes,
                "memory.memsw.limit_in_bytes": limit_bytes,
                # v1 charges TCP buffers to this counter only, and only once it has a limit: a
                # sandbox's connections to its own loopback would otherwise queue memory no limit sees
                "memory.kmem.tcp.limit_in_bytes": min(limit_bytes, TCP_BUFFER_BYTES),
            }
            for name, value in limits.items():
                target = os.path.join(path, name)
                if os.path.exists(target):
                    with open(target, "w") as handle:
                        handle.write(str(value))
        except OSError:
            return None
        return cls(path)

    def enter(self) -> None:
        """Move the calling process into this cgroup (run in the child before it execs bwrap)."""
        with open(os.path.join(self.path, "cgroup.procs"), "w") as handle:
            handle.write(str(os.getpid()))

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of this sandbox for its memory limit (one system
        call: the file stays open)."""
        try:
            if self._oom_control is None:
                self._oom_control = os.open(os.path.join(self.path, "memory.oom_control"), os.O_RDONLY | os.O_CLOEXEC)
            text = os.pread(self._oom_control, 4096, 0).decode("ascii", "replace")
        except OSError:
            return False
        for line in text.splitlines():
            name, _, value = line.partition(" ")
            if name == "oom_kill":
                return value.strip().isdigit() and int(value) > 0
        return False

    def remove(self) -> None:
        """Remove the cgroup, or leave it to a later sweep while the kernel still holds it (its
        processes have been killed but may take a moment to leave); never waits."""
        if self._oom_control is not None:
            os.close(self._oom_control)
            self._oom_control = None
        _PENDING.append(self.path)
        sweep_cgroups()


_PENDING: list[str] = []


def sweep_cgroups(wait: float = 0.0) -> None:
    """Remove the sandbox cgroups that have emptied; with ``wait``, keep trying that long."""
    import time

    deadline = time.monotonic() + wait
    while True:
        for path in list(_PENDING):
            try:
                os.rmdir(path)
            except FileNotFoundError:
                pass
            except OSError:
                continue
            _PENDING.remove(path)
        if not _PENDING or time.monotonic() >= deadline:
            return
        time.sleep(0.02)


atexit.register(sweep_cgroups, 5.0)
_SWEPT: list[float] = []


def _sweep_stale(base: str, age: float = 600.0) -> None:
    """Remove sandbox cgroups left empty by graders that were killed before they could (at most
    once a minute; only old ones, so a cgroup another grader has just made is never touched;
    a cgroup that still holds a process cannot be removed anyway)."""
    import time

    now = time.time()
    if _SWEPT and now - _SWEPT[-1] < 60:
        return
    _SWEPT.append(now)
    try:
        entries = os.listdir(base)
    except OSError:
        return
    for name in entries:
        path = os.path.join(base, name)
        try:
            if name.startswith("box-") and now - os.stat(path).st_mtime > age:
                os.rmdir(path)
        except OSError:
            continue
