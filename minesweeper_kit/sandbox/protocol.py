"""The wire between the grader and the sandboxed child: length-prefixed JSON over two pipes.

This module is shared by both sides and imports only the standard library, because the child
runs it from a read-only copy inside the sandbox.

The protocol, in full:

* Every message is a 4-byte big-endian length followed by that many bytes of UTF-8 JSON.
* The parent writes requests on one pipe, the child answers each on the other, in order.
* The first request is the configuration (limits, import policy, files to place in the working
  folder); the child answers ``{"ok": true, "value": {"protections": [...]}}``.
* Later requests are objects with an ``op``: ``load`` (source text, file name, module name),
  ``call`` (a top-level name, or a method when ``handle`` is given), ``get_attr``, ``set_attr``,
  ``has``, ``fetch`` and ``release``. Arguments are plain JSON, plus ``{"__handle__": n}`` for an
  object that lives in the child and ``{"__tuple__": [...]}`` for a tuple.
* An answer is ``{"ok": true, "value": V}`` or ``{"ok": false, "error": {"type", "message",
  "where"}}``. ``V`` is plain JSON: numbers, strings, booleans, lists, dicts with string keys,
  None, and ``{"__handle__": n, "type": "Name"}`` for anything else, which stays in the child.
* The parent refuses an answer longer than its limit before reading it, and parses it with the
  plain JSON parser and nothing more: nothing the child sends can run code in the parent.
"""

from __future__ import annotations

import json
import os
import struct

HEADER = struct.Struct(">I")

__all__ = ["HEADER", "encode", "read_message", "write_all"]


def encode(message: object) -> bytes:
    """One framed message."""
    data = json.dumps(message, separators=(",", ":")).encode("utf-8")
    return HEADER.pack(len(data)) + data


def frame(data: bytes) -> bytes:
    """Frame bytes that already hold one JSON document."""
    return HEADER.pack(len(data)) + data


def read_exactly(fd: int, n: int) -> bytes:
    """Blocking read of exactly ``n`` bytes; EOFError when the other side closed."""
    chunks, got = [], 0
    while got < n:
        chunk = os.read(fd, min(n - got, 1 << 20))
        if not chunk:
            raise EOFError("the other side closed the channel")
        chunks.append(chunk)
        got += len(chunk)
    return b"".join(chunks)


def read_message(fd: int) -> object:
    """Blocking read of one message (used by the child, which trusts its parent)."""
    (size,) = HEADER.unpack(read_exactly(fd, HEADER.size))
    return json.loads(read_exactly(fd, size).decode("utf-8"))


def write_all(fd: int, data: bytes) -> None:
    """Blocking write of all of ``data``."""
    view = memoryview(data)
    while view:
        written = os.write(fd, view)
        view = view[written:]
