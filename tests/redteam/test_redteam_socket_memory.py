"""Grading as root, the sandbox's memory cgroup bounds what the sandbox holds: socket buffers too.

The README: grading as root where the cgroup v1 memory controller is writable, "each sandbox gets
a cgroup whose limit (``Limits.memory_mb`` plus its two tmpfs folders) covers its tmpfs files and
memory files too" (the known gap it names, memory that is not address space, is the ordinary
user's). Socket buffers are not charged to a v1 memory cgroup (only to ``memory.kmem.tcp``, which
nobody limits): the sandbox's own network namespace has a loopback, and TCP connections to itself,
their send buffers raised to the most the machine allows and never read, keep what was sent in the
kernel. With ``memory_mb=256`` (a cgroup of 384 MB with the two 64 MB tmpfs folders), the child
fills 200 MB of ordinary memory and then queues about 300 MB on its own connections (as many as its
64 open files allow), and goes on running: about 500 MB held under a 384 MB limit. With the default
limits the same 300 MB come on top of the 1,152 MB cgroup, per sandbox, with ``-j`` sandboxes at once.
"""

from __future__ import annotations

import os

import pytest

from minesweeper_kit.sandbox import ImportPolicy, Limits, Sandbox, SandboxError

HOLD = r'''
import socket

KEEP = []


def hold(megabytes):
    KEEP.append(bytearray(megabytes << 20))  # ordinary memory, inside the address-space limit
    queued, chunk = 0, b"x" * (1 << 20)
    try:
        server = socket.socket()
        server.bind(("127.0.0.1", 0))
        server.listen(64)
    except OSError:  # no socket at all: nothing can be queued
        return queued
    KEEP.append(server)
    while True:
        try:
            client = socket.socket()
        except OSError:  # out of open files
            break
        client.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 30)
        client.connect(server.getsockname())
        try:
            peer, _ = server.accept()
        except OSError:
            client.close()
            break
        peer.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 1 << 30)
        client.setblocking(False)
        KEEP.extend([client, peer])
        while True:
            try:
                queued += client.send(chunk)
            except BlockingIOError:
                break
    return queued
'''


def test_socket_buffers_count_against_the_sandboxs_memory_cgroup():
    if os.geteuid() != 0:
        pytest.fail("this test grades as root: the memory cgroup is root's")
    limits = Limits(memory_mb=256)
    cgroup_mb = limits.memory_mb + 2 * limits.disk_mb
    with Sandbox(HOLD, audit=False, import_policy=ImportPolicy(denied=frozenset()), limits=limits) as box:
        assert box._child is not None and box._child.cgroup is not None, (
            "no memory cgroup: this machine cannot show the guarantee (the cgroup v1 memory controller is needed)"
        )
        try:
            queued = box.call("hold", 200, timeout=60)
        except SandboxError as error:  # stopped: only a memory limit may have stopped it
            assert "memory" in str(error).lower(), error
            return
        held_mb = 200 + queued / 2**20
        assert not (box.alive and held_mb > cgroup_mb), (
            f"the sandbox holds {held_mb:.0f} MB (200 MB of memory, {queued / 2**20:.0f} MB in its sockets' "
            f"buffers) under a memory cgroup of {cgroup_mb} MB, and runs on"
        )
