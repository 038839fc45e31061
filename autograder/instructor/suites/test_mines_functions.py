"""Hidden suite of the function-API assignments (`mines-*`: MIT's Mines labs of 2020 to 2024).

One suite for every term: the fixture `api` (minesweeper_kit.formats.mit6009.FunctionAPI) names
the term's 2-D render functions, its visibility key (`hidden` is True for a covered cell) and its
render flag, passed to the 2-D renders by name where the term's own tests pass it so.

A game is the dict the student's `new_game_2d` / `new_game_nd` returned, kept in the sandbox and
changed there by their `dig_*`: the suite never builds a game dict itself, since the handouts
allow extra keys beside the four. The four keys are compared one by one, `dimensions` as the
terms' tests compare it: a tuple (`(4, 6) == [4, 6]` is False in Python).

Fixed cases are the original N-D games (data/originals/hypermines: the terms' N-D tests play the
same games; only tuples and the visibility key differ). 2-D games and the differential cases are
drawn from this grading run's seed and played by the kit's engine, smallest first. After a game
ends every one of its cells is dug again, each reveals nothing and changes nothing.

Time: 40 s of CPU time for the two largest whole games, 30 s for every other test; the
reference needs at most about 1 s for any test.
"""

from __future__ import annotations

import json
import random
from contextlib import contextmanager
from functools import cache

import numpy as np

from autograder.suite import Mismatch, check_equal, describe, points, require, time_limit
from minesweeper_kit import Game
from minesweeper_kit.formats.mit6009 import write_game, write_render, write_text
from minesweeper_kit.sandbox import Handle, StudentError

Coordinates = tuple[int, ...]


@cache
def original(originals, name):
    folder = originals / "hypermines"
    with (
        open(folder / "test_inputs" / f"{name}.json") as inputs,
        open(folder / "test_outputs" / f"{name}.json") as outputs,
    ):
        return json.load(inputs), json.load(outputs)


@contextmanager
def during(case):
    """An exception raised by the student's code becomes a Mismatch that names the case."""
    try:
        yield
    except StudentError as error:
        raise Mismatch(f"{case}: {error}") from None


def cells(dimensions):
    return [tuple(int(x) for x in cell) for cell in zip(*[axis.ravel() for axis in np.indices(dimensions)])]


def shown(mines):
    listed = [tuple(m) for m in mines]
    return str(listed) if len(listed) <= 8 else str(listed[:8])[:-1] + ", ...]"


def as_original(api, game):
    """An original game (the lab's `mask`, dimensions as a list) as the term's dict."""
    converted = {"dimensions": tuple(game["dimensions"]), "board": game["board"], "state": game["state"]}
    mask = np.array(game["mask"], dtype=bool)
    converted[api.key] = (~mask if api.hidden_key else mask).tolist()
    return converted


def key_view(api, game):
    """The term's visibility key of an engine game."""
    return (~game.revealed if api.hidden_key else game.revealed).tolist()


# ------------------------------------------------------------------------------- the student's game


def new_game(box, name, *args, case):
    """Call ``new_game_2d`` or ``new_game_nd``; the game stays in the sandbox (a Handle)."""
    require(box, name)
    with during(case):
        game = box.call(name, *args, keep=True)
    if not (isinstance(game, Handle) and game.type_name == "dict"):
        value = box.fetch(game) if isinstance(game, Handle) else game
        raise Mismatch(f"{case}: {name} should return the game, a dict, got {describe(value)}")
    return game


def value_of(box, game, key, case):
    """One key of the game as plain data; a missing key is a Mismatch."""
    with during(case):
        value = box.call_method(game, "get", key)
        if value is None and not box.call_method(game, "__contains__", key):
            raise Mismatch(f"{case}: the game has no key {key!r}")
    return value


def check_keys(box, game, expected, case, keys=None):
    """Compare the game's keys with ``expected``, ``dimensions`` as a tuple."""
    for key in keys or expected:
        if key == "dimensions":
            with during(case):
                found = box.call_method(game, "get", key, keep=True)
            if found.type_name != "tuple":
                got = box.fetch(found)
                raise Mismatch(
                    f"{case}: the key 'dimensions' is wrong: expected the tuple {expected[key]}, got "
                    f"{'the list ' if found.type_name == 'list' else ''}{describe(got)}"
                )
            check_equal(box.fetch(found), list(expected[key]), what="the key 'dimensions'", case=case)
        else:
            check_equal(value_of(box, game, key, case), expected[key], what=f"the key {key!r}", case=case)


def dig(box, name, game, coordinates, case):
    """``dig_2d(game, row, col)`` or ``dig_nd(game, coordinates)``: how many cells it revealed."""
    require(box, name)
    arguments = tuple(coordinates) if name == "dig_2d" else (tuple(coordinates),)
    with during(case):
        revealed = box.call(name, game, *arguments)
    if not (isinstance(revealed, int) and not isinstance(revealed, bool)):
        raise Mismatch(f"{case}: {name} should return an int (cells newly revealed), got {describe(revealed)}")
    return revealed


def render(box, api, name, game, flag, case):
    """A render function, with the flag as the term's tests pass it (2-D renders by name where they
    do; ``render_nd`` by position), or without it."""
    require(box, name)
    with during(case):
        if not flag:
            return box.call(name, game)
        if api.flag_keyword and name != "render_nd":
            return box.call(name, game, **{api.flag: True})
        return box.call(name, game, True)


def flagged(api, name, flag):
    return f"{name}(game, {api.flag}=True)" if flag else f"{name}(game)"


def check_text(box, api, game, engine, case):
    """The 2-D text picture, with and without the flag, line by line."""
    for flag in (False, True):
        got = render(box, api, api.text_2d, game, flag, case)
        wanted = write_text(engine, flag)
        if not isinstance(got, str):
            raise Mismatch(f"{case}: {flagged(api, api.text_2d, flag)} should return a str, got {describe(got)}")
        if got != wanted:
            lines, expected = got.split("\n"), wanted.split("\n")
            for number, (line, line_wanted) in enumerate(zip(lines, expected), start=1):
                if line != line_wanted:
                    raise Mismatch(
                        f"{case}: {flagged(api, api.text_2d, flag)} is wrong: line {number} is {describe(line)}, "
                        f"expected {describe(line_wanted)}"
                    )
            raise Mismatch(
                f"{case}: {flagged(api, api.text_2d, flag)} is wrong: {len(lines)} lines, expected "
                f"{len(expected)} (rows joined by newlines, none at the end)"
            )


def check_renders(box, api, name, game, engine, case, flags=(False, True)):
    for flag in flags:
        check_equal(
            render(box, api, name, game, flag, case),
            write_render(engine, flag),
            what=flagged(api, name, flag),
            case=case,
        )


def random_games(seed, salt, count, max_cells, ndims=(1, 4)):
    """Random (dimensions, mines) games, smallest first."""
    rng = random.Random(f"{seed}:{salt}")
    games: list[tuple[Coordinates, list[Coordinates]]] = []
    while len(games) < count:
        dimensions = tuple(rng.randint(1, 5) for _ in range(rng.randint(*ndims)))
        total = int(np.prod(dimensions))
        if total > max_cells or total < 2:
            continue
        every = cells(dimensions)
        rng.shuffle(every)
        games.append((dimensions, sorted(every[: rng.randint(0, max(1, total // 4))])))
    games.sort(key=lambda g: (int(np.prod(g[0])), len(g[0])))
    return games


def random_2d_games(seed, salt, count):
    """Random 2-D games of 1 to 10 rows and columns, smallest first."""
    rng = random.Random(f"{seed}:{salt}")
    games = []
    for _ in range(count):
        rows, columns = rng.randint(1, 10), rng.randint(1, 10)
        every = cells((rows, columns))
        rng.shuffle(every)
        games.append(((rows, columns), sorted(every[: rng.randint(0, max(1, rows * columns // 5))])))
    games.sort(key=lambda g: (g[0][0] * g[0][1], g[0]))
    return games


def digs_of(rng, dimensions, mines, count):
    """Coordinates to dig: mostly safe cells, sometimes a cell already dug or any cell."""
    everything = cells(dimensions)
    safe = [c for c in everything if c not in set(mines)]
    chosen: list[Coordinates] = []
    for _ in range(count):
        if chosen and rng.random() < 0.2:
            chosen.append(rng.choice(chosen))
        elif safe and rng.random() < 0.85:
            chosen.append(rng.choice(safe))
        else:
            chosen.append(rng.choice(everything))
    return chosen


def check_nothing_changes(box, api, name, game, engine, case):
    """Dig every cell of an ended game (or every shown cell of an ongoing one): each dig reveals
    nothing and the game stays as it was."""
    before = write_game(engine, api)
    for cell in cells(engine.shape):
        if engine.state == "ongoing" and not engine.revealed[cell]:
            continue
        where = f"{case}, then dig {cell}"
        check_equal(dig(box, name, game, cell, where), 0, what=f"{name}'s result", case=where)
        check_keys(box, game, before, where, keys=(api.key, "state"))


# ------------------------------------------------------------------------------- original N-D games


@points(1)
def test_new_small_6d(box, api, originals):
    """A new 3x3x3x3x3x3 game (original N-D test)"""
    given, expected = original(originals, "test_newsmall6dgame")
    case = "new_game_nd((3, 3, 3, 3, 3, 3), ...) with 150 mines (original test)"
    game = new_game(box, "new_game_nd", tuple(given["dimensions"]), [tuple(b) for b in given["bombs"]], case=case)
    check_keys(box, game, as_original(api, expected), case)


@points(1)
@time_limit(30)
def test_new_large_4d(box, api, originals):
    """A new 10x10x10x10 game (original N-D test, size case)"""
    given, expected = original(originals, "test_newlarge4dgame")
    case = "new_game_nd((10, 10, 10, 10), ...) with 2000 mines (original test)"
    game = new_game(box, "new_game_nd", tuple(given["dimensions"]), [tuple(b) for b in given["bombs"]], case=case)
    check_keys(box, game, as_original(api, expected), case)


def run_integration(box, api, originals, name):
    given, expected = original(originals, name)
    dimensions = tuple(given["dimensions"])
    start = f"new_game_nd({dimensions}, ...) (original game)"
    game = new_game(box, "new_game_nd", dimensions, [tuple(b) for b in given["bombs"]], case=start)
    for step, (coordinates, (revealed, after, rendered, xray)) in enumerate(zip(given["digs"], expected), start=1):
        case = f"original game {dimensions}, dig {step} at {tuple(coordinates)}"
        check_equal(dig(box, "dig_nd", game, coordinates, case), revealed, what="dig_nd's result", case=case)
        check_keys(box, game, as_original(api, after), case, keys=(api.key, "state"))
        check_equal(render(box, api, "render_nd", game, False, case), rendered, what="render_nd(game)", case=case)
        check_equal(render(box, api, "render_nd", game, True, case), xray, what="render_nd(game, True)", case=case)
    check_keys(box, game, as_original(api, expected[-1][1]), f"original game {dimensions} at the end")


@points(2)
@time_limit(40)
def test_integration_4d(box, api, originals):
    """A whole game on the original 15x15x12x10 board (size case)"""
    run_integration(box, api, originals, "test_integration1")


@points(2)
def test_integration_6d(box, api, originals):
    """A whole 203-dig game on the original 4x4x2x3x3x2 board, won"""
    run_integration(box, api, originals, "test_integration2")


@points(2)
@time_limit(40)
def test_integration_5d(box, api, originals):
    """A whole game on the original 10x10x10x10x3 board (size case)"""
    run_integration(box, api, originals, "test_integration3")


# ------------------------------------------------------------------------------- 2-D games


@points(2)
def test_new_2d_games(box, api, seed):
    """New 2-D games agree with the engine, a one-cell board to a 40x70 one"""
    rng = random.Random(f"{seed}:new-2d")
    boards = [((1, 1), []), ((1, 5), [(0, 2)]), ((5, 1), [(4, 0)]), ((3, 3), [(0, 0), (2, 2)])]
    boards += random_2d_games(seed, "new-2d", 6)
    every = cells((40, 70))
    rng.shuffle(every)
    boards.append(((40, 70), sorted(every[:560])))
    for (rows, columns), mines in boards:
        case = f"new_game_2d({rows}, {columns}, {shown(mines)})"
        game = new_game(box, "new_game_2d", rows, columns, mines, case=case)
        check_keys(box, game, write_game(Game.from_mines((rows, columns), mines), api), case)


@points(3)
def test_2d_games(box, api, seed):
    """Random 2-D games played dig by dig agree with the engine (result, key, state, renders, text)

    Both renders are compared with and without the flag after every dig; once a game is over,
    or after its last dig, every cell is dug again and nothing changes."""
    rng = random.Random(f"{seed}:2d-digs")
    for number, (dimensions, mines) in enumerate(random_2d_games(seed, "2d-play", 12), start=1):
        engine = Game.from_mines(dimensions, mines)
        name = f"2-D game {number}: new_game_2d({dimensions[0]}, {dimensions[1]}, {shown(mines)})"
        game = new_game(box, "new_game_2d", *dimensions, mines, case=name)
        digs = []
        for coordinates in digs_of(rng, dimensions, mines, rng.randint(3, 7)):
            digs.append(coordinates)
            case = f"{name}, digs {digs}"
            expected = engine.dig(coordinates)
            check_equal(dig(box, "dig_2d", game, coordinates, case), expected, what="dig_2d's result", case=case)
            check_keys(box, game, write_game(engine, api), case, keys=(api.key, "state"))
            check_renders(box, api, api.render_2d, game, engine, case)
            check_text(box, api, game, engine, case)
        check_nothing_changes(box, api, "dig_2d", game, engine, f"{name}, digs {digs}")


# ------------------------------------------------------------------------------- edges and rules


EDGE_CASES: list[tuple[Coordinates, list[Coordinates], Coordinates]] = [
    ((5,), [(0,)], (4,)),
    ((5,), [(4,)], (0,)),
    ((1, 6), [(0, 5)], (0, 0)),
    ((4, 4), [(0, 3)], (3, 0)),
    ((4, 4), [(3, 3)], (0, 0)),
    ((3, 3), [(0, 0)], (2, 2)),
    ((3, 4, 2), [(2, 3, 1)], (0, 0, 0)),
    ((2, 2, 2, 2), [(1, 1, 1, 1)], (0, 0, 0, 0)),
]


@points(2)
def test_edges(box, api):
    """Neighbours at the edges and corners, and floods that stop at the numbers"""
    for dimensions, mines, start in EDGE_CASES:
        case = f"new_game_nd({dimensions}, {mines}), dig {start}"
        engine = Game.from_mines(dimensions, mines)
        game = new_game(box, "new_game_nd", dimensions, mines, case=case)
        check_keys(box, game, write_game(engine, api), case, keys=("board",))
        expected = engine.dig(start)
        check_equal(dig(box, "dig_nd", game, start, case), expected, what="dig_nd's result", case=case)
        check_keys(box, game, write_game(engine, api), case, keys=(api.key, "state"))
        check_renders(box, api, "render_nd", game, engine, case, flags=(False,))


@points(1)
def test_nothing_after_the_end(box, api):
    """Digging a shown cell, or any cell once the game is lost or won, reveals nothing"""
    engine = Game.from_mines((3, 3), [(0, 0), (2, 2)])
    name = "new_game_2d(3, 3, [(0, 0), (2, 2)])"
    game = new_game(box, "new_game_2d", 3, 3, [(0, 0), (2, 2)], case=name)
    for cell, what in (((0, 1), ""), ((0, 1), " again"), ((0, 0), ", a mine")):
        case = f"{name}, dig {cell}{what}"
        check_equal(dig(box, "dig_2d", game, cell, case), engine.dig(cell), what="dig_2d's result", case=case)
        check_keys(box, game, write_game(engine, api), case, keys=(api.key, "state"))
    check_nothing_changes(box, api, "dig_2d", game, engine, f"{name}, digs [(0, 1), (0, 0)] (lost)")
    dimensions, mines = (2, 2, 3), [(0, 0, 0)]
    engine = Game.from_mines(dimensions, mines)
    name = f"new_game_nd({dimensions}, {mines})"
    game = new_game(box, "new_game_nd", dimensions, mines, case=name)
    case = f"{name}, dig (1, 1, 2)"
    check_equal(dig(box, "dig_nd", game, (1, 1, 2), case), engine.dig((1, 1, 2)), what="dig_nd's result", case=case)
    check_keys(box, game, write_game(engine, api), case, keys=(api.key, "state"))
    check_nothing_changes(box, api, "dig_nd", game, engine, f"{case} (won)")


@points(1)
def test_victory(box, api, seed):
    """The game is won exactly when every safe cell is shown, in 2-D and in N-D"""
    rng = random.Random(f"{seed}:won")
    plays = [("new_game_2d", (2, 3), [(0, 1)])]
    plays += [("new_game_nd", d, m) for d, m in random_games(seed, "won", 4, 40) if len(m) < int(np.prod(d))]
    for maker, dimensions, mines in plays:
        engine = Game.from_mines(dimensions, mines)
        arguments = (*dimensions, mines) if maker == "new_game_2d" else (dimensions, mines)
        name = f"{maker}({', '.join(map(str, arguments[:-1]))}, {shown(mines)})"
        game = new_game(box, maker, *arguments, case=name)
        digger = "dig_2d" if maker == "new_game_2d" else "dig_nd"
        safe = [c for c in cells(dimensions) if c not in set(mines)]
        rng.shuffle(safe)
        digs = []
        for cell in safe:
            if engine.revealed[cell]:
                continue
            digs.append(cell)
            case = f"{name}, digs {digs}"
            check_equal(dig(box, digger, game, cell, case), engine.dig(cell), what=f"{digger}'s result", case=case)
            check_keys(box, game, write_game(engine, api), case, keys=("state",))


@points(2)
def test_one_and_many_dimensions(box, api, seed):
    """1-D games, and games of 8 axes (some of size 1)"""
    rng = random.Random(f"{seed}:shapes")
    shapes: list[tuple[Coordinates, list[Coordinates]]] = [
        ((1,), []),
        ((7,), [(1,), (5,)]),
        ((2,) * 8, [(0,) * 8, (1,) * 8]),
        ((1,) * 6 + (3, 2), []),
    ]
    shapes.append(((1,) * 7 + (6,), [(0,) * 7 + (rng.randrange(6),)]))
    for dimensions, mines in shapes:
        engine = Game.from_mines(dimensions, mines)
        name = f"new_game_nd({dimensions}, {mines})"
        game = new_game(box, "new_game_nd", dimensions, mines, case=name)
        check_keys(box, game, write_game(engine, api), name)
        digs = []
        for cell in digs_of(rng, dimensions, mines, 3):
            digs.append(cell)
            case = f"{name}, digs {digs}"
            check_equal(dig(box, "dig_nd", game, cell, case), engine.dig(cell), what="dig_nd's result", case=case)
            check_keys(box, game, write_game(engine, api), case, keys=(api.key, "state"))
            check_renders(box, api, "render_nd", game, engine, case)


# ------------------------------------------------------------------------------- differential


@points(2)
def test_random_new_games(box, api, seed):
    """New games on random boards in 1 to 4 dimensions agree with the engine"""
    for number, (dimensions, mines) in enumerate(random_games(seed, "new", 12, 300), start=1):
        case = f"random game {number}: new_game_nd({dimensions}, {shown(mines)})"
        game = new_game(box, "new_game_nd", dimensions, mines, case=case)
        check_keys(box, game, write_game(Game.from_mines(dimensions, mines), api), case)


@points(3)
def test_random_games(box, api, seed):
    """Random N-D games played dig by dig agree with the engine (result, key, state, render_nd)"""
    rng = random.Random(f"{seed}:digs")
    for number, (dimensions, mines) in enumerate(random_games(seed, "play", 15, 250), start=1):
        engine = Game.from_mines(dimensions, mines)
        name = f"random game {number}: new_game_nd({dimensions}, {shown(mines)})"
        game = new_game(box, "new_game_nd", dimensions, mines, case=name)
        digs = []
        for cell in digs_of(rng, dimensions, mines, rng.randint(3, 8)):
            digs.append(cell)
            case = f"{name}, digs {digs}"
            check_equal(dig(box, "dig_nd", game, cell, case), engine.dig(cell), what="dig_nd's result", case=case)
            check_keys(box, game, write_game(engine, api), case, keys=(api.key, "state"))
            check_renders(box, api, "render_nd", game, engine, case, flags=(False,))
        check_renders(box, api, "render_nd", game, engine, name, flags=(True,))
