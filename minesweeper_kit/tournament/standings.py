"""Ranking: the standings of a tournament from every bot's game records, and their two plain forms.

Rankings come from `stats`: exact McNemar tests on the paired games, Holm's correction per event
(and for all events pooled), groups of tied bots. The intervals are 95 % Wilson intervals; a
Sweepmine subtask's event is scored S(P/Q) as in the arena.

The standings read as a fixed-width table (`leaderboard_text`, `Standings.table`, what the terminal
shows) and as plain data (`standings_json`, `Standings.to_json`, what tournament.json holds); the
files written from them are reports.py's.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path

from ..arena import FAILURES, LOAD_FAILED, GameRecord
from ..stats import Pair, bin_quantile, compare, rank_groups, wilson_interval
from .entrants import Entrant, Event

#: The name of the family of all events pooled, beside each event's own.
OVERALL = "all events"

#: Outcomes of the games one family compares: ``outcomes[bot][game key] = won``.
Outcomes = dict[str, dict[object, bool]]


@dataclass
class EventStats:
    """One bot's games of one event (or of all events pooled)."""

    games: int
    wins: int
    interval: tuple[float, float]
    rank: int = 0
    group: int = 0
    score: float | None = None  #: Sweepmine S(P/Q), for subtask events

    @property
    def rate(self) -> float:
        """Wins over games (0.0 for no games)."""
        return self.wins / self.games if self.games else 0.0


@dataclass
class BotRow:
    """A bot's line of the leaderboard."""

    entrant: Entrant
    events: dict[str, EventStats]
    overall: EventStats
    failures: dict[str, int]  #: games lost to a crash, an illegal move, a time-out, too many moves
    examples: dict[str, str]  #: one message per failure kind
    load_failures: int  #: games lost because the bot could not be loaded
    move_bins: dict[int, int]
    seconds_per_game: float

    @property
    def name(self) -> str:
        """The bot's name."""
        return self.entrant.name

    @property
    def moves(self) -> int:
        """Moves timed, over all the bot's games."""
        return sum(self.move_bins.values())

    def move_seconds(self, q: float) -> float | None:
        """The q-quantile of the time per move (within half a bin), or None."""
        return bin_quantile(self.move_bins, q)

    @property
    def mean_score(self) -> float | None:
        """The mean S(P/Q) over the Sweepmine events, or None without any."""
        scores = [s.score for s in self.events.values() if s.score is not None]
        return sum(scores) / len(scores) if scores else None


@dataclass
class Standings:
    """Everything the reports show: ranked rows, the pairwise comparisons and the settings."""

    events: list[Event]
    rows: list[BotRow]  #: best first
    pairs: dict[str, list[Pair]]  #: per event name, and OVERALL
    settings: dict = field(default_factory=dict)

    def row(self, name: str) -> BotRow:
        """The named bot's row (KeyError if there is none)."""
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def pair(self, family: str, a: str, b: str) -> Pair:
        """The comparison of two bots in one family (an event, or OVERALL)."""
        for p in self.pairs[family]:
            if {p.a, p.b} == {a, b}:
                return p
        raise KeyError((family, a, b))

    def table(self) -> str:
        """The leaderboard for the terminal (`leaderboard_text`)."""
        return leaderboard_text(self)

    def to_json(self) -> dict:
        """Everything as plain data, as tournament.json holds it (`standings_json`)."""
        return standings_json(self)


def rank_standings(
    records: dict[str, dict[str, list[GameRecord]]],
    events: Sequence[Event],
    entrants: Sequence[Entrant] | None = None,
    move_bins: dict[str, Counter] | None = None,
    alpha: float = 0.05,
    settings: dict | None = None,
) -> Standings:
    """Leaderboard and pairwise tests from every bot's records: ``records[bot][event]``."""
    if entrants is None:
        entrants = [Entrant(name, name, "", False) for name in records]
    names = [e.name for e in entrants]
    missing = [n for n in names if n not in records]
    if missing:
        raise ValueError(f"no records for {', '.join(missing)}")
    pairs: dict[str, list[Pair]] = {}
    ranks: dict[str, dict[str, tuple[int, int]]] = {}
    for family, outcomes in _families(records, events, names):
        pairs[family] = compare(outcomes, alpha) if len(names) > 1 else []
        order = sorted(names, key=lambda n: (-_rate(outcomes[n]), n))
        ranks[family] = rank_groups(order, pairs[family])
    rows = [_bot_row(e, records[e.name], events, ranks, (move_bins or {}).get(e.name, {})) for e in entrants]
    rows.sort(key=lambda row: (row.overall.rank, -row.overall.rate, row.name))
    return Standings(list(events), rows, pairs, dict(settings or {}))


def _families(
    records: dict[str, dict[str, list[GameRecord]]], events: Sequence[Event], names: list[str]
) -> list[tuple[str, Outcomes]]:
    """Each event's outcomes keyed by game index, then all events pooled (keyed by event and index)."""
    families: list[tuple[str, Outcomes]] = [
        (ev.name, {n: {r.index: r.won for r in records[n].get(ev.name, [])} for n in names}) for ev in events
    ]
    pooled: Outcomes = {
        n: {(ev.name, r.index): r.won for ev in events for r in records[n].get(ev.name, [])} for n in names
    }
    families.append((OVERALL, pooled))
    return families


def _bot_row(
    entrant: Entrant,
    records: dict[str, list[GameRecord]],
    events: Sequence[Event],
    ranks: dict[str, dict[str, tuple[int, int]]],
    move_bins: Counter | dict[int, int],
) -> BotRow:
    """One bot's leaderboard line: its events, all of them pooled, its failures and move times."""
    n = entrant.name
    stats = {}
    for ev in events:
        s = _event_stats(records.get(ev.name, []), ranks[ev.name][n])
        if ev.subtask is not None and s.games:
            s.score = ev.subtask.score(100 * s.wins / s.games)
        stats[ev.name] = s
    every = [r for ev in events for r in records.get(ev.name, [])]
    reasons = Counter(r.reason for r in every)
    examples: dict[str, str] = {}
    for r in every:
        if r.reason in FAILURES and r.reason not in examples:
            examples[r.reason] = r.detail
    loads = sum(r.detail.startswith(LOAD_FAILED) for r in every if r.reason in FAILURES)
    seconds = sum(r.seconds for r in every) / len(every) if every else 0.0
    failures = {k: reasons.get(k, 0) for k in FAILURES}
    overall = _event_stats(every, ranks[OVERALL][n])
    return BotRow(entrant, stats, overall, failures, examples, loads, dict(move_bins), seconds)


def _event_stats(games: list[GameRecord], rank: tuple[int, int]) -> EventStats:
    wins = sum(r.won for r in games)
    return EventStats(len(games), wins, wilson_interval(wins, len(games)), *rank)


def _rate(outcomes: dict) -> float:
    return sum(outcomes.values()) / len(outcomes) if outcomes else 0.0


# ---------------------------------------------------------------------- the table and the plain data
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
