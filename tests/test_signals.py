"""Nothing outlives a run: SIGTERM or SIGINT stops every server, kernel, browser and sandbox it started.

Each test starts a real command, waits until what it starts is running, sends one signal to the
command alone (as `kill`, a CI runner or `timeout` does, not to its process group as a terminal's
Ctrl+C does) and then reads the process table. The processes of a run are found two ways: by
walking /proc down from the command before the signal (its descendants), and by an environment
variable every one of them inherits (`MARK`; sandboxes copy MINESWEEPER_SANDBOX_TAG instead), which
still finds a process re-parented to init. Waits poll with a bound; nothing here asserts a time.
Whatever a failing test leaves is killed by its id at the end.
"""

from __future__ import annotations

import contextlib
import json
import multiprocessing
import os
import secrets
import signal
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TypeVar

import pytest
from jupyter_port import bound_port, free_port

from minesweeper_kit.widgets.web import token_environment

REPO = Path(__file__).resolve().parents[1]
MARK = "MINESWEEPER_SIGNALS_TEST"
TAG = "MINESWEEPER_SANDBOX_TAG"  # minesweeper_kit.sandbox.parent.TAG_VARIABLE: copied into every sandbox
SIGNALS = [signal.SIGTERM, signal.SIGINT]
T = TypeVar("T")

Process = tuple[int, int]  # a process id and its start time: a reused id is another process


def _listed(folder: Path) -> dict[str, list[str]]:
    """What each entry of ``folder`` holds, for a failure's message."""
    return {entry.name: sorted(str(p.relative_to(entry)) for p in entry.rglob("*"))[:20] if entry.is_dir() else []
            for entry in folder.iterdir()}


# ---------------------------------------------------------------------------------------------- /proc
def _stat(pid: int) -> tuple[str, int, int] | None:
    """A process's state, parent and start time, or None when it has gone."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return fields[0], int(fields[1]), int(fields[19])
    except (OSError, IndexError, ValueError):
        return None


def _table() -> dict[int, tuple[int, int]]:
    """Every live process (zombies left out): its parent and start time, by id."""
    table = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit() and (stat := _stat(int(entry))) is not None and stat[0] != "Z":
            table[int(entry)] = (stat[1], stat[2])
    return table


def descendants(root: int) -> set[Process]:
    """``root`` and every process below it, found by walking the parent ids."""
    table = _table()
    found, todo = set(), [root]
    while todo:
        pid = todo.pop()
        if pid in table and (pid, table[pid][1]) not in found:
            found.add((pid, table[pid][1]))
            todo += [child for child, (parent, _) in table.items() if parent == pid]
    return found


def marked(value: str) -> set[Process]:
    """Every live process whose environment carries ``MARK`` or the sandbox tag set to ``value``."""
    wanted = {f"{MARK}={value}".encode(), f"{TAG}={value}".encode()}
    found = set()
    for pid, (_, start) in _table().items():
        with contextlib.suppress(OSError):
            if wanted & set(Path(f"/proc/{pid}/environ").read_bytes().split(b"\0")):
                found.add((pid, start))
    return found


def command(pid: int) -> str:
    """A process's command line ("" once it has gone)."""
    try:
        return Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
    except OSError:
        return ""


def alive(processes: set[Process]) -> list[str]:
    """The processes of ``processes`` still running, each with its parent and command line."""
    left = []
    for pid, start in sorted(processes):
        stat = _stat(pid)
        if stat is not None and stat[0] != "Z" and stat[2] == start:
            left.append(f"{pid} (parent {stat[1]}): {command(pid)[:160]}")
    return left


def wait_for(condition: Callable[[], T], what: str, timeout: float = 180) -> T:
    """Poll ``condition`` until it returns something true; fail after ``timeout`` seconds."""
    deadline = time.monotonic() + timeout
    while not (value := condition()):
        if time.monotonic() > deadline:
            pytest.fail(f"{what}: not within {timeout:g} s")
        time.sleep(0.2)
    return value


def survivors(run: Run, timeout: float = 60) -> list[str]:
    """What is left of a run once its command has exited: its processes found before the signal,
    or by their mark, still running after up to ``timeout`` seconds (killed processes take a
    moment to leave the table)."""
    deadline = time.monotonic() + timeout
    while (left := alive(run.seen | marked(run.mark))) and time.monotonic() < deadline:
        time.sleep(0.2)
    return left


class Run:
    """A command started for a test: its environment marks every process it starts."""

    def __init__(self, tmp_path: Path, command: list[str], *, cwd: Path = REPO, env: dict[str, str] | None = None):
        self.mark = f"signals-{os.getpid()}-{secrets.token_hex(4)}"
        self.output = tmp_path / "output.txt"
        # not this test's own pytest-xdist worker's variables: the command may be a pytest run of its own
        environment = {k: v for k, v in os.environ.items() if not k.startswith(("PYTEST_XDIST", "PYTEST_CURRENT"))}
        environment.update(env or {})
        environment[MARK] = environment[TAG] = self.mark
        # this checkout's code, whatever the working folder
        environment["PYTHONPATH"] = os.pathsep.join(filter(None, [str(REPO), environment.get("PYTHONPATH")]))
        with open(self.output, "w") as output:
            self.process = subprocess.Popen(command, cwd=cwd, env=environment, stdin=subprocess.DEVNULL,
                                            stdout=output, stderr=subprocess.STDOUT, start_new_session=True)
        self.seen: set[Process] = set()

    def text(self) -> str:
        return self.output.read_text(errors="replace")

    def stop(self, number: signal.Signals, timeout: float = 180) -> int:
        """Note every process of the run, send ``number`` to the command alone, and wait for it."""
        self.seen = descendants(self.process.pid) | marked(self.mark)
        self.process.send_signal(number)
        try:
            return self.process.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            pytest.fail(f"the command did not end within {timeout} s of {number.name}:\n{self.text()[-3000:]}")

    def kill_leftovers(self) -> None:
        """Kill, by id, whatever of this run is still there (a failing test leaves nothing behind)."""
        for _ in range(5):
            ours = self.seen | marked(self.mark)
            if self.process.poll() is None:  # not reaped yet, so its id is still its own
                ours |= descendants(self.process.pid)
            if not alive(ours):
                return
            for pid, start in ours:
                stat = _stat(pid)
                if stat is not None and stat[2] == start:
                    with contextlib.suppress(OSError):
                        os.kill(pid, signal.SIGKILL)
            with contextlib.suppress(subprocess.TimeoutExpired):
                self.process.wait(timeout=10)
            time.sleep(0.5)


@pytest.fixture
def start(tmp_path) -> Iterator[Callable[..., Run]]:
    runs: list[Run] = []

    def starter(command: list[str], **options) -> Run:
        runs.append(Run(tmp_path, command, **options))
        return runs[-1]

    yield starter
    for run in runs:
        run.kill_leftovers()


def _named(number: signal.Signals) -> str:
    return number.name


# ---------------------------------------------------------------------------------------- the grader
SLEEPING_GAME = '''\
import os


class HyperMinesGame:
    def __init__(self, *args, **kwargs):
        reader, writer = os.pipe()
        os.read(reader, 1)  # waits for ever using no CPU time: each test lasts until the idle guard
'''


def sandbox_children(run: Run) -> set[Process]:
    """The sandboxed children of the run (the Python inside bubblewrap), by their tag."""
    return {p for p in marked(run.mark) if "/sandbox/runtime/child.py" in command(p[0])}


def start_sleeping_batch(tmp_path: Path, start: Callable[..., Run]) -> tuple[Run, Path]:
    """`autograder grade -j 2` of eight submissions that sleep in every test, its temporary folder
    a fresh one: the run, and that folder."""
    for student in "abcdefgh":
        (tmp_path / "submitted" / student).mkdir(parents=True)
        (tmp_path / "submitted" / student / "lab.py").write_text(SLEEPING_GAME)
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    run = start([sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines",
                 str(tmp_path / "submitted"), "--results-dir", str(tmp_path / "results"), "-j", "2", "--no-progress"],
                env={"TMPDIR": str(scratch)})
    return run, scratch


@pytest.mark.parametrize("number", SIGNALS, ids=_named)
def test_a_batch_stops_with_every_worker_and_sandbox(tmp_path, start, number):
    """`autograder grade -j 2` in the middle of grading (a submission takes a minute, eight wait): the
    signal ends it with 128 + the signal's number and one line, no worker or sandbox is left, and
    no student is given the result of an interrupted grading, and every temporary folder is removed."""
    run, scratch = start_sleeping_batch(tmp_path, start)
    wait_for(lambda: len(sandbox_children(run)) >= 2 or run.process.poll() is not None, "two sandboxes grading")
    assert run.process.poll() is None, run.text()[-3000:]
    code = run.stop(number)
    assert not survivors(run), f"left running after {number.name}: {survivors(run, 0)}"
    assert not list((tmp_path / "results").glob("students/*/results.json")), "grading went on after the signal"
    assert not list(scratch.iterdir()), f"temporary folders left behind (sandboxes, their runtime): {_listed(scratch)}"
    assert code == 128 + number, run.text()[-3000:]
    assert f"autograder: stopped by {number.name}" in run.text() and "Traceback" not in run.text(), run.text()


def test_a_worker_killed_outright_leaves_no_folder_behind(tmp_path, start):
    """A pool worker killed with SIGKILL cannot remove its sandbox's folder or the children's code it
    built; bubblewrap ends that sandbox with it, and the batch removes what it left once its own
    workers are gone."""
    run, scratch = start_sleeping_batch(tmp_path, start)
    children = wait_for(lambda: sandbox_children(run) or run.process.poll() is not None, "a sandbox grading")
    assert run.process.poll() is None, run.text()[-3000:]
    table = _table()
    worker = next(iter(children))[0]
    while table[worker][0] != run.process.pid:  # up from the child: bubblewrap, then the pool's worker
        worker = table[worker][0]
    own = [p for p in scratch.iterdir() if p.name.startswith(f"minesweeper-sandbox-{worker}-")
           or p.name.startswith("minesweeper-sandbox-runtime-") and f"-{worker}-" in p.name]
    assert len(own) >= 1, sorted(p.name for p in scratch.iterdir())
    os.kill(worker, signal.SIGKILL)
    code = run.stop(signal.SIGTERM)
    assert not survivors(run), f"left running: {survivors(run, 0)}"
    assert not list(scratch.iterdir()), f"temporary folders left behind (sandboxes, their runtime): {_listed(scratch)}"
    assert code == 128 + signal.SIGTERM, run.text()[-3000:]


WORKER_START = """
import os, sys, tempfile
written = []
real_open = os.open
os.open = lambda path, flags, *rest, **named: (written.append(str(path)), real_open(path, flags, *rest, **named))[1]
from autograder.batch import _start_worker
_start_worker(sys.argv[1])
print(tempfile.gettempdir())
print(sorted(path for path in written if path.startswith(os.environ["TMPDIR"])))
"""


def test_a_pool_worker_writes_nothing_in_the_temporary_folder_as_it_starts(tmp_path):
    """Python finds the temporary folder by writing and removing a probe file in it: a worker
    killed in between (the case above, SIGKILL) would leave that file behind. A worker is given the
    batch's temporary folder and writes no probe."""
    batch_folder, probed = tmp_path / "batch", tmp_path / "probed"
    batch_folder.mkdir()
    probed.mkdir()
    done = subprocess.run([sys.executable, "-c", WORKER_START, str(batch_folder)], capture_output=True, text=True,
                          env={**os.environ, "TMPDIR": str(probed)}, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    folder, written = done.stdout.splitlines()[-2:]
    assert folder == str(batch_folder) and written == "[]", done.stdout
    assert not list(probed.iterdir())


def running_children() -> list[str]:
    """The processes this one started through multiprocessing that still run. The kernel's process
    table is read, not multiprocessing's list: a worker that another thread reaped stays on that
    list, marked started, until its exit code is recorded, although it has ended."""
    running = []
    for child in multiprocessing.active_children():
        try:
            state = Path(f"/proc/{child.pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
        except (FileNotFoundError, ProcessLookupError):
            continue  # ended and reaped
        if state != "Z":  # a zombie has ended too
            running.append(f"{child.name} (pid {child.pid}, state {state})")
    return running


def crash_or_sleep(job: dict) -> dict:
    """A pool job for the test below: the crash job ends its worker outright, the others sleep."""
    if job["kind"] == "crash":
        os._exit(1)
    time.sleep(600)
    return {}


def crash_or_answer(job: dict) -> dict:
    """A pool job for the test below: the crash job ends its worker outright, the others answer."""
    if job["kind"] == "crash":
        os._exit(1)
    return {"answered": job["kind"]}


def test_a_worker_death_its_pool_misses_is_found_by_the_batch(monkeypatch):
    """Under load, CPython's process pool sometimes misses a worker's death and waits for its job
    for ever (seen with 3.11). Made to miss it every time here (it no longer watches its workers'
    sentinels), the pool is still found broken by the batch's own watch: the job that was running
    gets the crash report, the others are graded by a new pool, and the batch ends."""
    import concurrent.futures.process as pools
    import multiprocessing
    import threading

    from autograder import batch

    def blind(manager):  # the manager thread's wait, without the workers' sentinels
        readers = [manager.result_queue._reader, manager.thread_wakeup._reader]
        ready = multiprocessing.connection.wait(readers)
        result = manager.result_queue._reader.recv() if readers[0] in ready else None
        with manager.shutdown_lock:
            manager.thread_wakeup.clear()
        return result, False, None

    monkeypatch.setattr(pools._ExecutorManagerThread, "wait_result_broken_or_wakeup", blind)
    monkeypatch.setattr(batch, "_pool_job", crash_or_answer)
    monkeypatch.setattr(batch, "_crash", lambda job, error=None: {"crashed": job["kind"], "why": error})
    results: list[tuple[str, dict]] = []
    ended = threading.Event()

    def run() -> None:
        batch._run_in_pools([{"kind": "crash"}, {"kind": "a"}, {"kind": "b"}], 1,
                            lambda job, result: results.append((job["kind"], result)))
        ended.set()

    threading.Thread(target=run, daemon=True).start()
    assert ended.wait(timeout=300), f"the batch waited for a dead worker's job; results so far: {results}"
    assert sorted(results) == [("a", {"answered": "a"}), ("b", {"answered": "b"}),
                               ("crash", {"crashed": "crash", "why": batch._LOST_WORKER})], results
    assert running_children() == []
    # the blind pool's manager thread ends too: the interpreter would wait for it at exit
    managers = [t for t in threading.enumerate() if isinstance(t, pools._ExecutorManagerThread)]
    for manager in managers:
        manager.join(timeout=60)
    assert not [t for t in managers if t.is_alive()], "a pool's manager thread waits for ever"


def test_a_signal_while_a_broken_pool_is_replaced_stops_every_worker(monkeypatch):
    """A worker that dies breaks its pool; the jobs it had not finished go to a new pool. A signal
    that lands while that pool is being handed its jobs (here: its second job) stops every worker
    at once, rather than leave the new pool to grade what it was already given."""
    import concurrent.futures
    import multiprocessing
    import threading

    from autograder import batch

    monkeypatch.setattr(batch, "_pool_job", crash_or_sleep)
    monkeypatch.setattr(batch, "_crash", lambda job, error=None: {})  # the crashed job's report: not tested here
    real_submit = concurrent.futures.ProcessPoolExecutor.submit
    handed: dict[int, int] = {}

    def submit(pool, function, *args):
        handed[id(pool)] = handed.get(id(pool), 0) + 1
        if len(handed) == 2 and handed[id(pool)] == 2:
            raise KeyboardInterrupt  # the signal, as its handler raises it in the main thread
        return real_submit(pool, function, *args)

    monkeypatch.setattr(concurrent.futures.ProcessPoolExecutor, "submit", submit)
    jobs = [{"kind": "crash"}, {"kind": "sleep"}, {"kind": "sleep"}]
    raised: list[BaseException] = []

    def run() -> None:
        try:
            batch._run_in_pools(jobs, 3, lambda job, result: None)
        except BaseException as error:  # noqa: BLE001 - what the batch raises is the finding
            raised.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    worker.join(timeout=300)  # the sleeping jobs take 600 s: a run that waits for them is still going
    assert not worker.is_alive(), "the batch went on waiting for the new pool's jobs"
    assert len(handed) == 2, handed
    assert [type(error) for error in raised] == [KeyboardInterrupt], raised
    assert running_children() == []


def test_a_ctrl_c_while_results_are_written_waits_until_the_csv_has_them(tmp_path, monkeypatch):
    """A Ctrl+C that lands while a student's results are written takes effect once the batch keeps
    them for the CSV too: the results on disk and the CSV written on the way out never disagree."""
    from types import SimpleNamespace

    from autograder import batch

    written = []

    def write_student(report, results_dir, **options):
        os.kill(os.getpid(), signal.SIGINT)  # Ctrl+C in the middle of the write
        time.sleep(0.2)  # time for a handler that raises to do so here
        written.append(report.student)

    monkeypatch.setattr(batch, "write_student", write_student)
    reports: dict = {}
    job = {"submission": {"source_file": "lab.py", "sha256": "0" * 64}}
    previous = signal.signal(signal.SIGINT, signal.default_int_handler)  # Ctrl+C as in a terminal
    try:
        with pytest.raises(KeyboardInterrupt):
            batch._write(job, SimpleNamespace(student="ada"), tmp_path, reports)
    finally:
        signal.signal(signal.SIGINT, previous)
    assert written == ["ada"] and list(reports) == ["ada"]


# ------------------------------------------------------------------------------------------ mines lab
@pytest.mark.parametrize("number", SIGNALS, ids=_named)
def test_mines_lab_stops_with_every_kernel(tmp_path, start, number):
    """`mines lab` is JupyterLab once started: the signal stops it and every kernel it started."""
    token = secrets.token_hex(16)
    (tmp_path / "notebooks").mkdir()
    run = start([sys.executable, "-m", "minesweeper_kit.cli", "lab", str(tmp_path / "notebooks"), "--no-browser",
                 f"--ServerApp.port={free_port()}", "--ServerApp.ip=127.0.0.1"],
                cwd=tmp_path, env=token_environment({"JUPYTER_RUNTIME_DIR": str(tmp_path / "runtime"),
                                                     "JUPYTER_CONFIG_DIR": str(tmp_path / "config")},
                                                    tempfile.mkdtemp(dir=tmp_path), token))
    port = bound_port(tmp_path / "runtime", run.process, run.text)
    url = f"http://127.0.0.1:{port}/api/kernels?token={token}"

    def answers() -> bool:
        if run.process.poll() is not None:
            pytest.fail(f"mines lab exited:\n{run.text()[-3000:]}")
        with contextlib.suppress(OSError):
            urllib.request.urlopen(url, timeout=5).close()
            return True
        return False

    wait_for(answers, "JupyterLab answering")
    for _ in range(2):
        request = urllib.request.Request(url, data=b"{}", method="POST", headers={"Content-Type": "application/json"})
        urllib.request.urlopen(request, timeout=120).close()
    with urllib.request.urlopen(url, timeout=30) as answer:
        assert len(json.load(answer)) == 2
    kernels = wait_for(lambda: [p for p in alive(marked(run.mark)) if "ipykernel" in p], "two kernel processes")
    assert len(kernels) == 2, kernels
    run.stop(number)
    assert not survivors(run), f"left running after {number.name}: {survivors(run, 0)}"


@pytest.mark.parametrize("number", SIGNALS, ids=_named)
def test_mines_lab_stops_while_it_builds_the_workspace(tmp_path, start, number):
    """Before JupyterLab starts, `mines lab` builds the workspace with nbgrader in a child process:
    the signal stops that child before `mines lab` exits, and removes the temporary folders."""
    scratch = tmp_path / "tmp"
    scratch.mkdir()
    run = start([sys.executable, "-m", "minesweeper_kit.cli", "lab", "--workspace", str(tmp_path / "workspace"),
                 "--no-browser"], env={"TMPDIR": str(scratch)})
    # nbgrader's gradebook appears once the child has started working, long after its parent has
    # gone on to read what it prints
    wait_for(lambda: any(scratch.glob("nbgrader-course-*/gradebook.db")) or run.process.poll() is not None,
             "nbgrader building the student versions")
    assert run.process.poll() is None, run.text()[-3000:]
    assert [p for p in alive(marked(run.mark)) if "_generate" in p], "no nbgrader process found by its mark"
    code = run.stop(number)
    left = [p for p in alive(run.seen) if "_generate" in p]  # at once: mines lab waits for its child
    assert not left, f"outlived mines lab after {number.name}: {left}"
    assert code == 128 + number, run.text()[-3000:]
    assert not survivors(run)
    assert not list(scratch.iterdir()), "temporary folders left behind"
    assert not any((tmp_path / "workspace").glob("*.ipynb"))


# --------------------------------------------------------------------------------- pytest and make
BROWSER_TEST = '''\
import os
import time
import urllib.request


def test_hold(lab, browser):
    """The suite's own JupyterLab (with a kernel) and Chromium, until the run is stopped."""
    browser.new_page()
    request = urllib.request.Request(f"{lab.url}/api/kernels?token={lab.token}", data=b"{}", method="POST",
                                     headers={"Content-Type": "application/json"})
    urllib.request.urlopen(request, timeout=120).close()
    open(os.environ["READY"], "w").close()
    time.sleep(900)
'''

SERVER_TEST = '''\
import os
import signal
import subprocess
import sys
import time

import pytest


@pytest.fixture(scope="session")
def server():
    """A long-lived server started the way the suite starts its servers: in a session of its own,
    stopped with its process group when the fixture is torn down."""
    process = subprocess.Popen([sys.executable, "-m", "http.server", "--bind", "127.0.0.1", "0"],
                               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True)
    yield process
    os.killpg(process.pid, signal.SIGTERM)
    process.wait(timeout=60)


def test_hold(server):
    open(os.environ["READY"], "w").close()
    time.sleep(900)


def test_nothing():
    pass
'''


#: The inner runs' plugins: this suite's conftest.py, and no hypothesis plugin (the inner tests use
#: none, and importing it costs every pytest process 0.1 to 0.3 s of CPU, about a second where its
#: byte-code is not cached).
INNER_PLUGINS = ["-p", "conftest", "-p", "no:cacheprovider", "-p", "no:hypothesispytest"]


def _test_folder(tmp_path: Path, source: str) -> Path:
    """A folder of one test module, its own root (an empty pytest.ini), run with this suite's
    conftest.py loaded as a plugin (``-p conftest``): its fixtures and its SIGTERM handling."""
    folder = tmp_path / "inner"
    folder.mkdir()
    (folder / "pytest.ini").write_text("[pytest]\n")
    (folder / "test_hold.py").write_text(source)
    return folder


def _pytest_env(tmp_path: Path) -> dict[str, str]:
    """Where the inner test says it is ready, and the suite's folder on the path (``-p conftest``)."""
    tests = os.pathsep.join(filter(None, [str(REPO / "tests"), os.environ.get("PYTHONPATH")]))
    return {"PYTHONPATH": tests, "READY": str(tmp_path / "ready")}


def test_pytest_stops_its_servers_and_browser_on_sigterm(tmp_path, start):
    """A pytest run on a pytest-xdist worker, as in `make test`, whose test holds the suite's JupyterLab
    (with a kernel) and Chromium: SIGTERM to pytest tears the fixtures down and nothing is left (the
    make run below has two workers)."""
    folder = _test_folder(tmp_path, BROWSER_TEST)
    run = start([sys.executable, "-m", "pytest", *INNER_PLUGINS, "-n", "1", "--dist", "loadgroup",
                 f"--basetemp={tmp_path / 'basetemp'}", str(folder)],
                cwd=folder, env=_pytest_env(tmp_path))
    wait_for(lambda: (tmp_path / "ready").exists() or run.process.poll() is not None, "the test holding the servers")
    assert run.process.poll() is None, run.text()[-3000:]
    assert [p for p in alive(marked(run.mark)) if "jupyterlab" in p], "no JupyterLab found by its mark"
    assert [p for p in alive(marked(run.mark)) if "chrom" in p.lower()], "no Chromium found by its mark"
    code = run.stop(signal.SIGTERM)
    assert not survivors(run), f"left running after SIGTERM: {survivors(run, 0)}"
    assert code == pytest.ExitCode.INTERRUPTED, run.text()[-3000:]  # stopped in order, not killed by the signal


def test_make_test_stops_pytest_and_its_servers_on_sigterm(tmp_path, start):
    """`make test`'s own recipe, on a small test folder through PYTEST_ARGS (quoted, so make hands
    the line to a shell), lint skipped (MAKE=true): SIGTERM to make reaches pytest, whose fixture
    stops its server, and make exits with an error."""
    folder = _test_folder(tmp_path, SERVER_TEST)
    arguments = f'{" ".join(INNER_PLUGINS)} --basetemp={tmp_path / "basetemp"} -k "hold or nothing" {folder}'
    run = start(["make", "--no-print-directory", "-o", ".venv/.installed-test", "test", "MAKE=true",
                 "PYTEST_JOBS=2", f"PYTEST_ARGS={arguments}"], env=_pytest_env(tmp_path))
    wait_for(lambda: (tmp_path / "ready").exists() or run.process.poll() is not None, "the test holding the server")
    assert run.process.poll() is None, run.text()[-3000:]
    assert [p for p in alive(marked(run.mark)) if "http.server" in p], "no server found by its mark"
    code = run.stop(signal.SIGTERM)
    assert not survivors(run), f"left running after SIGTERM: {survivors(run, 0)}"
    assert code != 0, run.text()[-3000:]


#: SIGTERM sent while a weak reference's callback runs: the handler raises there, and Python drops it.
LOST_STOP = """
import os, signal, weakref
from minesweeper_kit.shutdown import stop_on_sigterm, stops_requested

stop_on_sigterm()


class Thing:
    pass


def callback(reference):
    os.kill(os.getpid(), signal.SIGTERM)
    for _ in range(1000):  # the handler runs here, inside the callback
        pass


thing = Thing()
watch = weakref.ref(thing, callback)
del thing
print("went on; recorded:", stops_requested() == [signal.SIGTERM])
"""


def test_a_sigterm_whose_exception_python_drops_is_still_recorded():
    """Where the main thread is when a signal lands decides where its handler's exception goes;
    inside a finalizer or a weak reference's callback (a process pool being replaced runs both)
    Python drops it and the program goes on. The stop is recorded all the same."""
    done = subprocess.run([sys.executable, "-c", LOST_STOP], capture_output=True, text=True, timeout=60)
    assert "Exception ignored" in done.stderr and "Terminated" in done.stderr, done.stderr
    assert done.stdout.strip() == "went on; recorded: True", done.stdout + done.stderr


def test_the_batch_stops_on_a_stop_whose_exception_was_dropped(monkeypatch):
    """A SIGTERM recorded while the pool's jobs run, its exception never raised in the batch: the
    batch sees the request at its next turn, stops every worker and raises Terminated."""
    import threading

    from autograder import batch
    from minesweeper_kit.shutdown import Terminated

    monkeypatch.setattr(batch, "_pool_job", crash_or_sleep)
    asked: list[int] = []
    monkeypatch.setattr(batch, "stops_requested", lambda: list(asked))
    raised: list[BaseException] = []

    def run() -> None:
        try:
            batch._run_in_pools([{"kind": "sleep"}, {"kind": "sleep"}], 2, lambda job, result: None)
        except BaseException as error:  # noqa: BLE001 - what the batch raises is the finding
            raised.append(error)

    worker = threading.Thread(target=run, daemon=True)
    worker.start()
    wait_for(lambda: len(multiprocessing.active_children()) >= 2, "the pool's workers")
    asked.append(signal.SIGTERM)
    worker.join(timeout=300)  # the jobs sleep 600 s: a batch that waits for them is still going
    assert not worker.is_alive(), "the batch went on after a stop it had recorded"
    assert len(raised) == 1 and isinstance(raised[0], Terminated), raised
    assert running_children() == []
