"""`mines lab`: start JupyterLab on the kit's notebooks."""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path


def find_notebooks(start: Path | None = None) -> Path | None:
    """The nearest `notebooks/` folder holding the kit's notebooks, from `start` upwards."""
    candidates = []
    here = (start or Path.cwd()).resolve()
    candidates += [p / "notebooks" for p in (here, *here.parents)]
    candidates.append(Path(__file__).resolve().parent.parent / "notebooks")
    for folder in candidates:
        if folder.is_dir() and any(folder.glob("*.ipynb")):
            return folder
    return None


def run(args: argparse.Namespace) -> int:
    folder = Path(args.folder) if args.folder else find_notebooks()
    if folder is None or not folder.is_dir():
        print("mines lab: no notebooks folder found; run it inside the kit's checkout or name the folder", file=sys.stderr)
        return 2
    if importlib.util.find_spec("jupyterlab") is None:
        print("mines lab: JupyterLab is not installed; run `make lab`, or pip install 'minesweeper-kit[lab]'", file=sys.stderr)
        return 2
    command = [sys.executable, "-m", "jupyterlab", f"--notebook-dir={folder}", *args.extra]
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in command:
        # Containers and course VMs often run as root, where JupyterLab refuses to start without it.
        command.append("--allow-root")
    os.execv(sys.executable, command)
    return 0  # not reached


def register(subparsers) -> None:
    parser = subparsers.add_parser(
        "lab", help="start JupyterLab on the kit's notebooks",
        description="Start JupyterLab on the step-by-step notebooks. Options it does not know "
        "(e.g. --no-browser, --port=8890) are passed on to JupyterLab.")
    parser.add_argument("folder", nargs="?", help="notebooks folder (default: the nearest notebooks/ of the kit)")
    parser.set_defaults(run=run, passes_extra=True)
