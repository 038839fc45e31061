"""The CPU battery: no CPU time escapes the count. A submission that ignores SIGCHLD and forks
burners, a double fork, every way to start a process, threads that end between two readings, and
a process that exits after each burn: each is refused a process or has all its time counted, so
the one over its budget meets it; a sandboxed bot that thinks in a forked child gets no free time
either. Graded as root and as an unprivileged user, side by side, with a CPU budget of its own
(``CPU_BUDGET``, smaller than the other batteries': the attacks' burns scale with it)."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

import redteam_cases as cases
from redteam_checks import check_case
from redteam_harness import MODES


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("case", cases.CPU_BATTERY, ids=[c.name for c in cases.CPU_BATTERY])
def test_no_cpu_time_escapes_the_count(cpu_runs, case, mode):
    check_case(cpu_runs[mode], case)


@pytest.mark.parametrize("mode", MODES)
def test_the_cpu_battery_finished_and_left_no_process(cpu_runs, mode):
    run = cpu_runs[mode]
    assert run.exit_code == 0 and run.error == "", (run.exit_code, run.error[-3000:], run.output[-2000:])
    assert run.survivors == []


# ---------------------------------------------------------------------------- a bot thinking elsewhere
#: A bot that switches its audit hook off, has its children reaped by the kernel and thinks for 3 s
#: of CPU time per move in 60 short-lived children; refused a child, it thinks in its own process.
THINKING_BOT = """
import errno as _errno, os as _os, signal as _signal, sys as _sys, time as _time


def _unhook():
    frame = _sys._getframe(0)
    while frame is not None:
        owner = frame.f_locals.get("self")
        if owner is not None and hasattr(owner, "runner_guard"):
            owner.runner_guard.active = False
            return
        frame = frame.f_back
    raise LookupError("no guard on the stack")


_unhook()
_signal.signal(_signal.SIGCHLD, _signal.SIG_IGN)


def _think(seconds):
    end = _time.process_time() + seconds
    while _time.process_time() < end:
        pass


def next_move(view):
    try:
        for _ in range(60):
            if _os.fork() == 0:
                _think(0.05)
                _os._exit(0)
            _time.sleep(0.06)
    except OSError as error:
        print("fork: " + _errno.errorcode[error.errno], flush=True)
        _think(3.0)
    return (False, (1, 1))
"""

#: Plays one move of the bot (the path in argv[1]) in the arena's sandbox; prints what became of it.
PLAY_ONE_MOVE = """
import json, sys
import numpy as np
from minesweeper_kit.arena.runners import BotError, SandboxRunner
from minesweeper_kit.bots.view import BotView

runner = SandboxRunner(sys.argv[1], move_timeout=1.0)
view = BotView((9, 9), 10, np.full((9, 9), -1), np.ones((9, 9)), False)
try:
    runner.new_game()
    runner.next_move(view)
    outcome = {"kind": "moved"}
except BotError as error:
    outcome = {"kind": error.kind, "message": str(error)}
outcome["cpu_seconds"] = runner.box.cpu_seconds()
outcome["stdout"] = runner.box.output()[0]
runner.close()
print(json.dumps(outcome))
"""


def _play_one_move(mode: str, bot: Path) -> dict:
    """The outcome of the bot's first move, graded as root here or as the unprivileged user."""
    command = [sys.executable, "-c", PLAY_ONE_MOVE, str(bot)]
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "LANG": "C.UTF-8", "HOME": str(bot.parent),
           "TMPDIR": str(bot.parent), "PYTHONDONTWRITEBYTECODE": "1"}
    if os.environ.get("MINESWEEPER_SANDBOX_TAG"):
        env["MINESWEEPER_SANDBOX_TAG"] = os.environ["MINESWEEPER_SANDBOX_TAG"]
    if mode == "user":
        from unprivileged import UNPRIVILEGED_UID, unprivileged_prefix

        os.chown(bot.parent, UNPRIVILEGED_UID, UNPRIVILEGED_UID)
        command = unprivileged_prefix(bot.parent) + command
    done = subprocess.run(command, capture_output=True, text=True, timeout=300, cwd="/", env=env)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.mark.parametrize("mode", MODES)
def test_a_bot_that_thinks_in_a_forked_child_gets_no_free_time(mode):
    if os.geteuid() != 0:
        pytest.fail("the red-team suite starts as root: it plays as root and, through setpriv, as an ordinary user")
    folder = Path(tempfile.mkdtemp(prefix="thinking-bot-"))
    try:
        os.chmod(folder, 0o755)
        bot = folder / "thinker.py"
        bot.write_text(textwrap.dedent(THINKING_BOT))
        os.chmod(bot, 0o644)
        outcome = _play_one_move(mode, bot)
    finally:
        shutil.rmtree(folder, ignore_errors=True)
    assert outcome["kind"] == "timeout", outcome
    assert outcome["message"] == "no move within 1 s of CPU time", outcome
    assert outcome["stdout"].strip() == "fork: EPERM", outcome
    assert outcome["cpu_seconds"] >= 1.0, outcome
