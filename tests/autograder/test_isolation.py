"""No isolation, no silent downgrade: what the grader does where bubblewrap is missing, and `doctor`;
and no user namespace inside a sandbox, grading as root or as an ordinary user."""

from __future__ import annotations

import errno
import json
import os
import struct
import subprocess
import sys
from pathlib import Path

import pytest

from minesweeper_kit.sandbox import ImportPolicy, Limits, Sandbox, seccomp
from minesweeper_kit.sandbox.isolation import IsolationUnavailable, require_isolation

AUTOGRADER = str(Path(sys.executable).parent / "autograder")


def run(args: list[str], path: str | None = None, cwd: Path | None = None) -> subprocess.CompletedProcess:
    env = dict(os.environ)
    if path is not None:
        env["PATH"] = path
    return subprocess.run([AUTOGRADER, *args], capture_output=True, text=True, env=env, timeout=600, cwd=cwd)


def test_doctor_names_the_isolation_in_force():
    result = run(["doctor"])
    assert result.returncode == 0, result.stdout + result.stderr
    expected = "bwrap as root" if os.geteuid() == 0 else "bwrap in a user namespace"
    assert f"isolation: {expected}" in result.stdout
    assert "no network" in result.stdout and "holds:" in result.stdout
    assert f"holds: {seccomp.SUMMARY}" in result.stdout
    from minesweeper_kit.sandbox.isolation import MemoryCgroup

    whole = "a memory limit for the sandbox as a whole" in result.stdout
    assert whole == (MemoryCgroup.base() is not None)
    assert whole or "gap:   no cgroup memory controller" in result.stdout or "gap:" in result.stdout


def test_without_bubblewrap_grading_stops_with_a_reason(no_bwrap_path, tmp_path, reference_source):
    submission = tmp_path / "ann.py"
    submission.write_text(reference_source)
    doctor = run(["doctor"], path=no_bwrap_path)
    assert doctor.returncode == 1
    assert "bubblewrap (bwrap) is not installed" in doctor.stdout
    assert "apt-get install bubblewrap" in doctor.stdout
    graded = run(["grade", "--assignment", "hypermines", str(submission), "--results-dir",
                  str(tmp_path / "results"), "--no-progress"], path=no_bwrap_path)
    assert graded.returncode == 3  # not graded: the code never ran, and no score was given
    assert "refusing to run untrusted code without isolation" in graded.stderr
    assert "--isolation none" in graded.stderr or "autograder doctor" in graded.stderr
    from autograder.report import student_dir

    results = json.loads((student_dir(tmp_path / "results", "ann") / "results.json").read_text())
    assert results["extra_data"]["status"] == "not graded" and "score" not in results


def test_isolation_none_grades_anyway_when_asked(no_bwrap_path, tmp_path, reference_source):
    submission = tmp_path / "ann.py"
    submission.write_text(reference_source)
    graded = run(["grade", "--assignment", "hypermines", str(submission), "--results-dir",
                  str(tmp_path / "results"), "--no-progress", "--isolation", "none", "--seed", "4"],
                 path=no_bwrap_path)
    assert graded.returncode == 0, graded.stderr
    assert "20/20" in graded.stdout
    from autograder.report import student_dir

    feedback = (student_dir(tmp_path / "results", "ann") / "feedback.txt").read_text()
    assert "without isolation" in feedback


def test_require_rejects_unknown_modes_and_bwrap_where_missing(monkeypatch):
    with pytest.raises(ValueError, match="isolation must be one of bwrap, none"):
        require_isolation("docker")
    from minesweeper_kit.sandbox import isolation

    isolation.status.cache_clear()
    monkeypatch.setenv("PATH", "/nonexistent")
    try:
        with pytest.raises(IsolationUnavailable, match="bubblewrap .bwrap. is not installed"):
            Sandbox("x = 1")
    finally:
        monkeypatch.undo()
        isolation.status.cache_clear()


# ---------------------------------------------------------------------------- no user namespaces
# Student code with the audit hook off and every import allowed: only the operating system stands
# between it and a new user namespace. It tries every way in, then shows what must still work.
USERNS_ATTEMPT = r"""
import ctypes, errno, os, subprocess, sys, threading


def attempt(clone_nr, clone3_nr):
    libc = ctypes.CDLL(None, use_errno=True)
    libc.syscall.restype = ctypes.c_long

    def result(value):
        return "ok" if value >= 0 else errno.errorcode[ctypes.get_errno()]

    found = {"os_unshare": "absent"}
    if hasattr(os, "unshare"):  # Python 3.12 and later
        try:
            os.unshare(os.CLONE_NEWUSER)
            found["os_unshare"] = "ok"
        except OSError as error:
            found["os_unshare"] = errno.errorcode[error.errno]
    found["unshare"] = result(libc.unshare(0x10000000))
    found["unshare_with_mounts"] = result(libc.unshare(0x10000000 | 0x00020000))
    pid = libc.syscall(clone_nr, 0x10000000 | 17, 0, 0, 0, 0)  # CLONE_NEWUSER | SIGCHLD
    if pid == 0:
        os._exit(0)
    found["clone"] = result(pid)
    if pid > 0:
        os.waitpid(pid, 0)
    args = (ctypes.c_uint64 * 11)()  # struct clone_args
    args[0], args[4] = 0x10000000, 17
    pid = libc.syscall(clone3_nr, ctypes.byref(args), ctypes.sizeof(args))
    if pid == 0:
        os._exit(0)
    found["clone3"] = result(pid)
    if pid > 0:
        os.waitpid(pid, 0)
    ran = []
    thread = threading.Thread(target=ran.append, args=(1,))
    thread.start()
    thread.join()
    found["thread"] = ran == [1]
    try:
        pid = os.fork()
        if pid == 0:
            os._exit(7)
        found["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    except OSError as error:
        found["fork"] = errno.errorcode[error.errno]
    try:
        found["subprocess"] = subprocess.run([sys.executable, "-c", "print(6 * 7)"], capture_output=True,
                                             text=True).stdout.strip()
    except OSError as error:
        found["subprocess"] = errno.errorcode[error.errno]
    vfork = {"x86_64": 58}.get(os.uname().machine)
    if vfork is not None:  # AArch64 has no fork or vfork system call: its C library uses clone
        pid = libc.syscall(vfork)
        if pid == 0:
            os._exit(0)
        found["vfork"] = result(pid)
    pid = libc.syscall(clone_nr, 0x00000100 | 17, 0, 0, 0, 0)  # CLONE_VM | SIGCHLD: a process sharing memory
    if pid == 0:
        os._exit(0)
    found["clone_vm"] = result(pid)
    status = dict(line.split(":", 1) for line in open("/proc/self/status") if ":" in line)
    found["seccomp_mode"] = status["Seccomp"].strip()
    return found
"""
CLONE_NUMBERS = {"x86_64": (56, 435), "aarch64": (220, 435)}
USERNS_REFUSED = {"unshare": "EPERM", "unshare_with_mounts": "EPERM", "clone": "EPERM", "clone3": "ENOSYS",
                  "thread": True, "fork": "EPERM", "subprocess": "EPERM", "clone_vm": "EPERM", "seccomp_mode": "2",
                  **({"vfork": "EPERM"} if os.uname().machine == "x86_64" else {})}
# The same attempt, as a program an ordinary user runs: it prints what the sandbox reported.
AS_USER = """
import json, sys
from minesweeper_kit.sandbox import ImportPolicy, Limits, Sandbox
source, numbers = sys.argv[1], json.loads(sys.argv[2])
with Sandbox(source, audit=False, import_policy=ImportPolicy(denied=frozenset()), limits=Limits(processes=32)) as box:
    print(json.dumps(box.call("attempt", *numbers, timeout=60)))
"""


def _machine_numbers() -> tuple[int, int]:
    if seccomp.unsupported() is not None:
        pytest.skip(f"no seccomp filter here: {seccomp.unsupported()}")
    return CLONE_NUMBERS[os.uname().machine]


def _expected_userns_outcome(found: dict) -> dict:
    expected = dict(USERNS_REFUSED, os_unshare="EPERM" if sys.version_info >= (3, 12) else "absent")
    assert found == expected, f"inside the sandbox: {found}"
    return found


def test_grading_as_root_no_user_namespace_can_be_made(no_survivors):
    if os.geteuid() != 0:
        pytest.skip("grading as root needs root")
    numbers = _machine_numbers()
    with Sandbox(USERNS_ATTEMPT, audit=False, import_policy=ImportPolicy(denied=frozenset()),
                 limits=Limits(processes=32)) as box:
        _expected_userns_outcome(box.call("attempt", *numbers, timeout=60))


def test_grading_as_an_ordinary_user_no_user_namespace_can_be_made(no_survivors):
    numbers = _machine_numbers()
    if os.geteuid() != 0:  # this session is an ordinary user's already
        with Sandbox(USERNS_ATTEMPT, audit=False, import_policy=ImportPolicy(denied=frozenset()),
                     limits=Limits(processes=32)) as box:
            _expected_userns_outcome(box.call("attempt", *numbers, timeout=60))
        return
    from unprivileged import run_python

    _expected_userns_outcome(run_python("user", AS_USER, USERNS_ATTEMPT, json.dumps(numbers)))


def _run_filter(program: bytes, nr: int, arch: int, arg0: int = 0, **more: int) -> int:
    """What the classic BPF ``program`` returns for one system call (a minimal interpreter of the
    instructions the filter uses); ``more`` gives other arguments by position (``arg2=...``)."""
    args = [arg0] + [more.get(f"arg{i}", 0) for i in range(1, 6)]
    data = struct.pack("=iIQ6Q", nr, arch, 0, *args)
    code = [struct.unpack_from("=HBBI", program, offset) for offset in range(0, len(program), 8)]
    accumulator, pc = 0, 0
    while True:
        op, jt, jf, k = code[pc]
        pc += 1
        if op == 0x20:  # ld [k]
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif op == 0x06:  # ret #k
            return k
        elif op in (0x15, 0x35, 0x45):  # jeq, jge, jset #k
            taken = {0x15: accumulator == k, 0x35: accumulator >= k, 0x45: bool(accumulator & k)}[op]
            pc += jt if taken else jf
        else:
            raise AssertionError(f"unexpected instruction {op:#x}")


@pytest.mark.parametrize("machine", ["x86_64", "aarch64"])
def test_the_seccomp_program_refuses_new_processes_and_user_namespaces(machine):
    """The filter, run on made-up system calls: a new process (fork, vfork, clone without
    CLONE_THREAD), a new user namespace, the keyrings and tracing are refused on every path, a
    thread's clone and every other system call are let through, and other ABIs get nothing."""
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    arch, unshare, clone, clone3, other, forks = {
        "x86_64": (0xC000003E, 272, 56, 435, 0, (57, 58)),  # read; fork, vfork
        "aarch64": (0xC00000B7, 97, 220, 435, 63, ()),  # read; no fork or vfork system call
    }[machine]
    # add_key, request_key, keyctl, ptrace, process_vm_readv, process_vm_writev, kcmp, pidfd_getfd,
    # io_uring_setup: numbers from each architecture's system call table
    # perf_event_open, fadvise64, readahead, mincore, cachestat: the same
    refused = {
        "x86_64": (248, 249, 250, 101, 310, 311, 312, 438, 425, 298, 221, 187, 27, 451),
        "aarch64": (217, 218, 219, 117, 270, 271, 272, 438, 425, 241, 223, 213, 232, 451),
    }[machine]
    (preadv2, pwritev2), madvise = {"x86_64": ((327, 328), 28), "aarch64": ((286, 287), 233)}[machine]
    program = seccomp.program(machine)
    assert len(program) % 8 == 0
    thread_flags = 0x003D0F00  # what glibc's pthread_create passes to clone
    cases = {
        (unshare, seccomp.CLONE_NEWUSER): eperm,
        (unshare, seccomp.CLONE_NEWUSER | 0x00020000 | (1 << 40)): eperm,
        (clone, seccomp.CLONE_NEWUSER | 17): eperm,
        (clone3, 0): enosys,
        (unshare, 0x00020000): allow,  # a mount namespace: the kernel itself refuses it without capabilities
        (clone, 17): eperm,  # fork, as the C library makes it
        (clone, 0x00004000 | 0x00000100 | 17): eperm,  # vfork, as posix_spawn makes it: CLONE_VFORK | CLONE_VM
        (clone, thread_flags): allow,
        (clone, thread_flags | seccomp.CLONE_NEWUSER): eperm,
        (other, seccomp.CLONE_NEWUSER): allow,
        **{(number, 0): eperm for number in forks},
        **{(number, 0): eperm for number in refused},
        (434, 0): allow,  # pidfd_open: a pidfd alone reads nothing
        **({(57, 0): allow} if machine == "aarch64" else {}),  # close there, fork on x86-64
    }
    for (nr, flags), expected in cases.items():
        assert _run_filter(program, nr, arch, flags) == expected, (nr, hex(flags))
    for call in (preadv2, pwritev2):  # RWF_NOWAIT asks whether a page is cached, without reading it
        assert _run_filter(program, call, arch, 3, arg5=seccomp.RWF_NOWAIT) == eperm
        assert _run_filter(program, call, arch, 3, arg5=seccomp.RWF_NOWAIT | 0x1) == eperm
        assert _run_filter(program, call, arch, 3, arg5=0x1) == allow  # RWF_HIPRI: an ordinary read
    for advice, expected in ((seccomp.MADV_COLD, eperm), (seccomp.MADV_PAGEOUT, eperm), (4, allow), (8, allow)):
        assert _run_filter(program, madvise, arch, 0, arg2=advice) == expected, advice  # DONTNEED, FREE pass
    assert _run_filter(program, unshare, 0x40000003, seccomp.CLONE_NEWUSER) == enosys  # i386 through int 0x80
    if machine == "x86_64":
        assert _run_filter(program, 0x40000000 | unshare, arch, seccomp.CLONE_NEWUSER) == enosys  # x32
        assert _run_filter(program, 0x40000000, arch) == enosys


def test_doctor_names_the_gap_where_no_filter_is_built(monkeypatch):
    """On a machine the filter is not built for, no sandbox gets one, and the doctor says what that leaves open."""
    from minesweeper_kit.sandbox import isolation

    monkeypatch.setattr(seccomp, "_machine", lambda: "riscv64")
    assert isolation.seccomp_fd() is None
    as_root = isolation._status_as_root("/usr/bin/bwrap", "bubblewrap 0.8.0").describe()
    assert "gap:   sandboxed code may create a user namespace of its own" in as_root
    assert "x86-64 and AArch64 only, and this is riscv64" in as_root
    assert seccomp.SUMMARY not in as_root
    as_user = isolation._status_as_user("/usr/bin/bwrap", "bubblewrap 0.8.0").describe()
    assert "nested ones disabled" in as_user and seccomp.SUMMARY not in as_user
    command = isolation.bwrap_command("/usr/bin/bwrap", ["true"], uid=None, runtime=None, tmp_mb=1, work_mb=1)
    assert "--seccomp" not in command and "--disable-userns" in command
