"""Hidden suite of the `make-board` assignment (notebook 02-make-board): nested N-D boards.

Fixed cases, then differential cases on random shapes from this grading run's seed (smallest
first), compared with the engine (neighbours, HyperMines boards) and with plain row-major order.
Coordinates, neighbour arguments and bombs come as lists and as tuples, as the notebook allows;
set_coords changes the board in place and returns nothing.

Time: every test has 30 s of CPU time, as the notebook states; the reference needs under 0.1 s
for any of them, the 10x10x10x10 size case included (over 300 times less).
"""

from __future__ import annotations

import itertools
import random
from contextlib import contextmanager

from autograder.suite import Mismatch, check_coordinates, check_equal, describe, points, require
from minesweeper_kit import Game
from minesweeper_kit.formats.mit6009 import write_board as hypermines_board
from minesweeper_kit.sandbox import StudentError


@contextmanager
def during(case):
    """An exception raised by the student's code becomes a Mismatch that names the case."""
    try:
        yield
    except StudentError as error:
        raise Mismatch(f"{case}: {error}") from None


def random_shapes(seed, salt, count, max_cells=200):
    rng = random.Random(f"{seed}:{salt}")
    shapes: list[list[int]] = []
    while len(shapes) < count:
        shape = [rng.randint(1, 4) for _ in range(rng.randint(1, 5))]
        size = 1
        for n in shape:
            size *= n
        if size <= max_cells:
            shapes.append(shape)
    return sorted(shapes, key=lambda s: (len(s), s))


def nested(shape, value):
    return value if not shape else [nested(shape[1:], value) for _ in range(shape[0])]


@points(2)
def test_make_board(box, seed):
    """make_board builds nested lists of the right shape"""
    require(box, "make_board")
    for shape, elem in [([3], 0), ([2, 3], "x"), ([1, 1, 2], None)] + [(s, 7) for s in random_shapes(seed, "mb", 6)]:
        with during(f"make_board({shape}, {elem!r})"):
            got = box.call("make_board", shape, elem)
        check_equal(got, nested(shape, elem), what="make_board's result", case=f"make_board({shape}, {elem!r})")


@points(2)
def test_make_board_has_no_aliasing(box):
    """Setting one cell of a board changes only that cell (no shared inner lists)"""
    require(box, "make_board", "set_coords")
    for shape, cell in [([2, 2], [0, 1]), ([3, 2, 2], [2, 1, 0]), ([2, 1, 3], [1, 0, 2])]:
        with during(f"make_board({shape}, 0) then set_coords(board, {cell}, 1)"):
            board = box.call("make_board", shape, 0, keep=True)
            box.call("set_coords", board, cell, 1)
        expected = nested(shape, 0)
        target = expected
        for index in cell[:-1]:
            target = target[index]
        target[cell[-1]] = 1
        check_equal(
            box.fetch(board),
            expected,
            what="the board after set_coords",
            case=f"make_board({shape}, 0) then set_coords(board, {cell}, 1)",
        )


@points(2)
def test_get_and_set_coords(box, seed):
    """get_coords and set_coords reach any cell of an N-D board"""
    require(box, "get_coords", "set_coords")
    rng = random.Random(f"{seed}:coords")
    for shape in [[4]] + random_shapes(seed, "gs", 6):  # a 1-D board first: its top level is the cells
        board_data = nested(shape, 0)
        cells = list(itertools.product(*[range(n) for n in shape]))
        for number, at in enumerate(cells):
            target = board_data
            for index in at[:-1]:
                target = target[index]
            target[at[-1]] = number
        with during(f"make_board({shape}, 0)"):
            board = box.call("make_board", shape, 0, keep=True) if "make_board" in box.names else None
        for cell in (list(rng.choice(cells)), rng.choice(cells)):  # a list, then a tuple
            case = f"board of shape {shape} holding 0, 1, 2, ... in row-major order"
            with during(f"{case}, get_coords(board, {cell})"):
                got = box.call("get_coords", board_data, cell)
            check_equal(got, cells.index(tuple(cell)), what=f"get_coords(board, {cell})", case=case)
            if board is not None:
                with during(f"shape {shape}, set_coords(board, {cell}, 'here') then get_coords(board, {cell})"):
                    returned = box.call("set_coords", board, cell, "here")
                    got = box.call("get_coords", board, cell)
                if returned is not None:
                    raise Mismatch(
                        f"shape {shape}: set_coords(board, {cell}, 'here') should change the board in "
                        f"place and return nothing, it returned {describe(returned)}"
                    )
                check_equal(
                    got, "here", what=f"get_coords after set_coords(board, {cell}, 'here')", case=f"shape {shape}"
                )


@points(2)
def test_all_coords(box, seed):
    """all_coords lists every coordinate once, in row-major order"""
    require(box, "all_coords")
    for shape in [[1], [3], [2, 2]] + random_shapes(seed, "all", 6):
        expected = [list(c) for c in itertools.product(*[range(n) for n in shape])]
        with during(f"all_coords({shape})"):
            got = box.call("all_coords", shape)
        if isinstance(got, list):
            got = [[c] if isinstance(c, int) and len(shape) == 1 else c for c in got]
        check_equal(got, expected, what="all_coords' result", case=f"all_coords({shape})")


@points(2)
def test_neighbors(box, seed):
    """neighbors in any number of dimensions, at edges, corners and inside"""
    require(box, "neighbors")
    fixed = [([5], [0]), ([5], [4]), ([3, 3], [0, 0]), ([3, 3], [1, 1]), ([1, 4], [0, 3]), ([2, 2, 2], [1, 1, 1])]
    rng = random.Random(f"{seed}:nb")
    cases = fixed + [(s, [rng.randrange(n) for n in s]) for s in random_shapes(seed, "nb", 10)]
    for shape, cell in cases + [(tuple(shape), tuple(cell)) for shape, cell in cases]:
        expected = Game.from_mines(shape, []).neighbours(cell)
        with during(f"neighbors({shape}, {cell})"):
            got = box.call("neighbors", shape, cell)
        check_coordinates(got, expected, what="the neighbours", case=f"neighbors({shape}, {cell})")


@points(3)
def test_new_board(box, seed):
    """new_board places bombs and counts them like the engine"""
    require(box, "new_board")
    rng = random.Random(f"{seed}:nbd")
    cases: list = [([4], [[0]]), ([3, 3], [[1, 1]]), ([2, 4], [[0, 0], [1, 3]]), ([2, 3], [(0, 0), (1, 2)])]
    for number, shape in enumerate(random_shapes(seed, "nbd", 8)):
        cells = list(itertools.product(*[range(n) for n in shape]))
        chosen = rng.sample(cells, rng.randint(0, max(1, len(cells) // 3)))
        cases.append((shape, [list(c) if number % 2 else tuple(c) for c in chosen]))  # lists or tuples
    for shape, bombs in cases:
        expected = hypermines_board(Game.from_mines(shape, bombs))
        with during(f"new_board({shape}, {bombs})"):
            got = box.call("new_board", shape, bombs)
        check_equal(got, expected, what="the board", case=f"new_board({shape}, {bombs})")


@points(1)
def test_large_board(box):
    """A 10x10x10x10 board is built and filled quickly (size case)"""
    require(box, "new_board")
    bombs = [[i, (i * 3) % 10, (i * 7) % 10, (i * 9) % 10] for i in range(10)]
    expected = hypermines_board(Game.from_mines([10, 10, 10, 10], bombs))
    with during("new_board([10, 10, 10, 10], 10 bombs)"):
        got = box.call("new_board", [10, 10, 10, 10], bombs)
    check_equal(got, expected, what="the board", case="new_board([10, 10, 10, 10], 10 bombs)")
