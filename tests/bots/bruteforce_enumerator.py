"""A brute-force enumerator of Minesweeper positions, the tests' independent oracle for the solver.

It shares no code with the kit: even the neighbours are found here by plain coordinate
arithmetic, so a bug in the kit's geometry cannot hide in the oracle too.
"""

from __future__ import annotations

import itertools

import numpy as np


def neighbours(index: int, shape: tuple[int, ...], torus: bool) -> list[int]:
    """Flat (row-major) indices of the cells around cell ``index``, itself excluded.

    Every coordinate may move by -1, 0 or +1; on a torus each axis wraps around, and a cell
    reached in two ways (an axis of size 1 or 2) is listed once."""
    coordinates = []
    rest = index
    for size in reversed(shape):
        coordinates.append(rest % size)
        rest //= size
    coordinates.reverse()
    found = set()
    for offset in itertools.product((-1, 0, 1), repeat=len(shape)):
        flat = 0
        for value, step, size in zip(coordinates, offset, shape):
            moved = value + step
            if torus:
                moved %= size
            elif not 0 <= moved < size:
                break
            flat = flat * size + moved
        else:
            if flat != index:
                found.add(flat)
    return sorted(found)


def brute_force(view):
    """(safe cells, mine cells, {cell: P(mine)}) over all consistent placements (flat indices)."""
    safe, mines, prob, _ = brute_force_with_total(view)
    return safe, mines, prob


def brute_force_with_total(view):
    """As `brute_force`, plus the number of consistent placements."""
    shape = tuple(int(n) for n in view.shape)
    grid = view.grid.ravel()
    charges = view.charges.ravel()
    opened = np.flatnonzero(view.opened.ravel())
    covered = np.flatnonzero(~view.opened.ravel())
    around = {i: neighbours(i, shape, bool(view.torus)) for i in opened.tolist()}
    counts = {int(c): 0 for c in covered}
    total = 0
    for mines in itertools.combinations(covered.tolist(), view.mines):
        chosen = set(mines)
        if all(sum(int(charges[j]) for j in around[i] if j in chosen) == grid[i] for i in opened.tolist()):
            total += 1
            for m in mines:
                counts[m] += 1
    assert total > 0, "the position must come from a real board"
    safe = {c for c, n in counts.items() if n == 0}
    mines = {c for c, n in counts.items() if n == total}
    return safe, mines, {c: n / total for c, n in counts.items()}, total
