"""The reference solver against a brute-force enumerator on small random positions.

The enumerator in this file lists every placement of all the mines among the covered cells and
keeps those that agree with every open number; from those it knows the certainly safe cells, the
certain mines and each cell's exact mine probability. The solver must agree exactly.
"""

from __future__ import annotations

import random

import numpy as np
import pytest

from minesweeper_kit import Game
from minesweeper_kit.arena import view_of
from minesweeper_kit.bots import Action, Move, ReferenceSolver, analyse

from bruteforce_enumerator import brute_force


def random_position(rng: random.Random):
    rows, cols = rng.choice([(3, 4), (4, 4), (4, 5), (5, 5), (3, 6)])
    torus = rng.random() < 0.3
    charged = rng.random() < 0.35
    cells = rows * cols
    mines = rng.randint(2, min(7, cells // 2))
    mine_cells = rng.sample(range(cells), mines)
    coords = [divmod(m, cols) for m in mine_cells]
    charges = None
    if charged:
        charges = np.array([[rng.choice([c for c in range(-10, 2) if c != 0]) for _ in range(cols)]
                            for _ in range(rows)], dtype=np.int64)
    game = Game.from_mines((rows, cols), coords, charges=charges, torus=torus)
    safe_cells = [c for c in range(cells) if c not in mine_cells]
    for c in rng.sample(safe_cells, rng.randint(1, max(1, len(safe_cells) - 1))):
        if game.state != "ongoing":
            break
        if rng.random() < 0.6:
            game.dig(divmod(c, cols))
    if game.state != "ongoing" or game.revealed_count == 0:
        return None
    return game


POSITIONS = []
_rng = random.Random(2024)
while len(POSITIONS) < 120:
    g = random_position(_rng)
    if g is not None:
        POSITIONS.append(g)


@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_analysis_matches_brute_force(index):
    game = POSITIONS[index]
    view = view_of(game, [])
    safe, mines, prob = brute_force(view)
    got = analyse(view)
    assert got.safe == safe
    assert got.mines == mines
    for cell, p in prob.items():
        if cell not in safe and cell not in mines:
            assert got.probability[cell] == pytest.approx(p, abs=1e-9)


@pytest.mark.parametrize("index", range(len(POSITIONS)))
def test_solver_takes_a_certain_safe_cell_and_never_a_certain_mine(index):
    game = POSITIONS[index]
    view = view_of(game, [Move.dig(0, 0)])  # not a fresh game: the solver must reason
    safe, mines, prob = brute_force(view)
    move = ReferenceSolver().next_move(view)
    flat = move.cell[0] * view.shape[1] + move.cell[1]
    assert move.action is Action.DIG
    assert flat not in mines
    assert not view.opened[move.cell]
    if safe:
        assert flat in safe
    else:
        lowest = min(prob[c] for c in prob if c not in mines)
        assert prob[flat] <= lowest + 0.002 + 1e-9


def test_solver_wins_a_board_that_needs_no_guess():
    # Mines at (0,0) and (0,2) on a 3x3 board: after digging the bottom row everything follows.
    game = Game.from_mines((3, 3), [(0, 0), (0, 2)])
    game.dig((2, 1))
    solver = ReferenceSolver()
    moves = [Move.dig(2, 1)]
    while game.state == "ongoing":
        move = solver.next_move(view_of(game, moves))
        moves.append(move)
        assert move.action is Action.DIG
        game.dig(move.cell)
    assert game.state == "victory"
