"""Single-number rules, else the covered cell that looks least likely to hold a mine."""

import numpy as np

from minesweeper_kit.bots import VIEW_FLAG, VIEW_UNKNOWN, Move


def around(shape, r, c):
    for dr in (-1, 0, 1):
        for dc in (-1, 0, 1):
            if (dr or dc) and 0 <= r + dr < shape[0] and 0 <= c + dc < shape[1]:
                yield (r + dr, c + dc)


def sure_move(view):
    """A move one number proves on its own: dig when its mines are all flagged, flag when all
    its covered neighbours must be mines."""
    grid = view.grid
    for r, c in zip(*np.nonzero(view.opened)):
        cells = list(around(view.shape, int(r), int(c)))
        hidden = [x for x in cells if grid[x] == VIEW_UNKNOWN]
        if not hidden:
            continue
        flags = sum(grid[x] == VIEW_FLAG for x in cells)
        if grid[r, c] == flags:
            return Move.dig(*hidden[0])
        if grid[r, c] == flags + len(hidden):
            return Move.flag(*hidden[0])
    return None


def safest_guess(view):
    """Each covered cell's risk: the worst share of mines left among the numbers around it, or the
    board's density for a cell no number touches."""
    grid = view.grid
    hidden = list(zip(*np.nonzero(view.unknown)))
    density = view.mines_left / max(1, len(hidden))
    best, best_risk = None, 2.0
    for r, c in hidden:
        risk = None
        for x in around(view.shape, int(r), int(c)):
            if grid[x] >= 0:
                cells = list(around(view.shape, *x))
                left = grid[x] - sum(grid[y] == VIEW_FLAG for y in cells)
                share = left / max(1, sum(grid[y] == VIEW_UNKNOWN for y in cells))
                risk = share if risk is None else max(risk, share)
        risk = density if risk is None else risk
        if risk < best_risk:
            best, best_risk = (int(r), int(c)), risk
    return Move.dig(*best)


def next_move(view):
    if not view.opened.any():
        return Move.dig(0, 0)
    return sure_move(view) or safest_guess(view)
