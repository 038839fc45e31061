"""Step 4, correct, over the kit: 6.009's ``HyperMinesGame`` played by the kit's engine.

What the "check my tests" cell runs a student's tests against (see ``neighbors.py`` beside it). As
the API asks, the game is its four attributes and nothing else: ``dimensions``, ``board``, ``mask``
and ``state`` are plain lists and strings; ``dig`` and ``render`` hand them to the kit's engine
(:class:`~minesweeper_kit.game.Game`) and ``dig`` writes what it revealed back into ``mask`` in
place, so a test may replace an attribute or change it in place between digs, as with the step's
reference. It has the reference's extras (a torus, charged bombs, ``floods``) and the handout
starter's ``dump`` and ``from_dict``.
"""

from __future__ import annotations

from collections.abc import Mapping

import numpy as np

from minesweeper_kit.formats.mit6009 import write_board, write_render
from minesweeper_kit.game import Game


class HyperMinesGame:
    """A game of Mines in any number of dimensions, in the 6.009 API."""

    def __init__(self, dimensions, bombs, *, torus=False, charges=None):
        """Start a game with every cell covered (``charges``: one per bomb, or bomb -> charge)."""
        dimensions = list(dimensions)
        if not dimensions or any(type(n) is not int or n < 1 for n in dimensions):
            raise ValueError(f"dimensions must be a non-empty list of positive ints, got {dimensions}")
        cells = [tuple(bomb) for bomb in bombs]
        for bomb in cells:
            if len(bomb) != len(dimensions) or not all(0 <= x < n for x, n in zip(bomb, dimensions)):
                raise ValueError(f"bomb {list(bomb)} is not a cell of a {dimensions} board")
        self.torus = bool(torus)
        self.charges = _charges(cells, charges)
        charged = self.charges or None  # no bombs, no charges: the engine's default
        game = Game.from_mines(dimensions, list(dict.fromkeys(cells)), charges=charged, torus=self.torus)
        self.dimensions = dimensions
        self.board = write_board(game)
        self.mask = game.revealed.tolist()
        self.state = "ongoing"

    def floods(self):
        """Whether revealing a 0 opens its neighbours: only when every charge is 1."""
        return self.charges is None or all(c == 1 for c in self.charges.values())

    def _engine(self):
        """The engine's game of the four attributes as they are now."""
        cells = np.empty(tuple(self.dimensions), dtype=object)
        cells[...] = np.array(self.board, dtype=object)
        mines = cells == "."
        numbers = np.where(mines, 0, cells).astype(np.int64)
        charges = None
        if self.charges:
            charges = np.ones(mines.shape, dtype=np.int64)  # a cell without a bomb: its charge is never read
            for cell, charge in self.charges.items():
                charges[cell] = charge
        return Game.from_arrays(
            mines,
            numbers=numbers,
            revealed=np.array(self.mask, dtype=bool),
            charges=charges,
            state=self.state,  # type: ignore[arg-type]  # a test may set any state; the engine checks it
            torus=self.torus,
        )

    def dig(self, coordinates):
        """Reveal the cell at ``coordinates``; return how many cells this newly revealed."""
        game = self._engine()
        revealed = int(game.dig(tuple(coordinates)))
        for index in zip(*np.nonzero(game.revealed)):
            inner = self.mask
            for x in index[:-1]:
                inner = inner[x]
            inner[index[-1]] = True  # in place, as the reference sets its mask
        self.state = game.state
        return revealed

    def render(self, xray=False):
        """The board as the player sees it: '_' hidden, '.' bomb, ' ' zero, else the number."""
        return write_render(self._engine(), xray)

    def dump(self):
        """Print the game's four attributes, one slice of the first axis a line."""
        print(f"dimensions: {self.dimensions}")
        print("board:", "\n       ".join(str(part) for part in self.board))
        print("mask: ", "\n       ".join(str(part) for part in self.mask))
        print(f"state: {self.state}")

    @classmethod
    def from_dict(cls, d):
        """A game whose four attributes are those of the dictionary ``d``."""
        game = cls.__new__(cls)
        game.torus, game.charges = False, None
        for name in ("dimensions", "board", "state", "mask"):
            setattr(game, name, d[name])
        return game


def _charges(bombs, charges):
    """Each bomb's charge keyed by its coordinates, checked; None when no charges were given."""
    if charges is None:
        return None
    if isinstance(charges, Mapping):
        table = {tuple(cell): charge for cell, charge in charges.items()}
        missing = [list(b) for b in bombs if b not in table]
        if missing:
            raise ValueError(f"charges give no charge for the bombs {missing}")
    else:
        if len(charges) != len(bombs):
            raise ValueError(f"charges has {len(charges)} entries for {len(bombs)} bombs")
        table = {}
        for bomb, charge in zip(bombs, charges):
            if table.get(bomb, charge) != charge:
                raise ValueError(f"bomb {list(bomb)} is listed twice with different charges")
            table[bomb] = charge
    for cell, charge in table.items():
        if cell not in bombs:
            raise ValueError(f"charges name the cell {list(cell)}, which is not a bomb")
        if type(charge) is not int or charge == 0 or not -10 <= charge <= 10:
            raise ValueError(f"the charge of bomb {list(cell)} must be a nonzero int in [-10, 10], got {charge!r}")
    return table
