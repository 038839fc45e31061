"""The driver for the kit's own engine: a board playing ``minesweeper_kit.Game`` under any rules."""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from ..game import Game
from ..rules import Rules
from .codes import BoardView, engine_codes, full_board_codes


class EngineDriver:
    """Plays the kit's engine: a game made from `rules` (a fresh one per new game), or one handed in."""

    can_compare = False  # the engine is the reference itself

    def __init__(self, rules: Rules | None = None, *, seed: int | None = None, game: Game | None = None) -> None:
        self.name = "engine"
        if rules is None:
            if game is None:
                raise ValueError("give the rules of a game (or a shape and a number of mines), or a game")
            rules = Rules.of_game(game)
        self.rules = rules
        self.game: Game = game if game is not None else self.rules.new_game(seed)
        self._read_game()

    def _read_game(self) -> None:
        g = self.game
        self.shape = tuple(g.shape)
        self.mines = int(g.mine_count)
        self.torus = bool(g.torus)
        self.seed = g.seed
        self._xray: np.ndarray | None = None

    def new_game(self, seed: int | None = None) -> None:
        """Start again under the same rules (a game handed in: the rules it was made with)."""
        self.game = self.rules.new_game(seed)
        self._read_game()

    def dig(self, at: Sequence[int]) -> int:
        """Dig as the engine does; the cells newly revealed."""
        return int(self.game.dig(tuple(at)))

    def mark(self, at: Sequence[int]) -> None:
        """Cycle flag, question, covered."""
        self.game.cycle_mark(tuple(at))

    def view(self) -> BoardView:
        """The engine's view as cell codes."""
        return BoardView(engine_codes(self.game), str(self.game.state), int(self.game.mines_left))

    def xray(self) -> np.ndarray | None:
        """Every cell uncovered, worked out once the mines are placed (None before)."""
        if self._xray is None and self.game.placed:
            self._xray = full_board_codes(self.game.mines, self.game.numbers)
        return self._xray

    def reference(self) -> np.ndarray | None:
        """None: an engine board has nothing to compare with."""
        return None

    def truth(self) -> np.ndarray | None:
        """None: an engine board has nothing to compare with."""
        return None
