"""Minesweeper teaching kit: one vectorised N-D game engine for every rule set, its renderings
and file formats, the inline board widget, bots and the arena.

Start with `Rules(shape, mines).new_game()`, `Game.new(shape, mines)` or
`Game.from_mines(shape, mines)`; see docs/engine.md.
"""

from .game import Action, Face, Game, Mark
from .geometry import Geometry
from .hypermines import HyperMinesGame
from .presets import PRESETS, Preset
from .rules import Rules

__all__ = ["Action", "Face", "Game", "Geometry", "HyperMinesGame", "Mark", "PRESETS", "Preset", "Rules"]
__version__ = "0.1.0"
