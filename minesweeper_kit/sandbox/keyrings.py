"""Kernel keyrings: the one piece of per-process state no namespace of bubblewrap's covers.

A process inherits its parent's *session keyring* (a login's keyring, where tools keep
credentials), and every process of a uid shares that uid's *user keyring*, which outlives the
processes that filled it. So each sandbox starts in a fresh, empty session keyring of its own
(joined before the program starts, by the parent), and under bubblewrap the sandbox's seccomp
filter refuses every keyring system call (``seccomp.py``): nothing one sandbox could leave in its
uid's user keyring reaches the next sandbox leased the same uid, since neither can touch it.
Without the filter (``isolation="none"``, trusted code) the child empties its uid's user keyrings
before it loads any student code.

Standard library only: the child imports this file from its runtime folder too.
"""

import ctypes
import errno
import os

# keyctl(2) has no wrapper in the C library (libkeyutils provides one, but is seldom installed),
# so it is called by number. The asm-generic table serves arm64, riscv64 and loongarch64.
_KEYCTL_NUMBERS = {
    "x86_64": 250,
    "amd64": 250,
    "i386": 288,
    "i686": 288,
    "aarch64": 219,
    "arm64": 219,
    "riscv64": 219,
    "loongarch64": 219,
}
_JOIN_SESSION_KEYRING = 1
_CLEAR = 7
_USER_KEYRING = -4
_USER_SESSION_KEYRING = -5

KEYCTL = _KEYCTL_NUMBERS.get(os.uname().machine.lower())  # not platform: every child imports this
_libc = ctypes.CDLL(None, use_errno=True)


def supported() -> bool:
    """Whether this machine's architecture is one whose keyctl number is known here."""
    return KEYCTL is not None


def _keyctl(operation: int, *args) -> int:
    if KEYCTL is None:
        raise OSError(errno.ENOSYS, f"keyctl's system call number on {os.uname().machine} is not known")
    ctypes.set_errno(0)
    result = _libc.syscall(KEYCTL, operation, *args)
    return result if result >= 0 else -ctypes.get_errno()


def join_new_session_keyring() -> None:
    """Leave the inherited session keyring for a new, empty, anonymous one.

    Safe to call between fork and exec. A kernel built without keyrings has nothing to leave.
    """
    result = _keyctl(_JOIN_SESSION_KEYRING, None)
    if result == -errno.ENOSYS:
        return
    if result < 0:
        raise OSError(-result, "could not give the sandbox a session keyring of its own: " + os.strerror(-result))


_GET_KEYRING_ID = 0


def refused() -> bool:
    """Whether this process may not use keyrings at all (the sandbox's seccomp filter: ``EPERM``)."""
    return _keyctl(_GET_KEYRING_ID, _USER_KEYRING, 0) == -errno.EPERM


def clear_user_keyrings() -> list[str]:
    """Empty this uid's user and user-session keyrings, as far as their permissions allow.

    Returns the ones that could not be emptied (a sandbox can take away its own write
    permission; what it left there stays unreachable to a later sandbox that does not go
    looking, which no honest submission does).
    """
    left = []
    for name, ring in (("user", _USER_KEYRING), ("user-session", _USER_SESSION_KEYRING)):
        result = _keyctl(_CLEAR, ring)
        if result < 0 and result != -errno.ENOSYS:
            left.append(f"{name}: {os.strerror(-result)}")
    return left
