"""The classic board sizes, shared by the command line, the widget and the arena."""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Preset:
    """A named classic board, so every tool offers the same three sizes."""

    name: str
    shape: tuple[int, int]
    mines: int


PRESETS: dict[str, Preset] = {
    p.name: p
    for p in (
        Preset("beginner", (9, 9), 10),
        Preset("intermediate", (16, 16), 40),
        Preset("expert", (16, 30), 99),
    )
}
