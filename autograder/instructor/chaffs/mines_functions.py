"""Chaffs of the function-API reference (`instructor/reference/mines_functions.py`), for every term.

Each term's reference is the same text renamed (`autograder/references.py`), so these
replacements avoid the renamed words (the key line, the render flag, the 2-D render names) and
apply to every term's reference alike.
"""

from __future__ import annotations

from . import Chaff

CHAFFS = [
    Chaff(
        "edge_off_by_one",
        "an axis loses its position 0",
        (
            (
                "near = [x for x in (here - 1, here, here + 1) if 0 <= x < dimensions[axis]]",
                "near = [x for x in (here - 1, here, here + 1) if 0 < x < dimensions[axis]]",
            ),
        ),
        loses=(
            "test_edges",
            "test_new_small_6d",
            "test_new_large_4d",
            "test_integration_4d",
            "test_integration_6d",
            "test_integration_5d",
            "test_new_2d_games",
            "test_2d_games",
            "test_nothing_after_the_end",
            "test_victory",
            "test_one_and_many_dimensions",
            "test_random_new_games",
            "test_random_games",
        ),
        says=("new_game_nd((1, 6), [(0, 5)]), dig (0, 0): the key 'board' is wrong: at [0][4]: expected 1, got 0",),
        hint=(
            "Look where the neighbours of a cell are listed: check the condition that keeps a position on the board; "
            "0 is a valid position on every axis."
        ),
    ),
    Chaff(
        "flood_skips_border_numbers",
        "the flood opens zeros only, never the numbers around them",
        (
            (
                'to_open += [near for near in around(game["dimensions"], cell) if not is_shown(game, near)]',
                'to_open += [near for near in around(game["dimensions"], cell) if not is_shown(game, near) '
                'and cell_of(game["board"], near) == 0]',
            ),
        ),
        loses=(
            "test_edges",
            "test_integration_4d",
            "test_integration_5d",
            "test_2d_games",
            "test_nothing_after_the_end",
            "test_one_and_many_dimensions",
            "test_random_games",
        ),
        says=("new_game_nd((5,), [(0,)]), dig (4,): dig_nd's result is wrong: expected 4, got 3",),
        hint=(
            "In dig_nd, check what the flood does with the neighbours of a 0: every one of them is revealed, the "
            "numbers too; the flood only goes on from the zeros."
        ),
    ),
    Chaff(
        "victory_needs_mines_shown",
        "victory waits for the mines to be shown too",
        (('is_shown(game, cell) or cell_of(game["board"], cell) == MINE', "is_shown(game, cell)"),),
        loses=("test_victory", "test_integration_6d", "test_2d_games", "test_edges", "test_random_games"),
        says=("new_game_2d(2, 3, [(0, 1)])", "the key 'state' is wrong: expected 'victory', got 'ongoing'"),
        hint=(
            "Where dig decides on a victory, think about what must be revealed: every safe cell, while the mines "
            "stay hidden."
        ),
    ),
    Chaff(
        "zero_rendered_as_0",
        "render shows a 0 as '0' instead of ' '",
        (("return EMPTY if value == 0 else str(value)", "return str(value)"),),
        loses=(
            "test_edges",
            "test_integration_4d",
            "test_integration_5d",
            "test_2d_games",
            "test_one_and_many_dimensions",
            "test_random_games",
        ),
        says=("render_nd(game) is wrong: at [2]", "expected ' ', got '0'"),
        hint="In the render functions, look at how a cell showing 0 is drawn: the handout shows it as a space.",
    ),
    Chaff(
        "digs_after_the_end",
        "dig still reveals cells after the game is lost or won",
        (('if game["state"] != "ongoing" or is_shown(game, coordinates):', "if is_shown(game, coordinates):"),),
        loses=("test_nothing_after_the_end", "test_2d_games", "test_random_games"),
        says=("digs [(0, 1), (0, 0)] (lost), then dig (0, 2): dig_2d's result is wrong",),
        hint=(
            "In dig, check what happens once the game is over, won or lost: nothing changes and nothing more is "
            "revealed."
        ),
    ),
    Chaff(
        "mine_not_shown",
        "digging a mine ends the game but leaves the mine covered",
        (
            (
                '        put(game[KEY], coordinates, SHOWN)\n        game["state"] = "defeat"',
                '        game["state"] = "defeat"',
            ),
        ),
        loses=("test_nothing_after_the_end", "test_integration_4d", "test_2d_games", "test_random_games"),
        says=("new_game_2d(3, 3, [(0, 0), (2, 2)]), dig (0, 0), a mine: the key",),
        hint="In dig, when the cell dug is a mine, look at the visibility key: that mine is shown as the game ends.",
    ),
    Chaff(
        "dimensions_as_a_list",
        "the game keeps its dimensions as a list, where the handout says a tuple",
        (('"dimensions": tuple(dimensions)', '"dimensions": list(dimensions)'),),
        loses=(
            "test_new_small_6d",
            "test_new_large_4d",
            "test_integration_4d",
            "test_integration_6d",
            "test_integration_5d",
            "test_new_2d_games",
            "test_one_and_many_dimensions",
            "test_random_new_games",
        ),
        says=("the key 'dimensions' is wrong: expected the tuple (3, 3, 3, 3, 3, 3), got the list",),
        hint="Look at what new_game puts under 'dimensions': a tuple, as the handout's game dicts show it.",
    ),
    Chaff(
        "text_ends_with_a_newline",
        "the text picture ends with a newline",
        (('return "\\n".join("".join(row) for row in ', 'return "\\n" + "\\n".join("".join(row) for row in '),),
        loses=("test_2d_games",),
        says=("is wrong: line 1 is ''",),
        hint="Compare the text picture with the handout's: rows are joined by newlines, with none before or after.",
    ),
    Chaff(
        "render_ignores_the_key",
        "render shows every cell, as if the flag were always on",
        (("and visibility != SHOWN:", "and False:"),),
        loses=(
            "test_edges",
            "test_integration_4d",
            "test_integration_6d",
            "test_integration_5d",
            "test_2d_games",
            "test_one_and_many_dimensions",
            "test_random_games",
        ),
        says=("new_game_nd((5,), [(0,)]), dig (4,): render_nd(game) is wrong",),
        hint=(
            "In render, check how the visibility key and the flag decide whether a cell is shown: a covered cell "
            "is drawn '_' unless the flag is on."
        ),
    ),
    Chaff(
        "dig_counts_a_shown_cell",
        "digging a cell already shown counts 1",
        (
            (
                '    if game["state"] != "ongoing" or is_shown(game, coordinates):\n        return 0',
                '    if game["state"] != "ongoing":\n        return 0\n    if is_shown(game, coordinates):\n'
                "        return 1",
            ),
        ),
        loses=(
            "test_nothing_after_the_end",
            "test_integration_4d",
            "test_2d_games",
            "test_one_and_many_dimensions",
            "test_random_games",
        ),
        says=("new_game_2d(3, 3, [(0, 0), (2, 2)]), dig (0, 1) again: dig_2d's result is wrong: expected 0, got 1",),
        hint="In dig, think about digging a cell that is already shown: nothing new is revealed, so the answer is 0.",
    ),
]
