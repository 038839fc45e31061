"""Board widget speed in Chromium: first render and click-to-repaint, beside a board of Buttons.

A JupyterLab is started on loopback, Chromium (Debian's /usr/bin/chromium, headless) opens one
notebook per board, and times are taken in the page: first render from the key press that runs the
cell until every cell is on screen (the canvas drawn, or all Buttons in the DOM); click-to-repaint
from the mouse-down until the clicked cell shows its new face (one kernel round trip). Both boards
are built in the same run on the same engine game. Medians over several runs; BENCHMARKS.md's
"Widget" section is rewritten.

    python -m benchmarks.widget [--quick]
"""

from __future__ import annotations

import argparse
import statistics
import sys
import tempfile
from pathlib import Path

from tqdm import tqdm

from benchmarks import report

SIZES = [(16, 30), (100, 100)]
LIMIT_S = 300  # a board not on screen after this long is reported as not finished

BOARD_CELL = """\
from minesweeper_kit.widgets import Board
board = Board({shape}, {mines}, seed=1)
board"""

BUTTONS_CELL = """\
import ipywidgets as w
from minesweeper_kit import Game
game = Game.new({shape}, {mines}, seed=1)
rows, cols = {shape}
def on_click(button):
    r, c = button.at
    game.cycle_mark((r, c))
    button.description = {{0: "", 1: "F", 2: "?"}}[int(game.marks[r, c])]
buttons = []
for r in range(rows):
    for c in range(cols):
        b = w.Button(description="", layout=w.Layout(width="22px", height="22px", padding="0"))
        b.at = (r, c)
        b.on_click(on_click)
        buttons.append(b)
grid = w.GridBox(buttons, layout=w.Layout(grid_template_columns=f"repeat({{cols}}, 22px)"))
grid"""

MARK_T0 = """() => { window.__t0 = null;
  document.addEventListener('mousedown', () => { window.__t0 = performance.now(); },
                            {capture: true, once: true}); }"""


def _first_render(page, nb, kind: str, cells: int, timeout_ms: int) -> float:
    """Run cell 0 and return the ms until the whole board is on screen."""
    cell = nb.cell(0)
    before = cell.locator(".jp-InputArea-prompt").text_content()
    cell.locator(".jp-InputArea-prompt").click()
    page.evaluate("() => { document.querySelectorAll('.msk-board, .widget-gridbox')"
                  ".forEach((e) => { e.dataset.stale = '1'; }); window.__t0 = performance.now(); }")
    page.keyboard.press("Control+Enter")
    if kind == "board":
        done = ("([n, before]) => { const b = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .msk-board:not([data-stale])');"
                " return b && Number(b.dataset.renders || 0) > 0 && b.dataset.rows * b.dataset.cols === n"
                " ? performance.now() - window.__t0 : false; }")
    else:
        done = ("([n, before]) => { const bs = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .widget-gridbox:not([data-stale]) .widget-button');"
                " return bs.length === n ? performance.now() - window.__t0 : false; }")
    handle = page.wait_for_function(done, arg=[cells, before], polling="raf", timeout=timeout_ms)
    elapsed = float(handle.json_value())
    # let the kernel finish the cell before the next measurement
    page.wait_for_function("([el, b]) => el.textContent !== b && /\\[\\d+\\]/.test(el.textContent)",
                           arg=[cell.locator(".jp-InputArea-prompt").element_handle(), before],
                           timeout=timeout_ms)
    return elapsed


def _click(page, kind: str, index: int, cols: int) -> float:
    """Mark one cell and return the ms from mouse-down until it shows the flag."""
    r, c = divmod(index, cols)
    page.evaluate(MARK_T0)
    if kind == "board":
        board = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .msk-board").first
        page.evaluate("() => { window.__v = Number(document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .msk-board').dataset.version); }")
        size = float(board.get_attribute("data-cell-size"))
        board.locator("canvas").click(button="right", position={"x": (c + 0.5) * size,
                                                                "y": (r + 0.5) * size})
        done = ("(at) => { const b = document.querySelector('.jp-NotebookPanel:not(.lm-mod-hidden) .msk-board');"
                " const row = (b.dataset.view || '').split('/')[at[0]];"
                " const flagged = row ? row[at[1]] === 'F' : Number(b.dataset.version) > window.__v;"
                " return flagged && window.__t0 !== null ? performance.now() - window.__t0 : false; }")
    else:
        button = page.locator(".jp-NotebookPanel:not(.lm-mod-hidden) .widget-gridbox .widget-button").nth(index)
        button.click()
        done = ("(at) => { const bs = document.querySelectorAll('.jp-NotebookPanel:not(.lm-mod-hidden) .widget-gridbox .widget-button');"
                f" const b = bs[at[0] * {cols} + at[1]];"
                " return b.textContent.trim() === 'F' && window.__t0 !== null ? performance.now() - window.__t0 : false; }")
    handle = page.wait_for_function(done, arg=[r, c], polling="raf", timeout=120_000)
    page.mouse.move(1, 1)
    return float(handle.json_value())


def measure(quick: bool) -> list[dict]:
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import sync_playwright

    from tests.browser.support import CHROMIUM, CHROMIUM_ARGS, Lab, open_notebook

    if not CHROMIUM.exists():
        raise SystemExit(f"Chromium is missing at {CHROMIUM}")
    renders = 2 if quick else 3
    clicks = 3 if quick else 7
    results = []
    with tempfile.TemporaryDirectory() as folder, sync_playwright() as p:
        lab = Lab(Path(folder))
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            jobs = [(shape, kind) for shape in SIZES for kind in ("board", "buttons")]
            for shape, kind in tqdm(jobs, desc="widget benchmark", unit="board"):
                cells = shape[0] * shape[1]
                mines = cells * 15 // 100
                source = (BOARD_CELL if kind == "board" else BUTTONS_CELL).format(shape=shape, mines=mines)
                context = browser.new_context(viewport={"width": 1600, "height": 1200})
                page = context.new_page()
                page.set_default_timeout(300_000)
                name = f"bench_{kind}_{shape[0]}x{shape[1]}"
                nb = open_notebook(page, lab, f"{name}.ipynb", [source])
                timeout = LIMIT_S * 1000
                nb.run(0)  # warm-up: imports done, the notebook has focus
                try:
                    first = [_first_render(page, nb, kind, cells, timeout) for _ in range(renders)]
                except PlaywrightTimeout:
                    results.append({"shape": shape, "kind": kind, "first": [], "click": []})
                    context.close()
                    continue
                # cells along the first row and column: on screen without scrolling
                picks = [i * (shape[1] + 1) for i in range(min(clicks, shape[0], shape[1]))]
                click = [_click(page, kind, i, shape[1]) for i in picks]
                results.append({"shape": shape, "kind": kind, "first": first, "click": click})
                context.close()
        finally:
            browser.close()
            lab.stop()
    return results


def _ms(value: float | None) -> str:
    if value is None:
        return f"not done in {LIMIT_S} s"
    return f"{value / 1000:.2f} s" if value >= 1000 else f"{value:.0f} ms"


def write(results: list[dict]) -> str:
    by = {(tuple(r["shape"]), r["kind"]): r for r in results}
    lines = ["## Widget", "",
             f"Machine: {report.machine()}; Chromium headless (`/usr/bin/chromium`), JupyterLab on loopback.",
             "",
             "First render: from the key press that runs the cell until the whole board is on screen "
             "(the canvas drawn / every Button in the DOM), kernel work included. Click-to-repaint: "
             "from mouse-down on a cell until it shows a flag (one kernel round trip). "
             "`Board` is the anywidget canvas; `Buttons` is a GridBox of ipywidgets Buttons over the "
             "same engine game, built in the same run (flag on click, since a Button sees no right "
             "click). Medians (runs in brackets).", "",
             "| board | widget | first render | click-to-repaint | Buttons / Board (render, click) |",
             "|---|---|---:|---:|---:|"]
    for shape in SIZES:
        b, k = by[(shape, "board")], by[(shape, "buttons")]
        for r in (b, k):
            first = statistics.median(r["first"]) if r["first"] else None
            click = statistics.median(r["click"]) if r["click"] else None
            ratio = ""
            if r is k:
                base_first = statistics.median(b["first"])
                base_click = statistics.median(b["click"])
                ratio = (f"{first / base_first:.0f}x" if first else f"> {LIMIT_S * 1000 / base_first:.0f}x")
                ratio += ", " + (f"{click / base_click:.1f}x" if click else "—")
            lines.append(f"| {shape[0]}x{shape[1]} | {'Board' if r is b else 'Buttons'} | "
                         f"{_ms(first)} ({len(r['first'])}) | {_ms(click)} ({len(r['click'])}) | {ratio} |")
    small = by[((16, 30), "board")]
    large = by[((100, 100), "board")]
    lines += ["", "Aims: 16x30 click-to-repaint within 50 ms "
              f"(measured {_ms(statistics.median(small['click']))}); 100x100 first render within 500 ms "
              f"(measured {_ms(statistics.median(large['first']))}); at least 10x faster than Buttons.",
              "", "A single flag is one round trip with one small change on both boards, so their "
              "click times are close; the Buttons board's cost is its models (three per Button): "
              "the first render, and every action that changes many cells at once."]
    return "\n".join(lines)


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks.widget", description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer runs (2 renders, 3 clicks per board)")
    args = parser.parse_args(argv)
    results = measure(args.quick)
    body = write(results)
    print(body)
    report.write_section("widget", body)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
