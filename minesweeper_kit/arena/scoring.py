"""Sweepmine.TM's subtasks and their score S(P/Q): the contest's rules, written down once.

Subtasks 4 to 6 "mix boards": each game draws its board uniformly from the three presets, and
(subtasks 4 and 6) the torus with probability 1/2, from the game's seed. The score of a subtask
is S(x) = ((k1 - 1) x^k2 + x) / k1 with x = P / Q, not capped: above 1 means better than the judge.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from ..rules import SWEEPMINE_CHARGES, Rules
from .results import ArenaResult


@dataclass(frozen=True)
class Subtask:
    """A Sweepmine.TM subtask: its boards and its scoring constants (k1, k2) and judge rate Q (%).

    It offers the two things a series of games asks of its rules, `label` and `for_game`, so the
    arena plays a subtask wherever it plays a `Rules`.
    """

    number: int
    k1: float
    k2: float
    q: float
    presets: tuple[str, ...]
    torus: str  # "no" | "mixed"
    charged: bool
    description: str

    def for_game(self, seed: int) -> Rules:
        """The rules of one game; mixed subtasks draw board and torus from the game's seed."""
        rng = np.random.default_rng([seed, 0x5EED])
        name = self.presets[int(rng.integers(len(self.presets)))]
        torus = self.torus == "mixed" and bool(rng.integers(2))
        return Rules.preset(name, torus, SWEEPMINE_CHARGES if self.charged else False)

    @property
    def label(self) -> str:
        """The subtask's name in tables and logs: "subtask N"."""
        return f"subtask {self.number}"

    def score(self, percent: float) -> float:
        """S(P/Q) for a win rate of `percent`, with this subtask's constants."""
        return sweepmine_score(percent, self.q, self.k1, self.k2)


ALL_PRESETS = ("beginner", "intermediate", "expert")
SUBTASKS: tuple[Subtask, ...] = (
    Subtask(1, 7.0, 4.4, 90.0, ("beginner",), "no", False, "Beginner, uncharged, bounded"),
    Subtask(2, 1.5, 9.0, 78.0, ("intermediate",), "no", False, "Intermediate, uncharged, bounded"),
    Subtask(3, 1.3, 0.1, 37.0, ("expert",), "no", False, "Expert, uncharged, bounded"),
    Subtask(4, 4.4, 7.7, 74.0, ALL_PRESETS, "mixed", False, "any board, uncharged, torus or not"),
    Subtask(5, 1.2, 1.4, 96.0, ALL_PRESETS, "no", True, "any board, charged, bounded"),
    Subtask(6, 1.2, 1.4, 96.0, ALL_PRESETS, "mixed", True, "any board, charged, torus or not"),
)


def subtask(number: int) -> Subtask:
    """Subtask `number` (1 to 6); ValueError names the range otherwise."""
    if not 1 <= number <= len(SUBTASKS):
        raise ValueError(f"Sweepmine subtasks are 1..{len(SUBTASKS)}, got {number}")
    return SUBTASKS[number - 1]


def sweepmine_score(percent: float, judge_percent: float, k1: float, k2: float) -> float:
    """Sweepmine's S(P/Q) = ((k1 - 1) x^k2 + x) / k1 with x = P/Q (P, Q in percent); 1.0 = the judge."""
    if judge_percent <= 0:
        raise ValueError(f"the judge's win rate must be positive, got {judge_percent}")
    if percent < 0:
        raise ValueError(f"a win rate cannot be negative, got {percent}")
    x = percent / judge_percent
    return ((k1 - 1) * x**k2 + x) / k1


@dataclass
class SubtaskResult:
    """One subtask's run: its games' `ArenaResult`, the win rate P in percent and the score."""

    subtask: Subtask
    result: ArenaResult

    @property
    def percent(self) -> float:
        """The win rate P, in percent."""
        return 100 * self.result.win_rate

    @property
    def score(self) -> float:
        """S(P/Q) for this run."""
        return self.subtask.score(self.percent)

    def to_json(self) -> dict:
        """The run's statistics with the subtask's number, P, Q and S(P/Q) (`mines arena --json`)."""
        extra = {"subtask": self.subtask.number, "percent": self.percent, "q": self.subtask.q, "score": self.score}
        return {**self.result.to_json(), **extra}


def sweepmine_table(results: list[SubtaskResult]) -> str:
    """The subtasks' results as a fixed-width table for the terminal."""
    lines = [f"{'subtask':<8} {'boards':<36} {'games':>6} {'P %':>7} {'95% CI':>15} {'Q %':>5} {'S(P/Q)':>7}"]
    for r in results:
        lo, hi = r.result.interval
        lines.append(
            f"{r.subtask.number:<8} {r.subtask.description:<36} {r.result.games:>6} {r.percent:>7.2f} "
            f"{100 * lo:>6.2f}-{100 * hi:<6.2f}  {r.subtask.q:>5.1f} {r.score:>7.3f}"
        )
    return "\n".join(lines)
