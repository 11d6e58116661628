// The package as every host meets it: `npm pack pkg/`, installed from the tarball into a
// fresh project outside the repository (npm install --offline: it has no dependencies),
// then used as users would: Node ESM and CommonJS (also without require(esm), as on
// Node 18 and older Electron), TypeScript (node16 and bundler resolution, strict,
// skipLibCheck false, a renderer's lib), a browser bundle made with esbuild, and a Web
// Worker running a boundary step off the main thread, both in headless Chromium.
// Results are checked against known numbers and against pkg/node computed here.
import test from "node:test";
import assert from "node:assert/strict";
import { execFileSync, spawnSync } from "node:child_process";
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { dc, root } from "./helpers.mjs";
import { serve, launch, newPage } from "./browser.mjs";

const tsc = resolve(root, "node_modules/typescript/bin/tsc");
const { build } = await import(resolve(root, "node_modules/esbuild/lib/main.js"));

/** The README's boundary-step example: a brief and 12 reads, over an 8k window's hardLimit. */
function readmeMessages() {
  const messages = [{ role: "user", content: "Brief: audit src/ for unsafe casts.", timestamp: 1 }];
  for (let i = 0; i < 12; i++) {
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `src/${i}.rs` } }], stopReason: "toolUse", timestamp: 2 });
    messages.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: "fn f() {}\n".repeat(150) }], isError: false, timestamp: 3 });
  }
  return messages;
}
const SMALL = { contextWindow: 8192, maxTokens: 1024 }; // hardLimit 4096
const SUMMARY = "## Goal\nAudit src/.\n## Progress\n- read the files";

/** Writes `files` (`{relative path: text}`) under `dir`. */
function write(dir, files) {
  for (const [name, text] of Object.entries(files)) {
    mkdirSync(join(dir, name, ".."), { recursive: true });
    writeFileSync(join(dir, name), text);
  }
}

/** Runs `cmd args` in `cwd`; returns {status, out} (stdout + stderr). */
function run(cmd, args, cwd) {
  const r = spawnSync(cmd, args, { cwd, encoding: "utf8", timeout: 120000 });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
}

test("the packed package, installed and used as hosts use it", async (t) => {
  const tmp = mkdtempSync(join(tmpdir(), "delegate-context-pkg-"));
  t.after(() => rmSync(tmp, { recursive: true, force: true }));

  // ---- pack and install ---------------------------------------------------------------
  const [packed] = JSON.parse(execFileSync("npm", ["pack", resolve(root, "pkg"), "--pack-destination", tmp, "--json"], { encoding: "utf8", stdio: ["ignore", "pipe", "pipe"] }));
  const files = packed.files.map((f) => f.path).sort();
  for (const f of ["package.json", "README.md", "LICENSE", "node/delegate_context.js", "node/delegate_context.d.ts", "node/delegate_context_bg.wasm",
    "web/package.json", "web/delegate_context.js", "web/delegate_context.d.ts", "web/delegate_context_bg.wasm",
    "pi/index.mjs", "pi/index.cjs", "pi/index.d.mts", "pi/index.d.cts", "examples/pi-host/host.ts", "examples/pi-host/world.ts", "ai/index.mjs", "ai/index.d.mts", "examples/ai-sdk/host.ts"]) {
    assert.ok(files.includes(f), `the tarball holds ${f}`);
  }
  assert.deepEqual(files.filter((f) => !/^(package\.json|README\.md|LICENSE|(node|web)\/.+|pi\/index\.(mjs|cjs|d\.mts|d\.cts)|examples\/pi-host\/(host\.ts|world\.ts|package\.json|tsconfig\.(bundler|node16)\.json)|ai\/index\.(mjs|d\.mts)|examples\/ai-sdk\/(host\.ts|world\.ts|package\.json|tsconfig\.json))$/.test(f)), [], "nothing else in the tarball");
  // the npm README's link to the example host resolves inside the package
  const readme = readFileSync(resolve(root, "pkg/README.md"), "utf8");
  for (const [, link] of readme.matchAll(/\]\((\.\/[^)#]+)\)/g)) assert.ok(files.includes(link.slice(2)), `the README links ${link}, which the package holds`);
  const app = join(tmp, "app");
  write(app, { "package.json": JSON.stringify({ name: "app", version: "1.0.0", private: true }) });
  const install = run("npm", ["install", join(tmp, packed.filename), "--offline", "--no-audit", "--no-fund"], app);
  assert.equal(install.status, 0, install.out);
  const pkg = join(app, "node_modules/delegate-context");
  const want = dc.contextBudget({ contextWindow: 64000, maxTokens: 16000 });
  assert.equal(want.hardLimit, 47616);

  await t.test("Node: ESM import, CommonJS require, the web build with its wasm bytes", () => {
    write(app, {
      "esm.mjs": `import { contextBudget, prepareDelegateTurn } from "delegate-context";
const messages = ${JSON.stringify(readmeMessages())};
const plan = prepareDelegateTurn({ messages, budget: contextBudget(${JSON.stringify(SMALL)}), modelId: "local/small" });
console.log(JSON.stringify({ budget: contextBudget({ contextWindow: 64000, maxTokens: 16000 }), action: plan.action, tokens: plan.tokens }));`,
      "cjs.cjs": `const { contextBudget, DelegationRegistry } = require("delegate-context");
const reg = new DelegationRegistry();
console.log(JSON.stringify({ budget: contextBudget({ contextWindow: 64000, maxTokens: 16000 }), chains: reg.chainCount }));
reg.free();`,
      "web.mjs": `import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import init, { contextBudget } from "delegate-context/web";
await init({ module_or_path: readFileSync(createRequire(import.meta.url).resolve("delegate-context/delegate_context_bg.wasm")) });
console.log(JSON.stringify({ budget: contextBudget({ contextWindow: 64000, maxTokens: 16000 }) }));`,
    });
    const plan = dc.prepareDelegateTurn({ messages: readmeMessages(), budget: dc.contextBudget(SMALL), modelId: "local/small" });
    assert.equal(plan.action, "summarize");
    // As Node 18 and Electron releases before Node 20.19 run it: no require() of ES modules.
    const old = process.allowedNodeEnvironmentFlags.has("--no-experimental-require-module")
      ? ["--no-experimental-require-module", "--no-experimental-detect-module"] : null;
    if (!old) console.log("# SKIP: this Node has no --no-experimental-require-module; the pre-require(esm) runs are skipped");
    for (const flags of [[], ...(old ? [old] : [])]) {
      const label = flags.length ? " (no require(esm))" : "";
      const esm = run("node", [...flags, "esm.mjs"], app);
      assert.equal(esm.status, 0, `ESM${label}: ${esm.out}`);
      assert.deepEqual(JSON.parse(esm.out), { budget: want, action: "summarize", tokens: plan.tokens }, `ESM${label}`);
      const cjs = run("node", [...flags, "cjs.cjs"], app);
      assert.equal(cjs.status, 0, `CommonJS${label}: ${cjs.out}`);
      assert.deepEqual(JSON.parse(cjs.out), { budget: want, chains: 0 }, `CommonJS${label}`);
      const web = run("node", [...flags, "web.mjs"], app);
      assert.equal(web.status, 0, `web build${label}: ${web.out}`);
      assert.deepEqual(JSON.parse(web.out), { budget: want }, `web build${label}`);
    }
  });

  await t.test("TypeScript: node16 and bundler resolution, strict, skipLibCheck false", () => {
    const usage = `import { contextBudget, estimateContextTokens, prepareDelegateTurn, completeDelegateTurn, runDelegateTurn,
  DelegationRegistry, seedDelegateMessages, buildParentContext, classifyProviderError,
  type AgentMessage, type ContextBudget, type DelegateTurnOutcome, type SummaryAnswer, type SummaryRequest } from "delegate-context";

const budget: ContextBudget = contextBudget({ contextWindow: 64000, maxTokens: 16000 });
const messages: AgentMessage[] = [{ role: "user", content: "Brief", timestamp: 0 }];
const tokens: number = estimateContextTokens(messages).tokens;
const plan = prepareDelegateTurn({ messages, budget, modelId: "local/m" });
const answer: SummaryAnswer = {};
for (const r of plan.requests) answer[r.kind] = "summary";
const next: DelegateTurnOutcome = completeDelegateTurn({ messages, budget, modelId: "local/m", answer });
export async function step(signal?: AbortSignal): Promise<number> {
  const out = await runDelegateTurn({ messages, budget, modelId: "local/m", signal, summarize: async (r: SummaryRequest) => \`\${r.maxTokens}\` });
  return out.tokensAfter;
}
const reg = new DelegationRegistry();
const prompt: string = reg.resumablePrompt();
reg.free();
const seed = seedDelegateMessages({ brief: "b", rows: [], binding: { provider: "p", model: "m" }, hardLimit: budget.hardLimit });
export const summary = [tokens, next.outcome, prompt, seed.tokens, buildParentContext([]).messages.length, classifyProviderError({ status: 413 }).code];
`;
    write(app, {
      "ts/usage.ts": usage,
      // the web build's init under node16 (an ES module file: top-level await)
      "ts/web.mts": `import init, { contextBudget } from "delegate-context/web";
await init();
export const hardLimit: number = contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit;
`,
      // bundler resolution gets the web build's types from "delegate-context" itself
      "ts/renderer.ts": `import init, { contextBudget } from "delegate-context";
await init();
export const hardLimit: number = contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit;
`,
      // where the lib has disposables, \`using\` frees the registry
      "ts/using.ts": `import { DelegationRegistry } from "delegate-context";
export function chains(): number {
  using reg = new DelegationRegistry();
  return reg.chainCount;
}
`,
      // wrong calls must not type-check (so the checks above mean something)
      "ts/wrong.ts": `import { contextBudget, prepareDelegateTurn } from "delegate-context";
contextBudget({ contextWindow: "64000" });
prepareDelegateTurn({ messages: [] });
`,
    });
    const config = (name, options, files) =>
      write(app, { [`ts/${name}.json`]: JSON.stringify({ compilerOptions: { target: "es2022", strict: true, skipLibCheck: false, noEmit: true, types: [], ...options }, files }) });
    const node16 = { module: "node16", moduleResolution: "node16" };
    const bundler = { module: "esnext", moduleResolution: "bundler" };
    config("node16", { ...node16, lib: ["es2022", "dom"] }, ["usage.ts", "web.mts"]);
    config("bundler", { ...bundler, lib: ["es2022", "dom"] }, ["usage.ts", "renderer.ts"]);
    config("worker", { ...bundler, lib: ["es2022", "webworker"] }, ["usage.ts", "renderer.ts"]);
    config("node-types", { ...node16, lib: ["es2022"], types: ["node"], typeRoots: [resolve(root, "node_modules/@types")] }, ["usage.ts"]);
    config("esnext", { ...bundler, lib: ["esnext", "dom"] }, ["usage.ts", "renderer.ts", "using.ts"]);
    config("using-es2022", { ...bundler, lib: ["es2022", "dom"] }, ["using.ts"]);
    config("wrong", { ...bundler, lib: ["es2022", "dom"] }, ["wrong.ts"]);
    for (const name of ["node16", "bundler", "worker", "node-types", "esnext", "using-es2022"]) {
      const r = run("node", [tsc, "-p", `ts/${name}.json`], app);
      assert.equal(r.status, 0, `tsc ${name}:\n${r.out}`);
    }
    const wrong = run("node", [tsc, "-p", "ts/wrong.json"], app);
    assert.notEqual(wrong.status, 0);
    assert.match(wrong.out, /wrong\.ts\(2,\d+\): error TS2322/);
    assert.match(wrong.out, /wrong\.ts\(3,\d+\): error TS2345/);
    assert.doesNotMatch(wrong.out, /node_modules/, "the package's own declarations raise nothing");
  });

  // ---- browsers ------------------------------------------------------------------------
  const site = join(app, "site");
  const messages = readmeMessages();
  const browserEntry = `import init, { contextBudget, prepareDelegateTurn, version } from "delegate-context";
await init(); // fetches delegate_context_bg.wasm next to this bundle
const budget = contextBudget(${JSON.stringify(SMALL)});
const plan = prepareDelegateTurn({ messages: ${JSON.stringify(messages)}, budget, modelId: "local/small" });
window.__result = { version: version(), known: contextBudget({ contextWindow: 64000, maxTokens: 16000 }), budget,
  plan: { action: plan.action, tokens: plan.tokens, summarizedMessages: plan.summarizedMessages, requests: plan.requests.map((r) => [r.kind, r.maxTokens, r.estimatedInputTokens]) } };
`;
  // The worker imports the wasm through the package's exports map (esbuild's file loader
  // copies it and gives its URL), and answers the summary request itself.
  const workerEntry = `import init, { contextBudget, runDelegateTurn } from "delegate-context";
import wasmUrl from "delegate-context/delegate_context_bg.wasm";
const ready = init({ module_or_path: new URL(wasmUrl, import.meta.url) });
self.onmessage = async ({ data }) => {
  try {
    await ready;
    const asked = [];
    const out = await runDelegateTurn({ messages: data.messages, budget: contextBudget(data.model), modelId: data.modelId,
      summarize: async (request) => { asked.push([request.kind, request.maxTokens]); return data.summary; } });
    self.postMessage({ ok: true, inWorker: typeof WorkerGlobalScope === "function" && self instanceof WorkerGlobalScope, asked, out });
  } catch (e) {
    self.postMessage({ ok: false, code: e.code, message: String(e.message) });
  }
};
`;
  // A classic (non-module) worker, bundled as an IIFE: no import.meta.url there, so the
  // wasm's URL is passed to init() (relative to the worker script).
  const classicEntry = `import init, { contextBudget } from "delegate-context";
init({ module_or_path: "./delegate_context_bg.wasm" }).then(
  () => self.postMessage({ ok: true, budget: contextBudget({ contextWindow: 64000, maxTokens: 16000 }) }),
  (e) => self.postMessage({ ok: false, message: String(e) }));
`;
  write(app, {
    "src/classic/classic-worker.js": classicEntry,
    "site/classic.html": `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script>
const worker = new Worker("./classic-worker.js");
worker.onmessage = (e) => { window.__classic = e.data; };
worker.onerror = (e) => { window.__classic = { ok: false, message: e.message }; };
</script>`,
    "src/app.js": browserEntry,
    "src/worker.js": workerEntry,
    "site/index.html": `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module" src="./app.js"></script>`,
    "site/worker.html": `<!doctype html><meta charset="utf-8"><link rel="icon" href="data:,"><script type="module">
const worker = new Worker(new URL("./worker.js", import.meta.url), { type: "module" });
let frames = 0;
const tick = () => { frames++; requestAnimationFrame(tick); };
requestAnimationFrame(tick);
worker.onmessage = (e) => { window.__worker = { ...e.data, frames, mainLoadedWasm: performance.getEntriesByType("resource").some((r) => r.name.endsWith(".wasm")) }; };
worker.onerror = (e) => { window.__worker = { ok: false, message: e.message }; };
worker.postMessage({ messages: ${JSON.stringify(messages)}, model: ${JSON.stringify(SMALL)}, modelId: "local/small", summary: ${JSON.stringify(SUMMARY)} });
</script>`,
  });
  const bundle = await build({
    absWorkingDir: app, entryPoints: ["src/app.js", "src/worker.js"], bundle: true, format: "esm", platform: "browser",
    outdir: "site", loader: { ".wasm": "file" }, metafile: true, logLevel: "silent",
  });
  await build({ absWorkingDir: app, entryPoints: ["src/classic/classic-worker.js"], bundle: true, format: "iife", platform: "browser", outdir: "site", logLevel: "silent" });
  const inputs = Object.keys(bundle.metafile.inputs);
  assert.ok(inputs.includes("node_modules/delegate-context/web/delegate_context.js"), "the browser condition resolves to the web build");
  assert.ok(!inputs.some((f) => f.includes("delegate-context/node/")), "no Node build in a browser bundle");
  copyFileSync(join(pkg, "web/delegate_context_bg.wasm"), join(site, "delegate_context_bg.wasm")); // for init() without arguments
  const base = await serve(t, { dir: site });
  const browser = await launch(t);

  await t.test("a browser bundle (esbuild) computes a budget and a boundary plan", async (t) => {
    const errors = [];
    const page = await newPage(browser, errors);
    t.after(() => assert.deepEqual(errors, []));
    await page.goto(`${base}/index.html`);
    await page.waitForFunction(() => window.__result, null, { timeout: 15000 });
    const got = await page.evaluate(() => window.__result);
    const budget = dc.contextBudget(SMALL);
    const plan = dc.prepareDelegateTurn({ messages, budget, modelId: "local/small" });
    assert.equal(got.version, dc.version());
    assert.equal(got.known.hardLimit, 47616);
    assert.deepEqual(got.known, want);
    assert.deepEqual(got.budget, budget);
    assert.equal(got.budget.hardLimit, 4096);
    assert.deepEqual(got.plan, {
      action: "summarize", tokens: plan.tokens, summarizedMessages: plan.summarizedMessages,
      requests: plan.requests.map((r) => [r.kind, r.maxTokens, r.estimatedInputTokens]),
    });
  });

  await t.test("a Web Worker runs the boundary step and posts the outcome back", async (t) => {
    const errors = [];
    const page = await newPage(browser, errors);
    t.after(() => assert.deepEqual(errors, []));
    await page.goto(`${base}/worker.html`);
    await page.waitForFunction(() => window.__worker, null, { timeout: 15000 });
    const got = await page.evaluate(() => window.__worker);
    assert.equal(got.ok, true, got.message);
    assert.equal(got.inWorker, true, "ran in a worker");
    assert.equal(got.mainLoadedWasm, false, "the main thread never loaded the module");
    const budget = dc.contextBudget(SMALL);
    const out = await dc.runDelegateTurn({ messages, budget, modelId: "local/small", summarize: async () => SUMMARY });
    assert.equal(out.outcome, "compacted");
    assert.deepEqual(got.asked, dc.prepareDelegateTurn({ messages, budget, modelId: "local/small" }).requests.map((r) => [r.kind, r.maxTokens]));
    for (const k of ["outcome", "tokensBefore", "tokensAfter", "summarizedMessages", "droppedMessages", "contextCompactions", "contextDegraded", "isSplitTurn", "turn"]) {
      assert.deepEqual(got.out[k], out[k], k);
    }
    assert.deepEqual(got.out.messages.map((m) => m.role), out.messages.map((m) => m.role));
    assert.equal(got.out.messages[0].content, messages[0].content, "the brief, verbatim");
    assert.match(got.out.messages[1].summary, /## Goal\nAudit src\//);
    assert.ok(got.out.tokensAfter < budget.hardLimit);
  });

  await t.test("a classic Web Worker (IIFE bundle) initialises with the wasm's URL", async (t) => {
    const errors = [];
    const page = await newPage(browser, errors);
    t.after(() => assert.deepEqual(errors, []));
    await page.goto(`${base}/classic.html`);
    await page.waitForFunction(() => window.__classic, null, { timeout: 15000 });
    const got = await page.evaluate(() => window.__classic);
    assert.equal(got.ok, true, got.message);
    assert.deepEqual(got.budget, want);
  });
});
