"""Own tests: what grading a student's own tests costs, against what the tests take to run on their own.

Two suites of a hypermines ``test.py`` (a ``TestTiny`` class, all tests valid, the step's
requirement met), beside the hypermines reference as ``lab.py``:

* *typical*: five small tests (1-D, 2-D and 3-D games each dug twice with different results, a
  render, a won 3-D game), which run in a few milliseconds;
* *heavy*: the same five and three that make the implementation work (a 4-D flood of 4,094
  cells, a 4-D game's numbers and render, a 5-D flood of 3,124 cells and its renders).

For each suite:

* **own run time**: the suite run by pytest in one process against ``lab.py``, as a student runs
  it (``pytest.main`` timed, pytest's own import left out), CPU and wall;
* **grading cost**: ``own_tests.grade_own_tests`` on the same tests in a fresh process, as a
  grade's worker calls it, CPU (the grading process's and every sandbox's it started) and wall.

Each is measured on this tree ("after") and on a tree of an earlier commit ("before", by default
the last one with the earlier runner: one tests' sandbox per implementation, each test run once),
the runs of the two trees alternating; medians. The typical suite's cost is the fixed start (its
own run time is next to nothing); what the heavy suite costs more than the typical one, divided by
what it takes more to run on its own, is the cost per second of the tests' own run time.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import statistics
import subprocess
import sys
import tarfile
import tempfile
from io import BytesIO
from pathlib import Path

from .report import machine, write_section

SEED = 4
ROOT = Path(__file__).resolve().parent.parent

#: The last commit whose runner started one tests' sandbox per implementation and ran each test once.
BEFORE = "6dca0f5"

TYPICAL = """\
import unittest

import lab


class TestTiny(unittest.TestCase):
    def test_1d_dig_then_flood(self):
        game = lab.HyperMinesGame([5], [[0]])
        self.assertEqual(game.dig([1]), 1)
        self.assertEqual(game.state, "ongoing")
        self.assertEqual(game.dig([4]), 3)
        self.assertEqual(game.state, "victory")

    def test_2d_then_a_bomb(self):
        game = lab.HyperMinesGame([2, 3], [[0, 1]])
        self.assertEqual(game.dig([0, 0]), 1)
        self.assertEqual(game.state, "ongoing")
        self.assertEqual(game.dig([0, 1]), 1)
        self.assertEqual(game.state, "defeat")

    def test_3d_then_a_bomb(self):
        game = lab.HyperMinesGame([2, 2, 2], [[0, 0, 0]])
        self.assertEqual(game.dig([1, 1, 1]), 1)
        self.assertEqual(game.dig([0, 0, 0]), 1)
        self.assertEqual(game.state, "defeat")

    def test_render(self):
        game = lab.HyperMinesGame([1, 3], [[0, 0]])
        self.assertEqual(game.dig([0, 2]), 2)
        self.assertEqual(game.render(), [["_", "1", " "]])
        self.assertEqual(game.render(True), [[".", "1", " "]])

    def test_3d_won(self):
        game = lab.HyperMinesGame([1, 1, 3], [[0, 0, 0]])
        self.assertEqual(game.dig([0, 0, 2]), 2)
        self.assertEqual(game.state, "victory")
"""

HEAVY = (
    TYPICAL
    + """
    def test_4d_flood_wins(self):
        game = lab.HyperMinesGame([8, 8, 8, 8], [[0, 0, 0, 0], [7, 7, 7, 7]])
        self.assertEqual(game.dig([4, 4, 4, 4]), 4094)
        self.assertEqual(game.state, "victory")

    def test_4d_numbers_then_a_bomb(self):
        game = lab.HyperMinesGame([8, 8, 8, 8], [[0, 0, 0, 0]])
        self.assertEqual(game.dig([1, 1, 1, 1]), 1)
        self.assertEqual(game.render()[1][1][1][1], "1")
        self.assertEqual(game.dig([0, 0, 0, 0]), 1)
        self.assertEqual(game.state, "defeat")

    def test_5d_flood_then_render(self):
        game = lab.HyperMinesGame([5, 5, 5, 5, 5], [[0, 0, 0, 0, 0]])
        self.assertEqual(game.dig([4, 4, 4, 4, 4]), 3124)
        self.assertEqual(game.render()[0][0][0][0][0], "_")
        self.assertEqual(game.render(True)[0][0][0][0][0], ".")
"""
)

SUITES = {"typical": (TYPICAL, 5), "heavy": (HEAVY, 8)}

#: The suite run by pytest in this process, as a student runs it (argv: folder, repeats).
OWN = r"""
import json, os, sys, time
os.chdir(sys.argv[1])
sys.path.insert(0, sys.argv[1])
import pytest
walls, cpus = [], []
for _ in range(int(sys.argv[2])):
    wall, cpu = time.perf_counter(), time.process_time()
    code = pytest.main(["-q", "-p", "no:cacheprovider", "test.py"])
    walls.append(time.perf_counter() - wall)
    cpus.append(time.process_time() - cpu)
    assert code == 0, code
print(json.dumps({"wall": walls, "cpu": cpus}))
"""

#: ``grade_own_tests`` on the folder's tests, as a grade's worker calls it (argv: folder, seed),
#: with the CPU of every sandbox it started added up as each closes.
GRADE = r"""
import json, sys, time
from pathlib import Path
from minesweeper_kit.sandbox import parent

sandboxes = [0.0]
close = parent.Sandbox.close
def counted(self):
    sandboxes[0] += self.cpu_seconds()
    return close(self)
parent.Sandbox.close = counted

from autograder.assignments import get_assignment
from autograder.own_tests import grade_own_tests, tests_source

assignment = get_assignment("hypermines")
lab = Path(sys.argv[1]) / "lab.py"
tests = tests_source(assignment, lab.read_text(), lab)
wall, cpu = time.perf_counter(), time.process_time()
result = grade_own_tests(assignment, tests, seed=int(sys.argv[2]))
wall, cpu = time.perf_counter() - wall, time.process_time() - cpu
assert not result.unmet and not result.problem, result.feedback()
print(json.dumps({"wall": wall, "cpu": cpu + sandboxes[0], "valid": len(result.valid), "caught": len(result.caught),
                  "chaffs": len(result.chaffs)}))
"""


def _tree(revision: str, into: Path) -> Path | None:
    """The files of ``revision`` of this repository, written under ``into``; None when git cannot
    give them (a copy without the history)."""
    done = subprocess.run(["git", "archive", revision], cwd=ROOT, capture_output=True, timeout=300)
    if done.returncode != 0:
        return None
    with tarfile.open(fileobj=BytesIO(done.stdout)) as archive:
        archive.extractall(into, filter="data")
    return into


def _run(script: str, tree: Path, *args: str) -> dict:
    env = dict(os.environ, PYTHONPATH=str(tree), PYTHONDONTWRITEBYTECODE="1")
    done = subprocess.run(
        [sys.executable, "-c", script, *args], capture_output=True, text=True, cwd=tree, env=env, timeout=1800
    )
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=5, help="grading runs per suite and tree (median; at least 3)")
    parser.add_argument("--before", default=BEFORE, help="the earlier commit to compare with ('' for none)")
    parser.add_argument("--no-write", action="store_true", help="print, do not rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)
    if args.runs < 3:
        parser.error("--runs must be at least 3")

    from autograder.assignments import get_assignment, instructor_dir
    from minesweeper_kit.sandbox import status

    med = statistics.median
    loads = [os.getloadavg()[0]]
    own: dict[str, dict[str, float]] = {}
    cost: dict[tuple[str, str], dict[str, float]] = {}
    found: dict[tuple[str, str], dict] = {}
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        trees = {"after": ROOT}
        if args.before:
            before = _tree(args.before, base / "before")
            if before is not None:
                trees["before"] = before
        reference = instructor_dir() / "reference" / (get_assignment("hypermines").reference_file or "hypermines.py")
        for suite, (text, _count) in SUITES.items():
            folder = base / suite
            folder.mkdir()
            shutil.copyfile(reference, folder / "lab.py")
            (folder / "test.py").write_text(text)
            times = _run(OWN, ROOT, str(folder), str(args.runs))
            own[suite] = {"wall": med(times["wall"]), "cpu": med(times["cpu"])}
            runs: dict[str, list[dict]] = {name: [] for name in trees}
            for index in range(args.runs):
                order = list(trees) if index % 2 == 0 else list(reversed(trees))
                for name in order:
                    runs[name].append(_run(GRADE, trees[name], str(folder), str(SEED)))
                loads.append(os.getloadavg()[0])
            for name, measured in runs.items():
                cost[suite, name] = {key: med(m[key] for m in measured) for key in ("wall", "cpu")}
                found[suite, name] = measured[-1]
                assert name == "before" or measured[-1]["valid"] == SUITES[suite][1], measured[-1]

    lines = [
        "## Own tests",
        "",
        f"Machine: {machine()}. Isolation here: {status().mode}. The machine is shared: load average "
        f"{med(loads):.1f} (from {min(loads):.1f} to {max(loads):.1f}) on {os.cpu_count()} cores during the run, "
        "so wall times carry other people's work too; CPU times much less.",
        "",
        "`benchmarks/own_tests.py`: a hypermines `test.py` (`TestTiny`, every test valid, the requirement met) "
        "beside the reference as `lab.py`. *Typical*: five small tests (1-D, 2-D and 3-D games each dug twice, "
        "a render, a won game). *Heavy*: the same and three that make the implementation work (4-D floods of "
        "4,094 cells, a 4-D game's render, a 5-D flood of 3,124 cells and its renders). *Own run time*: the "
        "suite run by pytest against `lab.py` in one process (`pytest.main` timed). *Grading cost*: "
        "`own_tests.grade_own_tests` in a fresh process, CPU of the process and of every sandbox it started. "
        f"Medians of {args.runs} runs each; the trees' runs alternate.",
        "",
        "| suite | own run time (CPU / wall) | tree | grading cost (CPU / wall) | tests valid | planted bugs caught |",
        "|---|---:|---|---:|---:|---:|",
    ]
    for suite in SUITES:
        for name in trees:
            label = "this tree" if name == "after" else f"before ({args.before})"
            got = found[suite, name]
            lines.append(
                f"| {suite} | {own[suite]['cpu']:.2f} s / {own[suite]['wall']:.2f} s | {label} | "
                f"{cost[suite, name]['cpu']:.2f} s / {cost[suite, name]['wall']:.2f} s | {got['valid']} | "
                f"{got['caught']} of {got['chaffs']} |"
            )
    lines.append("")
    for name in trees:
        label = "This tree" if name == "after" else f"Before ({args.before})"
        extra = {key: cost["heavy", name][key] - cost["typical", name][key] for key in ("cpu", "wall")}
        more = {key: own["heavy"][key] - own["typical"][key] for key in ("cpu", "wall")}
        lines.append(
            f"{label}: a fixed start of {cost['typical', name]['cpu']:.1f} s CPU "
            f"({cost['typical', name]['wall']:.1f} s wall), the typical suite's cost; the heavy suite's three "
            f"tests add {extra['cpu']:.1f} s CPU ({extra['wall']:.1f} s wall) to it for {more['cpu']:.2f} s CPU "
            f"({more['wall']:.2f} s wall) of their own: {extra['cpu'] / more['cpu']:.1f} times their own run time "
            f"in CPU, {extra['wall'] / more['wall']:.1f} times in wall time."
        )
        lines.append("")
    lines += [
        "Where a heavy test's cost goes on this tree: one run on the reference and one on the other correct "
        "implementation (their second and third runs are answered from the first, the implementations' work not "
        "done again), then, for each planted bug, a replay of the tests in their order until one catches it (a "
        "replay stops at the bug's first different answer, and the run that confirms the catch starts from what the "
        "replay was told). A planted bug no test catches is replayed on every test, its heavy calls included: "
        "that, not the sandboxes, is what the heavy tests cost beyond twice their own run time, and it grows with "
        "the planted bugs the suite misses. The fixed start is a tests' sandbox (with pytest) per correct "
        "implementation and per bug a test answers otherwise, 0.2 s of CPU each.",
        "",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("own_tests", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
