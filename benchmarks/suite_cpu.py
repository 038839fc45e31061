"""Where the test suite's CPU goes: every test's CPU time, the processes it started included.

A pytest plugin and a report. As a plugin (``-p benchmarks.suite_cpu``), each process that runs
tests (each pytest-xdist worker, or the one process) moves itself into a cgroup of the cpuacct
controller of its own, so every process it starts afterwards (sandboxes, nbgrader, kernels,
JupyterLab, Chromium) is counted with it, and writes one JSON line per test: the cgroup's CPU
around the test's whole protocol (set-up and teardown included, so a shared fixture is counted in
the first test that needs it), its wall time and its pytest-xdist group. Needs cgroup v1's cpuacct
controller writable (root). Not part of `make bench`: it measures the suite, not the kit.

    make test PYTEST_ARGS="-p benchmarks.suite_cpu"   # MINESWEEPER_SUITE_CPU: the folder of the lines
    python -m benchmarks.suite_cpu FOLDER [--top 40]   # the CPU by group, largest first
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any

import pytest

CGROUPS = Path("/sys/fs/cgroup/cpuacct")
FOLDER_VARIABLE = "MINESWEEPER_SUITE_CPU"
DEFAULT_FOLDER = "suite-cpu"

_cgroup: Path | None = None
_lines: Any = None


def _usage() -> float:
    assert _cgroup is not None
    return int((_cgroup / "cpuacct.usage").read_text()) / 1e9


def pytest_configure(config) -> None:
    global _cgroup, _lines
    if not (CGROUPS / "cgroup.procs").is_file() or not os.access(CGROUPS, os.W_OK):
        raise SystemExit(f"benchmarks.suite_cpu: {CGROUPS} is not a writable cpuacct cgroup (cgroup v1, as root)")
    worker = os.environ.get("PYTEST_XDIST_WORKER", "main")
    _cgroup = CGROUPS / "minesweeper-suite-cpu" / f"{worker}-{os.getpid()}"
    _cgroup.mkdir(parents=True, exist_ok=True)
    (_cgroup / "cgroup.procs").write_text(str(os.getpid()))
    folder = Path(os.environ.get(FOLDER_VARIABLE, DEFAULT_FOLDER)).resolve()
    folder.mkdir(parents=True, exist_ok=True)
    os.environ[FOLDER_VARIABLE] = str(folder)  # the workers write beside the controller
    _lines = open(folder / f"{worker}-{os.getpid()}.jsonl", "a", buffering=1)  # noqa: SIM115 - open for the run
    _lines.write(json.dumps({"event": "start", "cpu": _usage(), "time": time.time()}) + "\n")


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item, nextitem):
    cpu, wall = _usage(), time.monotonic()
    marker = item.get_closest_marker("xdist_group")
    yield
    group = (marker.kwargs.get("name") or (marker.args[0] if marker.args else None)) if marker else None
    _lines.write(json.dumps({"test": item.nodeid, "group": group, "cpu": _usage() - cpu,
                             "wall": time.monotonic() - wall}) + "\n")


def pytest_unconfigure(config) -> None:
    if _lines is not None:
        _lines.write(json.dumps({"event": "end", "cpu": _usage(), "time": time.time()}) + "\n")
        _lines.close()


def by_group(folder: Path) -> tuple[dict[str, list[float]], float]:
    """CPU, wall and count of tests by group (a test without one: its file), and the processes'
    total CPU from their start to their end (collection and teardown included)."""
    groups: dict[str, list[float]] = defaultdict(lambda: [0.0, 0.0, 0])
    total = 0.0
    for path in sorted(folder.glob("*.jsonl")):
        for line in path.read_text().splitlines():
            entry = json.loads(line)
            if entry.get("event") == "end":
                total += entry["cpu"]
            elif "test" in entry:
                key = entry["group"] or entry["test"].split("::", 1)[0]
                groups[key][0] += entry["cpu"]
                groups[key][1] += entry["wall"]
                groups[key][2] += 1
    return dict(groups), total


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.suite_cpu", description=__doc__.split("\n\n")[0])
    parser.add_argument("folder", type=Path, help=f"the folder the plugin wrote (${FOLDER_VARIABLE})")
    parser.add_argument("--top", type=int, default=40, help="groups shown, largest first (default: 40)")
    args = parser.parse_args(argv)
    groups, total = by_group(args.folder)
    if not groups:
        print(f"no test lines in {args.folder}", file=sys.stderr)
        return 1
    cpu = sum(g[0] for g in groups.values())
    print(f"{sum(int(g[2]) for g in groups.values())} tests: {cpu / 60:.1f} minutes of CPU in the tests, "
          f"{total / 60:.1f} in the processes that ran them")
    print(f"{'CPU, s':>8} {'wall, s':>8} {'tests':>6}  group")
    for name, (group_cpu, wall, count) in sorted(groups.items(), key=lambda g: -g[1][0])[: args.top]:
        print(f"{group_cpu:8.1f} {wall:8.1f} {int(count):6d}  {name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
