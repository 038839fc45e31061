"""Scale out on Gradescope: export an autograder zip that runs this same grader there.

The zip holds ``setup.sh`` (installs the dependencies on Gradescope's image and checks that a
sandbox starts there), ``run_autograder`` (grades ``/autograder/submission`` and writes
``/autograder/results/results.json``), ``requirements.txt``, the kit's packages, this assignment's
hidden suite and the original data it reads. ``AUTOGRADER_ROOT`` replaces ``/autograder`` and
``AUTOGRADER_PYTHON`` replaces ``python3``, and ``AUTOGRADER_SKIP_INSTALL=1`` makes ``setup.sh``
skip apt-get and pip, so the layout can be simulated in a temporary folder.

``requirements.txt`` pins the exact versions installed where the zip is exported (read with
:mod:`importlib.metadata`), so Gradescope grades with the versions the kit was tested with,
not whatever is newest on the day its image is built.

Isolation on Gradescope: ``setup.sh`` installs bubblewrap, and every submission is graded in it
as anywhere else. Gradescope runs the grader as root in a container; where that container
forbids the namespaces bubblewrap needs, the submission is not graded (nothing is graded
unsafely). ``setup.sh`` runs ``autograder doctor`` once the packages are in and records what it
said in ``source/sandbox-check.txt``; the check never fails the build (the image is built in
another container than the ones that grade, and may allow less or more), but the build's log
shows it. A submission not graded, for that or any other problem on the grader's side (see
:mod:`autograder.grading`), gets no ``results.json`` and the run exits with status 1: Gradescope
then shows that the autograder failed and posts no score, and the run's output names the cause
for the instructor, with setup.sh's sandbox check when the cause is the sandbox. (A results.json
can carry no "not graded": Gradescope's specification requires a score at the top or on every
test, so a file it accepts posts a score, and a missing file is the failure it documents.) An
instructor who accepts
the container as the only boundary exports with ``--isolation none``: then the student's code
runs with the grader's rights inside that one container, so it could read the hidden suite
shipped there and write its own results file; other students are not affected, since each
submission gets a fresh container.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib.metadata
import json
import platform
import shutil
import sys
import tempfile
import zipfile
from pathlib import Path

from .assignments import PACKAGE_DIR, get_assignment, instructor_dir, originals_dir
from .course import Course, apply_settings
from .grading import NOT_SUBMITTED

__all__ = ["export", "pinned_requirements", "run_on_platform", "PINNED_DISTRIBUTIONS", "SANDBOX_CHECK"]

#: What a Gradescope run needs installed: the kit's runtime dependencies (``dependencies`` in
#: pyproject.toml) and the grader's own (pytest runs the hidden suites, IPython reads notebook
#: cells). Their versions are read where the zip is exported, never written here.
PINNED_DISTRIBUTIONS = (
    "numpy",
    "scipy",
    "anywidget",
    "ipywidgets",
    "traitlets",
    "tqdm",
    "nbformat",
    "pytest",
    "ipython",
)
#: Where setup.sh records its sandbox check, inside the zip's folder (``/autograder/source``).
SANDBOX_CHECK = "sandbox-check.txt"

SETUP_SH = """#!/usr/bin/env bash
# Runs once when Gradescope builds the autograder image: install the pinned packages, then check
# that a sandbox starts here and record the answer for run_autograder.
set -euo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-python3}}"
SOURCE="$ROOT/source"
if [ "${{AUTOGRADER_SKIP_INSTALL:-0}}" != 1 ]; then
  apt-get update -qq && apt-get install -y -qq python3 python3-pip bubblewrap util-linux >/dev/null
  # pip installs into the image's own Python only when told (PEP 668); pip before 23 lacks the option.
  BREAK=$("$PYTHON" -m pip install --help | grep -o -m1 -- --break-system-packages || true)
  if ! "$PYTHON" -m pip install --quiet ${{BREAK:+"$BREAK"}} -r "$SOURCE/requirements.txt"; then
    echo "setup.sh: pip could not install the exact versions in requirements.txt, pinned where this" \\
      "autograder was exported (Python {python}); this image has $("$PYTHON" --version 2>&1)." \\
      "If they differ, choose a Gradescope base image with that Python, or export where its Python runs." >&2
    exit 1
  fi
fi
{sandbox_check}
"""

#: setup.sh's sandbox check for ``--isolation bwrap``: never fails the build, always says what it found.
BWRAP_CHECK = """# The check never fails the build (the image is built in another container than the ones that
# grade); its answer is in the build's log and in $SOURCE/{record}, which run_autograder quotes
# when a submission is not graded because no sandbox starts.
if found=$(cd "$SOURCE" && PYTHONPATH="$SOURCE" "$PYTHON" -m autograder doctor 2>&1); then
  outcome="passed: a sandbox starts in the container that built the image"
else
  outcome="FAILED (autograder doctor exit status $?): no sandbox starts in the container that built the image;"
  outcome+=" where none starts at grading time either, every submission is not graded (no score) and its run"
  outcome+=" says why (export with --isolation none to accept the container as the only boundary)"
fi
printf 'setup.sh sandbox check (%s): %s\\n%s\\n' "$(date -u '+%Y-%m-%d %H:%M UTC')" "$outcome" "$found" \\
  > "$SOURCE/{record}"
cat "$SOURCE/{record}"
"""

#: setup.sh's sandbox check for ``--isolation none``: nothing to check, and the record says why.
NO_ISOLATION_CHECK = """
echo "setup.sh sandbox check: skipped: exported with --isolation none, which starts no sandbox" \\
  | tee "$SOURCE/{record}"
"""

RUN_AUTOGRADER = """#!/usr/bin/env bash
# Runs for every submission: grade /autograder/submission into /autograder/results/results.json.
set -uo pipefail
ROOT="${{AUTOGRADER_ROOT:-/autograder}}"
PYTHON="${{AUTOGRADER_PYTHON:-python3}}"
export PYTHONPATH="$ROOT/source${{PYTHONPATH:+:$PYTHONPATH}}"
export AUTOGRADER_INSTRUCTOR_DIR="$ROOT/source/autograder/instructor"
export AUTOGRADER_NOTEBOOKS="$ROOT/source/autograder/instructor/notebooks"
mkdir -p "$ROOT/results"
cd "$ROOT/source"
exec "$PYTHON" -m autograder.gradescope --assignment {assignment} --isolation {isolation} \\
  --submission "$ROOT/submission" --results "$ROOT/results/results.json" \\
  --sandbox-check "$ROOT/source/{record}" --course "$ROOT/source/{course}"
"""

#: The course's settings of the exported assignment (see autograder.course), as plain data.
COURSE_FILE = "course.json"


def _ignore(directory: str, names: list[str]) -> set[str]:
    return {n for n in names if n in ("__pycache__", ".ipynb_checkpoints") or n.endswith(".pyc")}


def pinned_requirements() -> str:
    """requirements.txt: each of :data:`PINNED_DISTRIBUTIONS` at the exact version installed here,
    the environment the kit was tested in; ``ValueError`` names one that is missing."""
    pins = []
    for name in PINNED_DISTRIBUTIONS:
        try:
            pins.append(f"{name}=={importlib.metadata.version(name)}")
        except importlib.metadata.PackageNotFoundError:
            raise ValueError(
                f"cannot pin {name} for Gradescope: it is not installed here. Export from the "
                "environment the kit was tested in (pip install -e '.[grader]' pytest)"
            ) from None
    header = [
        "# The exact versions installed where this autograder was exported "
        f"(Python {platform.python_version()}); setup.sh installs these.",
    ]
    return "\n".join(header + pins) + "\n"


def export(assignment_id: str, output: Path, isolation: str = "bwrap", course: Course | None = None) -> Path:
    """Write the Gradescope autograder zip for one assignment (``isolation``: see the module),
    with the course's settings for it (points, limits, import rule, the tests' visibility)."""
    if isolation not in ("bwrap", "none"):
        raise ValueError(f"isolation must be bwrap or none, got {isolation!r}")
    settings = (course or Course(None, {})).settings(assignment_id)
    assignment = apply_settings(get_assignment(assignment_id), settings)
    requirements = pinned_requirements()
    suite = assignment.suite_path
    originals = originals_dir()
    kit = PACKAGE_DIR.parent / "minesweeper_kit"
    check = (BWRAP_CHECK if isolation == "bwrap" else NO_ISOLATION_CHECK).format(record=SANDBOX_CHECK)
    scripts = {
        "setup.sh": SETUP_SH.format(python=platform.python_version(), sandbox_check=check),
        "run_autograder": RUN_AUTOGRADER.format(
            assignment=assignment.id, isolation=isolation, record=SANDBOX_CHECK, course=COURSE_FILE
        ),
    }
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
        # What grading a student's own tests runs them against (the reference, the other correct
        # implementations and the planted bugs) and what names a misconception; all of it under the
        # instructor folder, which no sandbox sees. The source notebook is the notebook steps' reference.
        for folder in ("reference", "wheats", "chaffs"):
            shutil.copytree(instructor_dir() / folder, target / folder, ignore=_ignore)
        (target / "notebooks").mkdir()
        if assignment.notebook:  # the function-API terms have none: their reference is a file
            shutil.copy2(assignment.notebook_path, target / "notebooks" / assignment.notebook_path.name)
        (source / "requirements.txt").write_text(requirements)
        (source / COURSE_FILE).write_text(json.dumps(settings, indent=2, sort_keys=True) + "\n")
        output = Path(output)
        output.parent.mkdir(parents=True, exist_ok=True)
        with zipfile.ZipFile(output, "w", zipfile.ZIP_DEFLATED) as archive:
            for name, text in scripts.items():
                info = zipfile.ZipInfo(name)
                info.external_attr = 0o100755 << 16
                archive.writestr(info, text)
            for path in sorted(source.rglob("*")):
                if path.is_file():
                    archive.write(path, str(path.relative_to(source)))
    return output


def sandbox_check_text(record: Path | None) -> str:
    """What setup.sh's sandbox check found when the image was built, for the cause of a submission
    not graded because no sandbox starts: it tells a container that never allowed one from one
    that allowed it at build time only."""
    if record is None:
        return "no sandbox check was recorded (this run was not started by the exported run_autograder)"
    try:
        text = record.read_text(encoding="utf-8", errors="replace").strip()
    except OSError as error:
        return f"setup.sh left no sandbox check at {record} ({error.strerror}): did setup.sh run to its end?"
    return text or f"setup.sh's sandbox check at {record} is empty"


def _about_the_sandbox(cause: str) -> bool:
    """Whether a not-graded cause is a sandbox that did not start (see :func:`grading.grader_cause`)."""
    return cause.startswith(("the sandbox could not start", "the sandbox did not start"))


def run_on_platform(
    assignment_id: str,
    submission_dir: Path,
    results_path: Path,
    isolation: str = "bwrap",
    sandbox_check: Path | None = None,
    course_file: Path | None = None,
) -> int:
    """Grade the one submission Gradescope hands over and write its results.json; 0 when done.

    A submission not graded (a problem on the grader's side) leaves no results.json and returns 1,
    so the run fails where the instructor sees it instead of posting a score; the cause goes to
    stderr, the run's output, with what setup.sh's sandbox check (``sandbox_check``) recorded
    when the cause is a sandbox that did not start."""
    from .batch import grade_batch
    from .report import gradescope_results, not_graded_causes
    from .submission import refused_link

    settings: dict = {}
    if course_file is not None and Path(course_file).is_file():
        settings = json.loads(Path(course_file).read_text(encoding="utf-8"))
    course = Course(None, {assignment_id: settings})
    with tempfile.TemporaryDirectory() as temp:
        result = grade_batch(
            assignment_id,
            [submission_dir],
            Path(temp),
            progress=False,
            jobs=1,
            force=True,
            isolation=isolation,
            course=course,
            upload=True,
        )
    # One student's upload: the first folder of it graded, passing over links (never followed), so
    # a link in an uploaded repository does not stand in for the code beside it.
    report = next((r for r in result.reports if not refused_link(r.problem)), None)
    report = report or (result.reports[0] if result.reports else None)
    if report is not None and report.status == NOT_SUBMITTED:  # Gradescope needs a score: 0, and why
        data: dict = {"score": 0, "output": f"No file was graded: {report.submission}", "tests": []}
        Path(results_path).write_text(json.dumps(data, indent=2) + "\n")
        print(f"{assignment_id}: not submitted: {report.submission}")
        return 0
    if report is not None and not report.graded:
        with contextlib.suppress(FileNotFoundError):
            Path(results_path).unlink()  # never a score, not even one left by an earlier run
        causes = [cause for cause, _ in not_graded_causes([report])]
        for cause in causes:
            print(
                f"{assignment_id}: NOT GRADED (a problem on the grader's side; no score posted): {cause}",
                file=sys.stderr,
            )
        if any(_about_the_sandbox(cause) for cause in causes):
            print(f"{assignment_id}: when the image was built, {sandbox_check_text(sandbox_check)}", file=sys.stderr)
        return 1
    data = (
        gradescope_results(report)
        if report is not None
        else {
            "score": 0,
            "output": "No file was graded: nothing was submitted: no .py or .ipynb file in the upload.",
            "tests": [],
        }
    )
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
    parser.add_argument(
        "--sandbox-check",
        type=Path,
        metavar="FILE",
        help="setup.sh's record of its sandbox check, quoted when none starts",
    )
    parser.add_argument("--course", type=Path, metavar="FILE", help="the course's settings (course.json of the zip)")
    args = parser.parse_args(argv)
    return run_on_platform(
        args.assignment, args.submission, args.results, args.isolation, args.sandbox_check, args.course
    )


if __name__ == "__main__":
    sys.exit(main())
