"""The `mines` command: play, start the notebooks, and measure bots in the arena."""

from __future__ import annotations

import argparse
import importlib
import sys

from . import __version__
from .shutdown import exit_status

# Each module adds its own subcommand through a `register(subparsers)` function.
COMMAND_MODULES = ("minesweeper_kit.play", "minesweeper_kit.lab", "minesweeper_kit.arena", "minesweeper_kit.tournament")


def build_parser() -> argparse.ArgumentParser:
    """The `mines` parser, with the subcommands of every module that is installed."""
    parser = argparse.ArgumentParser(
        prog="mines",
        description="Minesweeper teaching kit: play any board (2-D to N-D, torus, charged mines), "
        "start the notebooks, and measure bots.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for name in COMMAND_MODULES:
        try:
            module = importlib.import_module(name)
        except ModuleNotFoundError as error:
            if error.name != name:
                raise
            continue
        module.register(subparsers)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run `mines`; the exit code is the subcommand's (2 without one, 130 on Ctrl-C, 143 on SIGTERM)."""
    parser = build_parser()
    args, extra = parser.parse_known_args(argv)
    if extra and not getattr(args, "passes_extra", False):
        parser.error(f"unrecognized arguments: {' '.join(extra)}")
    args.extra = extra
    if not hasattr(args, "run"):
        parser.print_help()
        return 2
    try:
        return args.run(args)
    except KeyboardInterrupt as stop:  # Ctrl+C, or SIGTERM where the command asked for it (mines lab)
        return exit_status(stop)


if __name__ == "__main__":
    sys.exit(main())
