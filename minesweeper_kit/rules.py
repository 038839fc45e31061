"""The rules of one game, as one value: shape, mines, torus, charges, reveal rule and first move.

Every place that starts games takes a `Rules`: the engine (`Rules.new_game`), the arena and the
tournament, `mines play` (`rules_from_options` in play.py), the notebook board and the web page.
A rule set is checked by the engine's own checks (game.py holds the values each option can take
and their checks, beside the code that plays them), so a new rule variant is added once; this
module adds the named rule sets: the presets and the default charge ranges.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field, replace
from typing import Any, cast

from .game import (
    FIRST_MOVES,
    MAX_CHARGE,
    REVEAL_RULES,
    FirstMove,
    Game,
    Reveal,
    check_charge_range,
    check_first_move,
    check_mine_count,
    check_reveal,
    max_mines,
)
from .geometry import validate_shape
from .presets import PRESETS

# The option values are the engine's; they are named here too, where a rule set is made.
__all__ = [
    "Rules",
    "REVEAL_RULES",
    "FIRST_MOVES",
    "MAX_CHARGE",
    "SWEEPMINE_CHARGES",
    "DEFAULT_CHARGES",
    "Reveal",
    "FirstMove",
]

# The range of charges the Sweepmine.TM "charged" subtasks draw from (1 is the plain mine).
SWEEPMINE_CHARGES = (-10, 1)
# The range `mines play --charges` and `Rules.preset(charges=True)` use when none is named.
DEFAULT_CHARGES = (-MAX_CHARGE, MAX_CHARGE)


@dataclass(frozen=True)
class Rules:
    """One rule set, checked when made. `charges` is a (low, high) range to draw charges from, or None.

    >>> Rules((16, 30), 99).new_game(seed=1)
    >>> Rules.preset("beginner", torus=True)
    """

    shape: tuple[int, ...]
    mines: int
    torus: bool = False
    charges: tuple[int, int] | None = None
    reveal: Reveal = "flood"
    first_move: FirstMove = "safe"
    name: str = field(default="", compare=False)

    def __post_init__(self) -> None:
        shape = validate_shape(self.shape)
        first_move = check_first_move(self.first_move)
        object.__setattr__(self, "shape", shape)
        object.__setattr__(self, "torus", bool(self.torus))
        object.__setattr__(self, "charges", check_charge_range(self.charges))
        object.__setattr__(self, "reveal", check_reveal(self.reveal))
        object.__setattr__(self, "mines", check_mine_count(self.mines, max_mines(shape, first_move)))

    @classmethod
    def preset(
        cls,
        name: str,
        torus: bool = False,
        charges: bool | tuple[int, int] = False,
        *,
        reveal: Reveal = "flood",
        first_move: FirstMove = "safe",
    ) -> Rules:
        """A classic board: beginner (9x9, 10), intermediate (16x16, 40) or expert (16x30, 99).

        `charges=True` draws charges from the Sweepmine range; a (low, high) pair names another.
        """
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}: choose one of {', '.join(PRESETS)}")
        p = PRESETS[name]
        charge_range = SWEEPMINE_CHARGES if charges is True else (tuple(charges) if charges else None)
        return cls(
            p.shape, p.mines, bool(torus), cast("tuple[int, int] | None", charge_range), reveal, first_move, name
        )

    def with_options(self, **changes: Any) -> Rules:
        """The same rules with some options changed (checked again); the preset name is dropped."""
        return replace(self, name="", **changes)

    @property
    def size(self) -> int:
        """How many cells the board has."""
        return math.prod(self.shape)

    @property
    def label(self) -> str:
        """A short human name: the preset or the shape and mine count, then the options that differ."""
        base = self.name or "x".join(map(str, self.shape)) + f"/{self.mines}"
        extras = [
            " torus" if self.torus else "",
            f" charges{list(self.charges)}" if self.charges else "",
            f" {self.reveal}" if self.reveal != "flood" else "",
            f" first-move={self.first_move}" if self.first_move != "safe" else "",
        ]
        return base + "".join(extras)

    def for_game(self, seed: int) -> Rules:
        """The rules of game number `seed` in a series: always these (a mixed series varies them)."""
        return self

    def new_game(self, seed: int | None = None) -> Game:
        """A fresh engine game under these rules; mines are placed at the first dig."""
        return Game.new(
            self.shape,
            self.mines,
            torus=self.torus,
            reveal=self.reveal,
            first_move=self.first_move,
            charges=self.charges,
            seed=seed,
        )

    def as_dict(self) -> dict[str, Any]:
        """JSON-able options (for logs and the web page); `Rules(**d)` reads them back."""
        return {
            "shape": list(self.shape),
            "mines": self.mines,
            "torus": self.torus,
            "charges": list(self.charges) if self.charges else None,
            "reveal": self.reveal,
            "first_move": self.first_move,
        }

    @classmethod
    def of_game(cls, game: Game) -> Rules:
        """The rules a game was made with (explicit charges, as `Game.from_mines` takes, are not a range: dropped)."""
        return cls(game.shape, game.mine_count, game.torus, game.charge_range, game.reveal, game.first_move)
