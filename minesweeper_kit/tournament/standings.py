"""Ranking: the standings of a tournament from every bot's game records.

Rankings come from `stats`: exact McNemar tests on the paired games, Holm's correction per event
(and for all events pooled), groups of tied bots. The intervals are 95 % Wilson intervals; a
Sweepmine subtask's event is scored S(P/Q) as in the arena.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field

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
        """The leaderboard for the terminal (`reports.leaderboard_text`)."""
        from .reports import leaderboard_text

        return leaderboard_text(self)

    def to_json(self) -> dict:
        """Everything as plain data, as tournament.json holds it (`reports.standings_json`)."""
        from .reports import standings_json

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
