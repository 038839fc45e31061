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
        planted=False,
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
        planted=False,
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
        planted=False,
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
        planted=False,
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
        "flood_opens_questions",
        "the flood opens questioned cells",
        (
            (
                "if not self._field.in_range(r, c) or self._status[r][c] != COVERED or self._field.has_mine(r, c):",
                "if not self._field.in_range(r, c) or self._status[r][c] not in (COVERED, QUESTION) "
                "or self._field.has_mine(r, c):",
            ),
        ),
        loses=("test_guesses_block_the_flood", "test_random_games"),
        says=("cycle_guess(1, 1): get_status of every cell is wrong: at [0][4]: expected QUESTION, got 0",),
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
        planted=False,
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
        planted=False,
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
    Chaff(
        "mines_left_never_negative",
        "num_mines_left stops at 0 when the player guessed more mines than there are",
        (
            (
                "        return self._field.num_mines() - self._guesses",
                "        return max(0, self._field.num_mines() - self._guesses)",
            ),
        ),
        loses=("test_random_games",),
        says=("num_mines_left() is wrong",),
        hint=(
            "Guess more cells than the field has mines and look at num_mines_left: it says how many guesses are "
            "left to make, and may be negative."
        ),
    ),
    Chaff(
        "populate_on_a_mine",
        "populate counts a mine placed where one already is, so the field gets fewer mines",
        (
            (
                "            if (r, c) != (avoid_row, avoid_col) and not self._mines[r][c]:",
                "            if (r, c) != (avoid_row, avoid_col):",
            ),
        ),
        loses=("test_populate_avoids_the_first_cell",),
        says=("the number of mines placed is wrong",),
        hint=(
            "In populate, think about the random cell drawn twice: a cell holds one mine at most, so count a mine "
            "only where there was none."
        ),
    ),
    Chaff(
        "uncover_counts_twice",
        "uncovering a cell already uncovered counts it again, so a game can be won too early",
        (
            (
                "        if self._status[r][c] not in (COVERED, QUESTION):\n            return True",
                "        if self._status[r][c] >= 0:\n            self._uncovered += 1\n            return True\n"
                "        if self._status[r][c] not in (COVERED, QUESTION):\n            return True",
            ),
        ),
        loses=("test_random_games", "test_flood_fill_iterative_small"),
        says=("is_game_over() is wrong",),
        hint=(
            "Uncover a cell that shows a number, then uncover it again: nothing new is uncovered, so nothing may be "
            "counted, or the game ends before every safe cell is open."
        ),
    ),
    Chaff(
        "in_range_one_past",
        "in_range accepts the row and the column just past the field's edge",
        (
            (
                "        return 0 <= r < self._rows and 0 <= c < self._cols",
                "        return 0 <= r <= self._rows and 0 <= c <= self._cols",
            ),
        ),
        loses=(
            "test_mine_field",
            "test_random_games",
            "test_guesses_block_the_flood",
            "test_flood_fill_iterative_small",
            "test_flood_fill_iterative_1000x1000",
        ),
        says=("IndexError",),
        hint=(
            "Try in_range on the row number equal to num_rows(): rows are numbered from 0, so the last one is "
            "num_rows() - 1."
        ),
    ),
    Chaff(
        "cycle_guess_covers_an_open_cell",
        "cycle_guess on an uncovered cell covers it again",
        (
            (
                "        elif status == QUESTION:\n            self._status[r][c] = COVERED",
                "        else:\n            self._status[r][c] = COVERED",
            ),
        ),
        loses=("test_guesses_block_the_flood", "test_random_games"),
        says=("cycle_guess(1, 1): get_status of every cell is wrong: at [1][1]: expected 0, got COVERED",),
        hint=(
            "Call cycle_guess on a cell that shows a number: the cycle goes covered, guess, question, covered, and "
            "an uncovered cell is not part of it."
        ),
    ),
]
