"""The random, baseline and terminal (human) bots."""

from __future__ import annotations

import numpy as np

from minesweeper_kit import Game
from minesweeper_kit.arena import view_of
from minesweeper_kit.bots import BaselineBot, HumanBot, Move, RandomBot


def test_human_bot_reprompts_until_a_legal_move_and_reads_flags():
    game = Game.from_mines((3, 4), [(0, 0)])
    answers = iter(["9 9", "hello", "1", "f 1 2", "2 3"])
    shown = []
    bot = HumanBot(read=lambda prompt: next(answers), write=shown.append)
    assert bot.next_move(view_of(game, [])) == Move.flag(1, 2)
    assert bot.next_move(view_of(game, [])) == Move.dig(2, 3)
    text = "\n".join(shown)
    assert "coordinate 0 must be in 0..2, got 9" in text
    assert "not a move: 'hello'" in text and "give 2 coordinates, got 1" in text
    assert "mines 1, flags 0" in text


def test_random_bot_only_digs_covered_unflagged_cells():
    game = Game.from_mines((2, 3), [(0, 0)])
    game.dig((1, 2))  # opens the right-hand side
    game.toggle_flag((0, 0))
    view = view_of(game, [])
    covered = {tuple(int(v) for v in c) for c in np.argwhere(view.unknown)}
    seen = {RandomBot(seed=s).next_move(view).cell for s in range(40)}
    assert seen == covered


def test_baseline_plays_what_a_single_number_proves():
    # 1x4 board, one mine at the left end, cells open one at a time: the 0 at column 2 proves
    # columns 1 and 3 safe, and the baseline takes the first of them.
    game = Game.from_mines((1, 4), [(0, 0)], reveal="single")
    game.dig((0, 2))
    assert BaselineBot(seed=1).next_move(view_of(game, [Move.dig(0, 2)])) == Move.dig(0, 1)
    # After column 1 opens (a 1), the only covered cells are the mine and column 3: the 1 proves
    # column 0 a mine, so the baseline digs column 3 and never the mine.
    game.dig((0, 1))
    for seed in range(10):
        assert BaselineBot(seed=seed).next_move(view_of(game, [Move.dig(0, 2), Move.dig(0, 1)])) == Move.dig(0, 3)
