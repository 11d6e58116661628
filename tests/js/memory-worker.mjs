// Run by tests/js/memory.test.mjs as `node --expose-gc tests/js/memory-worker.mjs <case>`
// (one case per process: a fresh wasm instance, so that no case hides in memory that
// another one left free). Loads the built package (pkg/node) as a user does, keeps a hand
// on its WebAssembly instance, runs the case and prints one JSON line with the figures.
//
// What is measured at each point (after full collections, with time between them for
// wasm-bindgen's FinalizationRegistry callbacks to run):
// - wasm: the byte length of the instance's WebAssembly.Memory (it never shrinks);
// - live: the bytes of that memory the Rust allocator does NOT have free in blocks of
//   1 KiB or more (found by allocating 1 KiB blocks with __wbindgen_malloc until the memory
//   would grow, then freeing them): live data + static data + stack + free fragments
//   smaller than 1 KiB. It falls when memory is released, so a leak shows even where
//   the memory's high-water mark would hide it. The probe grows the memory by one 64 KiB
//   step each time (that space is free afterwards): wasmNet is the byte length less
//   what the probes added, i.e. what the library's own work made the memory grow to.
// - externrefs: the length of wasm-bindgen's externref table (host values held by wasm);
// - heap: process.memoryUsage().heapUsed;
// - handles: per wasm-bindgen FinalizationRegistry (DelegateContext, DelegationRegistry,
//   HookRun: what a hook holds, TurnStep: one turn's run, closures), the objects registered, unregistered by free() and released
//   by the registry's callback; alive = registered - unregistered - released.
//
// MEMORY_WORKER_BREAK=<name>[,<name>...] breaks the cases on purpose, to check that each
// assertion of memory.test.mjs can fail: skip-free (no free() call), keep-registries,
// keep-results (a registry's rows and start result), keep-hooks, keep-messages,
// keep-outcomes (references kept in an array), no-finalizer (the FinalizationRegistry
// callbacks do not free), no-compaction (the boundary steps only push: the context grows),
// push-twice (the 100,000-message delegate holds each message twice).
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { resolve, dirname } from "node:path";
import { fileURLToPath } from "node:url";

if (typeof globalThis.gc !== "function") throw new Error("run me with node --expose-gc");

const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const gluePath = resolve(root, "pkg/node/delegate_context.js");
const which = process.argv[2];
const BREAKS = new Set((process.env.MEMORY_WORKER_BREAK ?? "").split(",").filter(Boolean));
const broken = (name) => BREAKS.has(name);
const kept = []; // filled only by the BREAKS that keep references

// ---------------------------------------------------------------- instrumentation

// wasm-bindgen's FinalizationRegistries, named by what their callback frees
const handles = {};
const NativeFR = globalThis.FinalizationRegistry;
globalThis.FinalizationRegistry = class CountingFinalizationRegistry extends NativeFR {
  constructor(callback) {
    const src = String(callback);
    const name = /delegatecontext_free/.test(src) ? "DelegateContext" : /delegationregistry_free/.test(src) ? "DelegationRegistry" : /hookrun_free/.test(src) ? "HookRun" : /turnstep_free/.test(src) ? "TurnStep" : /destroy_closure/.test(src) ? "closure" : "other";
    const count = (handles[name] ??= { registered: 0, unregistered: 0, released: 0 });
    super((held) => {
      count.released++;
      if (!broken("no-finalizer")) callback(held);
    });
    this.count = count;
  }
  register(target, held, token) {
    this.count.registered++;
    return super.register(target, held, token);
  }
  unregister(token) {
    const removed = super.unregister(token);
    if (removed) this.count.unregistered++;
    return removed;
  }
};

// the instance the glue creates (the package does not export its memory)
let instance;
const NativeInstance = WebAssembly.Instance;
WebAssembly.Instance = new Proxy(NativeInstance, {
  construct(target, args) {
    instance = Reflect.construct(target, args);
    return instance;
  },
});
const require = createRequire(import.meta.url);
const dc = require(gluePath);
WebAssembly.Instance = NativeInstance;
globalThis.FinalizationRegistry = NativeFR;
if (!instance) throw new Error("the glue did not create its WebAssembly.Instance synchronously: update memory-worker.mjs");
const { memory, __wbindgen_externrefs: externrefs, __wbindgen_malloc: malloc, __wbindgen_free: free } = instance.exports;
const glue = readFileSync(gluePath, "utf8");

// ---------------------------------------------------------------- measuring

const tick = () => new Promise((r) => setImmediate(r));
const released = () => Object.values(handles).reduce((n, c) => n + c.released, 0);
/** Full collections until the FinalizationRegistry callbacks stop releasing: three rounds
 *  in a row that release nothing (at most 60 rounds). One quiet round was not enough on a
 *  loaded machine, where callbacks can lag a round behind the collection. */
async function settleHeap() {
  for (let i = 0, last = -1, quiet = 0; i < 60 && quiet < 3; i++) {
    globalThis.gc();
    await tick(); // FinalizationRegistry callbacks run between tasks
    await new Promise((r) => setTimeout(r, 5));
    const now = released();
    quiet = now === last ? quiet + 1 : 0;
    last = now;
  }
}

const PROBE_BLOCK = Number(process.env.MEMORY_PROBE_BLOCK ?? 1024);
let probeGrowth = 0; // bytes the probe itself added to the memory (free afterwards)
/** Bytes of the wasm memory not free in blocks of >= 1 KiB (see the header). */
function liveBytes() {
  const before = memory.buffer.byteLength;
  const ptrs = [];
  let found = 0;
  for (;;) {
    const p = malloc(PROBE_BLOCK, 8);
    ptrs.push(p);
    if (memory.buffer.byteLength !== before) break; // this block needed new memory
    found += PROBE_BLOCK;
  }
  for (const p of ptrs) free(p, PROBE_BLOCK, 8);
  probeGrowth += memory.buffer.byteLength - before;
  return before - found;
}

function aliveHandles() {
  const out = {};
  for (const [name, c] of Object.entries(handles)) out[name] = { ...c, alive: c.registered - c.unregistered - c.released };
  return out;
}

/** wasm: the memory's byte length; wasmNet: the same less what earlier probes added. */
async function measure(label) {
  await settleHeap();
  const heap = process.memoryUsage().heapUsed;
  const wasm = memory.buffer.byteLength; // read before this probe grows it
  const wasmNet = wasm - probeGrowth;
  const live = liveBytes();
  return { label, wasm, wasmNet, live, heap, externrefs: externrefs.length, handles: aliveHandles() };
}

/** While objects are dropped, collect every `n` of them, as a renderer's GC would (V8
 *  does not see wasm memory, so nothing else would make it collect these small wrappers). */
async function collectEvery(i, n = 1000) {
  if (i % n === n - 1) {
    globalThis.gc();
    await tick();
  }
}

// ---------------------------------------------------------------- workloads

const budget8k = dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 }); // hardLimit 4096 tokens
const config = { budget: budget8k, modelId: "local/small", options: { now: 1 } };
const summarize = async (request) => `## Goal\nAudit src/.\n## Progress\n- ${request.kind}`;
const brief = () => ({ role: "user", content: "Brief: audit src/ for unsafe casts and report every call site.", timestamp: 1 });

/** A tool-using turn like a real session's: an assistant tool call (~350 B of JSON) and
 *  its result (`lines` lines of code, ~28 B each). `i` makes every message distinct; the
 *  files read are at most 40 (pi's compaction carries the list of files read from
 *  summary to summary: a delegate that reads ever more distinct files grows it by
 *  design). No usage field: the sizes are pi's estimates. */
function toolCall(i) {
  return {
    role: "assistant",
    content: [
      { type: "text", text: `Step ${i}: reading the next file to follow the call graph.` },
      { type: "toolCall", id: `call_${i}`, name: i % 3 ? "read" : "grep", arguments: i % 3 ? { path: `src/module_${i % 5}/file_${i % 40}.rs`, offset: i, limit: 200 } : { pattern: `fn handler_${i}`, path: "src/" } },
    ],
    api: "anthropic-messages", provider: "anthropic", model: "claude-x",
    stopReason: "toolUse", timestamp: 1000 + i,
  };
}
function toolResult(i, lines) {
  return {
    role: "toolResult", toolCallId: `call_${i}`, toolName: i % 3 ? "read" : "grep",
    content: [{ type: "text", text: `// file_${i % 251}.rs (${i})\n` + "let value = compute(input);\n".repeat(lines) }],
    isError: false, timestamp: 1000 + i,
  };
}
/** `n` messages of a long delegate: tool calls, and results of 10-129 lines (0.1-3.9 KB
 *  of JSON, median 0.35 KB, mean 1.26 KB). */
function sessionMessages(n) {
  const m = [brief()];
  for (let i = 1; m.length < n; i++) {
    m.push(toolCall(i));
    if (m.length < n) m.push(toolResult(i, 10 + ((i * 7919) % 120)));
  }
  return m;
}

function useRegistry(i) {
  const reg = new dc.DelegationRegistry();
  const rows = [];
  const run = reg.start({ toolCallId: `t${i}`, agent: "explorer", task: "Map the parser", description: "parser map" }, rows);
  rows.push({ id: `a${i}`, role: "assistant", content: "It is a Pratt parser.", parentToolCallId: `t${i}`, agentName: "explorer" });
  reg.settle({ delegationId: run.delegationId, status: "completed", rows });
  if (broken("keep-results")) kept.push(run, rows);
  return reg;
}

const smallContext = [brief(), toolCall(1), toolResult(1, 20)];
const bigContext = [brief()];
for (let i = 1; i <= 8; i++) bigContext.push(toolCall(i), toolResult(i, 100)); // ~6,000 tokens: over hardLimit

async function registries(n, { dropped }) {
  for (let i = 0; i < n; i++) {
    const reg = useRegistry(i);
    if (broken("keep-registries")) kept.push(reg);
    if (!dropped && !broken("skip-free")) reg.free();
    if (dropped) await collectEvery(i);
  }
}

async function hooks(n) {
  let compacted = 0;
  for (let i = 0; i < n; i++) {
    const hook = dc.createPrepareNextTurn({ ...config, summarize, onOutcome: () => {} });
    // every other hook compacts (a summary request, an async summarize)
    const next = await hook({ context: { systemPrompt: "You are a delegate.", messages: i % 2 ? bigContext : smallContext, tools: [] } });
    if (next) compacted++;
    if (broken("keep-hooks")) kept.push(hook);
    await collectEvery(i);
  }
  return compacted;
}

/** One delegate's loop: push the turn's new message, ask the boundary, compact with the
 *  test's summary (or degrade) when told to. */
function boundarySteps(ctx, from, to, tally) {
  for (let i = from; i < to; i++) {
    const msg = i % 2 ? toolResult(i, 10 + ((i * 7919) % 60)) : toolCall(i);
    if (broken("keep-messages")) kept.push(msg);
    ctx.push([msg]);
    if (broken("no-compaction")) continue;
    const plan = ctx.prepareTurn(config);
    if (plan.action === "unchanged") continue;
    // every 10th rewrite: the summary failed, the turn degrades (the other path)
    const rewrites = (tally.compacted ?? 0) + (tally.degraded ?? 0);
    const answer = plan.action !== "summarize" ? undefined
      : rewrites % 10 === 9 ? { error: "summary request failed" }
      : { history: "## Goal\nAudit src/.\n## Progress\n- read files", turnPrefix: "## Prefix\nreading" };
    const out = ctx.completeTurn({ ...config, ...(answer ? { answer } : {}) });
    tally[out.outcome] = (tally[out.outcome] ?? 0) + 1;
    if (broken("keep-outcomes")) kept.push(out);
  }
}

// ---------------------------------------------------------------- cases

const CASES = {
  /** (1) 10,000 registries created, used (start + settle) and freed. */
  async "registry-freed"() {
    await registries(2000, { dropped: false }); // warm-up
    const points = [await measure("after 2,000 (warm-up)")];
    await registries(10_000, { dropped: false });
    points.push(await measure("after 10,000 more"));
    return { points };
  },
  /** (2) 10,000 registries dropped without free(), twice: the second batch must not grow. */
  async "registry-dropped"() {
    await registries(2000, { dropped: true }); // warm-up
    const points = [await measure("after 2,000 (warm-up)")];
    await registries(10_000, { dropped: true });
    points.push(await measure("after batch 1 of 10,000"));
    await registries(10_000, { dropped: true });
    points.push(await measure("after batch 2 of 10,000"));
    return { points, finalizer: /new FinalizationRegistry\(ptr => wasm\.__wbg_delegationregistry_free\(ptr, 1\)\)/.test(glue) };
  },
  /** (3) 10,000 hooks created, called once (every other one compacts) and dropped. */
  async hooks() {
    await hooks(2000); // warm-up
    const points = [await measure("after 2,000 (warm-up)")];
    const compacted = await hooks(10_000);
    points.push(await measure("after 10,000 more"));
    return { points, compacted };
  },
  /** (4) 100,000 boundary steps on one DelegateContext, 8k window. */
  async "boundary-steps"() {
    const ctx = new dc.DelegateContext([brief()]);
    const tally = {};
    const t0 = performance.now();
    boundarySteps(ctx, 0, 10_000, tally); // warm-up
    const points = [await measure("after 10,000 steps (warm-up)")];
    for (const [from, to] of [[10_000, 40_000], [40_000, 70_000], [70_000, 100_000]]) {
      boundarySteps(ctx, from, to, tally);
      points.push(await measure(`after ${to.toLocaleString("en-US")} steps`));
    }
    const stepsMs = performance.now() - t0;
    const length = ctx.length;
    ctx.free();
    return { points, tally, length, stepsMs: Math.round(stepsMs) };
  },
  /** (5) one delegate of 100,000 messages, freed; a second of the same size, then one
   *  boundary decision over it (its transient peak), freed. */
  async "hundred-k"() {
    const messages = sessionMessages(100_000);
    const sizes = messages.map((m) => Buffer.byteLength(JSON.stringify(m)));
    const jsonBytes = sizes.reduce((a, b) => a + b, 0);
    sizes.sort((a, b) => a - b);
    const fill = () => {
      const ctx = new dc.DelegateContext([messages[0]]);
      for (let i = 1; i < messages.length; i += 2) {
        ctx.push(messages.slice(i, i + 2)); // a turn's two, as a loop does
        if (broken("push-twice")) ctx.push(messages.slice(i, i + 2));
      }
      return ctx;
    };
    const points = [await measure("before")];
    const t0 = performance.now();
    let ctx = fill();
    const pushMs = performance.now() - t0;
    points.push(await measure("holding 100,000 messages"));
    if (!broken("skip-free")) ctx.free();
    points.push(await measure("after free()"));
    ctx = fill();
    points.push(await measure("holding a second delegate of 100,000 messages"));
    const t1 = performance.now();
    const plan = ctx.prepareTurn({ ...config, budget: dc.contextBudget({ contextWindow: 200000, maxTokens: 8192 }) });
    const prepareMs = performance.now() - t1;
    points.push(await measure("after one prepareTurn over them (200k window)"));
    if (!broken("skip-free")) ctx.free();
    points.push(await measure("after the second free()"));
    return {
      points, jsonBytes, messages: messages.length, pushMs: Math.round(pushMs), prepareMs: Math.round(prepareMs),
      action: plan.action, requestChars: plan.requests.reduce((n, r) => n + JSON.stringify(r).length, 0),
      sizes: { min: sizes[0], median: sizes[sizes.length >> 1], max: sizes.at(-1) },
    };
  },
};

const run = CASES[which];
if (!run) throw new Error(`unknown case ${which}: ${Object.keys(CASES).join(", ")}`);
const t0 = performance.now();
const out = await run();
out.ms = Math.round(performance.now() - t0);
out.kept = kept.length;
console.log(JSON.stringify(out));
