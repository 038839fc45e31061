"""Chaffs of step 3's solution (MineField, VisibleField, flood_fill_iterative)."""

from __future__ import annotations

from . import Chaff

CHAFFS = [
    Chaff(
        "mine_rows_shared",
        "MineField copies the outer list but shares the caller's rows",
        (
            (
                "self._mines = [[bool(cell) for cell in row] for row in mine_data]",
                "self._mines = [row for row in mine_data]",
            ),
        ),
        loses=("test_mine_field",),
        says=("the field keeps a copy", "at [1][1]: expected False, got True"),
        hint=(
            "In MineField's constructor, check what you keep of the mine data you are given: if you keep the "
            "caller's own rows, a later change to them changes your field. Keep a copy of each row."
        ),
    ),
    Chaff(
        "random_allows_a_full_field",
        "MineField.random accepts as many mines as cells (no free first click)",
        (("if not 0 <= num_mines < rows * cols:", "if not 0 <= num_mines <= rows * cols:"),),
        loses=("test_populate_avoids_the_first_cell",),
        says=("MineField.random(2, 2, 4): should raise ValueError",),
        hint=(
            "In MineField.random, check which numbers of mines you accept: the first click must find a free cell, so "
            "a field can never be all mines."
        ),
    ),
    Chaff(
        "reset_empty_does_nothing",
        "reset_empty leaves the mines where they are",
        (
            (
                "        self._mines = [[False] * self._cols for _ in range(self._rows)]\n        ### END SOLUTION",
                "        pass\n        ### END SOLUTION",
            ),
        ),
        loses=("test_populate_avoids_the_first_cell",),
        says=("then reset_empty(): has_mine of every cell is wrong",),
        hint="Look at reset_empty: after it, no cell of the field holds a mine.",
    ),
    Chaff(
        "uncover_opens_a_guess",
        "uncover opens a cell the player guessed as a mine",
        (
            (
                "if self._status[r][c] not in (COVERED, QUESTION):",
                "if self._status[r][c] not in (COVERED, QUESTION, MINE_GUESS):",
            ),
        ),
        loses=("test_random_games",),
        says=("moves [", "uncover("),
        hint="In uncover, check which statuses let a cell be opened: a cell the player marked as a mine stays covered.",
    ),
    Chaff(
        "uncover_skips_a_question",
        "uncover leaves a questioned cell covered",
        (("if self._status[r][c] not in (COVERED, QUESTION):", "if self._status[r][c] != COVERED:"),),
        loses=("test_random_games",),
        says=("moves [", "uncover(", ", got QUESTION"),
        hint=(
            "In uncover, check which statuses let a cell be opened: only a mine guess protects a cell, a question "
            "mark does not."
        ),
    ),
    Chaff(
        "uncover_after_the_end",
        "uncover still opens cells once the game is lost",
        (("if not self._field.in_range(r, c) or self.is_game_over():", "if not self._field.in_range(r, c):"),),
        loses=("test_random_games",),
        says=("(after the end): get_status of every cell is wrong",),
        hint="In uncover, check what happens once the game is over: nothing may change any more.",
    ),
    Chaff(
        "cycle_after_the_end",
        "cycle_guess still changes marks once the game is over",
        (
            (
                "        if self.is_game_over():\n            return\n        status = self._status[r][c]",
                "        status = self._status[r][c]",
            ),
        ),
        loses=("test_random_games",),
        says=("(after the end): get_status of every cell is wrong", ", got MINE_GUESS"),
        hint="In cycle_guess, check what happens once the game is over: nothing may change any more.",
    ),
    Chaff(
        "uncover_off_the_field",
        "uncover forgets the range check, so a negative index wraps around",
        (("if not self._field.in_range(r, c) or self.is_game_over():", "if self.is_game_over():"),),
        loses=("test_random_games",),
        says=("moves [", "IndexError"),
        hint=(
            "In uncover, check what happens for a cell outside the field, a negative row or column included: "
            "Python's negative indices wrap around instead of failing."
        ),
    ),
    Chaff(
        "reset_game_keeps_counters",
        "reset_game clears the statuses but not the guesses, counts and loss",
        (
            ("        self._guesses = 0\n        self._uncovered = 0\n        self._lost = False\n", ""),
            (
                "        self._field = mine_field\n        self.reset_game()",
                "        self._field = mine_field\n        self._guesses = 0\n        self._uncovered = 0\n"
                "        self._lost = False\n        self.reset_game()",
            ),
        ),
        loses=("test_random_games",),
        says=("reset_game()", ", got COVERED"),
        hint=(
            "In reset_game, list everything the game keeps track of (each cell's status, the number of guesses, the "
            "cells uncovered, whether it is lost): a reset starts every one of them over."
        ),
    ),
    Chaff(
        "is_uncovered_forgets_the_explosion",
        "is_uncovered is False for the exploded mine",
        (("return self._status[r][c] >= 0 or self._status[r][c] == EXPLODED_MINE", "return self._status[r][c] >= 0"),),
        loses=("test_random_games",),
        says=("is_uncovered of every cell is wrong", "expected True, got False"),
        hint="In is_uncovered, think about the mine that exploded: it is uncovered too.",
    ),
    Chaff(
        "flood_opens_marks",
        "the flood opens guessed and questioned cells",
        (
            (
                "if not self._field.in_range(r, c) or self._status[r][c] != COVERED or self._field.has_mine(r, c):",
                "if not self._field.in_range(r, c) or self._status[r][c] >= 0 or self._field.has_mine(r, c):",
            ),
        ),
        loses=("test_guesses_block_the_flood", "test_random_games"),
        says=("question at (0, 4), guess at (2, 2), uncover(0, 0): get_status of every cell is wrong",),
        hint=(
            "In the flood, check which cells it may open: a cell the player marked, with a guess or a question, "
            "stops the flood."
        ),
    ),
    Chaff(
        "status_as_text",
        "get_status answers the status as a string",
        (
            (
                "        return self._status[r][c]\n        ### END SOLUTION",
                "        return str(self._status[r][c])\n        ### END SOLUTION",
            ),
        ),
        loses=("test_random_games", "test_guesses_block_the_flood", "test_flood_fill_iterative_small"),
        says=("get_status of every cell is wrong", "at [0][0]: expected COVERED, got '-1'"),
        hint=(
            "get_status answers one of the status constants, which are ints: look at the type of what your method "
            "returns."
        ),
    ),
    Chaff(
        "iterative_flood_not_counted",
        "flood_fill_iterative opens cells the class does not count, so no win",
        (("    visible_field._uncovered += opened\n", ""),),
        loses=("test_flood_fill_iterative_small",),
        says=("then uncover of the", "is_game_over() is wrong: expected True, got False"),
        hint=(
            "In flood_fill_iterative, check that each cell it opens is counted the way uncover counts it, so the "
            "game can tell when it is won."
        ),
    ),
    Chaff(
        "iterative_flood_recurses",
        "flood_fill_iterative hands the work to the recursive flood",
        (
            (
                "    field, status = visible_field._field, visible_field._status\n    opened = 0\n",
                "    return visible_field._flood(r, c)\n    opened = 0\n",
            ),
        ),
        loses=("test_flood_fill_iterative_1000x1000",),
        says=("RecursionError",),
        hint=(
            "flood_fill_iterative may not recurse, not even through another method: on a 1000x1000 field the "
            "recursion is far too deep. Keep the cells still to visit in a list of your own."
        ),
    ),
]
