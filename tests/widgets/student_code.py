"""Student code written plainly and correctly, for the widget tests to play: the flood-fill step's
two classes and the text-game step's functions."""

from __future__ import annotations


# A small, plainly written version of the flood-fill step's two classes.
class MineField:
    def __init__(self, data):
        self.data = data

    def num_rows(self):
        return len(self.data)

    def num_cols(self):
        return len(self.data[0])

    def has_mine(self, r, c):
        return self.data[r][c]

    def num_adjacent_mines(self, r, c):
        return sum(self.data[i][j] for i in range(r - 1, r + 2) for j in range(c - 1, c + 2)
                   if (i, j) != (r, c) and 0 <= i < self.num_rows() and 0 <= j < self.num_cols())


class VisibleField:
    def __init__(self, field):
        self.field = field
        self.status = [[-1] * field.num_cols() for _ in range(field.num_rows())]
        self.lost = False

    def get_status(self, r, c):
        return self.status[r][c]

    def num_mines_left(self):
        mines = sum(map(sum, self.field.data))
        return mines - sum(row.count(-2) for row in self.status)

    def cycle_guess(self, r, c):
        nxt = {-1: -2, -2: -6, -6: -1}
        if self.status[r][c] in nxt:
            self.status[r][c] = nxt[self.status[r][c]]

    def uncover(self, r, c):
        if self.field.has_mine(r, c):
            self.lost = True
            for i in range(self.field.num_rows()):
                for j in range(self.field.num_cols()):
                    mine, s = self.field.has_mine(i, j), self.status[i][j]
                    if mine and s in (-1, -6):
                        self.status[i][j] = -5
                    elif not mine and s == -2:
                        self.status[i][j] = -4
            self.status[r][c] = -3
            return False
        stack = [(r, c)]
        while stack:
            i, j = stack.pop()
            if not (0 <= i < self.field.num_rows() and 0 <= j < self.field.num_cols()):
                continue
            if self.status[i][j] != -1 or self.field.has_mine(i, j):
                continue
            self.status[i][j] = self.field.num_adjacent_mines(i, j)
            if self.status[i][j] == 0:
                stack += [(i + a, j + b) for a in (-1, 0, 1) for b in (-1, 0, 1)]
        return True

    def is_game_over(self):
        if self.lost:
            return True
        return all(self.status[i][j] >= 0 or self.field.has_mine(i, j)
                   for i in range(self.field.num_rows()) for j in range(self.field.num_cols()))


# A plain, correct set of the step's functions, written the way a student would.
def read_file(path):
    with open(path) as file:
        lines = [line for line in file.read().splitlines() if line.strip()]
    width, height = int(lines[0]), int(lines[1])
    return [["X" if v == "1" else "0" for v in line.replace(",", " ").split()[:width]]
            for line in lines[2:2 + height]]


def make_empty_grid(grid):
    return [[" " for _ in row] for row in grid]


def update_grid(grid):
    rows, cols = len(grid), len(grid[0])
    for r in range(rows):
        for c in range(cols):
            if grid[r][c] != "X":
                grid[r][c] = str(sum(grid[i][j] == "X"
                                     for i in range(max(0, r - 1), min(rows, r + 2))
                                     for j in range(max(0, c - 1), min(cols, c + 2))))


def print_grid(grid):
    for index, row in enumerate(grid):
        print(f"{len(grid) - 1 - index:>2}" + "".join(f"[{v}]" for v in row))
    print("   " + "".join(chr(ord("a") + c) + "  " for c in range(len(grid[0]))))


def dig(grid, coordinate, user_view):
    rows, cols = len(grid), len(grid[0])
    c, r = ord(coordinate[0]) - ord("a"), rows - 1 - int(coordinate[1:])
    user_view[r][c] = grid[r][c]
    if grid[r][c] != "X":
        for i in range(max(0, r - 1), min(rows, r + 2)):
            for j in range(max(0, c - 1), min(cols, c + 2)):
                if grid[i][j] != "X":
                    user_view[i][j] = grid[i][j]
    print_grid(user_view)


def count_total_moves(grid, user_view):
    return sum(v == " " and g != "X" for grow, vrow in zip(grid, user_view) for g, v in zip(grow, vrow))


def determine_game_status(grid, user_view):
    return not any("X" in row for row in user_view) and count_total_moves(grid, user_view) > 0


CORRECT = dict(read_file=read_file, update_grid=update_grid, make_empty_grid=make_empty_grid,
               dig=dig, determine_game_status=determine_game_status)


# The 6.009 lab's functions for a 2-D board, on plain dicts, as a student writes them.
def new_game_2d(dimensions, bombs):
    rows, cols = dimensions
    board = [[0] * cols for _ in range(rows)]
    for r, c in bombs:
        board[r][c] = "."
    for r in range(rows):
        for c in range(cols):
            if board[r][c] != ".":
                board[r][c] = sum(board[i][j] == "." for i, j in _around(r, c, rows, cols))
    return {"dimensions": (rows, cols), "board": board, "mask": [[False] * cols for _ in range(rows)],
            "state": "ongoing"}


def dig_2d(game, coordinates):
    if game["state"] != "ongoing":
        return 0
    rows, cols = game["dimensions"]
    r, c = coordinates
    if game["mask"][r][c]:
        return 0
    if game["board"][r][c] == ".":
        game["mask"][r][c] = True
        game["state"] = "defeat"
        return 1
    revealed, stack = 0, [(r, c)]
    while stack:
        i, j = stack.pop()
        if game["mask"][i][j] or game["board"][i][j] == ".":
            continue
        game["mask"][i][j] = True
        revealed += 1
        if game["board"][i][j] == 0:
            stack.extend(_around(i, j, rows, cols))
    if all(game["mask"][i][j] or game["board"][i][j] == "." for i in range(rows) for j in range(cols)):
        game["state"] = "victory"
    return revealed


def render_2d(game, xray=False):
    return [["_" if not (xray or shown) else " " if value == 0 else str(value)
             for value, shown in zip(row, mask)] for row, mask in zip(game["board"], game["mask"])]


def _around(r, c, rows, cols):
    return [(i, j) for i in range(r - 1, r + 2) for j in range(c - 1, c + 2)
            if (i, j) != (r, c) and 0 <= i < rows and 0 <= j < cols]
