// The board's front end: one canvas for the whole visible slice, a status bar, one slider per
// extra axis. Cell codes come from Python as one int32 array (the codes in common.js); clicks go
// back as custom messages. Sliders, hover and flag mode stay in the browser: moving a slider or the
// mouse redraws the canvas and sends nothing to the kernel.

import {
  autoCellSize, bytesOf, cellAt, changedCells, codeChar, codesOf, coordOf, drawHover, drawSlice,
  drawSliceCells, el, mountRoot, neighbourCells, showError, sizeCanvas, sliceBase, sliceCodes,
  sliceGeometry, sliceSliders, sliceText,
} from "./common.js";

const FACES = { ongoing: "☺", victory: "★", defeat: "☹" };
const STATUS_TRAITS = ["state", "mines_left", "seed", "title", "running", "xray", "compare", "can_compare"];

// ---- building the page

function toggleButton(cls, text, title) {
  const button = el("button", `msk-toggle ${cls}`, text);
  button.title = title;
  return button;
}

/** The status bar: mines left, the face (a new game), the clock, the toggles, the seed, the title. */
function buildBar() {
  const parts = {
    minesLeft: el("span", "msk-counter msk-mines-left"),
    face: el("button", "msk-face"),
    timer: el("span", "msk-counter msk-timer"),
    flagMode: toggleButton("msk-flag-mode", "⚑ mode",
      "flag mode: a left click marks instead of digging (trackpads, touch)"),
    xrayButton: toggleButton("msk-xray", "x-ray", "see through the covers"),
    compareButton: toggleButton("msk-compare", "compare",
      "outline the cells where this view differs from the kit's engine"),
    seed: el("span", "msk-seed"),
    title: el("span", "msk-title"),
  };
  parts.minesLeft.title = "mines left: the mines minus the flags the player placed (the flags a won "
    + "game puts on its mines by itself do not count, so a win can end above 000)";
  parts.face.title = "new game";
  parts.timer.title = "seconds";
  const bar = el("div", "msk-bar");
  bar.append(...Object.values(parts));
  return { bar, ...parts };
}

/** The board's elements: the status bar, the sliders, the canvas in its scroller, the error box. */
function buildBoardDom(host) {
  const root = mountRoot(host, "msk-board");
  const parts = buildBar();
  const sliders = el("div", "msk-sliders");
  const scroller = el("div", "msk-scroller");
  const canvas = el("canvas", "msk-canvas");
  scroller.appendChild(canvas);
  const errorBox = el("div", "msk-error");
  root.append(parts.bar, sliders, scroller, errorBox);
  return { root, ...parts, sliders, canvas, errorBox };
}

/** The clock: counts from Python's last `elapsed` while the game runs, ticking in the browser. */
function boardClock(timer, model) {
  let elapsed = model.get("elapsed"), since = performance.now(), handle = null;
  function tick() {
    const running = model.get("running");
    const seconds = elapsed + (running ? (performance.now() - since) / 1000 : 0);
    timer.textContent = String(Math.min(999, Math.floor(seconds))).padStart(3, "0");
    if (running && handle === null) handle = setInterval(tick, 250);
    if (!running && handle !== null) { clearInterval(handle); handle = null; }
  }
  function stamp() { elapsed = model.get("elapsed"); since = performance.now(); tick(); }
  function stop() { if (handle !== null) { clearInterval(handle); handle = null; } }
  return { tick, stamp, stop };
}

/** Everything one board view keeps: its elements, what it draws and the browser-only state. */
function newBoardView(model, host) {
  const dom = buildBoardDom(host);
  const view = {
    model, dom, ctx: null, g: sliceGeometry(model.get("shape")), cs: 0,
    cells: new Int32Array(0), xray: codesOf(model.get("xray_cells")), diff: bytesOf(model.get("diff")),
    hover: null, flagMode: false, clickedAt: null, renders: 0, frame: null,
    clock: boardClock(dom.timer, model),
  };
  view.slices = sliceSliders(dom.sliders, model, () => { showSlices(view); drawBoard(view); });
  return view;
}

// ---- showing the model

function resizeBoard(view) {
  const { model, dom } = view;
  view.g = sliceGeometry(model.get("shape"));
  view.cs = autoCellSize(view.g.cols, model.get("cell_size"));
  view.ctx = sizeCanvas(dom.canvas, view.g, view.cs);
  view.frame = null;  // a canvas sized again is blank
  dom.root.dataset.rows = String(view.g.rows);
  dom.root.dataset.cols = String(view.g.cols);
  dom.root.dataset.cellSize = String(view.cs);
}

/** The slice strips, the neighbouring slices lit while a cell is hovered. */
function showSlices(view) {
  view.slices.show(view.hover !== null, view.model.get("torus"));
}

/** What the last frame showed besides the codes; a frame with another key is painted whole. */
function frameKey(view, base, layers) {
  const { model, hover } = view;
  return [view.g, view.cs, base, layers.xray, layers.diff, hover ? hover.join(",") : "", model.get("torus")];
}

function sameKey(a, b) {
  return a.length === b.length && a.every((part, k) => part === b[k]);
}

/** Paint the slice at `base` on the canvas: the whole slice when the last frame showed another
 *  slice, size, x-ray, comparison or hover (or there is none); else only the cells whose code
 *  changed, and the hover light again when one of them lies under it. */
function paintSlice(view, base) {
  const { model, g, cs, ctx, cells, hover } = view;
  const layers = { xray: model.get("xray") ? view.xray : null, diff: model.get("compare") ? view.diff : null };
  const key = frameKey(view, base, layers), last = view.frame;
  if (!last || !sameKey(last.key, key)) {
    drawSlice(ctx, g, cs, cells, base, layers);
    if (hover) drawHover(ctx, g, cs, hover, model.get("torus"));
  } else {
    const changed = changedCells(g, cells, base, last.codes);
    const lit = hover ? neighbourCells(g, hover[0], hover[1], model.get("torus")) : [];
    const relight = changed.some(([r, c]) => lit.some(([lr, lc]) => lr === r && lc === c));
    if (changed.length) drawSliceCells(ctx, g, cs, cells, base, relight ? changed.concat(lit) : changed, layers);
    if (relight) drawHover(ctx, g, cs, hover, model.get("torus"));
  }
  view.frame = { key, codes: sliceCodes(g, cells, base) };
}

/** Repaint the visible slice; `data-view` gets it as text, `data-renders` counts the repaints;
 *  `data-xray` the x-ray's faces and `data-diff` the cells compare outlines ('!'), while shown. */
function drawBoard(view) {
  const { dom, g, model } = view;
  const base = sliceBase(g, view.slices.position());
  paintSlice(view, base);
  const xray = model.get("xray") && view.xray.length ? view.xray : null;
  const diff = model.get("compare") && view.diff.length ? view.diff : null;
  dom.root.dataset.xray = xray ? sliceText(g, base, (i) => codeChar(xray[i])) : "";
  dom.root.dataset.diff = diff ? sliceText(g, base, (i) => (diff[i] ? "!" : ".")) : "";
  view.renders += 1;
  dom.root.dataset.renders = String(view.renders);
  if (view.clickedAt !== null) {
    dom.root.dataset.clickMs = (performance.now() - view.clickedAt).toFixed(2);
    view.clickedAt = null;
  }
  dom.root.dataset.view = sliceText(g, base, (i) => codeChar(view.cells[i]));
}

function showStatus(view) {
  const { model, dom } = view;
  const left = model.get("mines_left");
  const state = model.get("state");
  dom.minesLeft.textContent = String(Math.max(0, left)).padStart(3, "0");
  dom.face.textContent = FACES[state] ?? "☺";
  dom.root.dataset.state = state;
  dom.root.dataset.minesLeft = String(left);
  dom.seed.textContent = model.get("seed") ? `seed ${model.get("seed")}` : "";
  dom.title.textContent = model.get("title");
  dom.flagMode.classList.toggle("msk-on", view.flagMode);
  dom.xrayButton.classList.toggle("msk-on", model.get("xray"));
  dom.compareButton.classList.toggle("msk-on", model.get("compare"));
  dom.compareButton.style.display = model.get("can_compare") ? "" : "none";
  dom.root.classList.toggle("msk-over", state !== "ongoing");
  view.clock.tick();
}

function showBoardError(view) {
  const { model, dom } = view;
  const shown = showError(dom.errorBox, model.get("error"), () => model.send({ action: "dismiss" }));
  dom.root.classList.toggle("msk-has-error", shown);
}

function showCells(view) {
  view.cells = codesOf(view.model.get("cells"));
  drawBoard(view);
}

function showShape(view) {
  resizeBoard(view);
  view.slices.build(view.g);
  showSlices(view);
  showCells(view);
}

// ---- input

/** Send `action` for the cell under the mouse, at its full coordinate (slice position first). */
function sendAt(view, action, event) {
  const rc = cellAt(view.dom.canvas, view.g, event);
  if (!rc) return;
  view.clickedAt = performance.now();
  view.model.send({ action, at: coordOf(view.g, view.slices.position(), rc[0], rc[1]) });
}

/** Hover is the browser's alone: it lights the neighbourhood and the neighbouring slices. */
function setHover(view, rc) {
  const old = view.hover;
  if (rc === old || (rc && old && rc[0] === old[0] && rc[1] === old[1])) return;
  view.hover = rc;
  view.dom.root.dataset.hover = rc ? coordOf(view.g, view.slices.position(), rc[0], rc[1]).join(",") : "";
  showSlices(view);
  drawBoard(view);
}

function flipTrait(model, name) {
  model.set(name, !model.get(name));
  model.save_changes();
}

function listenToInput(view) {
  const { model, dom } = view;
  dom.canvas.addEventListener("click", (event) => {
    if (event.button !== 0) return;
    sendAt(view, view.flagMode || event.shiftKey ? "mark" : "dig", event);
  });
  dom.canvas.addEventListener("contextmenu", (event) => {
    event.preventDefault();
    event.stopPropagation();
    sendAt(view, "mark", event);
  });
  dom.canvas.addEventListener("mousemove", (event) => setHover(view, cellAt(dom.canvas, view.g, event)));
  dom.canvas.addEventListener("mouseleave", () => setHover(view, null));
  dom.face.addEventListener("click", () => model.send({ action: "new" }));
  dom.flagMode.addEventListener("click", () => { view.flagMode = !view.flagMode; showStatus(view); });
  dom.xrayButton.addEventListener("click", () => flipTrait(model, "xray"));
  dom.compareButton.addEventListener("click", () => flipTrait(model, "compare"));
}

function listenToModel(view) {
  const { model, dom } = view;
  const redraw = () => drawBoard(view);
  model.on("change:cells", () => showCells(view));
  model.on("change:xray_cells", () => { view.xray = codesOf(model.get("xray_cells")); redraw(); });
  model.on("change:diff", () => { view.diff = bytesOf(model.get("diff")); redraw(); });
  model.on("change:shape", () => showShape(view));
  model.on("change:cell_size", () => showShape(view));
  // Python moves the slice (a new board of another shape); the sliders never write it back
  model.on("change:slice_index", () => { view.slices.adopt(); showSlices(view); redraw(); });
  model.on("change:version", () => { dom.root.dataset.version = String(model.get("version")); });
  model.on("change:elapsed", () => view.clock.stamp());
  for (const name of STATUS_TRAITS) model.on(`change:${name}`, () => showStatus(view));
  model.on("change:error", () => showBoardError(view));
  model.on("change:xray", redraw);
  model.on("change:compare", redraw);
}

function renderBoard({ model, el: host }) {
  const view = newBoardView(model, host);
  listenToInput(view);
  listenToModel(view);
  view.dom.root.dataset.version = String(model.get("version"));
  showShape(view);
  showStatus(view);
  showBoardError(view);
  return () => view.clock.stop();
}

export default { render: renderBoard };
