"""What every part of the grader's side of the sandbox shares: the limits, handles, and the errors.

The errors are split by whose failure they are: a :class:`SandboxError` is the student's (its
``str()`` is written for them and costs points), :class:`SandboxUnavailable` is the grader's or
the machine's and is never scored.
"""

from __future__ import annotations

from dataclasses import asdict, dataclass, field

__all__ = [
    "Limits",
    "Handle",
    "SandboxError",
    "StudentError",
    "LoadError",
    "TimeLimitExceeded",
    "ChildDied",
    "ResultError",
    "SandboxUnavailable",
]


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

    ``kind`` says which limit: ``"cpu"`` (the child's CPU seconds), ``"wall"`` (the wall-clock
    guard for code that sleeps or blocks), ``"budget"`` (what was left of the submission's CPU
    budget) or ``"deadline"`` (the submission's wall-clock budget)."""

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
