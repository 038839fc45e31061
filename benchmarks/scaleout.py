"""Scale-out: one class graded with `-j 2` on this machine and on a two-worker dask cluster, side by side.

Generates a class of submissions for one assignment (200 make-board submissions by default): half
are the reference solution, half carry one bug each (a neighbour too many, rows that share one
list, coordinates in the wrong order, bombs counted twice, a cell its own neighbour), every file
distinct. Then grades the whole class, from an empty results folder and with the same seed, in two
modes, alternating run by run so a shared machine's load falls on both alike:

* **local**: ``grade_batch(..., jobs=2)``, as ``autograder grade -j 2``: a pool of two worker
  processes started for the batch;
* **dask**: ``grade_batch(..., dask_address=...)``, as ``autograder grade --dask ADDRESS``, on a
  ``LocalCluster`` of two worker processes with one thread each on 127.0.0.1, started once before
  the runs (its start is timed on its own).

Both modes must give every student the same grade; the benchmark stops if they do not.
``--assignment hypermines`` grades the HyperMines reference and the mutants of
``benchmarks/class_batch.py`` instead (about ten times slower per submission).

    python -m benchmarks.scaleout                          # rewrites its section of BENCHMARKS.md
    python -m benchmarks.scaleout --students 20 --repeats 1 --no-write
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import sys
import time
from pathlib import Path
from typing import Any

from autograder.assignments import get_assignment, instructor_dir
from autograder.batch import grade_batch
from autograder.check import reference_submission

from . import class_batch
from .grader import CpuMeter
from .report import machine, write_section

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261123

# (old, new): each replaces one piece of the make-board reference, which must appear exactly once.
MAKE_BOARD_BUGS = {
    "neighbour_too_many": ("if 0 <= value < dimensions[0]", "if 0 <= value <= dimensions[0]"),
    "shared_rows": (
        "return [make_board(dimensions[1:], elem) for _ in range(dimensions[0])]",
        "return [make_board(dimensions[1:], elem)] * dimensions[0]",
    ),
    "column_major": (
        "for first in range(dimensions[0]) for tail in rest]",
        "for tail in rest for first in range(dimensions[0])]",
    ),
    "bombs_count_twice": ("set_coords(board, cell, value + 1)", "set_coords(board, cell, value + 2)"),
    "own_neighbour": ("for tail in rest if (value,) + tail != itself]", "for tail in rest]"),
}


def _apply(source: str, old: str, new: str, name: str) -> str:
    if source.count(old) != 1:
        raise ValueError(f"bug {name}: the reference no longer holds {old!r} exactly once")
    return source.replace(old, new)


def generate(folder: Path, assignment: str, count: int) -> list[Path]:
    """``count`` submissions in ``folder``: even-numbered students hand in the reference, the others
    one bug each, the bugs taken in turn."""
    if assignment == "make-board":
        reference = reference_submission(get_assignment("make-board")).source
        bugged = [_apply(reference, old, new, name) for name, (old, new) in MAKE_BOARD_BUGS.items()]
    elif assignment == "hypermines":
        reference = (instructor_dir() / "reference" / "hypermines.py").read_text(encoding="utf-8")
        bugged = [class_batch.mutate(reference, [name]) for name in class_batch.MUTATIONS]
    else:
        raise ValueError(f"no generated class for {assignment!r}: make-board or hypermines")
    folder.mkdir(parents=True, exist_ok=True)
    paths = []
    for i in range(count):
        source = reference if i % 2 == 0 else bugged[(i // 2) % len(bugged)]
        path = folder / f"student{i:03d}.py"
        path.write_text(source + f"\n# handed in by student {i:03d}\n", encoding="utf-8")
        paths.append(path)
    return paths


def _grade(mode: str, paths: list[Path], results: Path, assignment: str, address: str, meter: CpuMeter) -> dict:
    """One whole batch in one mode: its wall and CPU time, each grade, and the time each job took
    where it ran (``execution_time``)."""
    if results.exists():
        shutil.rmtree(results)
    load = os.getloadavg()[0]
    cpu = meter.read()
    started = time.perf_counter()
    if mode == "local":
        result = grade_batch(assignment, paths, results, jobs=2, seed=SEED, progress=False, force=True)
    else:
        result = grade_batch(assignment, paths, results, dask_address=address, seed=SEED, progress=False, force=True)
    wall = time.perf_counter() - started
    cpu = meter.read() - cpu
    not_graded = [r.student for r in result.reports if not r.graded]
    if not_graded:
        raise RuntimeError(f"{mode}: {len(not_graded)} submission(s) not graded, e.g. {not_graded[0]}")
    return {
        "wall": wall,
        "cpu": cpu,
        "load": load,
        "scores": {r.student: r.score for r in result.reports},
        "job_seconds": [r.execution_time for r in result.reports],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--assignment", choices=["make-board", "hypermines"], default="make-board")
    parser.add_argument("--students", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=5, help="runs per mode (medians are reported)")
    parser.add_argument("--out", type=Path, default=ROOT / "bench-results" / "scaleout")
    parser.add_argument("--no-write", action="store_true", help="print the section, leave BENCHMARKS.md alone")
    args = parser.parse_args(argv)
    from distributed import LocalCluster

    if args.out.exists():
        shutil.rmtree(args.out)
    paths = generate(args.out / "submissions", args.assignment, args.students)
    runs: dict[str, list[dict[str, Any]]] = {"local": [], "dask": []}
    began = time.monotonic()
    meter = CpuMeter()  # joined before the cluster starts, so its workers and every sandbox are counted
    try:
        started = time.perf_counter()
        with LocalCluster(
            n_workers=2, threads_per_worker=1, processes=True, host="127.0.0.1", dashboard_address=None
        ) as cluster:
            cluster_start = time.perf_counter() - started
            for repeat in range(args.repeats):
                order = ["local", "dask"] if repeat % 2 == 0 else ["dask", "local"]
                for mode in order:
                    results = args.out / f"results-{mode}"
                    run = _grade(mode, paths, results, args.assignment, cluster.scheduler_address, meter)
                    run["order"] = order.index(mode)
                    runs[mode].append(run)
                    print(
                        f"run {repeat + 1}/{args.repeats} {mode}: {run['wall']:.1f} s, CPU {run['cpu']:.1f} s "
                        f"(load {run['load']:.1f})",
                        flush=True,
                    )
                if runs["local"][-1]["scores"] != runs["dask"][-1]["scores"]:
                    raise RuntimeError("the two modes gave different grades with the same seed")
    finally:
        complete = meter.complete
        meter.close()
    raw = {
        "assignment": args.assignment,
        "students": args.students,
        "repeats": args.repeats,
        "cluster_start": cluster_start,
        "runs": runs,
        "cpu_complete": complete,
        "elapsed": time.monotonic() - began,
        "machine": machine(),
        "cores": os.cpu_count(),
    }
    (args.out / "measurements.json").write_text(json.dumps(raw, indent=1))
    body = render(raw)
    if not args.no_write:
        write_section("scaleout", body)
    print(body)
    return 0


MODES = (
    ("local", "`-j 2`: a pool of 2 worker processes on this machine"),
    ("dask", "`--dask`: LocalCluster, 2 worker processes x 1 thread"),
)


def render(raw: dict[str, Any]) -> str:
    """The Scale-out section of BENCHMARKS.md from the measurements."""
    n, repeats, runs = raw["students"], raw["repeats"], raw["runs"]
    med = statistics.median
    first = runs["local"][0]["scores"]
    correct = sum(1 for score in first.values() if score == max(first.values()))
    loads = [run["load"] for mode in runs.values() for run in mode]
    rows = []
    for mode, label in MODES:
        walls, cpus = [run["wall"] for run in runs[mode]], [run["cpu"] for run in runs[mode]]
        jobs = [s for run in runs[mode] for s in run["job_seconds"]]
        rows.append(
            f"| {label} | {med(walls):.1f} s | {min(walls):.1f}-{max(walls):.1f} s | {med(walls) / n:.3f} s | "
            f"{med(cpus):.1f} s | {med(cpus) / n:.3f} s | {med(jobs):.3f} s |"
        )
    pairs = []
    for i, (local, dask) in enumerate(zip(runs["local"], runs["dask"]), start=1):
        first_mode = "`-j 2`" if local["order"] == 0 else "dask"
        pairs.append(
            f"| {i} | {first_mode} | {local['wall']:.1f} s | {dask['wall']:.1f} s | "
            f"{dask['wall'] / local['wall']:.2f} | {local['cpu']:.1f} s | {dask['cpu']:.1f} s | "
            f"{local['load']:.1f} / {dask['load']:.1f} |"
        )
    wall_ratio = med(d["wall"] / loc["wall"] for loc, d in zip(runs["local"], runs["dask"]))
    cpu_ratio = med(d["cpu"] / loc["cpu"] for loc, d in zip(runs["local"], runs["dask"]))
    cpu_note = (
        "CPU time is that of the benchmark's whole process tree (the `-j 2` pool, the cluster's workers, every "
        "sandbox), counted by a cpuacct cgroup the benchmark runs in, which the load of a shared machine inflates "
        "less than wall time."
        if raw["cpu_complete"]
        else "**CPU times leave out the sandboxes and the cluster's workers** (no cpuacct cgroup could be made: "
        "not root, or no cgroup v1)."
    )
    lines = [
        "## Scale-out",
        "",
        f"Machine: {raw['machine']}.",
        "",
        f"`benchmarks/scaleout.py`: a class of {n} generated `{raw['assignment']}` submissions ({correct} correct "
        "copies of the reference, the others one bug each), graded from an empty results folder with the same "
        "seed by `grade_batch(..., jobs=2)` (what `autograder grade -j 2` runs) and by `grade_batch(..., "
        "dask_address=...)` (what `autograder grade --dask ADDRESS` runs) on a dask `LocalCluster` of two worker "
        f"processes with one thread each on 127.0.0.1; {repeats} run{'s' if repeats != 1 else ''} per mode, "
        "the two modes one after the other in each run, in alternating order; medians below. Both modes gave "
        f"every student the same grade. The cluster was started once, before the runs, in {raw['cluster_start']:.1f} s "
        "(not counted below); the pool of `-j 2` is started by every batch, and its start is counted. "
        f"{cpu_note}",
        "",
        f"Load average (1 min) at the start of each batch: from {min(loads):.1f} to {max(loads):.1f} (median "
        f"{med(loads):.1f}) on {raw['cores']} cores; it counts the batch before, since the runs follow each other. "
        f"Wall times vary from run to run; each run's pair is below. Whole run: {raw['elapsed'] / 60:.0f} min.",
        "",
        "| mode | wall time, whole class | range | wall per submission | CPU time | CPU per submission | "
        "one job where it ran, median |",
        "|---|---:|---:|---:|---:|---:|---:|",
        *rows,
        "",
        "| run | first | `-j 2` wall | dask wall | dask / `-j 2` | `-j 2` CPU | dask CPU | "
        "load at start (`-j 2` / dask) |",
        "|---:|---|---:|---:|---:|---:|---:|---|",
        *pairs,
        "",
        f"dask / `-j 2`, median over the runs: {wall_ratio:.2f}x the wall time, {cpu_ratio:.2f}x the CPU time. "
        '"One job where it ran" is the report\'s `execution_time`, the time `grade_submission` took in the worker; '
        "the rest of a submission's share is the batch's own work (reading the submissions, writing each result, "
        "and for dask sending each job and its report through the scheduler). Both modes run two grading "
        "processes on the same two cores, so the difference is the cost of each way of running the jobs (a pool "
        "started for each batch, against workers that stay up and a round trip through the scheduler per job), "
        'not more computing power: that comes from more machines (see "Grading on a dask cluster" in README.md).',
    ]
    return "\n".join(lines)


if __name__ == "__main__":
    sys.exit(main())
