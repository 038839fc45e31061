"""The student workspace that `mines lab` opens: the student versions of the notebooks, built once.

The checkout's ``notebooks/`` are nbgrader source versions, with every solution in them. A student
works in a separate folder (``workspace/`` beside them, ignored by git) that holds only the student
versions, made by nbgrader generate_assignment (``minesweeper_kit.release``). Building never
overwrites: a notebook already in the workspace is the student's own work and stays as it is;
only the steps whose notebook is missing are built and added.
"""

from __future__ import annotations

import os
import tempfile
from dataclasses import dataclass
from pathlib import Path

from .release import STEPS, release

__all__ = ["WorkspaceReport", "build_workspace", "default_workspace", "step_notebooks"]


@dataclass(frozen=True)
class WorkspaceReport:
    """What a build did: the notebooks it added and the ones it found there and kept."""

    folder: Path
    added: tuple[str, ...]
    kept: tuple[str, ...]

    def summary(self) -> str:
        """One line for the student: which notebooks were added and which of theirs were kept."""
        parts = []
        if self.added:
            parts.append(f"added {', '.join(self.added)}")
        if self.kept:
            parts.append(f"kept your {', '.join(self.kept)}")
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
                "(nbgrader, a few seconds per notebook; notebooks already there are kept)",
                flush=True,
            )
        with tempfile.TemporaryDirectory(prefix="mines-workspace-") as scratch:
            built = release(Path(scratch) / "release", notebooks, missing, progress=progress)
            for step in missing:
                name = steps[step]
                if _copy_if_absent(built / step / name, folder / name):
                    added.append(name)
    return WorkspaceReport(folder, tuple(added), kept)


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
