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
    ),
    Chaff(
        "random_allows_a_full_field",
        "MineField.random accepts as many mines as cells (no free first click)",
        (("if not 0 <= num_mines < rows * cols:", "if not 0 <= num_mines <= rows * cols:"),),
        loses=("test_populate_avoids_the_first_cell",),
        says=("MineField.random(2, 2, 4): should raise ValueError",),
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
    ),
    Chaff(
        "uncover_skips_a_question",
        "uncover leaves a questioned cell covered",
        (("if self._status[r][c] not in (COVERED, QUESTION):", "if self._status[r][c] != COVERED:"),),
        loses=("test_random_games",),
        says=("moves [", "uncover("),
    ),
    Chaff(
        "uncover_after_the_end",
        "uncover still opens cells once the game is lost",
        (("if not self._field.in_range(r, c) or self.is_game_over():", "if not self._field.in_range(r, c):"),),
        loses=("test_random_games",),
        says=("(after the end)",),
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
        says=("(after the end)",),
    ),
    Chaff(
        "uncover_off_the_field",
        "uncover forgets the range check, so a negative index wraps around",
        (("if not self._field.in_range(r, c) or self.is_game_over():", "if self.is_game_over():"),),
        loses=("test_random_games",),
        says=("moves [",),
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
        says=("reset_game()",),
    ),
    Chaff(
        "is_uncovered_forgets_the_explosion",
        "is_uncovered is False for the exploded mine",
        (("return self._status[r][c] >= 0 or self._status[r][c] == EXPLODED_MINE", "return self._status[r][c] >= 0"),),
        loses=("test_random_games",),
        says=("is_uncovered of every cell is wrong", "expected True, got False"),
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
    ),
    Chaff(
        "iterative_flood_not_counted",
        "flood_fill_iterative opens cells the class does not count, so no win",
        (("    visible_field._uncovered += opened\n", ""),),
        loses=("test_flood_fill_iterative_small",),
        says=("then uncover of the", "is_game_over() is wrong: expected True, got False"),
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
    ),
]
