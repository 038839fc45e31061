"""Run untrusted Python code in an isolated child process and talk to it with plain data.

The grader (and the bot arena) trust nothing a submission does. A :class:`Sandbox` starts a
real subprocess that loads the submission's source and answers requests over a private pipe;
only JSON crosses back (numbers, strings, booleans, lists, dicts with string keys, None), so no
object the student defines can reach a comparison in the grader. Anything else the student
returns stays in the child behind a :class:`Handle`.

    with Sandbox(source, limits=Limits(memory_mb=512)) as box:
        game = box.call("HyperMinesGame", [2, 2], [[0, 0]], timeout=5)   # -> Handle
        box.call_method(game, "dig", [1, 1])                               # -> 1
        box.get_attr(game, "state")                                        # -> "ongoing"

Protections of the child, and when they hold:

=====================================================  ==========================
protection                                             holds
=====================================================  ==========================
separate process; only JSON comes back                 always
its own process group, killed with SIGKILL at the end  always
rlimits: address space, CPU seconds, file size, fds    always
fresh temporary working folder; stdout/stderr capped   always
audit hook: no sockets, subprocesses, fork, signals    always (Python-level)
to others, native libraries; no reading outside the
working folder and the Python installation; no writing
outside the working folder
import policy (allow or deny list) with clear messages always (a course rule, not a
                                                       security boundary)
own network namespace (no network at all)              grader running as root
own mount namespace: hidden paths covered by tmpfs     grader running as root
own PID namespace: every descendant dies with it       grader running as root
unprivileged user (``nobody``), no_new_privs           grader running as root
RLIMIT_NPROC (processes of that user)                  grader running as root
=====================================================  ==========================

Without root the audit hook and the limits are the defence; they stop ordinary Python code,
but a determined submission with native code could get past them, so grade as root (or in a
container, as Gradescope does) when submissions are not trusted.
"""

from __future__ import annotations

import ast
import json
import numbers
import os
import pwd
import select
import shutil
import signal
import struct
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Iterable

__all__ = [
    "Limits", "ImportPolicy", "Sandbox", "Handle", "SandboxError", "StudentError",
    "LoadError", "TimeLimitExceeded", "ChildDied", "ResultError",
]

_HEADER = struct.Struct(">I")
_CHILD_SCRIPT = Path(__file__).with_name("_sandbox_child.py")

#: Modules no submission may import, whatever its assignment: they exist to reach outside.
DEFAULT_DENIED = frozenset({
    "socket", "_socket", "ssl", "_ssl", "subprocess", "_posixsubprocess", "multiprocessing",
    "_multiprocessing", "ctypes", "_ctypes", "pty", "resource", "autograder",
})


@dataclass(frozen=True)
class Limits:
    """Resource limits of one sandboxed child process."""

    memory_mb: int = 1024          #: RLIMIT_AS: address space
    cpu_seconds: int = 120         #: RLIMIT_CPU: CPU time of the whole child
    file_size_mb: int = 16         #: RLIMIT_FSIZE: largest file it may write
    processes: int = 64            #: RLIMIT_NPROC of the unprivileged user (root only)
    open_files: int = 64           #: RLIMIT_NOFILE
    output_bytes: int = 64_000     #: student stdout/stderr kept; the rest is dropped
    message_bytes: int = 64 * 1024 * 1024  #: largest answer accepted from the child
    recursion_limit: int = 10_000  #: sys.setrecursionlimit in the child

    def __post_init__(self) -> None:
        for name, value in asdict(self).items():
            if not isinstance(value, int) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive int, got {value!r}")


@dataclass(frozen=True)
class ImportPolicy:
    """Which modules the submission may import.

    ``allowed=None`` means anything not denied; otherwise only the listed top-level modules
    (and their submodules). ``label`` names the assignment in messages. ``extra_read_paths``
    are folders the child may read besides its own and the Python installation.
    """

    allowed: frozenset[str] | None = None
    denied: frozenset[str] = DEFAULT_DENIED
    label: str = "this assignment"
    extra_read_paths: tuple[str, ...] = ()
    #: modules the submission's own imports may not name (a course rule), though modules it
    #: is allowed to use may import them
    direct_denied: frozenset[str] = frozenset()

    def is_denied(self, name: str) -> bool:
        top = name.split(".")[0]
        if name in self.denied or top in self.denied:
            return True
        if any(name == d or name.startswith(d + ".") for d in self.direct_denied):
            return True
        return self.allowed is not None and top not in self.allowed

    def message(self, name: str) -> str:
        if self.allowed is not None:
            allowed = ", ".join(sorted(self.allowed)) or "nothing"
            return f"import of '{name}' is not allowed in {self.label} (allowed: {allowed})"
        return f"import of '{name}' is not allowed in {self.label}"

    def violations(self, source: str) -> list[str]:
        """Messages for the imports of ``source`` this policy refuses (static check)."""
        try:
            tree = ast.parse(source)
        except (SyntaxError, ValueError):
            return []
        found: list[str] = []
        for node in ast.walk(tree):
            names: list[str] = []
            if isinstance(node, ast.Import):
                names = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                names = [node.module]
            elif (isinstance(node, ast.Call) and node.args
                  and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
                  and ((isinstance(node.func, ast.Name) and node.func.id == "__import__")
                       or (isinstance(node.func, ast.Attribute) and node.func.attr == "import_module"))):
                names = [node.args[0].value]
            for name in names:
                if self.is_denied(name):
                    message = f"line {node.lineno}: {self.message(name)}"
                    if message not in found:
                        found.append(message)
        return found

    def to_json(self) -> dict[str, Any]:
        return {"allowed": None if self.allowed is None else sorted(self.allowed),
                "denied": sorted(self.denied), "direct_denied": sorted(self.direct_denied), "label": self.label,
                "extra_read_paths": [str(Path(p).resolve()) for p in self.extra_read_paths]}


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
    """A call ran past its time limit; the child was killed."""


class ChildDied(SandboxError):
    """The child process ended during a call (os._exit, a crash, a limit)."""


class ResultError(SandboxError):
    """The child's answer was too large or not valid JSON."""


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
    return (f"the process running the submission exited with code {code} "
            "(os._exit or a fatal error in the submission)")


def _nobody() -> tuple[int, int]:
    try:
        entry = pwd.getpwnam("nobody")
        return entry.pw_uid, entry.pw_gid
    except KeyError:
        return 65534, 65534


class Sandbox:
    """One isolated child process running one submission's source.

    ``source`` is Python source text or a path to a ``.py`` file. ``hide`` lists paths the
    child must not see (covered by an empty tmpfs when running as root; refused by the
    audit hook always). Calls return plain data or :class:`Handle`; student failures raise
    :class:`SandboxError` subclasses whose message is meant for the student.
    """

    def __init__(self, source: str | Path, *, limits: Limits | None = None,
                 import_policy: ImportPolicy | None = None, filename: str = "submission.py",
                 module_name: str = "submission", hide: Iterable[str | Path] = (),
                 load_timeout: float = 30.0, isolate: bool = True, audit: bool = True):
        if isinstance(source, Path):
            source = source.read_text(encoding="utf-8")
        if not isinstance(source, str):
            raise ValueError(f"source must be str or Path, got {type(source).__name__}")
        if "/" in filename or not filename.endswith(".py"):
            raise ValueError(f"filename must be a plain name ending in .py, got {filename!r}")
        self.source = source
        self.limits = limits or Limits()
        self.policy = import_policy or ImportPolicy()
        self.filename, self.module_name = filename, module_name
        self.hide = [str(Path(p).resolve()) for p in hide]
        self.load_timeout = load_timeout
        self.isolate = isolate
        self.audit = audit  # False only to test the operating-system layers on their own
        self.deadline: float | None = None
        self.generation = 0
        self.protections: list[str] = []
        self.names: list[str] = []
        self.restarts = 0
        self._process: subprocess.Popen | None = None
        self._root: str | None = None
        self._req_w = self._resp_r = -1
        self._stdout_parts: list[str] = []
        self._stderr_parts: list[str] = []
        self._files: dict[str, bytes] = {}

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> "Sandbox":
        self.start()
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        return self._process is not None and self._process.poll() is None

    @property
    def pid(self) -> int | None:
        return self._process.pid if self._process else None

    def start(self) -> None:
        """Start the child and load the source; raises :class:`LoadError` if it fails."""
        if self.alive:
            return
        self._cleanup_process()
        refused = self.policy.violations(self.source)
        if refused:
            raise LoadError("ImportError", refused[0], [])
        try:
            self._spawn()
            answer = self._request({"op": "load", "source": self.source, "filename": self.filename,
                                    "module": self.module_name}, timeout=self.load_timeout)
        except StudentError as error:
            self.kill()
            raise LoadError(error.type_name, error.message, error.where) from None
        except TimeLimitExceeded:
            self.kill()
            raise TimeLimitExceeded("time limit exceeded while loading the submission "
                                    f"({self.load_timeout:g} s)") from None
        except SandboxError as error:
            self.kill()
            raise LoadError("Error", str(error), []) from None
        except BaseException:
            self.kill()
            raise
        self.names = answer.get("names", []) if isinstance(answer, dict) else []

    def restart(self) -> None:
        """Kill the child (if any) and start a fresh one; existing handles become invalid."""
        self.kill()
        self.restarts += 1
        self.start()

    def kill(self) -> None:
        """Kill the child's whole process group at once (SIGKILL)."""
        process = self._process
        if process is None:
            return
        if process.poll() is None:
            try:
                os.killpg(process.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            pass
        self._collect_output()

    def close(self) -> None:
        """Kill the child and remove its temporary folder."""
        self.kill()
        self._cleanup_process()

    def set_deadline(self, deadline: float | None) -> None:
        """A ``time.monotonic()`` instant no call may run past (None: no deadline)."""
        self.deadline = deadline

    def output(self) -> tuple[str, str]:
        """The student's captured stdout and stderr so far (each capped)."""
        self._collect_output()
        cap = self.limits.output_bytes
        return "".join(self._stdout_parts)[-cap:], "".join(self._stderr_parts)[-cap:]

    # ------------------------------------------------------------------ calls
    def call(self, name: str, *args: Any, timeout: float | None = None,
             capture_stdout: bool = False, keep: bool = False, **kwargs: Any) -> Any:
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
        """Place a file in the child's working folder (kept across restarts)."""
        if "/" in name or name in ("", ".", ".."):
            raise ValueError(f"file name must be a plain name, got {name!r}")
        self._files[name] = data.encode("utf-8") if isinstance(data, str) else bytes(data)
        if self._root:
            self._write_file(name)

    def _write_file(self, name: str) -> None:
        path = os.path.join(self._root, "work", name)
        with open(path, "wb") as handle:
            handle.write(self._files[name])
        if os.geteuid() == 0:
            uid, gid = _nobody()
            os.chown(path, uid, gid)

    def call_method(self, handle: Handle, name: str, *args: Any, timeout: float | None = None,
                    capture_stdout: bool = False, **kwargs: Any) -> Any:
        """Call method ``name`` of an object behind ``handle``."""
        return self._call({"op": "call", "name": name, "handle": self._check(handle).id},
                          args, kwargs, timeout, capture_stdout)

    def call_captured(self, name: str, *args: Any, timeout: float | None = None) -> tuple[Any, str]:
        """Call ``name`` and return ``(result, what it printed during the call)``."""
        reply = self._call({"op": "call", "name": name}, args, {}, timeout, True, full=True)
        return reply["value"], reply.get("stdout", "")

    def get_attr(self, target: Handle | None, name: str, *, timeout: float | None = None) -> Any:
        """Attribute ``name`` of the object behind ``target`` (None: the module)."""
        request: dict[str, Any] = {"op": "get_attr", "name": name}
        if target is not None:
            request["handle"] = self._check(target).id
        return self._call(request, (), {}, timeout, False)

    def set_attr(self, target: Handle, name: str, value: Any, *, timeout: float | None = None) -> None:
        """Set attribute ``name`` of the object behind ``target`` to plain data."""
        request = {"op": "set_attr", "name": name, "handle": self._check(target).id,
                   "value": self._encode(value)}
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

    def _call(self, request: dict[str, Any], args: tuple, kwargs: dict, timeout: float | None,
              capture: bool, full: bool = False) -> Any:
        if not self.alive:
            self.restart()
        request = dict(request)
        if args:
            request["args"] = [self._encode(a) for a in args]
        if kwargs:
            request["kwargs"] = self._encode(kwargs)
        if capture:
            request["capture_stdout"] = True
        reply = self._request(request, timeout=timeout, full=True)
        return reply if full else reply.get("value")

    def _spawn(self) -> None:
        self._root = tempfile.mkdtemp(prefix="autograder-box-")
        os.chmod(self._root, 0o711)
        workdir = os.path.join(self._root, "work")
        os.mkdir(workdir, 0o700)
        uid, gid = _nobody()
        if os.geteuid() == 0:
            os.chown(workdir, uid, gid)
        for name in self._files:
            self._write_file(name)
        self._stdout_path = os.path.join(self._root, "stdout")
        self._stderr_path = os.path.join(self._root, "stderr")
        req_r, req_w = os.pipe()
        resp_r, resp_w = os.pipe()
        env = {"PATH": "/usr/bin:/bin", "LANG": "C.UTF-8", "HOME": workdir,
               "PYTHONIOENCODING": "utf-8", "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1",
               "MKL_NUM_THREADS": "1"}
        with open(self._stdout_path, "wb") as out, open(self._stderr_path, "wb") as err:
            self._process = subprocess.Popen(
                [sys.executable, "-I", "-B", str(_CHILD_SCRIPT), str(req_r), str(resp_w)],
                stdin=subprocess.DEVNULL, stdout=out, stderr=err, pass_fds=(req_r, resp_w),
                cwd=workdir, env=env, start_new_session=True, close_fds=True)
        os.close(req_r)
        os.close(resp_w)
        self._req_w, self._resp_r = req_w, resp_r
        os.set_blocking(self._req_w, False)
        self.generation += 1
        os.mkdir(os.path.join(self._root, "stage"), 0o700)
        config = {"workdir": workdir, "stage": os.path.join(self._root, "stage"), "uid": uid, "gid": gid,
                  "isolate": self.isolate, "audit": self.audit,
                  "hide": self.hide, "policy": self.policy.to_json(),
                  "limits": asdict(self.limits)}
        hello = self._request(config, timeout=self.load_timeout, raw=True)
        self.protections = list(hello.get("protections", [])) if isinstance(hello, dict) else []

    def _cleanup_process(self) -> None:
        for fd in (self._req_w, self._resp_r):
            if fd >= 0:
                try:
                    os.close(fd)
                except OSError:
                    pass
        self._req_w = self._resp_r = -1
        self._process = None
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

    def _remaining(self, timeout: float | None) -> float | None:
        limits = []
        if timeout is not None:
            limits.append(timeout)
        if self.deadline is not None:
            limits.append(max(0.0, self.deadline - time.monotonic()))
        return min(limits) if limits else None

    def _request(self, message: dict[str, Any], *, timeout: float | None, raw: bool = False,
                 full: bool = False) -> Any:
        limit = self._remaining(timeout)
        end = None if limit is None else time.monotonic() + limit
        data = json.dumps(message, separators=(",", ":")).encode("utf-8")
        try:
            self._write(_HEADER.pack(len(data)) + data, end)
            header = self._read(_HEADER.size, end)
            (size,) = _HEADER.unpack(header)
            if size > self.limits.message_bytes:
                self.kill()
                raise ResultError(f"the answer is too large ({size} bytes; the limit is "
                                  f"{self.limits.message_bytes})")
            body = self._read(size, end)
        except TimeoutError:
            self.kill()
            raise TimeLimitExceeded(f"time limit exceeded ({limit:g} s); the submission's process "
                                    "was killed") from None
        except (BrokenPipeError, EOFError):
            code = self._process.wait(timeout=10) if self._process else None
            self._collect_output()
            self.kill()
            raise ChildDied(_describe_exit(code)) from None
        generation = self.generation

        def handles(obj: dict) -> Any:
            value = obj.get("__handle__")
            if isinstance(value, int) and not isinstance(value, bool):
                return Handle(value, str(obj.get("type", "object"))[:80], generation)
            return obj

        try:
            reply = json.loads(body.decode("utf-8"), object_hook=handles)
        except (ValueError, RecursionError, UnicodeDecodeError):
            self.kill()
            raise ResultError("the answer could not be read (not valid JSON, nested too deeply, "
                              "or an integer too large)") from None
        if not isinstance(reply, dict):
            raise ResultError("the answer had the wrong shape")
        if not reply.get("ok"):
            error = reply.get("error") if isinstance(reply.get("error"), dict) else {}
            where = error.get("where") if isinstance(error.get("where"), list) else []
            if error.get("type") == "ResultError":
                raise ResultError(str(error.get("message", ""))[:2000])
            raise StudentError(str(error.get("type", "Error"))[:80], str(error.get("message", ""))[:2000],
                               [str(w)[:300] for w in where])
        if raw:
            return reply.get("value")
        return reply if full else reply.get("value")

    def _write(self, data: bytes, end: float | None) -> None:
        view = memoryview(data)
        while view:
            wait = None if end is None else end - time.monotonic()
            if wait is not None and wait <= 0:
                raise TimeoutError
            _, writable, _ = select.select([], [self._req_w], [], wait)
            if not writable:
                raise TimeoutError
            try:
                written = os.write(self._req_w, view)
            except BlockingIOError:
                continue
            view = view[written:]

    def _read(self, n: int, end: float | None) -> bytes:
        chunks, got = [], 0
        while got < n:
            wait = None if end is None else end - time.monotonic()
            if wait is not None and wait <= 0:
                raise TimeoutError
            readable, _, _ = select.select([self._resp_r], [], [], wait)
            if not readable:
                raise TimeoutError
            chunk = os.read(self._resp_r, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)
