// A worker_threads entry for tests/js/sweep.test.mjs: runs the sweep (or one bug
// reproduction) against the package loaded in this thread, as a renderer's worker would
// load it (the node build by require, or the web build by init() with the wasm bytes),
// and posts the result. Uncaught exceptions and unhandled rejections are recorded, not
// fatal, so that a reproduction can report them.
import { parentPort, workerData } from "node:worker_threads";
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { runSweep, runLarge, current } from "./sweep-cases.mjs";
import * as repro from "./sweep-repro.mjs";

const { root, build, task, name, coreOnly, large } = workerData;
const uncaught = [];
process.on("uncaughtException", (e) => uncaught.push(`uncaught exception during ${current.label || name}: ${e?.message ?? String(e)}`));
process.on("unhandledRejection", (e) => {
  let text;
  try {
    text = e?.message ?? String(e);
  } catch {
    text = Object.prototype.toString.call(e);
  }
  uncaught.push(`unhandled rejection during ${current.label || name}: ${text}`);
});

async function load() {
  if (build === "web") {
    const web = await import(resolve(root, "pkg/web/delegate_context.js"));
    await web.default({ module_or_path: readFileSync(resolve(root, "pkg/web/delegate_context_bg.wasm")) });
    return web;
  }
  return createRequire(import.meta.url)(resolve(root, "pkg/node/delegate_context.js"));
}

const dc = await load();
let result;
if (task === "sweep") {
  const sweep = await runSweep(dc, { coreOnly });
  const big = large ? await runLarge(dc, { light: false }) : { cases: 0, failures: [], times: [] };
  result = { sweep: { ...sweep, failures: sweep.failures.slice(0, 50) }, large: big };
} else {
  result = await repro[name](dc, () => parentPort.postMessage({ phase: "timing" }));
}
// let late microtasks and rejections surface before reporting
await new Promise((r) => setTimeout(r, 50));
parentPort.postMessage({ result, uncaught });
