"""`make test`'s workers: each group of tests (tests/conftest.py) runs on one worker.

A module fixture (a graded batch, a JupyterLab) is built once per worker that runs a test of the
module, so a group split over two workers builds it twice: slower, and for the busy-machine
tests, twice the load they meant to make. pytest-xdist's grouping has broken without a word
before (the workers read the option differently; a pytest release changed node ids), so this
runs two small files on two workers and looks where each test ran.
"""

from __future__ import annotations

import re
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
FILES = ("tests/test_rules.py", "tests/test_names.py")
RAN = re.compile(r"^\[(gw\d+)\] \[ *\d+%\] PASSED (\S+?)::", re.M)


def test_each_file_runs_on_one_worker():
    done = subprocess.run([sys.executable, "-m", "pytest", "-p", "no:cacheprovider", "-n", "2", "--dist", "loadgroup",
                           "--no-loadscope-reorder", "-v", *FILES], cwd=REPO, capture_output=True, text=True,
                          timeout=600)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-2000:]
    workers: dict[str, set[str]] = {}
    for worker, path in RAN.findall(done.stdout):
        workers.setdefault(path, set()).add(worker)
    assert sorted(workers) == sorted(FILES), done.stdout[-3000:]
    split = {path: sorted(ran) for path, ran in workers.items() if len(ran) > 1}
    assert not split, f"tests of one file ran on several workers: {split}"
