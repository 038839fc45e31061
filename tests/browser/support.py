"""Helpers for the browser tests: a real JupyterLab on loopback, notebooks run cell by cell in Chromium.

The server starts once per test session in a temporary folder with a token and is stopped at the
end (the token reaches it through a file named in JUPYTER_TOKEN_FILE, never on its command line,
which every user of the machine can read); every test writes its notebook into that folder, opens
it in Chromium, runs its cells one by one and reads the Python side back by re-running a probe cell
that prints JSON. The session fixtures that start the server and the browser are in
tests/conftest.py, shared by every folder that drives a browser.

Screenshots go to test-artifacts/browser/: one of the page a browser test failed on (failure_shot),
and those of a step that went wrong or needed help (a run lost and given again, a cell that did not
start), always; those of every step of a passing test only when asked, with
MINESWEEPER_SCREENSHOTS=1 in the environment (`MINESWEEPER_SCREENSHOTS=1 make test`), as they cost
time and no test reads them.

JupyterLab is loaded once per session, too, in one page (the fixture lab_page): loading the whole
app costs more than most tests, and what a test looks at is its notebook, not the app's boot. Each
test opens its own notebook file in the running app (open_in_lab), with a kernel and widget views of
its own; afterwards every document is closed and the test's kernels are ended (end_lab_test), and a
page a test failed on is loaded again. The app's boot is still exercised: by the first test of the
session, which loads it, and by tests/browser/test_notebook7.py, which loads Notebook 7 in a page
of its own (the tests that use no lab, the class pages and `mines play --web`, have a fresh
context each, as before).
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextlib
import json
import os
import re
import secrets
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

import nbformat
import pytest
from jupyter_port import bound_port, free_port

from minesweeper_kit.shutdown import dies_with_this_process
from minesweeper_kit.widgets.web import token_environment

CHROMIUM = Path(os.environ.get("CHROMIUM", "/usr/bin/chromium"))
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync"]
ARTIFACTS = Path(__file__).resolve().parents[2] / "test-artifacts" / "browser"


def screenshots_asked() -> bool:
    """Whether the steps of passing tests are screenshot too (MINESWEEPER_SCREENSHOTS=1)."""
    return os.environ.get("MINESWEEPER_SCREENSHOTS", "") not in ("", "0")


def step_shot(page, name: str, full_page: bool = False, always: bool = False) -> Path | None:
    """A screenshot of the page as test-artifacts/browser/<name>.png: when asked, or `always` (a step
    that went wrong or needed help)."""
    if not (always or screenshots_asked()):
        return None
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    path = ARTIFACTS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def failure_shot(page, test: str) -> None:
    """One screenshot of the page a browser test failed on, named after the test. It is there to
    diagnose the failure, so a page that cannot be screenshot any more fails nothing."""
    with contextlib.suppress(Exception):
        step_shot(page, "failed-" + re.sub(r"[^\w.-]+", "-", test.removeprefix("tests/")).strip("-"), always=True)


class Lab:
    """A JupyterLab server this test session started; `options` are added to its command line.

    It runs in a session of its own (Ctrl+C in the terminal reaches the tests, which stop it in
    order) and gets SIGTERM from the kernel if the process that started it ends first, whereupon
    it shuts its kernels down itself."""

    def __init__(self, root: Path, options: tuple[str, ...] = ()) -> None:
        self.root = root
        self.token = secrets.token_hex(16)
        settings = root / ".settings"
        notification = settings / "@jupyterlab" / "apputils-extension"
        notification.mkdir(parents=True)
        (notification / "notification.jupyterlab-settings").write_text(
            json.dumps({"fetchNews": "false", "checkForUpdates": False}))
        self.notebooks = root / "notebooks"
        self.notebooks.mkdir()
        env = token_environment(dict(os.environ, JUPYTER_CONFIG_DIR=str(root / ".config"),
                                     JUPYTER_RUNTIME_DIR=str(root / ".runtime"), PYTHONUNBUFFERED="1"),
                                root, self.token)
        self.log = open(root / "lab.log", "w")
        self.process = subprocess.Popen(
            [sys.executable, "-m", "jupyterlab", "--no-browser", "--ip=127.0.0.1",
             f"--port={free_port()}", f"--ServerApp.root_dir={self.notebooks}",
             f"--LabApp.user_settings_dir={settings}",
             f"--LabApp.workspaces_dir={root / '.workspaces'}",
             "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate",
             "--ServerApp.open_browser=False", "--allow-root", *options],
            stdout=self.log, stderr=subprocess.STDOUT, env=env, start_new_session=True,
            preexec_fn=dies_with_this_process())
        try:
            self._wait_ready()
        except BaseException:  # a fixture that fails to start is never torn down: stop it here
            self.stop()
            raise

    def _wait_ready(self, timeout: float = 90) -> None:
        deadline = time.monotonic() + timeout
        self.port = bound_port(self.root / ".runtime", self.process, self.log_tail, timeout)
        self.url = f"http://127.0.0.1:{self.port}"
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise RuntimeError(f"JupyterLab exited: {(self.root / 'lab.log').read_text()}")
            try:
                with urllib.request.urlopen(f"{self.url}/api/status?token={self.token}", timeout=2):
                    return
            except OSError:
                time.sleep(0.3)
        raise RuntimeError("JupyterLab did not answer within 90 s")

    def write_notebook(self, name: str, cells: list[str]) -> str:
        nb = nbformat.v4.new_notebook()
        nb.metadata["kernelspec"] = {"name": "python3", "display_name": "Python 3",
                                     "language": "python"}
        nb.cells = [nbformat.v4.new_code_cell(source) for source in cells]
        nbformat.write(nb, self.notebooks / name)
        return f"{self.url}/lab/tree/{name}?reset&token={self.token}"

    def end_sessions(self) -> None:
        """Delete every session of the server, which shuts its kernel down: the kernels of the
        notebooks a test opened (the tests before it had theirs ended the same way)."""
        headers = {"Authorization": f"token {self.token}"}
        with urllib.request.urlopen(urllib.request.Request(f"{self.url}/api/sessions", headers=headers),
                                    timeout=60) as response:
            sessions = json.load(response)
        for session in sessions:
            request = urllib.request.Request(f"{self.url}/api/sessions/{session['id']}", method="DELETE",
                                             headers=headers)
            urllib.request.urlopen(request, timeout=120).close()

    def log_tail(self, lines: int = 60) -> str:
        self.log.flush()
        return "\n".join((self.root / "lab.log").read_text(errors="replace").splitlines()[-lines:])

    def stop(self) -> None:
        try:
            os.killpg(self.process.pid, 15)
            self.process.wait(timeout=15)
        except (ProcessLookupError, subprocess.TimeoutExpired):
            try:
                os.killpg(self.process.pid, 9)
            except ProcessLookupError:
                pass
        self.log.close()


class Notebook:
    """One open notebook: run cells, read printed JSON, click the board, take screenshots."""

    def __init__(self, page, name: str) -> None:
        self.page = page
        self.name = name
        self.step = 0
        self.probes = 0

    def cell(self, index: int):
        return self.page.locator(".jp-NotebookPanel:visible .jp-Notebook .jp-Cell").nth(index)

    def run(self, index: int) -> None:
        """Run one cell and wait until the kernel is done with it."""
        self._execute(index, self.cell(index).locator(".jp-InputArea-prompt").text_content())

    def _execute(self, index: int, before: str) -> None:
        """Press Ctrl+Enter on a cell until it starts (the first key press after the page loads
        can be lost while the notebook takes focus), then wait for its new execution count."""
        prompt = self.cell(index).locator(".jp-InputArea-prompt")
        started = "([el, before]) => el.textContent !== before && /\\[(\\d+|\\*)\\]/.test(el.textContent)"
        for attempt in range(4):
            try:
                prompt.click(timeout=10_000)
            except Exception:  # a toast or tooltip in the way: the click still selects the cell
                prompt.click(force=True)
            self.page.keyboard.press("Control+Enter")
            try:
                self.page.wait_for_function(started, arg=[prompt.element_handle(), before],
                                            timeout=8_000)
                break
            except Exception:
                if attempt == 3:
                    self.shot(f"cell-{index}-did-not-run", always=True)
                    raise
        self.page.wait_for_function(
            "([el, before]) => el.textContent !== before && /\\[\\d+\\]/.test(el.textContent)",
            arg=[prompt.element_handle(), before], timeout=90_000)

    def run_all(self, count: int) -> None:
        for i in range(count):
            self.run(i)

    def probe(self, index: int) -> dict:
        """Re-run a cell that prints one JSON line and return what it printed."""
        self.probes += 1
        cell = self.cell(index)
        self._execute(index, cell.locator(".jp-InputArea-prompt").text_content())
        output = cell.locator(".jp-OutputArea-output").last
        output.wait_for()
        text = output.text_content()
        match = re.search(r"\{.*\}", text, re.S)
        assert match, f"no JSON in the probe's output: {text!r}"
        return json.loads(match.group(0))

    def shot(self, what: str, always: bool = False) -> Path | None:
        """A screenshot of the notebook at a step, numbered: when asked (MINESWEEPER_SCREENSHOTS),
        or `always`, at a step that went wrong or needed help."""
        self.step += 1
        return step_shot(self.page, f"{self.name}-{self.step:02d}-{what}", always=always)


def run_coroutine(coroutine):
    """asyncio.run in a thread of its own: a worker that has run a browser test holds Playwright's
    event loop in its main thread, where asyncio.run refuses to start."""
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def answer_kernel_dialog(page) -> None:
    """JupyterLab sometimes asks for the kernel of a notebook that names one: take the one it
    names. On a busy machine the button may do nothing until the kernels are listed."""
    asking = page.locator(".jp-Dialog", has_text="Select Kernel")
    for _ in range(180):
        if not asking.count():
            return
        button = asking.locator("button.jp-mod-accept")
        if button.count() and button.is_enabled():
            button.click()
        page.wait_for_timeout(1000)
    assert not asking.count(), "JupyterLab kept asking which kernel to start"


def run_all_cells(page, notebook: Notebook, timeout: float = 600) -> list[str]:
    """Run → Run All Cells from the menu and wait until the run is over: every code cell has run,
    or none is running and some never will (an error stopped the run). Returns each code cell's
    prompt, "[12]" for a cell that ran.

    The browser side can lose a run that no cell stopped: a Run All given while the kernel is
    still connecting, or queued cells dropped when JupyterLab settles the notebook's kernel late
    on a busy machine (seen once as every prompt empty but the last). Such a run is given again
    from the first cell that did not run; a run that stopped at a cell with an error (the cell
    before the first without a number shows one) is what the caller asked about, and is returned
    as it is. A first cell without a number never ran, so no error can have stopped the run there."""
    prompts = ".jp-NotebookPanel .jp-CodeCell .jp-InputArea-prompt"  # one notebook per page
    deadline = time.monotonic() + timeout
    _run_from_menu(page, notebook, "Run All Cells", prompts)
    for _resume in range(3):
        texts = _wait_for_run(page, notebook, prompts, deadline)
        stopped = next((i for i, t in enumerate(texts) if not re.search(r"\[\d+\]", t)), None)
        missed = stopped is not None and "*" in texts[stopped]  # the page missed that cell's end
        if stopped is None or (not missed and stopped > 0 and _has_error(page, stopped - 1)):
            return texts
        notebook.shot("run-lost-resumed", always=True)
        page.locator(".jp-NotebookPanel .jp-CodeCell").nth(stopped).locator(".jp-InputArea-prompt").click()
        _run_from_menu(page, notebook, "Run Selected Cell and All Below", prompts, ran=stopped)
    return _wait_for_run(page, notebook, prompts, deadline)


def _has_error(page, code_cell: int) -> bool:
    cell = page.locator(".jp-NotebookPanel .jp-CodeCell").nth(code_cell)
    return cell.locator(".jp-OutputArea-output[data-mime-type='application/vnd.jupyter.stderr']").count() > 0


def _run_from_menu(page, notebook: Notebook, item: str, prompts: str, ran: int = 0) -> None:
    """Give a Run menu command and wait until a cell from index `ran` on is running or has run;
    a command given while the kernel is still connecting is lost, so it is given again."""
    started = (f"() => [...document.querySelectorAll('{prompts}')].slice({ran})"
               ".some(p => /\\[(\\*|\\d+)\\]/.test(p.textContent))")
    for attempt in range(4):
        # JupyterLab sometimes asks for the kernel of a notebook that names one: take the one it names
        answer_kernel_dialog(page)
        page.locator(".lm-MenuBar-item", has_text=re.compile(r"^Run$")).click()
        page.locator(".lm-Menu-item:visible", has_text=re.compile(f"^{re.escape(item)}")).first.click()
        try:
            page.wait_for_function(started, timeout=15_000)
            return
        except Exception:
            notebook.shot("run-did-not-start", always=True)
            if attempt == 3:
                raise


def _wait_for_run(page, notebook: Notebook, prompts: str, deadline: float) -> list[str]:
    """Once a cell fails, JupyterLab shows every cell still waiting as "[ ]", although the kernel
    goes on with them when the failed cell let it (the tag raises-exception): the run is over when
    every cell has its number, or when the kernel has stayed idle and nothing has changed.

    On a busy machine the page can miss the end of a cell (its prompt stays "[*]", or the kernel's
    status stays "busy") while the server knows the kernel is idle: after a minute with nothing
    changed the server is asked, and a run it calls over is returned for the caller to resume."""
    status = page.locator(".jp-NotebookPanel:visible [data-status]").first
    last, quiet, changed = None, 0, time.monotonic()
    texts, shown = [], None
    while time.monotonic() < deadline:
        texts = page.locator(prompts).all_text_contents()
        if all(re.search(r"\[\d+\]", t) for t in texts):
            return texts
        shown = status.get_attribute("data-status")
        idle = shown == "idle" and not any("*" in t for t in texts)
        quiet = quiet + 1 if idle and (texts, shown) == last else 0
        if quiet >= 6:  # three seconds idle, the prompts unchanged: the run stopped
            return texts
        if (texts, shown) != last:
            last, changed = (texts, shown), time.monotonic()
        elif time.monotonic() - changed > 60 and _kernel_idle_on_server(page, notebook):
            notebook.shot("run-end-missed-by-the-page", always=True)
            return texts
        time.sleep(0.5)
    notebook.shot("run-all-timeout", always=True)
    raise AssertionError(f"Run All did not finish in time: the page shows the kernel {shown!r} and the "
                         f"prompts {texts}; the server shows it {_kernel_states(page, notebook)}")


def _kernel_states(page, notebook: Notebook) -> list[str] | str:
    """The execution state of the notebook's kernel as the server knows it (not as the page shows it)."""
    origin = re.match(r"https?://[^/]+", page.url).group(0)
    try:
        sessions = page.request.get(f"{origin}/api/sessions", timeout=10_000).json()
        return [session["kernel"]["execution_state"] for session in sessions
                if Path(session["path"]).stem == notebook.name and session.get("kernel")]
    except Exception as error:  # the question is asked for a diagnosis: never fail on it
        return f"not known ({type(error).__name__}: {error})"


def _kernel_idle_on_server(page, notebook: Notebook) -> bool:
    states = _kernel_states(page, notebook)
    return isinstance(states, list) and bool(states) and all(state == "idle" for state in states)


# The notebook on show has its cells and a kernel ready to run them: the panel names the kernel (its
# session has started) and shows it idle. The indicator alone reads "idle" before the session
# exists, and a key press or a Run All given then is lost; the retries of Notebook._execute and
# run_all_cells stay for a kernel that settles late all the same. JupyterLab and Notebook 7 both
# show the name (.jp-KernelName) and the indicator ([data-status]) in the notebook's toolbar.
KERNEL_READY = """() => {
  const panel = document.querySelector('.jp-NotebookPanel');
  const name = panel && panel.querySelector('.jp-KernelName');
  const status = panel && panel.querySelector('[data-status]');
  return !!panel && !!panel.querySelector('.jp-Cell') && !!name && !!status
    && !['', 'No Kernel'].includes(name.textContent.trim()) && status.dataset.status === 'idle'; }"""


def wait_for_kernel(page, timeout: float = 90_000) -> None:
    """Wait until the notebook on show is ready to run a cell (KERNEL_READY), asking every 100 ms."""
    page.wait_for_function(KERNEL_READY, polling=100, timeout=timeout)


# Every document open in the page's JupyterLab closed, unsaved: the dirty flag cleared first, so
# neither JupyterLab nor the browser asks whether to save it.
CLOSE_DOCUMENTS = """() => { const app = window.jupyterapp; if (!app) return;
  for (const widget of Array.from(app.shell.widgets('main'))) {
    if (widget.context) widget.context.model.dirty = false;
    widget.dispose();
  } }"""

# Open a notebook of the server's folder in the running app, as the file browser does.
OPEN_DOCUMENT = """async (path) => {
  const late = new Promise((_, fail) => setTimeout(() => fail(new Error(`${path} did not open within 90 s`)), 90000));
  await Promise.race([window.jupyterapp.commands.execute('docmanager:open', {path, factory: 'Notebook'}), late]); }"""


def load_lab(page, lab: Lab) -> None:
    """Load JupyterLab in `page` and wait until it has restored its layout. The session's server runs
    with --LabApp.expose_app_in_browser, so the app is window.jupyterapp there (open_in_lab)."""
    with contextlib.suppress(Exception):  # a page that does not answer is loaded again all the same
        page.evaluate(CLOSE_DOCUMENTS)  # nothing left unsaved to hold the page when it is left
    page.goto(f"{lab.url}/lab?reset&token={lab.token}")
    page.wait_for_function("() => window.jupyterapp", polling=100, timeout=90_000)
    page.evaluate("""async () => { await Promise.race([window.jupyterapp.restored, new Promise((_, fail) =>
        setTimeout(() => fail(new Error('JupyterLab did not restore its layout within 90 s')), 90000))]); }""")


def open_in_lab(page, lab: Lab, name: str) -> None:
    """Open the notebook `name` of the lab's folder in the JupyterLab running in `page`, the documents
    open before closed, and wait for its kernel. A page without the app (a test failed there) or
    with a dialog open is loaded again first."""
    if not page.evaluate("() => !!window.jupyterapp") or page.locator(".jp-Dialog").count():
        load_lab(page, lab)
    page.evaluate(CLOSE_DOCUMENTS)
    page.evaluate(OPEN_DOCUMENT, name)
    wait_for_kernel(page)


def end_lab_test(page, lab: Lab, failed: bool = False) -> None:
    """After a test in the session's JupyterLab page: close every document and end the test's kernels
    (its sessions). `failed`: whether the test failed: the page is then loaded again."""
    try:
        page.evaluate(CLOSE_DOCUMENTS)
    except Exception:  # the page does not answer: it is loaded again
        failed = True
    lab.end_sessions()
    if failed:
        load_lab(page, lab)


def open_notebook(page, lab: Lab, name: str, cells: list[str]) -> Notebook:
    lab.write_notebook(name, cells)
    open_in_lab(page, lab, name)
    return Notebook(page, Path(name).stem)


def board_locator(page, index: int = 0):
    return page.locator(".jp-NotebookPanel:visible .msk-board").nth(index)


def wait_update_after(page, board, before: int) -> None:
    """Wait until the board has received an update from Python since `before` (data-version)."""
    page.wait_for_function(
        "([el, n]) => Number(el.dataset.version || 0) > n", arg=[board.element_handle(), before])


def version(board) -> int:
    return int(board.get_attribute("data-version") or 0)


def act(page, board, row: int, col: int, button: str = "left") -> None:
    """Click a cell, wait for Python's answer, then move the mouse away (no hover highlight)."""
    before = version(board)
    click_cell(board, row, col, button)
    wait_update_after(page, board, before)
    page.mouse.move(1, 1)


def click_cell(board, row: int, col: int, button: str = "left") -> None:
    canvas = board.locator("canvas")
    box = canvas.bounding_box()
    size = float(board.get_attribute("data-cell-size"))
    assert box["width"] > 0, "the board's canvas is not laid out"
    canvas.click(button=button, position={"x": (col + 0.5) * size, "y": (row + 0.5) * size})


__all__ = ["Lab", "Notebook", "act", "board_locator", "click_cell", "end_lab_test", "failure_shot", "load_lab",
           "open_in_lab", "run_all_cells", "run_coroutine", "step_shot", "version", "wait_for_kernel",
           "wait_update_after"]


def open_page(page, path: Path) -> tuple[list[str], list[str]]:
    """Open a page from its file; return the console errors and every address it requested."""
    errors: list[str] = []
    requests: list[str] = []
    page.on("console", lambda message: errors.append(message.text) if message.type == "error" else None)
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("request", lambda request: requests.append(request.url))
    page.goto(path.as_uri())
    page.wait_for_load_state("load")
    return errors, requests


def assert_offline(requests: list[str], path: Path) -> None:
    others = [url for url in requests if url != path.as_uri() and not url.startswith("data:")]
    assert others == [], f"the page asked for more than itself: {others}"
