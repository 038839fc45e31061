// Replay's front end: all positions arrive at once; the step slider, play/pause and speed only
// choose which one to draw, and the sliders over the extra axes which slice of it.

import {
  autoCellSize, codeChar, codesOf, drawSlice, el, mountRoot, sizeCanvas, sliceBase, sliceGeometry,
  sliceSliders, sliceText,
} from "./common.js";

const SPEEDS = [1, 2, 4, 8, 16, 32];

function buildReplayDom(host) {
  const root = mountRoot(host, "msk-board msk-replay");
  const bar = el("div", "msk-bar");
  const play = el("button", "msk-play", "▶");
  play.title = "play / pause";
  const slider = el("input", "msk-step");
  slider.type = "range"; slider.min = "0"; slider.step = "1";
  const label = el("span", "msk-step-label");
  const speed = el("select", "msk-speed");
  for (const s of SPEEDS) {
    const option = el("option", "", `${s}/s`);
    option.value = String(s);
    speed.appendChild(option);
  }
  bar.append(play, slider, label, speed);
  const sliders = el("div", "msk-sliders");
  const canvas = el("canvas", "msk-canvas");
  root.append(bar, sliders, canvas);
  return { root, play, slider, label, speed, sliders, canvas };
}

/** Take the frames and the shape: size the canvas, rebuild the sliders, draw. */
function setupReplay(view) {
  const { model, dom } = view;
  view.frames = codesOf(model.get("frames"));
  view.g = sliceGeometry(model.get("shape"));
  view.cs = autoCellSize(view.g.cols, model.get("cell_size"));
  view.ctx = sizeCanvas(dom.canvas, view.g, view.cs);
  dom.slider.max = String(Math.max(0, model.get("count") - 1));
  view.slices.build(view.g);
  drawStep(view);
}

/** Draw the current step's visible slice and label it. */
function drawStep(view) {
  const { model, dom, g } = view;
  const step = model.get("step");
  const frame = view.frames.subarray(step * g.size, (step + 1) * g.size);
  const base = sliceBase(g, view.slices.position());
  drawSlice(view.ctx, g, view.cs, frame, base);
  dom.slider.value = String(step);
  const labels = model.get("labels"), states = model.get("states"), left = model.get("mines_left");
  dom.label.textContent = `${step} / ${model.get("count") - 1}: ${labels[step] ?? ""}  `
    + `(${states[step] ?? ""}, ${left[step] ?? ""} mines left)`;
  dom.root.dataset.step = String(step);
  dom.root.dataset.view = sliceText(g, base, (i) => codeChar(frame[i]));
}

/** Play/pause: a timer moves `step` (Python reads it: Replay.position()). */
function replayPlayer(view) {
  const { model, dom } = view;
  let timer = null;
  const last = () => model.get("count") - 1;
  function setStep(i) {
    model.set("step", Math.max(0, Math.min(last(), i)));
    model.save_changes();
    drawStep(view);
  }
  function stop() {
    if (timer !== null) { clearInterval(timer); timer = null; }
    dom.play.textContent = "▶";
  }
  function start() {
    if (model.get("step") >= last()) setStep(0);
    dom.play.textContent = "⏸";
    timer = setInterval(() => {
      if (model.get("step") >= last()) stop();
      else setStep(model.get("step") + 1);
    }, 1000 / model.get("speed"));
  }
  return { setStep, stop, start, playing: () => timer !== null };
}

function listenToReplayInput(view, player) {
  const { model, dom } = view;
  dom.play.addEventListener("click", () => (player.playing() ? player.stop() : player.start()));
  dom.slider.addEventListener("input", () => { player.stop(); player.setStep(Number(dom.slider.value)); });
  dom.speed.value = String(model.get("speed"));
  dom.speed.addEventListener("change", () => {
    model.set("speed", Number(dom.speed.value));
    model.save_changes();
    if (player.playing()) { player.stop(); player.start(); }
  });
}

function renderReplay({ model, el: host }) {
  const view = { model, dom: buildReplayDom(host), frames: new Int32Array(0), g: null, cs: 0, ctx: null };
  view.slices = sliceSliders(view.dom.sliders, model, () => drawStep(view));
  const player = replayPlayer(view);
  listenToReplayInput(view, player);
  model.on("change:frames", () => setupReplay(view));
  model.on("change:shape", () => setupReplay(view));
  model.on("change:step", () => drawStep(view));
  model.on("change:slice_index", () => { view.slices.adopt(); drawStep(view); });
  setupReplay(view);
  return player.stop;
}

export default { render: renderReplay };
