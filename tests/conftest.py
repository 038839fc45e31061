"""Session fixtures shared across test folders, and how `make test` spreads the suite over cores.

The browser fixtures live here, above tests/browser and tests/notebooks, so one JupyterLab and one
Chromium serve every browser test of a run (a fixture defined in two conftest files would start
two servers).

`make test` runs pytest-xdist workers with ``--dist loadgroup``. `pytest_collection_modifyitems`
gives every test a group: the tests sharing an expensive session fixture (the JupyterLab and
Chromium, the nbgrader course, the red-team stage) form one group each, so each of those is built
once; a test marked with a group of its own keeps it (a module whose fixture serves its tests in
parts, as test_mutants' batches serve one step each); every other test is grouped by its file, so
module fixtures are built once too. The groups
that take longest come first, so no worker is left with a long group at the end.

SIGTERM stops a run in order, as Ctrl+C does (`pytest_configure`): the controller passes it on to
its workers, and every process tears its fixtures down, so the servers, kernels, browser and
sandboxes they started end with the run. A worker whose controller ends however it ends gets
SIGTERM from the kernel, and so does JupyterLab when its worker ends (tests/browser/support.py).
`make test` starts pytest with `exec`, so the SIGTERM make passes on to its recipe reaches pytest.

A run ends, with every result, whatever a test does: a worker that crashes fails the test it ran
and hands the rest on (group_scheduling.py), and every process that runs tests has a memory bound
(memory_bound.py); tests/test_run_ends.py shows both.

This is the suite's only conftest.py. The fixtures of a folder live in a plugin module beside its
tests (``pytest_plugins`` below), loaded from here for every run: pytest 9.1 loses the fixtures of a
subfolder's conftest.py when the command line names a file of the parent folder between two files
of the subfolder, so a list of files that ran alone failed at set-up in a larger list. Loaded here,
every fixture is found wherever its test lives and whatever else the command line names
(tests/test_subsets.py).
"""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import sys
import tempfile
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
# The folders whose helpers are imported by name (grader_testkit, notebook_tools, redteam_harness).
for _folder in ("autograder", "notebooks", "redteam"):
    if str(TESTS / _folder) not in sys.path:
        sys.path.insert(0, str(TESTS / _folder))

# The fixtures of tests/autograder, tests/notebooks and tests/redteam.
pytest_plugins = ["grader_fixtures", "notebook_fixtures", "redteam_fixtures"]

from browser.support import CHROMIUM, CHROMIUM_ARGS, Lab, Notebook, end_lab_test, failure_shot, load_lab, open_notebook  # noqa: E402
from group_scheduling import GroupScheduling  # noqa: E402
from memory_bound import NOTES_VARIABLE, MemoryWatch, bound_from_environment, release_frames  # noqa: E402
from minesweeper_kit.shutdown import die_with_parent, stop_on_sigterm  # noqa: E402


# Session fixtures costly enough that all their users must share one worker, and the group they form.
SHARED_SERVERS = {"lab": "browser", "browser": "browser", "page": "browser", "notebook": "browser",
                  "lab_page": "browser", "course": "nbgrader", "stage": "redteam"}
# The marker a test gets from a fixture it uses, beside any its file gives it: `make check` leaves
# out the tests marked browser, nbgrader, venv or slow.
MARKED_BY_FIXTURE = {"lab": "browser", "browser": "browser", "page": "browser", "notebook": "browser",
                     "lab_page": "browser", "course": "nbgrader", "release_folder": "nbgrader"}
# Files (or folders) whose tests share a set-up of a minute or more, or each start whole runs,
# servers or batches: `slow` for every test in them, so `make check` leaves them out. Kept here, in
# one list, rather than in each file.
SLOW_FILES = ("tests/redteam/", "tests/test_signals.py", "tests/test_lab.py", "tests/test_run_ends.py",
              "tests/autograder/test_not_graded.py", "tests/autograder/test_course_cycle.py",
              "tests/autograder/test_hostile.py", "tests/autograder/test_dask.py",
              "tests/autograder/test_misconceptions.py")
# Groups known to take minutes, started first (longest first, as measured with --durations); the
# rest follow in file order.
LONG_GROUPS = ("browser", "nbgrader", "tests/notebooks/test_workspace.py", "mutants-flood-fill", "redteam",
               "mutants-bots", "tests/test_stands_alone.py", "tests/test_autograder_install.py",
               "tests/autograder/test_deterministic_grades.py",
               "tests/autograder/test_mutants.py", "mutants-neighbors", "mutants-hypermines", "mutants-make-board",
               "tests/autograder/test_hostile.py", "tests/autograder/test_nbgrader_course.py")


# The process ids of this run's pytest-xdist workers by their names (gw0...), on the controller.
WORKERS: dict[str, int] = {}
# The memory bound of this process, if it runs tests (memory_bound.py).
MEMORY: MemoryWatch | None = None
# The folder of the workers' notes, on a controller that made one.
NOTES = pytest.StashKey[str]()
# On a test whose call failed: the page fixture's teardown then screenshots the page (and loads the
# session's JupyterLab again, if the test used it).
FAILED = pytest.StashKey[bool]()


def pytest_configure(config):
    global MEMORY
    if hasattr(config, "workerinput"):  # a pytest-xdist worker
        stop_on_sigterm(before=_finish_teardown)
        die_with_parent(os.getppid())
        MEMORY = MemoryWatch(bound_from_environment())
        _sigint_as_from_a_terminal()
    else:
        stop_on_sigterm(before=_stop_workers)
        if config.getoption("dist", "no") == "no":  # this process runs the tests
            MEMORY = MemoryWatch(bound_from_environment())
            _sigint_as_from_a_terminal()
        else:  # the controller: where its workers leave a note on the test whose memory ended them
            config.stash[NOTES] = os.environ[NOTES_VARIABLE] = tempfile.mkdtemp(prefix="pytest-notes-")
    if MEMORY is not None:
        MEMORY.start()


def _sigint_as_from_a_terminal() -> None:
    """A run started in the background by a shell (``make test &``, a script's job) inherits SIGINT
    ignored, and an ignored signal stays ignored in every process started from it: the commands the
    tests stop with Ctrl+C (a batch, `mines lab`, a web board) would rightly ignore it, as under
    ``nohup``, and those tests would fail. The process that runs the tests takes Python's own
    handler, as it has when started from a terminal; its children then start with the default."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_unconfigure(config):
    if MEMORY is not None:
        MEMORY.stop()
    if NOTES in config.stash:  # made by this run (an inner run may have inherited another's)
        shutil.rmtree(config.stash[NOTES], ignore_errors=True)


def _memory_phase():
    """The body of a wrapper around a test's set-up, call or teardown: while it runs, a memory
    failure may be raised in it (memory_bound.py)."""
    if MEMORY is None:
        return (yield)
    MEMORY.phase(True)
    try:
        return (yield)
    finally:
        MEMORY.phase(False)


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_protocol(item, nextitem):
    if MEMORY is None:
        return (yield)
    MEMORY.begin(item.nodeid)
    try:
        return (yield)
    finally:
        MEMORY.end()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_setup(item):
    return (yield from _memory_phase())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_call(item):
    return (yield from _memory_phase())


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_teardown(item, nextitem):
    return (yield from _memory_phase())


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item, call):
    report = yield
    if call.excinfo is not None:
        release_frames(call.excinfo.value)
    if report.failed and call.when == "call":
        item.stash[FAILED] = True
    lab = getattr(item, "funcargs", {}).get("lab")
    if report.failed and call.when == "call" and isinstance(lab, Lab):  # a lost kernel or socket shows there
        report.sections.append(("JupyterLab's log, its last lines", lab.log_tail()))
    return report


@pytest.hookimpl(optionalhook=True)
def pytest_handlecrashitem(crashitem, report, sched):
    """A worker that a test's memory ended left a note saying so: add it to the crash report."""
    note = Path(os.environ.get(NOTES_VARIABLE, "/nonexistent"), f"{WORKERS.get(report.node.gateway.id)}.txt")
    if note.is_file():
        report.longrepr = f"{report.longrepr}\n{note.read_text(encoding='utf-8').strip()}"


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_newgateway(gateway):
    # execnet's own record of the worker, which pytest-xdist reads too: there is no public one
    WORKERS[gateway.id] = gateway._rinfo().pid


@pytest.hookimpl(optionalhook=True)
def pytest_xdist_make_scheduler(config, log):
    """``--dist loadgroup`` by a scheduler whose run ends when a worker crashes (group_scheduling.py)."""
    return GroupScheduling(config, log) if config.getvalue("dist") == "loadgroup" else None


def _stop_workers() -> None:
    """Pass SIGTERM on to the workers still running as this process's children: each tears its
    fixtures down at once, as on Ctrl+C, rather than when the controller's shutdown reaches it."""
    for pid in WORKERS.values():
        with contextlib.suppress(OSError, ValueError, IndexError):
            if int(Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]) == os.getpid():
                os.kill(pid, signal.SIGTERM)


def _finish_teardown() -> None:
    """On a worker told to stop: ignore SIGINT from now on. The controller's shutdown sends one to a
    worker still busy after 5 s (execnet), which would cut the teardown short, JupyterLab's included;
    the controller still ends a worker that takes more than 10 s."""
    signal.signal(signal.SIGINT, lambda number, frame: None)


def shared_groups(items: list[pytest.Item]) -> dict[str, str]:
    """Each shared-server group mapped to the group it runs in: one test needing two servers joins them."""
    joined = {group: group for group in SHARED_SERVERS.values()}

    def find(group: str) -> str:
        while joined[group] != group:
            group = joined[group]
        return group

    for item in items:
        needed = sorted({find(SHARED_SERVERS[f]) for f in getattr(item, "fixturenames", ()) if f in SHARED_SERVERS})
        for other in needed[1:]:
            joined[other] = needed[0]
    return {group: find(group) for group in joined}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups, and before -m selects
def pytest_collection_modifyitems(config, items):
    for item in items:
        for marker in sorted({MARKED_BY_FIXTURE[f] for f in getattr(item, "fixturenames", ()) if f in MARKED_BY_FIXTURE}):
            item.add_marker(marker)
        if item.nodeid.startswith(SLOW_FILES):
            item.add_marker("slow")
    # The workers collect (and pytest-xdist names each test by its group there); on a worker, the
    # option "dist" reads "no" and "loadgroup" says what was asked.
    if config.getoption("dist", "no") == "no" and not getattr(config.option, "loadgroup", False):
        return
    joined = shared_groups(items)
    groups: dict[str, list[pytest.Item]] = {}
    for item in items:
        servers = [joined[SHARED_SERVERS[f]] for f in getattr(item, "fixturenames", ()) if f in SHARED_SERVERS]
        own = item.get_closest_marker("xdist_group")
        if servers:
            group = servers[0]
        elif own:  # a module that splits itself by its own fixtures' needs (test_mutants: by step)
            group = own.kwargs.get("name", own.args[0] if own.args else "")
        else:
            group = item.nodeid.split("::", 1)[0]
        if not own or servers:
            item.add_marker(pytest.mark.xdist_group(group))
        groups.setdefault(group, []).append(item)
    first = [g for g in LONG_GROUPS if g in groups]
    items[:] = [item for g in first + [g for g in groups if g not in first] for item in groups[g]]


@pytest.fixture(scope="session")
def chromium_path() -> Path:
    if not CHROMIUM.exists():
        pytest.fail(f"Chromium is missing at {CHROMIUM}: install Debian's 'chromium' package")
    return CHROMIUM


@pytest.fixture(scope="session")
def lab(tmp_path_factory):
    # the app on its page as window.jupyterapp, where each test opens its notebook (lab_page)
    server = Lab(tmp_path_factory.mktemp("lab"), ("--LabApp.expose_app_in_browser=True",))
    yield server
    server.stop()


@pytest.fixture(scope="session")
def browser(chromium_path):
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(executable_path=str(chromium_path), args=CHROMIUM_ARGS,
                                     headless=True)
        yield chromium
        chromium.close()


@pytest.fixture(scope="session")
def lab_page(browser, lab):
    """One page holding the session's JupyterLab, loaded once: each test that uses the lab opens its
    notebook in the running app (support.open_in_lab) rather than loading the whole app again."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    load_lab(page, lab)
    yield page
    context.close()


@pytest.fixture
def page(browser, request):
    """The page a test drives: for a test that uses the lab, the session's JupyterLab page, its
    documents closed and its kernels ended after the test; for any other, a context of its own.
    A failed test leaves a screenshot of it in test-artifacts/browser/."""
    if "lab" in request.fixturenames:
        lab, page = request.getfixturevalue("lab"), request.getfixturevalue("lab_page")
        yield page
        if failed := request.node.stash.get(FAILED, False):
            failure_shot(page, request.node.nodeid)
        end_lab_test(page, lab, failed)
        return
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    page.set_default_timeout(60_000)
    yield page
    if request.node.stash.get(FAILED, False):
        failure_shot(page, request.node.nodeid)
    context.close()


@pytest.fixture
def notebook(page, lab):
    def opener(name: str, cells: list[str]) -> Notebook:
        return open_notebook(page, lab, name, cells)

    return opener
