"""The tournament's reports: the terminal table, tournament.json, the two CSV files and the page."""

from __future__ import annotations

import csv
import json
import os
from pathlib import Path

from ..stats import Pair
from .standings import EventStats, Standings


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _ms(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    return f"{1000 * seconds:.3g}"


def leaderboard_text(standings: Standings) -> str:
    """The leaderboard as a fixed-width table for the terminal."""
    events = [e.name for e in standings.events]
    head = ["rank", "bot"] + [f"{e} % [95% CI] (rank)" for e in events]
    sweep = any(e.subtask is not None for e in standings.events)
    if sweep:
        head.append("mean S")
    head += ["all %", "crash", "illegal", "timeout", "ms/move p50", "p95"]
    rows = [head]
    for row in standings.rows:
        line = [str(row.overall.rank), row.name]
        for e in events:
            s = row.events[e]
            line.append(
                f"{_pct(s.rate)} [{_pct(s.interval[0])}-{_pct(s.interval[1])}] ({s.rank})"
                + (f" S={s.score:.3f}" if s.score is not None else "")
            )
        if sweep:
            line.append(f"{row.mean_score:.3f}" if row.mean_score is not None else "—")
        line += [
            _pct(row.overall.rate),
            str(row.failures["crash"]),
            str(row.failures["illegal"]),
            str(row.failures["timeout"]),
            _ms(row.move_seconds(0.5)),
            _ms(row.move_seconds(0.95)),
        ]
        rows.append(line)
    widths = [max(len(r[i]) for r in rows) for i in range(len(head))]
    text = ["  ".join(c.ljust(w) if i < 2 else c.rjust(w) for i, (c, w) in enumerate(zip(r, widths))) for r in rows]
    text.insert(1, "  ".join("-" * w for w in widths))
    games = standings.settings.get("games")
    note = (
        f"Ranks: a bot is above another only if the paired test on their common games says so "
        f"(exact McNemar, Holm-corrected, alpha {standings.settings.get('alpha', 0.05)}); equal ranks are ties."
    )
    if games:
        note = f"{games} games per event, the same games for every bot. " + note
    return "\n".join(text + ["", note])


def standings_json(standings: Standings) -> dict:
    """Everything as plain data (tournament.json); ``settings.seed`` replays the games."""

    def stats(s: EventStats) -> dict:
        return {
            "games": s.games,
            "wins": s.wins,
            "win_rate": s.rate,
            "interval": list(s.interval),
            "rank": s.rank,
            "group": s.group,
            **({"score": s.score} if s.score is not None else {}),
        }

    return {
        "settings": standings.settings,
        "events": [
            {
                "name": e.name,
                "rules": e.rules.label,
                "run_seed": e.run_seed,
                **({"q": e.subtask.q, "k1": e.subtask.k1, "k2": e.subtask.k2} if e.subtask else {}),
            }
            for e in standings.events
        ],
        "leaderboard": [
            {
                "bot": row.name,
                "source": row.entrant.source if row.entrant.builtin else Path(row.entrant.source).name,
                "sha256": row.entrant.sha256,
                "sandboxed": row.entrant.sandboxed,
                "overall": stats(row.overall),
                "events": {k: stats(v) for k, v in row.events.items()},
                "failures": row.failures,
                "load_failures": row.load_failures,
                "examples": row.examples,
                "moves": row.moves,
                "move_seconds": {"median": row.move_seconds(0.5), "p95": row.move_seconds(0.95)},
                "seconds_per_game": row.seconds_per_game,
                **({"mean_score": row.mean_score} if row.mean_score is not None else {}),
            }
            for row in standings.rows
        ],
        "pairwise": {family: [_pair_json(p) for p in pairs] for family, pairs in standings.pairs.items()},
    }


def _pair_json(p: Pair) -> dict:
    return {
        "a": p.a,
        "b": p.b,
        "games": p.games,
        "both_won": p.both,
        "a_only": p.a_only,
        "b_only": p.b_only,
        "p": p.p,
        "p_holm": p.p_holm,
        "winner": p.winner,
    }


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
    with open(paths["csv"], "w", newline="") as handle:
        csv.writer(handle).writerows(leaderboard_rows(standings))
    with open(paths["pairwise"], "w", newline="") as handle:
        csv.writer(handle).writerows(pairwise_rows(standings))
    paths["json"].write_text(json.dumps(standings_json(standings), indent=1) + "\n")
    from ..tournament_page import render_page

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
