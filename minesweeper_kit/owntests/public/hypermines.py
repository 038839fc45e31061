"""Step 4, correct, over the kit: 6.009's ``HyperMinesGame`` played by the kit's engine.

What the "check my tests" cell runs a student's tests against (see ``neighbors.py`` beside it):
the kit's own :class:`~minesweeper_kit.hypermines.HyperMinesGame`, with the extras the step's
reference has (a torus, charged bombs, ``floods``) and the handout starter's ``dump`` and
``from_dict``, so it answers as the reference does.
"""

from __future__ import annotations

from collections.abc import Mapping

from minesweeper_kit.game import Game
from minesweeper_kit.hypermines import HyperMinesGame as KitGame


class HyperMinesGame(KitGame):
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
        self._game = Game.from_mines(dimensions, list(dict.fromkeys(cells)), charges=self.charges, torus=self.torus)

    def floods(self):
        """Whether revealing a 0 opens its neighbours: only when every charge is 1."""
        return self.charges is None or all(c == 1 for c in self.charges.values())

    def _rebuild(self, *, mines=None, numbers=None, revealed=None, state=None):
        g = self._game
        self._game = Game.from_arrays(
            g.mines if mines is None else mines,
            numbers=g.numbers if numbers is None else numbers,
            revealed=g.revealed if revealed is None else revealed,
            state=g.state if state is None else state,
            torus=self.torus,
        )

    def dump(self):
        """Print the game's four attributes, one slice of the first axis a line."""
        print(f"dimensions: {self.dimensions}")
        print("board:", "\n       ".join(str(part) for part in self.board))
        print("mask: ", "\n       ".join(str(part) for part in self.mask))
        print(f"state: {self.state}")

    @classmethod
    def from_dict(cls, d):
        """A game whose attributes are those of the dictionary ``d``."""
        game = cls(list(d["dimensions"]), [])
        game.board, game.mask, game.state = d["board"], d["mask"], d["state"]
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
