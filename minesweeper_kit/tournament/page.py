"""The tournament's HTML page (tournament.html): the leaderboard, the plots and the pairwise tests.

Built with the helpers every report page shares (`report_page`): it opens from a file, with no
server and no network, and needs matplotlib (the ``report`` extra).
"""

from __future__ import annotations

import math
import re
from typing import Any

from ..report_page import esc, figure_svg, html_page, new_figure, require_matplotlib, table
from .standings import OVERALL, Standings

__all__ = ["render_page", "win_rate_figure", "pairwise_figure"]

_GROUP_COLOURS = ("#1f6feb", "#d1242f", "#1a7f37", "#9a6700", "#8250df", "#bf3989", "#0969da", "#57606a")


def _id(text: str) -> str:
    return re.sub(r"[^\w-]", "-", text)


def _pct(x: float) -> str:
    return f"{100 * x:.1f}"


def _ms(seconds: float | None) -> str:
    return "—" if seconds is None else f"{1000 * seconds:.3g} ms"


def win_rate_figure(standings: Standings) -> Any:
    """One panel per event: each bot's win rate with its 95 % interval, coloured by rank group."""
    events = standings.events
    names = [row.name for row in standings.rows]
    height = 1.2 + 0.32 * len(names)
    fig = new_figure(min(18.0, 2.0 + 3.6 * len(events)), height)
    axes = fig.subplots(1, len(events), sharey=True, squeeze=False)[0]
    ys = list(range(len(names)))[::-1]
    for ax, event in zip(axes, events):
        stats = [row.events[event.name] for row in standings.rows]
        colours = [_GROUP_COLOURS[(s.group - 1) % len(_GROUP_COLOURS)] for s in stats]
        # Two artists per panel (not one per bot): a class of 50 bots draws as fast as 5.
        ax.hlines(
            ys,
            [100 * s.interval[0] for s in stats],
            [100 * s.interval[1] for s in stats],
            colors=colours,
            linewidth=1.5,
        )
        ax.scatter([100 * s.rate for s in stats], ys, c=colours, s=16, zorder=3)
        if event.subtask is not None:
            ax.axvline(event.subtask.q, color="#57606a", linestyle="--", linewidth=1)
            ax.text(event.subtask.q, len(names) - 0.4, " judge Q", fontsize=7, color="#57606a")
        ax.set_title(event.name, fontsize=10)
        ax.set_xlim(-2, 102)
        ax.set_xlabel("win rate, % (95 % Wilson interval)", fontsize=8)
        ax.grid(axis="x", color="#e5e8eb")
        ax.tick_params(labelsize=8)
    axes[0].set_yticks(ys, names)
    axes[0].set_ylim(-0.7, len(names) - 0.3)
    return fig


def pairwise_figure(standings: Standings, family: str) -> Any:
    """The pairwise matrix: green where the row's bot beats the column's, red where it loses."""
    require_matplotlib()
    from matplotlib.colors import ListedColormap

    names = [row.name for row in standings.rows]
    k = len(names)
    where = {n: i for i, n in enumerate(names)}
    grid = [[math.nan] * k for _ in range(k)]
    counts: dict[tuple[int, int], str] = {}
    for p in standings.pairs[family]:
        i, j = where[p.a], where[p.b]
        verdict = 0 if p.winner is None else (1 if p.winner == p.a else -1)
        grid[i][j], grid[j][i] = verdict, -verdict
        counts[(i, j)], counts[(j, i)] = f"{p.a_only}:{p.b_only}", f"{p.b_only}:{p.a_only}"
    size = 1.8 + 0.42 * k
    fig = new_figure(size + 1.2, size)
    ax = fig.subplots()
    ax.imshow(grid, cmap=ListedColormap(["#f4b6b0", "#eceff1", "#a8dab5"]), vmin=-1.5, vmax=1.5)
    if k <= 24:
        for (i, j), text in counts.items():
            ax.text(j, i, text, ha="center", va="center", fontsize=max(5, 8 - k // 6), color="#1d232a")
    ax.set_xticks(range(k), names, rotation=60, ha="right", fontsize=8)
    ax.set_yticks(range(k), names, fontsize=8)
    ax.set_title(f"{family}: row vs column (games only the row won : only the column won)", fontsize=9)
    ax.set_xticks([x - 0.5 for x in range(1, k)], minor=True)
    ax.set_yticks([y - 0.5 for y in range(1, k)], minor=True)
    ax.grid(which="minor", color="white", linewidth=1.5)
    ax.tick_params(which="minor", length=0)
    return fig


def _leaderboard(standings: Standings) -> str:
    sweep = any(e.subtask is not None for e in standings.events)
    head = ["rank", "bot"]
    for e in standings.events:
        head += [f"{e.name}: win % (95 % CI)", "rank"] + (["S(P/Q)"] if e.subtask is not None else [])
    head += (["mean S"] if sweep else []) + [
        "all events: win %",
        "crash",
        "illegal",
        "time-out",
        "too many moves",
        "move p50",
        "move p95",
    ]
    rows = []
    for row in standings.rows:
        line = [
            str(row.overall.rank),
            f'<span title="SHA-256 {esc(row.entrant.sha256)}">{esc(row.name)}</span>'
            + ("" if row.entrant.sandboxed else ' <span class="muted">(in-process)</span>'),
        ]
        for e in standings.events:
            s = row.events[e.name]
            line += [f"{_pct(s.rate)} ({_pct(s.interval[0])}–{_pct(s.interval[1])})", str(s.rank)]
            if e.subtask is not None:
                line.append(f"{s.score:.3f}" if s.score is not None else "—")
        if sweep:
            line.append(f"{row.mean_score:.3f}" if row.mean_score is not None else "—")
        o = row.overall
        line.append(f"{_pct(o.rate)} ({_pct(o.interval[0])}–{_pct(o.interval[1])})")
        for kind in ("crash", "illegal", "timeout", "too many moves"):
            count = row.failures[kind]
            line.append(f'<span class="bad">{count}</span>' if count else "0")
        line += [_ms(row.move_seconds(0.5)), _ms(row.move_seconds(0.95))]
        rows.append(line)
    return table(head, rows, "leaderboard", text_columns=(1,), raw=True)


def _pairwise_tables(standings: Standings) -> str:
    parts = []
    for family, pairs in standings.pairs.items():
        rows = [
            [p.a, p.b, p.games, p.both, p.a_only, p.b_only, f"{p.p:.3g}", f"{p.p_holm:.3g}", p.winner or "tie"]
            for p in sorted(pairs, key=lambda p: p.p)
        ]
        parts.append(
            f"<details><summary>{esc(family)}: {len(pairs)} pairs, "
            f"{sum(p.winner is not None for p in pairs)} separated</summary>\n"
            + table(
                [
                    "A",
                    "B",
                    "paired games",
                    "both won",
                    "only A won",
                    "only B won",
                    "p (exact McNemar)",
                    "p (Holm)",
                    "better",
                ],
                rows,
                "pairs-" + _id(family),
                text_columns=(0, 1, 8),
            )
            + "</details>"
        )
    return "\n".join(parts)


def _failures(standings: Standings) -> str:
    rows = []
    for row in standings.rows:
        if not any(row.failures.values()):
            continue
        examples = "".join(
            f"<details><summary>{esc(kind)}</summary><pre>{esc(text)}</pre></details>"
            for kind, text in row.examples.items()
        )
        rows.append(
            [esc(row.name)]
            + [str(row.failures[k]) for k in ("crash", "illegal", "timeout", "too many moves")]
            + [str(row.load_failures), examples]
        )
    if not rows:
        return "<p>No bot crashed, answered an illegal move or ran out of time.</p>"
    return table(
        [
            "bot",
            "crash",
            "illegal",
            "time-out",
            "too many moves",
            "of which: could not load",
            "first message of each kind",
        ],
        rows,
        "failures",
        text_columns=(0, 6),
        raw=True,
    )


def render_page(standings: Standings) -> str:
    """The whole tournament page.

    One function on purpose: it is the page's text in reading order; each section's table or
    figure is built by a helper of its own.
    """
    s = standings.settings
    events = ", ".join(e.name for e in standings.events)
    seeds = ", ".join(f"{e.name} {e.run_seed}" for e in standings.events)
    seed = esc(s.get("seed", "?"))
    body = [
        "<h1>Bot tournament</h1>",
        f'<p class="muted">{len(standings.rows)} bots; {esc(s.get("games", "?"))} games per event ({esc(events)}), '
        f"the same games for every bot (run seeds: {esc(seeds)}); move time limit {esc(s.get('move_timeout', '?'))} s "
        f"for sandboxed bots; written {esc(s.get('written', ''))}.</p>",
        f'<p class="muted" id="seed">Tournament seed {seed}: rerun with <code>--seed {seed}</code> to replay the '
        "same games.</p>",
        "<h2>Leaderboard</h2>",
        "<p>A bot is ranked above another only where the paired test says so; bots with equal ranks are "
        "tied. Per event, the ranks come from that event's games; the first column ranks on all events' "
        "games pooled. Intervals are 95 % Wilson intervals.</p>",
        _leaderboard(standings),
        "<h2>Win rates</h2>",
        '<figure id="win-rates">'
        + figure_svg(win_rate_figure(standings), "win-rates", "win rate of each bot per event with its 95% interval")
        + "<figcaption>Each dot is a win rate, each bar its 95 % Wilson interval; colours mark the rank "
        "groups of the event.</figcaption></figure>",
        "<h2>Pairwise comparisons</h2>",
        "<p>Cell (row, column): games only the row's bot won : games only the column's bot won. Green: the "
        "row's bot is significantly better (exact McNemar test on those games, two-sided, Holm-corrected "
        "over every pair of the panel, alpha 0.05); red: significantly worse; grey: a tie.</p>",
        '<div class="grid">',
    ]
    for family in [OVERALL] + [e.name for e in standings.events]:
        name = "pairwise-" + _id(family)
        body.append(
            f'<figure id="{esc(name)}">'
            + figure_svg(pairwise_figure(standings, family), name, f"pairwise matrix, {family}")
            + f"<figcaption>{esc(family)}</figcaption></figure>"
        )
    body += [
        "</div>",
        _pairwise_tables(standings),
        "<h2>Crashes, illegal moves and time-outs</h2>",
        "<p>Each counts the games lost that way; a bot that cannot be loaded loses every game of its "
        "units (the load column).</p>",
        _failures(standings),
        "<h2>Time per move</h2>",
        "<p>Wall time of each move as the tournament saw it: the bot's own work, and for sandboxed bots "
        "the round trip to the sandbox. Medians and 95th percentiles are read from log-spaced bins "
        "(within 6 %).</p>",
        table(
            ["bot", "moves", "median", "95th percentile", "mean time per game"],
            [
                [r.name, f"{r.moves:,}", _ms(r.move_seconds(0.5)), _ms(r.move_seconds(0.95)), _ms(r.seconds_per_game)]
                for r in standings.rows
            ],
            "move-times",
        ),
        "<h2>How to read this</h2>",
        "<p>Every bot plays game <i>i</i> of an event on the same board with the same mines. Two bots are "
        "compared on the games exactly one of them won: if they were equally strong, each such game would "
        "go either way with probability 1/2 (the exact McNemar test). With many pairs, Holm's correction "
        "keeps the chance of any false separation under 5 %. The event's list of bots is cut into groups "
        "only where every bot above the cut beats every bot below it.</p>",
    ]
    return html_page("Bot tournament", "\n".join(body))
