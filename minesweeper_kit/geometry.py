"""N-D board geometry: validating shapes and coordinates, and neighbourhoods computed axis by axis.

The neighbourhood of a cell is a product of per-axis windows ({i-1, i, i+1}, clipped on a bounded
axis, wrapped and deduplicated on a torus), minus the cell itself. Because it is a product, every
whole-board operation here (neighbour sums, dilation) runs one axis at a time: O(axes x cells)
instead of O(3^axes x cells). Axes of size 1 contribute nothing and are squeezed away first.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Iterable, Sequence

import numpy as np

MAX_AXES = 60

Coordinate = tuple[int, ...]


def validate_shape(shape: Iterable[int]) -> tuple[int, ...]:
    """Return the shape as a tuple of ints, or raise ValueError naming what is wrong."""
    try:
        dims = tuple(shape)
    except TypeError:
        raise ValueError(f"shape must be a sequence of axis sizes, got {shape!r}") from None
    if not 1 <= len(dims) <= MAX_AXES:
        raise ValueError(f"a board has 1 to {MAX_AXES} axes, got {len(dims)}")
    out = []
    for axis, size in enumerate(dims):
        if isinstance(size, (bool, np.bool_)) or not isinstance(size, (int, np.integer)):
            raise ValueError(f"axis {axis} size must be an integer, got {size!r}")
        if size < 1:
            raise ValueError(f"axis {axis} size must be at least 1, got {size}")
        out.append(int(size))
    return tuple(out)


class Geometry:
    """Shape and topology of a board, with the vectorised neighbourhood operations.

    Arrays handled here are *core* arrays: the board with its size-1 axes squeezed away. A core
    array has the same C-order flat layout as the full board, so flat indices are shared.
    """

    def __init__(self, shape: Iterable[int], torus: bool = False) -> None:
        self.shape = validate_shape(shape)
        self.torus = bool(torus)
        self.core_shape = tuple(n for n in self.shape if n > 1)
        self.size = math.prod(self.shape)
        # Strides (in cells) of the core axes, for flat-index arithmetic.
        strides = []
        step = 1
        for n in reversed(self.core_shape):
            strides.append(step)
            step *= n
        self.core_strides = tuple(reversed(strides))

    @property
    def ndim(self) -> int:
        """How many axes the board has."""
        return len(self.shape)

    # ----------------------------------------------------------------- coordinates
    def check(self, coordinate: Sequence[int]) -> Coordinate:
        """Validate one coordinate; return it as a tuple of ints."""
        try:
            coord = tuple(coordinate)
        except TypeError:
            raise ValueError(f"a coordinate must be a sequence of {self.ndim} integers, got {coordinate!r}") from None
        if len(coord) != self.ndim:
            raise ValueError(
                f"coordinate {list(coord)} has {len(coord)} axes "
                f"but the board has {self.ndim} (shape {list(self.shape)})"
            )
        out = []
        for axis, (value, size) in enumerate(zip(coord, self.shape)):
            if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
                raise ValueError(f"coordinate {list(coord)}: axis {axis} must be an integer, got {value!r}")
            if not 0 <= value < size:
                raise ValueError(f"coordinate {list(coord)} is off the board: axis {axis} must be in 0..{size - 1}")
            out.append(int(value))
        return tuple(out)

    def flat(self, coordinate: Sequence[int]) -> int:
        """Flat (C-order) index of a validated coordinate."""
        index = 0
        for value, size in zip(coordinate, self.shape):
            index = index * size + value
        return index

    def flat_many(self, coordinates: Iterable[Sequence[int]]) -> np.ndarray:
        """Flat indices of many coordinates, validated at once; the first bad one is named."""
        rows = list(coordinates)
        if not rows:
            return np.empty(0, dtype=np.int64)
        try:
            array = np.asarray(rows)
        except ValueError:
            array = np.empty(0)
        if array.ndim != 2 or array.shape[1] != self.ndim or array.dtype.kind not in "iu":
            for row in rows:  # slow path only to find and name the culprit
                self.check(row)
            raise ValueError("coordinates must be sequences of integers")
        bad = np.flatnonzero(((array < 0) | (array >= np.array(self.shape))).any(axis=1))
        if bad.size:
            self.check(rows[int(bad[0])])
        return np.ravel_multi_index(tuple(array.T), self.shape).astype(np.int64)

    def unflat(self, index: int) -> Coordinate:
        """The coordinate tuple of a flat (C-order) index; the inverse of `flat`."""
        out = []
        for size in reversed(self.shape):
            index, value = divmod(index, size)
            out.append(value)
        return tuple(reversed(out))

    def unflat_many(self, indices: np.ndarray) -> list[Coordinate]:
        """Coordinate tuples of many flat indices at once (plain ints, ready for JSON)."""
        if len(indices) == 0:
            return []
        columns = np.unravel_index(np.asarray(indices, dtype=np.int64), self.shape)
        return [tuple(int(v) for v in row) for row in zip(*columns)]

    # ----------------------------------------------------------------- whole-board sums
    def core(self, array: np.ndarray) -> np.ndarray:
        """A board array seen in `core_shape` (size-1 axes squeezed away), the shape the sweeps work on."""
        return array.reshape(self.core_shape)

    def _sweep(self, array: np.ndarray, combine: np.ufunc) -> np.ndarray:
        """Combine every cell with its closed neighbourhood, one axis at a time.

        After the pass along an axis each cell holds the combination of its window on that axis;
        since a neighbourhood is the product of the per-axis windows, the passes compose into
        the whole neighbourhood. On a torus an axis of size 2 has one other cell, so one shift.
        """
        out = np.array(self.core(array), copy=True)
        for axis, n in enumerate(self.core_shape):
            if self.torus:
                shifts = (1,) if n == 2 else (1, -1)
                out = functools.reduce(combine, (np.roll(out, s, axis=axis) for s in shifts), out)
            else:
                lead = (slice(None),) * axis + (slice(1, None),)
                tail = (slice(None),) * axis + (slice(None, -1),)
                acc = out.copy()
                combine(acc[lead], out[tail], out=acc[lead])
                combine(acc[tail], out[lead], out=acc[tail])
                out = acc
        return out.reshape(array.shape)

    def window_sum(self, array: np.ndarray) -> np.ndarray:
        """Sum over each cell's closed neighbourhood (the cell included)."""
        return self._sweep(array, np.add)

    def neighbour_sum(self, array: np.ndarray) -> np.ndarray:
        """Sum over each cell's neighbours (the cell itself excluded)."""
        return self.window_sum(array) - array

    def dilate(self, mask: np.ndarray) -> np.ndarray:
        """Cells in the closed neighbourhood of any marked cell (boolean dilation)."""
        return self._sweep(np.asarray(mask, dtype=bool), np.logical_or)

    # ----------------------------------------------------------------- sparse neighbourhoods
    def closed_neighbourhood(self, flat_indices: np.ndarray) -> np.ndarray:
        """Sorted unique flat indices of the closed neighbourhoods of the given cells.

        Cost is proportional to the cells touched (about k x 3^axes), not to the board; when that
        would exceed a whole-board pass, a dilation of the full board is used instead.
        """
        cells = np.unique(np.asarray(flat_indices, dtype=np.int64))
        if cells.size == 0:
            return cells
        k = len(self.core_shape)
        sparse_cost = cells.size * (3.0**k)
        dense_cost = self.size * max(k, 1) * 2.0
        if sparse_cost > dense_cost:
            mark = np.zeros(self.size, dtype=bool)
            mark[cells] = True
            return np.flatnonzero(self.dilate(mark))
        for n, stride in zip(self.core_shape, self.core_strides):
            position = (cells // stride) % n
            if self.torus:
                up = np.where(position == n - 1, cells - (n - 1) * stride, cells + stride)
                down = np.where(position == 0, cells + (n - 1) * stride, cells - stride)
                cells = np.unique(np.concatenate((cells, up, down)))
            else:
                up = cells[position < n - 1] + stride
                down = cells[position > 0] - stride
                cells = np.unique(np.concatenate((cells, up, down)))
        return cells

    def components(self, mask: np.ndarray) -> np.ndarray | None:
        """Label the connected components of a mask (neighbours connect), or None where too costly.

        Used by flood fill once a region proves large: one C pass over the board beats many
        frontier steps. Bounded boards of up to 4 non-trivial axes only (the labelling visits
        3^axes offsets per cell, which stops paying beyond 4 axes, and does not wrap around a torus).
        """
        k = len(self.core_shape)
        if self.torus or k == 0 or k > 4:
            return None
        from scipy import ndimage

        labels, _ = ndimage.label(self.core(mask), structure=np.ones((3,) * k, dtype=bool))
        return labels.ravel()

    def neighbours(self, coordinate: Sequence[int]) -> list[Coordinate]:
        """The neighbours of one cell as coordinate tuples (itself excluded), in C order."""
        coord = self.check(coordinate)
        me = self.flat(coord)
        cells = self.closed_neighbourhood(np.array([me]))
        return self.unflat_many(cells[cells != me])

    def neighbourhood_size_bound(self) -> int:
        """The largest closed neighbourhood any cell can have (for first-move exclusions)."""
        return math.prod(min(3, n) for n in self.shape)
