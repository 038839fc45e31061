"""A run of the suite always ends, with every result, when a test crashes its worker or runs away
with memory.

Each test here starts `make test`'s own recipe (the Makefile's pytest options, lint skipped) on a
small folder of tests, with this suite's conftest.py loaded as a plugin (``-p conftest``): its
scheduler (group_scheduling.py) and its memory bound (memory_bound.py). The number of workers is
not the subject, so each run has as few as its case needs (``PYTEST_JOBS``): two where a crashed
or ended worker must be replaced while another goes on, one for the run started in the background.
A run that hangs is stopped at ``LIMIT`` and the test fails.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest
from memory_bound import BOUND_VARIABLE

REPO = Path(__file__).resolve().parents[1]
#: A run of these few small tests that has not ended by then has hung.
LIMIT = 60
#: What the summary says of each test (pytest ``-rA``): the file's name and the test's, without the
#: folder or pytest-xdist's ``@group`` suffix.
OUTCOME = re.compile(r"^(PASSED|FAILED|ERROR) (?:\S*/)?([^\s/@]+::[^\s@]+)", re.M)

SMALL = '''
def test_one():
    pass

def test_two():
    pass
'''
CRASHES = {
    # a worker ended in the middle of its file, at the start and at the end of one
    "test_exit.py": '''
import os

def test_before():
    pass

def test_dies():
    os._exit(3)

def test_after():
    pass
''',
    "test_kill.py": '''
import os
import signal

def test_dies():
    os.kill(os.getpid(), signal.SIGKILL)

def test_after():
    pass
''',
    "test_segfault.py": '''
import ctypes

def test_before():
    pass

def test_dies():
    ctypes.string_at(0)
''',
}
HOGS = '''
import subprocess
import sys

KEPT = []

def test_before():
    pass

def test_grows():
    held = []
    for _ in range(400):  # 4 GB at most, should the bound not hold
        held.append(bytearray(10**7))

def test_starts_a_process_that_grows():
    subprocess.run([sys.executable, "-c", "held = [bytearray(10**7) for _ in range(400)]"], check=True)

def test_keeps_what_it_took():
    try:
        for _ in range(400):
            KEPT.append(bytearray(10**7))
    finally:  # stopped just past the bound, the block on its way is dropped: keep more than that
        KEPT.append(bytearray(10**8))

def test_after():
    pass
'''


#: Starts a command with SIGINT ignored, as a shell starts a job in the background (and an ignored
#: signal stays ignored across exec).
SIGINT_IGNORED = [sys.executable, "-c", "import os, signal, sys; signal.signal(signal.SIGINT, signal.SIG_IGN); "
                  "os.execvp(sys.argv[1], sys.argv[1:])"]
CTRL_C = '''
import signal
import subprocess
import sys

def test_a_command_started_by_a_test_is_stopped_by_ctrl_c():
    shown = subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT))"],
                           capture_output=True, text=True, check=True).stdout.strip()
    assert shown == str(signal.default_int_handler), shown
'''


def make_test(folder: Path, tmp_path: Path, background: bool = False,
              **environment: str) -> tuple[str, dict[str, set[str]]]:
    """Run `make test` on ``folder`` (``background``: started as a shell's background job): its
    output, and the tests by outcome."""
    # No hypothesis plugin: the inner tests use none, and importing it costs every process 0.1 to 0.3 s
    # of CPU (about a second where its byte-code is not cached).
    arguments = (f"-p conftest -p no:cacheprovider -p no:hypothesispytest -rA --basetemp={tmp_path / 'basetemp'} "
                 f"{folder}")
    env = {**os.environ, "PYTHONPATH": str(REPO / "tests"), **environment}
    try:
        done = subprocess.run([*(SIGINT_IGNORED if background else []),
                               "make", "--no-print-directory", "-o", ".venv/.installed-test", "test", "MAKE=true",
                               f"PY={sys.executable}", f"PYTEST_ARGS={arguments}"],
                              cwd=REPO, env=env, capture_output=True, text=True, timeout=LIMIT,
                              start_new_session=True)
    except subprocess.TimeoutExpired as hung:
        out = hung.stdout.decode(errors="replace") if isinstance(hung.stdout, bytes) else str(hung.stdout)
        pytest.fail(f"the run had not ended after {LIMIT} s:\n{out[-3000:]}")
    outcomes: dict[str, set[str]] = {}
    for outcome, nodeid in OUTCOME.findall(done.stdout):
        outcomes.setdefault(outcome, set()).add(nodeid)
    return done.stdout + done.stderr, outcomes


def small_tests(folder: Path, count: int) -> set[str]:
    for number in range(count):
        (folder / f"test_small_{number}.py").write_text(SMALL)
    return {f"test_small_{n}.py::test_{which}" for n in range(count) for which in ("one", "two")}


@pytest.fixture
def folder(tmp_path) -> Path:
    made = tmp_path / "inner"
    made.mkdir()
    (made / "pytest.ini").write_text("[pytest]\n")
    return made


def test_a_crashed_worker_fails_its_test_and_the_run_ends_with_every_other(folder, tmp_path):
    for name, source in CRASHES.items():
        (folder / name).write_text(textwrap.dedent(source))
    others = small_tests(folder, 4) | {"test_exit.py::test_before", "test_exit.py::test_after",
                                       "test_kill.py::test_after", "test_segfault.py::test_before"}
    out, outcomes = make_test(folder, tmp_path, PYTEST_JOBS="2")
    assert outcomes.get("FAILED") == {f"{name}::test_dies" for name in CRASHES}, out[-4000:]
    assert outcomes.get("PASSED") == others, out[-4000:]
    assert len(re.findall(r"crashed while running '[^']*test_dies", out)) >= 3, out[-4000:]


def test_a_test_over_the_memory_bound_fails_alone_with_the_memory_it_reached(folder, tmp_path):
    (folder / "test_hogs.py").write_text(HOGS)
    others = small_tests(folder, 3) | {"test_hogs.py::test_before", "test_hogs.py::test_after"}
    out, outcomes = make_test(folder, tmp_path, PYTEST_JOBS="2", **{BOUND_VARIABLE: "500M"})
    hogs = {"test_grows", "test_starts_a_process_that_grows", "test_keeps_what_it_took"}
    assert outcomes.get("FAILED") == {f"test_hogs.py::{name}" for name in hogs}, out[-4000:]
    assert outcomes.get("PASSED") == others, out[-4000:]
    for name in hogs:
        reached = re.search(rf"{name}\S* reached ([\d.]+) (MiB|GiB) of memory in its processes, over the bound of "
                            r"500 MiB", out)
        assert reached, (name, out[-4000:])
        # stopped on its way: each would have taken 4 GB
        assert float(reached[1]) * (1024 if reached[2] == "GiB" else 1) < 3000, reached[0]
    # the memory a test kept after it failed ends its worker: the test is reported as a crash too
    assert "still held after the test ended, so the worker ended" in out, out[-4000:]


def test_a_run_started_in_the_background_still_gives_its_commands_ctrl_c(folder, tmp_path):
    """Started as a shell's background job, the run ignores SIGINT from the start; the commands its
    tests start still get Ctrl+C at its default, as from a terminal (tests/test_signals.py stops
    a batch and `mines lab` with it)."""
    (folder / "test_ctrl_c.py").write_text(CTRL_C)
    others = small_tests(folder, 2)
    out, outcomes = make_test(folder, tmp_path, background=True, PYTEST_JOBS="1")
    assert outcomes.get("PASSED") == others | {"test_ctrl_c.py::test_a_command_started_by_a_test_is_stopped_by_ctrl_c"}, \
        out[-4000:]
