// NeighborExplorer's front end: one canvas for the visible slice, coloured by what the student's
// neighbours function returned for the clicked cell (see widgets/explorer.py for the codes).

const COLOURS = ["#f4f4f4", "#66bb6a", "#ffb74d", "#e57373", "#42a5f5"];
const GLYPHS = ["", "✓", "?", "✗", "●"];
const NAMES = ["", "correct", "missing", "extra", "selected"];

function el(tag, cls, text) {
  const e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined) e.textContent = text;
  return e;
}

function bytesOf(value) {
  if (!value) return new Uint8Array(0);
  if (value instanceof DataView || ArrayBuffer.isView(value)) {
    return new Uint8Array(value.buffer, value.byteOffset, value.byteLength);
  }
  return new Uint8Array(value);
}

function render({ model, el: host }) {
  const root = el("div", "msk-board msk-explorer");
  root.setAttribute("data-jp-suppress-context-menu", "");
  root.addEventListener("keydown", (event) => event.stopPropagation());
  host.appendChild(root);
  const bar = el("div", "msk-bar");
  const title = el("span", "msk-title");
  const counts = el("span", "msk-summary");
  bar.append(title, counts);
  const sliders = el("div", "msk-sliders");
  const canvas = el("canvas", "msk-canvas");
  const legend = el("div", "msk-legend");
  for (let k = 1; k <= 4; k++) {
    const item = el("span", "msk-legend-item", `${GLYPHS[k]} ${NAMES[k]}`);
    item.style.background = COLOURS[k];
    legend.appendChild(item);
  }
  const outside = el("div", "msk-outside");
  const errorBox = el("div", "msk-error");
  root.append(bar, sliders, canvas, legend, outside, errorBox);
  const ctx = canvas.getContext("2d");

  const shape = () => model.get("shape");
  const geometry = () => {
    const s = shape(), n = s.length;
    const strides = new Array(n);
    let m = 1;
    for (let k = n - 1; k >= 0; k--) { strides[k] = m; m *= s[k]; }
    return { n, rows: n >= 2 ? s[n - 2] : 1, cols: s[n - 1], strides, extra: Math.max(0, n - 2) };
  };
  const sliceIndex = () => (model.get("slice_index") || []).slice();
  let cs = 28;

  function buildSliders() {
    sliders.replaceChildren();
    const g = geometry();
    for (let k = 0; k < g.extra; k++) {
      const row = el("div", "msk-slider");
      const label = el("label", "msk-slider-label");
      const input = el("input", "msk-slider-input");
      input.type = "range"; input.min = "0"; input.max = String(shape()[k] - 1);
      input.addEventListener("input", () => {
        const s = sliceIndex(); s[k] = Number(input.value);
        model.set("slice_index", s); model.save_changes(); update();
      });
      row.append(label, input);
      sliders.appendChild(row);
    }
  }

  function draw() {
    const g = geometry();
    cs = model.get("cell_size") || Math.max(14, Math.min(32, Math.floor(640 / g.cols)));
    const dpr = window.devicePixelRatio || 1;
    canvas.width = g.cols * cs * dpr; canvas.height = g.rows * cs * dpr;
    canvas.style.width = `${g.cols * cs}px`; canvas.style.height = `${g.rows * cs}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    const marks = bytesOf(model.get("marks"));
    const s = sliceIndex();
    let base = 0;
    for (let k = 0; k < g.extra; k++) base += s[k] * g.strides[k];
    const rowStride = g.n >= 2 ? g.strides[g.n - 2] : 0;
    ctx.font = `bold ${Math.floor(cs * 0.55)}px system-ui, sans-serif`;
    ctx.textAlign = "center"; ctx.textBaseline = "middle";
    const text = [];
    for (let r = 0; r < g.rows; r++) {
      let line = "";
      for (let c = 0; c < g.cols; c++) {
        const m = marks[base + r * rowStride + c] || 0;
        line += String(m);
        ctx.fillStyle = COLOURS[m]; ctx.fillRect(c * cs, r * cs, cs, cs);
        ctx.strokeStyle = "#9e9e9e"; ctx.lineWidth = 1;
        ctx.strokeRect(c * cs + 0.5, r * cs + 0.5, cs - 1, cs - 1);
        if (m) { ctx.fillStyle = "#111"; ctx.fillText(GLYPHS[m], c * cs + cs / 2, r * cs + cs / 2 + 1); }
      }
      text.push(line);
    }
    root.dataset.view = text.join("/");
    root.dataset.cellSize = String(cs);
  }

  function update() {
    const g = geometry();
    const s = sliceIndex();
    sliders.querySelectorAll(".msk-slider").forEach((row, k) => {
      row.querySelector("input").value = String(s[k] ?? 0);
      row.querySelector("label").textContent = `axis ${k}: ${s[k] ?? 0} / ${shape()[k] - 1}`;
    });
    title.textContent = model.get("title");
    const sum = model.get("summary") || {};
    const sel = model.get("selected") || [];
    counts.textContent = sel.length
      ? `cell (${sel.join(", ")}): ${sum.correct ?? 0} correct, ${sum.missing ?? 0} missing, ${sum.extra ?? 0} extra`
        + (sum.duplicates ? `, ${sum.duplicates} duplicated` : "")
      : "click a cell";
    root.dataset.summary = JSON.stringify(sum);
    outside.textContent = sum.outside && sum.outside.length
      ? `outside the board: ${sum.outside.map((c) => `(${c.join(", ")})`).join(" ")}` : "";
    const e = model.get("error") || {};
    errorBox.replaceChildren();
    if (e.message) {
      errorBox.appendChild(el("div", "msk-error-message", e.calling ? `Error in ${e.calling}: ${e.message}` : e.message));
      if (e.where) errorBox.appendChild(el("div", "msk-error-where", `${e.where}, line ${e.line}`));
      if (e.code) errorBox.appendChild(el("pre", "msk-error-code", e.code));
    }
    draw();
    void g;
  }

  canvas.addEventListener("click", (event) => {
    const g = geometry();
    const rect = canvas.getBoundingClientRect();
    const c = Math.floor((event.clientX - rect.left) / cs), r = Math.floor((event.clientY - rect.top) / cs);
    if (r < 0 || c < 0 || r >= g.rows || c >= g.cols) return;
    const at = sliceIndex().slice(0, g.extra);
    if (g.n >= 2) at.push(r);
    at.push(c);
    model.send({ action: "select", at });
  });
  for (const name of ["marks", "summary", "error", "slice_index", "selected", "title", "cell_size"]) {
    model.on(`change:${name}`, update);
  }
  model.on("change:shape", () => { buildSliders(); update(); });
  buildSliders();
  update();
}

export default { render };
