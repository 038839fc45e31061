"""The wire between the grader and the sandboxed child: length-prefixed JSON over two pipes.

This module is shared by both sides and imports only the standard library, because the child
runs it from a read-only copy inside the sandbox. The parent's side is ``parent.Sandbox`` (its
public methods build every request), the child's ``child.Runner`` (one ``op_*`` method per
operation below).

Framing
-------

* Every message is a 4-byte big-endian length (:data:`HEADER`) followed by that many bytes of
  UTF-8 JSON: one object.
* The parent writes requests on one pipe; the child answers each on the other, in order, one
  answer per request. The parent closing its pipe ends the child (exit status 0); otherwise the
  parent ends a child by killing its whole sandbox.

The first request: configuration
--------------------------------

An object without ``op``: ``workdir`` (the child's working folder), ``audit`` (whether to add the
audit hook), ``policy`` (``ImportPolicy.to_json()``), ``limits`` (every field of ``Limits``:
``memory_mb``, ``cpu_seconds``, ``file_size_mb``, ``processes``, ``open_files``,
``output_bytes``, ``message_bytes``, ``recursion_limit``, ``disk_mb``), ``kit_path`` (the bot
kit's folder, or null), ``site_paths`` (package folders to append to ``sys.path``), ``files``
(``{name: base64 data}`` to place in the working folder), ``callbacks`` (whether the child
may ask the grader questions, below) and ``preload`` (modules to import before the guards are on).
The child answers
``{"ok": true, "value": {"protections": [...]}}``, naming what it set up: ``"limits"``, and
``"keyrings"`` and ``"audit-hook"`` when they hold.

Requests after it
-----------------

Each is an object with an ``op``. ``handle`` is the number of an object kept in the child; where
it is optional, leaving it out means the submission's module.

* ``load``: ``source``, ``filename``, ``module``. Writes the source to the working folder and runs
  it as that module. Value: ``{"names": [...]}``, its top-level names. Always the second request.
* ``call``: ``name``, optional ``handle`` (then a method of that object), ``args`` (a list) and
  ``kwargs`` (an object). Value: what the call returned.
* ``fetch``: optional ``handle``. Value: the object itself, as plain data where it can be.
* ``get_attr``: ``name``, optional ``handle``. Value: the attribute.
* ``set_attr``: ``name``, ``handle``, ``value``. Value: null.
* ``has``: ``name``, optional ``handle``. Value: whether the attribute exists.
* ``put_file``: ``name`` (a plain file name), ``data`` (base64). Writes it to the working folder.
  Value: null.
* ``release``: forgets every kept object (their handles stop working). Value: null.

While it works on a request, a child started with ``"callbacks": true`` in its configuration may
ask the grader something: it sends ``{"callback": TEXT}`` instead of an answer and waits for
``{"reply": TEXT}`` on the request pipe, then goes on with the request (``remote.py``: a student's
tests reaching the implementation under test, which runs in another sandbox).

Any request but ``load`` may add ``"keep": true`` (keep even a plain value in the child and
answer its handle) and ``"capture_stdout": true`` (what the student printed during the request
comes back in the answer). An unknown ``op`` is answered with an error.

Arguments and values
--------------------

Arguments (``args``, ``kwargs``, ``value``) are plain JSON, plus ``{"__handle__": n}`` for a kept
object and ``{"__tuple__": [...]}`` for a tuple. Values are plain JSON (numbers, including
``NaN`` and ``Infinity``, strings, booleans, lists, objects with string keys, null; tuples become
lists), and ``{"__handle__": n, "type": "Name"}`` for anything else, which stays in the child.

Answers
-------

* ``{"ok": true, "value": V}``, plus ``"stdout"`` (text) and ``"stdout_truncated"`` (boolean)
  when the request asked for ``capture_stdout``.
* ``{"ok": false, "error": {"type": ..., "message": ..., "where": [...]}}``: ``type`` is the name
  of the exception the student's code raised (``"ResultError"`` when the value could not be
  sent back: nested too deeply, or an answer over ``limits.message_bytes``), ``where`` the lines
  of the student's file it passed through. The same capture fields may follow.

Trust
-----

The child trusts its parent and reads with :func:`read_message`. The parent trusts nothing the
child sends: it refuses an answer longer than its limit before reading it, and parses it with
the plain JSON parser and nothing more, so nothing the child sends can run code in the parent.
"""

from __future__ import annotations

import json
import os
import struct

HEADER = struct.Struct(">I")

__all__ = ["HEADER", "encode", "frame", "read_exactly", "read_message", "write_all"]


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
