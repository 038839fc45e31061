"""Grading on a dask.distributed cluster: what every worker needs, checked from the controller.

``autograder grade --dask ADDRESS`` reads the submissions on the controller (the machine that runs
the command) and sends each one as plain data, its source included, to a worker; the worker grades
it in a sandbox of its own with its own copy of the kit, the hidden suites and the original data,
and the report comes back to the controller, which writes every result. So a worker needs no
access to the submissions or the results folder, but it needs what grading needs on the controller:

* a sandbox that starts there (bubblewrap, and a Python installation the sandbox can run), else
  every submission it takes comes back "not graded";
* the same kit (version and code) and the same instructor material (hidden suites and original
  data), else it would grade by other rules than the controller's;
* one thread per worker process: grading runs pytest in the worker's process, one submission at
  a time (``dask worker --nthreads 1``; more processes with ``--nworkers``).

:func:`machine_facts` gathers what one process would grade with, as plain data; it runs on every
worker through ``Client.run`` and here. :func:`worker_problems` compares a worker's facts with the
controller's, and :func:`check_cluster` does both for a whole cluster (``autograder doctor --dask``).
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import socket
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from .assignments import ORIGINALS_VARIABLE

__all__ = [
    "ClusterUnreachable",
    "WorkerCheck",
    "ClusterCheck",
    "machine_facts",
    "folder_digests",
    "worker_problems",
    "check_cluster",
    "CONNECT_TIMEOUT",
]

#: Seconds ``autograder doctor --dask`` waits for the scheduler to answer.
CONNECT_TIMEOUT = 5.0
#: How many differing files a problem names before it says "and N more".
SHOWN_FILES = 3


class ClusterUnreachable(RuntimeError):
    """No dask scheduler answered at the address given; the message says what happened."""


# ---------------------------------------------------------------------------- facts of one process
def folder_digests(folder: Path, suffix: str = "") -> dict[str, str]:
    """The SHA-256 of every file under ``folder`` (only names ending with ``suffix``), keyed by its
    path relative to ``folder`` with ``/`` separators; ``__pycache__`` folders are left out."""
    digests = {}
    for path in sorted(folder.rglob("*")):
        relative = path.relative_to(folder)
        if "__pycache__" in relative.parts or not path.is_file() or not path.name.endswith(suffix):
            continue
        digests[relative.as_posix()] = hashlib.sha256(path.read_bytes()).hexdigest()
    return digests


def _kit_code() -> dict[str, str]:
    """Digests of the kit's Python code (``minesweeper_kit`` and ``autograder``), the instructor
    folder left out: it is compared on its own."""
    import minesweeper_kit

    digests = {}
    for package, folder in (
        ("minesweeper_kit", Path(minesweeper_kit.__file__ or "").resolve().parent),
        ("autograder", Path(__file__).resolve().parent),
    ):
        for name, digest in folder_digests(folder, ".py").items():
            if package == "autograder" and name.startswith("instructor/"):
                continue
            digests[f"{package}/{name}"] = digest
    return digests


def _material(find: Callable[[], Path]) -> dict[str, Any]:
    """``{"folder", "files"}`` for one part of the instructor material, or ``{"error"}`` saying why
    it cannot be used (missing, unreadable)."""
    try:
        folder = find()
        if not folder.is_dir():
            return {"error": f"{folder} is not a folder"}
        return {"folder": str(folder), "files": folder_digests(folder)}
    except Exception as error:  # noqa: BLE001 - any failure is reported as this part's problem
        return {"error": " ".join(str(error).split()) or type(error).__name__}


def machine_facts(originals: str | None = None) -> dict[str, Any]:
    """What this process would grade with, as plain data: the host, the Python, the kit's version
    and code, whether a sandbox starts (the probe ``autograder doctor`` prints), and the hidden
    suites and original data, file by file (the data at ``originals`` when the controller grades
    with ``--originals``: its jobs carry that path to the workers)."""
    import minesweeper_kit
    from minesweeper_kit.sandbox.isolation import status

    from .assignments import instructor_dir, originals_dir, originals_from

    found = status()
    with originals_from(originals):
        return {
            "host": socket.gethostname(),
            "python": sys.version.split()[0],
            "executable": sys.executable,
            "kit_version": minesweeper_kit.__version__,
            "kit_code": _kit_code(),
            "sandbox": {"available": found.available, "mode": found.mode, "reason": found.reason},
            "suites": _material(lambda: instructor_dir() / "suites"),
            "originals": _material(originals_dir),
        }


# ---------------------------------------------------------------------------- comparing
def _differences(there: dict[str, str], here: dict[str, str]) -> str:
    """The files that differ between two digest maps, named (a few) for the instructor; "" if none."""
    found = [f"{name} differs" for name in sorted(set(there) & set(here)) if there[name] != here[name]]
    found += [f"{name} missing there" for name in sorted(set(here) - set(there))]
    found += [f"{name} only there" for name in sorted(set(there) - set(here))]
    shown = ", ".join(found[:SHOWN_FILES])
    return shown + (f" and {len(found) - SHOWN_FILES} more" if len(found) > SHOWN_FILES else "")


MATERIAL = (("suites", "hidden suites"), ("originals", "original data"))


def worker_problems(worker: dict[str, Any], here: dict[str, Any], nthreads: int | None = None) -> list[str]:
    """Why a worker would not grade as this machine does, one sentence each; empty when it would.

    ``worker`` and ``here`` are :func:`machine_facts` of the worker and of the controller;
    ``nthreads`` is the worker's thread count, as its scheduler knows it."""
    problems = []
    sandbox = worker["sandbox"]
    if not sandbox["available"]:
        problems.append(f"the sandbox cannot start there: {sandbox['reason']}")
    if nthreads is not None and nthreads != 1:
        problems.append(
            f"it runs {nthreads} threads: grading runs pytest in the worker's process, one submission at a "
            "time, so start workers with --nthreads 1 (and --nworkers N for more at once)"
        )
    if worker["kit_version"] != here["kit_version"]:
        problems.append(
            f"kit version {worker['kit_version']} there, {here['kit_version']} here: install the same version"
        )
    else:
        changed = _differences(worker["kit_code"], here["kit_code"])
        if changed:
            problems.append(
                f"the kit's code there differs from this machine's (both version {here['kit_version']}): {changed}"
            )
    for key, what in MATERIAL:
        there, ours = worker[key], here[key]
        if "error" in there:
            problems.append(f"no usable {what} there: {there['error']}")
        elif "error" not in ours:
            changed = _differences(there["files"], ours["files"])
            if changed:
                problems.append(f"the {what} there ({there['folder']}) differ from this machine's: {changed}")
    return problems


def controller_problems(here: dict[str, Any]) -> list[str]:
    """What the controller itself lacks to run a batch: the batch checks the sandbox and lists the
    hidden suite here before it sends any job."""
    problems = []
    if not here["sandbox"]["available"]:
        problems.append(f"the sandbox cannot start here: {here['sandbox']['reason']}")
    for key, what in MATERIAL:
        if "error" in here[key]:
            problems.append(f"no usable {what} here (the workers' copies cannot be compared): {here[key]['error']}")
    return problems


# ---------------------------------------------------------------------------- the cluster
@dataclass
class WorkerCheck:
    """One worker: its address, its name (when it was given one; not the numbers a LocalCluster
    gives) and what stops it grading."""

    address: str
    name: str = ""
    problems: list[str] = field(default_factory=list)
    mode: str = ""  #: the sandbox's mode there, e.g. "bwrap as root"
    host: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems

    def lines(self) -> list[str]:
        """``address: ok (...)``, or one ``address: problem`` line per problem."""
        named = self.name and self.name != self.address and not self.name.isdigit()
        label = self.address + (f" ({self.name})" if named else "")
        if self.ok:
            return [f"{label}: ok ({self.mode} on host {self.host})"]
        return [f"{label}: {problem}" for problem in self.problems]


@dataclass
class ClusterCheck:
    """What ``autograder doctor --dask`` found: the scheduler, this machine's facts and each worker."""

    scheduler: str
    here: dict[str, Any]
    workers: list[WorkerCheck]

    @property
    def problems_here(self) -> list[str]:
        return controller_problems(self.here)

    @property
    def ok(self) -> bool:
        return bool(self.workers) and all(w.ok for w in self.workers) and not self.problems_here

    def describe(self) -> str:
        """One line per worker, between a heading and a verdict."""
        here = self.here
        lines = [
            f"dask scheduler {self.scheduler}: {len(self.workers)} worker(s); this machine grades with kit "
            f"{here['kit_version']} (Python {here['python']})"
        ]
        lines += [f"this machine: {problem}" for problem in self.problems_here]
        for worker in self.workers:
            lines += worker.lines()
        failing = sum(not w.ok for w in self.workers)
        if not self.workers:
            lines.append("dask: no worker is connected to the scheduler: start some (dask worker ADDRESS --nthreads 1)")
        elif failing:
            lines.append(
                f"dask: {failing} of {len(self.workers)} worker(s) cannot grade as this machine does; a submission "
                "sent to a worker whose sandbox cannot start comes back not graded. Fix them or stop them first."
            )
        elif self.problems_here:
            lines.append("dask: the workers are ready, but this machine cannot run the batch (above)")
        else:
            lines.append(f"dask: every worker ({len(self.workers)}) can grade as this machine does")
        return "\n".join(lines)


def _fault(error: BaseException) -> str:
    return f"{type(error).__name__}: {' '.join(str(error).split())[:300] or 'no answer'}"


async def _identify(address: str, timeout: float) -> dict[str, Any]:
    """The scheduler's answer to ``identity``, asked over a connection of our own, so that a wrong
    address fails here, within ``timeout``, and not inside a half-built Client (whose clean-up then
    prints a traceback at exit)."""
    from distributed.core import rpc

    scheduler = rpc(address, timeout=timeout)
    try:
        return await asyncio.wait_for(scheduler.identity(), 2 * timeout)
    finally:
        await scheduler.close_rpc()


def check_cluster(address: str, timeout: float = CONNECT_TIMEOUT) -> ClusterCheck:
    """Run :func:`machine_facts` on every worker of the scheduler at ``address`` and here, and
    compare. Raises :class:`ClusterUnreachable` when no scheduler answers within ``timeout``."""
    from distributed import Client

    try:
        identity = asyncio.run(_identify(address, timeout))
    except Exception as error:  # noqa: BLE001 - refused, timed out, a bad address, not a scheduler
        raise ClusterUnreachable(
            f"cannot reach a dask scheduler at {address} ({_fault(error)}; waited at most {timeout:g} s)"
        ) from None
    if not isinstance(identity, dict) or identity.get("type") != "Scheduler":
        raise ClusterUnreachable(f"what answered at {address} is not a dask scheduler")
    here = machine_facts()
    try:
        with Client(address, timeout=timeout, set_as_default=False) as client:
            threads = client.nthreads()
            names = {a: w.get("name", "") for a, w in client.scheduler_info().get("workers", {}).items()}
            originals = os.environ.get(ORIGINALS_VARIABLE)
            answers = client.run(machine_facts, originals, on_error="return") if threads else {}
    except Exception as error:  # noqa: BLE001 - the scheduler went away meanwhile
        raise ClusterUnreachable(f"lost the dask scheduler at {address} ({_fault(error)})") from None
    checks = []
    for worker_address in sorted(threads):
        name = str(names.get(worker_address, ""))
        answer = answers.get(worker_address)
        if isinstance(answer, dict):
            problems = worker_problems(answer, here, threads[worker_address])
            checks.append(WorkerCheck(worker_address, name, problems, answer["sandbox"]["mode"], answer["host"]))
            continue
        why = _fault(answer) if isinstance(answer, BaseException) else "it did not answer"
        problem = (
            f"the check could not run there ({why}); is the kit, version {here['kit_version']}, installed there "
            "with the [grader] extra?"
        )
        checks.append(WorkerCheck(worker_address, name, [problem]))
    return ClusterCheck(str(identity.get("address", address)), here, checks)
