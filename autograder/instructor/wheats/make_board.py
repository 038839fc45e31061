"""A second correct solution of step 2 (notebook 02-make-board), written without recursion.

The reference recurses on the first axis everywhere. Here boards are grown level by level from
the top, coordinates are counted like an odometer, neighbours come from base-3 offset codes, and
a board's numbers are counted cell by cell against a set of bombs (the reference adds each bomb to
its neighbours). Standard library only, and no itertools (the notebook forbids it).
"""


def make_board(dimensions, elem):
    """A nested list of the given dimensions holding ``elem`` everywhere; every inner list is new."""
    top = [None] * dimensions[0]
    level = [top]
    for size in dimensions[1:]:
        below = []
        for parent in level:
            for index in range(len(parent)):
                child = [None] * size
                parent[index] = child
                below.append(child)
        level = below
    for innermost in level:
        for index in range(len(innermost)):
            innermost[index] = elem
    return top


def get_coords(board, coordinates):
    """The value stored at ``coordinates`` (a list or a tuple) in a nested-list board."""
    place = board
    for index in coordinates:
        place = place[index]
    return place


def set_coords(board, coordinates, value):
    """Store ``value`` at ``coordinates`` in a nested-list board, in place; return nothing."""
    *path, last = coordinates
    place = board
    for index in path:
        place = place[index]
    place[last] = value


def all_coords(dimensions):
    """Every coordinate of the board as a tuple, the last axis changing fastest (row-major)."""
    sizes = list(dimensions)
    for size in sizes:
        if size <= 0:
            return []
    counter = [0] * len(sizes)
    found = []
    while True:
        found.append(tuple(counter))
        axis = len(sizes) - 1
        while axis >= 0:
            counter[axis] += 1
            if counter[axis] < sizes[axis]:
                break
            counter[axis] = 0
            axis -= 1
        if axis < 0:
            return found


def neighbors(dimensions, coordinates):
    """The cells around ``coordinates`` on a board with any number of axes, the cell itself left out.

    Offset code k in range(3**N), read in base 3 with the first axis as the lowest digit, is the
    step -1, 0 or +1 (digit 0, 1 or 2) on each axis; all digits 1 is the cell itself. The codes
    are read from the highest down.
    """
    axes = len(dimensions)
    found = []
    for code in reversed(range(3**axes)):
        cell = []
        rest = code
        for axis in range(axes):
            rest, digit = divmod(rest, 3)
            value = coordinates[axis] + digit - 1
            if not 0 <= value < dimensions[axis]:
                break
            cell.append(value)
        else:
            if code != (3**axes - 1) // 2:
                found.append(tuple(cell))
    return found


def new_board(dimensions, bombs):
    """A HyperMines board: ``'.'`` on a bomb, elsewhere how many bombs touch the cell."""
    bomb_cells = {tuple(bomb) for bomb in bombs}
    board = make_board(dimensions, 0)
    for cell in all_coords(dimensions):
        if cell in bomb_cells:
            set_coords(board, cell, ".")
        else:
            touching = 0
            for other in neighbors(dimensions, cell):
                if other in bomb_cells:
                    touching += 1
            set_coords(board, cell, touching)
    return board
