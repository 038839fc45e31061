"""Run untrusted Python code in an isolated child process and talk to it with plain data.

A :class:`Sandbox` starts a real subprocess, isolated by the operating system (bubblewrap, see
``isolation.py``), that loads the submission's source and answers requests over a private
pipe (``protocol.py``). Only JSON crosses back (numbers, strings, booleans, lists, dicts with
string keys, None), so no object the student defines can reach a comparison in the grader.
Anything else the student returns stays in the child behind a :class:`Handle`.

    with Sandbox(source, limits=Limits(memory_mb=512)) as box:
        game = box.call("HyperMinesGame", [2, 2], [[0, 0]], timeout=5)   # -> Handle
        box.call_method(game, "dig", [1, 1])                               # -> 1
        box.get_attr(game, "state")                                        # -> "ongoing"

The parent trusts nothing the child made: after the start it never opens a path inside the
sandbox (files go in through the pipe), it refuses an answer longer than
``Limits.message_bytes`` before reading it, and it parses answers as plain JSON only.

Time is the child's CPU time (user + system, its processes included), read from the kernel by
the parent, so a grade does not depend on what else the machine is doing. Two wall-clock guards
catch code that sleeps or blocks instead: a call whose child uses no CPU time (less than
``IDLE_CPU`` seconds) for ``idle_seconds`` while none of its processes is running, ready to run or
waiting inside the kernel is stopped, and no call outlasts ``wall_factor`` times its CPU limit plus
``wall_slack`` seconds. Even on a machine so busy that the child gets a tenth of a core, a
CPU-bound call is never stopped by either; one that gets no core at all for seconds at a time is
not stopped by the idle guard.
"""

from __future__ import annotations

import atexit
import base64
import contextlib
import json
import numbers
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, NamedTuple

from . import isolation as isolation_module
from . import keyrings, protocol
from .policy import DEFAULT_DENIED, ImportPolicy

__all__ = [
    "Limits",
    "ImportPolicy",
    "Sandbox",
    "Handle",
    "SandboxError",
    "StudentError",
    "LoadError",
    "TimeLimitExceeded",
    "ChildDied",
    "ResultError",
    "SandboxUnavailable",
    "DEFAULT_DENIED",
]

_RUNTIME_FILES = ("child.py", "protocol.py", "policy.py", "keyrings.py")
#: An environment variable copied into every sandbox's processes, so that whoever set it (a test
#: session) can find the sandboxes it started among all on the machine.
TAG_VARIABLE = "MINESWEEPER_SANDBOX_TAG"
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed child process."""

    memory_mb: int = 1024  #: RLIMIT_AS: address space
    cpu_seconds: int = 120  #: RLIMIT_CPU: CPU time of the whole child
    file_size_mb: int = 16  #: RLIMIT_FSIZE: largest file it may write
    processes: int = 16  #: RLIMIT_NPROC: processes and threads of the sandbox
    open_files: int = 64  #: RLIMIT_NOFILE
    output_bytes: int = 64_000  #: student stdout/stderr kept; the rest is dropped
    message_bytes: int = 8 * 1024 * 1024  #: largest answer accepted from the child
    recursion_limit: int = 10_000  #: sys.setrecursionlimit in the child
    disk_mb: int = 64  #: size of each private tmpfs (working folder, /tmp)

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")


@dataclass(frozen=True)
class Handle:
    """An object that lives in the child; only its id and type name cross over."""

    id: int
    type_name: str
    generation: int = field(default=0, compare=False)

    def __repr__(self) -> str:
        return f"<{self.type_name} object in the sandbox #{self.id}>"


class SandboxError(Exception):
    """Base of everything that goes wrong on the student's side; ``str()`` is for students."""


class StudentError(SandboxError):
    """The student's code raised an exception (or refused an operation the sandbox forbids)."""

    def __init__(self, type_name: str, message: str, where: list[str]):
        self.type_name, self.message, self.where = type_name, message, where
        text = f"{type_name}: {message}" if message else type_name
        if where:
            text += " (" + "; ".join(where[-3:]) + ")"
        super().__init__(text)


class LoadError(StudentError):
    """The submission could not be loaded: syntax error, import refused, error at import."""

    def __str__(self) -> str:
        return "the submission could not be loaded: " + super().__str__()


class TimeLimitExceeded(SandboxError):
    """A call ran past its time limit; the child was killed.

    ``kind`` says which limit: ``"cpu"`` (the child's CPU seconds) or ``"wall"`` (the
    wall-clock guard for code that sleeps or blocks)."""

    def __init__(self, message: str, kind: str = "cpu", limit: float = 0.0):
        super().__init__(message)
        self.kind, self.limit = kind, limit


class ChildDied(SandboxError):
    """The child process ended during a call (os._exit, a crash, a limit)."""


class ResultError(SandboxError):
    """The child's answer was too large or not valid JSON."""


class SandboxUnavailable(RuntimeError):
    """The sandbox failed before the submission's source was loaded: bubblewrap, the Python
    interpreter or the child's set-up did not work, so nothing of the student's had run.

    Not a :class:`SandboxError` on purpose: those are the student's failures and cost points,
    while this one is the grader's (or the machine's) and must never be scored. The message is
    for whoever runs the grader, not for students."""


#: Process states (``/proc/PID/stat``) in which a process is not idle by its own choice: running or
#: waiting for a core (R), or in an uninterruptible wait inside the kernel (D: a page read back from
#: a busy disk, memory reclaim). Sleeping (S), stopped (T) and the rest are the code's doing.
_NOT_IDLE_STATES = (b"R", b"D")


def _process_stat(pid: int) -> tuple[int, bool] | None:
    """A process's user and system time plus that of the children it reaped, in clock ticks, and
    whether it is running, ready to run or waiting in the kernel (not idle however little CPU
    time it gets); None when it has gone."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as handle:
            fields = handle.read().rsplit(b")", 1)[1].split()
        return sum(int(x) for x in fields[11:15]), fields[0] in _NOT_IDLE_STATES
    except (OSError, ValueError, IndexError):
        return None


def _describe_exit(code: int | None) -> str:
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


_RUNTIME_PREFIX = "minesweeper-sandbox-runtime-"  #: then "plain" or "kit", the builder's pid, a random part


def _runtime_folder(kit: bool) -> str:
    """A private, read-only-to-the-child folder with the child's code (and, for bots, the kit's
    allowed modules), built once per grader process, reused by every sandbox and removed when
    that process exits."""
    key = "kit" if kit else "plain"
    cached = _RUNTIMES.get(key)
    if cached and os.path.isdir(cached):
        return cached
    _remove_orphaned_runtimes()
    folder = tempfile.mkdtemp(prefix=f"{_RUNTIME_PREFIX}{key}-{os.getpid()}-")
    atexit.register(_remove_runtime, folder, os.getpid())
    os.chmod(folder, 0o755)
    here = Path(__file__).resolve().parent
    for name in _RUNTIME_FILES:
        shutil.copyfile(here / name, os.path.join(folder, name))
    if kit:
        from .botkit import build_bot_kit

        build_bot_kit(os.path.join(folder, "kit"))
    for root, dirs, files in os.walk(folder):
        for name in dirs:
            os.chmod(os.path.join(root, name), 0o755)
        for name in files:
            os.chmod(os.path.join(root, name), 0o644)
    _RUNTIMES[key] = folder
    return folder


_RUNTIMES: dict[str, str] = {}


def _remove_orphaned_runtimes() -> None:
    """Remove the runtime folders of this user's grading processes that have ended without their
    exit handler (killed, or stopped by a pool that terminates its workers): each folder's name
    holds the id of the process that built it."""
    base = tempfile.gettempdir()
    try:
        names = [n for n in os.listdir(base) if n.startswith(_RUNTIME_PREFIX)]
    except OSError:
        return
    for name in names:
        parts = name[len(_RUNTIME_PREFIX) :].split("-")
        if len(parts) != 3 or not parts[1].isdigit():
            continue
        path = os.path.join(base, name)
        try:
            if os.lstat(path).st_uid != os.getuid() or os.path.islink(path):
                continue
            os.kill(int(parts[1]), 0)
        except ProcessLookupError:
            shutil.rmtree(path, ignore_errors=True)
        except OSError:  # alive under another user, or the folder went meanwhile
            continue


def _remove_runtime(folder: str, owner: int) -> None:
    """Remove a runtime folder at exit, in the process that built it only (a forked copy that
    exits normally must not take its parent's folder away)."""
    if os.getpid() == owner:
        shutil.rmtree(folder, ignore_errors=True)


class _Launch(NamedTuple):
    """How one child is started: its command line, the folder it starts in, and what its
    configuration tells it (its working folder, where the bot kit is)."""

    argv: list[str]
    cwd: str
    workdir: str
    kit_path: str | None
    fds: tuple[int, ...] = ()  #: descriptors bwrap reads as it starts (its seccomp filter), closed here then


class Sandbox:
    """One isolated child process running one submission's source.

    ``source`` is Python source text or a path to a ``.py`` file. ``isolation`` is ``"bwrap"``
    (the default; :class:`~minesweeper_kit.sandbox.isolation.IsolationUnavailable` if this
    machine cannot) or ``"none"`` (trusted code only). ``bot_kit`` shows the child the kit's
    ``BotView``/``Move`` modules and nothing that plays. ``hide`` lists paths covered even when they
    fall inside a folder the child is shown. Calls return plain data or :class:`Handle`; student
    failures raise :class:`SandboxError` subclasses whose message is meant for the student. A
    sandbox that fails before the source is loaded raises :class:`SandboxUnavailable`, and a
    machine that cannot isolate ``IsolationUnavailable``: both are the grader's failures, never
    the student's.
    Every ``timeout`` is in CPU seconds of the child.
    """

    def __init__(
        self,
        source: str | Path,
        *,
        limits: Limits | None = None,
        import_policy: ImportPolicy | None = None,
        filename: str = "submission.py",
        module_name: str = "submission",
        hide: Iterable[str | Path] = (),
        load_timeout: float = 30.0,
        isolation: str = "bwrap",
        audit: bool = True,
        bot_kit: bool = False,
        wall_factor: float = 10.0,
        wall_slack: float = 10.0,
        idle_seconds: float = 5.0,
    ):
        if isinstance(source, Path):
            source = source.read_text(encoding="utf-8")
        if not isinstance(source, str):
            raise ValueError(f"source must be str or Path, got {type(source).__name__}")
        if "/" in filename or not filename.endswith(".py"):
            raise ValueError(f"filename must be a plain name ending in .py, got {filename!r}")
        self.isolation_status = isolation_module.require_isolation(isolation)
        self.isolation = isolation
        self.source = source
        self.limits = limits or Limits()
        self.policy = import_policy or ImportPolicy()
        self.filename, self.module_name = filename, module_name
        self.hide = [str(Path(p).resolve()) for p in hide]
        self.load_timeout = load_timeout
        self.audit = audit  # False only to test the operating-system layers on their own
        self.bot_kit = bot_kit
        self.wall_factor, self.wall_slack, self.idle_seconds = wall_factor, wall_slack, idle_seconds
        self.budget: float | None = None
        self.window: float | None = None
        self.generation = 0
        self.protections: list[str] = []
        self.names: list[str] = []
        self.restarts = 0
        self._process: subprocess.Popen | None = None
        self._lease: isolation_module.UidLease | None = None
        self._cgroup: isolation_module.MemoryCgroup | None = None
        self._root: str | None = None
        self._req_w = self._resp_r = -1
        self._stdout_parts: list[str] = []
        self._stderr_parts: list[str] = []
        self._files: dict[str, bytes] = {}
        self._cpu_before = 0.0  # CPU seconds of earlier (killed) children
        self._cpu_last = 0.0  # last reading of the current child
        self._tree: tuple[int, list[int], float] = (0, [], 0.0)  # the child's processes, as last found
        self._active = False  # at the last reading, a process of the child was running, ready or in the kernel

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """Whether the child process is running now."""
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        """The process id of bubblewrap (of the child itself without isolation), for diagnostics;
        None when not started."""
        return self._process.pid if self._process else None

    def start(self) -> None:
        """Start the child and load the source; raises :class:`LoadError` if the source does not
        load, and :class:`SandboxUnavailable` if the sandbox fails before it is loaded."""
        if self.alive:
            return
        self._cleanup_process()
        refused = self.policy.violations(self.source) if self.policy.refuse_file else []
        if refused:
            raise LoadError("ImportError", refused[0], [])
        self._spawn_or_fail()
        try:
            answer = self._request(
                {"op": "load", "source": self.source, "filename": self.filename, "module": self.module_name},
                timeout=self.load_timeout,
                raw=True,
            )
        except StudentError as error:
            self.kill()
            raise LoadError(error.type_name, error.message, error.where) from None
        except TimeLimitExceeded as error:
            self.kill()
            raise TimeLimitExceeded(
                f"time limit exceeded while loading the submission ({error})", error.kind, error.limit
            ) from None
        except SandboxError as error:
            self.kill()
            raise LoadError("Error", str(error), []) from None
        except BaseException:
            self.kill()
            raise
        names = answer.get("names") if isinstance(answer, dict) else None
        self.names = [n for n in names if isinstance(n, str)] if isinstance(names, list) else []

    def _spawn_or_fail(self) -> None:
        """Start the child and configure it; any failure here comes before the student's source
        is loaded, so it is the grader's: :class:`SandboxUnavailable`, never a :class:`LoadError`."""
        try:
            self._spawn()
        except (SandboxError, OSError) as error:
            self.kill()
            text = str(error) or type(error).__name__
            if not text.startswith("the sandbox did not start"):
                text = f"the sandbox did not start: {text}"
            raise SandboxUnavailable(text) from None
        except BaseException:
            self.kill()
            raise

    def restart(self) -> None:
        """Kill the child (if any) and start a fresh one; existing handles become invalid."""
        self.kill()
        self.restarts += 1
        self.start()

    def kill(self) -> None:
        """Kill the child's whole sandbox at once (SIGKILL to bubblewrap's process group; the
        kernel then ends every process of its PID namespace)."""
        process = self._process
        if process is None:
            return
        # a child that already ended cannot be read any more: keep the last reading taken while
        # it ran, so dying does not give a submission its CPU time back
        self._cpu_before += max(self._cpu_last, self._read_cpu())
        self._cpu_last = 0.0
        if process.poll() is None:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.killpg(process.pid, signal.SIGKILL)
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=30)
        self._collect_output()
        self._process = None
        self._release_lease_and_cgroup()

    def close(self) -> None:
        """Kill the child and remove the grader's own temporary folder for it."""
        self.kill()
        self._cleanup_process()

    def set_budget(self, cpu_seconds: float | None) -> None:
        """The CPU seconds all calls together may still use from now on (None: no budget)."""
        self.budget = None if cpu_seconds is None else self.cpu_seconds() + max(0.0, cpu_seconds)

    def set_window(self, cpu_seconds: float | None) -> None:
        """The CPU seconds the calls of one unit of work (a test) may use from now on; a call
        that runs past it fails as its own call limit would (None: no window)."""
        self.window = None if cpu_seconds is None else self.cpu_seconds() + max(0.0, cpu_seconds)

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) used by every child of this sandbox so far."""
        if self.alive:
            self._cpu_last = max(self._cpu_last, self._read_cpu())
        return self._cpu_before + self._cpu_last

    def output(self) -> tuple[str, str]:
        """The student's captured stdout and stderr so far (each capped)."""
        self._collect_output()
        cap = self.limits.output_bytes
        return "".join(self._stdout_parts)[-cap:], "".join(self._stderr_parts)[-cap:]

    # ------------------------------------------------------------------ calls
    def call(
        self,
        name: str,
        *args: Any,
        timeout: float | None = None,
        capture_stdout: bool = False,
        keep: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Call the submission's top-level ``name`` with plain-data arguments.

        ``keep=True`` leaves even a plain result in the child and returns its :class:`Handle`,
        so later calls can work on the very same object (in-place updates, aliasing).
        """
        request = {"op": "call", "name": name, **({"keep": True} if keep else {})}
        return self._call(request, args, kwargs, timeout, capture_stdout)

    def fetch(self, handle: Handle, *, timeout: float | None = None) -> Any:
        """The current value of the object behind ``handle``, as plain data where it can be."""
        return self._call({"op": "fetch", "handle": self._check(handle).id}, (), {}, timeout, False)

    def put_file(self, name: str, data: bytes | str) -> None:
        """Place a file in the child's working folder (sent through the pipe; kept across restarts)."""
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"file name must be a plain name, got {name!r}")
        self._files[name] = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if self.alive:
            self._call(
                {"op": "put_file", "name": name, "data": base64.b64encode(self._files[name]).decode("ascii")},
                (),
                {},
                30.0,
                False,
            )

    def call_method(
        self,
        handle: Handle,
        name: str,
        *args: Any,
        timeout: float | None = None,
        capture_stdout: bool = False,
        keep: bool = False,
        **kwargs: Any,
    ) -> Any:
        """Call method ``name`` of an object behind ``handle`` (``keep`` as in :meth:`call`)."""
        request = {"op": "call", "name": name, "handle": self._check(handle).id, **({"keep": True} if keep else {})}
        return self._call(request, args, kwargs, timeout, capture_stdout)

    def call_captured(
        self, name: str, *args: Any, handle: Handle | None = None, timeout: float | None = None
    ) -> tuple[Any, str]:
        """Call ``name`` (a method of the object behind ``handle``, if given) and return
        ``(result, what it printed during the call)``."""
        request: dict[str, Any] = {"op": "call", "name": name}
        if handle is not None:
            request["handle"] = self._check(handle).id
        reply = self._call(request, args, {}, timeout, True, full=True)
        return reply["value"], reply.get("stdout", "")

    def get_attr(self, target: Handle | None, name: str, *, timeout: float | None = None) -> Any:
        """Attribute ``name`` of the object behind ``target`` (None: the module)."""
        request: dict[str, Any] = {"op": "get_attr", "name": name}
        if target is not None:
            request["handle"] = self._check(target).id
        return self._call(request, (), {}, timeout, False)

    def set_attr(self, target: Handle, name: str, value: Any, *, timeout: float | None = None) -> None:
        """Set attribute ``name`` of the object behind ``target`` to plain data."""
        request = {"op": "set_attr", "name": name, "handle": self._check(target).id, "value": self._encode(value)}
        self._call(request, (), {}, timeout, False)

    def has(self, name: str, *, timeout: float | None = None) -> bool:
        """Whether the submission defines top-level ``name``."""
        return self._call({"op": "has", "name": name}, (), {}, timeout, False) is True

    # ------------------------------------------------------------------ internals
    def _check(self, handle: Handle) -> Handle:
        if not isinstance(handle, Handle):
            raise ValueError(f"expected a Handle, got {type(handle).__name__}")
        if handle.generation != self.generation:
            raise ChildDied("this object was lost when the submission's process was restarted")
        return handle

    def _encode(self, value: Any) -> Any:
        if isinstance(value, Handle):
            return {"__handle__": self._check(value).id}
        if isinstance(value, tuple):
            return {"__tuple__": [self._encode(v) for v in value]}
        if isinstance(value, list):
            return [self._encode(v) for v in value]
        if isinstance(value, dict):
            if not all(isinstance(k, str) for k in value):
                raise ValueError("dict arguments must have string keys")
            return {k: self._encode(v) for k, v in value.items()}
        if value is None or isinstance(value, (bool, int, float, str)):
            return value
        if isinstance(value, numbers.Integral):
            return int(value)
        if isinstance(value, numbers.Real):
            return float(value)
        raise ValueError(f"only plain data can be sent to the sandbox, not {type(value).__name__}")

    def _call(
        self,
        request: dict[str, Any],
        args: tuple,
        kwargs: dict,
        timeout: float | None,
        capture: bool,
        full: bool = False,
    ) -> Any:
        if not self.alive:
            self.restart()
        request = dict(request)
        if args:
            request["args"] = [self._encode(a) for a in args]
        if kwargs:
            request["kwargs"] = self._encode(kwargs)
        if capture:
            request["capture_stdout"] = True
        reply = self._request(request, timeout=timeout)
        return reply if full else reply.get("value")

    def _environment(self) -> dict[str, str]:
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

    def _spawn(self) -> None:
        """Start a child and send it its configuration: a private folder for its output, two pipes,
        the isolated process itself, then the first request (see ``protocol.py``)."""
        root = self._root = tempfile.mkdtemp(prefix="minesweeper-sandbox-")
        runtime = _runtime_folder(self.bot_kit)
        self._stdout_path = os.path.join(root, "stdout")
        self._stderr_path = os.path.join(root, "stderr")
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        env = self._environment()
        if self.isolation == "none":
            launch = self._unisolated_launch(os.path.join(root, "work"), runtime, req_r, resp_w, env)
        else:
            launch = self._bwrap_launch(runtime, req_r, resp_w, env)
        self._start_process(launch, env, (req_r, req_w, resp_r, resp_w))
        os.close(req_r)
        os.close(resp_w)
        self._req_w, self._resp_r = req_w, resp_r
        os.set_blocking(self._req_w, False)
        self.generation += 1
        self._configure(launch)

    def _unisolated_launch(self, workdir: str, runtime: str, req_r: int, resp_w: int, env: dict[str, str]) -> _Launch:
        """The child as a plain process in ``workdir``, a fresh folder of the grader's
        (``isolation="none"``: trusted code only); sets ``HOME`` in ``env`` to that folder."""
        os.mkdir(workdir, 0o700)
        argv = [sys.executable, "-I", "-S", "-B", os.path.join(runtime, "child.py"), str(req_r), str(resp_w)]
        env["HOME"] = workdir
        kit_path = os.path.join(runtime, "kit") if self.bot_kit else None
        return _Launch(argv, workdir, workdir, kit_path)

    def _bwrap_launch(self, runtime: str, req_r: int, resp_w: int, env: dict[str, str]) -> _Launch:
        """The child under bubblewrap; as root, with a leased uid of its own and, where the machine
        allows one, a memory cgroup for the whole sandbox (both given back by
        :meth:`_release_lease_and_cgroup`)."""
        if os.geteuid() == 0:
            self._lease = isolation_module.UidLease()
        seccomp_fd = isolation_module.seccomp_fd()
        argv = isolation_module.bwrap_command(
            self.isolation_status.bwrap or "bwrap",
            [sys.executable, "-I", "-S", "-B", isolation_module.RUNTIME + "/child.py", str(req_r), str(resp_w)],
            uid=self._lease.uid if self._lease else None,
            runtime=runtime,
            tmp_mb=self.limits.disk_mb,
            work_mb=self.limits.disk_mb,
            hide=self.hide,
            env=env,
            seccomp_fd=seccomp_fd,
        )
        kit_path = isolation_module.RUNTIME + "/kit" if self.bot_kit else None
        mib = 1024 * 1024
        self._cgroup = isolation_module.MemoryCgroup.create((self.limits.memory_mb + 2 * self.limits.disk_mb) * mib)
        return _Launch(argv, "/", isolation_module.WORKDIR, kit_path, () if seccomp_fd is None else (seccomp_fd,))

    def _start_process(self, launch: _Launch, env: dict[str, str], fds: tuple[int, int, int, int]) -> None:
        """Start the child's process in a session of its own, its output going to files; between
        fork and exec it joins a new session keyring and its memory cgroup. If that fails, every
        pipe end in ``fds`` is closed and everything taken for the child is given back."""
        req_r, _, _, resp_w = fds
        cgroup = self._cgroup

        def enter() -> None:  # between fork and exec, in the process that becomes the sandbox
            keyrings.join_new_session_keyring()
            if cgroup is not None:
                cgroup.enter()

        with open(self._stdout_path, "wb") as out, open(self._stderr_path, "wb") as err:
            try:
                self._process = subprocess.Popen(
                    launch.argv,
                    stdin=subprocess.DEVNULL,
                    stdout=out,
                    stderr=err,
                    pass_fds=(req_r, resp_w, *launch.fds),
                    cwd=launch.cwd,
                    env=env,
                    start_new_session=True,
                    close_fds=True,
                    preexec_fn=enter,
                )
            except subprocess.SubprocessError as error:  # what preexec_fn raised is not passed on
                for fd in fds:
                    os.close(fd)
                self._cleanup_process()  # the lease, the cgroup and the folder
                raise ChildDied(
                    "the sandbox did not start: it could not be given a session keyring"
                    + (" and memory cgroup" if cgroup is not None else "")
                    + f" of its own ({error})"
                ) from None
            finally:
                for fd in launch.fds:
                    os.close(fd)

    def _configure(self, launch: _Launch) -> None:
        """Send the first request, the configuration, and keep the protections the child reports."""
        config = {
            "workdir": launch.workdir,
            "audit": self.audit,
            "policy": self.policy.to_json(),
            "limits": asdict(self.limits),
            "kit_path": launch.kit_path,
            "site_paths": isolation_module.site_paths(),
            "files": {n: base64.b64encode(d).decode("ascii") for n, d in self._files.items()},
        }
        try:
            hello = self._request(config, timeout=self.load_timeout, raw=True)
        except ChildDied as error:  # no student code has run: what bubblewrap or Python said, not a guess
            _, stderr = self.output()
            detail = stderr.strip().splitlines()[-1:] if stderr.strip() else []
            raise ChildDied(f"the sandbox did not start: {detail[0] if detail else error}") from None
        protections = list(hello.get("protections", [])) if isinstance(hello, dict) else []
        if self.isolation != "none":
            protections.insert(0, self.isolation_status.mode)
        self.protections = protections

    def _release_lease_and_cgroup(self) -> None:
        """Give back the child's uid and memory cgroup (root only); safe to call twice."""
        if self._lease is not None:
            self._lease.release()
            self._lease = None
        if self._cgroup is not None:
            self._cgroup.remove()
            self._cgroup = None

    def _cleanup_process(self) -> None:
        for fd in (self._req_w, self._resp_r):
            if fd >= 0:
                with contextlib.suppress(OSError):
                    os.close(fd)
        self._req_w = self._resp_r = -1
        self._process = None
        self._release_lease_and_cgroup()
        if self._root:
            shutil.rmtree(self._root, ignore_errors=True)
            self._root = None

    def _collect_output(self) -> None:
        if not self._root:
            return
        cap = self.limits.output_bytes
        for path, parts in ((self._stdout_path, self._stdout_parts), (self._stderr_path, self._stderr_parts)):
            try:
                with open(path, "rb") as handle:
                    data = handle.read(cap + 1)
            except OSError:
                continue
            text = data[:cap].decode("utf-8", "replace")
            if len(data) > cap:
                text += "\n[output truncated]\n"
            if text:
                parts.append(text)
            with open(path, "wb"):
                pass

    # ------------------------------------------------------------------ CPU time
    def _read_cpu(self) -> float:
        """CPU seconds of the current child's process tree, read from /proc on the host.

        Each live process counts its own time plus that of the children it has reaped, so a
        process that ended is counted once, by whoever reaped it (bubblewrap's init reaps
        orphans). The grader's own work is never counted. Finding the tree's processes costs
        more than reading them, so the list is found afresh at most every ``_TREE_REFRESH``
        seconds (or when one of them has gone): a new process is counted within that time."""
        process = self._process
        if process is None:
            return 0.0
        now = time.monotonic()
        root, pids, found_at = self._tree
        if root == process.pid and now - found_at < self._TREE_REFRESH:
            total, active = 0, False
            for pid in pids:
                stat = _process_stat(pid)
                if stat is None:  # gone: its time moved to whoever reaped it, so look again
                    break
                total += stat[0]
                active = active or stat[1]
            else:
                self._active = active
                return total / _CLOCK_TICKS
        total, active, seen, todo = 0, False, [], [process.pid]
        while todo:
            pid = todo.pop()
            if pid in seen:
                continue
            stat = _process_stat(pid)
            if stat is None:
                continue
            seen.append(pid)
            total += stat[0]
            active = active or stat[1]
            try:
                for task in os.listdir(f"/proc/{pid}/task"):
                    with open(f"/proc/{pid}/task/{task}/children", "rb") as handle:
                        todo.extend(int(x) for x in handle.read().split())
            except (OSError, ValueError):
                continue
        self._tree = (process.pid, seen, now)
        self._active = active
        return total / _CLOCK_TICKS

    def _limits_for(self, timeout: float | None, used: float) -> tuple[float | None, str]:
        """The CPU seconds this call may use, ``used`` seconds having gone already, and what that
        limit is called in messages."""
        limits: list[tuple[float, str]] = []
        if timeout is not None:
            limits.append((timeout, "call"))
        if self.window is not None:
            limits.append((max(0.0, self.window - used), "call"))
        if self.budget is not None:
            limits.append((max(0.0, self.budget - used), "budget"))
        if not limits:
            return None, ""
        return min(limits)

    def _request(self, message: dict[str, Any], *, timeout: float | None, raw: bool = False) -> Any:
        """Send one request and return the child's answer (its ``value`` when ``raw``), within the
        call's CPU limit and the wall-clock guards; every way it can fail raises a
        :class:`SandboxError` meant for the student. This runs for every call a suite makes, so
        the CPU time is read once for the limit and the guards; the only other system call is
        the memory check below.

        A sandbox with a memory cgroup whose kernel killed any of its processes for the limit
        fails the call, whichever process the kernel chose: a submission that forks and outgrows
        the limit gets the same answer whether the kernel killed the process answering or
        another one, however the machine scheduled them."""
        cpu_start = self.cpu_seconds()  # one reading serves both: reading /proc is most of a request's cost
        cpu_limit, which = self._limits_for(timeout, cpu_start)
        over = self._guard(cpu_start, cpu_limit)
        data = json.dumps(message, separators=(",", ":")).encode("utf-8")
        try:
            body = self._exchange(data, over)
        except TimeoutError as error:
            self.kill()
            raise self._time_limit_error(str(error), cpu_limit or 0.0, which) from None
        except (BrokenPipeError, EOFError):
            raise self._lost_child_error() from None
        if self._cgroup is not None and self._cgroup.oom_killed():
            raise self._out_of_memory_error()
        reply = self._parse_reply(body)
        if not reply.get("ok"):
            raise self._failure(reply.get("error"))
        if raw:
            return reply.get("value")
        return reply

    def _guard(self, cpu_start: float, cpu_limit: float | None) -> Callable[[], bool]:
        """The check made while waiting on the child: whether the call has used up ``cpu_limit``
        CPU seconds since ``cpu_start``; raises ``TimeoutError("wall")`` past the wall-clock limit
        and ``TimeoutError("idle")`` when the child has used no CPU time for ``idle_seconds``.

        A child that is ready to run but gets no core (a machine crowded with other processes), or
        that waits inside the kernel (pages read back from a busy disk), is not idle: at every
        reading where one of its processes is in such a state the idle clock starts again. Only
        the wall-clock limit bounds such a call."""
        wall_end = None if cpu_limit is None else time.monotonic() + cpu_limit * self.wall_factor + self.wall_slack
        progress = [time.monotonic(), cpu_start]  # when the child last used CPU time, and how much

        def over() -> bool:
            if cpu_limit is None:
                return False
            now, cpu = time.monotonic(), self.cpu_seconds()
            if now >= (wall_end or 0):
                raise TimeoutError("wall")
            if cpu - progress[1] >= self.IDLE_CPU or self._active:  # working, or starved, not sleeping
                progress[:] = [now, cpu]
            elif now - progress[0] >= self.idle_seconds:
                raise TimeoutError("idle")
            return cpu - cpu_start >= cpu_limit

        return over

    def _exchange(self, data: bytes, over: Callable[[], bool]) -> bytes:
        """Write one framed request and read the framed answer's body, refusing (and killing the
        child) before reading an answer longer than ``Limits.message_bytes``."""
        self._write(protocol.frame(data), over)
        header = self._read(protocol.HEADER.size, over)
        (size,) = protocol.HEADER.unpack(header)
        if size > self.limits.message_bytes:
            self.kill()
            raise ResultError(f"the answer is too large ({size} bytes; the limit is {self.limits.message_bytes})")
        return self._read(size, over)

    def _time_limit_error(self, guard: str, limit: float, which: str) -> TimeLimitExceeded:
        """What a student is told when ``guard`` (``"idle"``, ``"wall"`` or ``"cpu"``) stopped a call
        whose CPU limit was ``limit`` (``which`` says whether the call's or the budget's)."""
        if guard == "idle":
            return TimeLimitExceeded(
                f"wall-clock guard: the code used no CPU time for {self.idle_seconds:g} s (it slept, "
                "waited or blocked); the process was killed",
                "wall",
                self.idle_seconds,
            )
        if guard == "wall":
            wall = limit * self.wall_factor + self.wall_slack
            return TimeLimitExceeded(
                f"wall-clock guard: no answer within {wall:g} s ({self.wall_factor:g} times the CPU "
                f"limit plus {self.wall_slack:g} s); the process was killed",
                "wall",
                wall,
            )
        return TimeLimitExceeded(
            f"CPU time limit of {limit:g} s exceeded; the process was killed",
            "cpu" if which == "call" else "budget",
            limit,
        )

    def _lost_child_error(self) -> ChildDied:
        """The child closed its end of a pipe: let it finish exiting (or kill it if it goes on
        running), keep its output, and say why it ended."""
        try:
            code = self._process.wait(timeout=self._EXIT_GRACE) if self._process else None
        except subprocess.TimeoutExpired:  # it closed its end of a pipe and went on running
            self.kill()
            return ChildDied(
                "the process running the submission closed its channel to the grader and went on running; it was killed"
            )
        if self._cgroup is not None and self._cgroup.oom_killed():
            return self._out_of_memory_error()
        self._collect_output()
        self.kill()
        return ChildDied(_describe_exit(code))

    def _out_of_memory_error(self) -> ChildDied:
        """The kernel killed a process of this sandbox for its memory limit: the sandbox is
        stopped as a whole (its output kept) and the student told the limit."""
        self._collect_output()
        self.kill()
        return ChildDied(
            f"the process running the submission was killed: it used more than the "
            f"sandbox's memory limit of {self.limits.memory_mb} MB"
        )

    def _parse_reply(self, body: bytes) -> dict[str, Any]:
        """The answer as plain JSON (handles made :class:`Handle` of this generation) and nothing
        more; a body that is not a JSON object raises :class:`ResultError`."""
        generation = self.generation

        def handles(obj: dict) -> Any:
            value = obj.get("__handle__")
            if isinstance(value, int) and not isinstance(value, bool):
                return Handle(value, str(obj.get("type", "object"))[:80], generation)
            return obj

        try:
            reply = json.loads(body.decode("utf-8"), object_hook=handles)
        except (ValueError, RecursionError, UnicodeDecodeError, MemoryError):
            self.kill()
            raise ResultError(
                "the answer could not be read (not valid JSON, nested too deeply, or an integer too large)"
            ) from None
        if not isinstance(reply, dict):
            raise ResultError("the answer had the wrong shape")
        return reply

    @staticmethod
    def _failure(error: object) -> SandboxError:
        """The exception for an ``{"ok": false, "error": ...}`` answer, every field cut to size."""
        failure = error if isinstance(error, dict) else {}
        where = failure.get("where")
        if not isinstance(where, list):
            where = []
        if failure.get("type") == "ResultError":
            return ResultError(str(failure.get("message", ""))[:2000])
        return StudentError(
            str(failure.get("type", "Error"))[:80],
            str(failure.get("message", ""))[:2000],
            [str(w)[:300] for w in where],
        )

    _POLL = 0.05  #: seconds between CPU readings while waiting for the child
    _TREE_REFRESH = 0.1  #: seconds a list of the child's processes is trusted before it is found again
    _EXIT_GRACE = 10.0  #: seconds a child whose pipe closed has to finish exiting before it is killed
    IDLE_CPU = 0.02  #: CPU seconds that count as "the child is working"

    def _write(self, data: bytes, over) -> None:
        view = memoryview(data)
        while view:
            _, writable, _ = select.select([], [self._req_w], [], self._POLL)
            if not writable:
                if over():
                    raise TimeoutError("cpu")
                if not self.alive:
                    raise BrokenPipeError
                continue
            try:
                written = os.write(self._req_w, view)
            except BlockingIOError:
                continue
            view = view[written:]

    def _read(self, n: int, over) -> bytes:
        chunks, got = [], 0
        while got < n:
            readable, _, _ = select.select([self._resp_r], [], [], self._POLL)
            if not readable:
                if over():
                    raise TimeoutError("cpu")
                continue
            chunk = os.read(self._resp_r, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
