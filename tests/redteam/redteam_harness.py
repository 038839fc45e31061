"""Running a red-team battery as a real grader would: as root in this process, and as an
unprivileged user through the ``autograder`` command, side by side.

What the harness watches while a batch runs, from outside the sandboxes:

* the grader's own processes (not the sandboxes): their peak memory and CPU time;
* a TCP and UDP port on every address, an abstract unix socket and a unix socket file, none of
  which a sandbox may reach;
* afterwards, files named after the run's marker anywhere a write could land, and processes
  left behind (sandbox identities, the unprivileged user, the marker in a command line).
"""

from __future__ import annotations

import ast
import json
import os
import pwd
import re
import secrets
import shutil
import socket
import stat
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass
from pathlib import Path

from autograder.assignments import get_assignment, instructor_dir, notebooks_dir, originals_dir
from autograder.grading import GradeReport
from autograder.own_tests import tests_source
from autograder.references import reference_submission
from autograder.report import STAMP, student_dir

import redteam_cases as cases
from unprivileged import unprivileged_prefix

REPO = Path(__file__).resolve().parents[2]
MODES = ("root", "user")
SEED = 2024
LIMITS = {"time_limit": 10.0, "test_time_limit": 3.0, "memory_mb": 256}
#: The CPU battery's: its attacks burn until the budget stops them, so theirs is smaller.
CPU_LIMITS = {**LIMITS, "time_limit": cases.CPU_BUDGET}
UNPRIVILEGED_UID = cases.UNPRIVILEGED_UID
_CLOCK = os.sysconf("SC_CLK_TCK")


# ---------------------------------------------------------------------------- watching from outside
class GraderWatch:
    """Peak memory and CPU seconds of the grader's processes below ``root`` (not its sandboxes:
    bubblewrap and everything under it are left out), sampled until :meth:`stop`.

    With ``only_new``, processes already below ``root`` when the watch starts are not the grader's
    (in a whole test session they are servers other tests started, with minutes of CPU time of
    their own), so they and everything they start are left out."""

    def __init__(self, root: int, include_root: bool, exclude: set[int] | None = None, every: float = 0.2,
                 only_new: bool = False):
        self.root, self.include_root, self.exclude = root, include_root, set(exclude or ())
        self.every = every
        if only_new:
            self.exclude |= {pid for pid in self._graders() if pid != self.root}
        self.peak_kb: dict[int, int] = {}
        self.cpu_ticks: dict[int, int] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, daemon=True)
        self._thread.start()

    @staticmethod
    def _command(pid: int) -> bytes:
        try:
            return Path(f"/proc/{pid}/cmdline").read_bytes()
        except OSError:
            return b""

    def _graders(self) -> list[int]:
        """The processes below ``root`` (bubblewrap and what is under it left out), found through
        each one's ``/proc/PID/task/TID/children``: a few files a sample, however many processes
        the machine runs (a scan of ``/proc`` read every process's ``stat`` at every sample)."""
        found, todo = [], [self.root]
        while todo:
            pid = todo.pop()
            if pid in self.exclude:
                continue
            try:
                if Path(f"/proc/{pid}/comm").read_bytes().rstrip(b"\n") == b"bwrap":
                    continue
                below = []
                for task in os.listdir(f"/proc/{pid}/task"):  # a child belongs to the thread that made it
                    below += Path(f"/proc/{pid}/task/{task}/children").read_bytes().split()
            except OSError:  # it ended meanwhile
                continue
            if pid != self.root or self.include_root:
                found.append(pid)
            todo.extend(int(child) for child in below)
        return found

    def _sample(self) -> None:
        root_command = self._command(self.root)
        for pid in self._graders():
            if pid != self.root and root_command and self._command(pid) == root_command:
                # a fork of the root that has not run its program yet: it shows the root's own
                # memory (a test session's process, grown by every test before), not the grader's
                continue
            try:
                status = Path(f"/proc/{pid}/status").read_text()
                data = Path(f"/proc/{pid}/stat").read_bytes().rpartition(b")")[2].split()
            except (OSError, ValueError):
                continue
            for line in status.splitlines():
                if line.startswith("VmHWM:"):
                    self.peak_kb[pid] = max(self.peak_kb.get(pid, 0), int(line.split()[1]))
            self.cpu_ticks[pid] = max(self.cpu_ticks.get(pid, 0), int(data[11]) + int(data[12]))

    def _run(self) -> None:
        while not self._stop.is_set():
            self._sample()
            self._stop.wait(self.every)

    def stop(self) -> tuple[float, float]:
        """(peak memory of any one grader process in MB, CPU seconds of all of them)."""
        self._stop.set()
        self._thread.join()
        return max(self.peak_kb.values(), default=0) / 1024, sum(self.cpu_ticks.values()) / _CLOCK


class Listeners:
    """Ports and sockets on the host that no sandbox may reach; every contact is recorded."""

    def __init__(self, base: Path, abstract: str):
        self.contacts: list[str] = []
        self.tcp, self.udp, self.port = self._tcp_and_udp_on_one_port()
        self.abstract = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.abstract.bind("\0" + abstract)
        self.unixpath = str(base / "listener.sock")
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(self.unixpath)
        os.chmod(self.unixpath, 0o777)
        for server in (self.tcp, self.abstract, self.unix):
            server.listen(16)
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._serve, daemon=True)
        self._thread.start()

    @staticmethod
    def _tcp_and_udp_on_one_port(attempts: int = 20) -> tuple[socket.socket, socket.socket, int]:
        """A TCP and a UDP socket bound to one port number: the port the system gave the TCP socket
        may be in use for UDP, so another is tried then."""
        for _ in range(attempts):
            tcp = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
            tcp.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
            tcp.bind(("0.0.0.0", 0))
            port = tcp.getsockname()[1]
            udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
            try:
                udp.bind(("0.0.0.0", port))
            except OSError:
                tcp.close()
                udp.close()
                continue
            return tcp, udp, port
        raise RuntimeError(f"no port free for both TCP and UDP in {attempts} tries")

    def _serve(self) -> None:
        import select

        servers = [self.tcp, self.abstract, self.unix, self.udp]
        while not self._stop.is_set():
            ready, _, _ = select.select(servers, [], [], 0.2)
            for server in ready:
                if server is self.udp:
                    data, peer = server.recvfrom(4096)
                    self.contacts.append(f"udp from {peer}: {data[:60]!r}")
                else:
                    connection, peer = server.accept()
                    self.contacts.append(f"connection to {server.getsockname()!r} from {peer!r}")
                    connection.close()

    def close(self) -> None:
        self._stop.set()
        self._thread.join()
        for server in (self.tcp, self.udp, self.abstract, self.unix):
            server.close()


def host_address() -> str:
    """This machine's address on its default route (the sandbox must not reach it either)."""
    probe = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    try:
        probe.connect(("192.0.2.1", 9))
        return probe.getsockname()[0]
    except OSError:
        return "192.0.2.1"
    finally:
        probe.close()


SEARCHED = ["/tmp", "/var/tmp", "/dev/shm", "/run", "/etc", "/root", str(REPO)]


def files_named(marker: str, extra: list[str] = ()) -> list[str]:
    """Every file or folder whose name holds ``marker``, wherever a write could have landed."""
    return files_named_any([marker], extra)[marker]


def files_named_any(markers: list[str], extra: list[str] = ()) -> dict[str, list[str]]:
    """:func:`files_named` for several markers in one walk of the machine: each marker's files."""
    roots = [r for r in dict.fromkeys(SEARCHED + [str(e) for e in extra]) if os.path.exists(r)]
    names: list[str] = []
    for marker in markers:
        names += (["-o"] if names else []) + ["-name", f"*{marker}*"]
    found = subprocess.run(["find", *roots, "-xdev", "(", *names, ")"], capture_output=True, text=True)
    paths = sorted(set(found.stdout.split()))
    return {marker: [p for p in paths if marker in os.path.basename(p)] for marker in markers}


def files_holding(marker: str, folders: list[Path]) -> list[str]:
    """Files under ``folders`` whose bytes hold ``marker`` (a write into an existing file)."""
    hits = []
    for folder in folders:
        if folder.exists():
            found = subprocess.run(["grep", "-rlF", marker, str(folder)], capture_output=True, text=True)
            hits += found.stdout.split()
    return sorted(hits)


def tracked_files_holding(marker: str) -> list[str]:
    found = subprocess.run(["git", "grep", "-lF", marker], cwd=REPO, capture_output=True, text=True)
    return found.stdout.split()


def leftover_processes(base: Path, markers: list[str], wait: float = 5.0) -> list[str]:
    """Live processes a battery left behind: any whose command line or mounts name the stage's
    folder (a sandbox's mounts show its runtime folder, which lives there) or a marker, once
    killed ones have had ``wait`` seconds to go. Other people's processes never match."""
    needles = [str(base).encode()] + [m.encode() for m in markers]
    deadline = time.monotonic() + wait
    while True:
        left = []
        for entry in Path("/proc").iterdir():
            if not entry.name.isdigit() or int(entry.name) == os.getpid():
                continue
            try:
                status = (entry / "status").read_text()
                if any(line.startswith("State:") and "Z" in line.split()[1] for line in status.splitlines()):
                    continue
                cmdline = (entry / "cmdline").read_bytes()
                mounts = (entry / "mountinfo").read_bytes()
            except OSError:
                continue
            if any(n in cmdline or n in mounts for n in needles):
                left.append(f"{entry.name}: {cmdline.replace(bytes(1), b' ').decode(errors='replace')[:160]}")
        if not left or time.monotonic() > deadline:
            return sorted(left)
        time.sleep(0.2)


# ---------------------------------------------------------------------------- keyrings
_KEYCTL, _ADD_KEY = 250, 248
_SESSION_KEYRING = -3


def _libc():
    import ctypes

    return ctypes.CDLL(None, use_errno=True)


def grader_keyring(token: str) -> None:
    """Give this process (and so every grader it starts) a session keyring of its own holding a
    secret, as a login session holds its credentials."""
    libc = _libc()
    if libc.syscall(_KEYCTL, 1, f"redteam-{token}".encode()) < 0:  # KEYCTL_JOIN_SESSION_KEYRING
        raise OSError("could not make a session keyring for the red-team run")
    secret = f"grader-secret-{token}".encode()
    if libc.syscall(_ADD_KEY, b"user", b"redteam-grader-secret", secret, len(secret), _SESSION_KEYRING) < 0:
        raise OSError("could not put the grader's secret in its session keyring")


def clear_user_keyrings(uids: set[int]) -> None:
    """Empty the user keyrings a red-team case filled (they outlive the sandbox: see the case
    keyring_carried_to_the_next_sandbox), as each uid itself."""
    script = ("import ctypes; libc = ctypes.CDLL(None); libc.syscall(250, 1, None); "
              "libc.syscall(250, 8, -4, -3); libc.syscall(250, 5, libc.syscall(250, 0, -4, 0), 0x3f3f0000); "
              "libc.syscall(250, 7, -4)")  # write permission given back first: a case may take it away
    for uid in sorted(uids):
        subprocess.run(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", sys.executable, "-I",
                        "-S", "-c", script], capture_output=True, timeout=60)


def session_keys(description: str) -> bool:
    """Whether this process's session keyring holds a user key of that description."""
    return _libc().syscall(_KEYCTL, 10, _SESSION_KEYRING, b"user", description.encode(), 0) >= 0


# ---------------------------------------------------------------------------- one session's stage
PLANTED = {
    "conftest.py": "{write}\n",
    "pytest.ini": "[pytest]\naddopts = -p redteam_planted_plugin\n",
    "tox.ini": "[pytest]\naddopts = -p redteam_planted_plugin\n",
    "setup.cfg": "[tool:pytest]\naddopts = -p redteam_planted_plugin\n",
    "pyproject.toml": "[tool.pytest.ini_options]\naddopts = \"-p redteam_planted_plugin\"\n",
    "redteam_planted_plugin.py": "{write}\n",
    "sitecustomize.py": "{write}\n",
    "usercustomize.py": "{write}\n",
    "numpy.py": "{write}\n",
    "autograder.py": "{write}\n",
    "minesweeper_kit.py": "{write}\n",
    "_pytest.py": "{write}\n",
}


@dataclass
class Stage:
    """Everything a session's batteries share: folders, listeners, markers, the planted files."""

    base: Path
    world: Path                 #: a world-writable folder holding a copy of the instructor folder
    instructor: Path
    listeners: Listeners
    markers: dict[str, str]     #: per mode
    planted_marker: str
    host_ip: str

    @classmethod
    def create(cls) -> "Stage":
        base = Path(tempfile.mkdtemp(prefix="redteam-"))
        os.chmod(base, 0o755)
        world = base / "world"
        world.mkdir()
        os.chmod(world, 0o1777)
        instructor = world / "instructor"
        shutil.copytree(instructor_dir(), instructor, ignore=shutil.ignore_patterns("__pycache__"))
        token = secrets.token_hex(6)
        markers = {mode: f"rtm{mode}{token}" for mode in MODES}
        planted = f"rtmplanted{token}"
        write = (f"open({str(world)!r} + '/{planted}-' + __name__, 'w').write('imported')\n"
                 f"open('/tmp/{planted}-' + __name__, 'w').write('imported')")
        for name, text in PLANTED.items():
            (world / name).write_text(text.replace("{write}", write))
        for mode in MODES:
            for name in ("home", "tmp"):
                folder = base / f"{name}-{mode}"
                folder.mkdir()
                if mode == "user":
                    os.chown(folder, UNPRIVILEGED_UID, pwd.getpwuid(UNPRIVILEGED_UID).pw_gid)
        listeners = Listeners(base, f"{markers['root']}-host")
        grader_keyring(token)
        return cls(base, world, instructor, listeners, markers, planted, host_address())

    def values(self, mode: str, assignment: str, results: Path, submitted: Path) -> dict[str, str]:
        real = instructor_dir()
        suite = get_assignment(assignment).suite_path
        return {
            "marker": self.markers[mode], "port": str(self.listeners.port),
            "abstract": f"{self.markers['root']}-host", "unixpath": self.listeners.unixpath,
            "host_ip": self.host_ip, "checkout": str(REPO),
            "suite": str(real / "suites" / suite.name), "suite_copy": str(self.instructor / "suites" / suite.name),
            "reference": str(real / "reference" / "hypermines.py"),
            "reference_copy": str(self.instructor / "reference" / "hypermines.py"),
            "notebook": str(notebooks_dir() / "04-nd-dig.ipynb"),
            "originals": str(originals_dir() / "hypermines" / "test_outputs" / "test_integration1.json"),
            "results": str(results), "submitted": str(submitted), "home": str(self.home(mode)),
            "world": str(self.world), "forbidden": repr(cases.FORBIDDEN_KIT),
        }

    def home(self, mode: str) -> Path:
        return Path("/root") if mode == "root" else self.base / "home-user"

    def environment(self, mode: str) -> dict[str, str]:
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": str(self.home(mode)),
                "TMPDIR": str(self.base / f"tmp-{mode}"), "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1",
                "AUTOGRADER_INSTRUCTOR_DIR": str(self.instructor)}

    def close(self) -> None:
        self.listeners.close()
        shutil.rmtree(self.base, ignore_errors=True)


# ---------------------------------------------------------------------------- one battery
@dataclass
class Run:
    """One battery graded in one mode, and what was seen from outside while it ran."""

    mode: str
    assignment: str
    results: Path
    submitted: Path
    reports: dict[str, GradeReport]
    peak_mb: float
    grader_cpu: float
    survivors: list[str]
    exit_code: int = 0
    output: str = ""
    error: str = ""
    seconds: float = 0.0

    def feedback(self, student: str) -> str:
        return (student_dir(self.results, student) / "feedback.txt").read_text(encoding="utf-8")

    def results_json(self, student: str) -> dict:
        return json.loads((student_dir(self.results, student) / "results.json").read_text(encoding="utf-8"))


def build_submissions(stage: Stage, mode: str, assignment: str, battery: list[cases.Case], folder: Path,
                      results: Path) -> None:
    """One folder per case, each holding ``lab.py`` (or a notebook, a link, a FIFO; for a
    "reference-source" case, the assignment's reference as ``lab.py``, without its own tests)."""
    reference = (instructor_dir() / "reference" / "hypermines.py").read_text(encoding="utf-8")
    values = stage.values(mode, assignment, results, folder)
    notebook = get_assignment(assignment).notebook_path
    for case in battery:
        student = folder / case.name
        student.mkdir(parents=True)
        target = student / f"{case.file_name}{case.suffix}"
        if case.kind == "link-file":
            target.symlink_to(stage.instructor / "reference" / "hypermines.py")
        elif case.kind == "link-folder":
            (student / "sub").symlink_to(stage.instructor / "reference")
        elif case.kind == "fifo":
            os.mkfifo(target)
        elif case.kind == "notebook-source":
            shutil.copyfile(notebook, student / notebook.name)
        elif case.kind == "reference-source":
            target.write_text(solution_alone(assignment), encoding="utf-8")
        else:
            target.write_bytes(case.text(values, reference))


def solution_alone(assignment: str) -> str:
    """The step's reference without the tests its notebook's solution cells hold (its top-level
    ``test*`` functions, each up to the next definition): a file the grader finds no own tests in,
    so grading it costs no sandbox per implementation."""
    source = reference_submission(get_assignment(assignment)).source
    body = ast.parse(source).body
    lines = source.splitlines(keepends=True)
    starts = [(n.decorator_list[0] if getattr(n, "decorator_list", None) else n).lineno - 1 for n in body]
    for index in reversed(range(len(body))):
        node = body[index]
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name.startswith("test"):
            del lines[starts[index]:starts[index + 1] if index + 1 < len(body) else len(lines)]
    alone = "".join(lines)
    assert tests_source(get_assignment(assignment), alone, None) is None, f"own tests left in {assignment}'s reference"
    return alone


def _readable(path: Path) -> None:
    for root, dirs, files in os.walk(path):
        os.chmod(root, 0o755)
        for name in files:
            full = os.path.join(root, name)
            if not os.path.islink(full) and stat.S_ISREG(os.lstat(full).st_mode):
                os.chmod(full, 0o644)


def _reports_on_disk(results: Path) -> dict[str, GradeReport]:
    reports = {}
    for record in results.glob("students/*/.report.json"):
        report = GradeReport.from_dict(json.loads(record.read_text(encoding="utf-8")))
        reports[report.student] = report
    return reports


def grade_args(assignment: str, settings: dict | None, limits: dict = LIMITS, jobs: int = 2) -> list[str]:
    """The options of a red-team grade: ``-j 2`` by default, as in a battery (two sandboxes side by
    side, and the pool's grader processes for the watch); ``jobs`` 1 where that is not the subject."""
    args = ["--seed", str(SEED), "--time-limit", str(limits["time_limit"]), "--test-time-limit",
            str(limits["test_time_limit"]), "--memory-mb", str(limits["memory_mb"]), "-j", str(jobs), "--no-progress"]
    if settings and settings.get("bot_games"):
        args += ["--bot-games", str(settings["bot_games"])]
    return args


def start_user_grading(stage: Stage, assignment: str, paths: list[Path], results: Path,
                       settings: dict | None = None, extra: list[str] = (), limits: dict = LIMITS,
                       jobs: int = 2) -> subprocess.Popen:
    """``autograder grade`` as the unprivileged user (results folder made theirs first)."""
    results.mkdir(parents=True, exist_ok=True)
    gid = pwd.getpwuid(UNPRIVILEGED_UID).pw_gid
    for root, dirs, files in os.walk(results):
        os.chown(root, UNPRIVILEGED_UID, gid)
        for name in files:
            os.chown(os.path.join(root, name), UNPRIVILEGED_UID, gid, follow_symlinks=False)
    command = [sys.executable, "-m", "autograder.cli", "grade", "--assignment", assignment, *[str(p) for p in paths],
               "--results-dir", str(results), "--csv", str(results / "grades.csv"),
               *grade_args(assignment, settings, limits, jobs), *extra]
    return subprocess.Popen(unprivileged_prefix(stage.base) + command, cwd=stage.base, env=stage.environment("user"),
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)


def run_root(stage: Stage, assignment: str, paths: list[Path], results: Path, settings: dict | None = None,
             force: bool = False, limits: dict = LIMITS, jobs: int = 2):
    """grade_batch in this process, as root, with the session's instructor copy."""
    from autograder.batch import grade_batch

    saved = {k: os.environ.get(k) for k in ("AUTOGRADER_INSTRUCTOR_DIR", "TMPDIR")}
    os.environ["AUTOGRADER_INSTRUCTOR_DIR"] = str(stage.instructor)
    os.environ["TMPDIR"] = str(stage.base / "tmp-root")
    tempfile.tempdir = None
    try:
        return grade_batch(assignment, paths, results, csv_path=results / "grades.csv", jobs=jobs, seed=SEED,
                           time_limit=limits["time_limit"], test_time_limit=limits["test_time_limit"],
                           memory_mb=limits["memory_mb"], progress=False, settings=settings, force=force)
    finally:
        for key, value in saved.items():
            if value is None:
                os.environ.pop(key, None)
            else:
                os.environ[key] = value
        tempfile.tempdir = None


def run_battery(stage: Stage, assignment: str, battery: list[cases.Case], settings: dict | None = None,
                name: str | None = None, limits: dict = LIMITS) -> dict[str, Run]:
    """Grade ``battery`` in both modes at once: the unprivileged command in the background, the
    root batch in this process; each watched from outside. ``name`` tells apart two batteries of
    one assignment (their folders); ``limits`` are the grader's (:data:`LIMITS` by default)."""
    folders = {}
    for mode in MODES:
        top = stage.base / f"{name or assignment}-{mode}"
        submitted, results = top / "submitted", top / "results"
        build_submissions(stage, mode, assignment, battery, submitted, results)
        _readable(top)
        folders[mode] = (submitted, results)
    started = time.monotonic()
    user = start_user_grading(stage, assignment, [folders["user"][0]], folders["user"][1], settings, limits=limits)
    user_watch = GraderWatch(user.pid, include_root=True)
    root_watch = GraderWatch(os.getpid(), include_root=False, exclude={user.pid}, only_new=True)
    error = ""
    try:
        try:
            run_root(stage, assignment, [folders["root"][0]], folders["root"][1], settings, limits=limits)
        except Exception as failure:  # noqa: BLE001 - recorded; the tests say what was expected
            error = f"{type(failure).__name__}: {failure}"
        root_seconds = time.monotonic() - started
        root_peak, root_cpu = root_watch.stop()
        try:
            output, user_error = user.communicate(timeout=900)
        except subprocess.TimeoutExpired:
            os.killpg(user.pid, 9)
            output, user_error = user.communicate()
    except BaseException:  # Ctrl+C or SIGTERM: the grader in the background stops with the run
        try:
            os.killpg(user.pid, 15)  # it stops its workers and sandboxes in order
            user.wait(timeout=120)
        except subprocess.TimeoutExpired:
            os.killpg(user.pid, 9)
        except ProcessLookupError:  # it had ended already
            pass
        raise
    user_peak, user_cpu = user_watch.stop()
    survivors = leftover_processes(stage.base, list(stage.markers.values()))
    runs = {}
    for mode in MODES:
        submitted, results = folders[mode]
        runs[mode] = Run(mode, assignment, results, submitted, _reports_on_disk(results),
                         root_peak if mode == "root" else user_peak, root_cpu if mode == "root" else user_cpu,
                         survivors)
    runs["root"].error, runs["root"].seconds = error, root_seconds
    runs["user"].exit_code, runs["user"].output, runs["user"].error = user.returncode, output, user_error
    runs["user"].seconds = time.monotonic() - started
    return runs


# ---------------------------------------------------------------------------- a resumed batch
@dataclass
class Resumed:
    """A second batch over the results of the first, after forged records were left in them."""

    mode: str
    reports: dict[str, GradeReport]
    graded: list[str]
    kept: list[str]
    error: str
    results: Path


def _forge(results: Path, honest: str, student: str, owner: int | None) -> None:
    """Leave a forged full-marks record for ``student``: the honest student's signed files,
    relabelled (the MAC then no longer matches) or copied as they are (a replay)."""
    source, target = student_dir(results, honest), student_dir(results, student)
    target.mkdir(exist_ok=True)
    for name in ("results.json", "feedback.txt", ".report.json", "grader.json"):
        data = (source / name).read_text(encoding="utf-8")
        if student == "forger-fresh":
            data = data.replace(f'"{honest}"', f'"{student}"')
        (target / name).write_text(data, encoding="utf-8")
    if owner is not None:
        gid = pwd.getpwuid(owner).pw_gid
        for path in [target, *target.iterdir()]:
            os.chown(path, owner, gid)


def run_resumed(stage: Stage, first: dict[str, Run]) -> dict[str, Resumed]:
    """Forge records for two students, then grade again without --force in both modes."""
    runs = {}
    jobs = {}
    for mode in MODES:
        run = first[mode]
        late = run.submitted.parent / "late" / "forger-fresh"
        late.mkdir(parents=True)
        (late / "lab.py").write_text("x = 1\n")
        _readable(late.parent)
        owner = UNPRIVILEGED_UID if mode == "user" else None
        for student in ("forger-replay", "forger-fresh"):
            _forge(run.results, "02-honest", student, owner)
        jobs[mode] = [run.submitted / "forger-replay", run.submitted / "02-honest", late]
    user = start_user_grading(stage, "hypermines", jobs["user"], first["user"].results, jobs=1)
    try:
        batch = run_root(stage, "hypermines", jobs["root"], first["root"].results, jobs=1)
        runs["root"] = Resumed("root", {r.student: r for r in batch.reports}, batch.graded, batch.skipped, "",
                               first["root"].results)
    except Exception as failure:  # noqa: BLE001
        runs["root"] = Resumed("root", {}, [], [], f"{type(failure).__name__}: {failure}", first["root"].results)
    output, error = user.communicate(timeout=900)
    graded = kept = []
    for line in output.splitlines():
        if line.startswith("seed ") and "graded" in line:
            numbers = [int(n) for n in re.findall(r"graded (\d+), kept (\d+)", line)[0]]
            graded, kept = ["?"] * numbers[0], ["?"] * numbers[1]
    reports = _reports_on_disk(first["user"].results)
    runs["user"] = Resumed("user", reports, graded, kept, error if user.returncode else "", first["user"].results)
    return runs


# ---------------------------------------------------------------------------- colliding names
def run_collision(stage: Stage, mode: str, names: tuple[str, str]) -> tuple[str, Path]:
    """Grade two files whose students would share a results folder; the error, if the batch failed."""
    folder = stage.base / f"collide-{mode}-{secrets.token_hex(3)}"
    (folder / "submitted").mkdir(parents=True)
    for name in names:
        (folder / "submitted" / name).write_text("x = 1\n")
    _readable(folder)
    results = folder / "results"
    files = [folder / "submitted" / name for name in names]
    if mode == "root":
        try:
            run_root(stage, "hypermines", files, results, jobs=1)
        except ValueError as error:
            return str(error), results
        return "", results
    process = start_user_grading(stage, "hypermines", files, results, jobs=1)
    output, error = process.communicate(timeout=600)
    return ("" if process.returncode == 0 else f"exit {process.returncode}: {error[-500:]}"), results


def plain_pytest_imports_the_plant(stage: Stage) -> list[str]:
    """The control for the planted files: the same conftest.py and pytest.ini above a copy of a
    suite are imported by a plain ``pytest`` run (so their absence in real runs means something)."""
    control = stage.base / "control"
    suites = control / "instructor" / "suites"
    suites.mkdir(parents=True)
    shutil.copyfile(stage.instructor / "suites" / "test_make_board.py", suites / "test_make_board.py")
    marker = stage.planted_marker + "control"
    write = f"open({str(control)!r} + '/{marker}-' + __name__, 'w').write('imported')\n"
    for name in ("conftest.py", "redteam_planted_plugin.py"):
        (control / name).write_text(write)
    (control / "pytest.ini").write_text(PLANTED["pytest.ini"])
    env = {k: v for k, v in os.environ.items() if not k.startswith("PYTEST")}
    subprocess.run([sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(suites)],
                   cwd=control, env=env, capture_output=True, timeout=300)
    return files_named(marker, [control])


# ---------------------------------------------------------------------------- running the commands one by one
def readable(top: Path) -> None:
    """Folders 0755 and files 0644 below ``top``, links left alone: the unprivileged user reads
    what an honest submission is, so a refusal can only come from the link."""
    for where, _, files in os.walk(top):
        os.chmod(where, 0o755)
        for name in files:
            path = os.path.join(where, name)
            if not os.path.islink(path):
                os.chmod(path, 0o644)


def give_to_user(folder: Path) -> None:
    folder.mkdir(parents=True, exist_ok=True)
    os.chown(folder, UNPRIVILEGED_UID, pwd.getpwuid(UNPRIVILEGED_UID).pw_gid)


def start(stage, mode: str, command: list[str], env: dict[str, str] | None = None,
          cwd: Path | None = None) -> subprocess.Popen:
    """``command`` as root, or as the unprivileged user through setpriv (in ``cwd``, by default
    the stage's folder)."""
    if mode == "user":
        command = unprivileged_prefix(stage.base) + command
    return subprocess.Popen(command, cwd=cwd or stage.base, env=env or stage.environment(mode), stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, start_new_session=True)


def finish(processes: dict[str, subprocess.Popen]) -> dict[str, subprocess.CompletedProcess]:
    """Wait for the commands of both modes (started together); a stopped test stops them."""
    done = {}
    try:
        for mode, process in processes.items():
            out, err = process.communicate(timeout=600)
            done[mode] = subprocess.CompletedProcess(process.args, process.returncode, out, err)
    finally:
        for process in processes.values():
            if process.poll() is None:
                os.killpg(process.pid, 9)
                process.wait()
    return done


def grade(stage, mode: str, paths: list[Path], results: Path, *extra: str, cwd: Path | None = None) -> subprocess.Popen:
    """``autograder grade --assignment hypermines`` with the red team's limits, one worker."""
    if mode == "user":
        give_to_user(results)
    command = [sys.executable, "-m", "autograder.cli", "grade", "--assignment", "hypermines",
               *[str(p) for p in paths], "--results-dir", str(results), "--csv", str(results / "grades.csv"),
               *grade_args("hypermines", None, jobs=1), *extra]
    return start(stage, mode, command, cwd=cwd)


def results_of(results: Path, student: str) -> tuple[dict, str, dict]:
    """results.json, feedback.txt and the signed grader.json of one student."""
    folder = student_dir(results, student)
    return (json.loads((folder / "results.json").read_text(encoding="utf-8")),
            (folder / "feedback.txt").read_text(encoding="utf-8"),
            json.loads((folder / STAMP).read_text(encoding="utf-8")))
