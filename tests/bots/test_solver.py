"""The reference solver against a brute-force enumerator on small random positions.

The enumerator in this file lists every placement of all the mines among the covered cells and
keeps those that agree with every open number; from those it knows the certainly safe cells, the
certain mines and each cell's exact mine probability. The solver must agree exactly.
"""

from __future__ import annotations

import itertools
import random

import numpy as np
import pytest

from minesweeper_kit import Game
from minesweeper_kit.arena import view_of
from minesweeper_kit.bots import Move, MoveKind, ReferenceSolver, analyse

from bruteforce_enumerator import brute_force, brute_force_with_total, neighbours
from minesweeper_kit.bots.solver import ENDGAME_CONFIGS, PROGRESS_SLACK


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
    safe, mines, prob, total = brute_force_with_total(view)
    move = ReferenceSolver().next_move(view)
    flat = move.cell[0] * view.shape[1] + move.cell[1]
    assert move.action is MoveKind.DIG
    assert flat not in mines
    assert not view.opened[move.cell]
    if safe:
        assert flat in safe
    else:
        # Without a safe cell the policy may trade a little safety for progress (at most
        # PROGRESS_SLACK), or, when few placements remain, follow its exhaustive endgame search.
        lowest = min(prob[c] for c in prob if c not in mines)
        if total > ENDGAME_CONFIGS:
            assert prob[flat] <= lowest + PROGRESS_SLACK + 1e-9


def test_solver_wins_a_board_that_needs_no_guess():
    # Mines at (0,0) and (0,2) on a 3x3 board: after digging the bottom row everything follows.
    game = Game.from_mines((3, 3), [(0, 0), (0, 2)])
    game.dig((2, 1))
    solver = ReferenceSolver()
    moves = [Move.dig(2, 1)]
    while game.state == "ongoing":
        move = solver.next_move(view_of(game, moves))
        moves.append(move)
        assert move.action is MoveKind.DIG
        game.dig(move.cell)
    assert game.state == "victory"


def best_win_chance(placements, cells, number_of, state, opened, memo=None):
    """Test oracle: the best chance to win from `state` (placement ids still possible), trying every
    covered cell not yet opened; a dug cell shows its number; won once no cell is uncertain.
    (`memo` keeps each (state, opened) already worked out: the same position is met by many orders
    of digs.)"""
    memo = {} if memo is None else memo
    key = (tuple(state), opened)
    if key not in memo:
        memo[key] = _best_win_chance(placements, cells, number_of, state, opened, memo)
    return memo[key]


def _best_win_chance(placements, cells, number_of, state, opened, memo):
    uncertain = [c for c in cells if c not in opened
                 and 0 < sum(c in placements[i] for i in state) < len(state)]
    if not uncertain:
        return 1.0
    best = 0.0
    for c in cells:
        if c in opened:
            continue
        groups = {}
        for i in state:
            if c not in placements[i]:
                groups.setdefault(number_of(i, c), []).append(i)
        if not groups:
            continue
        chance = sum(len(g) * best_win_chance(placements, cells, number_of, g, opened | {c}, memo)
                     for g in groups.values()) / len(state)
        best = max(best, chance)
    return best


def test_endgame_search_picks_a_cell_with_the_best_chance_to_win():
    from minesweeper_kit.bots.solver import endgame_choice

    checked = 0
    rng = random.Random(77)
    while checked < 12:
        game = random_position(rng)
        if game is None:
            continue
        view = view_of(game, [Move.dig(0, 0)])
        grid = view.grid.ravel().tolist()
        safe, mines, prob, total = brute_force_with_total(view)
        if safe or total > ENDGAME_CONFIGS or total < 2:
            continue
        covered = [i for i, v in enumerate(grid) if not view.opened.ravel()[i]]
        shape = tuple(int(n) for n in view.shape)
        table = [neighbours(i, shape, bool(view.torus)) for i in range(len(grid))]  # not the solver's
        charges = view.charges.ravel().tolist()
        opened_cells = [i for i in range(len(grid)) if view.opened.ravel()[i]]
        placements = [set(m) for m in itertools.combinations(covered, view.mines)
                      if all(sum(charges[j] for j in table[i] if j in m) == grid[i] for i in opened_cells)]
        assert len(placements) == total

        def number_of(i, c):
            return sum(charges[j] for j in table[c] if j in placements[i])

        everything = list(range(len(placements)))
        memo: dict = {}
        optimum = best_win_chance(placements, covered, number_of, everything, frozenset(), memo)
        choice = endgame_choice(view, grid, set())
        assert choice in covered, f"the endgame search chose {choice!r}, not a covered cell"
        groups = {}
        for i in everything:
            if choice not in placements[i]:
                groups.setdefault(number_of(i, choice), []).append(i)
        achieved = sum(len(g) * best_win_chance(placements, covered, number_of, g, frozenset({choice}), memo)
                       for g in groups.values()) / len(placements)
        assert achieved == pytest.approx(optimum, abs=1e-9)
        checked += 1
