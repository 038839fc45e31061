"""Shared plumbing for the benchmarks: the machine's description, medians, and BENCHMARKS.md sections.

Each benchmark owns one section of BENCHMARKS.md between `<!-- name:start -->` and
`<!-- name:end -->` and rewrites only that section, so benchmarks can run one at a time.
"""

from __future__ import annotations

import os
import platform
import statistics
import time
from collections.abc import Callable
from pathlib import Path

REPORT = Path(__file__).resolve().parent.parent / "BENCHMARKS.md"
TITLE = "# Benchmarks\n\nMeasured by `make bench` (each section by its own script in `benchmarks/`). " \
        "Figures are medians over several runs on the machine named in each section.\n"


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    memory = ""
    try:
        kb = int(Path("/proc/meminfo").read_text().split()[1])
        memory = f", {kb / 2**20:.0f} GiB"
    except (OSError, ValueError, IndexError):
        pass
    import numpy

    return (f"{cpu}, {os.cpu_count()} cores{memory}; Python {platform.python_version()}, numpy {numpy.__version__}; "
            f"{time.strftime('%Y-%m-%d')}")


def median_time(run: Callable[[], object], repeats: int) -> tuple[float, list[float]]:
    """Median wall time of `run` over `repeats` calls, and all the times."""
    times = []
    for _ in range(repeats):
        start = time.perf_counter()
        run()
        times.append(time.perf_counter() - start)
    return statistics.median(times), times


def write_section(name: str, body: str) -> None:
    """Replace (or append) this benchmark's section of BENCHMARKS.md."""
    text = REPORT.read_text() if REPORT.exists() else TITLE
    start, end = f"<!-- {name}:start -->", f"<!-- {name}:end -->"
    block = f"{start}\n{body.rstrip()}\n{end}"
    if start in text and end in text:
        before, rest = text.split(start, 1)
        after = rest.split(end, 1)[1]
        text = before + block + after
    else:
        text = text.rstrip() + "\n\n" + block + "\n"
    REPORT.write_text(text)


def fmt_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "—"
    if seconds < 1e-3:
        return f"{seconds * 1e6:.0f} µs"
    if seconds < 1:
        return f"{seconds * 1e3:.1f} ms"
    return f"{seconds:.2f} s"
