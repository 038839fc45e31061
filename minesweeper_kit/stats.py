"""The statistics of the arena and the tournament: win-rate intervals, paired comparisons,
Holm's correction, rank groups, quantiles of move times.

Pure functions over counts, no I/O, so each number can be checked by hand. (The Sweepmine score
S(P/Q) is a contest rule, not a statistic: it lives with the subtasks in `arena.scoring`.)

Why these choices:

* A win rate is stated with its 95 % Wilson score interval: unlike the normal approximation it
  stays inside [0, 1] and keeps its coverage for rates near 0 or 1 and for few games.
* Every bot plays the same seeded games, so two bots are compared game by game. Games both won or
  both lost say nothing about which bot is better; only the discordant ones do (A won where B
  lost, or the reverse). Under "equally strong" each discordant game goes either way with
  probability 1/2: the exact McNemar test, which is the sign test on those games.
* Many pairs are tested at once, so the p-values are adjusted with Holm's step-down method: the
  chance of calling any tie a difference stays below alpha, with more power than Bonferroni.
* A ranking only separates bots where the tests do: bots fall into ordered groups, and every bot
  of a group beats every bot of every lower group significantly. Inside a group they are tied.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass

import numpy as np

__all__ = [
    "Z95",
    "wilson_interval",
    "Pair",
    "mcnemar_exact",
    "holm",
    "compare",
    "rank_groups",
    "time_bin",
    "bin_seconds",
    "bin_quantile",
    "BINS_PER_DECADE",
]


#: The two-sided 95 % quantile of the standard normal distribution.
Z95 = 1.959963984540054


def wilson_interval(wins: int, games: int, z: float = Z95) -> tuple[float, float]:
    """The Wilson score interval for a win rate (95% by default); (0, 1) for no games."""
    if games < 0 or not 0 <= wins <= games:
        raise ValueError(f"need 0 <= wins <= games, got {wins} wins of {games}")
    if games == 0:
        return 0.0, 1.0
    p = wins / games
    denom = 1 + z * z / games
    centre = (p + z * z / (2 * games)) / denom
    half = z * math.sqrt(p * (1 - p) / games + z * z / (4 * games * games)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


def mcnemar_exact(a_only: int, b_only: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (the sign test on them).

    ``a_only``: games A won and B lost; ``b_only``: the reverse. With n = a_only + b_only and
    k = min(a_only, b_only), p = min(1, 2 P(X <= k)) for X ~ Binomial(n, 1/2); 1.0 when n = 0.
    """
    if a_only < 0 or b_only < 0:
        raise ValueError(f"discordant counts cannot be negative, got {a_only} and {b_only}")
    n = a_only + b_only
    if n == 0:
        return 1.0
    k = min(a_only, b_only)
    if n <= 1000:  # exact integer arithmetic: sum of C(n, i) for i <= k, over 2^n
        term, total = 1, 1
        for i in range(1, k + 1):
            term = term * (n - i + 1) // i
            total += term
        return min(1.0, 2 * total / 2**n)
    from scipy.stats import binom  # the same distribution through the incomplete beta function

    return min(1.0, 2.0 * float(binom.cdf(k, n, 0.5)))


def holm(p_values: Sequence[float]) -> list[float]:
    """Holm's step-down adjusted p-values, in the order given (monotone, at most 1)."""
    for p in p_values:
        if not 0.0 <= p <= 1.0 or math.isnan(p):
            raise ValueError(f"a p-value must lie in [0, 1], got {p}")
    m = len(p_values)
    order = sorted(range(m), key=lambda i: p_values[i])
    adjusted = [0.0] * m
    running = 0.0
    for step, i in enumerate(order):
        running = max(running, min(1.0, (m - step) * p_values[i]))
        adjusted[i] = running
    return adjusted


@dataclass(frozen=True)
class Pair:
    """Two bots compared on the games both played."""

    a: str
    b: str
    games: int  #: games both played
    both: int  #: both won
    a_only: int  #: A won, B lost
    b_only: int  #: B won, A lost
    p: float  #: exact McNemar, two-sided
    p_holm: float  #: after Holm's correction over every pair of the same family
    alpha: float = 0.05

    @property
    def winner(self) -> str | None:
        """The significantly better bot, or None for a tie."""
        if self.p_holm >= self.alpha or self.a_only == self.b_only:
            return None
        return self.a if self.a_only > self.b_only else self.b

    @property
    def verdict(self) -> str:
        """ "tie", or which bot is better, for tables."""
        return "tie" if self.winner is None else f"{self.winner} better"


def compare(outcomes: Mapping[str, Mapping[object, bool]], alpha: float = 0.05) -> list[Pair]:
    """Every pair of bots, compared on their common games, with Holm's correction over all pairs.

    ``outcomes[bot][game] = won``; a game key is anything hashable that names the same game for
    every bot (its index, or (event, index)). Pairs come in the order of ``outcomes``.
    """
    if not 0 < alpha < 1:
        raise ValueError(f"alpha must lie in (0, 1), got {alpha}")
    names = list(outcomes)
    keys = {key: i for i, key in enumerate(dict.fromkeys(k for n in names for k in outcomes[n]))}
    played = np.zeros((len(names), len(keys)), dtype=np.float64)
    won = np.zeros_like(played)
    for row, name in enumerate(names):
        for key, value in outcomes[name].items():
            played[row, keys[key]] = 1.0
            won[row, keys[key]] = 1.0 if value else 0.0
    # Every pair at once: counts over the games both played are products of 0/1 matrices.
    lost = played - won
    common = played @ played.T
    both = won @ won.T
    only = won @ lost.T  # only[i, j]: games i won and j lost
    raw = []
    for i, a in enumerate(names):
        for j in range(i + 1, len(names)):
            a_only, b_only = int(only[i, j].round()), int(only[j, i].round())
            raw.append(
                (
                    a,
                    names[j],
                    int(common[i, j].round()),
                    int(both[i, j].round()),
                    a_only,
                    b_only,
                    mcnemar_exact(a_only, b_only),
                )
            )
    adjusted = holm([r[-1] for r in raw])
    return [Pair(*r, p_holm=q, alpha=alpha) for r, q in zip(raw, adjusted)]


def rank_groups(order: Sequence[str], pairs: Iterable[Pair]) -> dict[str, tuple[int, int]]:
    """Rank and group number of each bot: ``{bot: (rank, group)}``, both counted from 1.

    ``order`` lists the bots best first by their point estimate. The list is cut between two
    neighbours only where every bot above the cut is significantly better than every bot below
    it; the pieces are the groups. A group's rank is one more than the number of bots above it
    (tied bots share a rank, as in 1, 1, 3).
    """
    beats = {(p.winner, p.b if p.winner == p.a else p.a) for p in pairs if p.winner is not None}
    names = list(order)
    if len(set(names)) != len(names):
        raise ValueError("each bot may appear once in the order")
    out: dict[str, tuple[int, int]] = {}
    start, group = 0, 1
    for cut in range(1, len(names) + 1):
        last = cut == len(names)
        if last or all((x, y) in beats for x in names[:cut] for y in names[cut:]):
            for name in names[start:cut]:
                out[name] = (start + 1, group)
            start, group = cut, group + 1
    return out


# ---------------------------------------------------------------------- move times
BINS_PER_DECADE = 20
_FLOOR = 1e-6  # one microsecond: bin 0 holds everything faster


def time_bin(seconds: float) -> int:
    """The log-spaced bin of a duration (20 per decade from 1 µs, about 12 % wide)."""
    if seconds <= _FLOOR:
        return 0
    return math.floor(BINS_PER_DECADE * math.log10(seconds / _FLOOR))


def bin_seconds(index: int) -> float:
    """The geometric middle of a bin: within 6 % of every duration that falls into it."""
    return _FLOOR * 10 ** ((index + 0.5) / BINS_PER_DECADE)


def bin_quantile(counts: Mapping[int, int], q: float) -> float | None:
    """The q-quantile (0 < q <= 1) of durations counted per bin, or None if there are none.

    It is the middle of the bin holding the ceil(q n)-th smallest duration (the "lower"
    definition of a sample quantile), so it is within one half bin of the exact value.
    """
    if not 0 < q <= 1:
        raise ValueError(f"a quantile lies in (0, 1], got {q}")
    total = sum(counts.values())
    if total == 0:
        return None
    rank = max(1, math.ceil(q * total))
    seen = 0
    for index in sorted(counts):
        seen += counts[index]
        if seen >= rank:
            return bin_seconds(index)
    raise AssertionError("unreachable: the counts add up to the total")
