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


#: A bot that spends its time where the budget does not look: 1 s of CPU time while its file loads
#: ("loading the bot is not counted"), then it ends its own process at its first move. The game is
#: lost, the runner is not reusable, and the next game loads the bot again, for free.
RELOADER = '''
import os
import time

end = time.process_time() + 1
while time.process_time() < end:
    pass


def next_move(view):
    os._exit(0)
'''


def test_a_bot_that_dies_after_loading_gets_no_free_cpu_time_for_each_game(tmp_path):
    """Two beginner games and seven on the other boards, with 1.5 s of CPU time for all of the
    bot's games (``bot_cpu_seconds``, scaled down with the bot's load, so that the test costs a few
    seconds). Were the loads not counted, each game would load the bot afresh, 1 s of CPU time a
    time that no budget counts: every one of the 9 games played (and lost to the crash); with the
    default 114 games and the 30 s a load may take, about an hour. Once 1.5 s are spent, the games
    left must be lost to the budget without a sandbox: at most two games can have been loaded and
    lost to the bot's own exit."""
    import re

    from autograder.assignments import get_assignment
    from autograder.grading import grade_submission
    from autograder.submission import read_submission

    bot = tmp_path / "mallory.py"
    bot.write_text(RELOADER)
    report = grade_submission(get_assignment("bots"), read_submission("mallory", bot), seed=3,
                              settings={"bot_games": 2, "bot_cpu_seconds": 1.5})
    assert report.status == "graded", report.causes
    legality = report.tests[0].output
    found = re.search(r"lost to crash \((\d+)\)", legality)
    crashed = int(found.group(1)) if found else 0
    assert crashed <= 2, (
        f"{crashed} games each loaded the bot (1 s of CPU time apiece) under a 1.5 s budget: {legality}")
