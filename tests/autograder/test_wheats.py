"""The wheats (``autograder/instructor/wheats``) against the reference: the same answers, other code.

A wheat is a second correct implementation of a step: a student's own test is valid only if it
passes on the reference and on every wheat. So a wheat must agree with the reference on whatever a
student's test may rely on, and be written differently enough that a test leaning on the
reference's incidental behaviour fails on it. The kit's public correct implementations (what the
notebooks' "check my tests" cell counts a test valid on) are held to the reference the same way.

Each property test executes the reference and a wheat from their source into separate namespaces,
runs both on the same random inputs drawn by hypothesis (1-D to 4-D boards, random bombs, random
sequences of digs, uncovers, marks and resets) and compares what a test could observe: returned
values with their types, printed text, the type of an exception, and the objects' state after
every call. The expected side is always the reference. Where the notebook leaves something open
(the order of neighbours), the comparison is as loose as the notebook, and inputs stay within what
the step defines (cells on the board, files in the styles the notebook allows).

Hypothesis runs derandomized with a bounded number of examples and no deadline.
"""

from __future__ import annotations

import ast
import contextlib
import copy
import functools
import io
import os
import random
import sys
import tempfile
import tokenize
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from autograder.assignments import ASSIGNMENTS, get_assignment
from autograder.check import reference_submission
from autograder.instructor.wheats import WHEATS, wheats_for
from minesweeper_kit.owntests.public import PUBLIC_STEPS
from minesweeper_kit.owntests.public import library as public_library

#: The steps with wheats; the function-API terms share theirs, renamed per term (one stands for all).
STEPS = ("neighbors", "make-board", "flood-fill", "hypermines", "mines-fall2023")

PROPERTY_SETTINGS = settings(
    max_examples=60,
    deadline=None,
    derandomize=True,
    database=None,
    print_blob=True,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


# -- Loading both implementations ---------------------------------------------------------------


@functools.cache
def reference_source(assignment_id: str) -> str:
    return reference_submission(get_assignment(assignment_id)).source


def load(source: str, label: str) -> dict[str, Any]:
    """A fresh namespace holding what ``source`` defines (each implementation its own)."""
    namespace: dict[str, Any] = {"__name__": f"implementation_{label}"}
    exec(compile(source, f"<{label}>", "exec"), namespace)
    return namespace


#: The kit's public correct implementations, what the notebooks' "check my tests" cell counts a
#: test valid on: held to the reference as the wheats are (named ``public:<name>``).
PUBLIC = "public:"


def public_sources(assignment_id: str) -> dict[str, str]:
    if assignment_id not in PUBLIC_STEPS:
        return {}
    return {PUBLIC + i.name: i.source for i in public_library(assignment_id).implementations if i.correct}


@functools.cache
def implementations(assignment_id: str, wheat: str) -> tuple[dict[str, Any], dict[str, Any]]:
    """(reference, wheat) namespaces of a step, loaded once: every name the tests call is a
    function or a class, so examples share nothing through them."""
    sources = dict(wheats_for(assignment_id)) | public_sources(assignment_id)
    return load(reference_source(assignment_id), "reference"), load(sources[wheat], wheat)


def wheat_names(assignment_id: str) -> list[str]:
    """The step's wheats, then the kit's public correct implementations of it."""
    return [name for name, _ in wheats_for(assignment_id)] + list(public_sources(assignment_id))


def typed(value: Any) -> Any:
    """``value`` with the type of every part spelled out, so True differs from 1 and a tuple from
    a list."""
    if isinstance(value, (list, tuple)):
        return (type(value).__name__, [typed(item) for item in value])
    if isinstance(value, dict):
        return ("dict", [(typed(k), typed(v)) for k, v in value.items()])
    return (type(value).__name__, value)


def outcome(function, *args, **kwargs) -> tuple[str, Any, str]:
    """What a call did, as a test sees it: ('returned', value, printed) or ('raised', the
    exception's type, printed)."""
    printed = io.StringIO()
    try:
        with contextlib.redirect_stdout(printed):
            value = function(*args, **kwargs)
    except Exception as error:  # noqa: BLE001 - the exception's type is the outcome compared
        return ("raised", type(error).__name__, printed.getvalue())
    return ("returned", typed(value), printed.getvalue())


def assert_same(expected: tuple[str, Any, str], got: tuple[str, Any, str], what: str) -> None:
    assert got == expected, f"{what}: reference {expected}, wheat {got}"


def as_cells(answer: Any) -> list:
    """A list of neighbours as the notebook reads it: any order, each cell once."""
    assert isinstance(answer, list), f"a list was expected, got {answer!r}"
    assert len(set(answer)) == len(answer), f"a cell is listed twice: {answer}"
    return sorted(typed(cell) for cell in answer)


# -- Strategies -----------------------------------------------------------------------------------


@st.composite
def shapes(draw: st.DrawFn, max_axes: int = 4, max_size: int = 4) -> list[int]:
    return draw(st.lists(st.integers(1, max_size), min_size=1, max_size=max_axes))


@st.composite
def shape_and_cell(draw: st.DrawFn, axes: int | None = None) -> tuple[list[int], list[int]]:
    if axes is None:
        shape = draw(shapes(max_size=5))
    else:
        shape = draw(st.lists(st.integers(1, 5), min_size=axes, max_size=axes))
    return shape, [draw(st.integers(0, size - 1)) for size in shape]


def every_cell(shape: list[int]) -> list[tuple[int, ...]]:
    cells: list[tuple[int, ...]] = [()]
    for size in shape:
        cells = [cell + (x,) for cell in cells for x in range(size)]
    return cells


def mines(rate: int = 5):
    """A cell of a mine field: a mine one time in ``rate``."""
    return st.integers(0, rate - 1).map(lambda roll: roll == 0)


@st.composite
def fields(draw: st.DrawFn, max_rows: int = 7, max_cols: int = 7) -> list[list[bool]]:
    rows, cols = draw(st.integers(1, max_rows)), draw(st.integers(1, max_cols))
    return [[draw(mines()) for _ in range(cols)] for _ in range(rows)]


# -- Step 1: the text game and neighbours ------------------------------------------------------------

#: How a board file may be written (the notebook): separator, end of a row, end of the last row.
FILE_STYLES = [(", ", "\n", "\n"), (",", "\n", "\n"), (" , ", "\n", "\n"), (", ", "\n\n", "\n\n"), (",", "\n", "")]


def board_file(rows: list[list[bool]], style: tuple[str, str, str], width: int, height: int) -> str:
    separator, between, last = style
    lines = [separator.join("1" if mine else "0" for mine in row) for row in rows]
    return f"{width}\n{height}\n" + between.join(lines) + last


@pytest.mark.parametrize("wheat", wheat_names("neighbors"))
@PROPERTY_SETTINGS
@given(
    rows=fields(max_rows=12, max_cols=8),
    style=st.sampled_from(FILE_STYLES),
    digs=st.lists(st.tuples(st.integers(0, 11), st.integers(0, 7)), max_size=8),
)
def test_text_game(wheat, rows, style, digs):
    """read_file, make_empty_grid, update_grid, print_grid, then digs with count_total_moves and
    determine_game_status after each: the same values, the same text printed."""
    reference, other = implementations("neighbors", wheat)
    height, width = len(rows), len(rows[0])
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "board.txt")
        with open(path, "w") as file:
            file.write(board_file(rows, style, width, height))
        expected, got = outcome(reference["read_file"], path), outcome(other["read_file"], path)
        assert_same(expected, got, "read_file")
        grids = [reference["read_file"](path), other["read_file"](path)]
    views = [reference["make_empty_grid"](grids[0]), other["make_empty_grid"](grids[1])]
    assert typed(views[1]) == typed(views[0])
    updated = [outcome(reference["update_grid"], grids[0]), outcome(other["update_grid"], grids[1])]
    assert_same(updated[0], updated[1], "update_grid")
    assert typed(grids[1]) == typed(grids[0])
    assert_same(outcome(reference["print_grid"], grids[0]), outcome(other["print_grid"], grids[1]), "print_grid")
    views[0][height - 1][0] = views[1][height - 1][0] = "?"  # every row its own list
    assert typed(views[1]) == typed(views[0])
    views[0][height - 1][0] = views[1][height - 1][0] = " "
    for r, c in digs:
        if r >= height or c >= width:
            continue
        label = f"{chr(ord('a') + c)}{height - 1 - r}"
        expected = outcome(reference["dig"], grids[0], label, views[0])
        assert_same(expected, outcome(other["dig"], grids[1], label, views[1]), f"dig {label}")
        assert typed(views[1]) == typed(views[0]), f"the view after dig {label}"
        for name in ("count_total_moves", "determine_game_status"):
            assert_same(outcome(reference[name], grids[0], views[0]), outcome(other[name], grids[1], views[1]), name)


@pytest.mark.parametrize("wheat", wheat_names("neighbors"))
@PROPERTY_SETTINGS
@given(
    rows=fields(max_rows=6, max_cols=6),
    style=st.sampled_from(FILE_STYLES),
    wrong=st.sampled_from(["width+1", "width-1", "height+1", "height-1", "short row", "long row"]),
)
def test_broken_board_files(wheat, rows, style, wrong):
    """A file whose rows disagree with its width or height: both raise ValueError."""
    reference, other = implementations("neighbors", wheat)
    height, width = len(rows), len(rows[0])
    if wrong.startswith("width"):
        width += 1 if wrong.endswith("+1") else -1
    elif wrong.startswith("height"):
        height += 1 if wrong.endswith("+1") else -1
    elif wrong == "short row":
        if width == 1:
            return
        rows = [rows[0][:-1]] + rows[1:]
    else:
        rows = [rows[0] + [False]] + rows[1:]
    if height < 1 or width < 1:
        return
    with tempfile.TemporaryDirectory() as folder:
        path = os.path.join(folder, "board.txt")
        with open(path, "w") as file:
            file.write(board_file(rows, style, width, height))
        expected = outcome(reference["read_file"], path)
        assert expected[:2] == ("raised", "ValueError")
        assert_same(expected, outcome(other["read_file"], path), f"read_file of a file with {wrong}")


@pytest.mark.parametrize("wheat", wheat_names("neighbors"))
@PROPERTY_SETTINGS
@given(
    view=st.integers(1, 14).flatmap(
        lambda rows: st.integers(1, 26).flatmap(
            lambda cols: st.lists(
                st.lists(st.sampled_from([" ", "0", "1", "2", "3", "8", "X"]), min_size=cols, max_size=cols),
                min_size=rows,
                max_size=rows,
            )
        )
    )
)
def test_print_grid(wheat, view):
    """print_grid prints the same text for any view, up to 26 columns and two-digit row numbers."""
    reference, other = implementations("neighbors", wheat)
    assert_same(outcome(reference["print_grid"], view), outcome(other["print_grid"], view), "print_grid")


@pytest.mark.parametrize("wheat", wheat_names("neighbors"))
@PROPERTY_SETTINGS
@given(case=shape_and_cell(), as_tuples=st.booleans())
def test_step1_neighbours(wheat, case, as_tuples):
    """neighbors_1d, neighbors_2d, neighbors_3d and neighbors: the same cells (any order)."""
    reference, other = implementations("neighbors", wheat)
    shape, cell = case
    if as_tuples:
        shape, cell = tuple(shape), tuple(cell)
    assert as_cells(other["neighbors"](shape, cell)) == as_cells(reference["neighbors"](shape, cell))
    by_axes = {2: "neighbors_2d", 3: "neighbors_3d"}
    if len(shape) == 1:
        got, expected = other["neighbors_1d"](shape[0], cell[0]), reference["neighbors_1d"](shape[0], cell[0])
        assert as_cells(got) == as_cells(expected)
    elif len(shape) in by_axes:
        name = by_axes[len(shape)]
        assert as_cells(other[name](shape, cell)) == as_cells(reference[name](shape, cell))


# -- Step 2: nested boards ---------------------------------------------------------------------------


@pytest.mark.parametrize("wheat", wheat_names("make-board"))
@PROPERTY_SETTINGS
@given(shape=shapes(), elem=st.sampled_from([0, "x", None, False, 7.5]), data=st.data())
def test_make_board_and_coordinates(wheat, shape, elem, data):
    """make_board, then set_coords and get_coords on random cells (lists and tuples): the same
    boards, the same values, None from set_coords, no shared inner lists."""
    reference, other = implementations("make-board", wheat)
    boards = [reference["make_board"](shape, elem), other["make_board"](shape, elem)]
    assert typed(boards[1]) == typed(boards[0])
    cells = every_cell(shape)
    for step in range(data.draw(st.integers(1, 6), label="changes")):
        cell = data.draw(st.sampled_from(cells), label="cell")
        if step % 2:
            cell = list(cell)
        expected = outcome(reference["set_coords"], boards[0], cell, step)
        assert_same(expected, outcome(other["set_coords"], boards[1], cell, step), f"set_coords {cell}")
        assert typed(boards[1]) == typed(boards[0]), f"the board after set_coords {cell}"
        probe = data.draw(st.sampled_from(cells), label="probe")
        assert_same(
            outcome(reference["get_coords"], boards[0], probe),
            outcome(other["get_coords"], boards[1], probe),
            f"get_coords {probe}",
        )


@pytest.mark.parametrize("wheat", wheat_names("make-board"))
@PROPERTY_SETTINGS
@given(case=shape_and_cell(), as_tuples=st.booleans())
def test_all_coords_and_neighbours(wheat, case, as_tuples):
    """all_coords in the same (row-major) order; neighbors the same cells in any order."""
    reference, other = implementations("make-board", wheat)
    shape, cell = case
    if as_tuples:
        shape, cell = tuple(shape), tuple(cell)
    assert typed(other["all_coords"](shape)) == typed(reference["all_coords"](shape))
    assert as_cells(other["neighbors"](shape, cell)) == as_cells(reference["neighbors"](shape, cell))


@pytest.mark.parametrize("wheat", wheat_names("make-board"))
@PROPERTY_SETTINGS
@given(shape=shapes(), data=st.data())
def test_new_board(wheat, shape, data):
    """new_board on random distinct bombs, given as lists or tuples: the same board."""
    reference, other = implementations("make-board", wheat)
    cells = every_cell(shape)
    bombs = data.draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells)), label="bombs")
    if data.draw(st.booleans(), label="as lists"):
        bombs = [list(bomb) for bomb in bombs]
    expected = outcome(reference["new_board"], shape, bombs)
    assert_same(expected, outcome(other["new_board"], shape, bombs), f"new_board({shape}, {bombs})")


# -- Step 3: MineField and VisibleField ---------------------------------------------------------------


def field_view(namespace_field, rows: int, cols: int) -> Any:
    return typed([[namespace_field.has_mine(r, c) for c in range(cols)] for r in range(rows)])


@pytest.mark.parametrize("wheat", wheat_names("flood-fill"))
@PROPERTY_SETTINGS
@given(field=fields())
def test_mine_field(wheat, field):
    """MineField: sizes, mines, every neighbour count (a ring off the field too), range checks,
    and its own copy of the caller's list."""
    reference, other = implementations("flood-fill", wheat)
    rows, cols = len(field), len(field[0])
    data = [copy.deepcopy(field), copy.deepcopy(field)]
    made = [reference["MineField"](data[0]), other["MineField"](data[1])]
    for name in ("num_rows", "num_cols", "num_mines"):
        assert_same(outcome(getattr(made[0], name)), outcome(getattr(made[1], name)), name)
    assert field_view(made[1], rows, cols) == field_view(made[0], rows, cols)
    for r in range(-2, rows + 2):
        for c in range(-2, cols + 2):
            assert_same(outcome(made[0].in_range, r, c), outcome(made[1].in_range, r, c), f"in_range({r}, {c})")
            if -1 <= r <= rows and -1 <= c <= cols:
                expected = outcome(made[0].num_adjacent_mines, r, c)
                assert_same(expected, outcome(made[1].num_adjacent_mines, r, c), f"num_adjacent_mines({r}, {c})")
    for both in data:
        both[0][0] = not both[0][0]
        both[-1] = [True] * cols
    assert field_view(made[1], rows, cols) == field_view(made[0], rows, cols)
    assert_same(outcome(made[0].num_mines), outcome(made[1].num_mines), "num_mines after the caller's changes")


@pytest.mark.parametrize("wheat", wheat_names("flood-fill"))
@PROPERTY_SETTINGS
@given(
    rows=st.integers(-1, 6),
    cols=st.integers(-1, 6),
    seeds=st.lists(st.integers(0, 2**32), min_size=1, max_size=3),
    data=st.data(),
)
def test_random_fields(wheat, rows, cols, seeds, data):
    """MineField.random (ValueError when no cell stays free), then populate with seeded
    generators and reset_empty: the same mines, cell for cell (a full field too, where the
    avoided cell is the only free one)."""
    reference, other = implementations("flood-fill", wheat)
    wanted = data.draw(st.one_of(st.integers(-2, 40), st.sampled_from([rows * cols - 1, rows * cols])), label="mines")
    expected = outcome(reference["MineField"].random, rows, cols, wanted)
    got = outcome(other["MineField"].random, rows, cols, wanted)
    assert got[0] == expected[0], f"MineField.random({rows}, {cols}, {wanted}): reference {expected}, wheat {got}"
    if expected[0] == "raised":
        assert_same(expected, got, f"MineField.random({rows}, {cols}, {wanted})")
        return
    made = [reference["MineField"].random(rows, cols, wanted), other["MineField"].random(rows, cols, wanted)]
    assert field_view(made[1], rows, cols) == field_view(made[0], rows, cols)
    for seed in seeds:
        avoid = (data.draw(st.integers(0, rows - 1), label="row"), data.draw(st.integers(0, cols - 1), label="col"))
        for field in made:
            field.populate(*avoid, random.Random(seed))
        assert field_view(made[1], rows, cols) == field_view(made[0], rows, cols), f"populate{avoid}, seed {seed}"
        assert_same(outcome(made[0].num_mines), outcome(made[1].num_mines), "num_mines after populate")
        for field in made:
            field.reset_empty()
        assert field_view(made[1], rows, cols) == field_view(made[0], rows, cols), "after reset_empty"
        assert_same(outcome(made[0].num_mines), outcome(made[1].num_mines), "num_mines after reset_empty")


def visible_state(visible, rows: int, cols: int) -> Any:
    """Everything a test can ask a VisibleField about its cells and its game."""
    return (
        typed([[visible.get_status(r, c) for c in range(cols)] for r in range(rows)]),
        typed([[visible.is_uncovered(r, c) for c in range(cols)] for r in range(rows)]),
        typed(visible.num_mines_left()),
        typed(visible.is_game_over()),
    )


@st.composite
def field_moves(draw: st.DrawFn, rows: int, cols: int, extra: tuple[str, ...] = ()) -> list[tuple]:
    """Moves on a rows x cols field: uncovers (a few off the field), mark cycles, iterative
    floods, resets, and a sweep that uncovers every safe cell (so that games are won too)."""
    kinds = ["uncover", "uncover", "uncover", "cycle_guess", "cycle_guess", "flood", "reset", "sweep", *extra]
    any_cell = st.tuples(st.integers(0, rows - 1), st.integers(0, cols - 1))
    # A few cells get most of the moves, so that a cell is marked again and again, then uncovered.
    favourite = st.sampled_from(draw(st.lists(any_cell, min_size=1, max_size=3)))
    moves = []
    for _ in range(draw(st.integers(1, 14))):
        kind = draw(st.sampled_from(kinds))
        if kind == "uncover" and draw(st.integers(0, 4)) == 0:
            moves.append((kind, *draw(st.sampled_from([(-1, 0), (0, -1), (rows, 0), (0, cols), (rows, cols)]))))
        elif kind == "cycle_guess":  # once to four times in a row: every mark of the cycle
            moves += [(kind, *draw(st.one_of(favourite, favourite, any_cell)))] * draw(st.integers(1, 4))
        elif kind in ("uncover", "flood", "populate"):
            moves.append((kind, *draw(st.one_of(favourite, favourite, any_cell))))
        else:
            moves.append((kind,))
    return moves


def play_both(namespaces, visibles, fields_made, move, rows, cols, seed=0):
    """One move on both sides; the outcome of each."""
    kind = move[0]
    # The sweep uncovers every safe cell, as the reference's field places the mines: a win unless
    # a guess is in the way.
    safe = [(r, c) for r in range(rows) for c in range(cols) if not fields_made[0].has_mine(r, c)]
    results = []
    for namespace, visible, field in zip(namespaces, visibles, fields_made):
        if kind == "uncover":
            results.append(outcome(visible.uncover, *move[1:]))
        elif kind == "cycle_guess":
            results.append(outcome(visible.cycle_guess, *move[1:]))
        elif kind == "flood":
            results.append(outcome(namespace["flood_fill_iterative"], visible, *move[1:]))
        elif kind == "reset":
            results.append(outcome(visible.reset_game))
        elif kind == "sweep":
            results.append(outcome(lambda visible=visible: [visible.uncover(r, c) for r, c in safe]))
        elif kind == "populate":
            results.append(outcome(field.populate, *move[1:], random.Random(seed)))
        else:
            results.append(outcome(field.reset_empty))
    return results


@pytest.mark.parametrize("wheat", wheat_names("flood-fill"))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_visible_field_games(wheat, data):
    """VisibleField on a field from a list, move by move: the same results, statuses,
    is_uncovered, num_mines_left and is_game_over after every move, end views included."""
    namespaces = implementations("flood-fill", wheat)
    field = data.draw(fields(), label="field")
    rows, cols = len(field), len(field[0])
    fields_made = [namespace["MineField"](field) for namespace in namespaces]
    visibles = [namespace["VisibleField"](made) for namespace, made in zip(namespaces, fields_made)]
    assert visible_state(visibles[1], rows, cols) == visible_state(visibles[0], rows, cols)
    for move in data.draw(field_moves(rows, cols), label="moves"):
        expected, got = play_both(namespaces, visibles, fields_made, move, rows, cols)
        assert_same(expected, got, str(move))
        assert visible_state(visibles[1], rows, cols) == visible_state(visibles[0], rows, cols), str(move)


@pytest.mark.parametrize("wheat", wheat_names("flood-fill"))
@PROPERTY_SETTINGS
@given(data=st.data())
def test_random_field_games(wheat, data):
    """A random field populated at the first uncover (and repopulated or emptied later on): the
    same game on both sides, move by move."""
    namespaces = implementations("flood-fill", wheat)
    rows, cols = data.draw(st.integers(1, 6), label="rows"), data.draw(st.integers(1, 6), label="cols")
    wanted = data.draw(st.integers(0, rows * cols - 1), label="mines")
    seed = data.draw(st.integers(0, 2**32), label="seed")
    fields_made = [namespace["MineField"].random(rows, cols, wanted) for namespace in namespaces]
    visibles = [namespace["VisibleField"](made) for namespace, made in zip(namespaces, fields_made)]
    first = (data.draw(st.integers(0, rows - 1), label="row"), data.draw(st.integers(0, cols - 1), label="col"))
    moves = [("populate", *first), ("uncover", *first)]
    moves += data.draw(field_moves(rows, cols, extra=("populate", "reset_empty")), label="moves")
    for number, move in enumerate(moves):
        expected, got = play_both(namespaces, visibles, fields_made, move, rows, cols, seed + number)
        assert_same(expected, got, str(move))
        assert field_view(fields_made[1], rows, cols) == field_view(fields_made[0], rows, cols), str(move)
        assert visible_state(visibles[1], rows, cols) == visible_state(visibles[0], rows, cols), str(move)


# -- Step 4: HyperMines ------------------------------------------------------------------------------------

ATTRIBUTES = ("dimensions", "board", "mask", "state", "torus", "charges")
CHARGES = [c for c in range(-10, 11) if c != 0]


@st.composite
def games(draw: st.DrawFn) -> dict[str, Any]:
    """Arguments of a new game: 1-D to 4-D, random bombs (a repeat now and then), a torus or
    not, charges or not (given as a list or as a mapping)."""
    shape = draw(shapes())
    cells = every_cell(shape)
    bombs = [list(cell) for cell in draw(st.lists(st.sampled_from(cells), unique=True, max_size=len(cells)))]
    if bombs and draw(st.integers(0, 4)) == 0:
        bombs.append(list(draw(st.sampled_from(bombs))))
    options: dict[str, Any] = {}
    if draw(st.booleans()):
        options["torus"] = draw(st.sampled_from([True, False, 1]))
    how = draw(st.sampled_from(["none", "none", "list", "mapping", "ones"]))
    if how != "none":
        table: dict[tuple[int, ...], int] = {}
        for bomb in bombs:
            table.setdefault(tuple(bomb), 1 if how == "ones" else draw(st.sampled_from(CHARGES)))
        options["charges"] = table if how == "mapping" else [table[tuple(bomb)] for bomb in bombs]
    return {"dimensions": shape, "bombs": bombs, "options": options}


def game_state(game) -> Any:
    """Everything a test can read of a game without changing it."""
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        game.dump()
    return (
        [typed(getattr(game, name)) for name in ATTRIBUTES],
        typed(game.floods()),
        typed(game.render()),
        typed(game.render(True)),
        typed(game.render(xray=False)),
        printed.getvalue(),
    )


def new_games(namespaces, spec) -> list:
    return [
        namespace["HyperMinesGame"](
            copy.deepcopy(spec["dimensions"]), copy.deepcopy(spec["bombs"]), **copy.deepcopy(spec["options"])
        )
        for namespace in namespaces
    ]


def dig_both(made, digs) -> None:
    for coordinates in digs:
        expected, got = (outcome(game.dig, copy.copy(coordinates)) for game in made)
        assert_same(expected, got, f"dig {coordinates}")
        assert game_state(made[1]) == game_state(made[0]), f"after dig {coordinates}"


@pytest.mark.parametrize("wheat", wheat_names("hypermines"))
@PROPERTY_SETTINGS
@given(spec=games(), data=st.data())
def test_hypermines_games(wheat, spec, data):
    """A new game, then random digs (safe cells, bombs, revealed cells, after the end): the same
    results and the same attributes, renders and dump after each."""
    namespaces = implementations("hypermines", wheat)
    made = new_games(namespaces, spec)
    assert game_state(made[1]) == game_state(made[0])
    cells = every_cell(spec["dimensions"])
    digs = data.draw(st.lists(st.sampled_from(cells), max_size=8), label="digs")
    dig_both(made, [tuple(cell) if number % 2 else cell for number, cell in enumerate(digs)])


@pytest.mark.parametrize("wheat", wheat_names("hypermines"))
@PROPERTY_SETTINGS
@given(spec=games(), data=st.data())
def test_hypermines_replaced_attributes(wheat, spec, data):
    """A game whose board, mask and state a test replaced (as the original harness does): dig
    and render work from those attributes alone, on both sides alike."""
    namespaces = implementations("hypermines", wheat)
    source = new_games(namespaces[:1], spec)[0]
    cells = every_cell(spec["dimensions"])
    revealed = set(data.draw(st.lists(st.sampled_from(cells), max_size=len(cells)), label="revealed"))
    mask = copy.deepcopy(source.mask)
    for cell in revealed:
        target = mask
        for x in cell[:-1]:
            target = target[x]
        target[cell[-1]] = True
    state = data.draw(st.sampled_from(["ongoing", "ongoing", "ongoing", "defeat", "victory"]), label="state")
    made = [namespace["HyperMinesGame"](list(spec["dimensions"]), []) for namespace in namespaces]
    for game in made:
        game.board, game.mask, game.state = copy.deepcopy(source.board), copy.deepcopy(mask), state
    assert game_state(made[1]) == game_state(made[0])
    dig_both(made, data.draw(st.lists(st.sampled_from(cells), max_size=6), label="digs"))


INVALID_GAMES = [
    ([], [], {}),
    ([0], [], {}),
    ([3, -1], [], {}),
    (["3"], [], {}),
    ([2.0, 2], [], {}),
    ([3, 3], [[3, 0]], {}),
    ([3, 3], [[0, -1]], {}),
    ([3, 3], [[1]], {}),
    ([3, 3], [[1, 1, 1]], {}),
    ([3, 3], [[1, 1]], {"charges": [1, 2]}),
    ([3, 3], [[1, 1]], {"charges": [0]}),
    ([3, 3], [[1, 1]], {"charges": [11]}),
    ([3, 3], [[1, 1]], {"charges": [-11]}),
    ([3, 3], [[1, 1]], {"charges": [True]}),
    ([3, 3], [[1, 1]], {"charges": [1.5]}),
    ([3, 3], [[1, 1], [0, 0]], {"charges": {(1, 1): 2}}),
    ([3, 3], [[1, 1]], {"charges": {(1, 1): 2, (0, 0): 3}}),
    ([3, 3], [[1, 1], [1, 1]], {"charges": [2, 3]}),
]


@pytest.mark.parametrize("wheat", wheat_names("hypermines"))
@pytest.mark.parametrize("case", INVALID_GAMES, ids=str)
def test_hypermines_invalid_games(wheat, case):
    """The games the reference refuses with ValueError, the wheat refuses too."""
    reference, other = implementations("hypermines", wheat)
    dimensions, bombs, options = case
    expected = outcome(reference["HyperMinesGame"], dimensions, bombs, **options)
    assert expected[:2] == ("raised", "ValueError")
    assert_same(expected, outcome(other["HyperMinesGame"], dimensions, bombs, **options), str(case))


# -- The wheats themselves --------------------------------------------------------------------------------


def tokens_without_comments(source: str) -> list[str]:
    """The code's tokens, without comments, blank lines and indentation."""
    skipped = {tokenize.COMMENT, tokenize.NL, tokenize.NEWLINE, tokenize.INDENT, tokenize.DEDENT}
    return [t.string for t in tokenize.generate_tokens(io.StringIO(source).readline) if t.type not in skipped]


def definitions(source: str) -> dict[str, str]:
    """Each top-level function or class, as its AST without docstrings."""
    found = {}
    for node in ast.parse(source).body:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)):
            for inner in ast.walk(node):
                body = getattr(inner, "body", None)
                if (
                    isinstance(inner, (ast.FunctionDef, ast.ClassDef))
                    and body
                    and isinstance(body[0], ast.Expr)
                    and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)
                ):
                    inner.body = body[1:] or [ast.Pass()]
            found[node.name] = ast.dump(node)
    return found


WHEAT_CASES = [(step, name) for step in STEPS for name, _ in wheats_for(step)]


def test_every_step_has_a_wheat():
    """Each graded step with its own tests has at least one wheat, read as text; the bots none."""
    assert set(WHEATS) == {get_assignment(step).suite or step for step in STEPS}
    for step in STEPS:
        found = wheats_for(step)
        assert found, step
        for name, source in found:
            assert isinstance(name, str) and name and isinstance(source, str) and source.strip()
    assert wheats_for("bots") == []


@pytest.mark.parametrize(("step", "wheat"), WHEAT_CASES)
def test_wheat_is_written_differently(step, wheat):
    """Not the reference with other spacing or comments: other tokens, and every definition of the
    step's names has another AST."""
    source = dict(wheats_for(step))[wheat]
    reference = reference_source(step)
    assert tokens_without_comments(source) != tokens_without_comments(reference)
    mine, theirs = definitions(source), definitions(reference)
    same = [name for name in ASSIGNMENTS[step].names if mine.get(name) == theirs.get(name)]
    assert not same, f"defined exactly as in the reference: {same}"


@pytest.mark.parametrize(("step", "wheat"), WHEAT_CASES)
def test_wheat_defines_the_step_with_allowed_imports(step, wheat):
    """Every name of the step is defined, every public definition has a docstring, and every import
    is from the standard library and allowed in the step."""
    assignment = get_assignment(step)
    source = dict(wheats_for(step))[wheat]
    namespace = implementations(step, wheat)[1]
    assert [name for name in assignment.names if name not in namespace] == []
    tree = ast.parse(source)
    assert ast.get_docstring(tree)
    methods = [item for node in tree.body if isinstance(node, ast.ClassDef) for item in node.body]
    for node in tree.body + methods:
        if isinstance(node, (ast.FunctionDef, ast.ClassDef)) and not node.name.startswith("_"):
            assert ast.get_docstring(node), f"{node.name} has no docstring"
    assert assignment.import_policy().violations(source) == []
    for node in ast.walk(tree):
        modules = []
        if isinstance(node, ast.Import):
            modules = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom):
            modules = [node.module or ""]
        for module in modules:
            assert module.split(".")[0] in sys.stdlib_module_names, module
