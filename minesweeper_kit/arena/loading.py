"""Which bot a name or a file means: the built-in bots, or the bot a Python file defines."""

from __future__ import annotations

import importlib.util
import os
from pathlib import Path
from typing import Any

from ..bots.botfile import bot_from_namespace

#: The kit's own bots, by the names the command line and the tournament accept.
BUILTIN_BOTS = ("reference", "baseline", "random")


def load_bot(source: str | os.PathLike) -> Any:
    """A bot from a built-in name ("reference", "baseline", "random") or a Python file.

    The file is run in this process (trusted code only: the sandboxed runner loads files in the
    sandbox instead). In the file, the first of these that exists is used (`bots.botfile` has the
    rules): ``make_bot()`` (returns a bot); a module-level ``next_move`` with six parameters (the
    Sweepmine signature, adapted) or one parameter (a kit bot's ``next_move(view)``); a class whose
    name ends with ``Player`` and has ``take_turn`` (the Ruby-tournament shape, adapted); a
    module-level ``take_turn(state)``.
    """
    from ..bots import BaselineBot, RandomBot, ReferenceSolver

    name = str(source)
    if name == "reference":
        return ReferenceSolver()
    if name == "baseline":
        return BaselineBot()
    if name == "random":
        return RandomBot()
    path = Path(name)
    if not path.is_file():
        raise ValueError(f"no bot file {name!r} (or give a built-in bot: {', '.join(BUILTIN_BOTS)})")
    spec = importlib.util.spec_from_file_location(f"arena_bot_{abs(hash(str(path.resolve())))}", path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return bot_from_namespace(vars(module), name)
