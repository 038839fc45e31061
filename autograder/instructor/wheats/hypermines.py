"""A second correct solution of step 4 (notebook 04-nd-dig): HyperMines on flat cell numbers.

The reference walks nested lists by recursion on the first axis. Here every cell has a number,
its row-major position (``index = index * size + x`` axis by axis), and the work happens on flat
lists: the board is counted in a flat list and folded into nested lists at the end, a dig reads
``board`` and ``mask`` into flat lists, floods breadth-first with a queue, then writes the cells it
opened back into ``mask``. Nothing is kept between calls but the attributes, so a test may
replace ``board``, ``mask`` and ``state`` between digs.

The same public API as the reference: ``HyperMinesGame(dimensions, bombs, *, torus=False,
charges=None)`` with the attributes ``dimensions``, ``board``, ``mask``, ``state``, ``torus`` and
``charges``, and the methods ``dig``, ``render``, ``dump`` and ``floods``. Only the imports step 4
allows.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Mapping

BOMB = "."
LOWEST_CHARGE = -10
HIGHEST_CHARGE = 10


def _position(cell, sizes):
    """The row-major number of ``cell`` on a board of ``sizes``."""
    index = 0
    for x, size in zip(cell, sizes):
        index = index * size + x
    return index


def _cell(index, sizes):
    """The coordinates of the cell numbered ``index`` (the inverse of ``_position``)."""
    cell = [0] * len(sizes)
    for axis in range(len(sizes) - 1, -1, -1):
        index, cell[axis] = divmod(index, sizes[axis])
    return cell


def _reach(x, size, torus):
    """The positions at most one step from ``x`` on an axis of ``size`` cells, each once."""
    if torus:
        return {(x - 1) % size, x, (x + 1) % size}
    return [p for p in (x - 1, x, x + 1) if 0 <= p < size]


def _around(index, sizes, torus):
    """The numbers of the cells next to cell ``index`` (itself excluded), each once."""
    numbers = [0]
    for x, size in zip(_cell(index, sizes), sizes):
        numbers = [base * size + p for base in numbers for p in _reach(x, size, torus)]
    return [number for number in numbers if number != index]


def _flatten(nested, depth):
    """The leaves of a nested list ``depth`` levels deep, in row-major order."""
    level = [nested]
    for _ in range(depth):
        level = [item for part in level for item in part]
    return level


def _fold(flat, sizes):
    """A flat row-major list folded into nested lists of ``sizes`` (every inner list new)."""
    level = flat
    for size in reversed(sizes[1:]):
        level = [level[start : start + size] for start in range(0, len(level), size)]
    return level


def _read(nested, cell):
    for x in cell:
        nested = nested[x]
    return nested


def _write(nested, cell, value):
    for x in cell[:-1]:
        nested = nested[x]
    nested[cell[-1]] = value


def _charge_of_each_bomb(bombs, charges):
    """``charges`` as a dict from a bomb's coordinates (a tuple) to its charge, checked; None if
    no charges were given."""
    if charges is None:
        return None
    bomb_cells = [tuple(bomb) for bomb in bombs]
    if isinstance(charges, Mapping):
        table = {}
        for cell, charge in charges.items():
            table[tuple(cell)] = charge
        uncharged = [list(cell) for cell in bomb_cells if cell not in table]
        if uncharged:
            raise ValueError(f"no charge given for the bombs {uncharged}")
    else:
        if len(charges) != len(bomb_cells):
            raise ValueError(f"{len(charges)} charges for {len(bomb_cells)} bombs")
        table = {}
        for cell, charge in zip(bomb_cells, charges):
            if cell in table and table[cell] != charge:
                raise ValueError(f"the bomb {list(cell)} is given two different charges")
            table[cell] = charge
    known = set(bomb_cells)
    for cell, charge in table.items():
        if cell not in known:
            raise ValueError(f"a charge is given for {list(cell)}, where there is no bomb")
        if type(charge) is bool or not isinstance(charge, int):
            raise ValueError(f"the bomb {list(cell)} has a charge {charge!r}, not an int")
        if charge == 0 or charge < LOWEST_CHARGE or charge > HIGHEST_CHARGE:
            raise ValueError(f"the bomb {list(cell)} has the charge {charge}, outside the nonzero -10..10")
    return table


class HyperMinesGame:
    """A game of Mines in any number of dimensions, in the 6.009 API."""

    def __init__(self, dimensions, bombs, *, torus=False, charges=None):
        """A new game, every cell hidden. ``charges``: one per bomb (a list) or by cell (a mapping);
        ``torus``: every axis wraps around."""
        sizes = list(dimensions)
        if not sizes or not all(isinstance(size, int) and size >= 1 for size in sizes):
            raise ValueError(f"dimensions must be a non-empty list of positive ints, got {sizes}")
        for bomb in bombs:
            inside = len(bomb) == len(sizes) and all(x in range(size) for x, size in zip(bomb, sizes))
            if not inside:
                raise ValueError(f"{list(bomb)} is not a cell of a {sizes} board")
        self.torus = bool(torus)
        self.charges = _charge_of_each_bomb(bombs, charges)
        self.dimensions = sizes
        total = 1
        for size in sizes:
            total *= size
        flat = [0] * total
        bomb_numbers = {}
        for bomb in bombs:
            bomb_numbers.setdefault(_position(bomb, sizes), tuple(bomb))
        for number in bomb_numbers:
            flat[number] = BOMB
        for number, cell in bomb_numbers.items():
            charge = 1 if self.charges is None else self.charges[cell]
            for other in _around(number, sizes, self.torus):
                if flat[other] != BOMB:
                    flat[other] += charge
        self.board = _fold(flat, sizes)
        self.mask = _fold([False] * total, sizes)
        self.state = "ongoing"

    def floods(self):
        """Whether opening a 0 opens the cells around it: only when every bomb's charge is 1."""
        if self.charges is None:
            return True
        return set(self.charges.values()) <= {1}

    def dig(self, coordinates):
        """Reveal the cell at ``coordinates``; return how many cells were newly revealed.

        0 after the end of the game or on a revealed cell; 1 on a bomb (a defeat); otherwise the
        cell and, through every 0 (when the game floods), the region around it, then a victory
        when no safe cell is left hidden.
        """
        if self.state != "ongoing":
            return 0
        sizes = list(self.dimensions)
        cell = list(coordinates)
        if len(cell) != len(sizes) or not all(x in range(size) for x, size in zip(cell, sizes)):
            raise IndexError(f"{cell} is not a cell of a {sizes} board")
        if _read(self.mask, cell):
            return 0
        if _read(self.board, cell) == BOMB:
            _write(self.mask, cell, True)
            self.state = "defeat"
            return 1
        board = _flatten(self.board, len(sizes))
        shown = _flatten(self.mask, len(sizes))
        spreads = self.floods()
        start = _position(cell, sizes)
        waiting = deque([start])
        queued = {start}
        opened = []
        while waiting:
            number = waiting.popleft()
            if shown[number] or board[number] == BOMB:
                continue
            shown[number] = True
            opened.append(number)
            if spreads and board[number] == 0:
                for other in _around(number, sizes, self.torus):
                    if other not in queued and not shown[other]:
                        queued.add(other)
                        waiting.append(other)
        for number in opened:
            _write(self.mask, _cell(number, sizes), True)
        if all(value == BOMB or seen for value, seen in zip(board, shown)):
            self.state = "victory"
        return len(opened)

    def render(self, xray=False):
        """The player's view, shaped like the board: '_' hidden (every cell shows with ``xray``),
        '.' a bomb, ' ' a 0, else the number as text."""

        def face(value, seen):
            if not (seen or xray):
                return "_"
            if value == BOMB:
                return BOMB
            return " " if value == 0 else str(value)

        if not isinstance(self.board, list):
            return face(self.board, self.mask)
        view = []
        pending = [(self.board, self.mask, view)]
        while pending:
            board, mask, into = pending.pop()
            for value, seen in zip(board, mask):
                if isinstance(value, list):
                    inner = []
                    into.append(inner)
                    pending.append((value, seen, inner))
                else:
                    into.append(face(value, seen))
        return view

    def dump(self):
        """Print the four attributes, one slice of the first axis a line."""
        gap = "\n" + " " * 7
        print("dimensions: " + str(self.dimensions))
        print("board: " + gap.join(str(part) for part in self.board))
        print("mask:  " + gap.join(str(part) for part in self.mask))
        print("state: " + str(self.state))

    @classmethod
    def from_dict(cls, d):
        """A game with the attributes of the dictionary ``d``, as the handout's tests build one."""
        game = object.__new__(cls)
        game.torus, game.charges = False, None
        game.dimensions, game.board, game.mask, game.state = d["dimensions"], d["board"], d["mask"], d["state"]
        return game
