"""A seccomp filter that keeps sandboxed code from creating processes and user namespaces, from
the kernel's keyrings, and from tracing or reading other processes.

Processes: graded code may run threads but not start a process of its own (``fork``, ``vfork``,
``clone`` without ``CLONE_THREAD``, and so ``posix_spawn``, ``subprocess`` and ``multiprocessing``
all fail with ``EPERM``). No assignment needs one, and a sandbox that is a single thread group is
one the grader can account for exactly: the kernel keeps the CPU time of every thread, live or
ended, in the process's own ``/proc/PID/stat``, while the time of a child reaped by the kernel
(``SIGCHLD`` ignored) or of a double fork's orphan would reach no total the grader reads.

User namespaces: a process that creates one holds every capability inside it: it may then mount
file systems, make namespaces of every other kind and reach kernel code an unprivileged process
never reaches. Grading as an ordinary user, bubblewrap's ``--disable-userns`` already stops that;
grading as root it cannot be used (it needs ``--unshare-user``), so this filter does it in both modes.

Keyrings (``add_key``, ``request_key``, ``keyctl``): no namespace of bubblewrap's covers them. A
uid's user keyring outlives its processes, so two sandboxes given the same uid one after the other
(grading as root, the same grade's hidden tests and each run of a student's own tests) could pass
notes through it, and a sandbox may take away its own write permission there so the next one cannot
empty it. No assignment needs a key: every keyring system call fails with ``EPERM``.

Tracing (``ptrace``, ``process_vm_readv``/``process_vm_writev``, ``pidfd_getfd``, ``kcmp``): grading
as an ordinary user, bubblewrap's own init runs as the same uid as the graded code, which could
otherwise attach to it and take its descriptors or memory. All fail with ``EPERM``. So does
``io_uring_setup``: io_uring's operations are not system calls, and so are out of any seccomp
filter's reach.

bubblewrap reads the filter from a file descriptor (``--seccomp FD``) and loads it only once its
own set-up is done: in the sandbox's init (process 1 of its PID namespace, which has forked the
command's process already and only waits from then on) and in the command's process just before
``exec``. bubblewrap's own forks come before it; every process of the sandbox runs under it, and
none can remove it. The filter is a classic BPF program, assembled here (no libseccomp needed),
for x86-64 and AArch64 (little-endian, 64-bit); elsewhere :func:`unsupported` says why there is
none and ``autograder doctor`` lists the gap.

The program, for x86-64 (AArch64: the same, with its own numbers, no x32 check, and no ``fork``
or ``vfork`` system calls, which it does not have)::

        ld   [4]                      ; A = seccomp_data.arch
        jeq  #AUDIT_ARCH_X86_64, 0, nosys   ; another ABI (i386 through int 0x80): no system call at all
        ld   [0]                      ; A = seccomp_data.nr
        jge  #0x40000000, nosys       ; the x32 ABI: no system call at all
        jeq  #272 (unshare), userns
        jeq  #56 (clone), clone
        jeq  #435 (clone3), nosys     ; its flags are in memory, out of BPF's reach: the C library
                                      ; then falls back to clone, which is checked
        jeq  #57 (fork), eperm
        jeq  #58 (vfork), eperm
        jeq  #248 (add_key), eperm    ; and request_key, keyctl, ptrace, process_vm_readv,
        ...                           ; process_vm_writev, kcmp, pidfd_getfd, io_uring_setup
        ret  #ALLOW
    userns:
        ld   [16]                     ; A = low 32 bits of args[0]: the flags of unshare
        jset #CLONE_NEWUSER, eperm
        ret  #ALLOW
    clone:
        ld   [16]                     ; A = low 32 bits of args[0]: the flags of clone
        jset #CLONE_NEWUSER, eperm
        jset #CLONE_THREAD, allow     ; a thread of this process
        ret  #ERRNO(EPERM)            ; a new process
    allow:
        ret  #ALLOW
    eperm:
        ret  #ERRNO(EPERM)
    nosys:
        ret  #ERRNO(ENOSYS)

Threads (``clone`` with ``CLONE_THREAD``) and every other system call behave as before.
"""

from __future__ import annotations

import errno
import os
import platform
import struct
import sys
from typing import Any, NamedTuple

__all__ = ["CLONE_NEWUSER", "CLONE_THREAD", "program", "filter_fd", "unsupported", "SUMMARY"]

CLONE_NEWUSER = 0x10000000
CLONE_THREAD = 0x00010000

#: What the filter does, as ``autograder doctor`` lists it.
SUMMARY = (
    "no new processes and no user namespaces inside the sandbox: a seccomp filter makes fork, vfork, "
    "clone without CLONE_THREAD, and unshare and clone with CLONE_NEWUSER fail with EPERM (and clone3 "
    "with ENOSYS, so the C library uses clone); threads still run, and the kernel counts the CPU "
    "time of all of them in the one process the grader reads; no kernel keyring (add_key, request_key, "
    "keyctl) and no tracing (ptrace, process_vm_readv/writev, kcmp, pidfd_getfd), nor io_uring"
)

# struct sock_filter { __u16 code; __u8 jt; __u8 jf; __u32 k; }, in the machine's byte order
_INSTRUCTION = struct.Struct("=HBBI")
_LD_W_ABS = 0x00 | 0x00 | 0x20  # BPF_LD | BPF_W | BPF_ABS
_JEQ = 0x05 | 0x10 | 0x00  # BPF_JMP | BPF_JEQ | BPF_K
_JGE = 0x05 | 0x30 | 0x00  # BPF_JMP | BPF_JGE | BPF_K
_JSET = 0x05 | 0x40 | 0x00  # BPF_JMP | BPF_JSET | BPF_K
_RET = 0x06 | 0x00  # BPF_RET | BPF_K

_RET_ALLOW = 0x7FFF0000  # SECCOMP_RET_ALLOW
_RET_ERRNO = 0x00050000  # SECCOMP_RET_ERRNO, the errno in the low 16 bits

# struct seccomp_data { int nr; __u32 arch; __u64 instruction_pointer; __u64 args[6]; }
_NR, _ARCH, _ARG0_LOW = 0, 4, 16  # args[0]'s low half comes first on a little-endian machine

_X32_SYSCALL_BIT = 0x40000000


class _Arch(NamedTuple):
    audit: int  #: AUDIT_ARCH_* as seccomp_data.arch reports it
    unshare: int
    clone: int
    clone3: int
    fork: tuple[int, ...]  #: fork and vfork, where the architecture has them
    x32: bool  #: whether the x32 ABI shares this arch value (its numbers carry _X32_SYSCALL_BIT)
    #: refused outright: add_key, request_key, keyctl, ptrace, process_vm_readv, process_vm_writev,
    #: kcmp, pidfd_getfd, io_uring_setup
    refused: tuple[int, ...]


_ARCHES = {
    "x86_64": _Arch(
        audit=0xC000003E,
        unshare=272,
        clone=56,
        clone3=435,
        fork=(57, 58),
        x32=True,
        refused=(248, 249, 250, 101, 310, 311, 312, 438, 425),
    ),
    "aarch64": _Arch(
        audit=0xC00000B7,
        unshare=97,
        clone=220,
        clone3=435,
        fork=(),
        x32=False,
        refused=(217, 218, 219, 117, 270, 271, 272, 438, 425),
    ),
}
_ALIASES = {"amd64": "x86_64", "arm64": "aarch64"}


def _machine() -> str:
    machine = platform.machine().lower()
    return _ALIASES.get(machine, machine)


def unsupported() -> str | None:
    """Why this machine gets no filter (a sentence), or None when it gets one."""
    machine = _machine()
    if not sys.platform.startswith("linux"):
        return f"seccomp is Linux's; this is {sys.platform}"
    if machine not in _ARCHES or sys.byteorder != "little" or struct.calcsize("P") != 8:
        return (
            f"this kit builds its seccomp filter for 64-bit x86-64 and AArch64 only, and this is "
            f"{machine or 'an unknown machine'} with a {struct.calcsize('P') * 8}-bit {sys.byteorder}-endian Python"
        )
    return None


def program(machine: str | None = None) -> bytes:
    """The filter as bubblewrap reads it: the ``struct sock_filter`` array, nothing before it."""
    arch = _ARCHES[machine or _machine()]
    code: list[tuple[Any, ...] | str] = [
        ("ld", _ARCH),
        ("jeq", arch.audit, None, "nosys"),
        ("ld", _NR),
    ]
    if arch.x32:
        code.append(("jge", _X32_SYSCALL_BIT, "nosys", None))
    code += [
        ("jeq", arch.unshare, "userns", None),
        ("jeq", arch.clone, "clone", None),
        ("jeq", arch.clone3, "nosys", None),
        *[("jeq", number, "eperm", None) for number in arch.fork + arch.refused],
        ("ret", _RET_ALLOW),
        "userns",
        ("ld", _ARG0_LOW),
        ("jset", CLONE_NEWUSER, "eperm", None),
        ("ret", _RET_ALLOW),
        "clone",
        ("ld", _ARG0_LOW),
        ("jset", CLONE_NEWUSER, "eperm", None),
        ("jset", CLONE_THREAD, "allow", None),
        ("ret", _RET_ERRNO | errno.EPERM),
        "allow",
        ("ret", _RET_ALLOW),
        "eperm",
        ("ret", _RET_ERRNO | errno.EPERM),
        "nosys",
        ("ret", _RET_ERRNO | errno.ENOSYS),
    ]
    return _assemble(code)


def _assemble(code: list[tuple[Any, ...] | str]) -> bytes:
    """Classic BPF from ``code``: strings are labels, jumps name a label or None (the next
    instruction); every jump goes forward, as BPF requires."""
    labels: dict[str, int] = {}
    position = 0
    for item in code:
        if isinstance(item, str):
            labels[item] = position
        else:
            position += 1
    out = []
    position = 0
    opcodes = {"jeq": _JEQ, "jge": _JGE, "jset": _JSET}
    for item in code:
        if isinstance(item, str):
            continue
        position += 1  # jumps count from the next instruction
        if item[0] == "ld":
            out.append(_INSTRUCTION.pack(_LD_W_ABS, 0, 0, item[1]))
        elif item[0] == "ret":
            out.append(_INSTRUCTION.pack(_RET, 0, 0, item[1]))
        else:
            name, value, true, false = item
            offsets = [labels[t] - position if t is not None else 0 for t in (true, false)]
            if not all(0 <= o < 256 for o in offsets):
                raise ValueError(f"jump out of range in {item}")
            out.append(_INSTRUCTION.pack(opcodes[name], offsets[0], offsets[1], value))
    return b"".join(out)


def filter_fd() -> int | None:
    """A new file descriptor to read the filter from (the read end of a pipe holding it, for
    bubblewrap's ``--seccomp``), or None where this machine gets no filter. Not inherited unless
    passed on (``pass_fds``); the caller closes it once bubblewrap has started."""
    if unsupported() is not None:
        return None
    data = program()
    read, write = os.pipe()
    try:
        os.write(write, data)  # far below a pipe's capacity: never blocks
    except BaseException:
        os.close(read)
        raise
    finally:
        os.close(write)
    return read
