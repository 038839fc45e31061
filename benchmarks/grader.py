"""Grader speed: the autograder beside `nbgrader autograde`, on the same notebook, in one run.

Both graders take the solved `04-nd-dig` notebook as every student's submission, in one
temporary nbgrader course with two assignments:

* ``hypermines``: the course notebook as it is. nbgrader runs it with its light visible tests
  while the autograder runs the hidden suite, so the two do not do the same work (the figures
  this benchmark has always reported).
* ``hypermines_equal``: the same notebook plus one hidden autograder-tests cell per test of the
  hidden suite (`autograder/instructor/suites/test_hypermines.py`), as an nbgrader course would
  write them. The cells are generated from the suite itself: each suite test runs here against
  the instructor's reference through a recording stand-in for the sandbox, which keeps every
  call the suite makes and every value it reads (and checks against the originals or the
  engine); the hidden cell replays those calls on the student's class and compares each value
  the same way. So nbgrader checks the same cases as the autograder: the original lab's tests
  (data/originals/hypermines), the 27,000- and 30,000-cell size games, the edge, rule and seeded random
  cases (the grading run's seed).

Timed: one notebook through each command line (process start included), batches of students
(`autograder grade -j 2` against `nbgrader autograde`, one kernel after another), wall time and
the CPU time of the grader's process tree. The measurements are interleaved, run by run, so the
load of a shared machine falls on both sides alike.
"""

from __future__ import annotations

import argparse
import contextlib
import copy
import csv
import inspect
import io
import json
import os
import resource
import runpy
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from datetime import datetime
from pathlib import Path
from typing import Any

from autograder.assignments import get_assignment, instructor_dir, originals_dir
from autograder.check import reference_submission
from autograder.grading import grade_submission
from autograder.instructor.suites import test_hypermines as suite
from autograder.submission import read_submission
from minesweeper_kit.sandbox.parent import Handle

from .report import machine, write_section

PYTHON = sys.executable
BIN = Path(sys.executable).parent
ASSIGNMENT = "hypermines"
RAW = Path(__file__).resolve().parent.parent / "bench-results" / "grader" / "measurements.json"
EQUAL = "hypermines_equal"
SEED = 1


# ----------------------------------------------------------------------------- running commands


class CpuMeter:
    """CPU seconds used by this process and everything it starts, sandboxes included.

    The sandbox kills its bubblewrap process group, so the student's processes are reaped by
    nobody this process waits for and `getrusage` never sees them. A cpuacct cgroup (cgroup v1,
    as root) that this process joins counts every descendant, reaped or not. Without one, the
    meter falls back to `getrusage`, which then leaves the sandboxes out (``complete`` is False).
    """

    BASE = Path("/sys/fs/cgroup/cpuacct")

    def __init__(self) -> None:
        self.path: Path | None = None
        path = self.BASE / f"grader-benchmark-{os.getpid()}"
        try:
            path.mkdir()
            (path / "cgroup.procs").write_text(str(os.getpid()))
            self.path = path
        except OSError:
            with contextlib.suppress(OSError):
                path.rmdir()

    @property
    def complete(self) -> bool:
        return self.path is not None

    def read(self) -> float:
        if self.path is not None:
            return int((self.path / "cpuacct.usage").read_text()) / 1e9
        own = resource.getrusage(resource.RUSAGE_SELF)
        children = resource.getrusage(resource.RUSAGE_CHILDREN)
        return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime

    def close(self) -> None:
        if self.path is None:
            return
        with contextlib.suppress(OSError):
            (self.BASE / "cgroup.procs").write_text(str(os.getpid()))
        for _ in range(50):  # killed sandboxes may take a moment to leave
            try:
                self.path.rmdir()
                break
            except OSError:
                time.sleep(0.1)
        self.path = None


METER: CpuMeter | None = None


def _cpu() -> float:
    return METER.read() if METER is not None else 0.0


def _run(command: list[str], cwd: Path) -> tuple[float, float]:
    """Wall seconds and CPU seconds (the command and everything it starts) of one command."""
    env = {**os.environ, "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}"}
    cpu = _cpu()
    started = time.perf_counter()
    result = subprocess.run(command, cwd=cwd, capture_output=True, text=True, timeout=7200, env=env)
    elapsed = time.perf_counter() - started
    if result.returncode != 0:
        raise RuntimeError(f"{' '.join(command)} failed:\n{result.stdout[-2000:]}\n{result.stderr[-2000:]}")
    return elapsed, _cpu() - cpu


# ----------------------------------------------------------------------------- hidden cells from the suite


def _plain(value: Any) -> Any:
    """A value as it crosses the sandbox and as a notebook cell will read it: JSON data."""
    return json.loads(json.dumps(value))


class RecordingBox:
    """Stands in for the sandbox while a suite test runs against the reference solution.

    Every call the suite makes is kept as a step, with each value it reads back; the suite checks
    those values against the originals or the engine as usual, so a test that passes here has
    recorded exactly what it expects. `printed_by_method` (dump) reaches the sandbox through
    ``_call``; its output is kept as the suite compares it: non-empty lines, spaces not counted.
    """

    def __init__(self, namespace: dict[str, Any]):
        self.namespace = namespace
        self.names = [name for name in namespace if not name.startswith("_")]
        self.objects: list[Any] = []
        self.steps: list[list[Any]] = []

    def _object(self, handle: Handle) -> Any:
        return self.objects[handle.id]

    def call(self, name: str, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError(f"the recording box takes no keyword arguments, got {sorted(kwargs)}")
        value = self.namespace[name](*copy.deepcopy(_plain(list(args))))
        self.objects.append(value)
        self.steps.append(["new", len(self.objects) - 1, name, _plain(list(args))])
        return Handle(len(self.objects) - 1, type(value).__name__)

    def set_attr(self, handle: Handle, name: str, value: Any, **_: Any) -> None:
        setattr(self._object(handle), name, copy.deepcopy(_plain(value)))
        self.steps.append(["set", handle.id, name, _plain(value)])

    def get_attr(self, handle: Handle, name: str, **_: Any) -> Any:
        value = _plain(getattr(self._object(handle), name))
        self.steps.append(["get", handle.id, name, value])
        return value

    def call_method(self, handle: Handle, name: str, *args: Any, **kwargs: Any) -> Any:
        if kwargs:
            raise ValueError(f"the recording box takes no keyword arguments, got {sorted(kwargs)}")
        value = _plain(getattr(self._object(handle), name)(*copy.deepcopy(_plain(list(args)))))
        self.steps.append(["method", handle.id, name, _plain(list(args)), value])
        return value

    def _call(self, request: dict, args: tuple, kwargs: dict, timeout: Any, capture: bool,
              full: bool = False) -> dict:
        if request.get("op") != "call" or "handle" not in request or not full or kwargs:
            raise ValueError(f"the recording box only replays a method call with its output, got {request}")
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            value = getattr(self.objects[request["handle"]], request["name"])(*copy.deepcopy(_plain(list(args))))
        printed = out.getvalue()
        lines = [suite.folded(" ".join(line.split())) for line in printed.splitlines() if line.strip()]
        self.steps.append(["printed", request["handle"], request["name"], _plain(list(args)), lines])
        return {"value": _plain(value), "stdout": printed}


def suite_tests() -> list[tuple[str, Any]]:
    """The suite's test functions, in the order pytest runs them (their order in the file)."""
    tests = [(name, fn) for name, fn in vars(suite).items() if name.startswith("test_") and callable(fn)]
    return sorted(tests, key=lambda item: item[1].__code__.co_firstlineno)


def _points(function: Any) -> float:
    for mark in getattr(function, "pytestmark", []):
        if mark.name == "points":
            return float(mark.args[0])
    return 1.0


def record_suite(data_dir: Path, seed: int) -> list[dict[str, Any]]:
    """Run every suite test on the reference through a :class:`RecordingBox`; one JSON file of
    steps per test in ``data_dir``. Raises if the reference fails a test (then the recorded
    values would not be what the suite expects)."""
    reference = instructor_dir() / "reference" / "hypermines.py"
    fixtures = {"originals": originals_dir(), "seed": seed}
    data_dir.mkdir(parents=True, exist_ok=True)
    tests = []
    for name, function in suite_tests():
        box = RecordingBox(runpy.run_path(str(reference)))
        arguments = {p: (box if p == "box" else fixtures[p]) for p in inspect.signature(function).parameters}
        function(**arguments)
        path = data_dir / f"{name}.json"
        path.write_text(json.dumps(box.steps))
        doc = (function.__doc__ or name).strip().splitlines()[0]
        tests.append({"name": name, "title": doc, "points": _points(function), "path": str(path),
                      "steps": len(box.steps)})
    return tests


REPLAY = '''
import json as _hidden_json


{folded}

def _hidden_replay(path):
    """Make the calls the hidden suite made, in its order, and compare every value it read."""
    with open(path) as source:
        steps = _hidden_json.load(source)
    games = {{}}
    for number, step in enumerate(steps, start=1):
        kind, key, name = step[0], step[1], step[2]
        if kind == "new":
            games[key] = globals()[name](*step[3])
            continue
        if kind == "set":
            setattr(games[key], name, step[3])
            continue
        if kind == "get":
            question, got, expected = f"step {{number}}: game {{key}}.{{name}}", getattr(games[key], name), step[3]
        elif kind == "method":
            question = f"step {{number}}: game {{key}}.{{name}}(*{{step[3]!r}})"
            got, expected = getattr(games[key], name)(*step[3]), step[4]
        else:
            question = f"step {{number}}: what game {{key}}.{{name}}() printed (spaces not counted)"
            printed = printed_by(getattr(games[key], name), *step[3])
            got = [folded(" ".join(line.split())) for line in printed.splitlines() if line.strip()]
            expected = step[4]
        try:
            same = _hidden_json.dumps(got) == _hidden_json.dumps(expected)
        except (TypeError, ValueError):
            same = False
        if not same:
            check(question, got, expected)
'''


def hidden_cells(tests: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One locked autograder-tests cell per suite test; the first also defines the replay."""
    cells = []
    for index, test in enumerate(tests):
        body = REPLAY.format(folded=inspect.getsource(suite.folded)).strip() + "\n\n" if index == 0 else ""
        points = test["points"]
        source = (f"# Hidden test \"{test['title']}\" ({points:g} point{'s' if points != 1 else ''}).\n"
                  "### BEGIN HIDDEN TESTS\n" + body + f"_hidden_replay({test['path']!r})\n### END HIDDEN TESTS\n")
        cells.append({
            "cell_type": "code", "execution_count": None, "outputs": [], "source": source,
            "metadata": {"nbgrader": {"grade": True, "grade_id": f"hidden_{test['name']}", "locked": True,
                                      "points": points, "schema_version": 3, "solution": False,
                                      "task": False}}})
    return cells


# ----------------------------------------------------------------------------- the nbgrader course


def names(count: int) -> list[str]:
    return [f"student{i:03d}" for i in range(count)]


def make_course(root: Path, notebook: Path, students: int, equal_students: int,
                tests: list[dict[str, Any]]) -> None:
    """An nbgrader course: source/, the generated releases, submitted/<student>/<assignment>/.

    ``hypermines`` is submitted as the solved source notebook (as before); ``hypermines_equal``
    as its release with the solution cells filled in (the hidden cells stripped, as a student
    gets them; autograde puts them back)."""
    (root / "source" / ASSIGNMENT).mkdir(parents=True)
    shutil.copy(notebook, root / "source" / ASSIGNMENT / notebook.name)
    solved = json.loads(notebook.read_text())
    equal = copy.deepcopy(solved)
    # the notebook's own hidden-tests cell (which fails under nbgrader autograde on purpose) gives way
    # to nbgrader's own hidden tests, the baseline measured here
    equal["cells"] = [c for c in equal["cells"] if c["metadata"].get("nbgrader", {}).get("grade_id") != "hidden-tests"]
    equal["cells"] += hidden_cells(tests)
    (root / "source" / EQUAL).mkdir(parents=True)
    (root / "source" / EQUAL / notebook.name).write_text(json.dumps(equal, indent=1))
    everyone = names(max(students, equal_students))
    (root / "nbgrader_config.py").write_text(
        "c = get_config()\n"
        f"c.CourseDirectory.root = {str(root)!r}\n"
        f"c.CourseDirectory.db_assignments = [dict(name={ASSIGNMENT!r}), dict(name={EQUAL!r})]\n"
        f"c.CourseDirectory.db_students = [{', '.join(f'dict(id={s!r})' for s in everyone)}]\n"
        "c.ExecutePreprocessor.timeout = 600\n")
    for assignment in (ASSIGNMENT, EQUAL):
        _run([str(BIN / "nbgrader"), "generate_assignment", assignment, "--force"], root)
    release = json.loads((root / "release" / EQUAL / notebook.name).read_text())
    solutions = {c["metadata"]["nbgrader"]["grade_id"]: c["source"] for c in solved["cells"]
                 if c["metadata"].get("nbgrader", {}).get("solution")}
    for cell in release["cells"]:
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id")
        if grade_id in solutions:
            cell["source"] = solutions[grade_id]
    for student in names(students):
        folder = root / "submitted" / student / ASSIGNMENT
        folder.mkdir(parents=True)
        shutil.copy(notebook, folder / notebook.name)
    for student in names(equal_students):
        folder = root / "submitted" / student / EQUAL
        folder.mkdir(parents=True)
        (folder / notebook.name).write_text(json.dumps(release, indent=1))


def batch_folder(root: Path, notebook: Path, students: int) -> Path:
    """A folder of ``students`` sub-folders, each holding the solved notebook: what the autograder
    grades in a batch (nbgrader's submitted/ holds both assignments, and more students)."""
    for student in names(students):
        (root / student).mkdir(parents=True)
        shutil.copy(notebook, root / student / notebook.name)
    return root


def _stamp(text: str) -> float:
    return datetime.fromisoformat(text.replace("Z", "+00:00")).timestamp()


def cell_seconds(autograded: Path, hidden_prefix: str = "hidden_") -> tuple[float, float]:
    """Seconds nbgrader's kernel spent in the hidden cells and in every other cell of one
    autograded notebook (from the timing nbclient writes into each cell's metadata)."""
    hidden = other = 0.0
    for cell in json.loads(autograded.read_text())["cells"]:
        timing = cell.get("metadata", {}).get("execution", {})
        if "iopub.execute_input" not in timing or "shell.execute_reply" not in timing:
            continue
        spent = _stamp(timing["shell.execute_reply"]) - _stamp(timing["iopub.execute_input"])
        grade_id = cell["metadata"].get("nbgrader", {}).get("grade_id") or ""
        if grade_id.startswith(hidden_prefix):
            hidden += spent
        else:
            other += spent
    return hidden, other


def autograded_scores(course: Path, assignment: str, student: str) -> tuple[float, float]:
    """Points given and possible for one autograded student, read from nbgrader's gradebook."""
    from nbgrader.api import Gradebook

    with Gradebook(f"sqlite:///{course / 'gradebook.db'}") as gradebook:
        submission = gradebook.find_submission(assignment, student)
        return submission.score, submission.max_score


# ----------------------------------------------------------------------------- the measurements


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per measurement (median)")
    parser.add_argument("--students", type=int, default=4, help="students in the light-work batch")
    parser.add_argument("--batch", type=int, default=200, help="students in the autograder's equal-work batch")
    parser.add_argument("--nbgrader-batch", type=int, default=10,
                        help="students in nbgrader's equal-work batch (extrapolated to --batch when smaller)")
    parser.add_argument("--batch-runs", type=int, default=1,
                        help="runs of the --batch batch (the first runs; it is the longest measurement)")
    parser.add_argument("--no-write", action="store_true", help="print, do not rewrite BENCHMARKS.md")
    parser.add_argument("--raw", type=Path, default=RAW,
                        help="where every run's measurements are kept (rewritten after each run)")
    parser.add_argument("--render-only", action="store_true",
                        help="measure nothing: rewrite the section from the measurements kept in --raw")
    args = parser.parse_args(argv)
    if args.render_only:
        body = render_raw(json.loads(args.raw.read_text()))
        print(body)
        if not args.no_write:
            write_section("grader", body)
        return 0
    global METER
    METER = CpuMeter()
    try:
        return measure(args, METER)
    finally:
        METER.close()


def measure(args: argparse.Namespace, meter: CpuMeter) -> int:
    """Every measurement, interleaved run by run; the section is rewritten after each run."""
    assignment = get_assignment(ASSIGNMENT)
    notebook = assignment.notebook_path
    grader = str(BIN / "autograder")
    nbgrader = str(BIN / "nbgrader")
    started = time.monotonic()
    loads: list[float] = []
    with tempfile.TemporaryDirectory() as temp:
        temp_path = Path(temp)
        tests = record_suite(temp_path / "hidden", SEED)
        course = temp_path / "course"
        make_course(course, notebook, args.students, args.nbgrader_batch, tests)
        one = course / "submitted" / "student000" / ASSIGNMENT / notebook.name
        light = batch_folder(temp_path / "light", notebook, args.students)
        batch = batch_folder(temp_path / "batch", notebook, args.batch)
        results = temp_path / "results"
        empty = temp_path / "empty" / "empty.py"
        empty.parent.mkdir()
        empty.write_text('"""A submission that defines nothing: only the fixed cost is left."""\n')
        submission = read_submission("student000", one, assignment.keeps_import)
        nothing = read_submission("empty", empty, assignment.keeps_import)
        reference = reference_submission(assignment)

        def ours(paths: list[Path], jobs: int, students: int) -> tuple[float, float]:
            gradebook = temp_path / "gradebook.csv"
            timed = _run([grader, "grade", "--assignment", ASSIGNMENT, *map(str, paths), "--results-dir",
                          str(results), "--force", "-j", str(jobs), "--no-progress", "--seed", str(SEED),
                          "--csv", str(gradebook)], course)
            rows = list(csv.DictReader(gradebook.open()))
            if len(rows) != students or any(row["score"] != row["max_score"] for row in rows):
                raise RuntimeError(f"expected {students} students with full marks, got {rows}")
            return timed

        def theirs(name: str, student: str | None = None) -> tuple[float, float]:
            return _run([nbgrader, "autograde", name, "--force"] + (["--student", student] if student else []),
                        course)

        def in_process(graded: Any, full_marks: bool) -> tuple[float, float, float]:
            """Wall, CPU (grader and sandbox) and the student's CPU of one in-process grade."""
            cpu = _cpu()
            report = grade_submission(assignment, graded, seed=SEED)
            if (report.score == report.max_score) != full_marks or (not full_marks and report.score):
                raise RuntimeError(f"unexpected score {report.score} of {report.max_score}: {report.tests}")
            return report.execution_time, _cpu() - cpu, sum(t.seconds for t in report.tests)

        m: dict[str, list[Any]] = {}
        for repeat in range(args.repeats):
            print(f"run {repeat + 1}/{args.repeats} ({time.monotonic() - started:.0f} s)", flush=True)
            steps = [
                ("ours_one", lambda: ours([one], 1, 1)),
                ("theirs_one", lambda: theirs(ASSIGNMENT, "student000")),
                ("theirs_equal_one", lambda: theirs(EQUAL, "student000")),
                ("ours_batch", lambda: ours([light], 2, args.students)),
                ("theirs_batch", lambda: theirs(ASSIGNMENT)),
                ("inproc_solved", lambda: in_process(submission, True)),
                ("inproc_empty", lambda: in_process(nothing, False)),
                ("inproc_reference", lambda: in_process(reference, True)),
                ("theirs_equal_batch", lambda: theirs(EQUAL)),
                ("ours_big", lambda: ours([batch], 2, args.batch)),
            ]
            if repeat >= args.batch_runs:
                steps = [(key, step) for key, step in steps if key != "ours_big"]
            for key, step in steps:
                loads.append(os.getloadavg()[0])
                m.setdefault(key, []).append(step())
                print(f"  {key}: " + ", ".join(f"{x:.2f}" for x in m[key][-1]), flush=True)
            loads.append(os.getloadavg()[0])
            if repeat == 0:
                scores = {name: autograded_scores(course, name, "student000") for name in (ASSIGNMENT, EQUAL)}
                if scores[EQUAL][0] != scores[EQUAL][1]:
                    raise RuntimeError(f"nbgrader did not give the solved notebook full marks: {scores}")
            splits = [cell_seconds(course / "autograded" / s / EQUAL / notebook.name)
                      for s in names(args.nbgrader_batch)]
            raw = {"measurements": m, "splits": splits, "scores": scores, "tests": tests, "loads": loads,
                   "students": args.students, "batch": args.batch, "nbgrader_batch": args.nbgrader_batch,
                   "runs": repeat + 1, "elapsed": time.monotonic() - started, "cpu_complete": meter.complete,
                   "machine": machine(), "nbgrader": _nbgrader_version()}
            args.raw.parent.mkdir(parents=True, exist_ok=True)
            args.raw.write_text(json.dumps(raw, indent=1))
            body = render_raw(raw)
            if not args.no_write:
                write_section("grader", body)
    print(body)
    return 0


def render_raw(raw: dict[str, Any]) -> str:
    """The Grader section of BENCHMARKS.md from the measurements kept so far."""
    m, splits, scores, tests, loads = raw["measurements"], raw["splits"], raw["scores"], raw["tests"], raw["loads"]
    runs, elapsed, cpu_complete = raw["runs"], raw["elapsed"], raw["cpu_complete"]
    args = argparse.Namespace(students=raw["students"], batch=raw["batch"], nbgrader_batch=raw["nbgrader_batch"])
    med = statistics.median
    wall = {k: med(v[0] for v in runs_) for k, runs_ in m.items()}
    cpu = {k: med(v[1] for v in runs_) for k, runs_ in m.items()}
    student = med(v[2] for v in m["inproc_solved"])
    n, k, big = args.students, args.nbgrader_batch, args.batch
    hidden_cell = med(s[0] for s in splits)
    other_cells = med(s[1] for s in splits)
    per_equal, per_equal_cpu = wall["theirs_equal_batch"] / k, cpu["theirs_equal_batch"] / k
    per_big, per_big_cpu = wall["ours_big"] / big, cpu["ours_big"] / big
    visible = scores[EQUAL][1] - sum(t["points"] for t in tests)

    def row(label: str, ours: str, theirs: str) -> str:
        return (f"| {label} | {wall[ours]:.2f} s | {wall[theirs]:.2f} s | {wall[theirs] / wall[ours]:.1f}x | "
                f"{cpu[ours]:.2f} s | {cpu[theirs]:.2f} s | {cpu[theirs] / cpu[ours]:.1f}x |")

    estimate = k != big
    nb_batch = f"{per_equal * big:.0f} s (estimate)" if estimate else f"{wall['theirs_equal_batch']:.0f} s"
    nb_batch_cpu = f"{per_equal_cpu * big:.0f} s (estimate)" if estimate else f"{cpu['theirs_equal_batch']:.0f} s"
    header = ["| measurement | autograder | nbgrader autograde | nbgrader / autograder | autograder CPU | "
              "nbgrader CPU | CPU ratio |", "|---|---:|---:|---:|---:|---:|---:|"]
    lines = [
        "## Grader", "", f"Machine: {raw['machine']}.", "",
        *([] if cpu_complete else [
            "**CPU times below leave out the sandboxes** (no cpuacct cgroup could be made: not root, or no "
            "cgroup v1), so the autograder's CPU figures are too low.", ""]),
        "`benchmarks/grader.py`: the solved `04-nd-dig` notebook as every student's submission in one temporary "
        "nbgrader course, graded by `autograder grade --assignment hypermines` and by `nbgrader autograde` "
        f"(nbgrader {raw['nbgrader']}); medians of {runs} runs (the batch of {args.batch}: "
        f"{len(m['ours_big'])} run{'s' if len(m['ours_big']) != 1 else ''}), the two sides interleaved within each run. "
        "Each figure is given twice: wall time, and the CPU time of the grader's whole process tree (notebook "
        "kernels and sandboxes included, counted by a cpuacct cgroup the benchmark runs in), which the load of "
        "a shared machine inflates less. The autograder "
        "runs each submission's code in its own bubblewrap sandbox, two submissions at a time with `-j 2`; "
        "nbgrader runs one notebook kernel after another.", "",
        f"Load average (1 min) while measuring: median {med(loads):.1f}, from {min(loads):.1f} to "
        f"{max(loads):.1f}, on {os.cpu_count()} cores shared with other work, so wall times are inflated (on "
        f"both sides, as the runs are interleaved). Whole run: {elapsed / 60:.0f} min.", "",
        "### Equal work: the hidden suite as nbgrader hidden test cells", "",
        f"The `hypermines_equal` assignment is the course notebook plus {len(tests)} hidden autograder-tests "
        f"cells ({sum(t['points'] for t in tests):g} points, one cell per test of "
        "`autograder/instructor/suites/test_hypermines.py`), generated from the suite: each suite test runs "
        "against the instructor's reference through a stand-in for the sandbox that records every call the "
        "suite makes and every value it reads and checks (against the originals' outputs or the engine); the "
        "hidden cell makes the same calls on the student's `HyperMinesGame` and compares every value as the "
        "suite does. So both graders check the same cases: the original lab's tests with its 27,000- and "
        f"30,000-cell games, the edge and rule cases, and the random games of seed {SEED}. Students get the "
        "release (hidden cells stripped) with the solution filled in; `nbgrader autograde` puts the hidden "
        f"cells back, and gave the solved notebook {scores[EQUAL][0]:g} of {scores[EQUAL][1]:g} points "
        f"({visible:g} of them the visible tests'). As always with nbgrader, the notebook's other cells run "
        "too (visible tests, two widget boards, the timing cells); the split under the table says how much.", "",
        *header,
        row("one notebook, command line (process start included)", "ours_one", "theirs_equal_one"),
        f"| batch of {big} notebooks (autograder `-j 2`; nbgrader: "
        + (f"{k} notebooks, times {big / k:g}" if estimate else "all") + f") | {wall['ours_big']:.0f} s | {nb_batch} | "
        f"{per_equal / per_big:.1f}x | {cpu['ours_big']:.0f} s | {nb_batch_cpu} | {per_equal_cpu / per_big_cpu:.1f}x |",
        f"| per notebook in the batch | {per_big:.2f} s | {per_equal:.2f} s | {per_equal / per_big:.1f}x | "
        f"{per_big_cpu:.2f} s | {per_equal_cpu:.2f} s | {per_equal_cpu / per_big_cpu:.1f}x |",
        "",
        (f"nbgrader's batch is {k} notebooks, not {big}: it grades one notebook after another, so its {big}-notebook "
         f"time is estimated as {big} times its time per notebook in the batch of {k}. " if estimate else "")
        + f"Where that time per notebook goes (median over the {k} notebooks, from the timing nbclient records in "
        f"each cell): the {len(tests)} hidden cells {hidden_cell:.2f} s, the notebook's other cells "
        f"{other_cells:.2f} s, the rest ({per_equal - hidden_cell - other_cells:.2f} s) the kernel's start and "
        "nbgrader's own work (reading the notebook, putting the hidden cells back, the gradebook). Without the "
        f"other cells nbgrader would take {per_equal - other_cells:.2f} s a notebook, "
        f"{(per_equal - other_cells) / per_big:.1f}x the autograder's wall time.", "",
        f"`-j 2` keeps both cores busy while nbgrader uses one at a time, so the wall-time ratio of a batch "
        "includes that parallelism; the CPU ratio compares the work alone.", "",
        f"Aim: at least 10x faster per submission than nbgrader on equal work. Measured per notebook in a batch: "
        f"{per_equal / per_big:.1f}x in wall time ({per_big:.2f} s against {per_equal:.2f} s), "
        f"{per_equal_cpu / per_big_cpu:.1f}x in CPU time; one notebook from the command line: "
        f"{wall['theirs_equal_one'] / wall['ours_one']:.1f}x. "
        + ("Met." if per_equal / per_big >= 10 and per_equal_cpu / per_big_cpu >= 10 else
           "Not met: see the autograder's split below for where its time goes."), "",
        "### Light work: nbgrader with the notebook's visible tests only (the figures reported before)", "",
        "nbgrader executes the course notebook as released, with its light visible tests "
        f"({scores[ASSIGNMENT][0]:g} of {scores[ASSIGNMENT][1]:g} points), while the autograder runs the whole "
        "hidden suite: not the same work.", "",
        *header,
        row("one notebook, command line (process start included)", "ours_one", "theirs_one"),
        row(f"batch of {n} notebooks (autograder `-j 2`)", "ours_batch", "theirs_batch"),
        f"| per notebook in the batch | {wall['ours_batch'] / n:.2f} s | {wall['theirs_batch'] / n:.2f} s | "
        f"{wall['theirs_batch'] / wall['ours_batch']:.1f}x | {cpu['ours_batch'] / n:.2f} s | "
        f"{cpu['theirs_batch'] / n:.2f} s | {cpu['theirs_batch'] / cpu['ours_batch']:.1f}x |",
        "", "### Inside the autograder: one submission, in-process", "",
        "`TestOutcome.seconds` is now the CPU time of the student's sandboxed process during a test, not wall "
        "time; the rows below give wall time, the CPU time of grader and sandbox together, and the student's "
        "share.", "",
        "| part | wall | CPU (grader + sandbox) |", "|---|---:|---:|",
        f"| whole hidden suite on the solved notebook | {wall['inproc_solved']:.2f} s | {cpu['inproc_solved']:.2f} s |",
        f"| of which the student's code (sum of the {len(tests)} tests' `seconds`) | — | {student:.2f} s |",
        f"| the grader's side of the tests (the CPU above less the student's code and the fixed cost) | — | "
        f"{cpu['inproc_solved'] - student - cpu['inproc_empty']:.2f} s |",
        f"| fixed cost: the suite on a submission that defines nothing (sandbox start, pytest session, "
        f"{len(tests)} failing tests, reports) | {wall['inproc_empty']:.2f} s | {cpu['inproc_empty']:.2f} s |",
        f"| whole suite on the plain reference `autograder/instructor/reference/hypermines.py` | "
        f"{wall['inproc_reference']:.2f} s | {cpu['inproc_reference']:.2f} s |",
        "", "The grader's side of the tests is the expected values (the originals read, the engine's games "
        "played), the comparisons, and the round trips of the 27,000- and 30,000-cell boards between the "
        "trusted process and the sandbox (encoded, sent, decoded). It costs more CPU than the student's code "
        "itself: it is where a grader that aims at 10x nbgrader's speed has to gain.",
    ]
    return "\n".join(lines)


def _nbgrader_version() -> str:
    import nbgrader

    return nbgrader.__version__


if __name__ == "__main__":
    sys.exit(main())
