// What the widget front ends share: the cell codes and their symbols, the geometry of the visible
// slice of an N-D board, the sliders over its extra axes, drawing cells, the hover neighbourhood
// and the parts of the page every widget has. widgets/frontend.py puts this module in front of
// one widget's file (board.js, explorer.js, replay.js) to make the single ES module anywidget
// loads; `export` marks what a widget may import.

// ---- cell codes: an open cell holds its number, every other face a code at or below FACE_BASE.
// The same numbers as the Python cell codes; tests/widgets/test_cell_codes.py holds them equal.
export const FACE_BASE = -(2 ** 30);
export const COVERED = FACE_BASE - 1;
export const FLAG = FACE_BASE - 2;
export const QUESTION = FACE_BASE - 3;
export const MINE = FACE_BASE - 4;
export const EXPLODED = FACE_BASE - 5;
export const WRONG_FLAG = FACE_BASE - 6;

// The faces as the terminal picture writes them (TERMINAL_SYMBOLS in minesweeper_kit/render.py).
const SYMBOLS = { [COVERED]: "#", [FLAG]: "F", [QUESTION]: "?", [MINE]: "*", [EXPLODED]: "X", [WRONG_FLAG]: "x" };
const ZERO_SYMBOL = ".";
const NUMBER_COLOURS = ["#000", "#1b3fd1", "#1e7d22", "#c62828", "#0d1b7a", "#7a1b1b", "#0f7c7c", "#222", "#777"];
const VIEW_TEXT_LIMIT = 4096;

/** One character per cell, the terminal's symbols: '#' covered, 'F' flag, '?' question, '*' mine,
 *  'X' exploded, 'x' wrong flag, '.' an open 0, the digit of an open 1..9. Where the terminal
 *  writes a longer number (a charge can make it negative or above 9) the widget writes '-' or '+':
 *  the view text keeps one character per cell, so a row and column index it. */
export function codeChar(v) {
  if (!(v > FACE_BASE)) return SYMBOLS[v] ?? "#";  // a code, or no cell yet
  if (v === 0) return ZERO_SYMBOL;
  if (v > 0 && v <= 9) return String(v);
  return v < 0 ? "-" : "+";
}

/** Int32 codes from a bytes trait (a DataView, an ArrayBuffer or a typed array), little-endian. */
export function codesOf(value) {
  if (!value) return new Int32Array(0);
  const view = value instanceof DataView ? value
    : ArrayBuffer.isView(value) ? new DataView(value.buffer, value.byteOffset, value.byteLength)
    : new DataView(value);
  const out = new Int32Array(view.byteLength >> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

/** The bytes of a bytes trait as a Uint8Array (no copy). */
export function bytesOf(value) {
  if (!value) return new Uint8Array(0);
  if (value instanceof DataView || ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return new Uint8Array(value);
}

// ---- the visible slice: the last two axes are its rows and columns (a 1-D board is one row);
// the axes before them are the extra axes, whose position `at` the sliders choose.

/** The geometry of the visible slice of a board of this shape. */
export function sliceGeometry(shape) {
  const ndim = shape.length;
  const strides = new Array(ndim);
  let size = 1;
  for (let k = ndim - 1; k >= 0; k--) { strides[k] = size; size *= shape[k]; }
  return {
    shape: shape.slice(), ndim, size, strides,
    rows: ndim >= 2 ? shape[ndim - 2] : 1,
    cols: shape[ndim - 1],
    rowStride: ndim >= 2 ? strides[ndim - 2] : 0,
    extra: Math.max(0, ndim - 2),
  };
}

/** The flat index of the first cell of the slice at `at`. */
export function sliceBase(g, at) {
  let base = 0;
  for (let k = 0; k < g.extra; k++) base += (at[k] ?? 0) * g.strides[k];
  return base;
}

/** The full coordinate of cell (r, c) of the slice at `at`. */
export function coordOf(g, at, r, c) {
  const out = at.slice(0, g.extra);
  if (g.ndim >= 2) out.push(r);
  out.push(c);
  return out;
}

/** `fn(r, c, i)` for every cell of the slice whose first cell is `base`; `i` is the flat index. */
export function forEachCell(g, base, fn) {
  for (let r = 0; r < g.rows; r++) {
    for (let c = 0; c < g.cols; c++) fn(r, c, base + r * g.rowStride + c);
  }
}

/** The slice as text for tests and tools: `charOf(i)` per cell, rows joined by '/'; empty when
 *  the slice is too large to be worth it. */
export function sliceText(g, base, charOf) {
  if (g.rows * g.cols > VIEW_TEXT_LIMIT) return "";
  const lines = [];
  for (let r = 0; r < g.rows; r++) {
    let line = "";
    for (let c = 0; c < g.cols; c++) line += charOf(base + r * g.rowStride + c);
    lines.push(line);
  }
  return lines.join("/");
}

// ---- the canvas

/** The cell size in CSS pixels: the one asked for, else one that fits `width` pixels. */
export function autoCellSize(cols, wanted, { min = 12, max = 26, width = 880 } = {}) {
  if (wanted > 0) return wanted;
  return Math.max(min, Math.min(max, Math.floor(width / Math.max(cols, 1))));
}

/** Size the canvas to the slice at the screen's pixel ratio; returns its context, in CSS pixels. */
export function sizeCanvas(canvas, g, cs) {
  const dpr = window.devicePixelRatio || 1;
  canvas.width = Math.round(g.cols * cs * dpr);
  canvas.height = Math.round(g.rows * cs * dpr);
  canvas.style.width = `${g.cols * cs}px`;
  canvas.style.height = `${g.rows * cs}px`;
  const ctx = canvas.getContext("2d");
  ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
  return ctx;
}

/** The [row, column] of the slice under a mouse event, or null outside it. */
export function cellAt(canvas, g, event) {
  const rect = canvas.getBoundingClientRect();
  const c = Math.floor((event.clientX - rect.left) / (rect.width / g.cols));
  const r = Math.floor((event.clientY - rect.top) / (rect.height / g.rows));
  if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) return null;
  return [r, c];
}

/** Bold centred text, `scale` of the cell size. */
export function setCellFont(ctx, cs, scale) {
  ctx.font = `bold ${Math.floor(cs * scale)}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
}

// ---- drawing cells (the font set by setCellFont)

function drawCover(ctx, x, y, cs) {
  ctx.fillStyle = "#bdbdbd";
  ctx.fillRect(x, y, cs, cs);
  ctx.fillStyle = "#ececec";
  ctx.fillRect(x, y, cs - 1, 2);
  ctx.fillRect(x, y, 2, cs - 1);
  ctx.fillStyle = "#7b7b7b";
  ctx.fillRect(x, y + cs - 2, cs, 2);
  ctx.fillRect(x + cs - 2, y, 2, cs);
}

function drawCross(ctx, x, y, cs) {
  ctx.strokeStyle = "#111"; ctx.lineWidth = 2; ctx.beginPath();
  ctx.moveTo(x + 3, y + 3); ctx.lineTo(x + cs - 3, y + cs - 3);
  ctx.moveTo(x + cs - 3, y + 3); ctx.lineTo(x + 3, y + cs - 3); ctx.stroke();
}

/** A covered cell (with its flag or question mark); `seen`, when given, is the code x-ray shows
 *  through the cover, drawn faintly. */
export function drawCovered(ctx, x, y, cs, v, seen) {
  const cx = x + cs / 2, cy = y + cs / 2 + 1;
  drawCover(ctx, x, y, cs);
  if (v === FLAG) { ctx.fillStyle = "#d32f2f"; ctx.fillText("⚑", cx, cy); }
  else if (v === QUESTION) { ctx.fillStyle = "#222"; ctx.fillText("?", cx, cy); }
  else if (seen !== undefined) {
    ctx.fillStyle = "rgba(0,0,0,0.38)";
    if (seen === MINE) ctx.fillText("●", cx, cy);
    else if (seen > 0) ctx.fillText(String(seen), cx, cy);
  }
}

/** An uncovered cell: its number, a mine, the exploded mine or a wrong flag. */
export function drawOpen(ctx, x, y, cs, v) {
  const cx = x + cs / 2, cy = y + cs / 2 + 1;
  ctx.fillStyle = v === EXPLODED ? "#ff3b30" : "#e6e6e6";
  ctx.fillRect(x, y, cs, cs);
  ctx.strokeStyle = "#a8a8a8";
  ctx.lineWidth = 1;
  ctx.strokeRect(x + 0.5, y + 0.5, cs - 1, cs - 1);
  if (v === MINE || v === EXPLODED) { ctx.fillStyle = "#111"; ctx.fillText("●", cx, cy); }
  else if (v === WRONG_FLAG) { ctx.fillStyle = "#d32f2f"; ctx.fillText("⚑", cx, cy); drawCross(ctx, x, y, cs); }
  else if (v !== 0) {
    ctx.fillStyle = v > 0 ? NUMBER_COLOURS[Math.min(v, 8)] : "#8e24aa";
    ctx.fillText(String(v), cx, cy);
  }
}

/** One cell by its code (covered while its code has not arrived). */
export function drawCell(ctx, x, y, cs, v, seen) {
  if (v === undefined || v === COVERED || v === FLAG || v === QUESTION) drawCovered(ctx, x, y, cs, v, seen);
  else drawOpen(ctx, x, y, cs, v);
}

/** Cell (r, c) of a slice, flat index `i`, and its outline where `diff` is set; `xray` and `diff`
 *  are null when not shown. Everything it paints lies inside the cell, and the cell's background
 *  covers all of the cell, so a cell repainted alone leaves no trace of what it showed before. */
function paintSliceCell(ctx, cs, r, c, i, cells, xray, diff) {
  const x = c * cs, y = r * cs;
  drawCell(ctx, x, y, cs, cells[i], xray ? xray[i] : undefined);
  if (diff && diff[i]) {
    ctx.strokeStyle = "#e91e63"; ctx.lineWidth = 2;
    ctx.strokeRect(x + 1, y + 1, cs - 2, cs - 2);
  }
}

function shownLayers({ xray = null, diff = null } = {}) {
  return { xray: xray && xray.length ? xray : null, diff: diff && diff.length ? diff : null };
}

/** A whole slice of codes; `xray` (codes) shows through the covers, `diff` (bytes) outlines cells. */
export function drawSlice(ctx, g, cs, cells, base, layers) {
  const { xray, diff } = shownLayers(layers);
  setCellFont(ctx, cs, 0.62);
  forEachCell(g, base, (r, c, i) => paintSliceCell(ctx, cs, r, c, i, cells, xray, diff));
}

/** Only the cells at `places` ([r, c] in the slice) of a slice drawSlice drew before, with the
 *  same cell size, `xray` and `diff`. */
export function drawSliceCells(ctx, g, cs, cells, base, places, layers) {
  const { xray, diff } = shownLayers(layers);
  setCellFont(ctx, cs, 0.62);
  for (const [r, c] of places) paintSliceCell(ctx, cs, r, c, base + r * g.rowStride + c, cells, xray, diff);
}

/** The codes of the slice whose first cell is `base`, row by row (a cell whose code has not arrived
 *  is COVERED, as drawCell draws it): what a frame showed, for changedCells to compare with. */
export function sliceCodes(g, cells, base) {
  const out = new Int32Array(g.rows * g.cols);
  forEachCell(g, base, (r, c, i) => { out[r * g.cols + c] = cells[i] ?? COVERED; });
  return out;
}

/** The [r, c] of the cells of the slice at `base` whose code is not the one in `before` (the
 *  sliceCodes of the same slice, drawn last). */
export function changedCells(g, cells, base, before) {
  const out = [];
  forEachCell(g, base, (r, c, i) => { if ((cells[i] ?? COVERED) !== before[r * g.cols + c]) out.push([r, c]); });
  return out;
}

// ---- the hover neighbourhood (the same neighbourhood as geometry.py, within one slice)

function wrap(i, n, torus) {
  if (torus) return ((i % n) + n) % n;
  return i >= 0 && i < n ? i : -1;
}

/** The neighbours of (r, c) within its slice, the cell included, each once (a torus axis of size
 *  1 or 2 meets the same cell from both sides). */
export function neighbourCells(g, r, c, torus) {
  const seen = new Set();
  const out = [];
  for (const dr of g.ndim >= 2 ? [-1, 0, 1] : [0]) for (const dc of [-1, 0, 1]) {
    const rr = wrap(r + dr, g.rows, torus), cc = wrap(c + dc, g.cols, torus);
    if (rr < 0 || cc < 0 || seen.has(rr * g.cols + cc)) continue;
    seen.add(rr * g.cols + cc);
    out.push([rr, cc]);
  }
  return out;
}

/** The positions 0..n-1 within one step of i along an axis (i included). */
export function nearPositions(i, n, torus) {
  const near = new Set();
  for (const d of [-1, 0, 1]) {
    const j = wrap(i + d, n, torus);
    if (j >= 0) near.add(j);
  }
  return near;
}

/** Light up the neighbourhood of the hovered cell [r, c] and outline the cell. */
export function drawHover(ctx, g, cs, hover, torus) {
  ctx.fillStyle = "rgba(255, 193, 7, 0.38)";
  for (const [r, c] of neighbourCells(g, hover[0], hover[1], torus)) ctx.fillRect(c * cs, r * cs, cs, cs);
  ctx.strokeStyle = "#ff8f00"; ctx.lineWidth = 2;
  ctx.strokeRect(hover[1] * cs + 1, hover[0] * cs + 1, cs - 2, cs - 2);
}

// ---- page parts

/** A new element with a class and text. */
export function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

/** The widget's root element in `host`: no notebook context menu, and keys pressed on its own
 *  controls (arrow keys on a slider) stay with it instead of reaching the notebook's shortcuts. */
export function mountRoot(host, cls) {
  const root = el("div", cls);
  root.setAttribute("data-jp-suppress-context-menu", "");
  root.setAttribute("data-lm-suppress-shortcuts", "true");
  root.tabIndex = 0;
  root.addEventListener("keydown", (event) => event.stopPropagation());
  root.addEventListener("contextmenu", (event) => { event.preventDefault(); event.stopPropagation(); });
  host.appendChild(root);
  return root;
}

/** Show a student error (the `error` trait: message, calling, where, line, code) in `box`, with a
 *  dismiss button when `dismiss` is given; returns whether there is one. */
export function showError(box, error, dismiss) {
  const e = error || {};
  box.replaceChildren();
  if (!e.message) return false;
  box.appendChild(el("div", "msk-error-message", e.calling ? `Error in ${e.calling}: ${e.message}` : e.message));
  if (e.where) box.appendChild(el("div", "msk-error-where", `${e.where}, line ${e.line}`));
  if (e.code) box.appendChild(el("pre", "msk-error-code", e.code));
  if (dismiss) {
    const button = el("button", "msk-error-dismiss", "dismiss");
    button.addEventListener("click", dismiss);
    box.appendChild(button);
  }
  return true;
}

// ---- sliders over the extra axes

/** What a slider over axis `k` (of `n` positions) says at position `i`: the slice counted from 1
 *  among all of them, and the index the coordinates use (counted from 0), so neither is mistaken
 *  for the other: "axis 0: slice 2 of 3 (index 1)". */
export function sliceLabel(k, i, n) {
  return `axis ${k}: slice ${i + 1} of ${n} (index ${i})`;
}

function sliderRow(k, n, pick) {
  const row = el("div", "msk-slider");
  const label = el("label", "msk-slider-label");
  const input = el("input", "msk-slider-input");
  input.type = "range"; input.min = "0"; input.max = String(n - 1); input.step = "1";
  input.dataset.axis = String(k);
  input.addEventListener("input", () => pick(k, Number(input.value)));
  const strip = el("div", "msk-strip");
  for (let i = 0; i < n; i++) {
    const box = el("span", "msk-strip-cell");
    box.title = sliceLabel(k, i, n);
    box.addEventListener("click", () => pick(k, i));
    strip.appendChild(box);
  }
  row.append(label, input, strip);
  return { row, label, input, strip };
}

/** One slider (and a strip of boxes) per extra axis in `container`. The slice position lives here,
 *  in the view: moving a slider calls `moved()` to redraw and sends nothing to the kernel. Python's
 *  `slice_index` only sets it, when `adopt()` is called (at the start and when Python changes it),
 *  and so does a `show_slice` message (Python assigning `slice_index` the value it already holds,
 *  which changes no trait while the user may have slid elsewhere: see widgets/sliced.py). */
export function sliceSliders(container, model, moved) {
  let g = sliceGeometry([]), at = [], rows = [];
  function show(hovering = false, torus = false) {
    rows.forEach(({ label, input, strip }, k) => {
      const n = g.shape[k], near = hovering ? nearPositions(at[k], n, torus) : new Set();
      input.value = String(at[k]);
      label.textContent = sliceLabel(k, at[k], n);
      strip.childNodes.forEach((box, i) => {
        box.classList.toggle("msk-current", i === at[k]);
        box.classList.toggle("msk-neighbour-slice", near.has(i) && i !== at[k]);
      });
    });
  }
  function pick(k, i) { at[k] = i; show(); moved(); }
  function adopt(wanted = model.get("slice_index") || []) {
    at = Array.from({ length: g.extra }, (_, k) => Math.max(0, Math.min(wanted[k] ?? 0, g.shape[k] - 1)));
    show();
  }
  model.on("msg:custom", (message) => {
    if (message && Array.isArray(message.show_slice)) { adopt(message.show_slice); moved(); }
  });
  function build(geometry) {
    g = geometry;
    rows = Array.from({ length: g.extra }, (_, k) => sliderRow(k, g.shape[k], pick));
    container.replaceChildren(...rows.map(({ row }) => row));
    adopt();
  }
  return { build, adopt, show, position: () => at.slice() };
}
