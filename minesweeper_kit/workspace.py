"""The student workspace that `mines lab` opens: the student versions of the notebooks, built once.

The checkout's ``notebooks/`` are nbgrader source versions, with every solution in them. A student
works in a separate folder (``workspace/`` beside them, ignored by git) that holds only the student
versions, made by nbgrader generate_assignment (``minesweeper_kit.release``). Building never
overwrites: a notebook already in the workspace is the student's own work and stays as it is;
only the steps whose notebook is missing are built and added.

The workspace also gets nbgrader's settings for Validate (``nbgrader_config.py``): cell time limits
that fit the budgets the notebooks state, where nbgrader's default of 30 seconds a cell failed a bot
the grader gives full marks. `mines lab` rewrites that file only while it is the kit's own
(unchanged since written, which a checksum in it tells); once the student edits it, it is theirs.
"""

from __future__ import annotations

import hashlib
import importlib.util
import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .release import STEPS, release

__all__ = [
    "CELL_TIMEOUT",
    "CONFIG_NAME",
    "curve_available",
    "WorkspaceReport",
    "build_workspace",
    "default_workspace",
    "step_notebooks",
    "workspace_config",
    "write_config",
]

CONFIG_NAME = "nbgrader_config.py"

#: CPU seconds the slowest graded cell may take inside the budgets the notebooks state. Step 5's first
#: visible test plays 100 beginner games with up to 240 s of CPU time for the bot, 16 legality games
#: on boards up to expert at the same rate per cell (about 90 s more: 3,110 cells at 2.4 s per 81),
#: and the judge's games (a few seconds). Steps 2 to 4 state 30, 90 and 100 seconds.
SLOWEST_GRADED_CELL = 340
#: Wall time over CPU time on a busy machine: the kernel shares its cores with JupyterLab, the
#: browser and other kernels (a cell of step 5 ran 3.6 times its CPU time on 2 cores at load 13).
BUSY_FACTOR = 3
#: nbgrader's Validate stops a cell after this many seconds (its default, 30, failed step 5's tests
#: for a bot of 10 ms a move). A runaway loop in any step is stopped only after as long.
CELL_TIMEOUT = SLOWEST_GRADED_CELL * BUSY_FACTOR
#: Seconds for a kernel to start (nbclient's default 60), and for a cell's last outputs to arrive
#: after its reply (4 by default; nbgrader fails the cell when they are late).
STARTUP_TIMEOUT = 180
IOPUB_TIMEOUT = 60

_MARK = "# minesweeper-kit settings, sha256 "

_CONFIG_BODY = """\
# nbgrader's settings in this workspace: the Validate button in JupyterLab and `nbgrader validate`
# run here read them. `mines lab` writes this file and rewrites it while it is unchanged (the
# checksum above). Edit it and it is yours: `mines lab` then leaves it as it is.
c = get_config()
# Seconds a cell may run before Validate stops it: the slowest visible test inside the budgets the
# notebooks state ({slowest} s of CPU time, step 5), {busy} times over for a busy machine.
c.Execute.timeout = {timeout}
c.Execute.startup_timeout = {startup}
c.Execute.iopub_timeout = {iopub}
"""

_ENCRYPTED = """\
# Kernels started by Validate talk over CurveZMQ-encrypted sockets, not plain TCP.
c.KernelManager.transport_encryption = "auto"
"""


@dataclass(frozen=True)
class WorkspaceReport:
    """What a build did: the notebooks it added and the ones it found there and kept."""

    folder: Path
    added: tuple[str, ...]
    kept: tuple[str, ...]
    #: What became of nbgrader_config.py: "written", "updated", "unchanged" or "kept" (the student's).
    config: str = "unchanged"

    def summary(self) -> str:
        """One line for the student: which notebooks were added and which of theirs were kept."""
        parts = []
        if self.added:
            parts.append(f"added {', '.join(self.added)}")
        if self.kept:
            parts.append(f"kept your {', '.join(self.kept)}")
        if self.config == "kept":
            parts.append(f"kept your edited {CONFIG_NAME}")
        elif self.config != "unchanged":
            parts.append(f"{self.config} {CONFIG_NAME} (Validate's time limits)")
        return f"student workspace {self.folder}: " + "; ".join(parts or ["no notebooks"])


def step_notebooks() -> dict[str, str]:
    """Each step's assignment id and notebook file name, in the order of the course."""
    return dict(STEPS)


def default_workspace(notebooks: Path) -> Path:
    """``workspace/`` beside the source notebooks' folder."""
    return notebooks.resolve().parent / "workspace"


def build_workspace(folder: Path, notebooks: Path, progress: bool = True) -> WorkspaceReport:
    """Add the student version of every step whose notebook is missing from ``folder``.

    Notebooks already in ``folder`` are never read, replaced or touched. Only the notebooks are
    copied out of nbgrader's release folder, nothing else of the course.
    """
    folder, notebooks = Path(folder).resolve(), Path(notebooks).resolve()
    if folder == notebooks:
        raise ValueError(
            f"the workspace cannot be the source notebooks' folder {notebooks}: "
            "students must not work in the versions that hold the solutions"
        )
    if notebooks in folder.parents:
        raise ValueError(f"the workspace {folder} cannot sit inside the source notebooks' folder")
    steps = step_notebooks()
    missing = [step for step, name in steps.items() if not (folder / name).exists()]
    kept = tuple(name for step, name in steps.items() if step not in missing)
    added = []
    if missing:
        folder.mkdir(parents=True, exist_ok=True)
        if progress:
            print(
                f"building the student version of {', '.join(steps[s] for s in missing)} into {folder} "
                "(nbgrader: about 10 seconds, up to a minute on a busy machine; notebooks already "
                "there are kept)",
                flush=True,
            )
        with tempfile.TemporaryDirectory(prefix="mines-workspace-") as scratch:
            built = release(Path(scratch) / "release", notebooks, missing, progress=progress)
            for step in missing:
                name = steps[step]
                if _copy_if_absent(built / step / name, folder / name):
                    added.append(name)
    config = write_config(folder) if folder.is_dir() else "unchanged"
    return WorkspaceReport(folder, tuple(added), kept, config)


def workspace_config() -> str:
    """The text of the workspace's nbgrader_config.py, its first line the checksum of the rest."""
    body = _CONFIG_BODY.format(
        slowest=SLOWEST_GRADED_CELL,
        busy=BUSY_FACTOR,
        timeout=CELL_TIMEOUT,
        startup=STARTUP_TIMEOUT,
        iopub=IOPUB_TIMEOUT,
    )
    if curve_available():
        body += _ENCRYPTED
    return f"{_MARK}{_digest(body)}\n{body}"


def write_config(folder: Path) -> str:
    """Write ``folder/nbgrader_config.py`` unless the student has edited it.

    Returns "written" (there was none), "updated" (the kit's own, now with the current settings),
    "unchanged", or "kept" (edited by the student, or not the kit's: left as it is)."""
    target = Path(folder) / CONFIG_NAME
    text = workspace_config()
    try:
        current = target.read_text(encoding="utf-8")
    except FileNotFoundError:
        return "written" if _create(target, text) else "kept"
    if current == text:
        return "unchanged"
    first, _, rest = current.partition("\n")
    if not first.startswith(_MARK) or first[len(_MARK) :].strip() != _digest(rest):
        return "kept"
    scratch = target.with_name(f".{CONFIG_NAME}.{os.getpid()}")
    scratch.write_text(text, encoding="utf-8")
    os.replace(scratch, target)
    return "updated"


def _digest(body: str) -> str:
    return hashlib.sha256(body.encode("utf-8")).hexdigest()


def curve_available() -> bool:
    """Whether this install's ZeroMQ can encrypt kernel connections (jupyter_client refuses the
    setting otherwise)."""
    if importlib.util.find_spec("zmq") is None:
        return False
    import zmq

    return bool(zmq.has("curve"))


def _create(target: Path, text: str) -> bool:
    """Write a new file, never over one that appeared meanwhile."""
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "w", encoding="utf-8") as out:
        out.write(text)
    return True


def _copy_if_absent(source: Path, target: Path) -> bool:
    """Write ``target`` only if it does not exist yet (exclusive create), so nothing is overwritten
    even if the student saved a notebook of that name while the build ran."""
    data = source.read_bytes()
    try:
        descriptor = os.open(target, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o644)
    except FileExistsError:
        return False
    with os.fdopen(descriptor, "wb") as out:
        out.write(data)
    return True
