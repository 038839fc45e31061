"""Scale out on Gradescope: export an autograder zip that runs this same grader there.

The zip holds ``setup.sh`` (installs the dependencies on Gradescope's image), ``run_autograder``
(grades ``/autograder/submission`` and writes ``/autograder/results/results.json``), the kit's
packages, this assignment's hidden suite and the original data it reads. ``AUTOGRADER_ROOT``
replaces ``/autograder`` so the layout can be simulated in a temporary folder.

Isolation on Gradescope: ``setup.sh`` installs bubblewrap, and every submission is graded in it
as anywhere else. Gradescope runs the grader as root in a container; where that container
forbids the namespaces bubblewrap needs, grading stops and the student's results say the
autograder could not isolate the code (nothing is graded unsafely). An instructor who accepts
the container as the only boundary exports with ``--isolation none``: then the student's code
runs with the grader's rights inside that one container, so it could read the hidden suite
shipped there and write its own results file; other students are not affected, since each
submission gets a fresh container.
"""

from __future__ import annotations

import argparse
import json
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from .assignments import PACKAGE_DIR, get_assignment, originals_dir

__all__ = ["export", "run_on_platform"]

REQUIREMENTS = ["numpy>=2.0", "scipy>=1.11", "nbformat>=5.9", "tqdm>=4.66", "pytest>=8", "ipython>=8"]

SETUP_SH = """#!/usr/bin/env bash
# Runs once when Gradescope builds the autograder image.
set -euo pipefail
apt-get update -qq && apt-get install -y -qq python3 python3-pip bubblewrap util-linux >/dev/null
python3 -m pip install --quiet --break-system-packages -r /autograder/source/requirements.txt \\
  || python3 -m pip install --quiet -r /autograder/source/requirements.txt
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Runs for every submission: grade /autograder/submission into /autograder/results/results.json.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-python3}}"
export PYTHONPATH="$ROOT/source${{PYTHONPATH:+:$PYTHONPATH}}"
export AUTOGRADER_INSTRUCTOR_DIR="$ROOT/source/autograder/instructor"
mkdir -p "$ROOT/results"
cd "$ROOT/source"
exec "$PYTHON" -m autograder.gradescope --assignment {assignment} --isolation {isolation} \\
  --submission "$ROOT/submission" --results "$ROOT/results/results.json"
"""


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("__pycache__", ".ipynb_checkpoints") or n.endswith(".pyc")}


def export(assignment_id: str, output: Path, isolation: str = "bwrap") -> Path:
    """Write the Gradescope autograder zip for one assignment (``isolation``: see the module)."""
    if isolation not in ("bwrap", "none"):
        raise ValueError(f"isolation must be bwrap or none, got {isolation!r}")
    assignment = get_assignment(assignment_id)
    suite = assignment.suite_path
    originals = originals_dir()
    kit = PACKAGE_DIR.parent / "minesweeper_kit"
    with tempfile.TemporaryDirectory() as temp:
        source = Path(temp) / "source"
        package = source / "autograder"
        shutil.copytree(
            PACKAGE_DIR,
            package,
            ignore=lambda d, names: _ignore(d, names) | ({"instructor"} if Path(d) == PACKAGE_DIR else set()),
        )
        shutil.copytree(kit, source / "minesweeper_kit", ignore=_ignore)
        target = package / "instructor"
        (target / "suites").mkdir(parents=True)
        (target / "__init__.py").write_text("")
        shutil.copy2(suite, target / "suites" / suite.name)
        shutil.copytree(originals, target / "data" / "originals", ignore=_ignore)
        (source / "requirements.txt").write_text("\n".join(REQUIREMENTS) + "\n")
        output = Path(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in (
                ("setup.sh", SETUP_SH),
                ("run_autograder", RUN_AUTOGRADER.format(assignment=assignment.id, isolation=isolation)),
            ):
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o100755 << 16
                archive.writestr(info, text)
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    archive.write(path, str(path.relative_to(source)))
    return output


def run_on_platform(assignment_id: str, submission_dir: Path, results_path: Path, isolation: str = "bwrap") -> int:
    """Grade the one submission Gradescope hands over and write its results.json."""
    from minesweeper_kit.sandbox.isolation import IsolationUnavailable

    from .batch import grade_batch

    with tempfile.TemporaryDirectory() as temp:
        try:
            result = grade_batch(
                assignment_id, [submission_dir], Path(temp), progress=False, jobs=1, force=True, isolation=isolation
            )
        except IsolationUnavailable as error:
            data = {
                "score": 0,
                "output": "The autograder could not isolate your code on this machine, so "
                "it was not run; your instructor has been told. (" + str(error) + ")",
                "tests": [],
            }
            Path(results_path).write_text(json.dumps(data, indent=2) + "\n")
            print(f"{assignment_id}: not graded: {error}", file=sys.stderr)
            return 1
        if result.reports:
            report = result.reports[0]
            from .report import gradescope_results

            data = gradescope_results(report)
        else:
            data = {"score": 0, "output": "no submission was found", "tests": []}
    Path(results_path).write_text(json.dumps(data, indent=2) + "\n")
    print(f"{assignment_id}: {data.get('score', 0)} points")
    return 0


def main(argv: list[str] | None = None) -> int:
    """The command ``run_autograder`` calls on Gradescope: grade the one submission there and write
    its ``results.json``."""
    parser = argparse.ArgumentParser(
        prog="python -m autograder.gradescope", description="Grade one Gradescope submission (used by run_autograder)."
    )
    parser.add_argument("--assignment", required=True)
    parser.add_argument("--submission", type=Path, required=True)
    parser.add_argument("--results", type=Path, required=True)
    parser.add_argument("--isolation", choices=["bwrap", "none"], default="bwrap")
    args = parser.parse_args(argv)
    return run_on_platform(args.assignment, args.submission, args.results, args.isolation)


if __name__ == "__main__":
    sys.exit(main())
