"""The 6.009 HyperMines API over the vectorised engine.

`HyperMinesGame(dimensions, bombs)` behaves like the lab's class: four public attributes
(`dimensions`, `board`, `mask`, `state`) and `dig`, `render`, `dump`. The attributes may be
overwritten (the original tests do), and the next dig or render works from them alone.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from .formats.mit6009 import BOMB, write_board, write_render
from .game import Game


class HyperMinesGame:
    """A HyperMines game: an N-D board with '.' bombs and neighbour counts."""

    def __init__(self, dimensions: Sequence[int], bombs: Sequence[Sequence[int]]) -> None:
        self._game = Game.from_mines(dimensions, bombs)

    # The four attributes of the 6.009 API, read from and written to the engine.
    @property
    def dimensions(self) -> list[int]:
        """The 6.009 attribute: the board's axis sizes."""
        return list(self._game.shape)

    @dimensions.setter
    def dimensions(self, value: Sequence[int]) -> None:
        """A new shape starts an empty board of that shape, as assigning it in the lab would."""
        if tuple(value) != self._game.shape:
            self._game = Game.from_mines(value, [])

    @property
    def board(self) -> list:
        """The 6.009 attribute: '.' for a bomb, else the neighbour count."""
        return write_board(self._game)

    @board.setter
    def board(self, value: list) -> None:
        """Replace the bombs and counts, as the lab's tests do; the counts are kept as given."""
        cells = _nested_array(value, self._game.shape, "board")
        mines = cells == BOMB
        numbers = np.where(mines, 0, cells).astype(np.int64)
        self._rebuild(mines=mines, numbers=numbers)

    @property
    def mask(self) -> list:
        """The 6.009 attribute: True where a cell is revealed."""
        return self._game.revealed.tolist()

    @mask.setter
    def mask(self, value: list) -> None:
        """Replace which cells are revealed, as the lab's tests do."""
        revealed = _nested_array(value, self._game.shape, "mask").astype(bool)
        self._rebuild(revealed=revealed)

    @property
    def state(self) -> str:
        """The 6.009 attribute: 'ongoing', 'victory' or 'defeat'."""
        return self._game.state

    @state.setter
    def state(self, value: str) -> None:
        """Set the state, as the lab's tests do."""
        self._rebuild(state=value)

    # The methods.
    def dig(self, coordinates: Sequence[int]) -> int:
        """Reveal a cell (and the zero region around it); return how many cells were revealed."""
        return self._game.dig(coordinates)

    def render(self, xray: bool = False) -> list:
        """The 6.009 render: '_' hidden, '.' bomb, ' ' zero, else the count (every cell with `xray`)."""
        return write_render(self._game, xray)

    def dump(self) -> None:
        """Print the four attributes, one top-level row a line."""
        for name in ("dimensions", "board", "mask", "state"):
            value = getattr(self, name)
            if isinstance(value, list) and value and isinstance(value[0], list):
                print(f"{name}: {value[0]}")
                for row in value[1:]:
                    print(f"    {row}")
            else:
                print(f"{name}: {value}")

    @property
    def game(self) -> Game:
        """The engine game behind this object."""
        return self._game

    def _rebuild(self, *, mines=None, numbers=None, revealed=None, state=None) -> None:
        g = self._game
        self._game = Game.from_arrays(
            g.mines if mines is None else mines,
            numbers=g.numbers if numbers is None else numbers,
            revealed=g.revealed if revealed is None else revealed,
            state=g.state if state is None else state,
        )


def _nested_array(value: list, shape: tuple[int, ...], name: str) -> np.ndarray:
    array = np.empty(shape, dtype=object)
    try:
        filled = np.array(value, dtype=object)
    except ValueError:
        raise ValueError(f"{name} is not a regular nested list of shape {list(shape)}") from None
    if filled.shape != shape:
        raise ValueError(f"{name} has shape {list(filled.shape)} but the board is {list(shape)}")
    array[...] = filled
    return array
