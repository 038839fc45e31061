// NeighborExplorer's front end: one canvas for the visible slice, coloured by what the student's
// neighbours function returned for the clicked cell (see widgets/explorer.py for the marks). The
// sliders over the extra axes only redraw; Python moves the slice to a cell it selects.

import {
  autoCellSize, bytesOf, cellAt, coordOf, el, forEachCell, mountRoot, setCellFont, showError, sizeCanvas,
  sliceBase, sliceGeometry, sliceSliders, sliceText,
} from "./common.js";

const MARK_COLOURS = ["#f4f4f4", "#66bb6a", "#ffb74d", "#e57373", "#42a5f5"];
const MARK_GLYPHS = ["", "✓", "?", "✗", "●"];
const MARK_NAMES = ["", "correct", "missing", "extra", "selected"];
const EXPLORER_SIZES = { min: 14, max: 32, width: 640 };
const EXPLORER_TRAITS = ["marks", "summary", "error", "selected", "title", "cell_size"];

function buildExplorerDom(host) {
  const root = mountRoot(host, "msk-board msk-explorer");
  const bar = el("div", "msk-bar");
  const title = el("span", "msk-title");
  const counts = el("span", "msk-summary");
  bar.append(title, counts);
  const sliders = el("div", "msk-sliders");
  const canvas = el("canvas", "msk-canvas");
  const legend = el("div", "msk-legend");
  for (let k = 1; k < MARK_NAMES.length; k++) {
    const item = el("span", "msk-legend-item", `${MARK_GLYPHS[k]} ${MARK_NAMES[k]}`);
    item.style.background = MARK_COLOURS[k];
    legend.appendChild(item);
  }
  const outside = el("div", "msk-outside");
  const errorBox = el("div", "msk-error");
  root.append(bar, sliders, canvas, legend, outside, errorBox);
  return { root, title, counts, sliders, canvas, outside, errorBox };
}

/** Paint the marks of the visible slice; `data-view` gets them as digits. */
function drawMarks(view) {
  const { model, dom } = view;
  const g = sliceGeometry(model.get("shape"));
  const cs = autoCellSize(g.cols, model.get("cell_size"), EXPLORER_SIZES);
  const ctx = sizeCanvas(dom.canvas, g, cs);
  const marks = bytesOf(model.get("marks"));
  const base = sliceBase(g, view.slices.position());
  setCellFont(ctx, cs, 0.55);
  forEachCell(g, base, (r, c, i) => {
    const m = marks[i] || 0;
    ctx.fillStyle = MARK_COLOURS[m];
    ctx.fillRect(c * cs, r * cs, cs, cs);
    ctx.strokeStyle = "#9e9e9e"; ctx.lineWidth = 1;
    ctx.strokeRect(c * cs + 0.5, r * cs + 0.5, cs - 1, cs - 1);
    if (m) { ctx.fillStyle = "#111"; ctx.fillText(MARK_GLYPHS[m], c * cs + cs / 2, r * cs + cs / 2 + 1); }
  });
  dom.root.dataset.view = sliceText(g, base, (i) => String(marks[i] || 0));
  dom.root.dataset.cellSize = String(cs);
}

function summaryText(summary, selected) {
  if (!selected.length) return "click a cell";
  const s = summary;
  return `cell (${selected.join(", ")}): ${s.correct ?? 0} correct, ${s.missing ?? 0} missing, ${s.extra ?? 0} extra`
    + (s.duplicates ? `, ${s.duplicates} duplicated` : "");
}

function showExplorer(view) {
  const { model, dom } = view;
  const summary = model.get("summary") || {};
  dom.title.textContent = model.get("title");
  dom.counts.textContent = summaryText(summary, model.get("selected") || []);
  dom.root.dataset.summary = JSON.stringify(summary);
  dom.outside.textContent = summary.outside && summary.outside.length
    ? `outside the board: ${summary.outside.map((c) => `(${c.join(", ")})`).join(" ")}` : "";
  showError(dom.errorBox, model.get("error"));
  drawMarks(view);
}

function renderExplorer({ model, el: host }) {
  const dom = buildExplorerDom(host);
  const view = { model, dom };
  view.slices = sliceSliders(dom.sliders, model, () => drawMarks(view));
  dom.canvas.addEventListener("click", (event) => {
    const g = sliceGeometry(model.get("shape"));
    const rc = cellAt(dom.canvas, g, event);
    if (rc) model.send({ action: "select", at: coordOf(g, view.slices.position(), rc[0], rc[1]) });
  });
  for (const name of EXPLORER_TRAITS) model.on(`change:${name}`, () => showExplorer(view));
  model.on("change:slice_index", () => { view.slices.adopt(); drawMarks(view); });
  model.on("change:shape", () => { view.slices.build(sliceGeometry(model.get("shape"))); showExplorer(view); });
  view.slices.build(sliceGeometry(model.get("shape")));
  showExplorer(view);
}

export default { render: renderExplorer };
