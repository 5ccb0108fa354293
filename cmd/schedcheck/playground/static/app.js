// The playground page: it calls recur (compiled to WebAssembly, see
// wasm_exec.js and recur.wasm) on every keystroke and draws the result.
"use strict";

const $ = (id) => document.getElementById(id);
const policy = $("policy"), seed = $("seed"), status = $("status");
// Measurements, read by the browser tests and `make screenshot`:
// firstResult is milliseconds from navigation start to the first drawn
// result, updates the milliseconds of each update after it.
// compiled and started mark the steps before the first result.
// analyze holds the milliseconds of each call into recur, the first included.
const metrics = { compiled: null, started: null, firstResult: null, updates: [], analyze: [] };
window.recurMetrics = metrics;

// loadRecur instantiates recur.wasm and resolves once globalThis.recur is set.
async function loadRecur() {
  const go = new Go();
  const ready = new Promise((resolve) => { globalThis.recurReady = resolve; });
  let inst;
  try {
    inst = (await WebAssembly.instantiateStreaming(fetch("recur.wasm"), go.importObject)).instance;
  } catch (e) {
    // A host that does not serve application/wasm: compile from bytes.
    const bytes = await (await fetch("recur.wasm")).arrayBuffer();
    inst = (await WebAssembly.instantiate(bytes, go.importObject)).instance;
  }
  metrics.compiled = performance.now();
  go.run(inst);
  await ready;
  metrics.started = performance.now();
}

// fmtDur prints nanoseconds as a short duration.
function fmtDur(ns) {
  if (ns === null || ns === undefined) return "no bound";
  if (ns === 0) return "0s";
  const abs = Math.abs(ns);
  const units = [[3600e9, "h"], [60e9, "m"], [1e9, "s"], [1e6, "ms"], [1e3, "µs"]];
  for (const [size, name] of units) {
    if (abs >= size) return (+(ns / size).toPrecision(3)) + name;
  }
  return ns + "ns";
}

function text(id, s) { $(id).textContent = s; }

// niceCeil rounds ns up to 1, 2 or 5 times a power of ten, and to 1µs at
// least, for an axis whose ticks at quarters read as round durations
// (250ns, not 1ns rounded from 0.25ns); an axis of nothing but zeros spans
// 1ms, as schedcheck plot's does.
function niceCeil(ns) {
  if (!(ns > 0)) return 1e6;
  ns = Math.max(ns, 1e3);
  const p = 10 ** Math.floor(Math.log10(ns));
  for (const m of [1, 2, 5, 10]) if (m * p >= ns) return m * p;
  return 10 * p;
}

function el(tag, attrs, ...kids) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
}

const svgNS = "http://www.w3.org/2000/svg";
function svg(tag, attrs, ...kids) {
  const e = document.createElementNS(svgNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  for (const k of kids) e.append(k);
  return e;
}

// fragmentPolicy returns the policy of a #p= fragment, or null.
function fragmentPolicy() {
  const m = /^#p=(.*)$/s.exec(location.hash);
  if (!m) return null;
  try { return decodeURIComponent(m[1]); } catch { return null; }
}

// saveFragment puts the policy in the URL once typing pauses: browsers
// throttle a page that replaces its history entry on every keystroke.
let fragmentTimer = 0;
function saveFragment() {
  clearTimeout(fragmentTimer);
  fragmentTimer = setTimeout(() => {
    const want = "#p=" + encodeURIComponent(policy.value);
    if (location.hash !== want) history.replaceState(null, "", want);
  }, 250);
}

function update() {
  const t0 = performance.now();
  const a = JSON.parse(recur.analyze(policy.value, Number(seed.value) || 0));
  metrics.analyze.push(performance.now() - t0);
  render(a);
  saveFragment();
  const dt = performance.now() - t0;
  if (metrics.firstResult === null) metrics.firstResult = performance.now();
  else metrics.updates.push(dt);
}

// hadValid says whether a valid policy has been drawn, which stays on
// the page, faded, while the text is invalid.
let hadValid = false;

function render(a) {
  const bad = !!a.error;
  $("error").hidden = !bad;
  $("forms").hidden = bad;
  document.body.classList.toggle("invalid", bad);
  if (bad) {
    status.textContent = "Invalid policy: line " + a.error.line + ", column " + a.error.column + "." +
      (hadValid ? " Below, faded: the last valid policy." : "");
    if (!hadValid) text("explanation", "Nothing yet: the policy does not parse.");
    text("error-msg", a.error.line + ":" + a.error.column + ": " + a.error.message);
    text("caret", a.error.caret);
    policy.setAttribute("aria-invalid", "true");
    return; // the rest shows the last valid policy
  }
  policy.removeAttribute("aria-invalid");
  hadValid = true;
  status.textContent = "Valid policy.";
  text("canonical", a.canonical);
  text("infix", a.infix);
  const e = a.explanation;
  text("explanation", e.explanation);
  text("b-attempts", e.max_attempts === null ? "no limit" : String(e.max_attempts));
  text("b-wait", e.min_total_ns === null ? "292 years or more" :
    e.max_total_ns === e.min_total_ns ? fmtDur(e.min_total_ns) :
    fmtDur(e.min_total_ns) + " to " + fmtDur(e.max_total_ns));
  text("b-stops", e.stops ? "yes" : "no: only its context ends it");
  renderFindings(a.findings);
  renderPlot(a);
  renderGRPC(a.grpc);
  renderHedge(a.hedge);
}

// renderHedge shows the policy read as a hedging policy: what it does,
// the load it adds and the tail it cuts for a service of 20ms median and
// 200ms p99, and lint's hedge findings.
function renderHedge(h) {
  if (!h) return;
  text("hedge-explanation", h.explanation);
  const l = h.load;
  text("hedge-load", !l ? "Too large to simulate here." :
    `For ${l.calls} calls of a service answering in 20ms (median) and 200ms (p99): ` +
    `+${(100 * l.extra).toFixed(1)}% load; p99 ${fmtDur(l.plain.p99_ns)} → ${fmtDur(l.hedged.p99_ns)}, ` +
    `p95 ${fmtDur(l.plain.p95_ns)} → ${fmtDur(l.hedged.p95_ns)}.`);
  renderFindings(h.findings, "hedge-findings");
}

function renderFindings(fs, id = "findings") {
  const ul = $(id);
  ul.replaceChildren();
  if (fs.length === 0) {
    ul.append(el("li", { class: "clean" }, "No findings."));
    return;
  }
  for (const f of fs) {
    const li = el("li", { "data-rule": f.id },
      el("span", { class: "sev-" + f.severity }, f.severity + " " + f.id), ": " + f.message + " ");
    if (f.apply) {
      const b = el("button", { type: "button", class: "fix", "aria-label": "Apply fix for " + f.id + ": " + f.apply }, "Fix: " + f.apply);
      b.addEventListener("click", () => { policy.value = f.apply; update(); policy.focus(); });
      li.append(b);
    } else {
      li.append(el("span", { class: "note" }, "Fix: " + f.fix));
    }
    ul.append(li);
  }
}

// renderPlot draws the seeded run's delays as points, the band over many
// seeds (min–max, and the median), and the cumulative time on a second axis.
function renderPlot(a) {
  const box = $("plot");
  box.replaceChildren();
  $("tip").textContent = "";
  if (!a.run) {
    text("plot-note", "Not simulated: " + a.simulated + ".");
    return;
  }
  const delays = a.run.delays_ns.slice(0, a.band.length);
  const band = a.band || [];
  if (delays.length === 0) {
    text("plot-note", "No retry: the policy makes a single attempt.");
    return;
  }
  // T leaves room above the top tick labels for the axis titles.
  const W = 720, H = 300, L = 64, R = 64, T = 30, B = 36;
  const n = delays.length;
  let elapsed = 0;
  const cum = delays.map((d) => (elapsed += d));
  const maxDelay = niceCeil(Math.max(0, ...delays, ...band.map((b) => b.max_ns)));
  const maxCum = niceCeil(cum[cum.length - 1]);
  const x = (i) => L + (n === 1 ? (W - L - R) / 2 : (i * (W - L - R)) / (n - 1));
  const y = (d) => T + (H - T - B) * (1 - d / maxDelay);
  const yc = (d) => T + (H - T - B) * (1 - d / maxCum);
  const root = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": "plot-title" },
    svg("title", { id: "plot-title" }, `Delay before each of ${n + 1} attempts, seed ${a.run.seed}` + (a.jittered ? ", with the band over " + 100 + " seeds" : "")));
  for (let k = 0; k <= 4; k++) {
    const yy = T + ((H - T - B) * k) / 4;
    root.append(svg("line", { class: "grid", x1: L, x2: W - R, y1: yy, y2: yy }));
    root.append(svg("text", { x: L - 6, y: yy + 4, "text-anchor": "end" }, fmtDur(Math.round(maxDelay * (1 - k / 4)))));
    root.append(svg("text", { class: "cum", x: W - R + 6, y: yy + 4 }, fmtDur(Math.round(maxCum * (1 - k / 4)))));
  }
  root.append(svg("line", { class: "axis", x1: L, x2: L, y1: T, y2: H - B }));
  root.append(svg("line", { class: "axis", x1: W - R, x2: W - R, y1: T, y2: H - B }));
  root.append(svg("line", { class: "axis", x1: L, x2: W - R, y1: H - B, y2: H - B }));
  const step = Math.max(1, Math.ceil(n / 12));
  for (let i = 0; i < n; i += step) {
    root.append(svg("text", { x: x(i), y: H - B + 14, "text-anchor": "middle" }, String(i + 2)));
  }
  root.append(svg("text", { x: (L + W - R) / 2, y: H - 4, "text-anchor": "middle" }, "attempt"));
  root.append(svg("text", { class: "axis-title", x: 4, y: 12 }, "delay"));
  root.append(svg("text", { class: "cum axis-title", x: W - 4, y: 12, "text-anchor": "end" }, "elapsed"));
  if (a.jittered) {
    const upper = band.slice(0, n).map((b, i) => `${x(i)},${y(b.max_ns)}`);
    const lower = band.slice(0, n).map((b, i) => `${x(i)},${y(b.min_ns)}`).reverse();
    root.append(svg("polygon", { class: "band", points: upper.concat(lower).join(" ") },
      svg("title", {}, "min–max over 100 seeds")));
    root.append(svg("polyline", { class: "median", points: band.slice(0, n).map((b, i) => `${x(i)},${y(b.median_ns)}`).join(" ") },
      svg("title", {}, "median over 100 seeds")));
  }
  root.append(svg("polyline", { class: "cumulative", points: cum.map((c, i) => `${x(i)},${yc(c)}`).join(" ") },
    svg("title", {}, "elapsed time, right axis")));
  delays.forEach((d, i) => {
    const label = `attempt ${i + 2}: delay ${fmtDur(d)}, elapsed ${fmtDur(cum[i])}`;
    const c = svg("circle", {
      class: "point", cx: x(i), cy: y(d), r: 4, tabindex: 0, "aria-label": label,
      "data-attempt": i + 2, "data-delay-ns": d, "data-elapsed-ns": cum[i],
    }, svg("title", {}, label));
    const show = () => { $("tip").textContent = label; };
    c.addEventListener("mouseenter", show);
    c.addEventListener("focus", show);
    root.append(c);
  });
  box.append(root);
  let note = `Seed ${a.run.seed}: ${a.run.attempts} attempts, ${fmtDur(a.run.elapsed_ns)} elapsed when attempts take no time`;
  if (a.run.truncated) note += " (stopped at " + a.run.attempts + " attempts)";
  if (a.run.delays_ns.length > n) note += `; the plot shows the first ${n} retries`;
  note += a.jittered ? ". The band spans 100 seeds: shaded min–max, dashed median." : ". No jitter: every seed waits the same.";
  text("plot-note", note + " Hover or focus a point for its numbers.");
}

function renderGRPC(g) {
  if (!g) return;
  text("grpc-out", g.error ? g.error : JSON.stringify(g.retryPolicy, null, 2) + "\n(" + g.jitter + ", as gRFC A6 describes)");
}

// Storm, in a worker so that typing never waits for it.
let worker = null;
function stormDone(msg) {
  $("storm-run").disabled = false;
  $("storm-cancel").disabled = true;
  text("storm-msg", msg);
}

function runStorm() {
  const policies = [...document.querySelectorAll(".storm-policy")].map((i) => i.value.trim());
  const clients = Number($("storm-clients").value), runs = Number($("storm-runs").value);
  const count = policies.filter((p) => p !== "").length;
  if (count === 0) { text("storm-msg", "Type at least one policy."); return; }
  if (worker) worker.terminate();
  worker = new Worker("worker.js");
  $("storm-run").disabled = true;
  $("storm-cancel").disabled = false;
  $("storm-progress").value = 0;
  text("storm-msg", "Running…");
  const t0 = performance.now();
  worker.onmessage = (ev) => {
    const m = ev.data;
    if (m.progress) {
      const [i, run, total] = m.progress;
      const done = policies.slice(0, i).filter((p) => p !== "").length;
      $("storm-progress").value = (done + run / total) / count;
      return;
    }
    worker.terminate();
    worker = null;
    const res = JSON.parse(m.result);
    if (res.error) { stormDone("Storm: " + res.error); return; }
    $("storm-progress").value = 1;
    const body = $("storm-table").tBodies[0];
    body.replaceChildren(...res.rows.map((r) => el("tr", {},
      el("td", {}, r.policy), el("td", {}, r.calls.toFixed(1)),
      el("td", {}, fmtDur(r.time_ns)), el("td", {}, r.gave_up.toFixed(1)))));
    $("storm-table").hidden = false;
    stormDone(`Done: ${clients} clients, ${runs} runs, in ${Math.round(performance.now() - t0)} ms.`);
  };
  worker.onerror = (e) => { e.preventDefault(); stormDone("Storm failed: " + e.message); };
  worker.postMessage({ policies, clients, runs, seed: 1 });
}

async function main() {
  const p = fragmentPolicy();
  if (p !== null) policy.value = p;
  try {
    await loadRecur();
  } catch (e) {
    status.textContent = "Could not load recur.wasm: " + e;
    return;
  }
  policy.addEventListener("input", update);
  seed.addEventListener("input", update);
  $("examples").addEventListener("change", (e) => {
    if (!e.target.value) return;
    policy.value = e.target.value;
    update();
  });
  window.addEventListener("hashchange", () => {
    const q = fragmentPolicy();
    if (q !== null && q !== policy.value) { policy.value = q; update(); }
  });
  $("storm-run").addEventListener("click", runStorm);
  $("storm-cancel").addEventListener("click", () => {
    if (worker) { worker.terminate(); worker = null; }
    stormDone("Cancelled.");
  });
  $("storm-copy").addEventListener("click", () => { $("storm-4").value = policy.value.trim(); });
  $("grpc-import").addEventListener("click", () => {
    const r = JSON.parse(recur.fromGRPC($("grpc-in").value, $("grpc-pm20").checked));
    if (r.error) { text("grpc-msg", r.error); return; }
    text("grpc-msg", "Read as " + r.policy + (r.notes ? ". " + r.notes.join(". ") : "") + ".");
    policy.value = r.policy;
    update();
  });
  update();
}

main();
