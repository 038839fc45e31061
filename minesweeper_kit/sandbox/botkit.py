"""The part of the kit a sandboxed bot may import: the `BotView`/`Move` protocol and nothing that plays.

A bot file runs in the sandbox with a copy of these modules only. The kit's solver, arena,
tournament and built-in bots are simply not there, so no import path, however indirect,
reaches them. The package's ``__init__`` files are replaced by small ones that export just
what is copied.
"""

from __future__ import annotations

import os
import shutil
from pathlib import Path

__all__ = ["BOT_MODULES", "build_bot_kit"]

#: Module files (relative to the kit's package folder) a bot may use.
BOT_MODULES = (
    "game.py",
    "geometry.py",
    "presets.py",
    "rules.py",
    "bots/view.py",
    "bots/botfile.py",
    "bots/adapters.py",
    "formats/sweepmine.py",
)

_INITS = {
    "__init__.py": '"""The parts of the minesweeper kit a sandboxed bot may use."""\n'
    "from .game import Action, Face, Game, Mark\nfrom .geometry import Geometry\n"
    "from .presets import PRESETS, Preset\n",
    "bots/__init__.py": '"""The bot protocol: BotView, Move and the adapters for the contests\' bot shapes."""\n'
    "from .view import VIEW_FLAG, VIEW_OPEN_MIN, VIEW_UNKNOWN, Bot, BotView, Move, MoveKind\n"
    "from .adapters import RubyBot, SweepmineBot, read_sweepmine_position, sweepmine_function, "
    "to_ruby_state, to_sweepmine, view_from_sweepmine\n",
    "formats/__init__.py": '"""Only the Sweepmine format, which the bot adapters read."""\n',
}


def build_bot_kit(destination: str | os.PathLike) -> Path:
    """Copy the allowed modules into ``destination/minesweeper_kit`` and return that folder."""
    source = Path(__file__).resolve().parent.parent
    target = Path(destination) / "minesweeper_kit"
    for relative in BOT_MODULES:
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(source / relative, path)
    for relative, text in _INITS.items():
        (target / relative).write_text(text, encoding="utf-8")
    return target
