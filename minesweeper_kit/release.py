"""Build the student versions of the notebooks with nbgrader (`make release`, and `mines lab`).

The notebooks in ``notebooks/`` are nbgrader *source* versions: solutions sit between nbgrader's
``### BEGIN SOLUTION`` / ``### END SOLUTION`` markers and the visible tests are locked, graded
cells. This module sets up an nbgrader course folder with one assignment per step
(``source/<assignment>/<notebook>``), runs nbgrader's generate_assignment on each (all steps in one
child process, through nbgrader's own Python API: a process per step spent most of its time
starting up), and copies the course's ``release/`` folder to the output folder. The course folder
(with its gradebook) is kept when ``--course`` names one, so an instructor can go on to ``nbgrader autograde`` there.

It is part of the kit, not of the grader, because the student's own tool needs it: `mines lab`
builds the student workspace with it (workspace.py). nbgrader comes with the ``lab`` extra.

    python -m minesweeper_kit.release                      # all steps into ./release
    python -m minesweeper_kit.release --only neighbors     # one step
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterable, Sequence
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
NOTEBOOKS = REPO / "notebooks"

# Assignment id (docs/assignments.md; "play" is the ungraded first step) -> source notebook.
STEPS: dict[str, str] = {
    "play": "00-play.ipynb",
    "neighbors": "01-neighbors.ipynb",
    "make-board": "02-make-board.ipynb",
    "flood-fill": "03-flood-fill.ipynb",
    "hypermines": "04-nd-dig.ipynb",
    "bots": "05-bots.ipynb",
}

COURSE_ID = "minesweeper-kit"

CONFIG = """\
# nbgrader course configuration written by minesweeper_kit.release.
c = get_config()
c.CourseDirectory.course_id = {course_id!r}
c.CourseDirectory.root = {root!r}
# What replaces a solution region in the student version.
c.ClearSolutions.code_stub = {{"python": "# YOUR CODE HERE\\nraise NotImplementedError()"}}
c.ClearSolutions.text_stub = "YOUR ANSWER HERE"
# `nbgrader autograde` runs whole notebooks: the bots step plays a few hundred games in one cell,
# so a cell may run for up to 180 s; the whole notebook has one budget of 300 s (after it, 5 s a
# cell), so a function that loops for ever costs that budget once, not 180 s in every cell that
# calls it (minesweeper_kit/notebook_budget.py).
c.Execute.timeout = 180
try:
    from minesweeper_kit.notebook_budget import autograde_preprocessors
except ImportError:  # nbgrader run where the kit is not installed: nbgrader's own Execute, 180 s a cell
    print("nbgrader_config.py: minesweeper_kit is not installed here: no notebook budget (180 s a cell)")
else:
    c.Autograde.autograde_preprocessors = autograde_preprocessors()
c.BudgetedExecute.notebook_timeout = 300
c.BudgetedExecute.spent_timeout = 5
"""


def _check_assignments(assignments: Iterable[str] | None) -> list[str]:
    chosen = list(STEPS) if assignments is None else list(assignments)
    unknown = [a for a in chosen if a not in STEPS]
    if unknown:
        raise ValueError(f"unknown assignment(s) {', '.join(unknown)}: choose from {', '.join(STEPS)}")
    return chosen


def nbgrader(course: Path, *args: str) -> subprocess.CompletedProcess:
    """Run one nbgrader command in the course folder; raise with its output when it fails."""
    command = [sys.executable, "-m", "nbgrader", *args]
    done = subprocess.run(command, cwd=course, capture_output=True, text=True, env=_nbgrader_env())
    if done.returncode != 0:
        raise RuntimeError(
            f"`nbgrader {' '.join(args)}` failed (exit {done.returncode}) in {course}:\n"
            f"{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        )
    return done


def _nbgrader_env() -> dict[str, str]:
    """The environment for nbgrader: it starts `alembic` (gradebook migrations) from PATH, so this
    interpreter's scripts come first."""
    env = dict(os.environ)
    env["PATH"] = os.pathsep.join([str(Path(sys.executable).parent), env.get("PATH", "")])
    return env


def setup_course(course: Path, notebooks: Path = NOTEBOOKS, assignments: Iterable[str] | None = None) -> list[str]:
    """Write the course config and copy each chosen step's source notebook into ``source/``."""
    chosen = _check_assignments(assignments)
    course.mkdir(parents=True, exist_ok=True)
    (course / "nbgrader_config.py").write_text(CONFIG.format(course_id=COURSE_ID, root=str(course.resolve())))
    for assignment in chosen:
        notebook = notebooks / STEPS[assignment]
        if not notebook.is_file():
            raise ValueError(f"the notebook of {assignment!r} is missing: {notebook}")
        folder = course / "source" / assignment
        folder.mkdir(parents=True, exist_ok=True)
        shutil.copy2(notebook, folder / notebook.name)
    return chosen


# The line the child of build_course prints for each step it has generated.
_GENERATED = "generated "

# The child of build_course. It hides rfc3987-syntax from jsonschema, which otherwise builds some 40
# Lark parsers when nbformat loads it (3 s of CPU, over half the child's work on a first build) for
# IRI format checks that nbformat's schemas never ask for.
_CHILD = (
    "import sys; sys.modules['rfc3987_syntax'] = None; "
    "from minesweeper_kit.release import _generate; sys.exit(_generate())"
)


def build_course(
    course: Path, notebooks: Path = NOTEBOOKS, assignments: Iterable[str] | None = None, progress: bool = True
) -> Path:
    """Set up the course folder and generate the student version of each chosen step.

    Returns the course's ``release`` folder (``release/<assignment>/<notebook>``).
    """
    from tqdm.auto import tqdm

    if importlib.util.find_spec("nbgrader") is None:
        raise RuntimeError("nbgrader is not installed: pip install 'minesweeper-kit[lab]' (or run `make lab`)")
    chosen = setup_course(course, notebooks, assignments)
    env = _nbgrader_env()
    env["PYTHONPATH"] = os.pathsep.join(p for p in (str(REPO), env.get("PYTHONPATH", "")) if p)
    command = [sys.executable, "-c", _CHILD, *chosen]
    # stderr goes to a file, not a pipe: a child with a long log must never block while we read stdout.
    # The child's temporary files go to a folder of ours, removed even when the child is killed.
    with (
        tqdm(total=len(chosen), desc="nbgrader generate_assignment", unit="step", disable=not progress) as bar,
        tempfile.TemporaryFile(mode="w+") as errors,
        tempfile.TemporaryDirectory(prefix="nbgrader-tmp-") as scratch,
    ):
        env["TMPDIR"] = scratch
        # a session of its own, so that it can be stopped with what it starts (nbgrader runs alembic)
        child = subprocess.Popen(
            command, cwd=course, env=env, stdout=subprocess.PIPE, stderr=errors, text=True, start_new_session=True
        )
        try:
            assert child.stdout is not None
            for line in child.stdout:
                if line.startswith(_GENERATED):
                    bar.update(1)
        except BaseException:  # Ctrl+C or SIGTERM (`mines lab`): nothing of the build may outlive it
            os.killpg(child.pid, signal.SIGKILL)
            child.wait()
            raise
        if child.wait() != 0:
            errors.seek(0)
            raise RuntimeError(
                f"nbgrader generate_assignment failed (exit {child.returncode}) in {course}:\n{errors.read()[-8000:]}"
            )
    return course / "release"


def _generate() -> int:
    """The child of :func:`build_course`: ``generate_assignment`` for each step named in ``sys.argv``,
    in the course folder that is the working directory. One line per step on stdout; on a failure,
    nbgrader's log and traceback on stderr and exit 1."""
    from nbgrader.apps.api import NbGraderAPI
    from nbgrader.coursedir import CourseDirectory
    from traitlets.config.loader import PyFileConfigLoader

    config = PyFileConfigLoader("nbgrader_config.py", path=os.getcwd()).load_config()
    api = NbGraderAPI(CourseDirectory(config=config), config=config)
    for assignment in sys.argv[1:]:
        result = api.generate_assignment(assignment, force=True)
        if not result["success"]:
            print(
                f"`nbgrader generate_assignment {assignment}` failed:\n{result.get('log', '')}\n"
                f"{result.get('error', '')}",
                file=sys.stderr,
            )
            return 1
        print(f"{_GENERATED}{assignment}", flush=True)
    return 0


def release(
    output: Path,
    notebooks: Path = NOTEBOOKS,
    assignments: Iterable[str] | None = None,
    course: Path | None = None,
    progress: bool = True,
) -> Path:
    """Build the student versions into ``output/<assignment>/``; returns ``output``."""
    with tempfile.TemporaryDirectory(prefix="nbgrader-course-") as scratch:
        course_dir = course if course is not None else Path(scratch)
        built = build_course(course_dir, notebooks, assignments, progress)
        output.mkdir(parents=True, exist_ok=True)
        for folder in sorted(built.iterdir()):
            target = output / folder.name
            if target.exists():
                shutil.rmtree(target)
            shutil.copytree(folder, target)
    return output


def main(argv: Sequence[str] | None = None) -> int:
    """``python -m minesweeper_kit.release`` (``make release``): build the student versions; 1 when
    a step fails."""
    parser = argparse.ArgumentParser(
        prog="python -m minesweeper_kit.release",
        description="Build the student versions of the notebooks: nbgrader generate_assignment for "
        "each step, solutions replaced by stubs, visible tests kept and locked.",
    )
    parser.add_argument(
        "--output",
        type=Path,
        default=REPO / "release",
        help="folder that receives <assignment>/<notebook> (default: ./release)",
    )
    parser.add_argument(
        "--notebooks", type=Path, default=NOTEBOOKS, help="folder of the source notebooks (default: ./notebooks)"
    )
    parser.add_argument(
        "--course",
        type=Path,
        default=None,
        help="keep the nbgrader course folder (config, source, gradebook) here; "
        "by default a temporary one is used and removed",
    )
    parser.add_argument(
        "--only", nargs="+", metavar="ASSIGNMENT", default=None, help=f"build only these steps (of: {', '.join(STEPS)})"
    )
    args = parser.parse_args(argv)
    try:
        out = release(
            args.output.resolve(), args.notebooks.resolve(), args.only, args.course.resolve() if args.course else None
        )
    except (ValueError, RuntimeError) as error:
        print(f"release failed: {error}", file=sys.stderr)
        return 1
    for folder in sorted(out.iterdir()):
        print(f"{folder.name}: {', '.join(p.name for p in sorted(folder.iterdir()))}")
    print(f"student versions written to {out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
