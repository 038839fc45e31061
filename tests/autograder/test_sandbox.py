"""The sandbox on its own: plain data only, handles, time limits, output capture, isolation."""

from __future__ import annotations

import contextlib
import errno
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from autograder.assignments import get_assignment
from minesweeper_kit.sandbox.isolation import UID_BASE, UID_SLOTS
from minesweeper_kit.sandbox import (ChildDied, Handle, ImportPolicy, Limits, LoadError, ResultError, Sandbox,
                                StudentError, TimeLimitExceeded)

SMALL = Limits(memory_mb=256, cpu_seconds=30)

SOURCE = '''
class Thing:
    def __init__(self, size):
        self.size = size
        self.state = "ongoing"
    def grow(self, by):
        self.size += by
        return self.size
    def tell(self, word):
        print(word * 2)
        return [self.size]
    def __eq__(self, other):
        return True
    __hash__ = object.__hash__

def plain():
    return (1, 2.5, "x", None, True, [3, (4,)], {"k": (5,)})

def same():
    return Thing(0)

def shout(text):
    print(text)
    return len(text)

def spin():
    while True:
        pass

def nested():
    value = []
    for _ in range(1000):
        value = [value]
    return value

def big_int():
    return 10 ** 5000

def too_large():
    return "x" * 3_000_000

def flood_output():
    for _ in range(200):
        print("y" * 100_000)
    return "done"
'''


@pytest.fixture
def box(no_survivors):
    with Sandbox(SOURCE, limits=Limits(memory_mb=256, cpu_seconds=30, message_bytes=2_000_000)) as sandbox:
        yield sandbox


def test_only_plain_data_comes_back(box):
    assert box.call("plain") == [1, 2.5, "x", None, True, [3, [4]], {"k": [5]}]


def test_objects_stay_in_the_child_behind_handles(box):
    thing = box.call("Thing", 3)
    assert isinstance(thing, Handle) and thing.type_name == "Thing"
    assert box.call_method(thing, "grow", 2) == 5
    assert box.get_attr(thing, "size") == 5
    box.set_attr(thing, "state", "victory")
    assert box.get_attr(thing, "state") == "victory"


def test_an_always_equal_object_never_reaches_a_comparison(box):
    liar = box.call("same")
    assert isinstance(liar, Handle)
    assert liar != [1, 2, 3] and liar != 0 and liar != "ongoing"


def test_student_output_is_captured_apart_from_the_channel(box):
    assert box.call("shout", "hello there") == 11
    value, printed = box.call_captured("shout", "inside")
    assert (value, printed) == (6, "inside\n")
    stdout, stderr = box.output()
    assert "hello there" in stdout and stderr == ""


def test_a_method_can_keep_its_result_and_have_its_output_captured(box):
    thing = box.call("same")
    kept = box.call_method(thing, "tell", "ab", keep=True)
    assert isinstance(kept, Handle)  # a plain list, left in the child because it was asked to
    box.call_method(kept, "append", 9)
    assert box.fetch(kept) == [0, 9]  # the very list the method returned, changed in place
    assert box.call_captured("tell", "xy", handle=thing) == ([0], "xyxy\n")


def test_student_output_is_capped(box):
    assert box.call("flood_output", timeout=20) == "done"
    stdout, _ = box.output()
    assert len(stdout) <= Limits().output_bytes + 100


def test_a_runaway_call_is_killed_and_the_next_call_restarts(box):
    thing = box.call("Thing", 1)
    first_pid = box.pid
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="CPU time limit of 0.25 s exceeded") as raised:
        box.call("spin", timeout=0.25)
    assert raised.value.kind == "cpu"
    assert time.monotonic() - started < 60  # the wall-clock guard (10 x 0.25 + 10 s) never fired first
    assert not box.alive
    assert box.call("plain")[0] == 1
    assert box.pid != first_pid and box.restarts == 1
    with pytest.raises(ChildDied, match="restarted"):
        box.get_attr(thing, "size")


def test_the_budget_clips_every_call(box):
    box.set_budget(0.15)
    with pytest.raises(TimeLimitExceeded, match="CPU time limit of 0.15 s") as raised:
        box.call("spin", timeout=30)
    assert raised.value.kind == "budget"
    assert box.cpu_seconds() >= 0.15


def test_sleeping_code_meets_the_wall_clock_guard(no_survivors):
    with Sandbox("import time\ndef nap():\n    time.sleep(600)\n", idle_seconds=1.0) as sandbox:
        started = time.monotonic()
        with pytest.raises(TimeLimitExceeded, match="used no CPU time for 1 s") as raised:
            sandbox.call("nap", timeout=30)
        assert raised.value.kind == "wall"
        assert time.monotonic() - started < 300  # long before the absolute guard (310 s)
        assert sandbox.cpu_seconds() < 1


def threads_of(pid: int) -> list[int]:
    """Every thread of a process and of all its descendants, by host id."""
    found, todo = [], [pid]
    while todo:
        for task in os.listdir(f"/proc/{todo.pop()}/task"):
            found.append(int(task))
            with open(f"/proc/{task}/task/{task}/children") as handle:
                todo.extend(int(x) for x in handle.read().split())
    return found


@contextlib.contextmanager
def throttled(threads: list[int], share: float):
    """The threads held to ``share`` of one core by a CPU cgroup of their own (cgroup v1's cpu
    controller, as on the machines the suite runs on), then moved back. Needs root."""
    cpu = Path("/sys/fs/cgroup/cpu")
    if not (cpu / "cpu.cfs_quota_us").exists():
        pytest.fail(f"this test needs cgroup v1's cpu controller at {cpu}")
    period = 1_000_000
    group = cpu / f"throttle-test-{os.getpid()}"
    group.mkdir()
    (group / "cpu.cfs_period_us").write_text(str(period))
    (group / "cpu.cfs_quota_us").write_text(str(max(1000, int(share * period))))
    try:
        for thread in threads:
            (group / "tasks").write_text(str(thread))
        yield
    finally:
        for thread in (group / "tasks").read_text().split():
            with contextlib.suppress(OSError):  # gone already
                (cpu / "tasks").write_text(thread)
        group.rmdir()


def test_a_child_starved_of_cpu_is_not_idle(no_survivors):
    """A call whose child is ready to run but gets next to no CPU time, for four times the idle
    guard's wait, is not stopped as idle: it is starved, not sleeping. For those 4 s a CPU cgroup
    holds the child to 0.1 % of a core (less than the guard's 0.02 s of CPU a second); then it
    runs freely again."""
    source = ("import time\n"
              "def work(seconds):\n"
              "    end = time.process_time() + seconds\n"
              "    while time.process_time() < end:\n"
              "        pass\n"
              "    return 'done'\n")
    answer: list = []

    def call(sandbox: Sandbox) -> None:
        try:
            answer.append(sandbox.call("work", 0.2, timeout=30))
        except Exception as error:  # noqa: BLE001 - the test reports it
            answer.append(error)

    with Sandbox(source, idle_seconds=1.0) as sandbox:
        with throttled(threads_of(sandbox.pid), 0.001):
            caller = threading.Thread(target=call, args=(sandbox,))
            caller.start()
            caller.join(4.0)
            assert caller.is_alive(), f"the call ended while the child was throttled: {answer}"
        caller.join(60)
        assert answer == ["done"]


RUNTIME_USER = """
from minesweeper_kit.sandbox import Sandbox, parent
with Sandbox("def f():\\n    return 1\\n") as box:
    assert box.call("f", timeout=10) == 1
print(parent._RUNTIMES["plain"])
"""


def test_the_runtime_folder_goes_when_the_grader_exits(no_survivors, tmp_path):
    """Each grading process builds the children's runtime folder once, in the temporary folder;
    it is removed when that process exits, and a process that was killed before it could remove
    its own has it (and its children's folders) removed by the next one that builds a folder: batch
    after batch leaves nothing behind. A folder whose process still runs is left alone."""
    ended = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    killed = tmp_path / f"minesweeper-sandbox-runtime-plain-{int(ended.stdout)}-abcd1234"
    running = tmp_path / f"minesweeper-sandbox-runtime-kit-{os.getpid()}-abcd1234"
    killed_child = tmp_path / f"minesweeper-sandbox-{int(ended.stdout)}-abcd1234"  # one child's output
    running_child = tmp_path / f"minesweeper-sandbox-{os.getpid()}-abcd1234"
    not_ours = tmp_path / "minesweeper-sandbox-notes"
    for folder in (killed, running, killed_child, running_child, not_ours):
        (folder / "kit").mkdir(parents=True)
        (folder / "child.py").write_text("")
    done = subprocess.run([sys.executable, "-c", RUNTIME_USER], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    folder = Path(done.stdout.strip())
    assert folder.parent == tmp_path and folder.name.startswith("minesweeper-sandbox-runtime-plain-"), done.stdout
    assert not folder.exists(), f"{folder} was left behind"
    assert not killed.exists(), "the folder of a process that ended without removing it was kept"
    assert not killed_child.exists(), "a child's folder of a process that ended without removing it was kept"
    assert running.is_dir() and running_child.is_dir(), "the folder of a running process was removed"
    assert not_ours.is_dir(), "a folder whose name names no process was removed"


FAILED_LOAD = """
import os, tempfile
from minesweeper_kit.sandbox import LoadError, Sandbox
try:
    with Sandbox("raise ValueError('no')\\n"):
        pass
except LoadError:
    pass
print(sorted(n for n in os.listdir(tempfile.gettempdir()) if "runtime" not in n))
"""


def test_a_sandbox_that_fails_to_start_in_a_with_block_leaves_no_folder(no_survivors, tmp_path):
    """Python calls no ``__exit__`` when ``__enter__`` raises: a sandbox whose source does not load
    must remove its folder there, or a long grading process fills the temporary folder."""
    done = subprocess.run([sys.executable, "-c", FAILED_LOAD], capture_output=True, text=True, timeout=120,
                          env={**os.environ, "TMPDIR": str(tmp_path)})
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "[]", done.stdout


def test_the_absolute_wall_clock_guard_stops_a_call_that_trickles(no_survivors):
    # a little CPU now and then keeps the idle guard quiet; the absolute guard still stops it
    source = "import time\ndef trickle():\n    while True:\n        sum(range(200000))\n        time.sleep(0.2)\n"
    with Sandbox(source, wall_factor=1.0, wall_slack=1.0, idle_seconds=60) as sandbox:
        with pytest.raises(TimeLimitExceeded, match="no answer within 3 s") as raised:
            sandbox.call("trickle", timeout=2)
        assert raised.value.kind == "wall"


NO_NEW_PROCESSES = """import errno, os, threading, time

def fork():
    try:
        pid = os.fork()
    except OSError as error:
        return errno.errorcode[error.errno]
    if pid == 0:
        os._exit(0)
    return "forked"

def burn_in_short_threads(seconds, threads):
    def burn():
        end = time.thread_time() + seconds / threads
        while time.thread_time() < end:
            pass
    for _ in range(threads):
        worker = threading.Thread(target=burn)
        worker.start()
        worker.join()
    return threads
"""


def test_no_process_can_be_created_and_every_thread_counts(no_survivors):
    """The seccomp filter refuses a new process even with the audit hook off and every import
    allowed; the CPU time of threads that have ended, read from the one process, counts in full."""
    with Sandbox(NO_NEW_PROCESSES, audit=False, import_policy=ImportPolicy(denied=frozenset())) as sandbox:
        assert sandbox.call("fork", timeout=10) == "EPERM"
        before = sandbox.cpu_seconds()
        assert sandbox.call("burn_in_short_threads", 0.5, 20, timeout=30) == 20
        assert sandbox.cpu_seconds() - before >= 0.45
        with pytest.raises(TimeLimitExceeded, match="CPU time limit of 0.5 s") as raised:
            sandbox.call("burn_in_short_threads", 5.0, 50, timeout=0.5)
        assert raised.value.kind == "cpu"


def test_without_isolation_the_process_tree_is_still_counted(no_survivors):
    """``isolation="none"`` (trusted code, documented as not isolated) lets the child fork; the CPU
    time of a child that keeps running is found by walking the process tree."""
    source = ("import os\n"
              "def burn_in_child():\n"
              "    if os.fork() == 0:\n"
              "        while True:\n"
              "            pass\n"
              "    import time\n"
              "    time.sleep(30)\n")
    with Sandbox(source, isolation="none", audit=False, import_policy=ImportPolicy(denied=frozenset())) as sandbox:
        with pytest.raises(TimeLimitExceeded, match="CPU time limit of 0.5 s") as raised:
            sandbox.call("burn_in_child", timeout=0.5)
        assert raised.value.kind == "cpu"


def test_a_sandbox_whose_process_cannot_start_gives_everything_back(no_survivors, monkeypatch, tmp_path):
    """Starting the process failing with OSError (bubblewrap or the interpreter gone) is the grader's
    failure, and leaves no pipe, uid lease, filter descriptor or private folder behind."""
    import tempfile

    from minesweeper_kit.sandbox import SandboxUnavailable, lifecycle

    with Sandbox("x = 1"):  # the runtime folder is built once per process: not counted below
        pass

    def refuse(*args, **kwargs):
        raise OSError(errno.ENOENT, "No such file or directory", args[0][0])

    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    descriptors = sorted(os.listdir("/proc/self/fd"))
    with monkeypatch.context() as patch:
        patch.setattr(lifecycle.subprocess, "Popen", refuse)
        sandbox = Sandbox("x = 1")
        with pytest.raises(SandboxUnavailable, match="the sandbox did not start: .*No such file or directory"):
            sandbox.start()
    assert sorted(os.listdir("/proc/self/fd")) == descriptors
    assert list(tmp_path.iterdir()) == []
    sandbox.close()


@pytest.mark.parametrize("how", ["with .. in it", "through a linked folder"])
def test_the_grader_may_be_started_by_any_path_to_its_python(no_survivors, tmp_path, how):
    """`../../.venv/bin/python -m autograder` from a subfolder, or a venv reached through a linked
    folder: the sandbox shows neither that folder nor the link, and runs the interpreter at the
    place it really has."""
    here = Path(sys.executable)
    if how == "with .. in it":
        python = os.path.relpath(here, tmp_path)
        assert ".." in python
    else:
        (tmp_path / "linked").symlink_to(sys.prefix, target_is_directory=True)
        python = str(tmp_path / "linked" / here.relative_to(sys.prefix))
    code = ("from minesweeper_kit.sandbox import Limits, Sandbox\n"
            "with Sandbox('def answer():\\n    return 6 * 7\\n', limits=Limits(memory_mb=256, cpu_seconds=30)) as box:\n"
            "    print(box.call('answer'))\n")
    done = subprocess.run([python, "-c", code], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    assert done.stdout.strip() == "42"


def test_results_that_are_not_plain_enough_are_refused(box):
    with pytest.raises(ResultError, match="nested"):
        box.call("nested")
    with pytest.raises(ResultError):
        box.call("big_int")
    with pytest.raises(ResultError, match="too large"):
        box.call("too_large")


def test_student_exceptions_name_the_line(box):
    with pytest.raises(StudentError, match=r"AttributeError.*no attribute 'missing'"):
        box.call("missing")
    with pytest.raises(StudentError, match=r"TypeError.*line \d+, in grow"):
        box.call_method(box.call("Thing", 1), "grow", "a")


def test_syntax_errors_and_refused_imports_fail_the_load(no_survivors):
    with pytest.raises(LoadError, match=r"SyntaxError.*line 1"):
        Sandbox("def f(:\n  pass\n").start()
    policy = get_assignment("hypermines").import_policy()
    with pytest.raises(LoadError, match="import of 'itertools' is not allowed in the hypermines assignment"):
        Sandbox("import itertools\n", import_policy=policy).start()


def test_import_policy_static_check():
    policy = ImportPolicy(allowed=frozenset({"typing"}), label="x")
    found = policy.violations("import typing\nfrom itertools import chain\n__import__('os')\n")
    assert found == ["line 2: import of 'itertools' is not allowed in x (allowed: typing)",
                     "line 3: import of 'os' is not allowed in x (allowed: typing)"]


def test_bad_limits_are_a_value_error():
    with pytest.raises(ValueError, match="memory_mb"):
        Limits(memory_mb=0)
    with pytest.raises(ValueError, match="filename"):
        Sandbox("x = 1", filename="../evil.py")


# The operating-system layers, tested with the audit hook switched off so that only they stand
# between the submission and the machine. The red-team suite (tests/redteam) goes further.

HOSTILE_OS = '''
import os, socket, sys, time

def whoami():
    return [os.getuid(), os.getgid(), os.getcwd()]

def read(path):
    with open(path) as handle:
        return handle.read()

def connect():
    s = socket.socket()
    s.settimeout(2)
    s.connect(("127.0.0.1", 22))
    return "connected"

def daemon():
    pid = os.fork()
    if pid == 0:
        os.setsid()
        if os.fork() == 0:
            time.sleep(1000)
        os._exit(0)
    os.waitpid(pid, 0)
    return "forked"

def fork_bomb():
    children = 0
    try:
        while True:
            if os.fork() == 0:
                time.sleep(1000)
            children += 1
    except OSError as error:
        return ["stopped", children, error.errno]

def write_results(path):
    with open(path, "w") as handle:
        handle.write("forged")
'''


@pytest.fixture
def bare(no_survivors, tmp_path):
    suite = get_assignment("hypermines").suite_path
    with Sandbox(HOSTILE_OS, audit=False, import_policy=ImportPolicy(denied=frozenset()),
                 limits=Limits(memory_mb=256, processes=12, cpu_seconds=30)) as sandbox:
        yield sandbox, suite


def test_os_layers_run_unprivileged_in_a_fresh_folder(bare):
    box, _ = bare
    assert box.protections[0].startswith("bwrap")
    assert "audit-hook" not in box.protections
    uid, gid, cwd = box.call("whoami")
    assert cwd == "/sandbox/work"
    if os.geteuid() == 0:
        assert UID_BASE <= uid < UID_BASE + UID_SLOTS and gid == uid


def test_os_layers_hide_the_suite(bare):
    box, suite = bare
    with pytest.raises(StudentError, match="FileNotFoundError"):
        box.call("read", str(suite))


def test_os_layers_have_no_network(bare):
    box, _ = bare
    with pytest.raises(StudentError, match="OSError|unreachable|refused"):
        box.call("connect", timeout=10)


def test_os_layers_protect_the_results_folder(bare, tmp_path):
    box, _ = bare
    target = tmp_path / "results.json"
    target.write_text("{}")
    with pytest.raises(StudentError, match="FileNotFoundError|PermissionError|OSError"):
        box.call("write_results", str(target))
    assert target.read_text() == "{}"


def test_os_layers_refuse_new_processes_and_daemons(bare):
    box, _ = bare
    with pytest.raises(StudentError, match="PermissionError"):
        box.call("daemon", timeout=10)
    assert box.call("fork_bomb", timeout=20) == ["stopped", 0, errno.EPERM]


#: Two forked children of 200 MB each beside the answering process would outgrow a 256 MB sandbox
#: made of processes that each stay under it.
FORKED_HOARD = """import os

def hoard():
    for _ in range(2):
        if os.fork() == 0:
            block = b'x' * (200 * 1024 * 1024)
            os._exit(0)
    return "forked"
"""


def test_memory_cannot_be_multiplied_by_forking(no_survivors):
    """The address-space limit covers the whole sandbox: no second process can be made to hold
    memory of its own, so the limit is not multiplied by the process-count limit."""
    with Sandbox(FORKED_HOARD, audit=False, import_policy=ImportPolicy(denied=frozenset()),
                 limits=Limits(memory_mb=256, processes=8, disk_mb=16)) as box:
        with pytest.raises(StudentError, match=r"PermissionError: \[Errno 1\]"):
            box.call("hoard", timeout=30)


def test_a_window_limits_every_call_of_one_test(box):
    box.set_window(0.2)
    with pytest.raises(TimeLimitExceeded, match="CPU time limit of 0.2 s") as raised:
        box.call("spin", timeout=30)
    assert raised.value.kind == "cpu"
    box.set_window(None)
    assert box.call("plain")[0] == 1


def test_a_sandbox_restarted_with_its_window_spent_still_starts(no_survivors):
    """Starting the child is the grader's work: a restart with nothing left of the test's window is
    the student's time limit (raised while loading or calling), never a sandbox that did not start."""
    with Sandbox("def spin():\n    while True:\n        pass\n") as box:
        box.set_window(0.0)
        box.kill()
        with pytest.raises(TimeLimitExceeded) as raised:
            box.call("spin", timeout=10)
        assert raised.value.kind == "cpu" and box.restarts == 1
