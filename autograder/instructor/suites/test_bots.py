"""Hidden suite of the `bots` assignment (notebook 05-bots): win rate against the judge.

The student's bot plays seeded games in the arena's sandbox; the judge (the kit's reference
solver) plays the very same boards. Points come in tiers of the bot's wins relative to the
judge's; games lost to crashes, illegal moves or time-outs cost the legality points. The games
are played once, by the first test that needs them, and shared by all five tests.

**Paired boards.** Game i of a run draws its whole mine layout from (run seed, i) before any
move, and makes the first dig safe by moving a mine under it to a cell drawn from the same seed
(the layout is then uniform among those sparing the first dig, as the arena's "safe first dig"
rule). The bot and the judge therefore face the same board even when their first digs differ,
unless one of them first digs a mine of the layout, and then only that one mine moves. The
comparison is made game by game: both won, only the bot, only the judge.

**Boards.** The tiers use `--bot-games` beginner games (default 100). Legality is also checked
on every other board the notebook names (intermediate, expert, beginner and intermediate on a
torus and with charges, and 4x4x4 with 6 mines): one game each for every 50 beginner games, at
least one.

**Time.** A move may use 5 s of CPU time (the notebook's rule). All of the bot's games together
may use the tests' own limit, 240 s of CPU time for the default 100 beginner games: 2.4 s per
beginner game on average, in proportion to the cells on other boards (the notebook's reference
bot needs about 0.015 s per beginner game and 0.5 s per expert game in the sandbox, so this is
over 25 times its need). Once the budget is spent, the game under way and every game not yet
played are lost to a time-out. The setting ``bot_cpu_seconds`` replaces the budget.

**Margin.** The grade rests on the ratio R = (bot's wins) / (judge's wins) over the paired
games. Repeated with another seed, R moves: its 95% margin in one run is about
1.96 * sqrt(sum of (b_i - R j_i)^2 / (n (n - 1))) / (judge's win rate), with b_i and j_i 1 for a
game won (half a game is added to each kind of disagreement, so that a run without any still
states a margin). With the default 100 games it is about +-11 points for a bot near the 60%
tier, +-9 near 75% and +-4 for a bot within a few points of the judge; four times the games
halve it.
Measured: a bot averaging 59% of the judge, graded on 30 seeds of 100 games, spread over
1.96 standard deviations = 11 points, and each run stated 10 to 11. The feedback of a failed
tier states its run's ratio and margin. A bot further than the margin from a tier's share keeps
that tier from run to run (19 runs in 20); a bot within it may land on either side, so its grade
can differ by one tier (2 points) between two runs with different seeds.
"""

from __future__ import annotations

import hashlib
import math
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from autograder.assignments import get_assignment
from autograder.suite import Mismatch, note, plural, points
from minesweeper_kit import Game
from minesweeper_kit.arena import BotError, GameRecord, LocalRunner, Rules, SandboxRunner, play_game
from minesweeper_kit.bots import ReferenceSolver

BOARD = "beginner"
# Several boards a line, as written: one board a line (the formatter's layout) would repeat lines
# of notebook 05's visible test, which the leak checks report.
LEGAL_BOARDS = (Rules.preset("intermediate"), Rules.preset("expert"), Rules.preset("beginner", torus=True),
                Rules.preset("beginner", charges=True), Rules.preset("intermediate", torus=True),
                Rules.preset("intermediate", charges=True), Rules((4, 4, 4), 6))  # fmt: skip
DEFAULT_GAMES = 100
BOT_NAMES = ("next_move", "make_bot", "take_turn")
Z95 = 1.96
_RESULTS: dict = {}


# ------------------------------------------------------------------------------- paired boards


def cells_of(rules) -> int:
    return int(np.prod(rules.shape))


def game_seed(run_seed: int, board: int, index: int) -> int:
    """The seed of game ``index`` on board number ``board`` of a run."""
    return int(np.random.SeedSequence([int(run_seed), board, index]).generate_state(1)[0])


class PairedGame:
    """A game whose mine layout is drawn before the first move; a mine under the first dig moves
    to the first free cell of a seeded order. Everything else is the engine's `Game`."""

    def __init__(self, rules, seed: int):
        rng = np.random.default_rng([seed, 0x9A1])
        size = cells_of(rules)
        self._rules = rules
        self._layout = {int(i) for i in rng.choice(size, rules.mines, replace=False)}
        self._spare = [int(i) for i in rng.permutation(size)]
        self._charges = None
        if rules.charges:
            low, high = rules.charges
            values = np.array([q for q in range(low, high + 1) if q != 0])
            self._charges = values[rng.integers(len(values), size=size)].reshape(rules.shape)
        self._game = self._build()
        self._flags: list[tuple[int, ...]] = []

    def _build(self) -> Game:
        mines = [tuple(int(x) for x in np.unravel_index(i, self._rules.shape)) for i in sorted(self._layout)]
        return Game.from_mines(self._rules.shape, mines, charges=self._charges, torus=self._rules.torus)

    def __getattr__(self, name):
        return getattr(self._game, name)

    def dig(self, cell):
        game = self._game
        index = int(np.ravel_multi_index(tuple(cell), self._rules.shape))
        if not game.revealed.any() and index in self._layout and tuple(cell) not in self._flags:
            self._layout.remove(index)
            self._layout.add(next(i for i in self._spare if i != index and i not in self._layout))
            self._game = self._build()
            for flag in self._flags:
                self._game.toggle_flag(flag)
        return self._game.dig(cell)

    def toggle_flag(self, cell):
        flag = tuple(cell)
        if not self._game.revealed.any():  # flags before the first dig survive a moved mine
            if flag in self._flags:
                self._flags.remove(flag)
            else:
                self._flags.append(flag)
        return self._game.toggle_flag(cell)


@dataclass(frozen=True)
class PairedBoards:
    """The arena's `Rules` interface over `PairedGame`s."""

    rules: Rules

    @property
    def label(self) -> str:
        return self.rules.label

    def for_game(self, seed: int) -> PairedBoards:
        return self

    def new_game(self, seed: int) -> PairedGame:
        return PairedGame(self.rules, seed)


# ------------------------------------------------------------------------------- time


@dataclass
class Budget:
    """The CPU seconds all of the bot's games may use together, and the submission's wall-clock
    deadline (``time.monotonic()``; None: none), which its games share with the rest of its grade."""

    total: float
    rule: str  #: how the total was set, for the feedback
    spent: float = 0.0  #: by runners already closed
    deadline: float | None = None
    loads: int = 0  #: sandboxes started: only the first load of the bot is free

    def wall_left(self) -> float | None:
        return None if self.deadline is None else self.deadline - time.monotonic()

    def exhausted(self) -> bool:
        wall = self.wall_left()
        return self.total - self.spent <= 0 or (wall is not None and wall <= 0)

    def message(self) -> str:
        wall = self.wall_left()
        if wall is not None and wall <= 0:
            return "the submission's wall-clock budget ran out (its moves waited, slept or blocked)"
        return f"the bot's games used up their {self.total:g} s of CPU time ({self.rule})"


class BudgetRunner(SandboxRunner):
    """The arena's sandboxed bot, each move within 5 s of CPU time and the shared budget."""

    def __init__(self, path: str, budget: Budget):
        super().__init__(path, move_timeout=5.0)
        self.limit, self.budget = self.move_timeout, budget
        # The first load of the bot is not counted; a bot loaded again (its sandbox ended) pays for it.
        self.started = self.box.cpu_seconds() if budget.loads == 0 else 0.0
        budget.loads += 1
        self.box.set_deadline(budget.wall_left())

    def used(self) -> float:
        return self.box.cpu_seconds() - self.started

    def left(self) -> float:
        return self.budget.total - self.budget.spent - self.used()

    def out_of_time(self) -> bool:
        wall = self.budget.wall_left()
        return self.left() <= 0 or (wall is not None and wall <= 0)

    def new_game(self) -> None:
        if self.out_of_time():
            raise BotError("timeout", self.budget.message())
        super().new_game()

    def next_move(self, view):
        left = self.left()
        if self.out_of_time():
            raise BotError("timeout", self.budget.message())
        self.move_timeout = min(self.limit, left)
        try:
            return super().next_move(view)
        except BotError as error:
            if error.kind == "timeout" and self.move_timeout < self.limit:
                raise BotError("timeout", self.budget.message()) from None
            raise
        finally:
            self.move_timeout = self.limit

    def close(self) -> None:
        self.budget.spent += self.used()
        super().close()

    @property
    def reusable(self) -> bool:
        """Not once the budget is spent: the games left are then lost before any sandbox starts."""
        return super().reusable and not self.out_of_time()


# ------------------------------------------------------------------------------- the games


@dataclass
class Played:
    """The bot's and the judge's records, and what the bot's games cost."""

    bot: list  #: the bot's beginner games
    judge: list  #: the judge's games on the same boards
    legal: list  #: the bot's games on the other boards
    budget: Budget


def plan(settings) -> tuple[int, int]:
    games = int(settings.get("bot_games") or 100)
    return games, max(1, round(games / 50))


def play_bot(path: str, jobs: list, budget: Budget) -> list:
    """Every (rules, seed, index) of ``jobs`` with one sandboxed bot, a fresh one after a time-out
    or a dead child (a bot whose own code raised plays on in its child, as the arena's runner says).

    The arena's `play_series` less one rule: once the budget is spent, the games left are lost
    to a time-out before any sandbox starts, and say so (not that the bot failed to load).
    """
    records, runner, unloadable = [], None, None
    try:
        for rules, seed, index in jobs:
            if runner is None:
                if budget.exhausted():
                    records.append(_lost(rules, seed, index, "timeout", budget.message()))
                    continue
                if unloadable is not None:  # a bot that cannot load is not loaded again for each game
                    records.append(_lost(rules, seed, index, unloadable.kind, str(unloadable)))
                    continue
                try:
                    runner = BudgetRunner(path, budget)
                except BotError as error:
                    unloadable = error
                    records.append(_lost(rules, seed, index, error.kind, str(error)))
                    continue
            record = play_game(runner, rules, seed, index)
            records.append(record)
            if not runner.reusable:
                runner.close()
                runner = None
    finally:
        if runner is not None:
            runner.close()
    return records


def _lost(rules, seed, index, reason, detail):
    return GameRecord.lost_unplayed(index, seed, rules.label, reason, detail)


def games_played(settings, seed, source, deadline: float | None = None) -> Played:
    """The bot's games and the judge's, played once per grade; ``deadline`` is the submission's
    wall-clock deadline (its sandbox's ``deadline``)."""
    games, extra = plan(settings)
    beginner = PairedBoards(Rules.preset(BOARD))
    jobs = [(beginner, game_seed(seed, 0, i), i) for i in range(games)]
    jobs += [
        (PairedBoards(rules), game_seed(seed, b, i), i)
        for b, rules in enumerate(LEGAL_BOARDS, start=1)
        for i in range(extra)
    ]
    per_game = get_assignment("bots").test_time_limit / DEFAULT_GAMES
    if settings.get("bot_cpu_seconds"):
        total, rule = float(settings["bot_cpu_seconds"]), "this grading run's setting"
    else:
        total = per_game * sum(cells_of(rules.rules) for rules, _, _ in jobs) / cells_of(Rules.preset(BOARD))
        rule = f"{per_game:g} s per {BOARD} game, in proportion to the cells on other boards"
    total = round(total, 1)
    key = (hashlib.sha256(source.encode()).hexdigest(), seed, games, total)
    if key not in _RESULTS:
        budget = Budget(total, rule, deadline=deadline)
        with tempfile.TemporaryDirectory() as folder:
            path = Path(folder) / "bot.py"
            path.write_text(source)
            records = play_bot(str(path), jobs, budget)
        judge = LocalRunner(ReferenceSolver())
        # PairedBoards offers the part of the Rules interface play_game uses
        judged = [play_game(judge, rules, game, index) for rules, game, index in jobs[:games]]  # type: ignore[arg-type]
        _RESULTS[key] = Played(records[:games], judged, records[games:], budget)
    return _RESULTS[key]


# ------------------------------------------------------------------------------- comparing


@dataclass(frozen=True)
class Comparison:
    games: int
    both: int
    bot_only: int
    judge_only: int

    @property
    def bot_wins(self) -> int:
        return self.both + self.bot_only

    @property
    def judge_wins(self) -> int:
        return self.both + self.judge_only

    @property
    def ratio(self) -> float:
        return self.bot_wins / self.judge_wins if self.judge_wins else 0.0

    @property
    def margin(self) -> float:
        """The ratio's 95% margin for this run: the delta method over the paired games, with half a
        game added to each kind of disagreement so that a run without any still states one."""
        n, r = self.games, self.ratio
        if n < 2 or not self.judge_wins:
            return 1.0
        squares = self.both * (1 - r) ** 2 + (self.bot_only + 0.5) + (self.judge_only + 0.5) * r**2
        return Z95 * math.sqrt(squares / (n * (n - 1))) / (self.judge_wins / n)

    def text(self) -> str:
        """The wins in plain words, then the ratio and its margin."""
        text = (
            f"your bot won {self.bot_wins} of {plural(self.games, BOARD + ' game')}, the judge "
            f"{self.judge_wins} of the same boards"
        )
        if self.bot_wins and self.judge_wins:
            split = [plural(self.both, "board") + " won by both"]
            if self.bot_only:
                split.append(f"{self.bot_only} by your bot alone")
            if self.judge_only:
                split.append(f"{self.judge_only} by the judge alone")
            text += f" ({', '.join(split)})"
        return (
            f"{text}: {100 * self.ratio:.0f}% of the judge's win rate, +-{100 * self.margin:.0f} points at 95% "
            "confidence for this run"
        )


def compare(played: Played) -> Comparison:
    pairs = [(b.won, j.won) for b, j in zip(played.bot, played.judge)]
    return Comparison(
        len(pairs),
        sum(b and j for b, j in pairs),
        sum(b and not j for b, j in pairs),
        sum(j and not b for b, j in pairs),
    )


def require_bot(box) -> None:
    names = set(box.names)
    if not names & set(BOT_NAMES) and not any(name.endswith("Player") for name in names):
        raise Mismatch(
            "your code defines no bot: next_move(view) (or a Sweepmine next_move, make_bot(), "
            "a ...Player class, take_turn(state))"
        )


# ------------------------------------------------------------------------------- tests


@points(2)
def test_plays_legal_games(box, settings, seed, submission_source, request):
    """The bot finishes its games without crashes, illegal moves or time-outs"""
    require_bot(box)
    played = games_played(settings, seed, submission_source, box.deadline)
    records = played.bot + played.legal
    bad = [r for r in records if r.reason not in ("won", "mine")]
    if not bad:
        note(
            request,
            f"all {plural(len(records), 'game')} played to the end, without a crash, an illegal move or a "
            f"time-out; {compare(played).text()}",
        )
    if bad:
        counts: dict[str, int] = {}
        for r in bad:
            counts[r.reason] = counts.get(r.reason, 0) + 1
        first = bad[0]
        rule = (
            (f" (a move may use 5 s of CPU time; all the games together {played.budget.total:g} s)")
            if "timeout" in counts
            else ""
        )
        raise Mismatch(
            f"{len(bad)} of {plural(len(records), 'game')} {'was' if len(bad) == 1 else 'were'} lost to "
            + ", ".join(f"{k} ({v})" for k, v in sorted(counts.items()))
            + rule
            + f"; first: {first.board} game {first.index} (seed {first.seed}): {first.detail[:300]}"
        )


def tier(box, settings, seed, source, share, request):
    require_bot(box)
    result = compare(games_played(settings, seed, source, box.deadline))
    note(request, f"{result.text()}; this test asks for {100 * share:.0f}%")
    if result.ratio < share:
        near = (
            f"; {100 * share:.0f}% is within this run's margin, so another run could land on either side"
            if share - result.ratio <= result.margin
            else ""
        )
        raise Mismatch(f"{result.text()}: below {100 * share:.0f}% of the judge's win rate{near}")


@points(2)
def test_a_fifth_of_the_judge(box, settings, seed, submission_source, request):
    """Win rate at least 20% of the judge's"""
    tier(box, settings, seed, submission_source, 0.2, request)


@points(2)
def test_two_fifths_of_the_judge(box, settings, seed, submission_source, request):
    """Win rate at least 40% of the judge's"""
    tier(box, settings, seed, submission_source, 0.4, request)


@points(2)
def test_three_fifths_of_the_judge(box, settings, seed, submission_source, request):
    """Win rate at least 60% of the judge's"""
    tier(box, settings, seed, submission_source, 0.6, request)


@points(2)
def test_three_quarters_of_the_judge(box, settings, seed, submission_source, request):
    """Win rate at least 75% of the judge's"""
    tier(box, settings, seed, submission_source, 0.75, request)
