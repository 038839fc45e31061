"""Run every benchmark in this folder in turn (`make bench`); each rewrites its BENCHMARKS.md section."""

from __future__ import annotations

import importlib
import sys

BENCHMARKS = (
    "engine", "grader", "sandbox", "isolation_cost", "own_tests", "widget", "solver", "tournament", "scaleout",
)


def main(argv: list[str]) -> int:
    chosen = argv or list(BENCHMARKS)
    failed = []
    for name in chosen:
        try:
            module = importlib.import_module(f"benchmarks.{name}")
        except ModuleNotFoundError as error:
            if error.name == f"benchmarks.{name}":
                print(f"benchmarks: no benchmark named {name!r}", file=sys.stderr)
                failed.append(name)
                continue
            raise
        print(f"== {name}", flush=True)
        if module.main([]) != 0:
            failed.append(name)
    if failed:
        print(f"benchmarks that failed: {', '.join(failed)}", file=sys.stderr)
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
