"""The files a tournament writes: the two CSV files, tournament.json and the page.

The terminal table and the plain data of tournament.json are the standings' own forms
(`Standings.table`, `Standings.to_json`, in standings.py); the page is `page.render_page`.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

from ..csvfile import write_rows
from .page import render_page
from .standings import Standings


def write_outputs(standings: Standings, results_dir: str | os.PathLike) -> dict[str, Path]:
    """leaderboard.csv, pairwise.csv, tournament.json and tournament.html in ``results_dir``."""
    folder = Path(results_dir)
    folder.mkdir(parents=True, exist_ok=True)
    paths = {
        kind: folder / name
        for kind, name in (
            ("csv", "leaderboard.csv"),
            ("pairwise", "pairwise.csv"),
            ("json", "tournament.json"),
            ("html", "tournament.html"),
        )
    }
    write_rows(paths["csv"], leaderboard_rows(standings))  # bot names are escaped: never a formula
    write_rows(paths["pairwise"], pairwise_rows(standings))
    paths["json"].write_text(json.dumps(standings.to_json(), indent=1) + "\n")
    paths["html"].write_text(render_page(standings), encoding="utf-8")
    return paths


def leaderboard_rows(standings: Standings) -> list[list]:
    """leaderboard.csv: a header, then one row per bot, best first; the last column is the
    tournament's seed, so the file alone says how to replay its games."""
    events = [e.name for e in standings.events]
    head = ["rank", "group", "bot", "games", "wins", "win_rate", "ci_low", "ci_high"]
    for e in standings.events:
        head += [f"{e.name} {c}" for c in ("games", "wins", "win_rate", "ci_low", "ci_high", "rank")]
        if e.subtask is not None:
            head.append(f"{e.name} score")
    head += [
        "crash",
        "illegal",
        "timeout",
        "too_many_moves",
        "load_failures",
        "moves",
        "move_ms_median",
        "move_ms_p95",
        "sandboxed",
        "sha256",
        "seed",
    ]
    seed = standings.settings.get("seed", "")
    rows: list[list] = [head]
    for row in standings.rows:
        o = row.overall
        line = [
            o.rank,
            o.group,
            row.name,
            o.games,
            o.wins,
            f"{o.rate:.6f}",
            f"{o.interval[0]:.6f}",
            f"{o.interval[1]:.6f}",
        ]
        for name in events:
            s = row.events[name]
            line += [s.games, s.wins, f"{s.rate:.6f}", f"{s.interval[0]:.6f}", f"{s.interval[1]:.6f}", s.rank]
            if s.score is not None:
                line.append(f"{s.score:.6f}")
        median, p95 = row.move_seconds(0.5), row.move_seconds(0.95)
        line += [
            *(row.failures[k] for k in ("crash", "illegal", "timeout", "too many moves")),
            row.load_failures,
            row.moves,
            "" if median is None else f"{1000 * median:.4g}",
            "" if p95 is None else f"{1000 * p95:.4g}",
            row.entrant.sandboxed,
            row.entrant.sha256,
            seed,
        ]
        rows.append(line)
    return rows


def pairwise_rows(standings: Standings) -> list[list]:
    """pairwise.csv: a header, then every pair of every family (each event, and all events); the
    last column is the tournament's seed, as in leaderboard.csv."""
    seed = standings.settings.get("seed", "")
    rows: list[list] = [["event", "a", "b", "games", "both_won", "a_only", "b_only", "p", "p_holm", "winner", "seed"]]
    for family, pairs in standings.pairs.items():
        for p in pairs:
            rows.append(
                [
                    family,
                    p.a,
                    p.b,
                    p.games,
                    p.both,
                    p.a_only,
                    p.b_only,
                    f"{p.p:.6g}",
                    f"{p.p_holm:.6g}",
                    p.winner or "tie",
                    seed,
                ]
            )
    return rows
