"""A second correct solution of the function-API Mines (the `mines-*` assignments), on flat cell
numbers.

The reference walks nested lists by recursion. Here each cell has a row-major number: the board
is counted in a flat list and folded into nested lists at the end, a dig reads the board and the
visibility key into flat lists, floods breadth-first (a list read from the front, and a set of the
cells queued), then writes the cells it opened back. It keeps an extra key, ``safe_left``, as the handouts allow
(the four keys stay as they ask), and wins when it reaches 0.

Written, like the reference, for the 6.101 Fall 2023 API; the grader renames it for each other
term the same way (``autograder/references.py``).
"""

#: The visibility key of the game dict, and the value it holds for a cell the player can see.
KEY, SHOWN = "visible", True


def _size(dimensions):
    total = 1
    for n in dimensions:
        total *= n
    return total


def _number(cell, dimensions):
    index = 0
    for x, n in zip(cell, dimensions):
        index = index * n + x
    return index


def _coordinates(index, dimensions):
    cell = []
    for n in reversed(dimensions):
        index, x = divmod(index, n)
        cell.append(x)
    return tuple(reversed(cell))


def _neighbours(index, dimensions):
    numbers = [0]
    for x, n in zip(_coordinates(index, dimensions), dimensions):
        numbers = [base * n + p for base in numbers for p in range(max(0, x - 1), min(n, x + 2))]
    return [number for number in numbers if number != index]


def _fold(flat, dimensions):
    for n in reversed(dimensions[1:]):
        flat = [flat[i : i + n] for i in range(0, len(flat), n)]
    return flat


def _flat(nested, depth):
    for _ in range(depth - 1):
        nested = [x for part in nested for x in part]
    return list(nested)


def new_game_nd(dimensions, mines):
    """A new game: the four keys, and the count of safe cells still covered."""
    size = _size(dimensions)
    board = [0] * size
    mine_numbers = {_number(m, dimensions) for m in mines}
    for m in mine_numbers:
        board[m] = "."
    for m in mine_numbers:
        for near in _neighbours(m, dimensions):
            if board[near] != ".":
                board[near] += 1
    return {
        "dimensions": tuple(dimensions),
        "board": _fold(board, dimensions),
        KEY: _fold([not SHOWN] * size, dimensions),
        "state": "ongoing",
        "safe_left": size - len(mine_numbers),
    }


def dig_nd(game, coordinates):
    """Reveal a cell and the zero region around it; how many cells this showed."""
    dimensions = game["dimensions"]
    board = _flat(game["board"], len(dimensions))
    seen = _flat(game[KEY], len(dimensions))
    start = _number(coordinates, dimensions)
    if game["state"] != "ongoing" or seen[start] == SHOWN:
        return 0
    opened = []
    if board[start] == ".":
        opened, game["state"] = [start], "defeat"
    else:
        queue, queued = [start], {start}
        while len(opened) < len(queue):
            index = queue[len(opened)]
            opened.append(index)
            if board[index] == 0:
                for near in _neighbours(index, dimensions):
                    if near not in queued and seen[near] != SHOWN and board[near] != ".":
                        queued.add(near)
                        queue.append(near)
        game["safe_left"] -= len(opened)
        if game["safe_left"] == 0:
            game["state"] = "victory"
    for index in opened:
        row = game[KEY]
        cell = _coordinates(index, dimensions)
        for x in cell[:-1]:
            row = row[x]
        row[cell[-1]] = SHOWN
    return len(opened)


def render_nd(game, all_visible=False):
    """What the player sees, as nested lists of one-character strings."""
    dimensions = game["dimensions"]
    board = _flat(game["board"], len(dimensions))
    seen = _flat(game[KEY], len(dimensions))
    shown = [("_" if not (all_visible or s == SHOWN) else " " if b == 0 else str(b)) for b, s in zip(board, seen)]
    return _fold(shown, dimensions)


def new_game_2d(nrows, ncolumns, mines):
    """A new 2-D game."""
    game = new_game_nd([nrows, ncolumns], mines)
    return game


def dig_2d(game, row, col):
    """A dig of a 2-D game."""
    return dig_nd(game, [row, col])


def render_2d_locations(game, all_visible=False):
    """The 2-D render."""
    return render_nd(game, all_visible=all_visible)


def render_2d_board(game, all_visible=False):
    """The 2-D render as rows of text."""
    return "\n".join(map("".join, render_2d_locations(game, all_visible)))
