"""Chaffs of step 2's solution (make_board, get/set_coords, all_coords, neighbors, new_board)."""

from __future__ import annotations

from . import Chaff

CHAFFS = [
    Chaff(
        "make_board_repeats_one_row",
        "make_board repeats one inner board instead of building each",
        (
            (
                "    return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]\n",
                "    return [make_board(dimensions[1:], elem)] * dimensions[0]\n",
            ),
        ),
        loses=("test_make_board_has_no_aliasing", "test_new_board", "test_large_board"),
        keeps=("test_make_board", "test_all_coords", "test_neighbors"),
        says=("make_board([2, 2], 0) then set_coords(board, [0, 1], 1): the board after set_coords is wrong",),
        hint=(
            "In make_board, check whether an inner board is built once and then reused: multiplying a list, or "
            "appending the same list again and again, makes every row the same object, so setting one cell changes "
            "them all. Build each inner board anew."
        ),
    ),
    Chaff(
        "make_board_one_short",
        "make_board's last axis holds one cell too few",
        (
            (
                "        return [elem for _ in range(dimensions[0])]\n",
                "        return [elem for _ in range(dimensions[0] - 1)]\n",
            ),
        ),
        loses=("test_make_board",),
        keeps=("test_all_coords", "test_neighbors"),
        says=("make_board([3], 0): make_board's result is wrong: the top level has 2 items, expected 3",),
        hint=(
            "In make_board, count the cells of the last axis for dimensions [3]: check where your range starts and "
            "where it stops."
        ),
        planted=False,
    ),
    Chaff(
        "get_coords_needs_a_list",
        "get_coords stops at coordinates == [], so tuple coordinates never stop",
        (
            (
                "    if len(coordinates) == 1:\n        return board[coordinates[0]]\n    return get_coords(",
                "    if coordinates == []:\n        return board\n    return get_coords(",
            ),
        ),
        loses=("test_get_and_set_coords", "test_new_board"),
        keeps=("test_make_board", "test_make_board_has_no_aliasing", "test_all_coords", "test_neighbors"),
        says=("get_coords(board, (", "IndexError"),
        hint=(
            "In get_coords, look at the test that ends the recursion: the coordinates may be a tuple, and a tuple "
            "never equals a list. Test for the end in a way that works for tuples and lists alike."
        ),
    ),
    Chaff(
        "set_coords_returns_the_board",
        "set_coords changes the board and also returns it",
        (
            (
                "        set_coords(board[coordinates[0]], coordinates[1:], value)\n",
                "        set_coords(board[coordinates[0]], coordinates[1:], value)\n    return board\n",
            ),
        ),
        loses=("test_get_and_set_coords",),
        says=("should change the board in place and return nothing",),
        hint="set_coords changes the board in place and returns nothing: look at what your function returns.",
    ),
    Chaff(
        "all_coords_column_major",
        "all_coords lets the first axis change fastest",
        (
            (
                "    return [(first,) + tail for first in range(dimensions[0]) for tail in rest]",
                "    return [(first,) + tail for tail in rest for first in range(dimensions[0])]",
            ),
        ),
        loses=("test_all_coords",),
        says=("all_coords([2, 2]): all_coords' result is wrong: at [1][0]: expected 0, got 1",),
        hint=(
            "In all_coords, check the order of the coordinates: the last axis changes fastest (row-major order, as "
            "you read a page). Look at the order of your loops."
        ),
    ),
    Chaff(
        "neighbors_needs_lists",
        "neighbors stops at dimensions == [], so tuple dimensions never stop",
        (
            (
                "    if len(dimensions) == 0:\n        return []\n    first = coordinates[0]",
                "    if dimensions == []:\n        return []\n    first = coordinates[0]",
            ),
        ),
        loses=("test_neighbors",),
        says=("neighbors((5,), (0,))", "IndexError"),
        hint=(
            "In neighbors, look at the test that ends the recursion: the dimensions may be a tuple, and a tuple "
            "never equals a list. Test for the end in a way that works for tuples and lists alike."
        ),
    ),
    Chaff(
        "neighbors_includes_itself",
        "neighbors forgets to leave the cell itself out",
        (
            (
                "return [(value,) + tail for value in firsts for tail in rest if (value,) + tail != itself]",
                "return [(value,) + tail for value in firsts for tail in rest]",
            ),
        ),
        # This one also counts some cells twice, so new_board loses too; a neighbors that only
        # lists the cell itself does not: new_board's tests are left open.
        loses=("test_neighbors",),
        keeps=("test_make_board", "test_make_board_has_no_aliasing", "test_get_and_set_coords", "test_all_coords"),
        says=("neighbors([5], [0]): the neighbours are wrong: unexpected: [0]",),
        hint=(
            "In neighbors, check that the cell itself is left out of the list, on a board with any number of axes: a "
            "cell is not its own neighbour."
        ),
    ),
    Chaff(
        "neighbors_edge_off_by_one",
        "neighbors drops position 0 on every axis",
        (
            (
                "firsts = [value for value in (first - 1, first, first + 1) if 0 <= value < dimensions[0]]",
                "firsts = [value for value in (first - 1, first, first + 1) if 0 < value < dimensions[0]]",
            ),
        ),
        loses=("test_neighbors", "test_new_board", "test_large_board"),
        keeps=("test_make_board", "test_make_board_has_no_aliasing", "test_get_and_set_coords", "test_all_coords"),
        says=("neighbors([3, 3], [0, 0]): the neighbours are wrong: missing: [0, 1]",),
        hint=(
            "In neighbors, check the condition that keeps a position on the board: 0 is a valid position on every axis."
        ),
    ),
    Chaff(
        "new_board_forgets_the_last_bomb",
        "new_board counts around every bomb but the last",
        (
            (
                "    for bomb in bombs:\n        for cell in neighbors(dimensions, bomb):",
                "    for bomb in bombs[:-1]:\n        for cell in neighbors(dimensions, bomb):",
            ),
        ),
        loses=("test_new_board", "test_large_board"),
        says=("new_board([4], [[0]]): the board is wrong: at [1]: expected 1, got 0",),
        hint=(
            "In new_board, check the loop over the bombs: every bomb, the last one too, adds 1 to each of its "
            "neighbours."
        ),
        planted=False,
    ),
    Chaff(
        "make_board_copies_one_level",
        "make_board copies one inner board with [:], which copies its top level only",
        (
            (
                "    return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]\n",
                "    inner = make_board(dimensions[1:], elem)\n    return [inner[:] for _ in range(dimensions[0])]\n",
            ),
        ),
        loses=("test_make_board_has_no_aliasing", "test_new_board", "test_large_board"),
        says=("make_board([3, 2, 2], 0) then set_coords(board, [2, 1, 0], 1): the board after set_coords is wrong",),
        hint=(
            "Set one cell of a 3-D board from make_board and print the board: [:] copies the outer list only, so the "
            "lists inside a copy are still shared. Build each inner board anew."
        ),
    ),
    Chaff(
        "set_coords_on_a_top_level_copy",
        "set_coords works on a copy of the board made with [:], so a 1-D board never changes",
        (
            ("def set_coords(board, coordinates, value):", "def set_coords(board, coordinates, value, top=True):"),
            (
                "    if len(coordinates) == 1:\n        board[coordinates[0]] = value\n",
                "    if top:\n        board = board[:]\n"
                "    if len(coordinates) == 1:\n        board[coordinates[0]] = value\n",
            ),
            (
                "        set_coords(board[coordinates[0]], coordinates[1:], value)\n",
                "        set_coords(board[coordinates[0]], coordinates[1:], value, False)\n",
            ),
        ),
        loses=("test_get_and_set_coords", "test_new_board"),
        says=("get_coords after set_coords(board, [1], 'here') is wrong",),
        hint=(
            "Try set_coords on a 1-D board: [:] copies a list's top level, and on a 1-D board the top level is the "
            "cells themselves. Change the board you were given."
        ),
    ),
    Chaff(
        "neighbors_bare_ints_in_1d",
        "neighbors gives the neighbours on a 1-D board as bare numbers, not 1-tuples",
        (
            (
                "def neighbors(dimensions, coordinates):",
                "def neighbors(dimensions, coordinates):\n    if len(dimensions) == 1:\n"
                "        return [cell[0] for cell in _neighbors(dimensions, coordinates)]\n"
                "    return _neighbors(dimensions, coordinates)\n\n\ndef _neighbors(dimensions, coordinates):",
            ),
            (
                "    rest = neighbors(dimensions[1:], coordinates[1:]) + [tuple(coordinates[1:])]",
                "    rest = _neighbors(dimensions[1:], coordinates[1:]) + [tuple(coordinates[1:])]",
            ),
        ),
        loses=("test_new_board",),
        says=("new_board([4], [[0]]): TypeError",),
        hint=(
            "Look at what neighbors returns on a 1-D board: a neighbour is a coordinate, a tuple with one number per "
            "axis, so on one axis it is a 1-tuple like (3,)."
        ),
    ),
    Chaff(
        "neighbors_past_the_edge",
        "neighbors lets a position run one past the end of an axis",
        (
            (
                "firsts = [value for value in (first - 1, first, first + 1) if 0 <= value < dimensions[0]]",
                "firsts = [value for value in (first - 1, first, first + 1) if 0 <= value <= dimensions[0]]",
            ),
        ),
        loses=("test_neighbors", "test_new_board", "test_large_board"),
        says=("neighbors([5], [4]): the neighbours are wrong: unexpected: [5]",),
        hint=(
            "In neighbors, check the condition that keeps a position on the board: the last position of an axis is "
            "its size minus 1."
        ),
    ),
    Chaff(
        "new_board_bombs_need_tuples",
        "new_board keeps the bombs in a set, so bombs given as lists cannot be stored",
        (
            (
                "    board = make_board(dimensions, 0)\n    for bomb in bombs:",
                "    bombs = set(bombs)\n    board = make_board(dimensions, 0)\n    for bomb in bombs:",
            ),
        ),
        loses=("test_new_board", "test_large_board"),
        says=("unhashable type: 'list'",),
        hint=(
            "Call new_board with the bombs given as lists, as the notebook's examples do: a list cannot go into a "
            "set. Keep the coordinates as they come, or turn each into a tuple first."
        ),
    ),
]
