"""The grader's end of the request channel: framing, encoding requests, parsing answers.

Requests go down one pipe and answers come up another, each framed as ``protocol.py`` says. The
grader trusts nothing the child wrote: it refuses an answer longer than ``Limits.message_bytes``
before reading it, parses answers as plain JSON only (handles become :class:`Handle` of the
child's generation) and cuts every field of an error answer to size. While it waits it runs the
call's guard (``accounting.CallGuard``) as often as the guard asks, and no more.
"""

from __future__ import annotations

import json
import numbers
import os
import select
import time
from collections.abc import Callable
from typing import Any, Protocol

from . import protocol
from .common import Handle, ResultError, SandboxError, StudentError

__all__ = ["Pipes", "BrokenAnswer", "encode_request", "encode_value", "parse_reply", "failure"]


class Waiting(Protocol):
    """What the channel asks while it waits (``accounting.CallGuard``)."""

    def wait(self) -> float: ...

    def over(self, *, just_sent: bool = False) -> bool: ...

    def paused(self, seconds: float) -> None: ...


#: How a child's question starts (``{"callback": ...}``, written compactly by the child).
CALLBACK_PREFIX = b'{"callback":'


class BrokenAnswer(ResultError):
    """An answer the grader refused to read (too large, not JSON): the child must be stopped,
    since what it sends next cannot be trusted to start a frame."""


class Pipes:
    """The two pipe ends the grader keeps: ``request`` (written, non-blocking) and ``answer``
    (read). ``alive`` says whether the child still runs, for a write that cannot go through."""

    def __init__(self, request: int, answer: int, message_bytes: int, alive: Callable[[], bool]) -> None:
        self.request, self.answer, self.message_bytes, self.alive = request, answer, message_bytes, alive
        os.set_blocking(self.request, False)

    def exchange(self, data: bytes, guard: Waiting, callback: Callable[[str], str] | None = None) -> bytes:
        """Write one framed request and read the framed answer's body; raises :class:`BrokenAnswer`
        before reading an answer longer than ``message_bytes``, ``TimeoutError`` when the guard
        stops the call (its argument names the guard), ``EOFError`` or ``BrokenPipeError`` when the
        child closed its end.

        With ``callback``, the child may ask questions before it answers (``{"callback": text}``,
        see ``protocol.py``): each is answered with ``callback(text)`` and the wait goes on, the
        time the callback took not counted against the child (``guard.paused``)."""
        self._write(protocol.frame(data), guard)
        while True:
            body = self._frame(guard)
            if callback is None or not body.startswith(CALLBACK_PREFIX):
                return body
            try:
                question = json.loads(body.decode("utf-8"))["callback"]
            except (ValueError, KeyError, TypeError, UnicodeDecodeError, RecursionError):
                raise BrokenAnswer("a question from the child could not be read") from None
            if not isinstance(question, str):
                raise BrokenAnswer("a question from the child could not be read")
            started = time.monotonic()
            reply = callback(question)
            self._write(protocol.encode({"reply": reply}), guard)
            guard.paused(time.monotonic() - started)

    def _frame(self, guard: Waiting) -> bytes:
        header = self._read(protocol.HEADER.size, guard)
        (size,) = protocol.HEADER.unpack(header)
        if size > self.message_bytes:
            raise BrokenAnswer(f"the answer is too large ({size} bytes; the limit is {self.message_bytes})")
        return self._read(size, guard)

    def _write(self, data: bytes, guard: Waiting) -> None:
        view = memoryview(data)
        check = _Checks(guard)
        while view:
            _, writable, _ = select.select([], [self.request], [], guard.wait())
            if check.due(bool(writable)) and guard.over(just_sent=bool(writable)):
                raise TimeoutError("cpu")
            if not writable:
                if not self.alive():
                    raise BrokenPipeError
                continue
            try:
                written = os.write(self.request, view)
            except BlockingIOError:
                continue
            view = view[written:]

    def _read(self, n: int, guard: Waiting) -> bytes:
        chunks, got = [], 0
        check = _Checks(guard)
        while got < n:
            readable, _, _ = select.select([self.answer], [], [], guard.wait())
            if check.due(bool(readable)) and guard.over(just_sent=bool(readable)):
                raise TimeoutError("cpu")
            if not readable:
                continue
            chunk = os.read(self.answer, min(n - got, 1 << 20))
            if not chunk:
                raise EOFError
            chunks.append(chunk)
            got += len(chunk)
        return b"".join(chunks)


class _Checks:
    """When the guard is asked (``over``): whenever a wait ends with nothing to do, and at least
    once per ``guard.wait()`` while data keeps coming, so that a child sending its answer a byte at
    a time between bursts of work still has every CPU-second counted."""

    def __init__(self, guard: Waiting) -> None:
        self.guard = guard
        self.at = time.monotonic() + guard.wait()

    def due(self, ready: bool) -> bool:
        now = time.monotonic()
        if ready and now < self.at:
            return False
        self.at = now + self.guard.wait()
        return True


def encode_request(message: dict[str, Any]) -> bytes:
    """A request as the compact JSON the child reads."""
    return json.dumps(message, separators=(",", ":")).encode("utf-8")


def encode_value(value: Any, check: Callable[[Handle], Handle]) -> Any:
    """An argument as plain data for the child: handles (each passed through ``check``) and tuples
    marked, numbers made plain; ValueError for anything else."""
    if isinstance(value, Handle):
        return {"__handle__": check(value).id}
    if isinstance(value, tuple):
        return {"__tuple__": [encode_value(v, check) for v in value]}
    if isinstance(value, list):
        return [encode_value(v, check) for v in value]
    if isinstance(value, dict):
        if not all(isinstance(k, str) for k in value):
            raise ValueError("dict arguments must have string keys")
        return {k: encode_value(v, check) for k, v in value.items()}
    if value is None or isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, numbers.Integral):
        return int(value)
    if isinstance(value, numbers.Real):
        return float(value)
    raise ValueError(f"only plain data can be sent to the sandbox, not {type(value).__name__}")


def parse_reply(body: bytes, generation: int) -> dict[str, Any]:
    """The answer as plain JSON (handles made :class:`Handle` of ``generation``) and nothing more;
    :class:`BrokenAnswer` for a body that is not JSON, :class:`ResultError` for one that is not an
    object with a boolean ``ok``, or whose ``stdout`` is not text: a child that answers out of
    shape fails the call that asked, like any other wrong answer of the student's."""

    def handles(obj: dict) -> Any:
        value = obj.get("__handle__")
        if isinstance(value, int) and not isinstance(value, bool):
            return Handle(value, str(obj.get("type", "object"))[:80], generation)
        return obj

    try:
        reply = json.loads(body.decode("utf-8"), object_hook=handles)
    except (ValueError, RecursionError, UnicodeDecodeError, MemoryError):
        raise BrokenAnswer(
            "the answer could not be read (not valid JSON, nested too deeply, or an integer too large)"
        ) from None
    if not isinstance(reply, dict) or not isinstance(reply.get("ok"), bool):
        raise ResultError("the answer had the wrong shape")
    if not isinstance(reply.get("stdout", ""), str):
        raise ResultError("the answer had the wrong shape: what the call printed was not text")
    return reply


def failure(error: object) -> SandboxError:
    """The exception for an ``{"ok": false, "error": ...}`` answer, every field cut to size."""
    found = error if isinstance(error, dict) else {}
    where = found.get("where")
    if not isinstance(where, list):
        where = []
    if found.get("type") == "ResultError":
        return ResultError(str(found.get("message", ""))[:2000])
    return StudentError(
        str(found.get("type", "Error"))[:80],
        str(found.get("message", ""))[:2000],
        [str(w)[:300] for w in where],
    )
