"""A second correct solution of step 1 (notebook 01-neighbors), written apart from the reference.

The text game keeps counts in a dictionary filled mine by mine (the reference asks each cell how
many mines surround it), parses a board file by its commas, and digs through a table of offsets.
The neighbour functions count through offset codes instead of nesting loops or recursing, and
list the neighbours in their own order: the notebook allows any order, so a test that expects the
reference's order is caught here. Standard library only, and no itertools (the notebook forbids
it).
"""

OFFSETS_2D = [(dr, dc) for dr in (1, 0, -1) for dc in (1, 0, -1) if (dr, dc) != (0, 0)]


def read_file(path):
    """The grid of a board file: its width, its height, then rows of 0/1 split by commas."""
    with open(path) as handle:
        numbered = [(number, text.strip()) for number, text in enumerate(handle, start=1)]
    content = [(number, text) for number, text in numbered if text]
    if len(content) < 2:
        raise ValueError("a board file starts with its width and its height")
    width = int(content[0][1])
    height = int(content[1][1])
    body = content[2:]
    if len(body) != height:
        raise ValueError(f"expected {height} rows of cells, found {len(body)}")
    grid = []
    for number, text in body:
        cells = [piece.strip() for piece in text.split(",")]
        if cells and cells[-1] == "":
            cells.pop()  # a trailing comma ends the row
        if len(cells) != width:
            raise ValueError(f"line {number}: {len(cells)} cells where the width is {width}")
        grid.append(["X" if cell == "1" else "0" for cell in cells])
    return grid


def make_empty_grid(grid):
    """A fresh grid shaped like ``grid`` with a blank in every cell (every row its own list)."""
    blank = []
    for row in grid:
        blank.append([" "] * len(row))
    return blank


def update_grid(grid):
    """Replace every safe cell of ``grid`` by the number of mines around it, as text, in place."""
    height = len(grid)
    width = len(grid[0])
    counts = {}
    for r in range(height):
        for c in range(width):
            if grid[r][c] != "X":
                continue
            for dr, dc in OFFSETS_2D:
                spot = (r + dr, c + dc)
                counts[spot] = counts.get(spot, 0) + 1
    for r in range(height):
        for c in range(width):
            if grid[r][c] != "X":
                grid[r][c] = str(counts.get((r, c), 0))


def print_grid(grid):
    """Print the grid as Project 10 does: row numbers counting up from the bottom, letters below."""
    lines = []
    for index in range(len(grid)):
        label = str(len(grid) - 1 - index).rjust(2)
        lines.append(label + "".join("[" + str(value) + "]" for value in grid[index]))
    letters = "".join(chr(97 + c) + "  " for c in range(len(grid[0])))
    lines.append("   " + letters)
    print("\n".join(lines))


def dig(grid, coordinate, user_view):
    """Open the cell named like 'b3' and, when it is safe, the safe cells of its ring; print the view."""
    height = len(grid)
    width = len(grid[0])
    col = ord(coordinate[0]) - 97
    row = height - 1 - int(coordinate[1:])
    if not (0 <= row < height and 0 <= col < width):
        raise IndexError(f"{coordinate} is not a cell of a {width}x{height} board")
    ring = [(row, col)]
    if grid[row][col] != "X":
        ring += [(row + dr, col + dc) for dr, dc in OFFSETS_2D]
    for r, c in ring:
        if 0 <= r < height and 0 <= c < width and (grid[r][c] != "X" or (r, c) == (row, col)):
            user_view[r][c] = grid[r][c]
    print_grid(user_view)


def count_total_moves(grid, user_view):
    """The number of safe cells the player has not opened yet."""
    left = 0
    for r in range(len(grid)):
        for c in range(len(grid[r])):
            if grid[r][c] != "X" and user_view[r][c] == " ":
                left += 1
    return left


def determine_game_status(grid, user_view):
    """Whether play goes on: no mine is showing and some safe cell is still covered."""
    for row in user_view:
        for shown in row:
            if shown == "X":
                return False
    return count_total_moves(grid, user_view) != 0


def neighbors_1d(length, x):
    """The cells next to ``x`` on a line of ``length`` cells."""
    found = []
    for candidate in (x + 1, x - 1):
        if 0 <= candidate < length:
            found.append(candidate)
    return found


def neighbors_2d(dimensions, coordinates):
    """The cells around ``coordinates`` on a 2-D board, the cell itself left out."""
    rows, cols = dimensions
    r, c = coordinates
    return [(r + dr, c + dc) for dr, dc in OFFSETS_2D if 0 <= r + dr < rows and 0 <= c + dc < cols]


def neighbors_3d(dimensions, coordinates):
    """The cells around ``coordinates`` on a 3-D board, the cell itself left out."""
    return neighbors(dimensions, coordinates)


def neighbors(dimensions, coordinates):
    """The cells around ``coordinates`` on a board with any number of axes, the cell itself left out.

    Each of the 3**N offset codes, read in base 3 with the first axis as the lowest digit, names
    one nearby cell (a digit 0, 1 or 2 is a step of -1, 0 or +1 on its axis); the code whose
    every digit is 1 names the cell itself. The codes are read from the highest down.
    """
    axes = len(dimensions)
    found = []
    for code in reversed(range(3**axes)):
        cell = []
        moved = False
        rest = code
        for axis in range(axes):
            rest, digit = divmod(rest, 3)
            value = coordinates[axis] + digit - 1
            if not 0 <= value < dimensions[axis]:
                break
            moved = moved or digit != 1
            cell.append(value)
        else:
            if moved:
                found.append(tuple(cell))
    return found
