"""Chaffs of the HyperMines reference (`instructor/reference/hypermines.py`)."""

from __future__ import annotations

from . import Chaff

DUMP = '''    def dump(self) -> None:
        """Print the game's four attributes, one slice of the first axis a line."""
        print(f"dimensions: {self.dimensions}")
        print("board:", "\\n       ".join(str(part) for part in self.board))
        print("mask: ", "\\n       ".join(str(part) for part in self.mask))
        print(f"state: {self.state}")
'''

NEW_GAMES = ("test_new_small_6d", "test_new_large_4d", "test_random_new_games")

CHAFFS = [
    Chaff(
        "edge_off_by_one",
        "an axis loses its position 0",
        (
            (
                "return [p for p in (x - 1, x, x + 1) if 0 <= p < size]",
                "return [p for p in (x - 1, x, x + 1) if 0 < p < size]",
            ),
        ),
        loses=("test_edges",),
        keeps=("test_dig_defeat", "test_render"),
        says=("game [1, 6] with bombs [[0, 5]], dig [0, 0]",),
        hint=(
            "Look where the neighbours of a cell are listed: check the condition that keeps a position on the board; "
            "0 is a valid position on every axis."
        ),
    ),
    Chaff(
        "edge_past_the_end",
        "an axis loses its last position",
        (
            (
                "return [p for p in (x - 1, x, x + 1) if 0 <= p < size]",
                "return [p for p in (x - 1, x, x + 1) if 0 <= p < size - 1]",
            ),
        ),
        loses=("test_edges",),
        keeps=("test_dig_defeat", "test_render", "test_redig_and_after_the_end", "test_victory"),
        says=("game [1, 6] with bombs [[0, 5]], dig [0, 0]",),
        hint=(
            "Look where the neighbours of a cell are listed: check the condition that keeps a position on the board; "
            "an axis's last position (its size minus 1) is valid."
        ),
        planted=False,
    ),
    Chaff(
        "flood_skips_border_numbers",
        "the flood opens zeros only, never the numbers around them",
        (
            (
                "                    if not get_coords(self.mask, neighbour):",
                "                    if not get_coords(self.mask, neighbour) and get_coords(self.board, neighbour) == 0:",  # noqa: E501
            ),
        ),
        loses=("test_edges",),
        keeps=NEW_GAMES + ("test_render",),
        says=("dig's result is wrong",),
        hint=(
            "In dig, check what the flood does with the neighbours of a 0: every one of them is revealed, the "
            "numbers too; the flood only goes on from the zeros."
        ),
    ),
    Chaff(
        "victory_needs_bombs_revealed",
        "victory waits for the bombs to be revealed too",
        (("    return board == BOMB or mask", "    return mask"),),
        loses=("test_victory",),
        keeps=NEW_GAMES + ("test_render",),
        says=("game [2, 3] with bombs [[0, 1]], dig [0, 2]: the attribute state is wrong",),
        hint=(
            "Where dig decides on a victory, think about what must be revealed: every safe cell, while the bombs "
            "stay hidden."
        ),
        planted=False,
    ),
    Chaff(
        "victory_too_early",
        "every dig declares a victory",
        (("    return board == BOMB or mask", "    return True"),),
        loses=("test_victory",),
        keeps=NEW_GAMES + ("test_render",),
        says=("game [2, 3] with bombs [[0, 1]], dig [0, 0]: the attribute state is wrong",),
        hint="Check when dig sets the state to 'victory': only once every safe cell is revealed, not after any dig.",
        planted=False,
    ),
    Chaff(
        "zero_rendered_as_0",
        "render shows a 0 as '0' instead of ' '",
        (("    return ZERO if board == 0 else str(board)", "    return str(board)"),),
        loses=("test_render", "test_random_games"),
        keeps=(
            "test_new_small_6d",
            "test_new_large_4d",
            "test_random_new_games",
            "test_dig_ongoing",
            "test_dig_defeat",
            "test_redig_and_after_the_end",
            "test_victory",
        ),
        says=("render() is wrong: at [", "expected ' ', got '0'"),
        hint="In render, look at how a cell showing 0 is drawn: the notebook shows it as a space.",
    ),
    Chaff(
        "dig_counts_redigs",
        "digging a revealed cell counts 1",
        (
            (
                """        if self.state != "ongoing" or get_coords(self.mask, coordinates):
            return 0""",
                """        if self.state != "ongoing":
            return 0
        if get_coords(self.mask, coordinates):
            return 1""",
            ),
        ),
        loses=("test_redig_and_after_the_end",),
        keeps=("test_new_small_6d", "test_new_large_4d", "test_random_new_games", "test_render", "test_edges"),
        says=("game [3, 3] with bombs [[0, 0], [2, 2]], dig [0, 1] again: dig's result is wrong: expected 0, got 1",),
        hint=(
            "In dig, think about digging a cell that is already revealed: nothing new is revealed, so the answer is 0."
        ),
    ),
    Chaff(
        "digs_after_the_end",
        "dig still reveals cells after a defeat",
        (
            (
                """        if self.state != "ongoing" or get_coords(self.mask, coordinates):""",
                """        if get_coords(self.mask, coordinates):""",
            ),
        ),
        loses=("test_redig_and_after_the_end",),
        keeps=("test_new_small_6d", "test_new_large_4d", "test_random_new_games", "test_render", "test_edges"),
        says=("dig [2, 0] after the defeat: dig's result is wrong",),
        hint=(
            "In dig, check what happens once the game is over, won or lost: nothing changes and nothing more is "
            "revealed."
        ),
    ),
    Chaff(
        "bomb_not_revealed",
        "digging a bomb ends the game but leaves the bomb hidden",
        (
            (
                """            set_coords(self.mask, coordinates, True)
            self.state = "defeat\"""",
                """            self.state = "defeat\"""",
            ),
        ),
        loses=("test_dig_defeat",),
        keeps=(
            "test_new_small_6d",
            "test_new_large_4d",
            "test_random_new_games",
            "test_render",
            "test_edges",
            "test_victory",
        ),
        says=("the attribute mask is wrong",),
        hint="In dig, when the cell dug is a bomb, look at the mask: that bomb is revealed as the game ends.",
    ),
    Chaff(
        "render_ignores_mask",
        "render shows every cell, as if x-ray were always on",
        (("    if not (mask or xray):", "    if not xray and False:"),),
        loses=("test_render",),
        keeps=(
            "test_new_small_6d",
            "test_new_large_4d",
            "test_random_new_games",
            "test_dig_ongoing",
            "test_dig_defeat",
            "test_redig_and_after_the_end",
            "test_victory",
        ),
        says=("render() is wrong",),
        hint=(
            "In render, check how the mask and xray decide whether a cell is shown: a cell still hidden is drawn as "
            "hidden unless xray is on."
        ),
    ),
    Chaff(
        "dump_removed",
        "the given dump() was deleted",
        ((DUMP, ""),),
        loses=("test_random_new_games",),
        says=("random game 1 (dimensions", "has no attribute 'dump'"),
        hint="dump() was given with the lab and the grader uses it: put it back, unchanged.",
        planted=False,
    ),
    Chaff(
        "dump_prints_the_board_twice",
        "dump() prints the board where the mask belongs",
        (
            (
                '        print("mask: ", "\\n       ".join(str(part) for part in self.mask))\n',
                '        print("mask: ", "\\n       ".join(str(part) for part in self.board))\n',
            ),
        ),
        loses=("test_random_new_games",),
        says=("random game 1 (dimensions", "dump() printed line", "(spaces not counted)"),
        hint=(
            "Compare dump() with the one given with the lab: each of its lines prints a different attribute. Put the "
            "given one back, unchanged."
        ),
        planted=False,
    ),
    Chaff(
        "dig_answers_true",
        "dig answers True instead of 1 for a bomb",
        (
            (
                """            self.state = "defeat"
            return 1""",
                """            self.state = "defeat"
            return True""",
            ),
        ),
        loses=("test_dig_defeat", "test_redig_and_after_the_end"),
        keeps=(
            "test_new_small_6d",
            "test_new_large_4d",
            "test_random_new_games",
            "test_render",
            "test_edges",
            "test_victory",
            "test_dig_ongoing",
        ),
        says=("dig should return an int (cells newly revealed), got True",),
        hint="In dig, look at what is returned when a bomb is dug: a number of cells revealed, not a truth value.",
    ),
    Chaff(
        "victory_from_a_revealed_count",
        "the game keeps a count of its safe cells still hidden, a fifth attribute, and wins when it reaches 0",
        (
            (
                '        self.state = "ongoing"\n',
                '        self.state = "ongoing"\n'
                "        self.hidden_safe = sum(1 for cell in all_coords(dimensions) if get_coords(self.board, cell) != BOMB)\n",  # noqa: E501
            ),
            (
                "        if all_safe_revealed(self.board, self.mask):\n",
                "        self.hidden_safe -= revealed\n        if self.hidden_safe == 0:\n",
            ),
        ),
        loses=("test_victory",),
        says=(
            "whose mask was then replaced by one showing every safe cell but",
            "the attribute state is wrong: expected 'victory', got 'ongoing'",
            "four attributes alone",
        ),
        hint=(
            "Look at where the game decides it is won: the state must follow from the four attributes alone "
            "(dimensions, board, mask, state), not from a count kept beside them, which goes wrong once the mask is "
            "changed from outside."
        ),
    ),
    Chaff(
        "dig_floods_a_copy_of_the_mask",
        "dig floods a copy of the mask made with [:], so on a 1-D board the game's mask never changes",
        (
            (
                "        flood = self.floods()\n        revealed = 0\n",
                "        flood = self.floods()\n        revealed = 0\n        mask = self.mask[:]\n",
            ),
            (
                "            if get_coords(self.mask, cell) or get_coords(self.board, cell) == BOMB:",
                "            if get_coords(mask, cell) or get_coords(self.board, cell) == BOMB:",
            ),
            (
                "            set_coords(self.mask, cell, True)\n            revealed += 1",
                "            set_coords(mask, cell, True)\n            revealed += 1",
            ),
            (
                "                    if not get_coords(self.mask, neighbour):",
                "                    if not get_coords(mask, neighbour):",
            ),
            ("        if all_safe_revealed(self.board, self.mask):", "        if all_safe_revealed(self.board, mask):"),
        ),
        loses=("test_edges", "test_random_games"),
        says=("the attribute mask is wrong",),
        hint=(
            "Dig a safe cell of a 1-D game and look at its mask: [:] copies a list's top level, and on a 1-D board "
            "the top level is the cells themselves. Reveal the cells in the game's own mask."
        ),
    ),
    Chaff(
        "neighbors_bare_ints_in_1d",
        "the neighbours of a cell on a 1-D board come as bare numbers, not 1-tuples",
        (
            (
                "    return [cell for cell in neighbourhood(dimensions, coordinates, torus) if cell != here]",
                "    found = [cell for cell in neighbourhood(dimensions, coordinates, torus) if cell != here]\n"
                "    return [cell[0] for cell in found] if len(dimensions) == 1 else found",
            ),
        ),
        loses=("test_edges", "test_victory", "test_random_new_games", "test_random_games"),
        says=("TypeError",),
        hint=(
            "Make and dig a 1-D game: a neighbour is a coordinate, a tuple with one number per axis, even on one "
            "axis, and code that walks the board by coordinates fails on a bare number."
        ),
    ),
    Chaff(
        "bombs_need_tuples",
        "the game keeps its bombs in a set, so bombs given as lists cannot be stored",
        (("        self.torus = bool(torus)\n", "        bombs = set(bombs)\n        self.torus = bool(torus)\n"),),
        loses=(
            "test_new_small_6d",
            "test_new_large_4d",
            "test_integration_4d",
            "test_integration_6d",
            "test_integration_5d",
            "test_edges",
            "test_redig_and_after_the_end",
            "test_victory",
            "test_random_new_games",
            "test_random_games",
        ),
        says=("unhashable type: 'list'",),
        hint=(
            "Make a game with its bombs given as lists, as the handout's tests do: a list cannot go into a set. Keep "
            "the coordinates as they come, or turn each into a tuple first."
        ),
    ),
]
