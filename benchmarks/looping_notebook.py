"""A student whose `dig` loops for ever, through the whole course cycle: what it costs in wall time.

A course is built with the kit's release configuration (``minesweeper_kit.release``: 180 s a cell,
one budget of 300 s for the whole notebook under ``nbgrader autograde``). One student hands in step
4's notebook, every solution cell written, with ``while True: pass`` at the top of
``HyperMinesGame.dig``. Each run times the three commands of the README's cycle in that course:
``autograder grade`` (the kit's hidden tests, under its CPU-time budget), ``nbgrader autograde``
(the visible tests) and ``autograder grade`` again (which only records), and counts the cells
nbgrader stopped. The baseline is nbgrader's own ``Execute`` with the same per-cell timeout and no
budget: every cell that calls ``dig`` runs to the timeout. It is measured once with the per-cell
timeout cut to ``--baseline-timeout`` seconds (its cost grows with that timeout, one per cell), and
scaled to 180 s from the cells it stopped. BENCHMARKS.md's "Looping notebook" section is rewritten.

    python -m benchmarks.looping_notebook [--runs 3] [--baseline-timeout 20]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import nbformat

from benchmarks import report

ROOT = Path(__file__).resolve().parent.parent
STEP, NOTEBOOK, STUDENT = "hypermines", "04-nd-dig.ipynb", "looper"
LOOP = "        while True:  # the student's mistake: this never ends\n            pass\n"
PER_CELL = 180
#: What nbclient logs of each cell it stopped: the timeout it waited.
TIMEOUT_LOGGED = r"Timeout waiting for execute reply \((\d+)s\)"


def looping_notebook() -> nbformat.NotebookNode:
    """Step 4's source notebook with ``dig`` looping for ever (solutions kept: nbgrader runs them)."""
    notebook = nbformat.read(ROOT / "notebooks" / NOTEBOOK, as_version=4)
    for cell in notebook.cells:
        if "def dig(self, coordinates" in cell.source:
            head, rest = cell.source.split("def dig(self, coordinates", 1)
            signature, body = rest.split("\n", 1)
            cell.source = head + "def dig(self, coordinates" + signature + "\n" + LOOP + body
            return notebook
    raise RuntimeError(f"no dig in {NOTEBOOK}")


def course(folder: Path) -> Path:
    from minesweeper_kit.release import build_course

    build_course(folder, assignments=[STEP], progress=False)
    submitted = folder / "submitted" / STUDENT / STEP
    submitted.mkdir(parents=True)
    nbformat.write(looping_notebook(), submitted / NOTEBOOK)
    return folder


CPU: dict[str, float] = {}  #: CPU seconds of the last run of each command (it and every process it reaped)
LOG: dict[str, str] = {}  #: what the last run of each command printed


def timed(command: list[str], cwd: Path, name: str = "") -> float:
    """Wall seconds of one command; its CPU seconds (its processes', sandboxes and kernels included)
    go in :data:`CPU` under ``name``."""
    env = dict(os.environ, PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]))
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.monotonic()
    done = subprocess.run(command, cwd=cwd, env=env, capture_output=True, text=True)
    wall = time.monotonic() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    CPU[name] = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    LOG[name] = done.stdout + done.stderr
    if done.returncode not in (0, 4):  # 4: graded, the gradebook not written (the first run, before autograde)
        output = done.stdout[-2000:] + done.stderr[-2000:]
        raise RuntimeError(f"{' '.join(command)} failed ({done.returncode}):\n{output}")
    return wall


def stopped_cells(folder: Path) -> int:
    """How many cells of the student's autograded notebook nbgrader stopped at a timeout."""
    notebook = nbformat.read(folder / "autograded" / STUDENT / STEP / NOTEBOOK, as_version=4)
    return sum(
        any(o.get("output_type") == "error" and o.get("ename") == "CellTimeoutError" for o in c.get("outputs", []))
        for c in notebook.cells
    )


def student_cpu(folder: Path) -> float:
    """The CPU seconds of the student's code the kit counted (its tests' ``seconds``), which its
    budget of 100 s limits: its sandboxes are reaped through bubblewrap, out of this process's view."""
    record = json.loads((folder / "results" / "students" / STUDENT / ".report.json").read_text())
    return float(sum(test.get("seconds", 0.0) for test in record.get("tests", [])))


def cycle(folder: Path) -> dict[str, float]:
    grade = [sys.executable, "-m", "autograder", "grade", "--assignment", STEP, ".", "--results-dir", "results",
             "--no-progress", "-j", "1", "--force"]
    walls = {
        "kit": timed(grade, folder, "kit"),
        "kit counted": student_cpu(folder),
        "nbgrader": timed([sys.executable, "-m", "nbgrader", "autograde", STEP, "--create", "--force"], folder,
                          "nbgrader"),
        "waited": float(sum(int(s) for s in re.findall(TIMEOUT_LOGGED, LOG["nbgrader"]))),
        "record": timed(grade[:-1], folder, "record"),
        "stopped": float(stopped_cells(folder)),
    }
    return walls | {f"{key} cpu": CPU[key] for key in ("kit", "nbgrader", "record")}


def baseline(folder: Path, timeout: int) -> tuple[float, int]:
    """``nbgrader autograde`` with nbgrader's own Execute and ``timeout`` a cell: its time, cells stopped."""
    config = folder / "nbgrader_config.py"
    text = config.read_text()
    assert f"c.Execute.timeout = {PER_CELL}" in text
    config.write_text(
        text.replace(f"c.Execute.timeout = {PER_CELL}", f"c.Execute.timeout = {timeout}")
        + "from nbgrader.converters import Autograde\n"
        + "c.Autograde.autograde_preprocessors = Autograde.class_traits()['autograde_preprocessors'].default()\n"
    )
    try:
        seconds = timed([sys.executable, "-m", "nbgrader", "autograde", STEP, "--create", "--force"], folder, "base")
        waited = set(re.findall(TIMEOUT_LOGGED, LOG["base"]))
        if waited != {str(timeout)}:  # the configuration was not the one meant (nbgrader skips a broken one)
            raise RuntimeError(f"the baseline waited {sorted(waited)} s a cell, not {timeout} s")
        return seconds, stopped_cells(folder)
    finally:
        config.write_text(text)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.looping_notebook", description=__doc__.split("\n")[0])
    parser.add_argument("--runs", type=int, default=3)
    parser.add_argument("--baseline-timeout", type=int, default=20)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory(prefix="looping-") as temp:
        folder = course(Path(temp) / "course")
        runs = [cycle(folder) for _ in range(args.runs)]
        base_seconds, base_stopped = baseline(folder, args.baseline_timeout)
        shutil.rmtree(folder / "autograded", ignore_errors=True)
    load = os.getloadavg()[0]
    med = {key: statistics.median(r[key] for r in runs) for key in ("kit", "nbgrader", "record")}
    whole = [r["kit"] + r["nbgrader"] + r["record"] for r in runs]
    stopped = sorted({int(r["stopped"]) for r in runs})

    def row(label: str, key: str, cpu: str) -> str:
        values = ", ".join(f"{r[key]:.0f}" for r in runs)
        return f"| {label} | {med[key]:.0f} s | {values} | {statistics.median(r[cpu] for r in runs):.0f} s |"

    body = f"""## Looping notebook

Machine: {report.machine()}; load average {load:.1f} at the end.

`python -m benchmarks.looping_notebook --runs {args.runs} --baseline-timeout {args.baseline_timeout}` (not part of
`make bench`): one student whose `HyperMinesGame.dig` loops for ever (step 4, every other solution cell
written), in a course built with the kit's release configuration ({PER_CELL} s a cell, one budget of 300 s
for the whole notebook, 5 s a cell once it is spent), through the README's cycle; wall time, and CPU
time: for the kit's grade, the student's code as the kit counts it; for the others, the command's
processes (nbgrader's kernel included). The kit stops the loop at its CPU-time limits, so its wall
time grows with the machine's load; nbgrader's limits are wall time. Medians.

| command | median wall | runs | median CPU time |
|---|---:|---|---:|
{row("`autograder grade` (hidden tests, CPU budget 100 s)", "kit", "kit counted")}
{row("`nbgrader autograde` (visible tests)", "nbgrader", "nbgrader cpu")}
{row("`autograder grade` again (records in the gradebook)", "record", "record cpu")}
| the whole cycle | {statistics.median(whole):.0f} s | {", ".join(f"{w:.0f}" for w in whole)} | |

nbgrader stopped {", ".join(map(str, stopped))} cell(s) of the notebook at a timeout, waiting
{statistics.median(r["waited"] for r in runs):.0f} s in all for them (the timeouts nbclient logs, added up). Baseline,
nbgrader's own
`Execute` without the budget: at {args.baseline_timeout} s a cell it stopped {base_stopped} cells in
{base_seconds:.0f} s, one timeout per cell that calls `dig`; at the {PER_CELL} s a cell the release sets, that
is {base_stopped} x {PER_CELL} s = {base_stopped * PER_CELL / 60:.0f} minutes for this one student.
"""
    report.write_section("looping_notebook", body)
    print(body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
