"""Chaffs of step 1's solution (the Project 10 text game and the neighbour functions)."""

from __future__ import annotations

from . import Chaff

GAME = (
    "test_read_file",
    "test_update_grid_and_empty_grid",
    "test_print_grid",
    "test_original_scripted_games",
    "test_random_games",
)
NEIGHBOURS = ("test_neighbors_1d", "test_neighbors_2d", "test_neighbors_3d", "test_neighbors_nd")

CHAFFS = [
    Chaff(
        "read_file_needs_spaces",
        "read_file splits rows on ', ' only, so '1,0' or '0 ,1' is misread",
        (('cells = line.replace(",", " ").split()', 'cells = line.strip().split(", ")'),),
        loses=("test_read_file",),
        says=("read_file of the original fiveByFive.txt: ValueError: line 7 has 4 cells",),
        hint=(
            "Look at how read_file splits a line into cells: the board files may put a comma alone between cells, or "
            "spaces on either side of it. Split in a way that does not depend on the spacing."
        ),
    ),
    Chaff(
        "read_file_swaps_width_and_height",
        "read_file takes the first line for the height",
        (("width, height = int(lines[0]), int(lines[1])", "height, width = int(lines[0]), int(lines[1])"),),
        loses=("test_read_file", "test_update_grid_and_empty_grid", "test_random_games"),
        keeps=("test_print_grid",) + NEIGHBOURS,
        says=("-high board file written", "ValueError: the height says"),
        hint=(
            "Check which of the board file's first two lines is the width and which the height (the notebook's "
            "description of the file says), then follow each one to where read_file uses it."
        ),
    ),
    Chaff(
        "empty_grid_rows_shared",
        "make_empty_grid repeats one row object",
        (('return [[" " for _ in row] for row in grid]', 'return [[" "] * len(grid[0])] * len(grid)'),),
        loses=("test_update_grid_and_empty_grid", "test_random_games"),
        keeps=("test_read_file", "test_print_grid") + NEIGHBOURS,
        says=("after its bottom-left cell was set to '1' (every row a new list)", "at [0][0]: expected ' ', got '1'"),
        hint=(
            "In make_empty_grid, set one cell of the new grid and print the whole grid: if a whole column changes, "
            "every row is one and the same list. Each row must be a list of its own."
        ),
    ),
    Chaff(
        "update_grid_returns_the_grid",
        "update_grid changes the grid and also returns it",
        (("            grid[r][c] = str(count)\n", "            grid[r][c] = str(count)\n    return grid\n"),),
        loses=("test_update_grid_and_empty_grid",),
        says=("update_grid should change the grid in place and return nothing",),
        hint=(
            "Read update_grid's description again: it changes the grid it is given and returns nothing. Look at what "
            "your function returns."
        ),
    ),
    Chaff(
        "update_grid_skips_diagonals",
        "update_grid counts only the four side neighbours",
        (("if (dr or dc) and 0 <= rr < rows", "if (dr == 0) != (dc == 0) and 0 <= rr < rows"),),
        loses=("test_update_grid_and_empty_grid", "test_original_scripted_games", "test_random_games"),
        keeps=("test_read_file", "test_print_grid") + NEIGHBOURS,
        says=("the grid after update_grid is wrong",),
        hint=(
            "In update_grid, list the cells you count around one cell: a cell has up to eight neighbours, the four "
            "diagonal ones included."
        ),
        planted=False,
    ),
    Chaff(
        "print_grid_one_digit_labels",
        "print_grid pads the row number with one space, fine below 10 only",
        (('print(f"{height - 1 - index:>2}"', 'print(" " + str(height - 1 - index)'),),
        loses=("test_print_grid",),
        keeps=("test_read_file", "test_update_grid_and_empty_grid", "test_original_scripted_games") + NEIGHBOURS,
        says=("print_grid of a 11x1 grid: printed line 1 is ' 10[ ]', expected '10[ ]'",),
        hint=(
            "Try print_grid on a grid of 11 rows or more: the row numbers must stay lined up when they have two "
            "digits. Look at how the row label is padded."
        ),
        planted=False,
    ),
    Chaff(
        "dig_reads_one_digit_row",
        "dig reads only the first digit of the row number ('c12' becomes row 1)",
        (("row = height - 1 - int(coordinate[1:])", "row = height - 1 - int(coordinate[1])"),),
        loses=("test_random_games",),
        says=("random board", "digs ['", "the user view is wrong"),
        hint=(
            "In dig, look at how the row number is read from the coordinate: on a board of 10 rows or more it can "
            "have two digits, as in 'c12'."
        ),
        planted=False,
    ),
    Chaff(
        "dig_shows_mines_in_the_ring",
        "dig copies the mines around the dug cell into the view",
        (('if 0 <= r < height and 0 <= c < width and grid[r][c] != "X":', "if 0 <= r < height and 0 <= c < width:"),),
        loses=("test_original_scripted_games", "test_random_games"),
        keeps=("test_read_file", "test_update_grid_and_empty_grid", "test_print_grid") + NEIGHBOURS,
        says=("the original full game",),
        hint=(
            "In dig, when the cells around the dug one are revealed, check what is copied into the user's view: a "
            "mine is never shown while the game goes on."
        ),
        planted=False,
    ),
    Chaff(
        "status_ignores_a_shown_mine",
        "determine_game_status only asks whether safe cells are left",
        (('    if any("X" in row for row in user_view):\n        return False\n', ""),),
        loses=("test_original_scripted_games", "test_random_games"),
        keeps=("test_read_file", "test_update_grid_and_empty_grid", "test_print_grid") + NEIGHBOURS,
        says=("the original full game lose",),
        hint=(
            "In determine_game_status, think about a view in which the player has dug a mine: the game is lost, "
            "however many safe cells are left. Check that case first."
        ),
        planted=False,
    ),
    Chaff(
        "neighbors_1d_includes_itself",
        "neighbors_1d lists x itself",
        (
            (
                "return [n for n in (x - 1, x + 1) if 0 <= n < length]",
                "return [n for n in (x - 1, x, x + 1) if 0 <= n < length]",
            ),
        ),
        loses=("test_neighbors_1d",),
        says=("neighbors_1d(1, 0): the neighbours are wrong: unexpected: [0]",),
        hint=(
            "In neighbors_1d, write down what you return for a cell in the middle of the line: a cell is not its own "
            "neighbour."
        ),
    ),
    Chaff(
        "neighbors_2d_past_the_edge",
        "neighbors_2d lets the column run one past the edge",
        (("for cc in (c - 1, c, c + 1) if 0 <= cc < cols", "for cc in (c - 1, c, c + 1) if 0 <= cc <= cols"),),
        loses=("test_neighbors_2d",),
        says=("neighbors_2d([1, 3], [0, 2]): the neighbours are wrong: unexpected: [0, 3]",),
        hint=(
            "In neighbors_2d, check the condition that keeps a column on the board: the last valid column is one "
            "less than the number of columns."
        ),
    ),
    Chaff(
        "neighbors_3d_drops_an_axis_edge",
        "neighbors_3d never steps down on the last axis",
        (("for z in (c - 1, c, c + 1) if 0 <= z < size2", "for z in (c, c + 1) if 0 <= z < size2"),),
        loses=("test_neighbors_3d",),
        says=(
            "neighbors_3d([3, 3, 3], [1, 1, 1]): the neighbours are wrong: missing: [0, 0, 0], [0, 1, 0], [0, 2, 0] and 6 more",  # noqa: E501
        ),
        hint=(
            "In neighbors_3d, check the values tried on each axis: every axis steps one down, stays, and steps one "
            "up. Compare the last axis with the other two."
        ),
        planted=False,
    ),
    Chaff(
        "neighbors_nd_breaks_on_tuples",
        "neighbors compares cells with a list, so a tuple cell counts itself",
        (
            (
                "    itself = tuple(coordinates)\n    return [cell for cell in around(0) if cell != itself]",
                "    return [cell for cell in around(0) if list(cell) != coordinates]",
            ),
        ),
        loses=("test_neighbors_nd",),
        says=("neighbors((4,), (0,)): the neighbours are wrong: unexpected: [0]",),
        hint=(
            "In neighbors, look at how the cell itself is left out: the coordinates may come as a tuple or as a "
            "list, and in Python a list never equals a tuple. Compare in a way that works for both."
        ),
    ),
    Chaff(
        "read_file_keeps_blank_lines",
        "read_file keeps blank lines as rows",
        (
            (
                "        lines = [line for line in file.read().splitlines() if line.strip()]",
                "        lines = file.read().splitlines()",
            ),
        ),
        loses=("test_read_file",),
        says=("blank line after every row",),
        hint=(
            "Try read_file on a file with a blank line between two rows: the notebook allows blank lines, and they "
            "are not rows of the board. Look at which lines you keep."
        ),
    ),
    Chaff(
        "update_grid_writes_ints",
        "update_grid writes the counts as numbers, not as strings",
        (("            grid[r][c] = str(count)", "            grid[r][c] = count"),),
        loses=("test_update_grid_and_empty_grid", "test_random_games"),
        says=("the grid after update_grid is wrong",),
        hint=(
            "Look at the type of what update_grid writes into the grid: the counts are strings, '0' to '8', like "
            "the 'X' beside them."
        ),
    ),
    Chaff(
        "print_grid_square_only",
        "print_grid prints as many cells in a row as the grid has rows",
        (
            (
                '        print(f"{height - 1 - index:>2}" + "".join(f"[{value}]" for value in row))',
                '        print(f"{height - 1 - index:>2}" + "".join(f"[{value}]" for value in row[:height]))',
            ),
        ),
        loses=("test_print_grid", "test_random_games"),
        says=("print_grid of a 1x3 grid: printed line 1 is",),
        hint=(
            "Try print_grid on a grid that is wider than it is high: every cell of each row must be printed. Look at "
            "what bounds the cells printed in a row."
        ),
    ),
    Chaff(
        "print_grid_space_after_label",
        "print_grid puts a space between the row number and the row",
        (
            (
                '        print(f"{height - 1 - index:>2}" + "".join(f"[{value}]" for value in row))',
                '        print(f"{height - 1 - index:>2} " + "".join(f"[{value}]" for value in row))',
            ),
        ),
        loses=("test_print_grid", "test_original_scripted_games", "test_random_games"),
        says=("printed line 1 is",),
        hint=(
            "Compare what print_grid prints with the notebook's example character by character: the row number is "
            "followed straight by the first cell."
        ),
    ),
    Chaff(
        "dig_bounds_swapped",
        "dig checks a row against the width and a column against the height",
        (
            (
                'if 0 <= r < height and 0 <= c < width and grid[r][c] != "X":',
                'if 0 <= r < width and 0 <= c < height and grid[r][c] != "X":',
            ),
        ),
        loses=("test_random_games",),
        says=("random board",),
        hint=(
            "Try dig on a board that is not square: look at which bound each of the row and the column is checked "
            "against when the cells around the dug one are revealed."
        ),
    ),
    Chaff(
        "status_never_wins",
        "determine_game_status ends the game only when a mine is shown, never when the board is cleared",
        (("    return count_total_moves(grid, user_view) > 0", "    return True"),),
        loses=("test_random_games",),
        says=("determine_game_status is wrong: expected False, got True",),
        hint=(
            "In determine_game_status, think about a view in which every safe cell is open: the game is won, so it "
            "no longer goes on."
        ),
    ),
]
