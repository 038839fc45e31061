"""Written in the Sweepmine.TM shape: 1-indexed grids, 100 covered, 101 flagged, answer (t, (x, y)).

Single-number rules, else the first covered cell in reading order.
"""

COVERED, FLAGGED = 100, 101


def next_move(R, C, N, grid, charge, T):
    if all(grid[x][y] == COVERED for x in range(1, R + 1) for y in range(1, C + 1)):
        return (0, (1, 1))
    for x in range(1, R + 1):
        for y in range(1, C + 1):
            number = grid[x][y]
            if number >= COVERED:
                continue
            cells = [(x + a, y + b) for a in (-1, 0, 1) for b in (-1, 0, 1)
                     if (a or b) and 1 <= x + a <= R and 1 <= y + b <= C]
            hidden = [p for p in cells if grid[p[0]][p[1]] == COVERED]
            flags = sum(grid[p[0]][p[1]] == FLAGGED for p in cells)
            if hidden and number == flags:
                return (0, hidden[0])
            if hidden and number == flags + len(hidden):
                return (1, hidden[0])
    for x in range(1, R + 1):
        for y in range(1, C + 1):
            if grid[x][y] == COVERED:
                return (0, (x, y))
