// The storm worker: it loads recur.wasm on its own and runs
// recur.storm for the page, posting its progress as it goes.
"use strict";
importScripts("wasm_exec.js");

const loaded = (async () => {
  const go = new Go();
  const ready = new Promise((resolve) => { self.recurReady = resolve; });
  const bytes = await (await fetch("recur.wasm")).arrayBuffer();
  const { instance } = await WebAssembly.instantiate(bytes, go.importObject);
  go.run(instance);
  await ready;
})();

self.onmessage = async (ev) => {
  const { policies, clients, runs, seed } = ev.data;
  await loaded;
  const result = recur.storm(JSON.stringify(policies), clients, runs, seed,
    (i, run, total) => self.postMessage({ progress: [i, run, total] }));
  self.postMessage({ result });
};
