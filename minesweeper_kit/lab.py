"""`mines lab`: start JupyterLab on the student workspace, or on the source notebooks.

Students run `mines lab` (what `make lab` runs): it builds the student versions of the notebooks
once into ``workspace/`` beside the checkout's ``notebooks/`` and opens JupyterLab there, so the
file browser never reaches a solution. Instructors run `mines lab --source` to open the nbgrader
source notebooks, solutions included.

nbgrader's Validate reads ``nbgrader_config.py`` from the server's working directory, so JupyterLab
runs in the workspace it opens (the workspace's time limits, workspace.py) or, for the source
notebooks, in a settings folder ``.lab-source/`` beside them that holds the same limits, leaving
``notebooks/`` as it is. It starts with the news pop-up
off (``jupyter_config/``, a default the student's own settings still override) and, where ZeroMQ
can, with encrypted kernel connections.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import sys
from pathlib import Path

from .shutdown import stop_on_sigterm
from .workspace import build_workspace, curve_available, default_workspace, write_config

#: Jupyter settings of the kit, put on JUPYTER_CONFIG_PATH: JupyterLab's news pop-up off by default
#: (it covered the boards' lower right corner).
JUPYTER_CONFIG = Path(__file__).resolve().parent / "jupyter_config"

#: Where the server of `mines lab --source` runs, beside notebooks/: see source_settings.
SOURCE_SETTINGS = ".lab-source"

# JupyterLab as `python -m jupyterlab` would start it, with two differences. The folder it runs in is
# not on sys.path: a student's random.py or numpy.py in the workspace must not replace a module of
# the server. And rfc3987-syntax is hidden from jsonschema: it builds some 40 Lark parsers on import
# (about 2 s of CPU, a third of the server's start) for IRI format checks no Jupyter schema asks for.
_SERVER = (
    "import runpy, sys; sys.path.pop(0); sys.modules['rfc3987_syntax'] = None; "
    "runpy.run_module('jupyterlab', run_name='__main__', alter_sys=True)"
)


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


def _missing_tools(*modules: str) -> list[str]:
    return [name for name in modules if importlib.util.find_spec(name) is None]


def choose_folder(args: argparse.Namespace) -> tuple[Path | None, str]:
    """The folder JupyterLab opens, and a line saying what it is (or why there is none)."""
    if args.folder:
        folder = Path(args.folder)
        if not folder.is_dir():
            return None, f"no notebooks folder at {folder}"
        return folder, f"opening {folder} as it is"
    notebooks = find_notebooks()
    if notebooks is None:
        return None, "no notebooks folder found; run it inside the kit's checkout or name the folder"
    if args.source:
        return notebooks, (
            f"opening the SOURCE notebooks in {notebooks}: every solution is in them "
            "(for instructors; students run `mines lab`)"
        )
    workspace = Path(args.workspace) if args.workspace else default_workspace(notebooks)
    missing = _missing_tools("nbgrader")
    if missing:
        return None, "nbgrader is not installed, so the student versions cannot be built; run `make lab`"
    report = build_workspace(workspace, notebooks)
    return report.folder, report.summary()


def source_settings(notebooks: Path) -> Path:
    """The folder the server of the source notebooks runs in: Validate's cell limits, written
    beside notebooks/ (never into it), or the notebooks themselves when that folder cannot be
    written (an installed kit)."""
    settings = notebooks.parent / SOURCE_SETTINGS
    try:
        settings.mkdir(exist_ok=True)
        write_config(settings)
    except OSError as error:
        print(f"mines lab: Validate keeps nbgrader's own cell limits ({error})", file=sys.stderr)
        return notebooks
    return settings


def run(args: argparse.Namespace) -> int:
    """`mines lab`: build the workspace once if needed, then replace this process with JupyterLab.

    Until then SIGTERM stops the build in order, as Ctrl+C does (its nbgrader process and
    temporary folder go with it); once replaced, JupyterLab's own SIGTERM handling stops its kernels."""
    stop_on_sigterm()
    if _missing_tools("jupyterlab"):
        print(
            "mines lab: JupyterLab is not installed; run `make lab`, or pip install 'minesweeper-kit[lab]'",
            file=sys.stderr,
        )
        return 2
    try:
        folder, message = choose_folder(args)
    except (ValueError, RuntimeError) as error:
        print(f"mines lab: {error}", file=sys.stderr)
        return 2
    if folder is None:
        print(f"mines lab: {message}", file=sys.stderr)
        return 2
    print(f"mines lab: {message}", flush=True)
    from .widgets.server import server_options  # kernel websockets with TCP_NODELAY: no 40 ms stalls on clicks

    folder = folder.resolve()
    command = [sys.executable, "-c", _SERVER, f"--ServerApp.root_dir={folder}", *server_options()]
    if curve_available():  # no "Kernel is running over TCP without encryption" for every kernel
        command.append("--KernelManager.transport_encryption=auto")
    command += args.extra
    if hasattr(os, "geteuid") and os.geteuid() == 0 and "--allow-root" not in command:
        # Containers and course VMs often run as root, where JupyterLab refuses to start without it.
        command.append("--allow-root")
    os.environ["JUPYTER_CONFIG_PATH"] = os.pathsep.join(
        p for p in (str(JUPYTER_CONFIG), os.environ.get("JUPYTER_CONFIG_PATH", "")) if p
    )
    # nbgrader's Validate handler reads nbgrader_config.py from the server's working directory.
    os.chdir(source_settings(folder) if args.source and not args.folder else folder)
    os.execv(sys.executable, command)
    return 0  # not reached


def register(subparsers) -> None:
    """Add `mines lab` to the `mines` command."""
    parser = subparsers.add_parser(
        "lab",
        help="start JupyterLab on your own copies of the notebooks (the student workspace)",
        description="Start JupyterLab on the step-by-step notebooks. By default it opens the student "
        "workspace: the student versions of the notebooks, built once with nbgrader into workspace/ "
        "beside the checkout's notebooks/ and never overwritten afterwards (a missing notebook is "
        "added back; yours are kept). Options it does not know (e.g. --no-browser, --port=8890) are "
        "passed on to JupyterLab.",
    )
    where = parser.add_mutually_exclusive_group()
    where.add_argument(
        "--source", action="store_true", help="open the source notebooks, solutions included (for instructors)"
    )
    where.add_argument(
        "--workspace", metavar="DIR", help="build and open the student workspace in DIR instead of workspace/"
    )
    where.add_argument("folder", nargs="?", help="open this folder as it is instead")
    parser.set_defaults(run=run, passes_extra=True)
