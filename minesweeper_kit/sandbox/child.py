"""The child side of the sandbox: runs untrusted code behind a pipe, inside bubblewrap.

Started as a script (``python -I -S -B child.py REQ_FD RESP_FD``) from a read-only runtime folder,
after the operating system has isolated it (see ``isolation.py``). It imports only the standard
library and its two neighbours, ``protocol`` and ``policy``. It lowers its resource limits,
installs the import rule and a friendly audit hook (advice with clear messages, not the
boundary), loads the submission, then answers requests. Only JSON goes back: numbers, strings,
booleans, lists, dicts with string keys and None; every other object stays here behind a
numbered handle. It never starts a process (nor may the submission: ``seccomp.py``), so it is the
one process whose CPU time the grader reads.
"""

import base64
import builtins
import contextlib
import importlib
import io
import json
import os
import resource
import signal
import sys
import traceback
import types

if __package__:  # imported as a module of the kit: the in-process stand-in (``inprocess.py``)
    from . import keyrings, policy, protocol
else:  # the sandbox's script, run from its runtime folder
    sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
    # The runtime folder is on the path only now: these three are the files copied beside this one.
    import keyrings  # type: ignore[import-not-found,no-redef]
    import policy  # type: ignore[import-not-found,no-redef]
    import protocol  # type: ignore[import-not-found,no-redef]

# Aliases taken before student code runs, so a student who patches builtins cannot
# change how this runner serialises its answers.
_type, _len, _isinstance, _str, _repr, _id = type, len, isinstance, str, repr, id
_PLAIN_SCALARS = (int, float, str, bool, type(None))


class _RawReply:
    """A value already encoded as JSON text."""

    __slots__ = ("extra", "text")

    def __init__(self, text):
        self.text, self.extra = text, None


class ResultProblem(Exception):
    """The value could not be sent back as plain data."""


class Channel:
    """Length-prefixed JSON messages over two pipe file descriptors (see ``protocol``)."""

    def __init__(self, read_fd, write_fd):
        self.read_fd, self.write_fd = read_fd, write_fd

    def receive(self):
        """The next request (blocking); EOFError when the grader closed its end."""
        return protocol.read_message(self.read_fd)

    def send(self, message):
        """Send one answer, encoded here."""
        protocol.write_all(self.write_fd, protocol.encode(message))

    def send_bytes(self, data):
        """Send one answer already encoded as JSON bytes."""
        protocol.write_all(self.write_fd, protocol.frame(data))

    def ask(self, text):
        """Ask the grader something in the middle of a request (``{"callback": text}``) and return
        its answer (``{"reply": text}``): how a student's tests reach the implementation they test,
        which runs elsewhere (see ``remote.py``)."""
        self.send({"callback": _str(text)})
        message = self.receive()
        if not _isinstance(message, dict) or not _isinstance(message.get("reply"), _str):
            raise RuntimeError("the grader did not answer the request")
        return message["reply"]


class CappedStream(io.TextIOBase):
    """A text stream that keeps the first ``cap`` bytes and silently drops the rest."""

    def __init__(self, fd, cap):
        self.fd, self.cap, self.written, self.truncated = fd, cap, 0, False

    def writable(self):
        """Always True: a write-only stream, as ``print`` and ``io`` expect."""
        return True

    def write(self, text):
        """Write what fits under the cap (write errors ignored) and drop the rest; returns the whole
        length, so callers never retry."""
        if not _isinstance(text, str):
            raise TypeError("write() argument must be str")
        data = text.encode("utf-8", "replace")
        room = self.cap - self.written
        if room > 0:
            part = data[:room]
            try:
                if self.fd is not None:
                    os.write(self.fd, part)
            except OSError:
                pass
            self.written += _len(part)
        if _len(data) > max(room, 0):
            self.truncated = True
        return _len(text)

    def flush(self):
        """Nothing to do: every write goes straight to the file descriptor."""


class MemoryStream(CappedStream):
    """A capped stream kept in memory: the output of one call."""

    def __init__(self, cap):
        super().__init__(None, cap)
        self.parts = []

    def write(self, text):
        """Keep what fits under the cap and drop the rest; returns the whole length, as a real
        stream would."""
        if not _isinstance(text, str):
            raise TypeError("write() argument must be str")
        room = self.cap - self.written
        if room > 0:
            self.parts.append(text[:room])
            self.written += min(room, _len(text))
        if _len(text) > max(room, 0):
            self.truncated = True
        return _len(text)

    def getvalue(self):
        """What was kept, as one string."""
        return "".join(self.parts)


# ----------------------------------------------------------------------------- limits


def set_limits(limits):
    """Lower every limit to the configured value (soft and hard, so it cannot be raised)."""

    def lower(which, value):
        _soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    mib = 1024 * 1024
    lower(resource.RLIMIT_AS, limits["memory_mb"] * mib)
    lower(resource.RLIMIT_CPU, limits["cpu_seconds"])
    lower(resource.RLIMIT_FSIZE, limits["file_size_mb"] * mib)
    lower(resource.RLIMIT_NOFILE, limits["open_files"])
    lower(resource.RLIMIT_CORE, 0)
    lower(resource.RLIMIT_NPROC, limits["processes"])


# ----------------------------------------------------------------------------- policy


class Guard:
    """The import rule and a friendly audit hook: refusals become ordinary Python exceptions.

    Code that switches this off gains nothing: the operating system, not this hook, keeps the
    child away from the network, other processes and every file it was not shown.
    """

    REFUSED_EVENTS = {  # noqa: RUF012 - read only; a ClassVar annotation would import typing here
        "os.system": "running shell commands",
        "os.exec": "starting programs",
        "os.posix_spawn": "starting programs",
        "os.spawn": "starting programs",
        "os.fork": "creating processes",
        "os.forkpty": "creating processes",
        "subprocess.Popen": "starting programs",
        "pty.spawn": "starting programs",
        "os.kill": "sending signals",
        "os.killpg": "sending signals",
        "resource.setrlimit": "changing resource limits",
        "sys.addaudithook": "adding audit hooks",
        "ctypes.dlopen": "loading native libraries",
        "ctypes.dlsym": "loading native libraries",
        "ctypes.call_function": "calling native code",
    }
    WRITABLE = ("/sandbox/work", "/tmp")

    def __init__(self, config):
        self.policy = policy.ImportPolicy.from_json(config["policy"])
        self.active = False
        self.student_files = set()

    def refuse(self, what):
        """Raise the refusal a student sees, naming what the sandbox does not allow."""
        raise PermissionError(f"not allowed in the grader's sandbox: {what}")

    def audit(self, event, args):
        """The audit hook, once ``active``: refuses shell commands, new programs and processes,
        signals, rlimit changes, native code, the network, writes outside the working folder and
        ``/tmp``, and denied imports made from the student's code."""
        if not self.active:
            return
        if event in self.REFUSED_EVENTS:
            self.refuse(self.REFUSED_EVENTS[event])
        if event.startswith("socket."):
            self.refuse("network access")
        if event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            writing = (_isinstance(mode, str) and any(c in mode for c in "wax+")) or (
                _isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND)
            )
            if writing and _isinstance(path, (str, bytes)):
                real = os.path.realpath(os.fsdecode(path))
                if not any(real == root or real.startswith(root + "/") for root in self.WRITABLE):
                    self.refuse(f"writing {os.fsdecode(path)} (only the working folder and /tmp are writable)")
        elif event == "import":
            name = args[0] if args else ""
            if _isinstance(name, str) and self.policy.is_denied(name, direct=False) and self._student_on_stack():
                raise ImportError(self.policy.message(name))

    def _student_on_stack(self):
        frame: types.FrameType | None = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename in self.student_files:
                return True
            frame = frame.f_back
        return False

    def install_import_guard(self):
        """Wrap ``__import__`` so that an import in the student's file the policy denies raises
        ImportError with the course's message."""
        original = builtins.__import__
        guard = self

        def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
            if guard.active and level == 0 and globals is not None:
                filename = globals.get("__file__") if _type(globals) is dict else None
                if filename in guard.student_files and guard.policy.is_denied(name):
                    raise ImportError(guard.policy.message(name))
            return original(name, globals, locals, fromlist, level)

        builtins.__import__ = guarded_import


# ----------------------------------------------------------------------------- serving


class Runner:
    """Answers the grader's requests (see ``protocol``), keeping the student's module and every
    object behind a handle."""

    def __init__(self, channel, config, guard):
        self.channel = channel
        self.config = config
        self.runner_guard = guard
        self.objects = {}
        self.next_handle = 1
        self.module = None
        self.max_message = config["limits"]["message_bytes"]
        self.output_cap = config["limits"]["output_bytes"]
        self.operations = {
            "load": self.op_load,
            "call": self.op_call,
            "get_attr": self.op_get_attr,
            "fetch": self.op_fetch,
            "set_attr": self.op_set_attr,
            "has": self.op_has,
            "release": self.op_release,
            "put_file": self.op_put_file,
        }

    # --- conversion between JSON and objects
    def to_plain(self, value, depth=0):
        """``value`` as plain JSON data, anything else kept here behind a handle; ResultProblem past
        200 levels of nesting."""
        if depth > 200:
            raise ResultProblem("the result is nested more than 200 levels deep")
        kind = _type(value)
        if kind in _PLAIN_SCALARS:
            return value
        if kind is list or kind is tuple:
            return [self.to_plain(item, depth + 1) for item in value]
        if kind is dict and all(_type(k) is str for k in value):
            return {k: self.to_plain(v, depth + 1) for k, v in value.items()}
        return self.store(value)

    def store(self, value):
        """Keep ``value`` here and return its handle; the type's name is read without running the
        student's code."""
        handle = self.next_handle
        self.next_handle += 1
        self.objects[handle] = value
        try:
            type_name = _type.__dict__["__name__"].__get__(_type(value))
        except Exception:  # noqa: BLE001 - a student's class may break attribute lookup
            type_name = "object"
        return {"__handle__": handle, "type": _str(type_name)[:80]}

    def from_plain(self, value):
        """Arguments from the grader back into objects: handles become the kept objects,
        ``__tuple__`` tuples."""
        kind = _type(value)
        if kind is list:
            return [self.from_plain(v) for v in value]
        if kind is dict:
            if "__handle__" in value:
                handle = value["__handle__"]
                if handle not in self.objects:
                    raise LookupError(f"unknown handle {handle}")
                return self.objects[handle]
            if "__tuple__" in value:
                return tuple(self.from_plain(v) for v in value["__tuple__"])
            return {k: self.from_plain(v) for k, v in value.items()}
        return value

    def plain_reply(self, value):
        """The reply for a value: the C JSON encoder when everything is plain (fast on large
        boards), else the walk that keeps other objects here behind handles."""
        try:
            return _RawReply(json.dumps(value, separators=(",", ":"), allow_nan=True))
        except (TypeError, ValueError, RecursionError):
            return {"ok": True, "value": self.to_plain(value)}

    # --- errors
    def describe_error(self, error):
        """The error part of an answer: the type's name, the message and the student's lines the
        error passed through, each read so that a hostile exception cannot break the answer."""
        try:
            message = _str(error)
        except BaseException:  # noqa: BLE001 - a student's __str__ may raise anything
            message = "<the exception's message could not be printed>"
        try:
            name = _type.__dict__["__name__"].__get__(_type(error))
        except BaseException:  # noqa: BLE001 - as above, for the exception's type
            name = "Exception"
        where = []
        try:
            for frame in traceback.extract_tb(error.__traceback__):
                if frame.filename in self.runner_guard.student_files:
                    line = (frame.line or "").strip()
                    where.append(f"line {frame.lineno}, in {frame.name}" + (f": {line}" if line else ""))
        except BaseException:  # noqa: BLE001 - the location is a courtesy; the error still goes back
            pass
        if _type(error) is SyntaxError or name in ("SyntaxError", "IndentationError", "TabError"):
            try:
                where = [f"line {error.lineno}" + (f": {error.text.strip()}" if error.text else "")]
                message = _str(error.msg)
            except BaseException:  # noqa: BLE001 - as above
                pass
        if name == "SystemExit":
            message = f"the code called sys.exit({message})"
        collapsed: list[list] = []
        for line in where:
            if collapsed and collapsed[-1][0] == line:
                collapsed[-1][1] += 1
            else:
                collapsed.append([line, 1])
        where = [line if count == 1 else f"{line} [repeated {count} times]" for line, count in collapsed]
        return {"type": _str(name)[:80], "message": message[:2000], "where": where[-8:]}

    # --- operations
    def op_load(self, request):
        """Write the source to the working folder and run it as the submission's module; its top-
        level names."""
        filename = request["filename"]
        path = os.path.join(self.config["workdir"], filename)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(request["source"])
        self.runner_guard.student_files.add(path)
        module = types.ModuleType(request["module"])
        module.__file__ = path
        module.__dict__["__builtins__"] = builtins
        sys.modules[request["module"]] = module
        self.module = module
        code = compile(request["source"], path, "exec", dont_inherit=True)
        exec(code, module.__dict__)
        return {"names": sorted(k for k in module.__dict__ if not k.startswith("__"))}

    def _target(self, request):
        if "handle" in request:
            return self.from_plain({"__handle__": request["handle"]})
        return self.module

    def op_call(self, request):
        """Call a top-level function, or a kept object's method, with the decoded arguments."""
        target = self._target(request)
        function = getattr(target, request["name"])
        args = self.from_plain(request.get("args", []))
        kwargs = self.from_plain(request.get("kwargs", {}))
        return function(*args, **kwargs)

    def op_fetch(self, request):
        """The kept object (or the module) itself."""
        return self._target(request)

    def op_get_attr(self, request):
        """An attribute of a kept object or of the module."""
        return getattr(self._target(request), request["name"])

    def op_set_attr(self, request):
        """Set an attribute of a kept object or of the module to decoded data."""
        setattr(self._target(request), request["name"], self.from_plain(request["value"]))
        return None

    def op_has(self, request):
        """Whether a kept object or the module has the attribute."""
        return hasattr(self._target(request), request["name"])

    def op_put_file(self, request):
        """Place one file the grader sent in the working folder."""
        place_files(self.config["workdir"], {request["name"]: request["data"]})
        return None

    def op_release(self, request):
        """Forget every kept object, so its memory can be freed; their handles stop working."""
        self.objects.clear()
        return None

    def serve(self):
        """Answer requests until the grader closes the pipe: whatever a request raises becomes an
        error answer, never the end of the child."""
        while True:
            try:
                request = self.channel.receive()
            except EOFError:
                os._exit(0)
            self.channel.send_bytes(self.answer(request))

    def answer(self, request):
        """The answer to one request, as the JSON bytes sent back: whatever the request raises
        becomes an error answer, and an answer over the message limit a ResultError."""
        op = self.operations.get(request.get("op"))
        capture = MemoryStream(self.output_cap) if request.get("capture_stdout") else None
        saved = sys.stdout
        if capture is not None:
            sys.stdout = capture
        try:
            if op is None:
                raise ValueError(f"unknown operation {request.get('op')!r}")
            value = op(request)
            if request.get("op") == "load":
                reply = {"ok": True, "value": value}
            elif request.get("keep"):
                reply = {"ok": True, "value": self.store(value)}
            else:
                reply = self.plain_reply(value)
        except ResultProblem as error:
            reply = {"ok": False, "error": {"type": "ResultError", "message": _str(error), "where": []}}
        except BaseException as error:  # noqa: BLE001 - every student failure is reported
            reply = {"ok": False, "error": self.describe_error(error)}
        finally:
            sys.stdout = saved
        if capture is not None:
            extra = {"stdout": capture.getvalue(), "stdout_truncated": capture.truncated}
            if _type(reply) is _RawReply:  # the saved type(), which mypy does not narrow on
                reply.extra = extra  # type: ignore[attr-defined]
            else:
                reply.update(extra)
        try:
            return self.encode(reply)
        except BaseException as error:  # noqa: BLE001
            return self.encode(
                {"ok": False, "error": {"type": "ResultError", "where": [], "message": _str(error)[:500]}}
            )

    def encode(self, reply):
        """One answer as JSON bytes; ValueError for one over the message limit (the caller answers a
        ResultError instead)."""
        if _type(reply) is _RawReply:
            extra = "," + json.dumps(reply.extra)[1:-1] if reply.extra else ""
            data = ('{"ok":true,"value":' + reply.text + extra + "}").encode("utf-8")
        else:
            data = json.dumps(reply, separators=(",", ":")).encode("utf-8")
        if _len(data) > self.max_message:
            raise ValueError(f"the result is too large ({_len(data)} bytes; the limit is {self.max_message})")
        return data


def place_files(workdir, files):
    """Write the input files the grader sent with the configuration into the working folder."""
    for name, data in files.items():
        if "/" in name or name in ("", ".", ".."):
            continue
        with open(os.path.join(workdir, name), "wb") as handle:
            handle.write(base64.b64decode(data))


def main():
    """The child's start: read the configuration, lower the limits, install the guards, clear the
    keyrings, then serve."""
    req_fd, resp_fd = int(sys.argv[1]), int(sys.argv[2])
    channel = Channel(req_fd, resp_fd)
    config = channel.receive()
    workdir = config["workdir"]
    os.chdir(workdir)
    place_files(workdir, config.get("files", {}))
    for folder in config.get("site_paths", []):
        if folder not in sys.path:
            sys.path.append(folder)
    kit = config.get("kit_path")
    if kit:
        sys.path.insert(0, kit)
    set_limits(config["limits"])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    sys.stdout = CappedStream(1, config["limits"]["output_bytes"])
    sys.stderr = CappedStream(2, config["limits"]["output_bytes"])
    sys.stdin = io.StringIO("")
    sys.setrecursionlimit(config["limits"].get("recursion_limit", 10000))
    if config.get("callbacks"):
        import remote  # type: ignore[import-not-found]

        remote.channel = channel.ask
    for name in config.get("preload", []):  # before the guards: see Sandbox's preload
        with contextlib.suppress(ImportError, OSError):  # the student's own import reports it
            importlib.import_module(name)
    guard = Guard(config)
    runner = Runner(channel, config, guard)
    guard.install_import_guard()
    protections = ["limits"]
    if keyrings.refused() or not keyrings.clear_user_keyrings():  # before any student code: see keyrings.py
        protections.append("keyrings")
    if config.get("audit", True):
        sys.addaudithook(guard.audit)
        guard.active = True
        protections.append("audit-hook")
    channel.send({"ok": True, "value": {"protections": protections}})
    runner.serve()


if __name__ == "__main__":
    main()
