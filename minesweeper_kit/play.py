"""`mines play`: a Minesweeper game in the terminal, on any board the engine supports."""

from __future__ import annotations

import argparse
import math
import re
import sys
from collections.abc import Callable
from typing import TextIO

from .game import Game
from .presets import PRESETS
from .render import terminal_render
from .rules import DEFAULT_CHARGES, FIRST_MOVES, REVEAL_RULES, Rules

PLAY_HELP = """\
Moves (coordinates are 0-indexed, one number per axis, in the order the board lists them):
  3 4        dig row 3, column 4 (also: d 3 4, or 3,4)
  f 3 4      flag, then question-mark, then clear a covered cell
  n          new game with the same rules and a new seed
  h          this help
  q          quit"""


def parse_shape(text: str) -> tuple[int, ...]:
    """'16x30' or '4x4x4' to a shape tuple."""
    parts = text.lower().replace("×", "x").split("x")
    try:
        shape = tuple(int(p) for p in parts)
    except ValueError:
        raise argparse.ArgumentTypeError(
            f"a shape is axis sizes joined by x, like 16x30 or 4x4x4; got {text!r}"
        ) from None
    if any(n < 1 for n in shape):
        raise argparse.ArgumentTypeError(f"every axis needs at least one cell; got {text!r}")
    return shape


def parse_charge_range(text: str) -> tuple[int, int]:
    """'LOW:HIGH' (or 'LOW,HIGH') to a charge range, for `--charges`; argparse shows the error."""
    match = re.fullmatch(r"\s*(-?\d+)\s*[:,]\s*(-?\d+)\s*", text)
    if not match:
        raise argparse.ArgumentTypeError(f"a charge range is LOW:HIGH like -10:10; got {text!r}")
    return int(match.group(1)), int(match.group(2))


def parse_player_move(text: str, ndim: int) -> tuple[str, tuple[int, ...]]:
    """A line typed in `mines play` to ("dig" | "mark", coordinate); ValueError speaks to the player."""
    words = text.replace(",", " ").split()
    action = "dig"
    if words and words[0].lower() in ("d", "dig"):
        words = words[1:]
    elif words and words[0].lower() in ("f", "flag", "m", "mark"):
        action, words = "mark", words[1:]
    if len(words) != ndim or not all(re.fullmatch(r"-?\d+", w) for w in words):
        raise ValueError(f"type {ndim} whole number{'s' if ndim > 1 else ''} for a cell (h for help)")
    return action, tuple(int(w) for w in words)


def add_game_options(parser: argparse.ArgumentParser) -> None:
    """The options that choose a board; shared by every command that starts games."""
    parser.add_argument(
        "--preset",
        choices=sorted(PRESETS),
        default="beginner",
        help="classic size: beginner 9x9/10, intermediate 16x16/40, expert 16x30/99 (default: beginner)",
    )
    parser.add_argument(
        "--shape", type=parse_shape, help="any board, axis sizes joined by x (e.g. 4x4x4); overrides the preset"
    )
    parser.add_argument("--mines", type=int, help="number of mines (default: the preset's, or about 15%% of the cells)")
    parser.add_argument("--torus", action="store_true", help="every axis wraps around")
    parser.add_argument(
        "--charges",
        nargs="?",
        const=DEFAULT_CHARGES,
        type=parse_charge_range,
        metavar="LOW:HIGH",
        help="give each cell a random nonzero charge (default range -10:10; write --charges=-3:2 when the "
        "range starts below zero); numbers sum the charges of neighbouring mines and zeros no longer flood",
    )
    parser.add_argument(
        "--reveal",
        choices=REVEAL_RULES,
        default="flood",
        help="what a dig opens: flood (a zero opens its neighbours, recursively), ring (the cell and the "
        "numbers around it) or single (the cell alone) (default: flood)",
    )
    parser.add_argument(
        "--first-move",
        choices=FIRST_MOVES,
        default="safe",
        help="safe: the first dig is never a mine; opening: nor its neighbours; any: no protection (default: safe)",
    )
    parser.add_argument(
        "--seed", type=int, help="seed for the mines and charges (default: a fresh one, shown on screen)"
    )


def rules_from_options(args: argparse.Namespace) -> Rules:
    """The `Rules` the board options of `add_game_options` name (checked: a bad combination raises ValueError)."""
    preset = PRESETS[args.preset]
    shape = args.shape or preset.shape
    mines = args.mines
    if mines is None:
        mines = preset.mines if args.shape is None else max(1, round(0.15 * math.prod(shape)))
    name = args.preset if args.shape is None and args.mines is None else ""
    return Rules(shape, mines, args.torus, args.charges, args.reveal, args.first_move, name)


def status_line(game: Game) -> str:
    """The line under the board: a face for the state, mines left, the board and its seed to replay it."""
    faces = {"ongoing": ":)", "victory": "B)", "defeat": "X("}
    rules = ["torus" if game.torus else "bounded"] + (["charged"] if game.charged else [])
    return (
        f"{faces[game.state]}  mines left: {max(game.mines_left, 0)}   board: {'x'.join(map(str, game.shape))}"
        f" ({', '.join(rules)})   seed: {game.seed}"
    )


def play_terminal(
    game: Game,
    read: Callable[[str], str] = input,
    out: TextIO = sys.stdout,
    color: bool = False,
    rules: Rules | None = None,
) -> Game:
    """Play until the game ends or the player quits; return the last game.

    `n` starts a new game under `rules` (by default the rules `game` was made with).
    """
    rules = rules or Rules.of_game(game)
    out.write(f"{PLAY_HELP}\n\n")
    while True:
        out.write(terminal_render(game, color=color) + status_line(game) + "\n")
        if game.over:
            out.write("\n" + terminal_render(game, xray=True, color=color))
            out.write("You cleared the board!\n" if game.state == "victory" else "Boom. That was a mine.\n")
            return game
        try:
            line = read("> ").strip()
        except EOFError:
            out.write("\n")
            return game
        if not line:
            continue
        if line.lower() in ("q", "quit", "exit"):
            return game
        if line.lower() in ("h", "help", "?"):
            out.write(PLAY_HELP + "\n")
            continue
        if line.lower() in ("n", "new"):
            game = rules.new_game()
            continue
        try:
            action, at = parse_player_move(line, game.ndim)
            if action == "dig":
                game.dig(at)
            else:
                game.cycle_mark(at)
        except ValueError as error:
            out.write(f"  {error}\n")


def run(args: argparse.Namespace) -> int:
    """`mines play`: the game in the terminal, or served as a page with --web; 2 on bad options."""
    try:
        rules = rules_from_options(args)
    except ValueError as error:
        print(f"mines play: {error}", file=sys.stderr)
        return 2
    if args.web:
        from .widgets.web import serve

        try:
            serve(rules, seed=args.seed, host=args.host, port=args.port, open_browser=not args.no_browser)
        except RuntimeError as error:  # Voila would not start, or not on that port
            print(f"mines play: {error}", file=sys.stderr)
            return 1
        return 0
    play_terminal(rules.new_game(args.seed), rules=rules, color=sys.stdout.isatty())
    return 0


def register(subparsers) -> None:
    """Add `mines play` and its options to the `mines` command (see cli.COMMAND_MODULES)."""
    parser = subparsers.add_parser(
        "play",
        help="play a game in the terminal (or in a browser page with --web)",
        description="Play Minesweeper on any board: 2-D to N-D, bounded or torus, with charged mines.",
        epilog=PLAY_HELP,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    add_game_options(parser)
    parser.add_argument(
        "--web",
        action="store_true",
        help="serve the board as a page of its own on this machine instead (open the address it prints: "
        "the page asks for the token in it)",
    )
    parser.add_argument("--host", default="127.0.0.1", help="with --web: address to listen on (default: 127.0.0.1)")
    parser.add_argument("--port", type=int, default=0, help="with --web: port, refused if in use (default: a free one)")
    parser.add_argument("--no-browser", action="store_true", help="with --web: do not open a browser")
    parser.set_defaults(run=run)
