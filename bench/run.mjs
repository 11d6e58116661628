// Benchmarks of delegate-context side by side with the JavaScript it replaces
// (@earendil-works/pi-agent-core 0.85.1) and with the JSON work a host does anyway, all in
// one run, reported as medians and ratios. Run after a release build:
//
//   bash scripts/build-pkg.sh && node --expose-gc --max-old-space-size=8000 bench/run.mjs [--quick] [--pkg DIR]
//
// (--expose-gc: the hook rows start each measured call after a minor collection;
// --max-old-space-size: the 100,000-message rows hold a few GB of JavaScript objects)
//
// --pkg DIR measures another build of the nodejs target (bench/profiles.sh builds the
// release profiles it compares that way).
//
// Prints one table and writes it to target/bench/results.json. Uses the real sessions of
// ../shared/fixtures/pi-sessions (skipped with a notice when absent). Not a test: nothing
// here asserts a time.
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { gzipSync } from "node:zlib";
import { basename, resolve } from "node:path";
import { createRequire } from "node:module";
import * as pi from "@earendil-works/pi-agent-core";
import { root, loadSessionMessages, SESSION_FILES } from "../tests/js/helpers.mjs";

const QUICK = process.argv.includes("--quick");
const pkgAt = process.argv.indexOf("--pkg");
const PKG = pkgAt > 0 ? resolve(process.argv[pkgAt + 1]) : null;
const dc = createRequire(import.meta.url)(PKG ? resolve(PKG, "delegate_context.js") : resolve(root, "pkg/node/delegate_context.js"));
const SIZES = QUICK ? [1_000, 10_000] : [1_000, 10_000, 100_000];

/** Median time of `fn` in µs: samples of at least `minMs` each, `samples` of them. */
function median(fn, { samples = 9, minMs = 20 } = {}) {
  for (let i = 0; i < 2; i++) fn(); // warm up
  const times = [];
  for (let s = 0; s < samples; s++) {
    let n = 0;
    const t0 = performance.now();
    let t = t0;
    while (t - t0 < minMs || n === 0) {
      fn();
      n++;
      t = performance.now();
    }
    times.push(((t - t0) * 1000) / n);
  }
  times.sort((a, b) => a - b);
  return times[times.length >> 1];
}

const rows = [];
function row(group, what, ours, theirs, against, target) {
  const ratio = ours / theirs;
  rows.push({ group, what, "ours µs": +ours.toFixed(2), [`baseline µs`]: +theirs.toFixed(2), baseline: against, ratio: +ratio.toFixed(2), target: target ?? "" });
}

/** A realistic delegate of `n` messages: a brief, then a real session's turns repeated
 * (tool call ids made unique per repetition, so every call keeps its own result). */
function generated(source, n) {
  const body = source.slice(1);
  const out = [{ role: "user", content: "Task brief: continue the work of this session and report.", timestamp: 0 }];
  for (let rep = 0; out.length < n; rep++) {
    for (const m of body) {
      if (out.length >= n) break;
      if (rep === 0) {
        out.push(m);
        continue;
      }
      if (m.role === "assistant") {
        out.push({ ...m, content: m.content.map((b) => (b.type === "toolCall" ? { ...b, id: `${b.id}_${rep}` } : b)) });
      } else if (m.role === "toolResult") {
        out.push({ ...m, toolCallId: `${m.toolCallId}_${rep}` });
      } else out.push(m);
    }
  }
  // never end on an assistant whose results were cut off
  while (out.at(-1).role === "assistant" && out.at(-1).content.some((b) => b.type === "toolCall")) out.pop();
  return out;
}

function handleOf(messages) {
  const ctx = new dc.DelegateContext();
  for (let i = 0; i < messages.length; i += 5000) ctx.push(messages.slice(i, i + 5000));
  return ctx;
}

/** The turns (assistant + its results) of a session, to push one at a time. */
function turnsOf(messages) {
  const turns = [];
  for (let i = 1; i < messages.length; i++) {
    if (messages[i].role !== "assistant") continue;
    let j = i + 1;
    while (j < messages.length && messages[j].role === "toolResult") j++;
    turns.push(messages.slice(i, j));
  }
  return turns;
}

const large = loadSessionMessages(SESSION_FILES[0]);
if (!large) {
  console.log("# SKIP: the real sessions are absent; nothing to measure");
  process.exit(0);
}
const sessions = SESSION_FILES.map((f) => [f, loadSessionMessages(f)]).filter(([, m]) => m);
const bigBudget = dc.contextBudget({ contextWindow: 100_000_000, maxTokens: 32_000 });
const config = { budget: bigBudget, modelId: "bench/model", options: { now: 0 } };
const settings = { reserveTokens: 16384, keepRecentTokens: 20000 };
const piSettings = { enabled: true, ...settings };
const entriesOf = (messages) => messages.map((message, i) => ({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp: new Date(0).toISOString(), message }));
/** The median of samples (sorted in place). */
const med = (xs) => xs.sort((a, b) => a - b)[xs.length >> 1];
const tools = [{ name: "read", description: "Read a file.", parameters: { type: "object", properties: { path: { type: "string" } }, required: ["path"] } }];

// ---------------------------------------------------------------- warm-up
// V8 compiles wasm with its baseline compiler first and optimizes hot functions later;
// about a second of every measured path first, so no row pays for the other's tier-up.
{
  const t0 = performance.now();
  const messages = [{ role: "user", content: "Task brief.", timestamp: 0 }, ...large];
  const turns = turnsOf(large);
  for (let k = 0; performance.now() - t0 < 1000; k++) {
    const ctx = handleOf(messages);
    for (const turn of turns.slice(0, 50)) {
      ctx.push(turn);
      ctx.prepareTurn(config);
    }
    ctx.prepareCompaction(settings);
    ctx.serializeConversation(1, 200);
    dc.findCutPoint(messages, 0, messages.length, 20000);
    dc.estimateContextTokens(messages);
    ctx.free();
  }
}

// ---------------------------------------------------------------- per turn, through the handle
const perTurn = {};
const contexts = [
  ...SIZES.map((n) => [`generated ${n.toLocaleString("en-US")} msgs`, generated(large, n)]),
  ...sessions.map(([f, m]) => [`${f} (${m.length} msgs)`, [{ role: "user", content: "Task brief.", timestamp: 0 }, ...m]]),
];
for (const [label, messages] of contexts) {
  const ctx = handleOf(messages);
  const turns = turnsOf(large);
  let k = 0;
  const ours = median(() => {
    const turn = turns[k++ % turns.length];
    ctx.push(turn);
    ctx.prepareTurn(config);
  }, { samples: 7, minMs: 15 });
  k = 0;
  const stringify = median(() => JSON.stringify(turns[k++ % turns.length]), { samples: 7, minMs: 15 });
  k = 0;
  const piTurn = median(() => pi.shouldCompact(pi.estimateContextTokens(messages).tokens, 100_000_000, piSettings));
  perTurn[label] = ours;
  row("per turn (push one turn + decide)", label, ours, stringify, "JSON.stringify(new messages)", "≤ 3×");
  row("per turn (push one turn + decide)", `${label}: pi's own check`, ours, piTurn, "pi estimateContextTokens+shouldCompact");
  ctx.free();
}
const first = perTurn[`generated ${SIZES[0].toLocaleString("en-US")} msgs`];
const last = perTurn[`generated ${SIZES.at(-1).toLocaleString("en-US")} msgs`];
row("per turn (push one turn + decide)", `flatness: ${SIZES.at(-1).toLocaleString("en-US")} vs ${SIZES[0].toLocaleString("en-US")} msgs`, last, first, "the same at 1,000 msgs", "≤ 1.5×");

// ---------------------------------------------------------------- the compaction plan, the summary text
for (const [label, messages] of [...sessions.map(([f, m]) => [f, m]), ...SIZES.slice(-1).map((n) => [`generated ${n.toLocaleString("en-US")} msgs`, generated(large, n)])]) {
  const ctx = handleOf(messages);
  const entries = entriesOf(messages);
  const ours = median(() => ctx.prepareCompaction(settings), { samples: 5 });
  const theirs = median(() => pi.prepareCompaction(entries, piSettings), { samples: 5 });
  row("compaction plan", `handle.prepareCompaction vs pi.prepareCompaction: ${label}`, ours, theirs, "pi prepareCompaction", label.startsWith("generated") ? "≥ 20× faster" : "≥ 5× faster");
  const plan = ctx.prepareCompaction(settings);
  const summarized = plan.messagesToSummarize;
  const from = plan.compactableStart;
  const to = from + summarized.length;
  const text = median(() => ctx.serializeConversation(from, to), { samples: 5 });
  const piText = median(() => pi.serializeConversation(pi.convertToLlm(summarized)), { samples: 5 });
  row("summary request text", `serializeConversation of ${summarized.length} msgs: ${label}`, text, piText, "pi serializeConversation(convertToLlm)", "≤ 1.5×");
  ctx.free();
}

// ---------------------------------------------------------------- one-shot calls vs reading the input once
for (const [label, messages] of sessions) {
  const json = JSON.stringify(messages);
  const parse = median(() => JSON.parse(json), { samples: 5 });
  for (const [name, call] of [
    ["prepareCompaction", () => dc.prepareCompaction(messages, settings)],
    ["findCutPoint", () => dc.findCutPoint(messages, 0, messages.length, 20000)],
    ["serializeConversation", () => dc.serializeConversation(messages)],
    ["estimateContextTokens", () => dc.estimateContextTokens(messages)],
  ]) {
    row("one-shot call", `${name}: ${label}`, median(call, { samples: 5 }), parse, "JSON.parse of the same data", "≤ 2×");
  }
}

// ---------------------------------------------------------------- a compaction through the pi hook
// What a compaction costs a pi host: the hook, loaded (untimed) with a real session minus
// its last turns, below the threshold, gets the rest pushed and is called once: it plans,
// writes the summary text and hands the summary request to `summarize` (which answers at
// once). The reference is what pi itself runs for the same decision: prepareCompaction
// over the session's entries + serializeConversation(convertToLlm) of what it summarizes.
// The window is the smallest whose hard limit lies between the two histories' estimates.
{
  for (const [label, session] of sessions) {
    const messages = [{ role: "user", content: "Task brief.", timestamp: 0 }, ...session];
    const after = dc.estimateContextTokens(messages).tokens;
    let cut = messages.length - 1;
    let before;
    do {
      cut--;
      while (cut > 1 && messages[cut].role !== "assistant") cut--;
      before = dc.estimateContextTokens(messages.slice(0, cut)).tokens;
    } while (before > after * 0.98);
    let budget;
    for (let w = 1000; w < 10_000_000 && !budget; w = Math.ceil(w * 1.01)) {
      const b = dc.contextBudget({ contextWindow: w, maxTokens: 8192 });
      if (b.hardLimit > after) break;
      if (b.hardLimit > before) budget = b;
    }
    if (!budget) throw new Error(`${label}: no window between ${before} and ${after} tokens`);
    const hookSettings = { enabled: true, reserveTokens: budget.requestHeadroom ?? 16384, keepRecentTokens: budget.keepRecentTokens ?? 20000 };
    const entries = entriesOf(messages);
    const ours = async () => {
      const hook = dc.createPrepareNextTurn({ budget, modelId: "bench/model", options: { now: 0 }, summarize: async () => "The summary." });
      const ctx = { context: { systemPrompt: "You are a delegate.", messages: messages.slice(0, cut), tools } };
      if ((await hook(ctx)) !== undefined) throw new Error(`${label}: compacted before the last turns`);
      ctx.context.messages.push(...messages.slice(cut));
      globalThis.gc?.();
      const t0 = performance.now();
      const out = await hook(ctx);
      const t = performance.now() - t0;
      if (out === undefined) throw new Error(`${label}: the hook did not compact`);
      return t * 1000;
    };
    const theirs = () => {
      const t0 = performance.now();
      const plan = pi.prepareCompaction(entries, hookSettings);
      const text = pi.serializeConversation(pi.convertToLlm((plan.value ?? plan).messagesToSummarize));
      if (!text) throw new Error(`${label}: pi summarized nothing`);
      return (performance.now() - t0) * 1000;
    };
    const o = [];
    const t = [];
    for (let i = 0; i < 5; i++) { await ours(); theirs(); }
    for (let i = 0; i < (QUICK ? 9 : 21); i++) { o.push(await ours()); t.push(theirs()); }
    row("compaction through the pi hook", `plan + summary text + request: ${label}`, med(o), med(t), "pi prepareCompaction + serializeConversation(convertToLlm)", "≤ 1×");
  }
}

// ---------------------------------------------------------------- the hook called as pi's Agent calls it
// pi's Agent calls the hook before every request with `{context: {systemPrompt, messages,
// tools}}`, `messages` the same array grown by push since the last call. Each round, for
// each size in turn (so a load that comes and goes hits every size alike): a fresh hook
// over a copy of the history (loaded by an untimed first call and a few warm-up turns), a
// minor collection, then HOOK_CALLS timed calls with one turn pushed before each. Below
// the threshold (nothing changes): the hook's own per-turn cost.
{
  const HOOK_CALLS = 100;
  const turns = turnsOf(large);
  const bases = SIZES.map((n) => [n, generated(large, n)]);
  const times = Object.fromEntries(SIZES.map((n) => [n, []]));
  for (let round = 0; round < 9; round++) {
    for (const [n, base] of bases) {
      const messages = base.slice();
      const hook = dc.createPrepareNextTurn({ ...config, summarize: async () => "s" });
      const ctx = { context: { systemPrompt: "You are a delegate.", messages, tools } };
      await hook(ctx);
      for (let k = 0; k < 10; k++) {
        messages.push(...turns[k % turns.length]);
        await hook(ctx);
      }
      globalThis.gc?.({ type: "minor" });
      const t0 = performance.now();
      for (let k = 0; k < HOOK_CALLS; k++) {
        messages.push(...turns[k % turns.length]);
        if ((await hook(ctx)) !== undefined) throw new Error("the hook changed a context below its threshold");
      }
      times[n].push(((performance.now() - t0) * 1000) / HOOK_CALLS);
    }
  }
  const perCall = {};
  for (const n of SIZES) {
    times[n].sort((a, b) => a - b);
    perCall[n] = times[n][times[n].length >> 1];
    let k = 0;
    const stringify = median(() => JSON.stringify(turns[k++ % turns.length]), { samples: 7, minMs: 15 });
    row("the pi Agent hook, called directly (push one turn + hook)", `generated ${n.toLocaleString("en-US")} msgs`, perCall[n], stringify, "JSON.stringify(new messages)");
  }
  row("the pi Agent hook, called directly (push one turn + hook)", `flatness: ${SIZES.at(-1).toLocaleString("en-US")} vs ${SIZES[0].toLocaleString("en-US")} msgs`, perCall[SIZES.at(-1)], perCall[SIZES[0]], `the hook at ${SIZES[0].toLocaleString("en-US")} msgs`, "≤ 1.5×");
}

// ---------------------------------------------------------------- the AI SDK's prepareStep
// createPrepareStep (delegate-context/ai) as the SDK calls it: before every step with the
// messages so far (the last step's response appended). Each round, for each size: a fresh
// prepareStep over a copy of the history as ModelMessages (loaded by an untimed step 0 and
// a few warm-up steps), then timed steps with one turn (an assistant and its tool message)
// appended before each. Below the threshold: its own per-step cost. Beside it, the SDK's
// own recipe's per-step cost (`JSON.stringify(messages).length / 4` of the whole history).
if (!PKG) {
  const ai = await import(resolve(root, "pkg/ai/index.mjs"));
  const STEPS = 50;
  const AI_SIZES = [100, 1_000, 10_000];
  const piTurns = turnsOf(large);
  const turns = piTurns.map((t) => ai.toModelMessages(t));
  const step = { usage: { inputTokens: 1000, inputTokenDetails: {}, outputTokens: 50, outputTokenDetails: {}, totalTokens: 1050 }, finishReason: "tool-calls", rawFinishReason: "tool_use" };
  const bases = AI_SIZES.map((n) => [n, ai.toModelMessages(generated(large, n))]);
  const times = Object.fromEntries(AI_SIZES.map((n) => [n, []]));
  const recipe = Object.fromEntries(AI_SIZES.map((n) => [n, []]));
  for (let round = 0; round < 7; round++) {
    for (const [n, base] of bases) {
      const messages = base.slice();
      const prepareStep = ai.createPrepareStep({ window: { contextWindow: 50_000_000, maxTokens: 8192 }, summarize: async () => "s" });
      const call = async (stepNumber) => prepareStep({ messages, steps: stepNumber ? [step] : [], stepNumber, model: "mock/m", instructions: "You are a delegate." });
      await call(0);
      for (let k = 0; k < 5; k++) {
        messages.push(...turns[k % turns.length]);
        await call(k + 1);
      }
      globalThis.gc?.({ type: "minor" });
      let t0 = performance.now();
      for (let k = 0; k < STEPS; k++) {
        messages.push(...turns[k % turns.length]);
        if ((await call(k + 6)).messages !== undefined) throw new Error("prepareStep changed a context below its threshold");
      }
      times[n].push(((performance.now() - t0) * 1000) / STEPS);
      prepareStep.free();
      t0 = performance.now();
      for (let k = 0; k < 5; k++) if (JSON.stringify(messages).length / 4 < 0) throw new Error();
      recipe[n].push(((performance.now() - t0) * 1000) / 5);
    }
  }
  let k = 0;
  const stringify = median(() => JSON.stringify(turns[k++ % turns.length]), { samples: 7, minMs: 15 });
  for (const n of AI_SIZES) {
    row("AI SDK prepareStep (one step appended + boundary)", `${n.toLocaleString("en-US")} ModelMessages`, med(times[n]), stringify, "JSON.stringify(the step's new messages)", "≤ 3×");
    row("AI SDK prepareStep (one step appended + boundary)", `${n.toLocaleString("en-US")} ModelMessages: the SDK's recipe (JSON/4 of the history)`, med(recipe[n]), med(times[n]), "createPrepareStep");
  }
  row("AI SDK prepareStep (one step appended + boundary)", `flatness: ${AI_SIZES.at(-1).toLocaleString("en-US")} vs ${AI_SIZES[0].toLocaleString("en-US")} msgs`, med(times[AI_SIZES.at(-1)]), med(times[AI_SIZES[0]]), `the step at ${AI_SIZES[0].toLocaleString("en-US")} msgs`, "≤ 1.5×");
}

// ---------------------------------------------------------------- the hook inside a real Agent
{
  const { Agent, convertToLlm } = pi;
  const { createFauxCore, fauxAssistantMessage, fauxToolCall, fauxText } = await import("@earendil-works/pi-ai");
  const { Type } = await import("typebox");
  const turnsPerRun = QUICK ? [50, 200] : [50, 500];
  // The time from calling the hook to resuming after its promise includes whatever else
  // pi's Agent queued meanwhile, which grows with the run; a no-op async hook in the same
  // Agent measures that, and the hook's own cost is the difference.
  async function run(turnCount, makeHook) {
    const core = createFauxCore({ models: [{ id: "m", contextWindow: 100_000_000, maxTokens: 1024 }] });
    const model = core.getModel("m");
    core.setResponses([
      ...Array.from({ length: turnCount }, (_, i) => () => fauxAssistantMessage([fauxText(`step ${i}`), fauxToolCall("read", { path: `f${i}` }, { id: `c${i}` })], { stopReason: "toolUse" })),
      () => fauxAssistantMessage("done"),
    ]);
    const read = { name: "read", label: "read", description: "read", parameters: Type.Object({ path: Type.String() }), execute: async (_id, { path }) => ({ content: [{ type: "text", text: `${path}\n` + "line of code\n".repeat(80) }], details: {} }) };
    const hook = makeHook();
    const times = [];
    const agent = new Agent({
      streamFn: core.streamSimple,
      convertToLlm,
      initialState: { systemPrompt: "You are a delegate.", model, tools: [read], messages: [] },
      prepareNextTurnWithContext: async (ctx, signal) => {
        // under --expose-gc, a full collection first: the Agent's own heap grows with the
        // run (the faux provider serializes the whole prompt every turn), and the
        // collector's work on it lands in whichever call allocates next. With only a minor
        // collection here, the hook's own cost measured 1.6-2.2x at 500 vs 50 turns; with
        // a full one, 0.8-1.0x (2026-12-02, quiet machine): that growth was the Agent's
        // garbage collected during the hook's call, not the hook's work.
        globalThis.gc?.();
        const t0 = performance.now();
        const r = await hook(ctx, signal);
        times.push((performance.now() - t0) * 1000);
        return r;
      },
    });
    await agent.prompt("Read every file.");
    const tail = times.slice(-Math.min(40, times.length)).sort((a, b) => a - b);
    return tail[tail.length >> 1];
  }
  const ours = () => dc.createPrepareNextTurn({ budget: bigBudget, modelId: "m", summarize: async () => "s" });
  const noop = () => async () => undefined;
  const perCall = {};
  for (const turnCount of turnsPerRun) {
    const a = [], b = [];
    for (let rep = 0; rep < 3; rep++) {
      a.push(await run(turnCount, ours));
      b.push(await run(turnCount, noop));
    }
    a.sort((x, y) => x - y);
    b.sort((x, y) => x - y);
    perCall[turnCount] = { ours: a[1], noop: b[1] };
  }
  const [a, b] = turnsPerRun;
  row("hook in a real Agent (per turn, last 40 turns)", `${b} turns vs ${a} turns of history (call to resume)`, perCall[b].ours, perCall[a].ours, `the hook at ${a} turns`);
  row("hook in a real Agent (per turn, last 40 turns)", `${b} turns vs ${a} turns: a no-op async hook (the Agent's own share)`, perCall[b].noop, perCall[a].noop, `the no-op at ${a} turns`);
  row("hook in a real Agent (per turn, last 40 turns)", `${b} turns vs ${a} turns: the hook's own cost (minus the no-op)`, Math.max(0.01, perCall[b].ours - perCall[b].noop), Math.max(0.01, perCall[a].ours - perCall[a].noop), `the hook's own cost at ${a} turns`, "flat (≈ 1×)");
}

// ---------------------------------------------------------------- a resume's seed (ADR 0299 §7)
// seedDelegateMessages over a chain of 2k and 32k messages that truncation cuts hard
// (phase 1 strips most reads, the newest that fit are put back): linear means the 32k
// seed costs about 16× the 2k one (issue 16: it was quadratic, 10.5 s natively at 32k).
{
  const chainRows = (n) => {
    const out = [];
    for (let i = 0; i < n / 2; i++) {
      out.push({ id: `a${i}`, role: "assistant", content: `step ${i}: reading the next file`, createdAt: new Date(0).toISOString(), parentToolCallId: "t1", agentName: "explorer" });
      out.push({ id: `r${i}`, role: "tool", content: "", toolName: "read", toolCallId: `r${i}`, toolArgs: { path: `src/f${i}.rs` }, toolStatus: "success", toolResult: "x".repeat(2000), createdAt: new Date(0).toISOString(), parentToolCallId: "t1", agentName: "explorer" });
    }
    return out;
  };
  const seedOf = (r) => () => dc.seedDelegateMessages({ brief: "Survey the repository", rows: r, binding: { provider: "p", model: "m" }, hardLimit: 100_000 });
  const small = chainRows(2_000);
  const big = chainRows(32_000);
  const bigJson = JSON.stringify(big);
  const seed2k = median(seedOf(small), { samples: 5 });
  const seed32k = median(seedOf(big), { samples: 5 });
  row("resume seed (seedDelegateMessages)", "32,000-message chain vs JSON.parse of its rows", seed32k, median(() => JSON.parse(bigJson), { samples: 5 }), "JSON.parse of the rows", "≤ 3×");
  row("resume seed (seedDelegateMessages)", "scaling: 32,000 vs 2,000 messages", seed32k, seed2k, "the seed of 2,000 messages", "≤ 20× (16× is linear)");
}

// ---------------------------------------------------------------- sizes
const sizes = {};
for (const [target, dir] of PKG ? [["node", PKG]] : [["node", resolve(root, "pkg/node")], ["web", resolve(root, "pkg/web")]]) {
  const bytes = readFileSync(resolve(dir, "delegate_context_bg.wasm"));
  sizes[target] = { raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length };
}

console.table(rows);
const shipped = sizes.web ?? sizes.node;
console.log(`wasm: ${shipped.raw.toLocaleString("en-US")} bytes raw, ${shipped.gzip.toLocaleString("en-US")} bytes gzip -9 (target ≤ 150 KB gzip)`);
mkdirSync(resolve(root, "target/bench"), { recursive: true });
const out = resolve(root, `target/bench/${PKG ? `results-${basename(PKG)}` : "results"}.json`);
writeFileSync(out, JSON.stringify({ node: process.version, quick: QUICK, pkg: PKG ?? "pkg/", rows, wasm: sizes }, null, 2) + "\n");
console.log(`written: ${out.slice(root.length + 1)}`);
