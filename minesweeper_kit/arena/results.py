"""What a run of games produces: one `GameRecord` per game, and `ArenaResult` over them.

Plain data, so records cross process boundaries and land in JSON files unchanged; the
statistics themselves (the Wilson interval) are computed by `minesweeper_kit.stats`.
"""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

from ..stats import wilson_interval

#: How a game can end: won, or lost with one of the other reasons.
REASONS = ("won", "mine", "illegal", "crash", "timeout", "too many moves")
#: The losses that are the bot's failures rather than bad luck.
FAILURES = ("crash", "illegal", "timeout", "too many moves")
#: The start of a lost game's detail when the bot could not even be loaded.
LOAD_FAILED = "loading the bot failed"


@dataclass
class GameRecord:
    """What happened in one game, as plain data."""

    index: int
    seed: int
    board: str
    won: bool
    reason: str  #: one of `REASONS`
    moves: int
    seconds: float
    detail: str = ""
    log: str | None = None  #: JSON-lines game log, when logs were asked for
    sweepmine_out: str | None = None

    @classmethod
    def lost_unplayed(cls, index: int, seed: int, board: str, reason: str, detail: str) -> GameRecord:
        """A game lost before its first move (the bot could not load, or had no time left)."""
        return cls(index, seed, board, False, reason, 0, 0.0, detail)


@dataclass
class ArenaResult:
    """The outcome of a run: every game's record and the statistics over them."""

    label: str
    records: list[GameRecord] = field(default_factory=list)

    @property
    def games(self) -> int:
        """How many games were played."""
        return len(self.records)

    @property
    def wins(self) -> int:
        """How many of them were won."""
        return sum(r.won for r in self.records)

    @property
    def win_rate(self) -> float:
        """Wins over games (0.0 for no games)."""
        return self.wins / self.games if self.games else 0.0

    @property
    def interval(self) -> tuple[float, float]:
        """The win rate's 95% Wilson interval."""
        return wilson_interval(self.wins, self.games)

    @property
    def seconds_per_game(self) -> float:
        """Mean wall time of a game, the bot's moves and the engine's digs."""
        return sum(r.seconds for r in self.records) / self.games if self.games else 0.0

    @property
    def reasons(self) -> dict[str, int]:
        """How many games ended for each reason."""
        return dict(Counter(r.reason for r in self.records))

    def summary(self) -> str:
        """One line: wins, rate with its interval, time per game, the losses by reason."""
        lo, hi = self.interval
        losses = ", ".join(f"{k} {v}" for k, v in sorted(self.reasons.items()) if k != "won")
        return (
            f"{self.label}: {self.wins}/{self.games} won = {100 * self.win_rate:.2f}% "
            f"(95% CI {100 * lo:.2f}-{100 * hi:.2f}%), {1000 * self.seconds_per_game:.1f} ms/game"
            + (f"; losses: {losses}" if losses else "")
        )

    def to_json(self) -> dict:
        """The statistics as plain data (`mines arena --json`)."""
        lo, hi = self.interval
        return {
            "label": self.label,
            "games": self.games,
            "wins": self.wins,
            "win_rate": self.win_rate,
            "interval": [lo, hi],
            "seconds_per_game": self.seconds_per_game,
            "reasons": self.reasons,
        }


def write_logs(result: ArenaResult, log_dir: Path) -> None:
    """<label>.games.jsonl (one summary line per game) and each game's log and sweepmine.out."""
    log_dir.mkdir(parents=True, exist_ok=True)
    stem = "".join(ch if ch.isalnum() else "-" for ch in result.label).strip("-")
    with open(log_dir / f"{stem}.games.jsonl", "w") as summary:
        for r in result.records:
            data = {k: v for k, v in asdict(r).items() if k not in ("log", "sweepmine_out")}
            summary.write(json.dumps(data) + "\n")
            if r.log is not None:
                (log_dir / f"{stem}-{r.index:05d}.jsonl").write_text(r.log)
            if r.sweepmine_out is not None:
                (log_dir / f"{stem}-{r.index:05d}.sweepmine.out").write_text(r.sweepmine_out)
