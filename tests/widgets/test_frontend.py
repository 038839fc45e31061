"""The front ends: one shared module (static/common.js) and one file per widget, joined into the single
ES module anywidget loads (widgets/frontend.py). Each helper has one home; no function grows long."""

from __future__ import annotations

import collections
import json
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from minesweeper_kit.geometry import Geometry
from minesweeper_kit.render import TERMINAL_SYMBOLS, ZERO_SYMBOL
from minesweeper_kit.widgets import frontend

WIDGETS = ("board", "explorer", "replay")
SCRIPTS = sorted(frontend.STATIC.glob("*.js"))
MAX_FUNCTION_LINES = 60
NODE = shutil.which("node")


def node() -> str:
    """Node, which runs the board's modules: missing, the test fails (``make node`` installs it)."""
    if NODE is None:
        pytest.fail("node is not installed: `make node` installs Debian's nodejs (as root)")
    return NODE


def run_node(tmp_path: Path, module: str, name: str = "probe.mjs") -> str:
    path = tmp_path / name
    path.write_text(module)
    done = subprocess.run([node(), str(path)], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    return done.stdout


def common_value(tmp_path: Path, expression: str) -> object:
    """An expression evaluated in node after the shared module's declarations."""
    return json.loads(run_node(tmp_path, f"{frontend.shared()}\nconsole.log(JSON.stringify({expression}));\n"))


def write_static(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, files: dict[str, str]) -> None:
    for name, text in files.items():
        (tmp_path / f"{name}.js").write_text(text)
    monkeypatch.setattr(frontend, "STATIC", tmp_path)


RENDER = "export default { render() {} };\n"
DEFAULT = "export default { render };\n"
COMMON = "export const ONE = 1;\nexport function twice(x) {\n  return 2 * x;\n}\nfunction inner() {}\n"


# ---- the assembled modules


@pytest.mark.parametrize("name", WIDGETS)
def test_each_widget_is_one_module_with_one_export(name):
    text = frontend.esm(name)
    assert not re.search(r"^import\b", text, re.M)
    assert re.findall(r"^export\b.*", text, re.M) == [re.search(r"^export default .*", text, re.M).group(0)]


@pytest.mark.parametrize("name", WIDGETS)
def test_node_parses_and_loads_each_widget_module(name, tmp_path):
    module = tmp_path / f"{name}.mjs"
    module.write_text(frontend.esm(name))
    checked = subprocess.run([node(), "--check", str(module)], capture_output=True, text=True, timeout=60)
    assert checked.returncode == 0, checked.stderr
    probe = f"const m = await import({json.dumps(module.as_uri())});\nconsole.log(typeof m.default.render);\n"
    assert run_node(tmp_path, probe).strip() == "function"


@pytest.mark.parametrize("name", WIDGETS)
def test_each_shared_helper_is_in_each_module_once(name):
    declared = collections.Counter(frontend.declarations(frontend.esm(name)))
    shared = frontend.declarations(frontend.source(frontend.COMMON))
    assert {helper: declared[helper] for helper in shared} == dict.fromkeys(shared, 1)
    assert max(declared.values()) == 1


def test_no_name_is_declared_in_two_static_files():
    homes = collections.defaultdict(list)
    for path in SCRIPTS:
        for declared in frontend.declarations(path.read_text()):
            homes[declared].append(path.name)
    assert {name: files for name, files in homes.items() if len(files) > 1} == {}


@pytest.mark.parametrize("name", WIDGETS)
def test_a_widget_imports_only_what_it_uses(name):
    text = frontend.source(name)
    [names] = re.findall(r"^import\s*\{([^}]*)\}", text, re.M)
    body = text[text.index("from") :]
    unused = [n.strip() for n in names.split(",") if n.strip() and not re.search(rf"\b{n.strip()}\b", body)]
    assert unused == []


@pytest.mark.parametrize("path", SCRIPTS, ids=lambda p: p.name)
def test_no_function_is_long(path):
    """Top-level functions only: a nested one is never longer than the function around it."""
    lines = path.read_text().splitlines()
    lengths = {}
    for start, line in enumerate(lines):
        if match := re.match(r"(?:export )?(?:async )?function\*? *(\w+)", line):
            end = next(i for i in range(start, len(lines)) if lines[i].startswith("}"))
            lengths[match.group(1)] = end - start + 1
    assert lengths, f"no function found in {path.name}"
    assert {f: n for f, n in lengths.items() if n > MAX_FUNCTION_LINES} == {}


# ---- the convention, as esm() enforces it


def test_a_widget_that_redefines_a_shared_helper_is_refused(tmp_path, monkeypatch):
    widget = 'import { twice } from "./common.js";\nfunction twice(x) { return x + x; }\n' + RENDER
    write_static(tmp_path, monkeypatch, {"common": COMMON, "w": widget})
    with pytest.raises(ValueError, match="declares twice again"):
        frontend.esm("w")


def test_a_widget_may_not_import_what_common_keeps_to_itself(tmp_path, monkeypatch):
    widget = 'import { inner } from "./common.js";\nexport default { render() { inner(); } };\n'
    write_static(tmp_path, monkeypatch, {"common": COMMON, "w": widget})
    with pytest.raises(ValueError, match="does not export"):
        frontend.esm("w")


@pytest.mark.parametrize(
    "widget",
    [
        'import { twice } from "./other.js";\nexport default { render() {} };\n',
        'import { twice } from "./common.js";\nexport function render() {}\nexport default { render };\n',
        'import { twice } from "./common.js";\nfunction render() {}\n',
    ],
    ids=["foreign import", "second export", "no default"],
)
def test_other_imports_and_exports_are_refused(tmp_path, monkeypatch, widget):
    write_static(tmp_path, monkeypatch, {"common": COMMON, "w": widget})
    with pytest.raises(ValueError):
        frontend.esm("w")


def test_the_join_drops_the_import_and_the_shared_exports(tmp_path, monkeypatch):
    widget = 'import { ONE, twice } from "./common.js";\n\nfunction render() { twice(ONE); }\n' + DEFAULT
    write_static(tmp_path, monkeypatch, {"common": COMMON, "w": widget})
    text = frontend.esm("w")
    assert "const ONE = 1;" in text and "\nfunction twice(x) {" in text
    assert "import" not in text and text.count("export") == 1
    with pytest.raises(ValueError):
        frontend.esm("common")
    with pytest.raises(ValueError):
        frontend.esm("../board")


# ---- what the shared module computes


def test_code_symbols_are_the_terminal_symbols(tmp_path):
    faces = {face.name: symbol for face, symbol in TERMINAL_SYMBOLS.items()}
    shown = common_value(tmp_path, "{" + ", ".join(f"{n}: codeChar({n})" for n in faces) + "}")
    assert shown == faces
    numbers = common_value(tmp_path, "[0, 1, 2, 9, 10, -1].map(codeChar)")
    assert numbers == [ZERO_SYMBOL, "1", "2", "9", "+", "-"]  # one character per cell, always


@pytest.mark.parametrize("shape", [(3, 4), (2, 2), (1, 5), (5, 1), (6,), (2,)])
@pytest.mark.parametrize("torus", [False, True])
def test_hover_neighbourhood_is_the_geometry_neighbourhood(tmp_path, shape, torus):
    grid = shape if len(shape) == 2 else (1, *shape)
    cells = [(r, c) for r in range(grid[0]) for c in range(grid[1])]
    script = (
        f"const g = sliceGeometry({json.dumps(list(shape))});\n"
        f"const cells = {json.dumps(cells)};\n"
        f"const out = cells.map(([r, c]) => neighbourCells(g, r, c, {json.dumps(torus)}))"
    )
    shown = common_value(tmp_path, f"(() => {{ {script}; return out; }})()")
    geometry = Geometry(shape, torus=torus)
    for (r, c), got in zip(cells, shown, strict=True):
        at = (r, c) if len(shape) == 2 else (c,)
        expected = {tuple(n[-2:]) if len(shape) == 2 else (0, n[0]) for n in geometry.neighbours(at)} | {(r, c)}
        assert sorted(map(tuple, got)) == sorted(expected), (r, c)


def test_slice_geometry_and_coordinates(tmp_path):
    value = common_value(
        tmp_path,
        "(() => { const g = sliceGeometry([2, 3, 4, 5]);"
        " return [g.rows, g.cols, g.extra, g.size, sliceBase(g, [1, 2]), coordOf(g, [1, 2], 3, 4)]; })()",
    )
    assert value == [4, 5, 2, 120, 1 * 60 + 2 * 20, [1, 2, 3, 4]]


def test_changed_cells_are_the_cells_of_the_drawn_slice_whose_code_changed(tmp_path):
    value = common_value(
        tmp_path,
        "(() => { const g = sliceGeometry([2, 3, 4]), base = sliceBase(g, [1]);"
        " const cells = new Int32Array(g.size).fill(COVERED), before = sliceCodes(g, cells, base);"
        " cells[base + 1 * 4 + 2] = 3; cells[base] = FLAG; cells[5] = 1;"  # cells[5] is in the other slice
        " const none = sliceCodes(g, new Int32Array(0), base);"  # no codes yet: drawn covered
        " return [changedCells(g, cells, base, before), Array.from(none).every((v) => v === COVERED),"
        " changedCells(g, new Int32Array(0), base, before).length,"
        " changedCells(g, cells, base, sliceCodes(g, cells, base))]; })()",
    )
    assert value == [[[0, 0], [1, 2]], True, 0, []]


def test_cells_drawn_alone_paint_inside_themselves(tmp_path):
    """drawSliceCells repaints a cell over what it showed: every mark it makes lies within the cell."""
    value = common_value(
        tmp_path,
        "(() => { const marks = [], ctx = { set font(f) {}, set fillStyle(s) {}, set strokeStyle(s) {},"
        " lineWidth: 1, set textAlign(a) {}, set textBaseline(b) {}, beginPath() {}, stroke() {},"
        " fillText(t, x, y) { marks.push([x, y, x, y]); }, moveTo(x, y) { marks.push([x, y, x, y]); },"
        " lineTo(x, y) { marks.push([x, y, x, y]); },"
        " fillRect(x, y, w, h) { marks.push([x, y, x + w, y + h]); },"
        " strokeRect(x, y, w, h) { const l = this.lineWidth / 2; marks.push([x - l, y - l, x + w + l, y + h + l]); } };"
        " const g = sliceGeometry([3, 4]), cs = 20, cells = new Int32Array(12).fill(COVERED);"
        " cells[5] = WRONG_FLAG; cells[6] = 3; cells[7] = FLAG;"
        " const diff = new Uint8Array(12).fill(1), xray = new Int32Array(12).fill(MINE);"
        " drawSliceCells(ctx, g, cs, cells, 0, [[1, 1], [1, 2], [1, 3], [2, 0]], { xray, diff });"
        " const inside = ([x0, y0, x1, y1]) => [[1, 1], [1, 2], [1, 3], [2, 0]].some(([r, c]) =>"
        "   x0 >= c * cs && y0 >= r * cs && x1 <= (c + 1) * cs && y1 <= (r + 1) * cs);"
        " return [marks.length > 0, marks.filter((m) => !inside(m))]; })()",
    )
    assert value == [True, []]
