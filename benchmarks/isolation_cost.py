"""Isolation cost: a whole `autograder grade` of a correct lab.py with bubblewrap against none, in one run.

Each pair grades the same file with the same seed twice through the real command, once with
bubblewrap and once with ``--isolation none``, the order alternating from pair to pair so that a
noisy moment hits both alike; the figures are medians over the pairs. Where the repository's
history holds ``BEFORE_COMMIT`` (the sandbox that walked the child's process tree through
``/proc`` at every reading), the same pairs are graded with that version too, from a temporary
copy.

Also counted, once per version in a separate run (counting slows it down): the ``/proc`` files
the grader reads to account for one submission's CPU time (opened, listed or re-read with
``pread``; the grader's own ``/proc/self`` left out).
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from .report import machine, write_section

#: The last commit whose sandbox read the child's CPU time by walking its process tree.
BEFORE_COMMIT = "46422a6"
ROOT = Path(__file__).resolve().parent.parent
SEED = 4

#: Grades one submission in this process with every /proc read counted; prints the count.
COUNT_READS = r"""
import builtins, json, os, sys
from pathlib import Path

counted, proc_fds = [0], set()
real_open, real_listdir, real_osopen, real_pread, real_close = builtins.open, os.listdir, os.open, os.pread, os.close


def is_proc(path):
    try:
        text = os.fsdecode(os.fspath(path))
    except TypeError:
        return False
    return text.startswith("/proc/") and not text.startswith(("/proc/self", "/proc/thread-self"))


def counting_open(file, *args, **kwargs):
    if is_proc(file):
        counted[0] += 1
    return real_open(file, *args, **kwargs)


def counting_listdir(path="."):
    if is_proc(path):
        counted[0] += 1
    return real_listdir(path)


def counting_osopen(path, *args, **kwargs):
    fd = real_osopen(path, *args, **kwargs)
    if is_proc(path):
        proc_fds.add(fd)
    return fd


def counting_pread(fd, *args):
    if fd in proc_fds:
        counted[0] += 1
    return real_pread(fd, *args)


def counting_close(fd):
    proc_fds.discard(fd)
    return real_close(fd)


builtins.open, os.listdir, os.open, os.pread, os.close = (
    counting_open, counting_listdir, counting_osopen, counting_pread, counting_close)
from autograder.assignments import get_assignment
from autograder.check import reference_submission
from autograder.grading import grade_submission

assignment = get_assignment("hypermines")
before = counted[0]
report = grade_submission(assignment, reference_submission(assignment), seed=int(sys.argv[1]))
assert report.score == report.max_score, [(t.id, t.output[:200]) for t in report.tests]
print(json.dumps({"reads": counted[0] - before}))
"""


#: The median wall time of one trivial call to a bubblewrap sandbox, in microseconds: what each of a
#: submission's ~1,600 requests costs the grader beyond the student's own code.
PER_CALL = r"""
import json, statistics, time
from minesweeper_kit.sandbox import Sandbox

rounds = []
with Sandbox("def echo(x):\n    return x\n") as box:
    for _ in range(5):
        started = time.perf_counter()
        for i in range(1000):
            box.call("echo", i, timeout=10)
        rounds.append((time.perf_counter() - started) / 1000 * 1e6)
print(json.dumps({"microseconds": statistics.median(rounds)}))
"""


def _per_call(tree: Path | None, folder: Path) -> float:
    """Microseconds per trivial request (see :data:`PER_CALL`), run in ``folder`` as :func:`_reads` is."""
    done = subprocess.run([sys.executable, "-c", PER_CALL], capture_output=True, text=True, env=_environment(tree),
                          cwd=folder, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return float(json.loads(done.stdout.strip().splitlines()[-1])["microseconds"])


def _before_tree(folder: Path) -> Path | None:
    """A copy of the repository at ``BEFORE_COMMIT`` (its packages only), or None without that history."""
    try:
        archive = subprocess.run(["git", "archive", BEFORE_COMMIT, "minesweeper_kit", "autograder"], cwd=ROOT,
                                 capture_output=True, check=True).stdout
        subprocess.run(["tar", "-x", "-C", str(folder)], input=archive, check=True)
    except (OSError, subprocess.CalledProcessError):
        return None
    return folder


def _environment(tree: Path | None) -> dict[str, str]:
    """This environment, with ``tree``'s packages first on the path (the command runs outside the
    checkout, so the current folder does not come before them)."""
    env = dict(os.environ)
    env["PYTHONDONTWRITEBYTECODE"] = "1"
    if tree is not None:  # ahead of the installed (editable) kit
        env["PYTHONPATH"] = str(tree)
    return env


def _grade(lab: Path, results: Path, isolation: str, tree: Path | None) -> float:
    """Wall seconds of one whole `autograder grade` of ``lab``, which must score full marks."""
    shutil.rmtree(results, ignore_errors=True)
    command = [sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines", str(lab),
               "--results-dir", str(results), "--seed", str(SEED), "--no-progress", "--isolation", isolation]
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, env=_environment(tree), cwd=lab.parent,
                          timeout=900)
    seconds = time.perf_counter() - started
    assert done.returncode == 0 and "20/20" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    return seconds


def _reads(tree: Path | None, folder: Path) -> int:
    """The /proc files read for one submission graded with bubblewrap (see the docstring); run in
    ``folder``, away from the checkout, so that ``tree`` comes first on the path."""
    done = subprocess.run([sys.executable, "-c", COUNT_READS, str(SEED)], capture_output=True, text=True,
                          env=_environment(tree), cwd=folder, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return int(json.loads(done.stdout.strip().splitlines()[-1])["reads"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=7, help="bwrap/none pairs per version (median; at least 5)")
    parser.add_argument("--no-before", action="store_true", help=f"do not measure commit {BEFORE_COMMIT}")
    parser.add_argument("--no-write", action="store_true", help="print, do not rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)
    if args.pairs < 5:
        parser.error("--pairs must be at least 5")

    from autograder.assignments import get_assignment, instructor_dir
    from minesweeper_kit.sandbox import status

    med = statistics.median
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        lab = base / "ann" / "lab.py"
        lab.parent.mkdir()
        reference = instructor_dir() / "reference" / (get_assignment("hypermines").reference_file or "hypermines.py")
        shutil.copyfile(reference, lab)
        (base / "before").mkdir()
        versions: dict[str, Path | None] = {"now": None}
        if not args.no_before:
            before = _before_tree(base / "before")
            if before is not None:
                versions[f"before ({BEFORE_COMMIT})"] = before
        times: dict[str, dict[str, list[float]]] = {v: {"bwrap": [], "none": []} for v in versions}
        loads = []
        for index in range(args.pairs):
            for version, tree in versions.items():
                order = ("bwrap", "none") if index % 2 == 0 else ("none", "bwrap")
                for isolation in order:
                    times[version][isolation].append(_grade(lab, base / "results", isolation, tree))
            loads.append(os.getloadavg()[0])
        reads = {version: _reads(tree, lab.parent) for version, tree in versions.items()}
        calls: dict[str, list[float]] = {version: [] for version in versions}
        for _ in range(3):  # interleaved, as the pairs are
            for version, tree in versions.items():
                calls[version].append(_per_call(tree, lab.parent))

    lines = ["## Isolation cost", "", f"Machine: {machine()}. Isolation here: {status().mode}.", "",
             f"`benchmarks/isolation_cost.py`: a whole `autograder grade` of a correct `lab.py` (the hypermines "
             f"reference, seed {SEED}), with bubblewrap and with `--isolation none`, in {args.pairs} pairs whose order "
             f"alternates; medians. Load average {med(loads):.1f} on {os.cpu_count()} cores during the run.", "",
             "| version | median wall, bwrap | median wall, none | added by bwrap | ratio "
             "| /proc reads per submission | one trivial request |",
             "|---|---:|---:|---:|---:|---:|---:|"]
    for version in versions:
        bwrap, none = med(times[version]["bwrap"]), med(times[version]["none"])
        lines.append(f"| {version} | {bwrap:.2f} s | {none:.2f} s | {bwrap - none:+.2f} s | {bwrap / none:.3f} | "
                     f"{reads[version]:,} | {med(calls[version]):.0f} µs |")
    if len(versions) == 1 and not args.no_before:
        lines.append(f"| before | not measured: commit {BEFORE_COMMIT} is not in this clone's history | | | | | |")
    lines += ["", "A trivial request is the median of 3 runs of 5 rounds of 1,000 calls to a bubblewrap sandbox "
              "(send an integer, the child echoes it back), each version in turn. The `/proc` reads are counted in one "
              "submission graded in-process with every `/proc` open, listing and `pread` counted."]
    lines += ["", "Before the no-new-process design, as first measured (same command, same machine): median wall "
              "5.98 s with bubblewrap against 5.41 s without, 0.58 s added; the sandbox benchmark above put "
              "138-275 ms of each submission on its ~1,600 `/proc` reads (each reading walked the child's process "
              "tree every 50 ms while a call ran, and once per request)."]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("isolation_cost", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
