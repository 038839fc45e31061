"""The sandbox on its own: plain data only, handles, time limits, output capture, isolation."""

from __future__ import annotations

import os
import time

import pytest

from autograder.assignments import get_assignment
from autograder.sandbox import (ChildDied, Handle, ImportPolicy, Limits, LoadError, ResultError, Sandbox,
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


def test_student_output_is_capped(box):
    assert box.call("flood_output", timeout=20) == "done"
    stdout, _ = box.output()
    assert len(stdout) <= Limits().output_bytes + 100


def test_a_runaway_call_is_killed_and_the_next_call_restarts(box):
    thing = box.call("Thing", 1)
    first_pid = box.pid
    started = time.monotonic()
    with pytest.raises(TimeLimitExceeded, match="time limit exceeded"):
        box.call("spin", timeout=0.5)
    assert time.monotonic() - started < 5
    assert not box.alive
    assert box.call("plain")[0] == 1
    assert box.pid != first_pid and box.restarts == 1
    with pytest.raises(ChildDied, match="restarted"):
        box.get_attr(thing, "size")


def test_deadline_clips_every_call(box):
    box.set_deadline(time.monotonic() + 0.3)
    with pytest.raises(TimeLimitExceeded):
        box.call("spin", timeout=30)


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
# between the submission and the machine. They need root, as on the grading machine and in CI.

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
    assert os.geteuid() == 0, "the operating-system protections are tested as root (as the grader runs)"
    suite = get_assignment("hypermines").suite_path
    with Sandbox(HOSTILE_OS, audit=False, hide=[suite.parent], import_policy=ImportPolicy(denied=frozenset()),
                 limits=Limits(memory_mb=256, processes=40,
                 cpu_seconds=30)) as sandbox:
        yield sandbox, suite


def test_os_layers_run_unprivileged_in_a_fresh_folder(bare):
    box, _ = bare
    assert {"namespaces", "unprivileged"} <= set(box.protections)
    assert "audit-hook" not in box.protections
    uid, gid, cwd = box.call("whoami")
    assert (uid, gid) == (65534, 65534) and cwd.startswith("/") and cwd.endswith("/work")


def test_os_layers_hide_the_suite(bare):
    box, suite = bare
    with pytest.raises(StudentError, match="PermissionError|FileNotFoundError"):
        box.call("read", str(suite))


def test_os_layers_have_no_network(bare):
    box, _ = bare
    with pytest.raises(StudentError, match="OSError|unreachable"):
        box.call("connect", timeout=10)


def test_os_layers_protect_the_results_folder(bare, tmp_path):
    box, _ = bare
    target = tmp_path / "results.json"
    target.write_text("{}")
    os.chmod(tmp_path, 0o755)
    with pytest.raises(StudentError, match="PermissionError"):
        box.call("write_results", str(target))
    assert target.read_text() == "{}"


def test_os_layers_limit_processes_and_kill_daemons(bare):
    box, _ = bare
    assert box.call("daemon", timeout=10) == "forked"
    stopped, children, _ = box.call("fork_bomb", timeout=20)
    assert stopped == "stopped" and children < 40
    # the no_survivors fixture checks that the daemon and the children die with the sandbox
