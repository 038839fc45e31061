// The board's front end: one canvas for the whole visible slice, a status bar, one slider per
// extra axis. Cell codes come from Python as one int32 array (see widgets/drivers.py); clicks go
// back as custom messages. Sliders, hover and flag mode never need a round trip.

const FACE_BASE = -(2 ** 30);
const COVERED = FACE_BASE - 1;
const FLAG = FACE_BASE - 2;
const QUESTION = FACE_BASE - 3;
const MINE = FACE_BASE - 4;
const EXPLODED = FACE_BASE - 5;
const WRONG_FLAG = FACE_BASE - 6;

const NUMBER_COLOURS = ["#000", "#1b3fd1", "#1e7d22", "#c62828", "#0d1b7a", "#7a1b1b",
  "#0f7c7c", "#222", "#777"];
const FACES = { ongoing: "☺", victory: "★", defeat: "☹" };
const VIEW_TEXT_LIMIT = 4096;

/** Int32 codes from a bytes trait (a DataView, an ArrayBuffer or a typed array). */
export function codesOf(value) {
  if (!value) return new Int32Array(0);
  const view = value instanceof DataView ? value
    : ArrayBuffer.isView(value) ? new DataView(value.buffer, value.byteOffset, value.byteLength)
    : new DataView(value);
  const out = new Int32Array(view.byteLength >> 2);
  for (let i = 0; i < out.length; i++) out[i] = view.getInt32(i * 4, true);
  return out;
}

function bytesOf(value) {
  if (!value) return new Uint8Array(0);
  if (value instanceof DataView) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  if (ArrayBuffer.isView(value)) return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  return new Uint8Array(value);
}

/** One character per cell: '#' covered, 'F' flag, '?' question, '*' mine, 'X' exploded,
 *  'W' wrong flag, a digit for an open cell (its number when it is 0..9, else '+'/'-'). */
export function codeChar(v) {
  if (v > FACE_BASE) return v >= 0 && v <= 9 ? String(v) : v < 0 ? "-" : "+";
  return { [COVERED]: "#", [FLAG]: "F", [QUESTION]: "?", [MINE]: "*", [EXPLODED]: "X",
    [WRONG_FLAG]: "W" }[v] ?? "#";
}

/** The geometry of the visible slice of an N-D board. */
export function sliceGeometry(shape) {
  const ndim = shape.length;
  const rows = ndim >= 2 ? shape[ndim - 2] : 1;
  const cols = shape[ndim - 1];
  const strides = new Array(ndim);
  let s = 1;
  for (let k = ndim - 1; k >= 0; k--) { strides[k] = s; s *= shape[k]; }
  const extra = Math.max(0, ndim - 2);
  return { ndim, rows, cols, strides, extra };
}

function autoCellSize(cols, wanted) {
  if (wanted > 0) return wanted;
  return Math.max(12, Math.min(26, Math.floor(880 / Math.max(cols, 1))));
}

/** Draw a whole slice. `cells` are codes, `base` the flat index of the slice's first cell. */
export function drawSlice(ctx, g, cs, cells, base, opts = {}) {
  const { xray, diff, hover, torus } = opts;
  ctx.font = `bold ${Math.floor(cs * 0.62)}px system-ui, sans-serif`;
  ctx.textAlign = "center";
  ctx.textBaseline = "middle";
  const rowStride = g.ndim >= 2 ? g.strides[g.ndim - 2] : 0;
  for (let r = 0; r < g.rows; r++) {
    for (let c = 0; c < g.cols; c++) {
      const i = base + r * rowStride + c;
      const v = cells[i];
      const x = c * cs, y = r * cs;
      const cx = x + cs / 2, cy = y + cs / 2 + 1;
      if (v === COVERED || v === FLAG || v === QUESTION) {
        ctx.fillStyle = "#bdbdbd";
        ctx.fillRect(x, y, cs, cs);
        ctx.fillStyle = "#ececec";
        ctx.fillRect(x, y, cs - 1, 2);
        ctx.fillRect(x, y, 2, cs - 1);
        ctx.fillStyle = "#7b7b7b";
        ctx.fillRect(x, y + cs - 2, cs, 2);
        ctx.fillRect(x + cs - 2, y, 2, cs);
        if (v === FLAG) { ctx.fillStyle = "#d32f2f"; ctx.fillText("⚑", cx, cy); }
        else if (v === QUESTION) { ctx.fillStyle = "#222"; ctx.fillText("?", cx, cy); }
        else if (xray && xray.length) {
          const w = xray[i];
          ctx.fillStyle = "rgba(0,0,0,0.38)";
          if (w === MINE) ctx.fillText("●", cx, cy);
          else if (w > 0) ctx.fillText(String(w), cx, cy);
        }
      } else {
        ctx.fillStyle = v === EXPLODED ? "#ff3b30" : "#e6e6e6";
        ctx.fillRect(x, y, cs, cs);
        ctx.strokeStyle = "#a8a8a8";
        ctx.lineWidth = 1;
        ctx.strokeRect(x + 0.5, y + 0.5, cs - 1, cs - 1);
        if (v === MINE || v === EXPLODED) { ctx.fillStyle = "#111"; ctx.fillText("●", cx, cy); }
        else if (v === WRONG_FLAG) {
          ctx.fillStyle = "#d32f2f"; ctx.fillText("⚑", cx, cy);
          ctx.strokeStyle = "#111"; ctx.lineWidth = 2; ctx.beginPath();
          ctx.moveTo(x + 3, y + 3); ctx.lineTo(x + cs - 3, y + cs - 3);
          ctx.moveTo(x + cs - 3, y + 3); ctx.lineTo(x + 3, y + cs - 3); ctx.stroke();
        } else if (v !== 0) {
          ctx.fillStyle = v > 0 ? NUMBER_COLOURS[Math.min(v, 8)] : "#8e24aa";
          ctx.fillText(String(v), cx, cy);
        }
      }
      if (diff && diff.length && diff[i]) {
        ctx.strokeStyle = "#e91e63"; ctx.lineWidth = 2;
        ctx.strokeRect(x + 1, y + 1, cs - 2, cs - 2);
      }
    }
  }
  if (hover) {
    ctx.fillStyle = "rgba(255, 193, 7, 0.38)";
    for (const [r, c] of neighbourCells(hover[0], hover[1], g.rows, g.cols, torus, g.ndim > 1)) {
      ctx.fillRect(c * cs, r * cs, cs, cs);
    }
    ctx.strokeStyle = "#ff8f00"; ctx.lineWidth = 2;
    ctx.strokeRect(hover[1] * cs + 1, hover[0] * cs + 1, cs - 2, cs - 2);
  }
}

function wrap(i, n, torus) {
  if (torus) return ((i % n) + n) % n;
  return i >= 0 && i < n ? i : -1;
}

/** The neighbours of (r, c) within one slice, deduplicated (a torus axis of size 2 or 1). */
export function neighbourCells(r, c, rows, cols, torus, twoD = true) {
  const seen = new Set();
  const out = [];
  const drs = twoD ? [-1, 0, 1] : [0];
  for (const dr of drs) for (const dc of [-1, 0, 1]) {
    const rr = wrap(r + dr, rows, torus), cc = wrap(c + dc, cols, torus);
    if (rr < 0 || cc < 0) continue;
    const key = rr * cols + cc;
    if (seen.has(key)) continue;
    seen.add(key);
    out.push([rr, cc]);
  }
  return out;
}

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function render({ model, el: host }) {
  const root = el("div", "msk-board");
  root.setAttribute("data-jp-suppress-context-menu", "");
  root.setAttribute("data-lm-suppress-shortcuts", "true");  // arrow keys move sliders, not cells
  root.tabIndex = 0;
  // keys pressed on the board's own controls are ours, not the notebook's shortcuts
  root.addEventListener("keydown", (event) => event.stopPropagation());
  host.appendChild(root);

  // ---- status bar
  const bar = el("div", "msk-bar");
  const minesLeft = el("span", "msk-counter msk-mines-left");
  minesLeft.title = "mines left";
  const face = el("button", "msk-face");
  face.title = "new game";
  const timer = el("span", "msk-counter msk-timer");
  timer.title = "seconds";
  const flagMode = el("button", "msk-toggle msk-flag-mode", "⚑ mode");
  flagMode.title = "flag mode: a left click marks instead of digging (trackpads, touch)";
  const xrayButton = el("button", "msk-toggle msk-xray", "x-ray");
  xrayButton.title = "see through the covers";
  const compareButton = el("button", "msk-toggle msk-compare", "compare");
  compareButton.title = "outline the cells where this view differs from the kit's engine";
  const seed = el("span", "msk-seed");
  const title = el("span", "msk-title");
  bar.append(minesLeft, face, timer, flagMode, xrayButton, compareButton, seed, title);

  const sliders = el("div", "msk-sliders");
  const scroller = el("div", "msk-scroller");
  const canvas = el("canvas", "msk-canvas");
  scroller.appendChild(canvas);
  const errorBox = el("div", "msk-error");
  root.append(bar, sliders, scroller, errorBox);
  const ctx = canvas.getContext("2d");

  let flagModeOn = false;
  let hover = null;
  let cells = new Int32Array(0), xray = new Int32Array(0), diff = new Uint8Array(0);
  let g = sliceGeometry(model.get("shape"));
  let cs = autoCellSize(g.cols, model.get("cell_size"));
  let clickedAt = null;
  let renders = 0;
  let strips = [];

  function sliceIndex() {
    const s = model.get("slice_index") || [];
    return Array.from({ length: g.extra }, (_, k) => Math.min(s[k] ?? 0, model.get("shape")[k] - 1));
  }

  function sliceBase() {
    const s = sliceIndex();
    let base = 0;
    for (let k = 0; k < g.extra; k++) base += s[k] * g.strides[k];
    return base;
  }

  function coordOf(r, c) {
    const at = sliceIndex();
    if (g.ndim >= 2) at.push(r);
    at.push(c);
    return at;
  }

  function buildSliders() {
    sliders.replaceChildren();
    strips = [];
    const shape = model.get("shape");
    for (let k = 0; k < g.extra; k++) {
      const row = el("div", "msk-slider");
      const label = el("label", "msk-slider-label");
      const input = el("input", "msk-slider-input");
      input.type = "range"; input.min = "0"; input.max = String(shape[k] - 1); input.step = "1";
      input.dataset.axis = String(k);
      const strip = el("div", "msk-strip");
      for (let i = 0; i < shape[k]; i++) {
        const box = el("span", "msk-strip-cell");
        box.title = `axis ${k} = ${i}`;
        box.addEventListener("click", () => setSlice(k, i));
        strip.appendChild(box);
      }
      input.addEventListener("input", () => setSlice(k, Number(input.value)));
      row.append(label, input, strip);
      sliders.appendChild(row);
      strips.push({ label, input, strip });
    }
    updateSliders();
  }

  function setSlice(k, i) {
    const s = sliceIndex();
    s[k] = i;
    model.set("slice_index", s);
    model.save_changes();
    updateSliders();
    draw();
  }

  function updateSliders() {
    const s = sliceIndex();
    const shape = model.get("shape");
    const torus = model.get("torus");
    strips.forEach(({ label, input, strip }, k) => {
      input.value = String(s[k]);
      label.textContent = `axis ${k}: ${s[k]} / ${shape[k] - 1}`;
      const near = new Set();
      if (hover) for (const d of [-1, 0, 1]) {
        const j = wrap(s[k] + d, shape[k], torus);
        if (j >= 0) near.add(j);
      }
      strip.childNodes.forEach((box, i) => {
        box.classList.toggle("msk-current", i === s[k]);
        box.classList.toggle("msk-neighbour-slice", near.has(i) && i !== s[k]);
      });
    });
  }

  function resize() {
    g = sliceGeometry(model.get("shape"));
    cs = autoCellSize(g.cols, model.get("cell_size"));
    const dpr = window.devicePixelRatio || 1;
    canvas.width = Math.round(g.cols * cs * dpr);
    canvas.height = Math.round(g.rows * cs * dpr);
    canvas.style.width = `${g.cols * cs}px`;
    canvas.style.height = `${g.rows * cs}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    root.dataset.rows = String(g.rows);
    root.dataset.cols = String(g.cols);
    root.dataset.cellSize = String(cs);
  }

  function draw() {
    drawSlice(ctx, g, cs, cells, sliceBase(), {
      xray: model.get("xray") ? xray : null,
      diff: model.get("compare") ? diff : null,
      hover, torus: model.get("torus"),
    });
    renders += 1;
    root.dataset.renders = String(renders);
    if (clickedAt !== null) {
      root.dataset.clickMs = (performance.now() - clickedAt).toFixed(2);
      clickedAt = null;
    }
    if (g.rows * g.cols <= VIEW_TEXT_LIMIT) {
      const base = sliceBase();
      const rowStride = g.ndim >= 2 ? g.strides[g.ndim - 2] : 0;
      const lines = [];
      for (let r = 0; r < g.rows; r++) {
        let line = "";
        for (let c = 0; c < g.cols; c++) line += codeChar(cells[base + r * rowStride + c]);
        lines.push(line);
      }
      root.dataset.view = lines.join("/");
    }
  }

  function updateStatus() {
    const left = model.get("mines_left");
    const state = model.get("state");
    minesLeft.textContent = String(Math.max(0, left)).padStart(3, "0");
    face.textContent = FACES[state] ?? "☺";
    root.dataset.state = state;
    root.dataset.minesLeft = String(left);
    seed.textContent = model.get("seed") ? `seed ${model.get("seed")}` : "";
    title.textContent = model.get("title");
    flagMode.classList.toggle("msk-on", flagModeOn);
    xrayButton.classList.toggle("msk-on", model.get("xray"));
    compareButton.classList.toggle("msk-on", model.get("compare"));
    compareButton.style.display = model.get("can_compare") ? "" : "none";
    root.classList.toggle("msk-over", state !== "ongoing");
    tick();
  }

  let stampElapsed = 0, stampAt = performance.now(), timerHandle = null;
  function tick() {
    const running = model.get("running");
    const seconds = stampElapsed + (running ? (performance.now() - stampAt) / 1000 : 0);
    timer.textContent = String(Math.min(999, Math.floor(seconds))).padStart(3, "0");
    if (running && timerHandle === null) timerHandle = setInterval(tick, 250);
    if (!running && timerHandle !== null) { clearInterval(timerHandle); timerHandle = null; }
  }

  function updateError() {
    const e = model.get("error") || {};
    errorBox.replaceChildren();
    root.classList.toggle("msk-has-error", Boolean(e.message));
    if (!e.message) return;
    const head = el("div", "msk-error-message",
      e.calling ? `Error in ${e.calling}: ${e.message}` : e.message);
    errorBox.appendChild(head);
    if (e.where) {
      errorBox.appendChild(el("div", "msk-error-where", `${e.where}, line ${e.line}`));
      if (e.code) errorBox.appendChild(el("pre", "msk-error-code", e.code));
    }
    const dismiss = el("button", "msk-error-dismiss", "dismiss");
    dismiss.addEventListener("click", () => model.send({ action: "dismiss" }));
    errorBox.appendChild(dismiss);
  }

  function cellAt(event) {
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor((event.clientX - rect.left) / (rect.width / g.cols));
    const r = Math.floor((event.clientY - rect.top) / (rect.height / g.rows));
    if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) return null;
    return [r, c];
  }

  function send(action, event) {
    const rc = cellAt(event);
    if (!rc) return;
    clickedAt = performance.now();
    model.send({ action, at: coordOf(rc[0], rc[1]) });
  }

  canvas.addEventListener("click", (event) => {
    if (event.button !== 0) return;
    send(flagModeOn || event.shiftKey ? "mark" : "dig", event);
  });
  canvas.addEventListener("contextmenu", (event) => {
    event.preventDefault();
    event.stopPropagation();
    send("mark", event);
  });
  root.addEventListener("contextmenu", (event) => { event.preventDefault(); event.stopPropagation(); });
  canvas.addEventListener("mousemove", (event) => {
    const rc = cellAt(event);
    if (rc && hover && rc[0] === hover[0] && rc[1] === hover[1]) return;
    hover = rc;
    root.dataset.hover = rc ? coordOf(rc[0], rc[1]).join(",") : "";
    updateSliders();
    draw();
  });
  canvas.addEventListener("mouseleave", () => {
    hover = null; root.dataset.hover = ""; updateSliders(); draw();
  });
  face.addEventListener("click", () => model.send({ action: "new" }));
  flagMode.addEventListener("click", () => { flagModeOn = !flagModeOn; updateStatus(); });
  xrayButton.addEventListener("click", () => { model.set("xray", !model.get("xray")); model.save_changes(); });
  compareButton.addEventListener("click", () => {
    model.set("compare", !model.get("compare")); model.save_changes();
  });

  function onCells() { cells = codesOf(model.get("cells")); draw(); }
  function onVersion() { root.dataset.version = String(model.get("version")); }
  model.on("change:version", onVersion);
  onVersion();
  function onShape() { resize(); buildSliders(); onCells(); }
  model.on("change:cells", onCells);
  model.on("change:xray_cells", () => { xray = codesOf(model.get("xray_cells")); draw(); });
  model.on("change:diff", () => { diff = bytesOf(model.get("diff")); draw(); });
  model.on("change:shape", onShape);
  model.on("change:cell_size", onShape);
  model.on("change:slice_index", () => { updateSliders(); draw(); });
  model.on("change:elapsed", () => { stampElapsed = model.get("elapsed"); stampAt = performance.now(); tick(); });
  for (const name of ["state", "mines_left", "seed", "title", "running", "xray", "compare", "can_compare"]) {
    model.on(`change:${name}`, updateStatus);
  }
  model.on("change:error", updateError);
  model.on("change:xray", draw);
  model.on("change:compare", draw);

  xray = codesOf(model.get("xray_cells"));
  diff = bytesOf(model.get("diff"));
  stampElapsed = model.get("elapsed");
  onShape();
  updateStatus();
  updateError();
  return () => { if (timerHandle !== null) clearInterval(timerHandle); };
}

export default { render };
