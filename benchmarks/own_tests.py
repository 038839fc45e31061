"""Own tests: what grading a student's own tests adds to a whole `autograder grade` of a hypermines submission.

The submission is the hypermines reference as ``lab.py`` with a typical ``test.py`` beside it: a
``TestTiny`` class of five small tests (a 1-D, a 2-D and a 3-D game each dug twice with different
results, a render and a won 3-D game), all valid, meeting the step's requirement. Each pair grades
it twice through the real command with the same seed, once as the kit does by default (own tests
graded) and once with a ``course.toml`` that turns them off (``[assignments.hypermines]``,
``own_tests = false``, passed with ``--course``), the order alternating from pair to pair so that a
noisy moment hits both alike; the figures are medians over the pairs.

The own-tests part alone is read from each graded-on run's report (the ``seconds`` of its own-tests
summary, in ``.report.json``) and measured once more directly: ``own_tests.grade_own_tests`` on the
same tests, several times in one fresh process.
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
from typing import Any

from .report import machine, write_section

SEED = 4
STUDENT = "ann"

#: A typical student's test.py: five TestTiny tests, valid on every correct implementation.
TEST_PY = """\
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


if __name__ == "__main__":
    unittest.main()
"""
TESTS = 5

#: The course setting that turns the own tests off.
COURSE_OFF = "[assignments.hypermines]\nown_tests = false\n"


def _grade(base: Path, own_tests: bool) -> tuple[float, dict[str, Any]]:
    """Wall seconds of one whole `autograder grade` of the student folder, and its report. The
    command runs in ``base``, which holds no course.toml, so "on" is the kit's default."""
    results = base / "results"
    shutil.rmtree(results, ignore_errors=True)
    command = [
        sys.executable,
        "-m",
        "autograder.cli",
        "grade",
        "--assignment",
        "hypermines",
        str(base / STUDENT),
        "--results-dir",
        str(results),
        "--seed",
        str(SEED),
        "--no-progress",
        "-j",
        "1",
    ]
    if not own_tests:
        command += ["--course", str(base / "off.toml")]
    env = dict(os.environ, PYTHONDONTWRITEBYTECODE="1")
    started = time.perf_counter()
    done = subprocess.run(command, capture_output=True, text=True, cwd=base, env=env, timeout=900)
    seconds = time.perf_counter() - started
    assert done.returncode == 0 and "20/20" in done.stdout, done.stdout[-2000:] + done.stderr[-2000:]
    report = json.loads((results / "students" / STUDENT / ".report.json").read_text())
    own = report.get("own_tests") or {}
    if own_tests:
        assert own.get("valid") == TESTS and not own.get("unmet") and not own.get("problem"), own
    else:
        assert not own and all(t.get("id") != "own_tests" for t in report["tests"]), report["tests"][-1]
    return seconds, report


#: Times ``grade_own_tests`` on the student folder's tests (argv: folder, seed, repeats) in a fresh
#: process, as a grade's worker would call it; prints the times and what the last run found.
DIRECT = r"""
import json, sys, time
from pathlib import Path
from autograder.assignments import get_assignment
from autograder.own_tests import grade_own_tests, tests_source

assignment = get_assignment("hypermines")
lab = Path(sys.argv[1]) / "lab.py"
tests = tests_source(assignment, lab.read_text(), lab)
assert tests is not None and tests.origin == "test.py", tests
times, result = [], None
for _ in range(int(sys.argv[3])):
    started = time.perf_counter()
    result = grade_own_tests(assignment, tests, seed=int(sys.argv[2]))
    times.append(time.perf_counter() - started)
assert result is not None and not result.unmet, result.feedback()
print(json.dumps({"times": times, "valid": len(result.valid), "caught": len(result.caught)}))
"""


def _direct(base: Path, repeats: int) -> tuple[list[float], int, int]:
    """Wall seconds of ``grade_own_tests`` on the same tests, ``repeats`` times in one fresh process
    (the implementations read from the instructor folder each time, as in a grade), and what it
    found (valid tests, chaffs caught) on the last run."""
    command = [sys.executable, "-c", DIRECT, str(base / STUDENT), str(SEED), str(repeats)]
    done = subprocess.run(command, capture_output=True, text=True, cwd=base, timeout=900)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-3000:]
    found = json.loads(done.stdout.strip().splitlines()[-1])
    assert found["valid"] == TESTS, found
    return [float(x) for x in found["times"]], int(found["valid"]), int(found["caught"])


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--pairs", type=int, default=6, help="on/off pairs (median; at least 5)")
    parser.add_argument("--direct", type=int, default=5, help="direct runs of grade_own_tests (median)")
    parser.add_argument("--no-write", action="store_true", help="print, do not rewrite BENCHMARKS.md")
    args = parser.parse_args(argv)
    if args.pairs < 5:
        parser.error("--pairs must be at least 5")

    from autograder.assignments import get_assignment, instructor_dir
    from autograder.own_tests import implementations
    from minesweeper_kit.sandbox import status

    med = statistics.median
    loads = [os.getloadavg()[0]]
    with tempfile.TemporaryDirectory() as temp:
        base = Path(temp)
        folder = base / STUDENT
        folder.mkdir()
        assignment = get_assignment("hypermines")
        reference = instructor_dir() / "reference" / (assignment.reference_file or "hypermines.py")
        shutil.copyfile(reference, folder / "lab.py")
        (folder / "test.py").write_text(TEST_PY)
        (base / "off.toml").write_text(COURSE_OFF)
        library = implementations(assignment)
        wheats = sum(1 for i in library if i.correct)
        chaffs = len(library) - wheats

        wall: dict[str, list[float]] = {"on": [], "off": []}
        reported: dict[str, list[float]] = {"on": [], "off": []}
        own_seconds: list[float] = []
        for index in range(args.pairs):
            order = ("on", "off") if index % 2 == 0 else ("off", "on")
            for mode in order:
                seconds, report = _grade(base, mode == "on")
                wall[mode].append(seconds)
                reported[mode].append(float(report["execution_time"]))
                if mode == "on" and "seconds" in (report.get("own_tests") or {}):
                    own_seconds.append(float(report["own_tests"]["seconds"]))
            loads.append(os.getloadavg()[0])
        direct, valid, caught = _direct(base, args.direct)
        loads.append(os.getloadavg()[0])

    on, off = med(wall["on"]), med(wall["off"])
    rep_on, rep_off = med(reported["on"]), med(reported["off"])
    lines = [
        "## Own tests",
        "",
        f"Machine: {machine()}. Isolation here: {status().mode}. The machine is shared: load average "
        f"{med(loads):.1f} (from {min(loads):.1f} to {max(loads):.1f}) on {os.cpu_count()} cores during the run, "
        "so the figures carry other people's work too; the pairs alternate so that it falls on both columns alike.",
        "",
        f"`benchmarks/own_tests.py`: a whole `autograder grade --assignment hypermines` (seed {SEED}, one worker) of "
        f"the hypermines reference as `lab.py` with a `test.py` of {TESTS} `TestTiny` tests beside it (1-D, 2-D "
        f"and 3-D games each dug twice with different results, a render, a won game; all valid, requirement met), "
        f"with its own tests graded (the default) and turned off (`--course` with `[assignments.hypermines]` "
        f"`own_tests = false`), in {args.pairs} pairs whose order alternates; medians. The tests run against "
        f"{wheats} correct implementations and {chaffs} planted bugs, each in a sandbox of its own.",
        "",
        "| grading | median wall | median `execution_time` in the report |",
        "|---|---:|---:|",
        f"| own tests off (implementation only) | {off:.2f} s | {rep_off:.2f} s |",
        f"| own tests on (the default) | {on:.2f} s | {rep_on:.2f} s |",
        f"| added by the own tests | {on - off:+.2f} s | {rep_on - rep_off:+.2f} s |",
        f"| ratio on / off | {on / off:.2f} | {rep_on / rep_off:.2f} |",
        "",
    ]
    if own_seconds:
        lines.append(
            f"The own-tests part alone, as each graded-on run's report gives it (the `seconds` of its "
            f"own-tests summary): median {med(own_seconds):.2f} s (from {min(own_seconds):.2f} to "
            f"{max(own_seconds):.2f} s), {med(own_seconds) / rep_on:.0%} of that run's `execution_time`."
        )
    else:
        lines.append("The reports give no `seconds` for the own-tests part; see the direct measure below.")
    lines += [
        "",
        f"`own_tests.grade_own_tests` called directly on the same tests, {args.direct} times in one fresh process: "
        f"median "
        f"{med(direct):.2f} s (from {min(direct):.2f} to {max(direct):.2f} s); {valid} of {TESTS} tests valid, "
        f"{caught} of {chaffs} planted bugs caught. Per implementation that is "
        f"{med(direct) / (wheats + chaffs) * 1000:.0f} ms: a tests' sandbox started, the tests listed and run, "
        "their calls answered by the implementations' sandbox.",
    ]
    body = "\n".join(lines)
    print(body)
    if not args.no_write:
        write_section("own_tests", body)
    return 0


if __name__ == "__main__":
    sys.exit(main())
