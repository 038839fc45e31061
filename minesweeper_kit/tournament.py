"""A class tournament: many bots on the same seeded games, ranked only where the statistics allow.

Command line: ``mines tournament BOT.py ... --dir bots/ --games 500 -j 2`` (see ``--help``).
Python::

    from minesweeper_kit.tournament import run_tournament
    standings = run_tournament(["reference", "baseline", "bots/"], games=500, jobs=2,
                               results_dir="tournament-results")
    print(standings.table())

Decisions, written down once:

* Paired design: game i of an event has the same seed, hence the same mines, for every bot
  (the seed the arena derives from (run seed, i); a preset's run seed is the tournament's seed,
  so ``mines arena BOT --preset P --seed S`` replays the same games; Sweepmine subtask n uses
  seed + n, as ``mines arena --sweepmine`` does).
* Games are played by the arena (``play_game``, its runners and its rules); bot files run in the
  arena's sandbox with a time limit per move unless ``trusted``; the built-in bots run in-process.
* Work is split into (bot, event, chunk of games) units. Each finished unit is saved in the
  results folder with a fingerprint (the bot's SHA-256, the event, the seeds, the game indices,
  the move time limit); a later run reuses every unit whose fingerprint still matches, so a
  stopped run resumes and an edited bot file is replayed alone.
* A bot that cannot be loaded loses every game of its unit with the loading error as the reason.
* Rankings come from `stats`: exact McNemar tests on the paired games, Holm's correction per
  event (and for all events pooled), groups of tied bots. The leaderboard's intervals are the
  arena's 95 % Wilson intervals; with ``sweepmine`` each subtask is scored S(P/Q) as in the arena.
"""

from __future__ import annotations

import argparse
import csv
import hashlib
import json
import multiprocessing
import os
import re
import sys
import tempfile
import time
import traceback
from collections import Counter
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from . import __version__
from .arena import (
    BUILTIN_BOTS,
    SUBTASKS,
    BotError,
    GameRecord,
    Rules,
    Subtask,
    game_seed,
    make_runner,
    play_game,
    wilson_interval,
)
from .presets import PRESETS
from .stats import Pair, bin_quantile, compare, rank_groups, time_bin

__all__ = [
    "Entrant",
    "Event",
    "EventStats",
    "BotRow",
    "Standings",
    "find_entrants",
    "make_events",
    "run_tournament",
    "analyse",
    "write_outputs",
    "register",
]

FAILURES = ("crash", "illegal", "timeout", "too many moves")
OVERALL = "all events"
FORMAT = 1  # version of the saved unit files


# ---------------------------------------------------------------------- who plays what
@dataclass(frozen=True)
class Entrant:
    """One bot of the tournament: a built-in name or a file, with the SHA-256 that identifies it."""

    name: str
    source: str  #: built-in name, or the file's absolute path
    sha256: str
    sandboxed: bool
    text: str | None = None  #: the file's source as read at the start (None for built-ins)

    @property
    def builtin(self) -> bool:
        return self.text is None


@dataclass(frozen=True)
class Event:
    """A set of games every bot plays: a preset's board, or a Sweepmine subtask."""

    name: str
    rules: Rules | Subtask
    run_seed: int

    @property
    def subtask(self) -> Subtask | None:
        return self.rules if isinstance(self.rules, Subtask) else None


def _builtin_sha256(name: str) -> str:
    """Built-in bots are identified by their name and the source of the kit's bots package."""
    digest = hashlib.sha256(name.encode())
    for path in sorted((Path(__file__).resolve().parent / "bots").glob("*.py")):
        digest.update(path.read_bytes())
    return digest.hexdigest()


def find_entrants(
    bots: Sequence[str | os.PathLike], folder: str | os.PathLike | None = None, trusted: bool = False
) -> list[Entrant]:
    """The bots named (built-in names or .py files) and every ``*.py`` of ``folder``, in that order.

    A name is the file's stem, or parent/stem when two files share a stem. Files run sandboxed
    unless ``trusted``; built-in bots always run in-process.
    """
    sources: list[str] = []
    for bot in bots:
        name = str(bot)
        if name in BUILTIN_BOTS:
            sources.append(name)
        elif Path(name).is_dir():
            raise ValueError(f"{name} is a folder: give it with --dir (or folder=...)")
        elif not Path(name).is_file():
            raise ValueError(f"no bot file {name!r} (built-in bots: {', '.join(BUILTIN_BOTS)})")
        else:
            sources.append(str(Path(name).resolve()))
    if folder is not None:
        directory = Path(folder)
        if not directory.is_dir():
            raise ValueError(f"--dir {str(folder)!r} is not a folder")
        found = sorted(p for p in directory.glob("*.py") if not p.name.startswith(("_", ".")))
        if not found:
            raise ValueError(f"the folder {str(folder)!r} holds no bot files (*.py)")
        sources += [str(p.resolve()) for p in found]
    unique = list(dict.fromkeys(sources))
    if len(unique) < 2:
        raise ValueError(f"a tournament needs at least two different bots, got {len(unique)}")
    stems = Counter(Path(s).stem for s in unique if s not in BUILTIN_BOTS)
    entrants = []
    for source in unique:
        if source in BUILTIN_BOTS:
            entrants.append(Entrant(source, source, _builtin_sha256(source), False))
            continue
        path = Path(source)
        name = (
            path.stem if stems[path.stem] == 1 and path.stem not in BUILTIN_BOTS else f"{path.parent.name}/{path.stem}"
        )
        data = path.read_bytes()
        entrants.append(
            Entrant(name, source, hashlib.sha256(data).hexdigest(), not trusted, data.decode("utf-8", errors="replace"))
        )
    names = [e.name for e in entrants]
    slugs = {_slug(n) for n in names}
    if len(set(names)) != len(names) or len(slugs) != len(names):
        raise ValueError(f"two bots would share a name: {', '.join(sorted(names))}")
    return entrants


def make_events(
    presets: Sequence[str] = ("beginner", "intermediate", "expert"),
    seed: int = 0,
    sweepmine: bool = False,
    subtasks: Sequence[int] = (1, 2, 3, 4, 5, 6),
) -> list[Event]:
    """The presets' events (run seed = seed), or with ``sweepmine`` the chosen subtasks (seed + n)."""
    if sweepmine:
        events = []
        for number in subtasks:
            if not 1 <= number <= len(SUBTASKS):
                raise ValueError(f"Sweepmine subtasks are 1..{len(SUBTASKS)}, got {number}")
            events.append(Event(f"subtask {number}", SUBTASKS[number - 1], int(seed) + number))
        return events
    for name in presets:
        if name not in PRESETS:
            raise ValueError(f"unknown preset {name!r}: choose from {', '.join(PRESETS)}")
    return [Event(name, Rules.preset(name), int(seed)) for name in dict.fromkeys(presets)]


# ---------------------------------------------------------------------- one unit of work
@dataclass(frozen=True)
class Unit:
    """One bot playing games [start, stop) of one event: what a worker receives."""

    bot: str
    source: str
    text: str | None
    sandboxed: bool
    move_timeout: float
    event: str
    rules: Any
    run_seed: int
    start: int
    stop: int


class _TimedRunner:
    """Wraps an arena runner and counts the wall time of every move into log-spaced bins."""

    def __init__(self, runner: Any, bins: Counter) -> None:
        self.runner, self.bins = runner, bins

    def new_game(self) -> None:
        self.runner.new_game()

    def next_move(self, view: Any) -> Any:
        started = time.perf_counter()
        try:
            return self.runner.next_move(view)
        finally:
            self.bins[time_bin(time.perf_counter() - started)] += 1

    def close(self) -> None:
        self.runner.close()


def play_unit(unit: Unit) -> dict:
    """Worker: play one unit and return its records and move-time bins as plain data."""
    started = time.perf_counter()
    bins: Counter = Counter()
    records: list[GameRecord] = []
    with tempfile.TemporaryDirectory(prefix="tournament-bot-") as temp:
        bot = unit.source
        if unit.text is not None:  # the text read at the start: workers need not see the file
            bot = str(Path(temp) / f"{_slug(Path(unit.source).stem)}.py")
            Path(bot).write_text(unit.text, encoding="utf-8")
        runner, failed = None, None
        try:
            for index in range(unit.start, unit.stop):
                seed = game_seed(unit.run_seed, index)
                rules = unit.rules.for_game(seed)
                if failed is None and runner is None:
                    try:
                        runner = _TimedRunner(make_runner(bot, unit.sandboxed, unit.move_timeout), bins)
                    except BotError as error:
                        failed = (error.kind, f"loading the bot failed: {error}")
                    except Exception:  # noqa: BLE001 - a bot that cannot load loses its games
                        failed = ("crash", "loading the bot failed:\n" + _clip(traceback.format_exc(), 2000))
                if failed is not None:
                    records.append(GameRecord(index, seed, rules.label, False, failed[0], 0, 0.0, failed[1]))
                    continue
                record = play_game(runner, rules, seed, index)
                records.append(record)
                if record.reason in ("crash", "timeout") and unit.sandboxed and runner is not None:
                    runner.close()  # a fresh child for the next game, as the arena does
                    runner = None
        finally:
            if runner is not None:
                runner.close()
    return {
        "records": [_pack(r) for r in records],
        "move_bins": {str(k): v for k, v in sorted(bins.items())},
        "seconds": round(time.perf_counter() - started, 4),
    }


def _pack(record: GameRecord) -> dict:
    data = {
        "i": record.index,
        "s": record.seed,
        "b": record.board,
        "w": record.won,
        "r": record.reason,
        "m": record.moves,
        "t": round(record.seconds, 5),
    }
    if record.reason not in ("won", "mine") and record.detail:
        data["d"] = _clip(record.detail, 600)
    return data


def _unpack(data: dict) -> GameRecord:
    return GameRecord(
        data["i"], data["s"], data["b"], bool(data["w"]), data["r"], data["m"], data["t"], data.get("d", "")
    )


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 20] + f"... ({len(text)} chars)"


def _slug(name: str) -> str:
    return re.sub(r"[^\w.-]+", "_", name).strip("._") or "bot"


# ---------------------------------------------------------------------- the results folder
class ResultsFolder:
    """Saved units: ``games/<bot>/<event>/<start>-<stop>.json``, each with its fingerprint."""

    def __init__(self, path: str | os.PathLike) -> None:
        self.path = Path(path)

    def unit_path(self, unit: Unit) -> Path:
        return self.path / "games" / _slug(unit.bot) / _slug(unit.event) / f"{unit.start:06d}-{unit.stop:06d}.json"

    @staticmethod
    def fingerprint(unit: Unit, entrant: Entrant) -> dict:
        return {
            "format": FORMAT,
            "kit": __version__,
            "bot": unit.bot,
            "sha256": entrant.sha256,
            "sandboxed": unit.sandboxed,
            "move_timeout": unit.move_timeout if unit.sandboxed else None,
            "event": unit.event,
            "rules": unit.rules.label,
            "run_seed": unit.run_seed,
            "games": [unit.start, unit.stop],
        }

    def load(self, unit: Unit, entrant: Entrant) -> dict | None:
        """The saved result of this unit if it was played with the same bot and settings."""
        try:
            data = json.loads(self.unit_path(unit).read_text())
        except (OSError, ValueError):
            return None
        if not isinstance(data, dict) or data.get("fingerprint") != self.fingerprint(unit, entrant):
            return None
        return data

    def save(self, unit: Unit, entrant: Entrant, result: dict) -> None:
        path = self.unit_path(unit)
        path.parent.mkdir(parents=True, exist_ok=True)
        temp = path.with_suffix(".tmp")
        temp.write_text(json.dumps({"fingerprint": self.fingerprint(unit, entrant), **result}))
        os.replace(temp, path)  # a stopped run never leaves half a unit behind


# ---------------------------------------------------------------------- running
def _units(
    entrants: Sequence[Entrant], events: Sequence[Event], games: int, chunk_size: int, move_timeout: float
) -> list[tuple[Unit, Entrant]]:
    out = []
    for start in range(0, games, chunk_size):  # chunk by chunk, so every bot advances together
        for event in events:
            for entrant in entrants:
                out.append(
                    (
                        Unit(
                            entrant.name,
                            entrant.source,
                            entrant.text,
                            entrant.sandboxed,
                            move_timeout,
                            event.name,
                            event.rules,
                            event.run_seed,
                            start,
                            min(games, start + chunk_size),
                        ),
                        entrant,
                    )
                )
    return out


def _execute(units: list[Unit], jobs: int, dask: Any) -> Iterable[tuple[Unit, dict]]:
    """Results as units finish: inline, in a process pool, or on a dask cluster."""
    if dask is not None:
        from distributed import Client, as_completed

        client = dask if isinstance(dask, Client) else Client(dask)
        try:
            futures = client.map(play_unit, units, pure=False)
            owner = {future.key: unit for future, unit in zip(futures, units)}
            for future in as_completed(futures):
                yield owner[future.key], future.result()
        finally:
            if client is not dask:
                client.close()
        return
    if jobs == 1 or len(units) <= 1:
        for unit in units:
            yield unit, play_unit(unit)
        return
    context = multiprocessing.get_context("spawn" if sys.platform == "darwin" else "forkserver")
    with context.Pool(min(jobs, len(units))) as pool:
        yield from pool.imap_unordered(_play_tagged, units)


def _play_tagged(unit: Unit) -> tuple[Unit, dict]:
    return unit, play_unit(unit)


def run_tournament(
    bots: Sequence[str | os.PathLike] = (),
    *,
    folder: str | os.PathLike | None = None,
    presets: Sequence[str] = ("beginner", "intermediate", "expert"),
    sweepmine: bool = False,
    subtasks: Sequence[int] = (1, 2, 3, 4, 5, 6),
    games: int = 500,
    seed: int = 0,
    jobs: int = 1,
    dask: str | Any | None = None,
    results_dir: str | os.PathLike = "tournament-results",
    move_timeout: float = 5.0,
    trusted: bool = False,
    chunk_size: int = 50,
    alpha: float = 0.05,
    progress: bool = True,
    write: bool = True,
) -> Standings:
    """Play every bot on the same games (reusing saved units), rank them and write the reports.

    Writes ``leaderboard.csv``, ``pairwise.csv``, ``tournament.json`` and ``tournament.html``
    into ``results_dir`` (unless ``write`` is False) and returns the `Standings`.
    """
    if games < 1:
        raise ValueError(f"games must be at least 1, got {games}")
    if jobs < 1:
        raise ValueError(f"jobs must be at least 1, got {jobs}")
    if chunk_size < 1:
        raise ValueError(f"chunk_size must be at least 1, got {chunk_size}")
    if move_timeout <= 0:
        raise ValueError(f"move_timeout must be positive, got {move_timeout}")
    entrants = find_entrants(bots, folder, trusted)
    events = make_events(presets, seed, sweepmine, subtasks)
    store = ResultsFolder(results_dir)
    saved: dict[tuple[str, str, int], dict] = {}
    todo: list[Unit] = []
    by_name = {e.name: e for e in entrants}
    for unit, entrant in _units(entrants, events, games, chunk_size, move_timeout):
        data = store.load(unit, entrant)
        if data is None:
            todo.append(unit)
        else:
            saved[(unit.bot, unit.event, unit.start)] = data
    reused = len(saved)
    started = time.perf_counter()
    from tqdm.auto import tqdm

    bar = tqdm(
        total=sum(u.stop - u.start for u in todo),
        desc="tournament",
        unit="game",
        disable=not progress or not todo,
        file=sys.stderr,
    )
    try:
        for unit, result in _execute(todo, jobs, dask):
            store.save(unit, by_name[unit.bot], result)
            saved[(unit.bot, unit.event, unit.start)] = result
            bar.update(unit.stop - unit.start)
            bar.set_postfix_str(f"{unit.bot} / {unit.event}", refresh=False)
    finally:
        bar.close()
    wall = time.perf_counter() - started
    records: dict[str, dict[str, list[GameRecord]]] = {e.name: {ev.name: [] for ev in events} for e in entrants}
    bins: dict[str, Counter] = {e.name: Counter() for e in entrants}
    for (bot, event, _), data in saved.items():
        records[bot][event].extend(_unpack(r) for r in data["records"])
        bins[bot].update({int(k): v for k, v in data.get("move_bins", {}).items()})
    settings = {
        "games": games,
        "seed": seed,
        "events": [e.name for e in events],
        "sweepmine": sweepmine,
        "move_timeout": move_timeout,
        "trusted": trusted,
        "chunk_size": chunk_size,
        "alpha": alpha,
        "jobs": jobs if dask is None else f"dask {dask if isinstance(dask, str) else 'client'}",
        "units_played": len(todo),
        "units_reused": reused,
        "games_played": sum(u.stop - u.start for u in todo),
        "play_seconds": round(wall, 3),
        "kit": __version__,
        "written": time.strftime("%Y-%m-%d %H:%M:%S"),
    }
    standings = analyse(records, events, entrants, bins, alpha=alpha, settings=settings)
    if write:
        write_outputs(standings, results_dir)
    return standings


# ---------------------------------------------------------------------- analysis
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
        return self.entrant.name

    @property
    def moves(self) -> int:
        return sum(self.move_bins.values())

    def move_seconds(self, q: float) -> float | None:
        return bin_quantile(self.move_bins, q)

    @property
    def mean_score(self) -> float | None:
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
        for row in self.rows:
            if row.name == name:
                return row
        raise KeyError(name)

    def pair(self, family: str, a: str, b: str) -> Pair:
        for p in self.pairs[family]:
            if {p.a, p.b} == {a, b}:
                return p
        raise KeyError((family, a, b))

    def table(self) -> str:
        return leaderboard_text(self)

    def to_json(self) -> dict:
        return standings_json(self)


def analyse(
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
    families: list[tuple[str, dict[str, dict[object, bool]]]] = [
        (ev.name, {n: {r.index: r.won for r in records[n].get(ev.name, [])} for n in names}) for ev in events
    ]
    pooled: dict[str, dict[object, bool]] = {
        n: {(ev.name, r.index): r.won for ev in events for r in records[n].get(ev.name, [])} for n in names
    }
    families.append((OVERALL, pooled))
    for family, outcomes in families:
        pairs[family] = compare(outcomes, alpha) if len(names) > 1 else []
        order = sorted(names, key=lambda n: (-_rate(outcomes[n]), n))
        ranks[family] = rank_groups(order, pairs[family])
    rows = []
    for entrant in entrants:
        n = entrant.name
        stats = {}
        for ev in events:
            games = records[n].get(ev.name, [])
            wins = sum(r.won for r in games)
            s = EventStats(len(games), wins, wilson_interval(wins, len(games)), *ranks[ev.name][n])
            if ev.subtask is not None and games:
                s.score = ev.subtask.score(100 * wins / len(games))
            stats[ev.name] = s
        every = [r for ev in events for r in records[n].get(ev.name, [])]
        wins = sum(r.won for r in every)
        overall = EventStats(len(every), wins, wilson_interval(wins, len(every)), *ranks[OVERALL][n])
        reasons = Counter(r.reason for r in every)
        examples = {}
        for r in every:
            if r.reason in FAILURES and r.reason not in examples:
                examples[r.reason] = r.detail
        loads = sum(r.detail.startswith("loading the bot failed") for r in every if r.reason in FAILURES)
        bins = dict((move_bins or {}).get(n, {}))
        seconds = sum(r.seconds for r in every) / len(every) if every else 0.0
        rows.append(
            BotRow(entrant, stats, overall, {k: reasons.get(k, 0) for k in FAILURES}, examples, loads, bins, seconds)
        )
    rows.sort(key=lambda row: (row.overall.rank, -row.overall.rate, row.name))
    return Standings(list(events), rows, pairs, dict(settings or {}))


def _rate(outcomes: dict) -> float:
    return sum(outcomes.values()) / len(outcomes) if outcomes else 0.0


# ---------------------------------------------------------------------- outputs
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
    """Everything as plain data (tournament.json)."""

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
    events = [e.name for e in standings.events]
    with open(paths["csv"], "w", newline="") as handle:
        writer = csv.writer(handle)
        head = ["rank", "group", "bot", "games", "wins", "win_rate", "ci_low", "ci_high"]
        for e in events:
            head += [f"{e} {c}" for c in ("games", "wins", "win_rate", "ci_low", "ci_high", "rank")]
            if standings.events[events.index(e)].subtask is not None:
                head.append(f"{e} score")
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
        ]
        writer.writerow(head)
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
            for e in events:
                s = row.events[e]
                line += [s.games, s.wins, f"{s.rate:.6f}", f"{s.interval[0]:.6f}", f"{s.interval[1]:.6f}", s.rank]
                if s.score is not None:
                    line.append(f"{s.score:.6f}")
            median, p95 = row.move_seconds(0.5), row.move_seconds(0.95)
            line += [
                row.failures["crash"],
                row.failures["illegal"],
                row.failures["timeout"],
                row.failures["too many moves"],
                row.load_failures,
                row.moves,
                "" if median is None else f"{1000 * median:.4g}",
                "" if p95 is None else f"{1000 * p95:.4g}",
                row.entrant.sandboxed,
                row.entrant.sha256,
            ]
            writer.writerow(line)
    with open(paths["pairwise"], "w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(["event", "a", "b", "games", "both_won", "a_only", "b_only", "p", "p_holm", "winner"])
        for family, pairs in standings.pairs.items():
            for p in pairs:
                writer.writerow(
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
                    ]
                )
    paths["json"].write_text(json.dumps(standings_json(standings), indent=1) + "\n")
    from .tournament_page import render_page

    paths["html"].write_text(render_page(standings), encoding="utf-8")
    return paths


# ---------------------------------------------------------------------- command line
HELP = """Play every bot on the same seeded games and rank them honestly.

Each BOT is a Python file (the shapes `mines arena` accepts) or a built-in bot: reference,
baseline, random; --dir adds every *.py of a folder. Game i of an event has the same mines for
every bot, so bots are compared game by game: a bot is ranked above another only where an exact
McNemar test on the games one won and the other lost says so (two-sided, 95 %, Holm-corrected over
all pairs of the event); tied bots share a rank. The leaderboard gives each win rate with its 95 %
Wilson interval, with --sweepmine the Sweepmine score S(P/Q) of each subtask, and per bot the games
lost to crashes, illegal moves and time-outs and the median and 95th-percentile time per move.

Bot files run in the arena's sandbox (a time limit per move) unless --trusted; built-in bots run
in-process. Finished (bot, event, chunk of games) units are saved in --results-dir and reused by
the next run with the same settings, so an interrupted run resumes; a bot file whose SHA-256
changed is replayed. The results folder receives leaderboard.csv, pairwise.csv, tournament.json
and tournament.html (a page with its plots inside: it opens without a server or network)."""


def register(subparsers: Any) -> None:
    """Add the `tournament` subcommand to the `mines` command's subparsers."""
    parser = subparsers.add_parser(
        "tournament",
        help="rank many bots on the same games, with paired tests",
        description=HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument(
        "bots", nargs="*", metavar="BOT", help="bot files or built-in names (reference, baseline, random)"
    )
    parser.add_argument("--dir", metavar="FOLDER", help="add every *.py bot file of this folder")
    what = parser.add_mutually_exclusive_group()
    what.add_argument(
        "--preset",
        nargs="+",
        choices=list(PRESETS),
        default=list(PRESETS),
        metavar="PRESET",
        help="events: one or more of beginner, intermediate, expert (default: all three)",
    )
    what.add_argument(
        "--sweepmine",
        action="store_true",
        help="events: the Sweepmine.TM subtasks, each scored S(P/Q) (see --subtasks)",
    )
    parser.add_argument(
        "--subtasks",
        nargs="+",
        type=int,
        default=[1, 2, 3, 4, 5, 6],
        metavar="N",
        help="with --sweepmine: which subtasks (default 1 to 6)",
    )
    parser.add_argument("--games", type=int, default=500, help="games per event for every bot (default 500)")
    parser.add_argument(
        "--seed",
        type=int,
        default=0,
        help="tournament seed: game i of a preset uses the seed derived from (seed, i), as `mines arena --seed` does",
    )
    parser.add_argument(
        "-j", "--jobs", type=int, default=os.cpu_count() or 1, help="worker processes (default: the number of cores)"
    )
    parser.add_argument("--dask", metavar="ADDRESS", help="run the units on a dask.distributed scheduler")
    parser.add_argument(
        "--results-dir",
        default="tournament-results",
        metavar="DIR",
        help="where units are saved and the reports written (default ./tournament-results)",
    )
    parser.add_argument(
        "--move-timeout",
        type=float,
        default=5.0,
        help="time limit per move for sandboxed bots, as in `mines arena` (default 5 s); a move past it loses the game",
    )
    parser.add_argument("--trusted", action="store_true", help="run bot files in-process, without the sandbox")
    parser.add_argument(
        "--chunk-size", type=int, default=50, help="games per saved unit (default 50); changing it replays everything"
    )
    parser.add_argument("--json", action="store_true", help="print tournament.json instead of the table")
    parser.add_argument("--quiet", action="store_true", help="no progress bar")
    parser.set_defaults(run=run)


def run(args: argparse.Namespace) -> int:
    if not args.bots and not args.dir:
        print("mines tournament: name the bots (files or built-in names) or give --dir FOLDER", file=sys.stderr)
        return 2
    try:
        standings = run_tournament(
            args.bots,
            folder=args.dir,
            presets=args.preset,
            sweepmine=args.sweepmine,
            subtasks=args.subtasks,
            games=args.games,
            seed=args.seed,
            jobs=args.jobs,
            dask=args.dask,
            results_dir=args.results_dir,
            move_timeout=args.move_timeout,
            trusted=args.trusted,
            chunk_size=args.chunk_size,
            progress=not args.quiet,
        )
    except ValueError as error:
        print(f"mines tournament: {error}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(standings_json(standings), indent=1))
    else:
        s = standings.settings
        print(standings.table())
        print(
            f"\nplayed {s['games_played']} game(s) in {s['play_seconds']:.1f} s, reused {s['units_reused']} "
            f"saved unit(s); reports in {args.results_dir}/ (tournament.html, leaderboard.csv, pairwise.csv, "
            "tournament.json)"
        )
    return 0
