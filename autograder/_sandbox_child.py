"""The child side of :mod:`autograder.sandbox`: runs untrusted code behind a pipe.

This file is started as a script (``python -I -B _sandbox_child.py REQ_FD RESP_FD``) and
imports only the standard library. It isolates itself (namespaces and an unprivileged user
when started as root, resource limits, an audit hook, an import guard), loads the
submission, then answers requests. Only JSON goes back: numbers, strings, booleans, lists,
dicts with string keys and None; every other object stays here behind a numbered handle.
Nothing it sends is trusted by the grader, which parses it as plain JSON and nothing more.
"""

import builtins
import io
import json
import os
import resource
import signal
import struct
import sys
import traceback
import types

# Aliases taken before student code runs, so a student who patches builtins cannot
# change how this runner serialises its answers.
_type, _len, _isinstance, _str, _repr, _id = type, len, isinstance, str, repr, id
_PLAIN_SCALARS = (int, float, str, bool, type(None))
_HEADER = struct.Struct(">I")

CLONE_NEWNS, CLONE_NEWPID, CLONE_NEWNET = 0x00020000, 0x20000000, 0x40000000
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REC, MS_PRIVATE = 1, 2, 4, 8, 16384, 1 << 18
PR_SET_NO_NEW_PRIVS, PR_SET_PDEATHSIG = 38, 1


class _RawReply:
    """A value already encoded as JSON text."""

    __slots__ = ("text", "extra")

    def __init__(self, text):
        self.text, self.extra = text, None


class ResultProblem(Exception):
    """The value could not be sent back as plain data."""


class Channel:
    """Length-prefixed JSON messages over two pipe file descriptors."""

    def __init__(self, read_fd, write_fd):
        self.read_fd, self.write_fd = read_fd, write_fd

    def _read_exactly(self, n):
        chunks, got = [], 0
        while got < n:
            chunk = os.read(self.read_fd, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError("grader closed the channel")
            chunks.append(chunk)
            got += _len(chunk)
        return b"".join(chunks)

    def receive(self):
        (size,) = _HEADER.unpack(self._read_exactly(_HEADER.size))
        return json.loads(self._read_exactly(size).decode("utf-8"))

    def send(self, message):
        self.send_bytes(json.dumps(message, separators=(",", ":")).encode("utf-8"))

    def send_bytes(self, data):
        view = memoryview(_HEADER.pack(_len(data)) + data)
        while view:
            written = os.write(self.write_fd, view)
            view = view[written:]


class CappedStream(io.TextIOBase):
    """A text stream that keeps the first ``cap`` bytes and silently drops the rest."""

    def __init__(self, fd, cap):
        self.fd, self.cap, self.written, self.truncated = fd, cap, 0, False

    def writable(self):
        return True

    def write(self, text):
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
        pass


class MemoryStream(CappedStream):
    """A capped stream kept in memory: the output of one call."""

    def __init__(self, cap):
        super().__init__(None, cap)
        self.parts = []

    def write(self, text):
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
        return "".join(self.parts)


# ----------------------------------------------------------------------------- isolation


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def isolate_as_root(config):
    """New network, mount and PID namespaces; hidden paths covered by empty tmpfs mounts.

    Returns True in the process that goes on to run the submission. The process that called
    it becomes a waiter that exits with the worker's status, so a kill of the process group
    or of the namespace's first process takes every descendant with it.
    """
    libc = _libc()
    done = []
    if libc.unshare(CLONE_NEWNET | CLONE_NEWNS | CLONE_NEWPID) == 0:
        done.append("namespaces")
        libc.mount(b"none", b"/", None, MS_REC | MS_PRIVATE, None)
        expose_python(libc, config)
        keep = [config["workdir"]] + [os.path.realpath(p) for p in (sys.base_prefix, sys.prefix)]
        for path in config.get("hide", []):
            if any(k == path or k.startswith(path.rstrip("/") + "/") for k in keep):
                continue  # hiding it would hide the sandbox itself; the audit hook still refuses it
            if os.path.isdir(path):
                libc.mount(b"tmpfs", path.encode(), b"tmpfs",
                           MS_RDONLY | MS_NOSUID | MS_NODEV | MS_NOEXEC, b"size=4k,mode=000")
            elif os.path.exists(path):
                libc.mount(b"/dev/null", path.encode(), None, 4096, None)  # MS_BIND
        # Two forks: the first child is the namespace's init (pid 1); it waits for the
        # worker (pid 2), which runs the submission and dies of its own signals normally.
        for _ in range(2):
            pid = os.fork()
            if pid:
                os.close(config["req_fd"])
                os.close(config["resp_fd"])
                _, status = os.waitpid(pid, 0)
                if os.WIFSIGNALED(status):
                    os._exit(128 + os.WTERMSIG(status))
                os._exit(os.WEXITSTATUS(status) if os.WIFEXITED(status) else 1)
        libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)
        if libc.mount(b"proc", b"/proc", b"proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, None) == 0:
            done.append("proc")
    return done


def _traversable(path):
    try:
        return bool(os.stat(path).st_mode & 0o001)
    except OSError:
        return False


def expose_python(libc, config):
    """Make the Python installation reachable for the unprivileged user.

    When Python lives under a folder others cannot enter (``/root/.pyenv``), that folder is
    replaced, in this mount namespace only, by an empty tmpfs holding just the installation.
    """
    roots = sorted({os.path.realpath(p) for p in (sys.base_prefix, sys.prefix, sys.exec_prefix)})
    plans = []
    for root in roots:
        parts = root.strip("/").split("/")
        ancestors = ["/" + "/".join(parts[: i + 1]) for i in range(len(parts))]
        blocked = next((a for a in ancestors[:-1] if not _traversable(a)), None)
        if blocked:
            plans.append((root, blocked))
    MS_BIND = 4096
    staged = []
    for number, (root, blocked) in enumerate(plans):
        stage = os.path.join(config["stage"], str(number))
        os.makedirs(stage, exist_ok=True)
        if libc.mount(root.encode(), stage.encode(), None, MS_BIND | MS_REC, None) == 0:
            staged.append((root, blocked, stage))
    for blocked in sorted({b for _, b, _ in staged}):
        libc.mount(b"tmpfs", blocked.encode(), b"tmpfs", MS_NOSUID | MS_NODEV, b"size=64k,mode=755")
    for root, blocked, stage in staged:
        os.makedirs(root, mode=0o755, exist_ok=True)
        libc.mount(stage.encode(), root.encode(), None, MS_BIND | MS_REC, None)


def set_limits(limits):
    def lower(which, value):
        soft, hard = resource.getrlimit(which)
        if hard != resource.RLIM_INFINITY:
            value = min(value, hard)
        resource.setrlimit(which, (value, value))

    mib = 1024 * 1024
    lower(resource.RLIMIT_AS, limits["memory_mb"] * mib)
    lower(resource.RLIMIT_CPU, limits["cpu_seconds"])
    lower(resource.RLIMIT_FSIZE, limits["file_size_mb"] * mib)
    lower(resource.RLIMIT_NOFILE, limits["open_files"])
    lower(resource.RLIMIT_CORE, 0)
    if os.geteuid() == 0 or limits.get("limit_processes_unprivileged"):
        lower(resource.RLIMIT_NPROC, limits["processes"])


def drop_privileges(config):
    if os.geteuid() != 0:
        return False
    uid, gid = config["uid"], config["gid"]
    os.setgroups([])
    os.setgid(gid)
    os.setuid(uid)
    try:
        _libc().prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)
    except OSError:
        pass
    return True


# ----------------------------------------------------------------------------- policy


class Guard:
    """The audit hook and the import guard: refusals become ordinary Python exceptions."""

    REFUSED_EVENTS = {
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
        "os.setuid": "changing user",
        "os.chroot": "changing the root folder",
        "mount": "mounting file systems",
    }
    PATH_EVENTS = {"os.remove", "os.rmdir", "os.mkdir", "os.chmod", "os.chown", "os.truncate",
                   "os.utime", "os.link", "os.symlink", "os.rename", "shutil.rmtree",
                   "shutil.copyfile", "shutil.copytree", "shutil.move", "os.chflags"}
    LIST_EVENTS = {"os.listdir", "os.scandir", "glob.glob", "os.walk"}

    def __init__(self, config):
        self.workdir = os.path.realpath(config["workdir"])
        roots = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
        roots.update(p for p in sys.path if p and os.path.isdir(p) and "site-packages" not in p)
        roots.update(config["policy"].get("extra_read_paths", []))
        self.read_roots = sorted({os.path.realpath(r) for r in roots if r} - {"/"})
        self.read_files = {"/dev/null", "/dev/urandom", "/dev/zero"}
        self.allowed = config["policy"].get("allowed")
        self.allowed = None if self.allowed is None else frozenset(self.allowed)
        self.denied = frozenset(config["policy"].get("denied", []))
        self.direct_denied = frozenset(config["policy"].get("direct_denied", []))
        self.label = config["policy"].get("label", "this assignment")
        self.active = False
        self.student_files = set()

    @staticmethod
    def _inside(path, root):
        return path == root or path.startswith(root.rstrip("/") + "/")

    def _real(self, path):
        if _isinstance(path, int):
            return None
        try:
            path = os.fsdecode(os.fspath(path))
        except TypeError:
            return None
        return os.path.realpath(os.path.join(self.workdir, path) if not os.path.isabs(path) else path)

    def may_read(self, real):
        if real in self.read_files or self._inside(real, self.workdir):
            return True
        if real.endswith(".pth") or real.endswith(".egg-link"):
            return False
        return any(self._inside(real, root) for root in self.read_roots)

    def refuse(self, what):
        raise PermissionError(f"not allowed in the grader's sandbox: {what}")

    def audit(self, event, args):
        if not self.active:
            return
        if event in self.REFUSED_EVENTS:
            self.refuse(self.REFUSED_EVENTS[event])
        if event.startswith("socket."):
            self.refuse("network access")
        if event == "open":
            path, mode, flags = (list(args) + [None, None, None])[:3]
            real = self._real(path)
            if real is None:
                return
            writing = False
            if _isinstance(mode, str):
                writing = any(c in mode for c in "wax+")
            if _isinstance(flags, int) and flags & (os.O_WRONLY | os.O_RDWR | os.O_CREAT | os.O_TRUNC | os.O_APPEND):
                writing = True
            if writing and not self._inside(real, self.workdir):
                self.refuse(f"writing {path!s} (only the working folder is writable)")
            if not self.may_read(real):
                self.refuse(f"opening {path!s} (outside the sandbox's folder)")
        elif event in self.PATH_EVENTS:
            for item in args:
                if _isinstance(item, (str, bytes)) or hasattr(item, "__fspath__"):
                    real = self._real(item)
                    if real is not None and not self._inside(real, self.workdir):
                        self.refuse(f"changing {item!s} (outside the sandbox's folder)")
        elif event in self.LIST_EVENTS:
            if args and args[0] is not None:
                real = self._real(args[0])
                if real is not None and not self.may_read(real):
                    self.refuse(f"listing {args[0]!s} (outside the sandbox's folder)")
        elif event == "import":
            name = args[0] if args else ""
            if _isinstance(name, str) and self.is_denied(name, direct=False) and self._student_on_stack():
                raise ImportError(self.import_message(name))

    def _student_on_stack(self):
        frame = sys._getframe(2)
        while frame is not None:
            if frame.f_code.co_filename in self.student_files:
                return True
            frame = frame.f_back
        return False

    def is_denied(self, name, direct=True):
        """Denied modules are refused however they are reached; the allow list (a course
        rule) applies to the submission's own import statements only."""
        top = name.split(".")[0]
        if name in self.denied or top in self.denied:
            return True
        if direct and any(name == d or name.startswith(d + ".") for d in self.direct_denied):
            return True
        return direct and self.allowed is not None and top not in self.allowed

    def import_message(self, name):
        if self.allowed is not None:
            allowed = ", ".join(sorted(self.allowed)) or "nothing"
            return f"import of '{name}' is not allowed in {self.label} (allowed: {allowed})"
        return f"import of '{name}' is not allowed in {self.label}"

    def install_import_guard(self):
        original = builtins.__import__
        guard = self

        def guarded_import(name, globals=None, locals=None, fromlist=(), level=0):
            if guard.active and level == 0 and globals is not None:
                filename = globals.get("__file__") if _type(globals) is dict else None
                if filename in guard.student_files and guard.is_denied(name):
                    raise ImportError(guard.import_message(name))
            return original(name, globals, locals, fromlist, level)

        builtins.__import__ = guarded_import


# ----------------------------------------------------------------------------- serving


class Runner:
    def __init__(self, channel, config):
        self.channel = channel
        self.config = config
        self.objects = {}
        self.next_handle = 1
        self.module = None
        self.max_message = config["limits"]["message_bytes"]
        self.output_cap = config["limits"]["output_bytes"]

    # --- conversion between JSON and objects
    def to_plain(self, value, depth=0):
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
        handle = self.next_handle
        self.next_handle += 1
        self.objects[handle] = value
        try:
            type_name = _type.__dict__["__name__"].__get__(_type(value))
        except Exception:
            type_name = "object"
        return {"__handle__": handle, "type": _str(type_name)[:80]}

    def from_plain(self, value):
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
        try:
            message = _str(error)
        except BaseException:
            message = "<the exception's message could not be printed>"
        try:
            name = _type.__dict__["__name__"].__get__(_type(error))
        except BaseException:
            name = "Exception"
        where = []
        try:
            for frame in traceback.extract_tb(error.__traceback__):
                if frame.filename in self.runner_guard.student_files:
                    line = (frame.line or "").strip()
                    where.append(f"line {frame.lineno}, in {frame.name}" + (f": {line}" if line else ""))
        except BaseException:
            pass
        if _type(error) is SyntaxError or name in ("SyntaxError", "IndentationError", "TabError"):
            try:
                where = [f"line {error.lineno}" + (f": {error.text.strip()}" if error.text else "")]
                message = _str(error.msg)
            except BaseException:
                pass
        if name == "SystemExit":
            message = f"the code called sys.exit({message})"
        collapsed = []
        for line in where:
            if collapsed and collapsed[-1][0] == line:
                collapsed[-1][1] += 1
            else:
                collapsed.append([line, 1])
        where = [line if count == 1 else f"{line} [repeated {count} times]" for line, count in collapsed]
        return {"type": _str(name)[:80], "message": message[:2000], "where": where[-8:]}

    # --- operations
    def op_load(self, request):
        filename = request["filename"]
        path = os.path.join(self.config["workdir"], filename)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(request["source"])
        self.runner_guard.student_files.add(path)
        module = types.ModuleType(request["module"])
        module.__file__ = path
        module.__builtins__ = builtins
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
        target = self._target(request)
        function = getattr(target, request["name"])
        args = self.from_plain(request.get("args", []))
        kwargs = self.from_plain(request.get("kwargs", {}))
        return function(*args, **kwargs)

    def op_fetch(self, request):
        return self._target(request)

    def op_get_attr(self, request):
        return getattr(self._target(request), request["name"])

    def op_set_attr(self, request):
        setattr(self._target(request), request["name"], self.from_plain(request["value"]))
        return None

    def op_has(self, request):
        return hasattr(self._target(request), request["name"])

    def op_release(self, request):
        self.objects.clear()
        return None

    def serve(self):
        operations = {"load": self.op_load, "call": self.op_call, "get_attr": self.op_get_attr,
                      "fetch": self.op_fetch,
                      "set_attr": self.op_set_attr, "has": self.op_has, "release": self.op_release}
        while True:
            try:
                request = self.channel.receive()
            except EOFError:
                os._exit(0)
            op = operations.get(request.get("op"))
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
                if _type(reply) is _RawReply:
                    reply.extra = extra
                else:
                    reply.update(extra)
            try:
                self.reply(reply)
            except BaseException as error:  # noqa: BLE001
                self.reply({"ok": False, "error": {"type": "ResultError", "where": [],
                            "message": _str(error)[:500]}})

    def reply(self, reply):
        if _type(reply) is _RawReply:
            extra = "," + json.dumps(reply.extra)[1:-1] if reply.extra else ""
            data = ('{"ok":true,"value":' + reply.text + extra + "}").encode("utf-8")
        else:
            data = json.dumps(reply, separators=(",", ":")).encode("utf-8")
        if _len(data) > self.max_message:
            raise ValueError(f"the result is too large ({_len(data)} bytes; the limit is {self.max_message})")
        self.channel.send_bytes(data)


def main():
    req_fd, resp_fd = int(sys.argv[1]), int(sys.argv[2])
    channel = Channel(req_fd, resp_fd)
    config = channel.receive()
    config["req_fd"], config["resp_fd"] = req_fd, resp_fd
    protections = []
    if os.geteuid() == 0 and config.get("isolate", True):
        protections += isolate_as_root(config)
    os.chdir(config["workdir"])
    set_limits(config["limits"])
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    if drop_privileges(config):
        protections.append("unprivileged")
    sys.stdout = CappedStream(1, config["limits"]["output_bytes"])
    sys.stderr = CappedStream(2, config["limits"]["output_bytes"])
    sys.stdin = io.StringIO("")
    sys.setrecursionlimit(config["limits"].get("recursion_limit", 10000))
    guard = Guard(config)
    runner = Runner(channel, config)
    runner.guard = runner.runner_guard = guard
    guard.install_import_guard()
    if config.get("audit", True):
        sys.addaudithook(guard.audit)
        guard.active = True
        protections.append("audit-hook")
    channel.send({"ok": True, "value": {"pid": os.getpid(), "protections": protections,
                                        "uid": os.getuid()}})
    runner.serve()


if __name__ == "__main__":
    main()
