"""The vectorised engine against plain-Python models, on random games, move by move.

Two independent models stand beside `minesweeper_kit.Game`:

* the instructor's plain reference `HyperMinesGame` (nested lists, no numpy) for digging, in 1 to
  6 dimensions, bounded and torus, with and without charges;
* `MarkedModel` below, a small set-based model of the flag/question cycle, for the marks rules:
  flood never opens a flagged or questioned cell, digging a flagged cell does nothing, digging a
  questioned cell digs it, mines left = mines - flags, and the end view (docs/engine.md, Rules).

Hypothesis runs derandomized (the same examples every run, so CI failures reproduce) with a
bounded number of examples and no deadline.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

import pytest
from hypothesis import HealthCheck, event, given, settings
from hypothesis import strategies as st

from autograder.instructor.reference import hypermines as ref

from minesweeper_kit import Face, Game, Mark
from minesweeper_kit.formats.mit6009 import write_board, write_render

MAX_CELLS = 400
CHARGE_VALUES = [c for c in range(-10, 11) if c != 0]

PROPERTY_SETTINGS = settings(
    max_examples=120,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- Strategies -------------------------------------------------------------------------------


@st.composite
def shapes(draw: st.DrawFn, max_cells: int = MAX_CELLS) -> tuple[int, ...]:
    """1 to 6 axes of at least one cell, at most `max_cells` cells in all (axes of size 1 too)."""
    ndim = draw(st.integers(1, 6))
    widest = min(40, max(3, int(max_cells ** (1 / ndim)) + 1))
    shape, room = [], max_cells
    for _ in range(ndim):
        size = draw(st.integers(1, max(1, min(widest, room))))
        shape.append(size)
        room //= size
    return tuple(shape)


@st.composite
def boards(draw: st.DrawFn, charged: bool | None = None, sparse: bool = False) -> dict[str, Any]:
    """A board: shape, torus, distinct mines and (maybe) one charge per mine.

    `charged=None` draws with or without charges; charges may happen to be all 1. `sparse` keeps
    at most a fifth of the cells mined, so zeros and floods are common.
    """
    shape = draw(shapes())
    cells = ref.all_coords(shape)
    order = draw(st.permutations(range(len(cells))))
    count = draw(st.integers(0, len(cells) // 5 if sparse else len(cells)))
    mines = [cells[i] for i in order[:count]]
    with_charges = draw(st.booleans()) if charged is None else charged
    charges = (
        draw(st.lists(st.sampled_from(CHARGE_VALUES), min_size=count, max_size=count))
        if with_charges
        else None
    )
    return {"shape": shape, "torus": draw(st.booleans()), "mines": mines, "charges": charges,
            "cells": cells}


def moves_on(board: dict, max_moves: int = 25) -> st.SearchStrategy[list[tuple[int, ...]]]:
    """Random digs, or a prefix of a random order of every cell (which often ends the game)."""
    cells = board["cells"]
    random_cells = st.lists(st.sampled_from(cells), min_size=1, max_size=max_moves)
    sweep = st.permutations(cells).map(lambda order: list(order[:max_moves]))
    return st.one_of(random_cells, sweep)


def engine_game(board: dict) -> Game:
    charges = board["charges"]
    return Game.from_mines(
        board["shape"],
        board["mines"],
        torus=board["torus"],
        charges=None if charges is None else dict(zip(board["mines"], charges)),
    )


def reference_game(board: dict) -> ref.HyperMinesGame:
    return ref.HyperMinesGame(
        list(board["shape"]), board["mines"], torus=board["torus"], charges=board["charges"]
    )


def describe(board: dict, moves: Sequence, step: int | None = None) -> str:
    """Everything needed to replay a disagreement by hand."""
    at = "" if step is None else f" after move {step} ({moves[step]})"
    return (
        f"shape={list(board['shape'])} torus={board['torus']} mines={board['mines']} "
        f"charges={board['charges']} moves={list(moves)}{at}"
    )


# -- Engine against the plain reference --------------------------------------------------------


def assert_same_game(game: Game, model: ref.HyperMinesGame, where: str) -> None:
    assert game.state == model.state, f"state: engine {game.state}, reference {model.state}; {where}"
    assert game.revealed.tolist() == model.mask, f"revealed mask differs; {where}"
    assert write_render(game) == model.render(), f"render() differs; {where}"
    assert write_render(game, xray=True) == model.render(True), f"render(True) differs; {where}"


def play_both(board: dict, moves: list) -> str:
    """Play the moves on the engine and the reference, comparing after each; the final state."""
    game, model = engine_game(board), reference_game(board)
    assert write_board(game) == model.board, f"boards differ; {describe(board, moves)}"
    assert_same_game(game, model, describe(board, moves))
    for step, cell in enumerate(moves):
        where = describe(board, moves, step)
        got, expected = game.dig(cell), model.dig(cell)
        assert got == expected, f"dig returned {got}, reference {expected}; {where}"
        assert_same_game(game, model, where)
    return model.state


def record(board: dict, state: str) -> None:
    """Label the example, so `--hypothesis-show-statistics` shows what the runs covered."""
    event(f"{len(board['shape'])} axes, {'torus' if board['torus'] else 'bounded'}, ends {state}")


@PROPERTY_SETTINGS
@given(data=st.data())
def test_engine_digs_like_the_reference_without_charges(data: st.DataObject) -> None:
    board = data.draw(boards(charged=False, sparse=data.draw(st.booleans(), label="sparse")), label="board")
    record(board, play_both(board, data.draw(moves_on(board), label="moves")))


@PROPERTY_SETTINGS
@given(data=st.data())
def test_engine_digs_like_the_reference_with_charges(data: st.DataObject) -> None:
    board = data.draw(boards(charged=True, sparse=data.draw(st.booleans(), label="sparse")), label="board")
    record(board, play_both(board, data.draw(moves_on(board), label="moves")))


@pytest.mark.parametrize("torus", [False, True], ids=["bounded", "torus"])
@pytest.mark.parametrize("ndim", range(1, 7))
def test_engine_digs_like_the_reference_in_every_dimension(ndim: int, torus: bool) -> None:
    """A fixed sweep of every cell on one board per dimension count, so none is left to chance.

    Mines sit at every fifth cell (row-major), enough to leave zeros that flood.
    """
    side = {1: 30, 2: 12, 3: 6, 4: 4, 5: 3, 6: 3}[ndim]
    shape = (side,) * ndim
    cells = ref.all_coords(shape)
    mines = cells[3::5] if ndim < 4 else cells[3::11]
    board = {"shape": shape, "torus": torus, "mines": mines, "charges": None, "cells": cells}
    safe = [c for c in cells if c not in set(mines)]
    assert play_both(board, safe[::-1] + [mines[0]]) == "victory"


# -- Marks: a plain model of the flag/question cycle --------------------------------------------


class MarkedModel:
    """Digging with flags and question marks, on Python sets, for comparison with the engine."""

    def __init__(self, board: dict) -> None:
        self.shape = board["shape"]
        self.torus = board["torus"]
        self.mines = set(board["mines"])
        reference = reference_game(board)
        self.board = reference.board
        self.floods = reference.floods()
        self.safe = {c for c in board["cells"] if c not in self.mines}
        self.revealed: set = set()
        self.marks: dict = {}
        self.state = "ongoing"
        self.exploded = None

    def number(self, cell: tuple) -> Any:
        return ref.get_coords(self.board, cell)

    def dig(self, cell: tuple) -> int:
        if self.state != "ongoing" or cell in self.revealed or self.marks.get(cell) == Mark.FLAG:
            return 0
        self.marks.pop(cell, None)
        if cell in self.mines:
            self.revealed.add(cell)
            self.state, self.exploded = "defeat", cell
            return 1
        opened, to_open = 0, [cell]
        while to_open:
            here = to_open.pop()
            if here in self.revealed or here in self.mines or here in self.marks:
                continue
            self.revealed.add(here)
            opened += 1
            if self.floods and self.number(here) == 0:
                to_open.extend(ref.neighbors(self.shape, here, self.torus))
        if self.safe <= self.revealed:
            self.state = "victory"
        return opened

    def cycle_mark(self, cell: tuple) -> int:
        if self.state == "ongoing" and cell not in self.revealed:
            mark = (self.marks.get(cell, Mark.NONE) + 1) % 3
            if mark:
                self.marks[cell] = mark
            else:
                self.marks.pop(cell, None)
        return self.marks.get(cell, Mark.NONE)

    def toggle_flag(self, cell: tuple) -> int:
        if self.state == "ongoing" and cell not in self.revealed:
            if self.marks.get(cell) == Mark.FLAG:
                del self.marks[cell]
            else:
                self.marks[cell] = Mark.FLAG
        return self.marks.get(cell, Mark.NONE)

    @property
    def mines_left(self) -> int:
        return len(self.mines) - sum(1 for m in self.marks.values() if m == Mark.FLAG)

    def face(self, cell: tuple) -> int:
        mark = self.marks.get(cell, Mark.NONE)
        mine = cell in self.mines
        if self.state == "victory" and mine:
            return Face.FLAG
        if self.state == "defeat":
            if cell == self.exploded:
                return Face.EXPLODED
            if mine and mark != Mark.FLAG:
                return Face.MINE
            if not mine and mark == Mark.FLAG:
                return Face.WRONG_FLAG
        if cell in self.revealed:
            return Face.OPEN
        return {Mark.NONE: Face.COVERED, Mark.FLAG: Face.FLAG, Mark.QUESTION: Face.QUESTION}[mark]

    def faces(self) -> list:
        out = ref.make_board(self.shape, None)
        for cell in ref.all_coords(self.shape):
            ref.set_coords(out, cell, int(self.face(cell)))
        return out

    def marks_board(self) -> list:
        out = ref.make_board(self.shape, 0)
        for cell, mark in self.marks.items():
            ref.set_coords(out, cell, int(mark))
        return out

    def revealed_board(self) -> list:
        out = ref.make_board(self.shape, False)
        for cell in self.revealed:
            ref.set_coords(out, cell, True)
        return out


ACTIONS = ("dig", "cycle_mark", "toggle_flag")


@PROPERTY_SETTINGS
@given(data=st.data())
def test_marks_follow_the_plain_model(data: st.DataObject) -> None:
    board = data.draw(boards(sparse=data.draw(st.booleans(), label="sparse")), label="board")
    cells = st.sampled_from(board["cells"])
    # Marks first, then any moves: floods then meet marked cells often.
    marking = st.tuples(st.sampled_from(ACTIONS[1:]), cells)
    anything = st.tuples(st.sampled_from(ACTIONS), cells)
    moves = data.draw(st.lists(marking, max_size=12), label="marks") + data.draw(
        st.lists(anything, min_size=1, max_size=25), label="moves"
    )
    game, model = engine_game(board), MarkedModel(board)
    for step, (action, cell) in enumerate(moves):
        where = describe(board, moves, step)
        got, expected = getattr(game, action)(cell), getattr(model, action)(cell)
        assert int(got) == int(expected), f"{action} returned {got!r}, model {expected!r}; {where}"
        assert game.state == model.state, f"state {game.state}, model {model.state}; {where}"
        assert game.mines_left == model.mines_left, f"mines_left {game.mines_left}, model {model.mines_left}; {where}"
        assert game.revealed.tolist() == model.revealed_board(), f"revealed differs; {where}"
        assert game.marks.tolist() == model.marks_board(), f"marks differ; {where}"
        assert game.faces().tolist() == model.faces(), f"faces (end view) differ; {where}"


def test_flood_stops_at_flags_and_questions() -> None:
    """A worked case: a 1 x 7 strip with a mine at the end; marks split the empty run."""
    board = {"shape": (7,), "torus": False, "mines": [(6,)], "charges": None,
             "cells": ref.all_coords((7,))}
    game = engine_game(board)
    game.cycle_mark((2,))                       # flag
    game.cycle_mark((4,)); game.cycle_mark((4,))  # question
    assert game.dig((2,)) == 0                  # a flagged cell cannot be dug
    assert game.dig((0,)) == 2                  # opens 0 and 1, stops at the flag on 2
    assert game.revealed.tolist() == [True, True, False, False, False, False, False]
    assert game.dig((3,)) == 1                  # 3 is a zero, but 2 is flagged and 4 questioned
    assert game.dig((4,)) == 2                  # a questioned cell is dug: 4 (zero) then 5
    assert game.mines_left == 0 and game.state == "ongoing"
    assert game.dig((2,)) == 0
    assert game.cycle_mark((2,)) == Mark.QUESTION
    assert game.dig((2,)) == 1 and game.state == "victory"
    assert game.mines_left == 1
    assert game.faces().tolist()[6] == Face.FLAG


def test_mines_left_counts_flags_even_when_wrong() -> None:
    board = {"shape": (3, 3), "torus": False, "mines": [(0, 0)], "charges": None,
             "cells": ref.all_coords((3, 3))}
    game = engine_game(board)
    for cell in [(1, 1), (1, 2), (2, 2)]:
        game.toggle_flag(cell)
    assert game.mines_left == -2
    game.cycle_mark((1, 1))                     # flag -> question
    assert game.mines_left == -1
    assert game.dig((0, 0)) == 1 and game.state == "defeat"
    faces = game.faces().tolist()
    assert faces[0][0] == Face.EXPLODED
    assert faces[1][2] == Face.WRONG_FLAG and faces[2][2] == Face.WRONG_FLAG
    assert faces[1][1] == Face.QUESTION


def test_cells_per_example_stay_small() -> None:
    """The strategies' own bound: the property tests stay quick on two shared cores."""
    @settings(max_examples=200, deadline=None, derandomize=True, database=None)
    @given(shapes())
    def check(shape: tuple[int, ...]) -> None:
        assert 1 <= len(shape) <= 6 and all(n >= 1 for n in shape)
        assert math.prod(shape) <= MAX_CELLS

    check()
