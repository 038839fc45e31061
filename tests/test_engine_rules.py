"""The game rules (docs/engine.md, Rules), each on a small board worked out by hand."""

import numpy as np
import pytest

from minesweeper_kit import Face, Game, Mark


def test_numbers_count_neighbouring_mines_on_a_bounded_board():
    # . 1 . . 0    mine at (0, 0) and (2, 3): hand-counted neighbours
    game = Game.from_mines((3, 5), [(0, 0), (2, 3)])
    assert game.numbers.tolist() == [
        [0, 1, 0, 0, 0],
        [1, 1, 1, 1, 1],
        [0, 0, 1, 0, 1],
    ]


def test_torus_wraps_every_axis():
    # On a 4x4 torus the corner mine (0, 0) touches (3, 3), (0, 3), (3, 0) across the edges.
    game = Game.from_mines((4, 4), [(0, 0)], torus=True)
    touched = {tuple(c) for c in np.argwhere(game.numbers == 1)}
    assert touched == {(0, 1), (1, 0), (1, 1), (0, 3), (3, 0), (3, 3), (1, 3), (3, 1)}


def test_torus_deduplicates_neighbours_on_small_axes():
    # Size 2: the one other cell is a neighbour once, not twice. Size 1: no neighbour along it.
    assert Game.from_mines((2,), [(0,)], torus=True).numbers.tolist() == [0, 1]
    assert Game.from_mines((1, 3), [(0, 0)], torus=True).numbers.tolist() == [[0, 1, 1]]
    assert sorted(Game.from_mines((2, 2), [], torus=True).neighbours((0, 0))) == [(0, 1), (1, 0), (1, 1)]


def test_size_one_axes_change_nothing():
    flat = Game.from_mines((3, 3), [(1, 1)])
    padded = Game.from_mines((1, 3, 1, 3, 1), [(0, 1, 0, 1, 0)])
    assert padded.numbers.reshape(3, 3).tolist() == flat.numbers.tolist()
    assert padded.dig((0, 0, 0, 0, 0)) == 1


def test_charges_sum_and_may_cancel():
    # Mines at (0,0) charge 3 and (0,2) charge -3: the cell between sees 0 though it touches two mines.
    game = Game.from_mines((2, 3), [(0, 0), (0, 2)], charges=[3, -3])
    assert game.numbers[0, 1] == 0
    assert game.numbers[1, 0] == 3 and game.numbers[1, 2] == -3
    assert game.effective_reveal == "single"
    assert game.dig((0, 1)) == 1  # no flood on a charged board, even on a zero


def test_flood_opens_the_zero_region_and_its_border():
    # Column of mines at x=3 on a 3x5 board: digging (0,0) opens columns 0..2 (border numbers at x=2).
    game = Game.from_mines((3, 5), [(0, 3), (1, 3), (2, 3)])
    assert game.dig((0, 0)) == 9
    assert game.revealed[:, :3].all() and not game.revealed[:, 3:].any()


def test_flood_never_opens_flagged_or_questioned_cells():
    game = Game.from_mines((1, 6), [(0, 5)])
    game.cycle_mark((0, 2))            # flag
    assert game.dig((0, 0)) == 2       # (0,0), (0,1) — stops at the flag
    game.cycle_mark((0, 2)); game.cycle_mark((0, 2))
    assert game.marks[0, 2] == Mark.NONE
    game.cycle_mark((0, 2)); game.cycle_mark((0, 2))  # question
    assert game.dig((0, 3)) == 2       # (0,3) zero opens (0,4); (0,2) stays questioned
    assert not game.revealed[0, 2]


def test_ring_reveals_cell_and_non_mine_neighbours_only():
    game = Game.from_mines((3, 3), [(0, 0)], reveal="ring")
    assert game.dig((2, 2)) == 4       # itself + (1,1), (1,2), (2,1); no flood from the zero
    assert game.revealed.sum() == 4


def test_single_reveals_one_cell():
    assert Game.from_mines((3, 3), [(0, 0)], reveal="single").dig((2, 2)) == 1


def test_dig_results_and_the_end():
    game = Game.from_mines((2, 2), [(0, 0)])
    assert game.dig((1, 1)) == 1
    assert game.dig((1, 1)) == 0       # already revealed
    game.cycle_mark((0, 1))
    assert game.dig((0, 1)) == 0       # flagged: nothing
    assert game.dig((0, 0)) == 1 and game.state == "defeat" and game.exploded == (0, 0)
    assert game.dig((1, 0)) == 0       # after the end


def test_victory_when_every_safe_cell_is_open():
    game = Game.from_mines((1, 3), [(0, 0)])
    game.dig((0, 2))
    assert game.state == "victory"


def test_marks_cycle_and_mines_left_may_go_negative():
    game = Game.from_mines((2, 2), [(0, 0)])
    assert [game.cycle_mark((1, 1)) for _ in range(3)] == [Mark.FLAG, Mark.QUESTION, Mark.NONE]
    game.toggle_flag((1, 0)); game.toggle_flag((1, 1))
    assert game.mines_left == -1


def test_end_view_after_defeat_and_victory():
    game = Game.from_mines((1, 4), [(0, 0), (0, 3)], reveal="single")
    game.toggle_flag((0, 1))           # a wrong flag
    game.dig((0, 0))
    assert game.faces().tolist() == [[Face.EXPLODED, Face.WRONG_FLAG, Face.COVERED, Face.MINE]]
    won = Game.from_mines((1, 3), [(0, 0)])
    won.dig((0, 2))
    assert won.faces().tolist() == [[Face.FLAG, Face.OPEN, Face.OPEN]]


@pytest.mark.parametrize("first_move", ["safe", "opening"])
def test_first_move_protection_holds_on_crowded_boards(first_move):
    for seed in range(30):
        game = Game.new((5, 5), 16, first_move=first_move, seed=seed)
        game.dig((2, 2))
        assert game.mines.sum() == 16
        assert not game.mines[2, 2]
        if first_move == "opening":
            assert not game.mines[1:4, 1:4].any()


def test_same_seed_same_game():
    a, b = Game.new((16, 30), 99, seed=11), Game.new((16, 30), 99, seed=11)
    a.dig((5, 5)); b.dig((5, 5))
    assert (a.mines == b.mines).all()
    c = Game.new((16, 30), 99, seed=12); c.dig((5, 5))
    assert not (a.mines == c.mines).all()


def test_high_dimensional_boards_stay_cheap():
    game = Game.new((1,) * 58 + (5, 5), 3, seed=1)
    assert game.dig((0,) * 58 + (2, 2)) >= 1
    many = Game.new((2,) * 20, 1, seed=1)  # every cell neighbours every other
    many.dig((0,) * 20)
    assert (many.numbers[~many.mines] == 1).all()


@pytest.mark.parametrize("make, message", [
    (lambda: Game.new((3, 3), 9), "do not fit"),
    (lambda: Game.new((3, 3), 9, first_move="opening"), "do not fit"),
    (lambda: Game.new((3, 0), 1), "at least 1"),
    (lambda: Game.new((1,) * 61, 0), "1 to 60 axes"),
    (lambda: Game.new((3, 3), -1), "negative"),
    (lambda: Game.from_mines((3, 3), [(0, 0)], charges=[0]), "nonzero"),
    (lambda: Game.from_mines((3, 3), [(0, 0)], charges=[11]), "nonzero"),
    (lambda: Game.from_mines((3, 3), [(0, 0), (0, 0)]), "listed twice"),
    (lambda: Game.from_mines((3, 3), [(0, 3)]), "off the board"),
    (lambda: Game.new((3, 3), 1, reveal="explode"), "reveal must be"),
    (lambda: Game.new((3, 3), 1, charges=(2, 1)), "above the high end"),
])
def test_bad_construction_names_the_problem(make, message):
    with pytest.raises(ValueError, match=message):
        make()


@pytest.mark.parametrize("coordinate, message", [
    ((3, 0), "off the board"), ((0,), "has 1 axes"), ((0, 0, 0), "has 3 axes"), ((0, 1.5), "integer"), ("ab", "integer"),
])
def test_bad_coordinates_leave_the_game_unchanged(coordinate, message):
    game = Game.new((3, 3), 2, seed=4)
    before = (game.revealed.copy(), game.marks.copy(), game.state, len(game.history), game.placed)
    for move in (game.dig, game.cycle_mark, game.toggle_flag):
        with pytest.raises(ValueError, match=message):
            move(coordinate)
    assert (game.revealed == before[0]).all() and (game.marks == before[1]).all()
    assert (game.state, len(game.history), game.placed) == before[2:]


@pytest.mark.parametrize("shape", [(60, 70), (400,), (12, 12, 12), (7, 6, 5, 4), (4, 4, 4, 4, 4)])
def test_flood_by_labelling_matches_flood_frontier_by_frontier(shape, monkeypatch):
    """Long regions are finished by labelling; both strategies must open exactly the same cells."""
    import minesweeper_kit.game as engine

    rng = np.random.default_rng(sum(shape))
    for trial in range(6):
        mines = np.argwhere(rng.random(shape) < 0.04)
        flags = [tuple(c) for c in np.argwhere(rng.random(shape) < 0.02)]
        results = []
        for steps in (0, 10**9):  # label at once / never label
            monkeypatch.setattr(engine, "FRONTIER_STEPS", steps)
            game = Game.from_mines(shape, mines.tolist())
            for f in flags:
                if not game.mines[f]:
                    game.cycle_mark(f)
            zeros = np.argwhere((game.numbers == 0) & ~game.mines & (game.marks == 0))
            for z in zeros[:: max(1, len(zeros) // 3)][:3]:
                game.dig(tuple(z))
            results.append(game.revealed.copy())
        assert (results[0] == results[1]).all(), f"trial {trial} on {shape}"
