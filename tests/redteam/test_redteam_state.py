"""One grade, no shared state between its sandboxes.

A grade starts many sandboxes one after the other (the hidden tests' child and its restarts, one
for each run of a student's own tests, one per implementation those tests meet); grading as root,
each leases a host uid, and the next one usually gets the same uid back. A first sandbox leaves a
note, with the audit hook off and every import allowed, in every place two processes of one uid
could share: the uid's user keyring (made unclearable by taking away its own write permission),
``/dev/shm``, ``/tmp``, its working folder, a System V shared memory segment and message queue, a
POSIX message queue, and an abstract unix socket it keeps listening on. A second sandbox, started
while the first still runs and again after it has ended, looks for each. It finds nothing, as root
and as an ordinary user.
"""

from __future__ import annotations

import os

import pytest
from redteam_harness import MODES, clear_user_keyrings
from unprivileged import run_python

CHANNELS = ("user_keyring", "dev_shm", "tmp", "workdir", "sysv_shm", "sysv_msg", "posix_mq", "abstract_socket")

SHARED = r'''
import ctypes, errno, os, socket

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
KEY = 0x4d494e45  # a fixed System V key both sandboxes know
NOTE = b"left by the first sandbox"
KEEP = []


def _err():
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def _do(function):
    try:
        value = function()
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
    return "ok" if value is None else value


def _write_file(path):
    with open(path, "wb") as handle:
        handle.write(NOTE)


def _read_file(path):
    with open(path, "rb") as handle:
        return handle.read().decode()


def leave():
    """Leave the note everywhere; keep what must stay alive in KEEP. Returns what worked."""
    done = {"uid": os.getuid()}
    libc.syscall(250, 1, None)  # KEYCTL_JOIN_SESSION_KEYRING: an anonymous one
    libc.syscall(250, 8, -4, -3)  # KEYCTL_LINK: the user keyring into it
    key = libc.syscall(248, b"user", b"redteam-note", NOTE, len(NOTE), -4)  # add_key to the user keyring
    if key >= 0:
        libc.syscall(250, 5, key, 0x3f3f0000)  # KEYCTL_SETPERM: anyone of this uid reads it
        ring = libc.syscall(250, 0, -4, 0)
        libc.syscall(250, 5, ring, 0x0b0b0000)  # the keyring: no write for anyone, so no clear
    done["user_keyring"] = "ok" if key >= 0 else _err()
    for name, path in (("dev_shm", "/dev/shm/redteam-note"), ("tmp", "/tmp/redteam-note"),
                       ("workdir", "redteam-note")):
        done[name] = _do(lambda path=path: _write_file(path))
    shm = libc.shmget(KEY, 4096, 0o1666)  # IPC_CREAT | 0666
    if shm >= 0:
        libc.shmat.restype = ctypes.c_void_p
        address = libc.shmat(shm, None, 0)
        ctypes.memmove(address, NOTE, len(NOTE))
    done["sysv_shm"] = "ok" if shm >= 0 else _err()
    queue = libc.msgget(KEY, 0o1666)
    if queue >= 0:
        message = ctypes.create_string_buffer(8 + len(NOTE))
        ctypes.memmove(ctypes.addressof(message), (1).to_bytes(8, "little"), 8)
        ctypes.memmove(ctypes.addressof(message) + 8, NOTE, len(NOTE))
        libc.msgsnd(queue, message, len(NOTE), 0)
    done["sysv_msg"] = "ok" if queue >= 0 else _err()
    mq = libc.mq_open(b"/redteam-note", 0o100 | 0o2, 0o666, None)  # O_CREAT | O_RDWR
    if mq >= 0:
        libc.mq_send(mq, NOTE, len(NOTE), 0)
    done["posix_mq"] = "ok" if mq >= 0 else _err()
    server = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    server.bind(b"\0redteam-note")
    server.listen(1)
    KEEP.append(server)
    done["abstract_socket"] = "ok"
    return done


def look():
    """What of the note this sandbox can find, channel by channel: the note, or why not."""
    found = {"uid": os.getuid()}
    libc.syscall(250, 1, None)
    libc.syscall(250, 8, -4, -3)
    key = libc.syscall(250, 10, -4, b"user", b"redteam-note", 0)  # KEYCTL_SEARCH
    if key >= 0:
        buffer = ctypes.create_string_buffer(64)
        size = libc.syscall(250, 11, key, buffer, 64)
        found["user_keyring"] = buffer.raw[:size].decode() if size >= 0 else _err()
    else:
        found["user_keyring"] = _err()
    for name, path in (("dev_shm", "/dev/shm/redteam-note"), ("tmp", "/tmp/redteam-note"),
                       ("workdir", "redteam-note")):
        found[name] = _do(lambda path=path: _read_file(path))
    shm = libc.shmget(KEY, 0, 0)
    if shm >= 0:
        libc.shmat.restype = ctypes.c_void_p
        found["sysv_shm"] = ctypes.string_at(libc.shmat(shm, None, 0), len(NOTE)).decode()
    else:
        found["sysv_shm"] = _err()
    queue = libc.msgget(KEY, 0)
    if queue >= 0:
        message = ctypes.create_string_buffer(8 + 64)
        size = libc.msgrcv(queue, message, 64, 0, 0o4000)  # IPC_NOWAIT
        found["sysv_msg"] = message.raw[8:8 + size].decode() if size >= 0 else _err()
    else:
        found["sysv_msg"] = _err()
    mq = libc.mq_open(b"/redteam-note", 0o2 | 0o4000, 0, None)  # O_RDWR | O_NONBLOCK
    if mq >= 0:
        buffer = ctypes.create_string_buffer(8192)
        size = libc.mq_receive(mq, buffer, 8192, None)
        found["posix_mq"] = buffer.raw[:size].decode() if size >= 0 else _err()
    else:
        found["posix_mq"] = _err()
    client = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    found["abstract_socket"] = _do(lambda: client.connect(b"\0redteam-note"))
    client.close()
    return found
'''

#: Run as a program (as root here, or as the ordinary user): one sandbox leaves the note, a second
#: looks while the first still runs, a third after it has ended. Prints what each saw.
PROGRAM = r'''
import json, sys
from minesweeper_kit.sandbox import ImportPolicy, Limits, Sandbox

source = sys.argv[1]
policy = ImportPolicy(denied=frozenset())
with Sandbox(source, audit=False, import_policy=policy) as first:
    left = first.call("leave", timeout=30)
    with Sandbox(source, audit=False, import_policy=policy) as second:
        during = second.call("look", timeout=30)
with Sandbox(source, audit=False, import_policy=policy) as third:
    after = third.call("look", timeout=30)
print(json.dumps({"left": left, "during": during, "after": after}))
'''


def _run(mode: str) -> dict:
    seen = run_python(mode, PROGRAM, SHARED)
    clear_user_keyrings({seen["left"]["uid"]} if mode == "root" else set())
    return seen


@pytest.fixture(scope="module")
def seen():
    if os.geteuid() != 0:
        pytest.fail("this test starts as root: it grades as root and, through setpriv, as an ordinary user")
    return {mode: _run(mode) for mode in MODES}


def test_the_sandboxes_of_one_grade_share_a_uid_as_root(seen):
    """What makes the channels worth closing: grading as root, the sandboxes that follow one
    another are given the same host uid."""
    assert seen["root"]["left"]["uid"] == seen["root"]["after"]["uid"], seen["root"]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("channel", CHANNELS)
def test_nothing_one_sandbox_leaves_reaches_the_next(seen, mode, channel):
    left, during, after = (seen[mode][when][channel] for when in ("left", "during", "after"))
    if channel == "user_keyring":  # refused outright by the seccomp filter
        assert (left, during, after) == ("EPERM", "EPERM", "EPERM"), seen[mode]
        return
    # Where the first one cannot even write (/dev/shm is root's as root), the channel is closed
    # earlier still; the note must be missing either way.
    assert left == "ok" or left in ("EACCES", "EPERM", "EROFS"), f"{channel}: {left}"
    for when, found in (("while it runs", during), ("after it ended", after)):
        assert "left by the first sandbox" not in str(found), f"{channel}, {when}: {found}"
