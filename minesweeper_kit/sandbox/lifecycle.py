"""Process life of a sandbox's child: its runtime folder, its start, its end, and what is given back.

A child is started in a session of its own, with two pipes to talk through (``channel.py``) and
two more for its stdout and stderr, which a thread of the grader's drains (:class:`OutputPipes`):
the child holds no descriptor of a file of the grader's, so it has nothing to reopen through
``/proc/self/fd``. Under bubblewrap, grading as root, it
also holds a leased host uid and, where the machine allows, a memory cgroup for the sandbox as a
whole (``isolation.py``). Whatever fails on the way, nothing taken for it is kept: pipes, lease,
cgroup and folder are given back.

The grader reaps the child itself with ``wait4``, which also returns the CPU time of every
process of the sandbox that was reaped in turn (``accounting.py`` uses it for a child that ended
between two readings). Killing is one ``SIGKILL`` to bubblewrap's process group; the kernel then
ends every process of the sandbox's PID namespace.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import py_compile
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Iterable
from pathlib import Path
from typing import NamedTuple

from . import isolation as isolation_module
from . import keyrings
from .common import ChildDied, Limits

__all__ = ["TAG_VARIABLE", "Child", "describe_exit", "remove_orphaned_folders", "runtime_folder"]

RUNTIME_FILES = ("child.py", "protocol.py", "policy.py", "keyrings.py", "remote.py", "testrunner.py")
#: An environment variable copied into every sandbox's processes, so that whoever set it (a test
#: session) can find the sandboxes it started among all on the machine.
TAG_VARIABLE = "MINESWEEPER_SANDBOX_TAG"
#: Every folder a grading process makes for its sandboxes starts so, then names that process's id:
#: ``runtime-<plain|kit>-<pid>-<random>`` (the children's code) or ``<pid>-<random>`` (one child's).
_FOLDER_PREFIX = "minesweeper-sandbox-"
_RUNTIME_PREFIX = _FOLDER_PREFIX + "runtime-"
_RUNTIMES: dict[str, str] = {}


def describe_exit(code: int | None) -> str:
    """Why the child ended, for the student, from its exit code (None: it stopped answering)."""
    if code is None:
        return "the child process stopped answering"
    if code < 0 or code > 128:
        number = -code if code < 0 else code - 128
        try:
            name = signal.Signals(number).name
        except ValueError:
            name = f"signal {number}"
        hints = {
            "SIGSEGV": "a crash, usually a C-stack overflow from very deep recursion",
            "SIGKILL": "killed, usually for using too much memory or CPU time",
            "SIGXCPU": "the CPU time limit was reached",
            "SIGXFSZ": "the file size limit was reached",
            "SIGABRT": "aborted, often for running out of memory",
        }
        hint = hints.get(name, "killed by a signal")
        return f"the process running the submission died ({name}: {hint})"
    return f"the process running the submission exited with code {code} (os._exit or a fatal error in the submission)"


# ---------------------------------------------------------------------------- the runtime folder
def runtime_folder(kit: bool) -> str:
    """A private, read-only-to-the-child folder with the child's code (and, for bots, the kit's
    allowed modules), built once per grader process, reused by every sandbox and removed when
    that process exits. Its modules are compiled here once (:func:`_compile_modules`), so that no
    child compiles them again at every start."""
    key = "kit" if kit else "plain"
    cached = _RUNTIMES.get(key)
    if cached and os.path.isdir(cached):
        return cached
    remove_orphaned_folders()
    folder = tempfile.mkdtemp(prefix=f"{_RUNTIME_PREFIX}{key}-{os.getpid()}-")
    atexit.register(_remove_runtime, folder, os.getpid())
    os.chmod(folder, 0o755)
    here = Path(__file__).resolve().parent
    for name in RUNTIME_FILES:
        shutil.copyfile(here / name, os.path.join(folder, name))
    if kit:
        from .botkit import build_bot_kit

        build_bot_kit(os.path.join(folder, "kit"))
    _compile_modules(folder)
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    _RUNTIMES[key] = folder
    return folder


def _compile_modules(folder: str) -> None:
    """Write each module's byte-code into the ``__pycache__`` beside it, where the child's Python
    (``-I -B``: it writes none itself, and the folder is read-only to it) finds it. The paths are
    spelled out rather than taken from ``importlib``, which would follow this process's
    ``sys.pycache_prefix`` (``PYTHONPYCACHEPREFIX``) and put them where no child looks. Checked by
    hash of the source, so a copy's timestamp cannot make a stale file pass. ``child.py`` is run as
    the main script, which Python always compiles: it is left out."""
    tag = sys.implementation.cache_tag
    if tag is None:  # an interpreter that caches no byte-code
        return
    for root, _dirs, files in os.walk(folder):
        for name in files:
            if name.endswith(".py") and not (root == folder and name == "child.py"):
                source = os.path.join(root, name)
                target = os.path.join(root, "__pycache__", f"{name[:-3]}.{tag}.pyc")
                py_compile.compile(
                    source, cfile=target, doraise=True, invalidation_mode=py_compile.PycInvalidationMode.CHECKED_HASH
                )


def remove_orphaned_folders() -> None:
    """Remove the sandbox folders (runtimes and children's) of this user's grading processes that
    have ended without removing them (killed, or stopped by a pool that terminates its workers):
    each folder's name holds the id of the process that made it. A folder whose process still
    runs, a link, or another user's folder is left alone."""
    base = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(_FOLDER_PREFIX)]
    except OSError:
        return
    for name in names:
        parts = name[len(_FOLDER_PREFIX) :].split("-")
        if parts[0] == "runtime":
            parts = parts[2:] if len(parts) == 4 else []
        if len(parts) != 2 or not parts[0].isdigit():
            continue
        path = os.path.join(base, name)
        try:
            if os.lstat(path).st_uid != os.getuid() or os.path.islink(path):
                continue
            os.kill(int(parts[0]), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:  # alive under another user, or the folder went meanwhile
            continue


def _remove_runtime(folder: str, owner: int) -> None:
    """Remove a runtime folder at exit, in the process that built it only (a forked copy that
    exits normally must not take its parent's folder away)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


# ---------------------------------------------------------------------------- how a child starts
class Launch(NamedTuple):
    """How one child is started: its command line, the folder it starts in, and what its
    configuration tells it (its working folder, where the bot kit is)."""

    argv: list[str]
    cwd: str
    workdir: str
    kit_path: str | None
    fds: tuple[int, ...] = ()  #: descriptors bwrap reads as it starts (its seccomp filter), closed here then


def environment() -> dict[str, str]:
    """The child's whole environment: nothing of the grader's but a test session's tag."""
    env = {
        "PATH": "/usr/bin:/bin",
        "LANG": "C.UTF-8",
        "HOME": isolation_module.WORKDIR,
        "TMPDIR": "/tmp",
        "PYTHONIOENCODING": "utf-8",
        "OMP_NUM_THREADS": "1",
        "OPENBLAS_NUM_THREADS": "1",
        "MKL_NUM_THREADS": "1",
        "PYTHONHASHSEED": "0",
    }
    if os.environ.get(TAG_VARIABLE):  # lets a test run tell its own sandboxes from others'
        env[TAG_VARIABLE] = os.environ[TAG_VARIABLE][:64]
    return env


class OutputPipes:
    """The child's stdout and stderr: two pipes whose read ends a thread of the grader's drains
    into two bounded buffers, so the child can print without limit (the rest is dropped, and the
    collection says so) and never blocks on a full pipe.

    Pipes rather than files: a file the child had open on the grader's side could be reopened
    through ``/proc/self/fd`` with other flags (read, truncated, grown past its limit); a pipe
    reopened is the same pipe."""

    def __init__(self, keep: int) -> None:
        self.keep = keep
        self._lock = threading.Lock()
        self._kept = [bytearray(), bytearray()]
        self._dropped = [0, 0]
        self._reads: list[int] = []
        writes: list[int] = []
        try:
            for _ in range(2):
                read, write = os.pipe()
                self._reads.append(read)
                writes.append(write)
        except BaseException:
            for fd in self._reads + writes:
                os.close(fd)
            raise
        #: the write ends, for the child's stdout and stderr; closed here once it has them
        self.ends: tuple[int, int] = (writes[0], writes[1])
        self._thread: threading.Thread | None = None

    def start(self) -> None:
        """Close the write ends (the child has its copies) and start draining."""
        self.close_ends()
        self._thread = threading.Thread(target=self._drain, name="sandbox-output", daemon=True)
        self._thread.start()

    def close_ends(self) -> None:
        for fd in self.ends:
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.ends = (-1, -1)

    def _drain(self) -> None:
        import selectors

        with selectors.DefaultSelector() as selector:
            for index, fd in enumerate(self._reads):
                os.set_blocking(fd, False)
                selector.register(fd, selectors.EVENT_READ, index)
            open_ends = len(self._reads)
            while open_ends:
                for key, _ in selector.select():
                    with self._lock:
                        ended = self._take(key.fd, key.data)
                    if ended:
                        selector.unregister(key.fd)
                        open_ends -= 1

    def _take(self, fd: int, index: int) -> bool:
        """Read what the pipe holds now into its buffer (the lock held); True at its end."""
        while True:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                return False
            except OSError:
                return True
            if not data:
                return True
            kept = self._kept[index]
            room = max(0, self.keep + 1 - len(kept))
            kept += data[:room]
            self._dropped[index] += len(data) - min(room, len(data))

    def collect(self, cap: int, ended: bool) -> tuple[str, str]:
        """What arrived since the last collection, each stream cut to ``cap`` bytes and marked when
        cut. ``ended``: the child is gone, so wait (briefly) for the pipes to be drained to the end;
        otherwise what the pipes hold now is read first, so whatever the child printed before its
        last answer is there."""
        if ended and self._thread is not None:
            self._thread.join(timeout=5)
        texts = []
        with self._lock:
            for index in range(2):
                if not ended and index < len(self._reads):
                    self._take(self._reads[index], index)
                data = bytes(self._kept[index])
                self._kept[index].clear()
                cut = len(data) > cap or self._dropped[index] > 0
                self._dropped[index] = 0
                text = data[:cap].decode("utf-8", "replace")
                texts.append(text + "\n[output truncated]\n" if cut else text)
        return texts[0], texts[1]

    def close(self) -> None:
        """Close every end (the child must be gone: the drain then sees the end of both pipes)."""
        self.close_ends()
        if self._thread is not None:
            self._thread.join(timeout=5)
        if self._thread is None or not self._thread.is_alive():
            for fd in self._reads:
                with contextlib.suppress(OSError):
                    os.close(fd)
            self._reads = []


class Child:
    """One started child: its process, the pipe ends the grader keeps, its output files, and what
    was taken for it (a leased uid, a memory cgroup, a private folder).

    :meth:`start` builds one or gives everything back and raises. ``usage`` is the CPU seconds
    ``wait4`` returned when the grader reaped the process (None before)."""

    def __init__(self, root: str) -> None:
        self.root: str | None = root
        self.output: OutputPipes | None = None
        self.process: subprocess.Popen | None = None
        self.lease: isolation_module.UidLease | None = None
        self.cgroup: isolation_module.MemoryCgroup | None = None
        self.request = self.answer = -1  #: the grader's ends of the two pipes
        self.launch: Launch | None = None
        self.usage: float | None = None

    @classmethod
    def start(
        cls,
        *,
        isolation: str,
        bwrap: str | None,
        limits: Limits,
        hide: Iterable[str],
        bot_kit: bool,
    ) -> Child:
        """Start a child: a private folder for its output, two pipes, the process itself (under
        bubblewrap unless ``isolation`` is ``"none"``). If anything fails, everything taken for it
        is given back before the error goes on."""
        child = cls(tempfile.mkdtemp(prefix=f"{_FOLDER_PREFIX}{os.getpid()}-"))
        ours: list[int] = []  # the child's pipe ends, closed here once it has them (or has failed)
        try:
            child.output = OutputPipes(limits.output_bytes)
            runtime = runtime_folder(bot_kit)
            req_r, child.request = os.pipe()
            ours.append(req_r)
            child.answer, resp_w = os.pipe()
            ours.append(resp_w)
            env = environment()
            if isolation == "none":
                launch = child._unisolated(runtime, req_r, resp_w, env, bot_kit)
            else:
                launch = child._bwrap(bwrap or "bwrap", runtime, req_r, resp_w, env, limits, hide, bot_kit)
            child.launch = launch
            child._start_process(launch, env, (req_r, resp_w))
        except BaseException:
            child.close()
            raise
        finally:
            for fd in ours:
                os.close(fd)
        return child

    def _unisolated(self, runtime: str, req_r: int, resp_w: int, env: dict[str, str], bot_kit: bool) -> Launch:
        """The child as a plain process in a fresh folder of the grader's (``isolation="none"``:
        trusted code only); sets ``HOME`` in ``env`` to that folder."""
        assert self.root is not None
        workdir = os.path.join(self.root, "work")
        os.mkdir(workdir, 0o700)
        argv = [sys.executable, "-I", "-S", "-B", os.path.join(runtime, "child.py"), str(req_r), str(resp_w)]
        env["HOME"] = workdir
        kit_path = os.path.join(runtime, "kit") if bot_kit else None
        return Launch(argv, workdir, workdir, kit_path)

    def _bwrap(
        self,
        bwrap: str,
        runtime: str,
        req_r: int,
        resp_w: int,
        env: dict[str, str],
        limits: Limits,
        hide: Iterable[str],
        bot_kit: bool,
    ) -> Launch:
        """The child under bubblewrap; as root, with a leased uid of its own and, where the machine
        allows one, a memory cgroup for the whole sandbox (both given back by :meth:`release`)."""
        if os.geteuid() == 0:
            self.lease = isolation_module.UidLease()
        seccomp_fd = isolation_module.seccomp_fd()
        try:
            argv = isolation_module.bwrap_command(
                bwrap,
                [
                    isolation_module.python_in_sandbox(),
                    *("-I", "-S", "-B", isolation_module.RUNTIME + "/child.py", str(req_r), str(resp_w)),
                ],
                uid=self.lease.uid if self.lease else None,
                runtime=runtime,
                tmp_mb=limits.disk_mb,
                work_mb=limits.disk_mb,
                hide=list(hide),
                env=env,
                seccomp_fd=seccomp_fd,
            )
            mib = 1024 * 1024
            self.cgroup = isolation_module.MemoryCgroup.create((limits.memory_mb + 2 * limits.disk_mb) * mib)
        except BaseException:
            if seccomp_fd is not None:
                os.close(seccomp_fd)
            raise
        kit_path = isolation_module.RUNTIME + "/kit" if bot_kit else None
        return Launch(argv, "/", isolation_module.WORKDIR, kit_path, () if seccomp_fd is None else (seccomp_fd,))

    def _start_process(self, launch: Launch, env: dict[str, str], fds: tuple[int, int]) -> None:
        """Start the child's process in a session of its own, its output going to pipes; between
        fork and exec it joins a new session keyring and its memory cgroup. The descriptors bwrap
        reads as it starts are closed here, whatever happens."""
        cgroup = self.cgroup

        def enter() -> None:  # between fork and exec, in the process that becomes the sandbox
            keyrings.join_new_session_keyring()
            if cgroup is not None:
                cgroup.enter()

        assert self.output is not None
        out, err = self.output.ends
        try:
            self.process = subprocess.Popen(
                launch.argv,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
                pass_fds=(*fds, *launch.fds),
                cwd=launch.cwd,
                env=env,
                start_new_session=True,
                close_fds=True,
                preexec_fn=enter,
            )
        except subprocess.SubprocessError as error:  # what preexec_fn raised is not passed on
            raise ChildDied(
                "the sandbox did not start: it could not be given a session keyring"
                + (" and memory cgroup" if cgroup is not None else "")
                + f" of its own ({error})"
            ) from None
        finally:
            for fd in launch.fds:
                os.close(fd)
        self.output.start()

    # ------------------------------------------------------------------ its end
    @property
    def pid(self) -> int | None:
        """The process the grader started (bubblewrap, or the child itself without isolation)."""
        return self.process.pid if self.process else None

    def poll(self) -> int | None:
        """The exit code once the process has ended (reaped here, its CPU usage kept), else None."""
        process = self.process
        if process is None or process.returncode is not None:
            return None if process is None else process.returncode
        try:
            pid, status, usage = os.wait4(process.pid, os.WNOHANG)
        except ChildProcessError:  # reaped already by someone else: its usage is lost to us
            return process.poll()
        if pid == 0:
            return None
        self.usage = usage.ru_utime + usage.ru_stime
        process.returncode = os.waitstatus_to_exitcode(status)
        return process.returncode

    def wait(self, timeout: float) -> int | None:
        """The exit code, waiting up to ``timeout`` seconds for the process to end; None if it
        goes on running."""
        deadline = time.monotonic() + timeout
        delay = 0.0005
        while True:
            code = self.poll()
            left = deadline - time.monotonic()
            if code is not None or left <= 0:
                return code
            time.sleep(min(delay, left))
            delay = min(delay * 2, 0.05)

    @property
    def alive(self) -> bool:
        """Whether the process is running now."""
        return self.process is not None and self.poll() is None

    def kill(self) -> None:
        """Kill the whole sandbox at once (SIGKILL to bubblewrap's process group) and reap it."""
        process = self.process
        if process is None:
            return
        if self.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        self.wait(30)

    def collect_output(self, cap: int) -> tuple[str, str]:
        """What the child wrote to stdout and stderr since the last collection (each cut to
        ``cap`` bytes, marked when cut)."""
        if self.output is None:
            return "", ""
        return self.output.collect(cap, ended=self.process is None or self.process.returncode is not None)

    def release(self) -> None:
        """Give back the child's uid and memory cgroup (root only); safe to call twice."""
        if self.lease is not None:
            self.lease.release()
            self.lease = None
        if self.cgroup is not None:
            self.cgroup.remove()
            self.cgroup = None

    def close(self) -> None:
        """Close the grader's pipe ends, give back the lease and cgroup, and remove the private
        folder (the process must have been killed first, if it was started); safe to call twice."""
        for fd in (self.request, self.answer):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self.request = self.answer = -1
        if self.output is not None:
            self.output.close()
            self.output = None
        self.release()
        if self.root:
            shutil.rmtree(self.root, ignore_errors=True)
            self.root = None
