"""No tracing of another process: ``perf_event_open`` on bubblewrap's init.

The README: "no tracing and no reading another process: the seccomp filter refuses ptrace,
process_vm_readv/process_vm_writev, kcmp, pidfd_getfd (and io_uring_setup) ... bubblewrap's init,
which runs as the child's own uid when grading as a user, is out of sight". ``perf_event_open`` is
the kernel's other way to attach to a process by its pid: it is not refused, and grading as an
ordinary user the child may attach an event to process 1 of its namespace, bubblewrap's init (the
kernel's check is ptrace's "read" access, which the same uid passes; as root, init is not the
child's uid and the kernel refuses). A sampling event on another process copies its registers and
user stack into the caller's buffer each time it runs. With the audit hook off and every import
allowed (the hook is advice), the child asks for a software event on process 1 and on itself.
"""

from __future__ import annotations

import os

import pytest
from redteam_harness import MODES
from unprivileged import run_python

ATTACH = r'''
import ctypes, errno, os, struct

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
PERF_EVENT_OPEN = {"x86_64": 298, "aarch64": 241}[os.uname().machine]


def attach(pid):
    attr = bytearray(128)
    struct.pack_into("IIQ", attr, 0, 1, 128, 0)  # PERF_TYPE_SOFTWARE, its size, PERF_COUNT_SW_CPU_CLOCK
    struct.pack_into("Q", attr, 40, (1 << 5) | (1 << 6))  # exclude_kernel, exclude_hv: user space only
    fd = libc.syscall(PERF_EVENT_OPEN, (ctypes.c_char * 128).from_buffer(attr), pid, -1, -1, 0)
    if fd < 0:
        return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))
    os.close(fd)
    return "attached"
'''

PROGRAM = r'''
import json, sys
from minesweeper_kit.sandbox import ImportPolicy, Sandbox

with Sandbox(sys.argv[1], audit=False, import_policy=ImportPolicy(denied=frozenset())) as box:
    print(json.dumps({"init": box.call("attach", 1, timeout=30), "itself": box.call("attach", 0, timeout=30)}))
'''


def _run(mode: str) -> dict:
    return run_python(mode, PROGRAM, ATTACH)


@pytest.mark.parametrize("mode", MODES)
def test_the_child_cannot_attach_a_perf_event_to_bubblewraps_init(mode):
    if os.geteuid() != 0:
        pytest.fail("this test starts as root: it grades as root and, through setpriv, as an ordinary user")
    found = _run(mode)
    assert found["init"] != "attached", f"{mode}: perf_event_open attached to process 1: {found}"
