"""Hostile bot files run in the autograder's sandbox: each loses its games, never the arena run."""

from __future__ import annotations

import textwrap

import pytest

from minesweeper_kit.arena import Rules, play_games

HOSTILE = {
    "hangs": ("timeout", """
        def next_move(view):
            while True:
                pass
    """),
    "raises": ("crash", """
        def next_move(view):
            raise RuntimeError("bot bug")
    """),
    "exits": ("crash", """
        import os
        def next_move(view):
            os._exit(3)
    """),
    "off_the_board": ("illegal", """
        def next_move(R, C, N, grid, charge, T):
            return (False, (R + 1, 1))
    """),
    "digs_an_open_cell": ("illegal", """
        def next_move(R, C, N, grid, charge, T):
            return (False, (5, 5))
    """),
    "answers_nonsense": ("illegal", """
        def next_move(view):
            return "dig 3 4"
    """),
    # Patches the child-side driver to bypass its checks: the arena's own checks must hold.
    "answers_hugely": ("crash", """
        import minesweeper_kit.bots.botfile as driver
        driver.answer = lambda bot, view: ["dig", ["x" * 12_000_000]]  # over the 8 MiB limit, cheap to build
        def next_move(view):
            print("x" * 5_000_000)
    """),
    "answers_a_forged_move": ("illegal", """
        import minesweeper_kit.bots.botfile as driver
        driver.answer = lambda bot, view: ["explode", [0, 0]]
        def next_move(view):
            pass
    """),
    "eats_memory": ("crash", """
        def next_move(view):
            hog = bytearray(8 * 1024 ** 3)
            return None
    """),
    "does_not_load": ("crash", """
        def next_move(view)
            return None
    """),
}


#: The move time limit of a bot that hangs: it burns all of it, so it is short. Every other call
#: these bots make answers in a few milliseconds.
HANG_TIMEOUT = 0.25


@pytest.mark.parametrize("name", sorted(HOSTILE))
def test_hostile_bot_loses_every_game_with_a_clear_reason(tmp_path, name):
    reason, source = HOSTILE[name]
    path = tmp_path / f"{name}.py"
    path.write_text(textwrap.dedent(source))
    result = play_games(path, Rules.preset("beginner"), 2, seed=4, sandboxed=True,
                        move_timeout=HANG_TIMEOUT if reason == "timeout" else 1.0, progress=False)
    assert result.games == 2 and result.wins == 0
    assert [r.reason for r in result.records] == [reason, reason], [r.detail for r in result.records]
    assert all(r.detail for r in result.records)


def test_a_crashing_bot_in_parallel_workers_still_completes_the_run(tmp_path):
    path = tmp_path / "flaky.py"
    path.write_text(textwrap.dedent("""
        import random
        calls = 0
        def next_move(R, C, N, grid, charge, T):
            global calls
            calls += 1
            if calls % 3 == 0:
                raise ValueError("every third move fails")
            cells = [(x, y) for x in range(1, R + 1) for y in range(1, C + 1) if grid[x][y] == 100]
            return (False, random.choice(cells))
    """))
    result = play_games(path, Rules.preset("beginner"), 6, seed=9, jobs=2, sandboxed=True, move_timeout=2.0,
                        progress=False)
    assert result.games == 6
    assert set(result.reasons) <= {"crash", "mine", "won"} and "crash" in result.reasons


FIRST_COVERED_BOT = """
from minesweeper_kit.bots import VIEW_UNKNOWN, Move


def next_move(view):
    grid = view.grid
    for index, value in enumerate(grid.flat):
        if value == VIEW_UNKNOWN:
            cell = tuple(int(i) for i in __import__("numpy").unravel_index(index, grid.shape))
            return Move.dig(*cell)
"""


def test_a_well_behaved_sandboxed_bot_plays_normally(tmp_path):
    path = tmp_path / "first_covered.py"
    path.write_text(FIRST_COVERED_BOT)
    sandboxed = play_games(path, Rules.preset("beginner"), 3, seed=8, sandboxed=True, progress=False)
    trusted = play_games(path, Rules.preset("beginner"), 3, seed=8, progress=False)
    assert [(r.won, r.moves, r.reason) for r in sandboxed.records] == [(r.won, r.moves, r.reason) for r in trusted.records]
    assert set(sandboxed.reasons) <= {"won", "mine"}


@pytest.mark.parametrize("reach", [
    "from minesweeper_kit.bots import ReferenceSolver",
    "from minesweeper_kit.bots.solver import ReferenceSolver",
    "import importlib; ReferenceSolver = importlib.import_module('minesweeper_kit.bots.solver').ReferenceSolver",
    "from minesweeper_kit.arena import load_bot; ReferenceSolver = lambda: load_bot('reference')",
    "import runpy; ReferenceSolver = runpy.run_path(__import__('minesweeper_kit').__file__.rsplit('/', 1)[0]"
    " + '/bots/solver.py')['ReferenceSolver']",
])
def test_no_import_path_reaches_the_judge_from_the_sandbox(tmp_path, reach):
    path = tmp_path / "borrowed.py"
    path.write_text(f"{reach}\n\ndef make_bot():\n    return ReferenceSolver()\n")
    result = play_games(path, Rules.preset("beginner"), 2, seed=8, sandboxed=True, progress=False)
    assert result.reasons == {"crash": 2}
    assert all(("ImportError" in r.detail or "ModuleNotFoundError" in r.detail or "FileNotFoundError" in r.detail)
               for r in result.records), [r.detail for r in result.records]


@pytest.mark.parametrize("second_call,lost_to", [("while True: pass", "timeout"), ("os._exit(3)", "crash")])
def test_a_raising_bot_keeps_its_child_and_a_hung_or_dead_one_gets_a_fresh_one(tmp_path, second_call, lost_to):
    """The count of calls lives in the child: it goes on after the bot's own exception (no new
    sandbox for every game an unfinished bot loses) and starts again after a time-out or a death."""
    path = tmp_path / "counting.py"
    path.write_text(textwrap.dedent(f"""
        import os
        calls = 0
        def next_move(view):
            global calls
            calls += 1
            if calls == 2:
                {second_call}
            raise RuntimeError(f"call {{calls}} in this child")
    """))
    result = play_games(path, Rules.preset("beginner"), 5, seed=4, sandboxed=True,
                        move_timeout=HANG_TIMEOUT if lost_to == "timeout" else 1.0, progress=False)
    assert [r.reason for r in result.records] == ["crash", lost_to, "crash", lost_to, "crash"]
    counted = [r.detail for r in result.records if "in this child" in r.detail]
    assert [("call 1" in d, "call 3" in d) for d in counted] == [(True, False)] * 3, counted
