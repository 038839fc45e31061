"""A brute-force enumerator of Minesweeper positions, the tests' independent oracle for the solver."""

from __future__ import annotations

import itertools

import numpy as np

from minesweeper_kit.geometry import Geometry


def brute_force(view):
    """(safe cells, mine cells, {cell: P(mine)}) over all consistent placements (flat indices)."""
    safe, mines, prob, _ = brute_force_with_total(view)
    return safe, mines, prob


def brute_force_with_total(view):
    """As `brute_force`, plus the number of consistent placements."""
    geometry = Geometry(view.shape, view.torus)
    grid = view.grid.ravel()
    charges = view.charges.ravel()
    opened = np.flatnonzero(view.opened.ravel())
    covered = np.flatnonzero(~view.opened.ravel())
    neighbours = {}
    for i in opened.tolist():
        cells = geometry.closed_neighbourhood(np.array([i]))
        neighbours[i] = [int(c) for c in cells if c != i]
    counts = {int(c): 0 for c in covered}
    total = 0
    for mines in itertools.combinations(covered.tolist(), view.mines):
        chosen = set(mines)
        if all(sum(int(charges[j]) for j in neighbours[i] if j in chosen) == grid[i] for i in opened.tolist()):
            total += 1
            for m in mines:
                counts[m] += 1
    assert total > 0, "the position must come from a real board"
    safe = {c for c, n in counts.items() if n == 0}
    mines = {c for c, n in counts.items() if n == total}
    return safe, mines, {c: n / total for c, n in counts.items()}, total
