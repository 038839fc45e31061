"""Hidden suite of the `hypermines` assignment (notebook 04-nd-dig, the 6.009 API).

Fixed cases are the original lab's tests (data/originals/hypermines); differential cases compare the
submission with the engine on random games drawn from this grading run's seed, smallest first;
size cases are the original 4-D and 5-D boards. A game is its four attributes and nothing else, so
a game whose `board` or `mask` was replaced must still play, and be won, by the rules. `dump()`,
given in the template and the notebook, must still print the four attributes (one slice of the
first axis a line); spaces are not counted, since the lab's template and the notebook align the
lines differently.

Time: 40 s of CPU time for the two largest whole games and 30 s for every other test, as the
notebook states; the reference needs at most about 0.7 s for any test (over 40 times less).
"""

from __future__ import annotations

import json
import random
from contextlib import contextmanager
from functools import cache

import numpy as np

from autograder.suite import Mismatch, check_equal, describe, first_difference, points, require, time_limit
from minesweeper_kit import Game
from minesweeper_kit.formats.mit6009 import write_board as hypermines_board
from minesweeper_kit.formats.mit6009 import write_render as hypermines_render
from minesweeper_kit.sandbox import StudentError

ATTRIBUTES = ("dimensions", "board", "mask", "state")


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


def new_game(box, dimensions, bombs):
    require(box, "HyperMinesGame")
    with during(f"HyperMinesGame({dimensions}, {describe(bombs)})"):
        return box.call("HyperMinesGame", dimensions, bombs)


def game_from_attributes(box, game):
    """As the original harness did: an empty game whose four attributes are then overwritten."""
    handle = new_game(box, game["dimensions"], [])
    for name in ("board", "mask", "state"):
        box.set_attr(handle, name, game[name])
    return handle


def check_attributes(box, handle, expected, case, names=ATTRIBUTES):
    for name in names:
        check_equal(box.get_attr(handle, name), expected[name], what=f"the attribute {name}", case=case)


def dig(box, handle, coordinates, case):
    with during(case):
        revealed = box.call_method(handle, "dig", list(coordinates))
    if not (isinstance(revealed, int) and not isinstance(revealed, bool)):
        raise Mismatch(f"{case}: dig should return an int (cells newly revealed), got {describe(revealed)}")
    return revealed


def engine_view(game):
    return {
        "dimensions": list(game.shape),
        "board": hypermines_board(game),
        "mask": game.revealed.tolist(),
        "state": game.state,
    }


def cells(dimensions):
    total = 1
    for size in dimensions:
        total *= size
    return total


def random_games(seed, salt, count, max_cells):
    """Random (dimensions, bombs) games, smallest first."""
    rng = random.Random(f"{seed}:{salt}")
    games: list[tuple[list[int], list[list[int]], float]] = []
    while len(games) < count:
        ndim = rng.randint(1, 4)
        dimensions = [rng.randint(1, 5) for _ in range(ndim)]
        total = cells(dimensions)
        if total > max_cells or total < 2:
            continue
        every = [tuple(rng.randrange(n) for n in dimensions) for _ in range(total * 2)]
        unique = sorted(set(every), key=every.index)
        bombs = [list(c) for c in unique[: rng.randint(0, max(1, total // 4))]]
        games.append((dimensions, bombs, rng.random()))
    games.sort(key=lambda g: (cells(g[0]), len(g[0])))
    return games


def printed_by_method(box, handle, name, *args):
    """What calling method ``name`` of an object in the sandbox printed."""
    _, printed = box.call_captured(name, *args, handle=handle)
    return printed


def folded(line):
    """A printed line compared without its spaces, a tuple read as a list (``(3,)`` as ``[3]``)."""
    return "".join(line.split()).replace(",)", ")").replace("(", "[").replace(")", "]")


def dump_lines(game):
    """What dump() prints for these attributes, one slice of the first axis a line."""
    lines = [f"dimensions: {game['dimensions']}"]
    for name in ("board", "mask"):
        parts = [str(part) for part in game[name]]
        lines += [f"{name}: {parts[0]}"] + parts[1:]
    lines.append(f"state: {game['state']}")
    return lines


def check_dump(box, handle, game, case):
    with during(case):
        printed = [" ".join(line.split()) for line in printed_by_method(box, handle, "dump").splitlines()]
    printed = [line for line in printed if line]
    wanted = dump_lines(game)
    for index, line in enumerate(wanted):
        got = printed[index] if index < len(printed) else "(nothing)"
        if folded(got) != folded(line):
            raise Mismatch(
                f"{case}: dump() printed line {index + 1} as {describe(got)}, expected {describe(line)} "
                "(spaces not counted)"
            )
    if len(printed) > len(wanted):
        raise Mismatch(f"{case}: dump() printed {len(printed)} lines, expected {len(wanted)}")


def describe_game(number, dimensions, bombs):
    shown = bombs if len(bombs) <= 12 else str(bombs[:12])[:-1] + ", ...]"
    return f"random game {number} (dimensions {dimensions}, bombs {shown})"


# ------------------------------------------------------------------------------- fixed cases


@points(1)
def test_new_small_6d(box, originals):
    """A new 3x3x3x3x3x3 game (original test)"""
    given, expected = original(originals, "test_newsmall6dgame")
    handle = new_game(box, given["dimensions"], given["bombs"])
    check_attributes(box, handle, expected, "new 6-D game [3, 3, 3, 3, 3, 3] with 150 bombs")


@points(1)
@time_limit(30)
def test_new_large_4d(box, originals):
    """A new 10x10x10x10 game (original test, size case)"""
    given, expected = original(originals, "test_newlarge4dgame")
    handle = new_game(box, given["dimensions"], given["bombs"])
    check_attributes(box, handle, expected, "new 4-D game [10, 10, 10, 10] with 2000 bombs")


@points(1)
def test_dig_ongoing(box, originals):
    """Dig a safe cell of a game given by its attributes (original test)"""
    given, expected = original(originals, "test_digongoing")
    handle = game_from_attributes(box, given["game"])
    case = f"dig {given['coordinates']} on the original 'dig ongoing' 2x4x2 game"
    check_equal(dig(box, handle, given["coordinates"], case), expected["revealed"], what="dig's result", case=case)
    check_attributes(box, handle, expected["game"], case)


@points(1)
def test_dig_defeat(box, originals):
    """Dig a bomb of a game given by its attributes (original test)"""
    given, expected = original(originals, "test_digdefeat")
    handle = game_from_attributes(box, given["game"])
    case = f"dig {given['coordinates']} on the original 'dig defeat' game"
    check_equal(dig(box, handle, given["coordinates"], case), expected["revealed"], what="dig's result", case=case)
    check_attributes(box, handle, expected["game"], case)


@points(1)
def test_render(box, originals):
    """render() and render(True) of a game given by its attributes (original test)"""
    given, expected = original(originals, "test_render")
    handle = game_from_attributes(box, given)
    case = f"render of the original {given['dimensions']} game"
    check_equal(box.call_method(handle, "render"), expected["no_xray"], what="render()", case=case)
    check_equal(box.call_method(handle, "render", True), expected["xray"], what="render(True)", case=case)


def run_integration(box, originals, name):
    given, expected = original(originals, name)
    handle = new_game(box, given["dimensions"], given["bombs"])
    for step, (coordinates, (revealed, game, render, xray)) in enumerate(zip(given["digs"], expected), start=1):
        case = f"original game {given['dimensions']}, dig {step} at {coordinates}"
        check_equal(dig(box, handle, coordinates, case), revealed, what="dig's result", case=case)
        check_attributes(box, handle, game, case, names=("mask", "state"))
        check_equal(box.call_method(handle, "render"), render, what="render()", case=case)
        check_equal(box.call_method(handle, "render", True), xray, what="render(True)", case=case)
    check_attributes(box, handle, expected[-1][1], f"original game {given['dimensions']} at the end")


@points(2)
@time_limit(40)
def test_integration_4d(box, originals):
    """A whole game on the original 15x15x12x10 board (size case)"""
    run_integration(box, originals, "test_integration1")


@points(2)
def test_integration_6d(box, originals):
    """A whole 203-dig game on the original 4x4x2x3x3x2 board, won"""
    run_integration(box, originals, "test_integration2")


@points(2)
@time_limit(40)
def test_integration_5d(box, originals):
    """A whole game on the original 10x10x10x10x3 board (size case)"""
    run_integration(box, originals, "test_integration3")


# ------------------------------------------------------------------------------- edges and rules


EDGE_CASES = [
    ([5], [[0]], [4]),
    ([5], [[4]], [0]),
    ([1, 6], [[0, 5]], [0, 0]),
    ([4, 4], [[0, 3]], [3, 0]),
    ([4, 4], [[3, 3]], [0, 0]),
    ([3, 3], [[0, 0]], [2, 2]),
    ([3, 4, 2], [[2, 3, 1]], [0, 0, 0]),
    ([2, 2, 2, 2], [[1, 1, 1, 1]], [0, 0, 0, 0]),
]


@points(2)
def test_edges(box):
    """Neighbours at the edges and corners, and floods that stop at the numbers"""
    for dimensions, bombs, start in EDGE_CASES:
        case = f"game {dimensions} with bombs {bombs}, dig {start}"
        game = Game.from_mines(dimensions, bombs)
        handle = new_game(box, dimensions, bombs)
        check_equal(box.get_attr(handle, "board"), hypermines_board(game), what="the attribute board", case=case)
        expected = game.dig(start)
        check_equal(dig(box, handle, start, case), expected, what="dig's result", case=case)
        check_attributes(box, handle, engine_view(game), case, names=("mask", "state"))
        check_equal(box.call_method(handle, "render"), hypermines_render(game), what="render()", case=case)


@points(1)
def test_redig_and_after_the_end(box):
    """Digging a revealed cell, or any cell after the game ended, reveals nothing"""
    dimensions, bombs = [3, 3], [[0, 0], [2, 2]]
    handle = new_game(box, dimensions, bombs)
    case = "game [3, 3] with bombs [[0, 0], [2, 2]]"
    check_equal(dig(box, handle, [0, 1], case + ", dig [0, 1]"), 1, what="dig's result", case=case + ", dig [0, 1]")
    check_equal(
        dig(box, handle, [0, 1], case + ", dig [0, 1] again"), 0, what="dig's result", case=case + ", dig [0, 1] again"
    )
    check_equal(
        dig(box, handle, [0, 0], case + ", dig the bomb [0, 0]"),
        1,
        what="dig's result",
        case=case + ", dig the bomb [0, 0]",
    )
    check_equal(
        box.get_attr(handle, "state"), "defeat", what="the attribute state", case=case + " after digging a bomb"
    )
    after = case + ", dig [2, 0] after the defeat"
    check_equal(dig(box, handle, [2, 0], after), 0, what="dig's result", case=after)
    check_equal(
        box.get_attr(handle, "mask"),
        [[True, True, False], [False, False, False], [False, False, False]],
        what="the attribute mask",
        case=after,
    )


#: Why a game whose mask was replaced must still be won by its last safe cell (the notebook's rule).
FOUR_ATTRIBUTES = (
    "dig must read the game from its four attributes alone, which may be replaced between digs: "
    "no other record, such as a count of the cells revealed so far"
)


@points(1)
def test_victory(box, seed):
    """The game is won exactly when every safe cell is revealed"""
    dimensions, bombs = [2, 3], [[0, 1]]
    handle = new_game(box, dimensions, bombs)
    game = Game.from_mines(dimensions, bombs)
    for coordinates in ([0, 0], [1, 0], [1, 1], [1, 2], [0, 2]):
        case = f"game {dimensions} with bombs {bombs}, dig {coordinates}"
        expected = game.dig(coordinates)
        check_equal(dig(box, handle, coordinates, case), expected, what="dig's result", case=case)
        check_equal(box.get_attr(handle, "state"), game.state, what="the attribute state", case=case)
    # A game's mask replaced by one showing every safe cell but one: digging that one wins.
    rng = random.Random(f"{seed}:won")
    for number, (dimensions, bombs, _) in enumerate(random_games(seed, "won", 4, 60), start=1):
        everything = [list(map(int, c)) for c in zip(*[x.ravel() for x in np.indices(dimensions)])]
        last = rng.choice([c for c in everything if c not in bombs])
        mask = np.zeros(dimensions, dtype=bool)
        for cell in everything:
            mask[tuple(cell)] = cell not in bombs and cell != last
        case = (
            f"{describe_game(number, dimensions, bombs)} whose mask was then replaced by one showing every "
            f"safe cell but {last}, dig {last}"
        )
        handle = new_game(box, dimensions, bombs)
        box.set_attr(handle, "mask", mask.tolist())
        check_equal(dig(box, handle, last, case), 1, what="dig's result", case=case)
        difference = first_difference(box.get_attr(handle, "state"), "victory")
        if difference:
            raise Mismatch(f"{case}: the attribute state is wrong: {difference} ({FOUR_ATTRIBUTES})")


# ------------------------------------------------------------------------------- differential


@points(2)
def test_random_new_games(box, seed):
    """New games on random boards in 1 to 4 dimensions agree with the engine"""
    for number, (dimensions, bombs, _) in enumerate(random_games(seed, "new", 12, 300), start=1):
        case = describe_game(number, dimensions, bombs)
        handle = new_game(box, dimensions, bombs)
        expected = engine_view(Game.from_mines(dimensions, bombs))
        check_attributes(box, handle, expected, case)
        check_dump(box, handle, expected, case)


@points(3)
def test_random_games(box, seed):
    """Random games played dig by dig agree with the engine (result, mask, state, render)"""
    rng = random.Random(f"{seed}:digs")
    for number, (dimensions, bombs, _) in enumerate(random_games(seed, "play", 15, 250), start=1):
        game = Game.from_mines(dimensions, bombs)
        handle = new_game(box, dimensions, bombs)
        everything = [list(map(int, c)) for c in zip(*[x.ravel() for x in np.indices(dimensions)])]
        safe = [c for c in everything if c not in bombs]
        digs: list[list[int]] = []
        for _ in range(rng.randint(3, 8)):
            if digs and rng.random() < 0.2:
                coordinates = rng.choice(digs)
            elif safe and rng.random() < 0.85:
                coordinates = rng.choice(safe)
            else:
                coordinates = rng.choice(everything)
            digs.append(coordinates)
            case = describe_game(number, dimensions, bombs) + f", digs {digs}"
            expected = game.dig(coordinates)
            check_equal(dig(box, handle, coordinates, case), expected, what="dig's result", case=case)
            check_attributes(box, handle, engine_view(game), case, names=("mask", "state"))
            check_equal(box.call_method(handle, "render"), hypermines_render(game), what="render()", case=case)
        check_equal(
            box.call_method(handle, "render", True),
            hypermines_render(game, xray=True),
            what="render(True)",
            case=describe_game(number, dimensions, bombs),
        )
