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

This module is the facade; each guarantee has one home beside it:

* ``lifecycle.py``: the child's process life: start, reap, kill, and everything given back;
* ``accounting.py``: its CPU time, read from the kernel, and the guards that stop a call;
* ``channel.py``: the request channel: framing, encoding requests, parsing answers;
* ``common.py``: :class:`Limits`, :class:`Handle` and the errors.

The parent trusts nothing the child made: after the start it never opens a path inside the
sandbox (files go in through the pipe), it refuses an answer longer than
``Limits.message_bytes`` before reading it, and it parses answers as plain JSON only.

Time is the child's CPU time (user + system, every thread of it), read from the kernel by the
parent, so a grade does not depend on what else the machine is doing. Under bubblewrap the child
can create no process (``seccomp.py``), so no CPU time escapes the count. Two wall-clock guards
catch code that sleeps or blocks instead: a call whose child uses no CPU time (less than
``IDLE_CPU`` seconds) for ``idle_seconds`` while it is not running, ready to run or waiting
inside the kernel is stopped, and no call outlasts ``wall_factor`` times its CPU limit plus
``wall_slack`` seconds. Even on a machine so busy that the child gets a tenth of a core, a
CPU-bound call is never stopped by either; one that gets no core at all for seconds at a time is
not stopped by the idle guard.
"""

from __future__ import annotations

import base64
import time
from collections.abc import Callable, Iterable
from dataclasses import asdict
from pathlib import Path
from typing import Any

from . import accounting, channel, common
from . import isolation as isolation_module
from .common import (
    ChildDied,
    Handle,
    Limits,
    LoadError,
    SandboxError,
    SandboxUnavailable,
    StudentError,
    TimeLimitExceeded,
)
from .common import ResultError as ResultError  # not used here: re-exported with the rest of common.__all__
from .lifecycle import _RUNTIMES as _RUNTIMES  # the runtime folders this process built, by kind
from .lifecycle import TAG_VARIABLE, Child, Launch, describe_exit
from .policy import DEFAULT_DENIED, ImportPolicy

__all__ = ["Sandbox", "ImportPolicy", "DEFAULT_DENIED", "TAG_VARIABLE"]
__all__ += common.__all__  # Limits, Handle and the errors: listed once, in common.py


class Sandbox:
    """One isolated child process running one submission's source.

    ``source`` is Python source text or a path to a ``.py`` file. ``isolation`` is ``"bwrap"``
    (the default; :class:`~minesweeper_kit.sandbox.isolation.IsolationUnavailable` if this
    machine cannot) or ``"none"`` (trusted code only: the child may then start processes, and
    their CPU time is found by walking its process tree, which misses some; the guarantee that
    all CPU time counts holds only with bubblewrap). ``bot_kit`` shows the child the kit's
    ``BotView``/``Move`` modules and nothing that plays. ``hide`` lists paths covered even when they
    fall inside a folder the child is shown. Calls return plain data or :class:`Handle`; student
    failures raise :class:`SandboxError` subclasses whose message is meant for the student. A
    sandbox that fails before the source is loaded raises :class:`SandboxUnavailable`, and a
    machine that cannot isolate ``IsolationUnavailable``: both are the grader's failures, never
    the student's.
    Every ``timeout`` is in CPU seconds of the child.
    """

    IDLE_CPU = accounting.IDLE_CPU  #: CPU seconds that count as "the child is working"
    _EXIT_GRACE = 10.0  #: seconds a child whose pipe closed has to finish exiting before it is killed

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
        callback: Callable[[str], str] | None = None,
        preload: Iterable[str] = (),
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
        #: answers the child's questions during a request (``remote.py``); None: it may ask none
        self.callback = callback
        self.preload = [str(name) for name in preload]
        denied = [name for name in self.preload if self.policy.is_denied(name)]
        if denied:
            raise ValueError(f"cannot preload modules the import rule refuses: {denied}")
        self.budget: float | None = None
        self.window: float | None = None
        self.deadline: float | None = None  #: time.monotonic() at which every call stops
        self.generation = 0
        self.protections: list[str] = []
        self.names: list[str] = []
        self.restarts = 0
        self._child: Child | None = None
        self._channel: channel.Pipes | None = None
        self._meter: accounting.CpuMeter | None = None
        self._stdout_parts: list[str] = []
        self._stderr_parts: list[str] = []
        self._files: dict[str, bytes] = {}
        self._cpu_before = 0.0  # CPU seconds of earlier (killed) children
        self._cpu_last = 0.0  # last reading of the current child
        self._proc_reads_before = 0  # /proc files read for earlier children (see proc_reads_total)

    # ------------------------------------------------------------------ lifecycle
    def __enter__(self) -> Sandbox:
        try:
            self.start()
        except BaseException:  # no __exit__ follows a failed __enter__: the folder must go now
            self.close()
            raise
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    @property
    def alive(self) -> bool:
        """Whether the child process is running now."""
        return self._child is not None and self._child.alive

    @property
    def pid(self) -> int | None:
        """The process id of bubblewrap (of the child itself without isolation), for diagnostics;
        None when not started."""
        return self._child.pid if self._child else None

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

    def _spawn(self) -> None:
        """Start a child (``lifecycle.Child``) and send it its configuration; then, the child
        running and no student code yet, fix the processes its CPU time is read from."""
        child = Child.start(
            isolation=self.isolation,
            bwrap=self.isolation_status.bwrap,
            limits=self.limits,
            hide=self.hide,
            bot_kit=self.bot_kit,
        )
        self._child = child
        assert child.process is not None and child.launch is not None
        self._meter = accounting.CpuMeter(child.process.pid)
        self._channel = channel.Pipes(child.request, child.answer, self.limits.message_bytes, lambda: self.alive)
        self.generation += 1
        self._configure(child.launch)
        if child.launch.fds:  # under bubblewrap's seccomp filter: no process can be added any more
            self._meter.settle()

    def restart(self) -> None:
        """Kill the child (if any) and start a fresh one; existing handles become invalid."""
        self.kill()
        self.restarts += 1
        self.start()

    def kill(self) -> None:
        """Kill the child's whole sandbox at once (SIGKILL to bubblewrap's process group; the
        kernel then ends every process of its PID namespace)."""
        child = self._child
        if child is None or child.process is None:
            return
        # the last reading before the kill: whatever the child used until now counts
        self._cpu_last = self._read_cpu()
        child.kill()
        self._cpu_before += max(self._cpu_last, self._read_cpu())  # a child that ended: its wait4 usage
        self._cpu_last = 0.0
        if self._meter is not None:
            self._proc_reads_before += self._meter.reads
            self._meter.close()
            self._meter = None
        self._collect_output()
        child.process = None
        child.release()

    def close(self) -> None:
        """Kill the child and remove the grader's own temporary folder for it."""
        self.kill()
        self._cleanup_process()

    def _cleanup_process(self) -> None:
        if self._child is not None:
            self._child.close()
            self._child = None
        self._channel = None

    def set_budget(self, cpu_seconds: float | None) -> None:
        """The CPU seconds all calls together may still use from now on (None: no budget)."""
        self.budget = None if cpu_seconds is None else self.cpu_seconds() + max(0.0, cpu_seconds)

    def set_deadline(self, seconds: float | None) -> None:
        """The wall-clock seconds, from now, that every call together may still take (None: no
        deadline): a call still running then is stopped, whatever its own limits. The
        configuration of a restarted child is not held to it (no student code answers it)."""
        self.deadline = None if seconds is None else time.monotonic() + max(0.0, seconds)

    def set_window(self, cpu_seconds: float | None) -> None:
        """The CPU seconds the calls of one unit of work (a test) may use from now on; a call
        that runs past it fails as its own call limit would (None: no window)."""
        self.window = None if cpu_seconds is None else self.cpu_seconds() + max(0.0, cpu_seconds)

    def cpu_seconds(self) -> float:
        """CPU seconds (user + system) used by every child of this sandbox so far."""
        if self._meter is not None:
            self._cpu_last = max(self._cpu_last, self._read_cpu())
        return self._cpu_before + self._cpu_last

    @property
    def proc_reads_total(self) -> int:
        """How many ``/proc`` files were read to account for this sandbox's CPU time so far."""
        return self._proc_reads_before + (self._meter.reads if self._meter is not None else 0)

    def _read_cpu(self) -> float:
        """CPU seconds of the current child (see ``accounting.CpuMeter``); 0 when none."""
        if self._meter is None or self._child is None:
            return 0.0
        self._child.poll()  # an ended child is reaped here, so its wait4 usage is known
        return self._meter.read(self._child.usage)

    def _cpu_and_activity(self) -> tuple[float, bool]:
        """What a call's guard reads: CPU seconds so far, and whether the child was busy."""
        cpu = self.cpu_seconds()
        return cpu, self._meter is not None and self._meter.active

    def output(self) -> tuple[str, str]:
        """The student's captured stdout and stderr so far (each capped)."""
        self._collect_output()
        cap = self.limits.output_bytes
        return "".join(self._stdout_parts)[-cap:], "".join(self._stderr_parts)[-cap:]

    def _collect_output(self) -> None:
        if self._child is None:
            return
        cap = self.limits.output_bytes
        out, err = self._child.collect_output(cap)
        for text, parts in ((out, self._stdout_parts), (err, self._stderr_parts)):
            if text:
                parts.append(text)
                if sum(map(len, parts)) > 2 * cap:  # only the last ``cap`` is ever shown: keep no more
                    parts[:] = ["".join(parts)[-cap:]]

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
        return channel.encode_value(value, self._check)

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

    def _configure(self, launch: Launch) -> None:
        """Send the first request, the configuration, and keep the protections the child reports."""
        config = {
            "workdir": launch.workdir,
            "audit": self.audit,
            "policy": self.policy.to_json(),
            "limits": asdict(self.limits),
            "kit_path": launch.kit_path,
            "site_paths": isolation_module.site_paths(),
            "files": {n: base64.b64encode(d).decode("ascii") for n, d in self._files.items()},
            "callbacks": self.callback is not None,
            "preload": self.preload,
        }
        try:
            hello = self._request(config, timeout=self.load_timeout, raw=True, grader_only=True)
        except ChildDied as error:  # no student code has run: what bubblewrap or Python said, not a guess
            _, stderr = self.output()
            detail = stderr.strip().splitlines()[-1:] if stderr.strip() else []
            raise ChildDied(f"the sandbox did not start: {detail[0] if detail else error}") from None
        protections = list(hello.get("protections", [])) if isinstance(hello, dict) else []
        if self.isolation != "none":
            protections.insert(0, self.isolation_status.mode)
        self.protections = protections

    def _request(
        self, message: dict[str, Any], *, timeout: float | None, raw: bool = False, grader_only: bool = False
    ) -> Any:
        """Send one request and return the child's answer (its ``value`` when ``raw``), within the
        call's CPU limit and the wall-clock guards; every way it can fail raises a
        :class:`SandboxError` meant for the student. This runs for every call a suite makes: the
        CPU time is read once for the limit and the guards (more readings only while the child
        works past the first wait the guard allows), plus the memory check below.

        A sandbox with a memory cgroup whose kernel killed any of its processes for the limit
        fails the call, whichever process the kernel chose.

        ``grader_only``: a request no student code answers (the configuration) is bounded by
        ``timeout`` alone, not by what is left of a test's window or the submission's budget, so
        a sandbox restarted with little of either left starts, and the student's own load then
        meets the limit."""
        if self._channel is None or self._child is None:
            raise ChildDied(describe_exit(None))
        cpu_start = self.cpu_seconds()
        if grader_only:
            cpu_limit, which = timeout, "call"
        else:
            cpu_limit, which = accounting.limit_for(timeout, self.window, self.budget, cpu_start)
        guard = accounting.CallGuard(
            self._cpu_and_activity,
            cpu_start,
            cpu_limit,
            wall_factor=self.wall_factor,
            wall_slack=self.wall_slack,
            idle_seconds=self.idle_seconds,
            deadline=None if grader_only else self.deadline,
        )
        try:
            body = self._channel.exchange(channel.encode_request(message), guard, self.callback)
        except TimeoutError as error:
            self.kill()
            raise self._time_limit_error(str(error), cpu_limit or 0.0, which) from None
        except (BrokenPipeError, EOFError):
            raise self._lost_child_error() from None
        except channel.BrokenAnswer:
            self.kill()
            raise
        cgroup = self._child.cgroup
        if cgroup is not None and cgroup.oom_killed():
            raise self._out_of_memory_error()
        try:
            reply = channel.parse_reply(body, self.generation)
        except channel.BrokenAnswer:
            self.kill()
            raise
        if not reply.get("ok"):
            raise channel.failure(reply.get("error"))
        if raw:
            return reply.get("value")
        return reply

    def _time_limit_error(self, guard: str, limit: float, which: str) -> TimeLimitExceeded:
        """What a student is told when ``guard`` (``"idle"``, ``"wall"`` or ``"cpu"``) stopped a call
        whose CPU limit was ``limit`` (``which`` says whether the call's or the budget's)."""
        if guard == "deadline":
            return TimeLimitExceeded(
                "the submission's wall-clock budget ran out during this call; the process was killed",
                "deadline",
                0.0,
            )
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
        child = self._child
        code = child.wait(self._EXIT_GRACE) if child is not None else None
        if child is not None and child.poll() is None:  # it closed its end of a pipe and went on running
            self.kill()
            return ChildDied(
                "the process running the submission closed its channel to the grader and went on running; it was killed"
            )
        if child is not None and child.cgroup is not None and child.cgroup.oom_killed():
            return self._out_of_memory_error()
        self._collect_output()
        self.kill()
        return ChildDied(describe_exit(code))

    def _out_of_memory_error(self) -> ChildDied:
        """The kernel killed a process of this sandbox for its memory limit: the sandbox is
        stopped as a whole (its output kept) and the student told the limit."""
        self._collect_output()
        self.kill()
        return ChildDied(
            f"the process running the submission was killed: it used more than the "
            f"sandbox's memory limit of {self.limits.memory_mb} MB"
        )
