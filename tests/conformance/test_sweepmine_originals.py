"""Sweepmine.TM's original files: the Expert game log replays to its WIN and is written back
byte for byte; the grader's debug input and a bot's torus position are read as the task defines.

The data is the kit's own copy in autograder/instructor/data/originals/sweepmine (see the README
there).
"""

from __future__ import annotations

import dataclasses
from pathlib import Path

from minesweeper_kit.formats import sweepmine

ORIGINALS = Path(__file__).resolve().parents[2] / "autograder" / "instructor" / "data" / "originals" / "sweepmine"


def original(name: str) -> str:
    assert ORIGINALS.is_dir(), f"the original Sweepmine data is missing: {ORIGINALS}"
    with open(ORIGINALS / name, encoding="utf-8", newline="") as f:
        return f.read()


def test_log_is_written_back_byte_for_byte() -> None:
    text = original("sweepmine.out.example")
    assert sweepmine.write_log(sweepmine.read_log(text)) == text


def test_log_header_grids_and_moves() -> None:
    text = original("sweepmine.out.example")
    lines = text.splitlines()
    log = sweepmine.read_log(text)
    assert (log.rows, log.cols, log.mines) == (16, 30, 99)
    assert (log.torus, log.random_charges, log.debug) == (False, False, False)
    assert log.result == "WIN" and lines[-1] == "WIN"
    # Header, 16 grid rows, 16 charge rows, the moves, the verdict: one line each.
    assert len(log.moves) == len(lines) - 1 - 16 - 16 - 1 == 286
    assert log.moves[-1] == tuple(int(v) for v in lines[-2].split())
    mines_in_text = sum(v == "101" for line in lines[1:17] for v in line.split())
    assert mines_in_text == 99
    assert all(set(line.split()) == {"1"} for line in lines[17:33])


def test_log_replays_to_its_win_on_the_last_move() -> None:
    log = sweepmine.read_log(original("sweepmine.out.example"))
    game = log.replay()
    assert game.state == "victory"
    assert game.mine_count == 99
    assert int(game.revealed.sum()) == 16 * 30 - 99
    before_last = dataclasses.replace(log, moves=log.moves[:-1]).replay()
    assert before_last.state == "ongoing"


def test_grader_debug_input() -> None:
    data = sweepmine.read_grader_input(original("sample_grader_input.txt"))
    assert (data.rows, data.cols, data.mines) == (3, 3, 1)
    assert (data.torus, data.random_charges, data.debug) == (False, False, True)
    assert data.grid == [[1, 1, 1], [1, 101, 1], [1, 1, 1]]
    assert data.charges == [[1, 1, 1]] * 3
    game = data.to_game()
    assert game.mines.tolist() == [[False, False, False], [False, True, False], [False, False, False]]
    assert game.dig((0, 0)) == 1  # a 1 next to the mine: no flood
    assert game.state == "ongoing"


def test_weighted_torus_position_and_answer() -> None:
    position = sweepmine.read_position(original("weighted_torus_ungraded.input.txt"))
    assert (position.rows, position.cols, position.mines, position.torus) == (4, 4, 4, True)
    assert position.grid[0] == [-6, 100, 100, 101]
    assert position.grid[3] == [101, -11, 101, -14]
    assert position.charges[0] == [1, -9, -6, -3]
    assert position.charges[3] == [-3, -8, 1, -7]
    t, x, y = sweepmine.read_move(original("weighted_torus_ungraded.output.txt"))
    assert (t, x, y) == (1, 3, 1)  # toggle a flag at row 3, column 1 (1-indexed)
    assert position.grid[x - 1][y - 1] == 100  # on a cell the bot has not uncovered
