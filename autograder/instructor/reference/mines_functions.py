"""Reference solution of MIT's function-API Mines (6.009 and 6.101, 2020 to 2024), in plain Python.

A game is a dict of four keys, changed in place by the functions: ``dimensions`` (a tuple),
``board`` (nested lists, one level per axis: ``'.'`` for a mine, else how many mines are
around), the visibility key and ``state`` (``'ongoing'``, ``'victory'`` or ``'defeat'``). The
2-D functions are the N-D ones on two axes.

This text is written for the 6.101 Fall 2023 API (key ``visible``, render flag
``all_visible``). The grader makes each other term's reference from it by renaming: the key
line below (``hidden`` also flips what True means), the render flag and the two 2-D render
functions (``autograder/references.py``). Nothing else differs between the terms.

Only the standard library's ``typing`` is imported, as the handouts allow; no itertools: the
cells of a board are walked by recursion on the first axis, as the labs teach.
"""

from typing import Any

#: The visibility key of the game dict, and the value it holds for a cell the player can see.
KEY, SHOWN = "visible", True

MINE = "."
COVERED = "_"
EMPTY = " "


# -- Nested lists in N dimensions ---------------------------------------------------------------


def filled(dimensions, value):
    """A nested list of the given dimensions holding ``value`` everywhere (no shared rows)."""
    if not dimensions:
        return value
    return [filled(dimensions[1:], value) for _ in range(dimensions[0])]


def cell_of(array, coordinates):
    """The value of ``array`` at ``coordinates``."""
    for x in coordinates:
        array = array[x]
    return array


def put(array, coordinates, value):
    """Store ``value`` in ``array`` at ``coordinates``."""
    for x in coordinates[:-1]:
        array = array[x]
    array[coordinates[-1]] = value


def every_cell(dimensions):
    """Every coordinate of a board of these dimensions, as tuples, the last axis fastest."""
    if not dimensions:
        return [()]
    return [(x,) + rest for x in range(dimensions[0]) for rest in every_cell(dimensions[1:])]


def around(dimensions, coordinates):
    """The cells next to ``coordinates`` (every axis within one step), the cell itself excluded."""

    def box(axis):
        if axis == len(dimensions):
            return [()]
        here = coordinates[axis]
        near = [x for x in (here - 1, here, here + 1) if 0 <= x < dimensions[axis]]
        return [(x,) + rest for x in near for rest in box(axis + 1)]

    start = tuple(coordinates)
    return [cell for cell in box(0) if cell != start]


def mapped(function, *arrays):
    """``function`` applied cell by cell to nested lists of the same shape."""
    if isinstance(arrays[0], list):
        return [mapped(function, *parts) for parts in zip(*arrays)]
    return function(*arrays)


# -- N-D game -----------------------------------------------------------------------------------


def new_game_nd(dimensions, mines):
    """A new game on a board of ``dimensions`` (a tuple) with mines at the coordinates ``mines``."""
    board = filled(dimensions, 0)
    mine_cells = {tuple(mine) for mine in mines}
    for mine in mine_cells:
        put(board, mine, MINE)
    for mine in mine_cells:
        for cell in around(dimensions, mine):
            if cell_of(board, cell) != MINE:
                put(board, cell, cell_of(board, cell) + 1)
    return {"dimensions": tuple(dimensions), "board": board, KEY: filled(dimensions, not SHOWN), "state": "ongoing"}


def is_shown(game, cell):
    """Whether the player can see ``cell``."""
    return cell_of(game[KEY], cell) == SHOWN


def won(game):
    """Whether every safe cell is shown."""
    return all(is_shown(game, cell) or cell_of(game["board"], cell) == MINE for cell in every_cell(game["dimensions"]))


def dig_nd(game, coordinates):
    """Reveal the cell at ``coordinates`` and, from every 0 revealed, its neighbours; return how
    many cells this revealed.

    Nothing happens (0) once the game is over or when the cell is already shown. A mine is
    shown, loses the game and counts 1. The flood keeps a list of cells to open rather than
    recursing, so a large empty region cannot exhaust the call stack.
    """
    if game["state"] != "ongoing" or is_shown(game, coordinates):
        return 0
    if cell_of(game["board"], coordinates) == MINE:
        put(game[KEY], coordinates, SHOWN)
        game["state"] = "defeat"
        return 1
    revealed = 0
    to_open = [tuple(coordinates)]
    while to_open:
        cell = to_open.pop()
        if is_shown(game, cell):
            continue
        put(game[KEY], cell, SHOWN)
        revealed += 1
        if cell_of(game["board"], cell) == 0:
            to_open += [near for near in around(game["dimensions"], cell) if not is_shown(game, near)]
    if won(game):
        game["state"] = "victory"
    return revealed


def render_nd(game, all_visible=False):
    """The board as the player sees it: ``'_'`` covered (unless ``all_visible``), ``'.'`` a mine,
    ``' '`` a 0, else the count as a string."""

    def show(value, visibility):
        if not all_visible and visibility != SHOWN:
            return COVERED
        return EMPTY if value == 0 else str(value)

    return mapped(show, game["board"], game[KEY])


# -- 2-D game -----------------------------------------------------------------------------------


def new_game_2d(nrows, ncolumns, mines):
    """A new game of ``nrows`` rows and ``ncolumns`` columns with mines at the (row, column)
    pairs ``mines``."""
    return new_game_nd((nrows, ncolumns), mines)


def dig_2d(game, row, col):
    """``dig_nd`` at (row, col)."""
    return dig_nd(game, (row, col))


def render_2d_locations(game, all_visible=False):
    """``render_nd`` of a 2-D game."""
    return render_nd(game, all_visible)


def render_2d_board(game, all_visible=False):
    """The 2-D render as text: each row's cells side by side, rows joined by newlines."""
    return "\n".join("".join(row) for row in render_2d_locations(game, all_visible))


def dump(game: Any) -> None:
    """Print the game's keys, one row of a nested list a line."""
    for key, value in sorted(game.items()):
        if isinstance(value, list) and value and isinstance(value[0], list):
            print(f"{key}:")
            for row in value:
                print(f"    {row}")
        else:
            print(f"{key}:", value)
