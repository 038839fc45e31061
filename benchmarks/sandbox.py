"""Sandbox cost: the bubblewrap sandbox beside the earlier in-process-namespace sandbox, in one run.

Three ways to run the same child, measured side by side on the same machine in one run:

* **bwrap**: the kit's sandbox (`minesweeper_kit.sandbox`), a bubblewrap sandbox per child;
* **no isolation**: the same child code started as a plain subprocess (``isolation="none"``),
  the floor any process-per-submission design pays;
* **before**: the sandbox as it was before bubblewrap (namespaces and an audit hook set up by
  the child itself), taken from the repository's history at ``BEFORE_COMMIT`` and run from a
  temporary folder. Skipped, and said so, when the history is not there (a shallow clone).

Timed: one child's life (start, load a small submission, one call, close), and one whole
submission graded through the hidden hypermines suite, whose overhead is its time minus the
tests' own CPU time. Then a batch of copies of the reference graded with ``-j 2``.
"""

from __future__ import annotations

import argparse
import importlib.util
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .report import machine, write_section

BEFORE_COMMIT = "b74d09b"
ROOT = Path(__file__).resolve().parent.parent
SOURCE = "def add(a, b):\n    return a + b\n"


def _load_before(folder: Path):
    """The pre-bubblewrap sandbox module, from the repository's history, or None."""
    try:
        for name in ("sandbox.py", "_sandbox_child.py"):
            text = subprocess.run(["git", "show", f"{BEFORE_COMMIT}:autograder/{name}"], cwd=ROOT,
                                  capture_output=True, text=True, check=True).stdout
            (folder / name).write_text(text)
    except (OSError, subprocess.CalledProcessError):
        return None
    spec = importlib.util.spec_from_file_location("sandbox_before", folder / "sandbox.py")
    module = importlib.util.module_from_spec(spec)
    sys.modules["sandbox_before"] = module
    spec.loader.exec_module(module)
    return module


def _life(factory) -> float:
    started = time.perf_counter()
    box = factory()
    try:
        box.start()
        assert box.call("add", 2, 3) == 5
    finally:
        box.close()
    return time.perf_counter() - started


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=15, help="runs per measurement (median)")
    parser.add_argument("--students", type=int, default=20, help="submissions in the batch")
    parser.add_argument("--no-write", action="store_true", help="print, do not rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)

    from autograder.assignments import get_assignment
    from autograder.batch import grade_batch
    from autograder.check import reference_submission
    from autograder.grading import grade_submission
    from minesweeper_kit.sandbox import Sandbox, status

    med = statistics.median
    with tempfile.TemporaryDirectory() as temp:
        before = _load_before(Path(temp))
        kinds = {"bwrap": lambda: Sandbox(SOURCE), "no isolation": lambda: Sandbox(SOURCE, isolation="none")}
        if before is not None:
            kinds["before (in-child namespaces + audit hook)"] = lambda: before.Sandbox(SOURCE)
        lives: dict[str, list[float]] = {k: [] for k in kinds}
        for _ in range(args.repeats):  # interleaved, so a noisy moment hits every kind alike
            for kind, factory in kinds.items():
                lives[kind].append(_life(factory))

        assignment = get_assignment("hypermines")
        reference = reference_submission(assignment)
        overheads: dict[str, list[float]] = {"bwrap": [], "no isolation": []}
        for _ in range(max(3, args.repeats // 3)):
            for kind, isolation in (("bwrap", "bwrap"), ("no isolation", "none")):
                report = grade_submission(assignment, reference, seed=1, isolation=isolation)
                assert report.score == report.max_score, report.tests
                overheads[kind].append(report.execution_time - sum(t.seconds for t in report.tests))

        submitted = Path(temp) / "submitted"
        for index in range(args.students):
            folder = submitted / f"student{index:03d}"
            folder.mkdir(parents=True)
            (folder / "lab.py").write_text(reference.source)
        started = time.perf_counter()
        batch = grade_batch("hypermines", [submitted], Path(temp) / "results", jobs=2, seed=1, progress=False)
        batch_seconds = time.perf_counter() - started
        assert all(r.score == r.max_score for r in batch.reports), [r.score for r in batch.reports]

    found = status()
    lines = ["## Sandbox", "", f"Machine: {machine()}. Isolation here: {found.mode}.", "",
             f"`benchmarks/sandbox.py`, medians of {args.repeats} interleaved runs, load average "
             f"{os.getloadavg()[1]:.1f} on {os.cpu_count()} cores during the run.", "",
             "One child's life: start, load a two-line submission, one call, close.", "",
             "| sandbox | median | added over no isolation |", "|---|---:|---:|"]
    floor = med(lives["no isolation"])
    for kind, times in lives.items():
        lines.append(f"| {kind} | {med(times) * 1000:.0f} ms | {(med(times) - floor) * 1000:+.0f} ms |")
    if before is None:
        lines.append(f"| before | not measured: commit {BEFORE_COMMIT} is not in this clone's history | |")
    lines += ["", "One submission through the whole hidden hypermines suite (the plain reference), overhead = "
              "wall time minus the tests' own CPU time:", "",
              "| sandbox | overhead per submission |", "|---|---:|"]
    for kind, times in overheads.items():
        lines.append(f"| {kind} | {med(times):.2f} s |")
    added_child = (med(lives["bwrap"]) - floor) * 1000
    added_submission = (med(overheads["bwrap"]) - med(overheads["no isolation"])) * 1000
    verdict = "met" if added_submission <= 100 else "not met"
    lines += ["", f"Aim: at most 100 ms added per submission by the isolation. Measured: {added_child:+.0f} ms per "
              f"child started, {added_submission:+.0f} ms per submission graded (one child, about 1,600 requests, "
              f"each reading the child's CPU time from /proc): {verdict}. The earlier sandbox cannot grade through "
              "today's grader, so the 'before' column exists only for a child's life."]
    lines += ["", f"Batch: {args.students} copies of the reference, `grade_batch(..., jobs=2)` with bubblewrap: "
              f"{batch_seconds:.1f} s in all, {batch_seconds / args.students:.2f} s per submission."]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("sandbox", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
