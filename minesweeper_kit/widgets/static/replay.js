// Replay's front end, appended to board.js (whose drawing helpers it uses): all positions arrive
// at once; the slider, play/pause and speed only choose which one to draw.

function renderReplay({ model, el: host }) {
  const root = el("div", "msk-board msk-replay");
  root.setAttribute("data-jp-suppress-context-menu", "");
  root.addEventListener("keydown", (event) => event.stopPropagation());
  host.appendChild(root);
  const bar = el("div", "msk-bar");
  const play = el("button", "msk-play", "▶");
  play.title = "play / pause";
  const slider = el("input", "msk-step");
  slider.type = "range"; slider.min = "0"; slider.step = "1";
  const label = el("span", "msk-step-label");
  const speed = el("select", "msk-speed");
  for (const s of [1, 2, 4, 8, 16, 32]) {
    const o = el("option", "", `${s}/s`); o.value = String(s); speed.appendChild(o);
  }
  bar.append(play, slider, label, speed);
  const sliders = el("div", "msk-sliders");
  const canvas = el("canvas", "msk-canvas");
  root.append(bar, sliders, canvas);
  const ctx = canvas.getContext("2d");
  let frames = new Int32Array(0), g = null, cs = 20, timer = null;

  function setStep(i) {
    model.set("step", Math.max(0, Math.min(model.get("count") - 1, i)));
    model.save_changes();
    draw();
  }

  function buildSliders() {
    sliders.replaceChildren();
    const shape = model.get("shape");
    for (let k = 0; k < g.extra; k++) {
      const input = el("input", "msk-slider-input");
      input.type = "range"; input.min = "0"; input.max = String(shape[k] - 1);
      input.value = String((model.get("slice_index") || [])[k] || 0);
      input.addEventListener("input", () => {
        const s = (model.get("slice_index") || []).slice(); s[k] = Number(input.value);
        model.set("slice_index", s); model.save_changes(); draw();
      });
      sliders.appendChild(input);
    }
  }

  function setup() {
    frames = codesOf(model.get("frames"));
    g = sliceGeometry(model.get("shape"));
    cs = model.get("cell_size") || Math.max(12, Math.min(26, Math.floor(880 / g.cols)));
    const dpr = window.devicePixelRatio || 1;
    canvas.width = g.cols * cs * dpr; canvas.height = g.rows * cs * dpr;
    canvas.style.width = `${g.cols * cs}px`; canvas.style.height = `${g.rows * cs}px`;
    ctx.setTransform(dpr, 0, 0, dpr, 0, 0);
    slider.max = String(Math.max(0, model.get("count") - 1));
    buildSliders();
    draw();
  }

  function draw() {
    const step = model.get("step");
    const size = model.get("shape").reduce((a, b) => a * b, 1);
    const frame = frames.subarray(step * size, (step + 1) * size);
    const s = model.get("slice_index") || [];
    let base = 0;
    for (let k = 0; k < g.extra; k++) base += (s[k] || 0) * g.strides[k];
    drawSlice(ctx, g, cs, frame, base, { torus: model.get("torus") });
    slider.value = String(step);
    const labels = model.get("labels"), states = model.get("states");
    label.textContent = `${step} / ${model.get("count") - 1}: ${labels[step] ?? ""}  (${states[step] ?? ""}, ${model.get("mines_left")[step] ?? ""} mines left)`;
    root.dataset.step = String(step);
    const rowStride = g.ndim >= 2 ? g.strides[g.ndim - 2] : 0;
    const lines = [];
    for (let r = 0; r < g.rows; r++) {
      let line = "";
      for (let c = 0; c < g.cols; c++) line += codeChar(frame[base + r * rowStride + c]);
      lines.push(line);
    }
    root.dataset.view = lines.join("/");
  }

  function stop() { if (timer !== null) { clearInterval(timer); timer = null; } play.textContent = "▶"; }
  function start() {
    if (model.get("step") >= model.get("count") - 1) setStep(0);
    play.textContent = "⏸";
    timer = setInterval(() => {
      if (model.get("step") >= model.get("count") - 1) { stop(); return; }
      setStep(model.get("step") + 1);
    }, 1000 / model.get("speed"));
  }
  play.addEventListener("click", () => (timer === null ? start() : stop()));
  slider.addEventListener("input", () => { stop(); setStep(Number(slider.value)); });
  speed.value = String(model.get("speed"));
  speed.addEventListener("change", () => {
    model.set("speed", Number(speed.value)); model.save_changes();
    if (timer !== null) { stop(); start(); }
  });
  model.on("change:frames", setup);
  model.on("change:shape", setup);
  model.on("change:step", draw);
  model.on("change:slice_index", draw);
  setup();
  return stop;
}

export default { render: renderReplay };
