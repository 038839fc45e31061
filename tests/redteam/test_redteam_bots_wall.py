"""The wall-clock budget of a submission holds for the ``bots`` assignment too.

The README: code that sleeps or blocks a little under the idle guard in every call "is bounded by a
wall-clock budget for the whole submission", the course's ``wall_limit`` (``--wall-limit``). The
hidden tests of ``bots`` play the bot's games in the arena's own sandbox, outside the ``box`` whose
calls the budget stops, so nothing bounds them but the per-move guards: a bot that idles 3 s in
each move, and toggles a flag so that a game goes on to the arena's limit of 4 moves per cell, takes
16 minutes for one beginner game and, over the 100 games of a default grade and the 14 games on
larger boards, weeks, while using a few seconds of CPU time.

Graded through ``autograder grade --bot-games 2 --wall-limit 20`` (9 games in all): the command
must end near the 20 s it was given; it is stopped after 150 s.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys

BOT = '''
import time

from minesweeper_kit.bots import Move


def next_move(view):
    time.sleep(3)  # under the 5 s idle guard: each move alone is let through
    end = time.process_time() + 0.03
    while time.process_time() < end:
        pass
    return Move.flag((0,) * len(view.shape))  # the same flag on and off: the game never ends by itself
'''


def test_a_bot_that_idles_in_every_move_is_stopped_by_the_wall_clock_budget(tmp_path):
    bot = tmp_path / "mallory.py"
    bot.write_text(BOT)
    command = [sys.executable, "-m", "autograder.cli", "grade", "--assignment", "bots", str(bot), "--results-dir",
               str(tmp_path / "results"), "--bot-games", "2", "--wall-limit", "20", "--no-progress", "-j", "1",
               "--seed", "3"]
    process = subprocess.Popen(command, cwd=tmp_path, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               start_new_session=True)
    try:
        out, err = process.communicate(timeout=150)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError(
            "a bot idling 3 s a move was still being graded 150 s after a --wall-limit of 20 s"
        ) from None
    finally:
        if process.poll() is None:
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
    assert process.returncode == 0, out[-2000:] + err[-2000:]
