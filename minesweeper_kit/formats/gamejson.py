"""Games as JSON-able dicts: the kit's save format, and the exchange format of its tools.

Sparse facts (mines, flags, questions, revealed cells) are lists of coordinates, so a dict stays
readable and small on large boards; charges are listed only where they differ from 1.
"""

from __future__ import annotations

from typing import Any

import numpy as np

from ..game import Action, Game, Mark

GAME_FORMAT = "minesweeper-kit/game"
GAME_VERSION = 1


def _coords(game: Game, mask: np.ndarray) -> list[list[int]]:
    return [list(c) for c in game.geometry.unflat_many(np.flatnonzero(mask))]


def game_to_dict(game: Game) -> dict[str, Any]:
    """A game as a JSON-able dict, rules, position and seed included; `game_from_dict` reads it back."""
    charges = game.charges.ravel()
    odd = np.flatnonzero(charges != 1)
    return {
        "format": GAME_FORMAT,
        "version": GAME_VERSION,
        "shape": list(game.shape),
        "torus": game.torus,
        "reveal": game.reveal,
        "first_move": game.first_move,
        "seed": game.seed,
        "mine_count": game.mine_count,
        "mines": _coords(game, game.mines.ravel()) if game.placed else None,
        "charges": [[*game.geometry.unflat(int(i)), int(charges[i])] for i in odd],
        "revealed": _coords(game, game.revealed.ravel()),
        "flags": _coords(game, game.marks.ravel() == Mark.FLAG),
        "questions": _coords(game, game.marks.ravel() == Mark.QUESTION),
        "state": game.state,
        "exploded": list(game.exploded) if game.exploded is not None else None,
        "history": [[a.kind, list(a.at), a.result] for a in game.history],
    }


def game_from_dict(data: dict[str, Any]) -> Game:
    """Rebuild a game saved by `game_to_dict`; ValueError names a missing or wrong field."""
    if not isinstance(data, dict) or data.get("format") != GAME_FORMAT:
        raise ValueError(f"not a saved game: the 'format' field must be {GAME_FORMAT!r}")
    try:
        shape = tuple(data["shape"])
        geometry_game = Game(
            shape,
            torus=data["torus"],
            reveal=data["reveal"],
            first_move=data["first_move"],
            mine_count=0,
            seed=data["seed"],
        )
        charges = np.ones(geometry_game.size, dtype=np.int64)
        for *coord, value in data["charges"]:
            charges[geometry_game.geometry.flat(geometry_game.geometry.check(coord))] = value
        if data["mines"] is None:
            game = Game(
                shape,
                torus=data["torus"],
                reveal=data["reveal"],
                first_move=data["first_move"],
                mine_count=data["mine_count"],
                seed=data["seed"],
            )
            if np.any(charges != 1):
                game._charges = charges.astype(np.int8)
            return game
        mines = np.zeros(geometry_game.size, dtype=bool)
        revealed = np.zeros(geometry_game.size, dtype=bool)
        marks = np.zeros(geometry_game.size, dtype=np.uint8)
        for name, target, value in (
            ("mines", mines, True),
            ("revealed", revealed, True),
            ("flags", marks, Mark.FLAG),
            ("questions", marks, Mark.QUESTION),
        ):
            for coord in data[name]:
                target[geometry_game.geometry.flat(geometry_game.geometry.check(coord))] = value
        game = Game.from_arrays(
            mines.reshape(shape),
            revealed=revealed.reshape(shape),
            marks=marks.reshape(shape),
            charges=charges.reshape(shape),
            state=data["state"],
            torus=data["torus"],
            reveal=data["reveal"],
        )
        game.first_move = data["first_move"]
        game.seed = data["seed"]
        game.exploded = tuple(data["exploded"]) if data["exploded"] is not None else None
        game.history = [Action(kind, tuple(at), int(result)) for kind, at, result in data["history"]]
        return game
    except KeyError as missing:
        raise ValueError(f"saved game lacks the field {missing}") from None
    except (TypeError, ValueError) as error:
        raise ValueError(f"saved game is malformed: {error}") from None
