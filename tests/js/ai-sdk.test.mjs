// delegate-context/ai (issue 35): the same delegate for the Vercel AI SDK 7, offline with
// the SDK's own MockLanguageModelV4: a delegate that compacts several times, one that
// degrades, one that overflows with no provider call, a provider overflow in each of the
// SDK's failure shapes moving to a fallback that fits (a too-small one skipped and never
// called), an abort while the summarizer hangs, a parent that only ever sees reports, a
// restart from rows read back in any order and a resume that carries its history; side
// by side with the SDK's own recipe (JSON/4 and pruneMessages) on the same scripted run.
import test from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { ToolLoopAgent, pruneMessages } from "ai";
import { dc, root } from "./helpers.mjs";
import { file, overflowError, promptTokens, readTool, reads, retryError, scripted, shuffled, store, usage } from "./ai-helpers.mjs";

const ai = await import(resolve(root, "pkg/ai/index.mjs"));
const SMALL = { contextWindow: 8192, maxTokens: 1024 }; // hardLimit 4,096
const TINY = { contextWindow: 4096, maxTokens: 1024 };
const BIG = { contextWindow: 32000, maxTokens: 8000 };
const SUMMARY = "## Goal\nRead the files.\n\n## Progress\n- read some files";
const FAST_RETRY = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 30000 };
const TASK = "Read the files one by one, then report.";

/** A ToolLoopAgent delegate on `prepareStep` (createPrepareStep), run to its end. */
async function loop(steps, { window = SMALL, summarize = async () => SUMMARY, sizes, signal, prompt = TASK } = {}) {
  const { model, prompts } = scripted(steps, { contextWindow: window.contextWindow });
  const tools = { read: readTool(sizes) };
  const reports = [];
  const prepareStep = ai.createPrepareStep({ window, tools, summarize, signal, onBoundary: (r) => reports.push(r) });
  const agent = new ToolLoopAgent({ model, tools, instructions: "You are a delegate.", prepareStep, stopWhen: () => false });
  try {
    const result = await agent.generate({ prompt, abortSignal: signal });
    return { result, prompts, reports, run: prepareStep.run };
  } finally {
    prepareStep.free();
  }
}

test("createPrepareStep: a 12-read delegate compacts several times, every request within its budget, its messages its own", async () => {
  const { result, prompts, reports, run } = await loop([...reads(12), { report: "All read." }]);
  assert.equal(result.text, "All read.");
  assert.ok(run.contextCompactions >= 2, `compactions: ${run.contextCompactions}`);
  assert.equal(run.contextDegraded, false);
  assert.equal(reports.length, 13, "a boundary before every step, step 0 included");
  assert.equal(reports[0].stepNumber, 0);
  for (const p of prompts) assert.ok(promptTokens(p) + SMALL.maxTokens <= SMALL.contextWindow, `a request of ${promptTokens(p)} tokens`);
  // a compacted request: the task first, then the summary as a user message, then the kept turns
  const compacted = prompts[reports.findIndex((r) => r.outcome === "compacted")].filter((m) => m.role !== "system");
  assert.equal(compacted[1].role, "user");
  assert.match(compacted[1].content[0].text, /^The conversation history before this point was compacted into the following summary:\n\n<summary>\n[\s\S]*## Goal[\s\S]*\n<\/summary>$/);
  assert.equal(compacted[0].content[0].text, TASK, "the task brief is never lost");
  // every step's request is provider-valid: each tool call answered, no orphan result
  for (const p of prompts) {
    const calls = p.flatMap((m) => (m.role === "assistant" ? m.content.filter((c) => c.type === "tool-call").map((c) => c.toolCallId) : []));
    const results = p.flatMap((m) => (m.role === "tool" ? m.content.map((c) => c.toolCallId) : []));
    assert.deepEqual(results, calls.slice(0, results.length));
    assert.ok(calls.length - results.length <= 0);
  }
});

test("createPrepareStep: kept messages are the caller's objects, byte-identical (providerOptions and all)", async () => {
  const tools = { read: readTool() };
  const prepareStep = ai.createPrepareStep({ window: SMALL, tools, summarize: async () => SUMMARY });
  const brief = { role: "user", content: [{ type: "text", text: TASK }], providerOptions: { anthropic: { cacheControl: { type: "ephemeral" } } } };
  const history = [brief];
  for (let i = 0; i < 10; i++) {
    history.push({ role: "assistant", content: [{ type: "reasoning", text: "hm", providerOptions: { anthropic: { signature: `s${i}` } } },
      { type: "tool-call", toolCallId: `k${i}`, toolName: "read", input: { path: `f${i}.ts` } }] });
    history.push({ role: "tool", content: [{ type: "tool-result", toolCallId: `k${i}`, toolName: "read", output: { type: "json", value: { text: file(`f${i}`, 60) } } }] });
  }
  const before = JSON.stringify(history);
  const out = await prepareStep({ messages: history, steps: [], stepNumber: 0, model: "mock/small-8k", instructions: "x", initialInstructions: "x", initialMessages: [brief], responseMessages: [], toolsContext: {}, runtimeContext: {} });
  assert.equal(JSON.stringify(history), before, "the input is not mutated");
  assert.ok(out.messages, "over hardLimit: compacted");
  assert.equal(out.messages[0], brief, "the brief is the caller's own object");
  const kept = out.messages.filter((m) => history.includes(m));
  assert.ok(kept.length >= 2 && kept.every((m) => JSON.stringify(m) === JSON.stringify(history[history.indexOf(m)])));
  assert.equal(out.maxOutputTokens, 1024, "the budget's output cap is what the step may answer");
  prepareStep.free();
});

test("createPrepareStep: a failed summary degrades; a brief larger than the window throws before any provider call", async () => {
  const degraded = await loop([...reads(12), { report: "Partial." }], { summarize: async () => { throw new Error("summarizer down"); } });
  assert.equal(degraded.run.contextDegraded, true);
  assert.ok(degraded.reports.some((r) => r.outcome === "degraded" && /summarizer down/.test(r.summaryError)));
  const { model, prompts } = scripted([{ report: "never" }]);
  const prepareStep = ai.createPrepareStep({ window: SMALL, summarize: async () => SUMMARY });
  const agent = new ToolLoopAgent({ model, instructions: "x", prepareStep });
  await assert.rejects(agent.generate({ prompt: "x".repeat(40_000) }), (e) => dc.isDelegateContextError(e) && e.code === "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(prompts.length, 0, "no provider call");
  prepareStep.free();
});

test("createPrepareStep: the budget follows the window's numbers, even when the host changes the same object", async () => {
  const window = { ...BIG };
  const { model, prompts } = scripted([{ report: "fits" }, { report: "never" }], { contextWindow: BIG.contextWindow });
  const prepareStep = ai.createPrepareStep({ window, summarize: async () => SUMMARY });
  const agent = new ToolLoopAgent({ model, instructions: "x", prepareStep });
  const brief = "x".repeat(40_000); // ~10,000 tokens: below BIG's hardLimit, above SMALL's
  assert.equal((await agent.generate({ prompt: brief })).text, "fits");
  Object.assign(window, SMALL);
  await assert.rejects(agent.generate({ prompt: brief }), (e) => dc.isDelegateContextError(e) && e.code === "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(prompts.length, 1, "the second run made no provider call");
  prepareStep.free();
});

test("createPrepareStep: an abort while the summarizer hangs ends the step at once (ABORTED)", async () => {
  const controller = new AbortController();
  const started = Date.now();
  const run = loop([...reads(12), { report: "x" }], { signal: controller.signal, summarize: () => { setTimeout(() => controller.abort(), 5); return new Promise(() => {}); } });
  await assert.rejects(run, (e) => e.code === "ABORTED" || e.name === "AbortError");
  assert.ok(Date.now() - started < 2000);
});

/** A delegation on `runDelegate` with scripted models per key. */
async function delegation({ worlds, models, task = {}, registry = new dc.DelegationRegistry(), rows, onRows, signal, summarize = async () => SUMMARY, sizes }) {
  const s = store();
  if (rows) for (const r of rows) s.rows.set(r.id, r);
  const events = [];
  const result = await ai.runDelegate({
    registry, models, instructions: "You are a delegate.", tools: { read: readTool(sizes) }, summarize, rows: rows ?? s.list(),
    onRows: onRows ?? s.onRows, signal, retry: FAST_RETRY, onEvent: (e) => events.push(e),
    task: { toolCallId: "task_1", agent: "explorer", task: TASK, description: "read files", ...task },
  });
  return { result, rows: s.list(), events, registry, worlds };
}

test("runDelegate: a provider overflow in each of the SDK's shapes moves to a fallback that fits; the one too small is skipped, never called", async () => {
  const overflowWords = "prompt is too long: 9100 tokens > 8192 maximum";
  const shapes = {
    "APICallError 400": { fail: overflowError(overflowWords) },
    "RetryError whose lastError is the overflow": { fail: retryError(overflowError(overflowWords)) },
    "a length stop with model_context_window_exceeded": { report: "partial", stop: { unified: "length", raw: "model_context_window_exceeded" } },
  };
  for (const [shape, failing] of Object.entries(shapes)) {
    const small = scripted([...reads(3), failing], { modelId: "small-8k" });
    const tiny = scripted([{ report: "never" }], { modelId: "tiny-4k", contextWindow: 4096 });
    const big = scripted([{ read: "src/g.ts" }, { report: "Tests cover positive amounts only." }], { modelId: "big-32k", contextWindow: 32000 });
    const { result, events } = await delegation({ models: [{ model: small.model, ...SMALL }, { model: tiny.model, ...TINY }, { model: big.model, ...BIG }] });
    assert.equal(result.status, "completed", `${shape}: ${result.content}`);
    assert.equal(result.content, "Tests cover positive amounts only.");
    assert.equal(result.modelId, "mock/big-32k");
    assert.equal(tiny.prompts.length, 0, `${shape}: tiny-4k was never called`);
    assert.deepEqual(result.details.modelFailures.map((f) => [f.model, f.code]), [["mock/small-8k", "CONTEXT_TOO_LARGE"], ["mock/tiny-4k", "SUBAGENT_CONTEXT_OVERFLOW"]], shape);
    assert.ok(!JSON.stringify(result).includes("prompt is too long"), `${shape}: the provider's words reach neither the parent nor the Task row`);
    assert.ok(events.some((e) => e.type === "providerError" && e.contextTooLarge), shape);
  }
  // with no fallback left: SUBAGENT_CONTEXT_OVERFLOW and its guidance
  const alone = scripted([...reads(2), { fail: overflowError(overflowWords) }]);
  const { result } = await delegation({ models: [{ model: alone.model, ...SMALL }] });
  assert.equal(result.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.match(result.content, /Narrow the task/);
  // a 429 passes through as a retriable failure: retried, then its words
  const { APICallError } = await import("ai");
  const throttle = (statusCode, message) => new APICallError({ message, url: "u", requestBodyValues: {}, statusCode, isRetryable: true });
  const throttled = scripted([{ fail: retryError(throttle(429, "Rate limited")) }, { fail: throttle(529, "Overloaded") }, { report: "ok after retries" }]);
  const retried = await delegation({ models: [{ model: throttled.model, ...SMALL }] });
  assert.equal(retried.result.status, "completed", retried.result.content);
  assert.deepEqual(retried.events.filter((e) => e.type === "retry").map((e) => e.attempt), [1, 2]);
});

test("runDelegate: compacts, degrades and says so, overflows with its guidance, writes rows, settles", async () => {
  const compacting = scripted([...reads(12), { report: "All read." }]);
  const done = await delegation({ models: [{ model: compacting.model, ...SMALL }] });
  assert.equal(done.result.status, "completed");
  assert.ok(done.result.run.contextCompactions >= 2);
  assert.equal(done.result.details.turns, 13);
  assert.equal(done.result.details.toolCalls, 12);
  assert.ok(done.rows.every((r) => typeof r.order === "number"));
  assert.equal(done.registry.resolve(done.result.delegationId).status, "completed");
  const degrading = scripted([...reads(12), { report: "Found 3 call sites." }]);
  const degraded = await delegation({ models: [{ model: degrading.model, ...SMALL }], summarize: async () => { throw new Error("down"); } });
  assert.match(degraded.result.content, /^\[Delegate context degraded\][\s\S]*Found 3 call sites\.$/);
  const huge = scripted([{ read: "logs/build.log" }, { report: "never" }]);
  const overflow = await delegation({ models: [{ model: huge.model, ...SMALL }], sizes: { "logs/build.log": 2000 } });
  assert.equal(overflow.result.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(huge.prompts.length, 1, "the read that does not fit is never sent");
});

test("runDelegate: an abort while the summarizer hangs returns at once, settled", async () => {
  const controller = new AbortController();
  const w = scripted([...reads(12), { report: "x" }]);
  const started = Date.now();
  const { result, registry } = await delegation({ models: [{ model: w.model, ...SMALL }], signal: controller.signal,
    summarize: () => { setTimeout(() => controller.abort(), 5); return new Promise(() => {}); } });
  assert.ok(Date.now() - started < 2000);
  assert.equal(result.status, "aborted");
  assert.equal(registry.resolve(result.delegationId).status, "aborted");
});

test("a parent ToolLoopAgent with delegateTool only ever sees reports; a restart from rows in any order and a resume that carries its history", async () => {
  const s = store();
  let registry = new dc.DelegationRegistry();
  const worker = scripted([...reads(4), { report: "Money flows billing -> tax." }, { read: "src/rounding.ts" }, { report: "legacyRound can go." }]);
  // registry and rows change across the restart: the tool reads them when it runs
  const definition = (name) => (dc.normalizeAgentName(name) === "explorer" ? { models: [{ model: worker.model, ...SMALL }], instructions: "You are the explorer.", tools: { read: readTool() } } : undefined);
  const taskTool = ai.delegateTool({ registry, summarize: async () => SUMMARY, onRows: s.onRows, retry: FAST_RETRY, rows: [], agent: definition });
  const leadTurns = [
    (o) => ({ content: [{ type: "tool-call", toolCallId: "call_1", toolName: "task", input: JSON.stringify({ agent: "explorer", task: "Survey the modules.", description: "survey" }) }], finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage(promptTokens(o.prompt)), warnings: [] }),
    (o) => ({ content: [{ type: "text", text: "Done." }], finishReason: { unified: "stop", raw: "end_turn" }, usage: usage(promptTokens(o.prompt)), warnings: [] }),
  ];
  const { MockLanguageModelV4 } = await import("ai/test");
  const leadPrompts = [];
  let turn = 0;
  const leadModel = new MockLanguageModelV4({ provider: "mock", modelId: "lead", doGenerate: async (o) => { leadPrompts.push(o.prompt); return leadTurns[turn++](o); } });
  const recorder = ai.createRowRecorder({ idPrefix: "conversation-1", onRows: s.onRows });
  const prompt = [{ role: "user", content: "Survey the modules." }];
  await recorder.prompt(prompt);
  const parent = new ToolLoopAgent({ model: leadModel, instructions: "Delegate.", tools: { task: taskTool }, onStepEnd: (step) => recorder.onStepEnd(step) });
  await parent.generate({ messages: prompt });
  recorder.free();
  // the parent's model saw the report only
  const seen = JSON.stringify(leadPrompts[1]);
  assert.ok(seen.includes("Money flows billing -> tax."));
  assert.ok(!seen.includes("Reading src/") && !seen.includes("some source code"), "no delegate work in the parent's request");
  // restart: rows read back in another order give the same parent context and registry
  const rows = s.list();
  const parentContext = ai.parentMessages(rows);
  assert.deepEqual(parentContext.map((m) => m.role), ["user", "assistant", "tool", "assistant"]);
  const list = dc.DelegationRegistry.fromTranscript(rows).resumableList();
  for (const seed of [1, 7, 2026]) {
    const mixed = shuffled(rows, seed);
    assert.deepEqual(ai.parentMessages(mixed), parentContext);
    assert.deepEqual(dc.DelegationRegistry.fromTranscript(mixed).resumableList(), list);
  }
  registry = dc.DelegationRegistry.fromTranscript(shuffled(rows, 3));
  // a resume carries the chain's history (the earlier reads are in its first request)
  const resumed = await ai.runDelegate({
    registry, models: [{ model: worker.model, ...SMALL }], instructions: "You are the explorer.", tools: { read: readTool() },
    summarize: async () => SUMMARY, rows: shuffled(rows, 5), onRows: s.onRows, retry: FAST_RETRY,
    task: { toolCallId: "call_2", agent: "explorer", task: "Can legacyRound go?", resume: list[0].delegationId },
  });
  assert.equal(resumed.status, "completed", resumed.content);
  assert.equal(resumed.content, "legacyRound can go.");
  assert.equal(resumed.details.resumedFrom, list[0].delegationId);
  const firstResumedRequest = JSON.stringify(worker.prompts.at(-2));
  for (const path of ["src/f0.ts", "src/f1.ts", "src/f2.ts", "src/f3.ts"]) assert.ok(firstResumedRequest.includes(path), `the seed holds ${path}`);
  assert.ok(firstResumedRequest.includes("Survey the modules.") && firstResumedRequest.includes("Can legacyRound go?"));
});

test("side by side with the SDK's recipe (JSON/4 and pruneMessages) on the same scripted run", async () => {
  // the recipe of the SDK's docs ("Context Management" in loop control): JSON/4 against a threshold
  const recipe = (threshold) => async ({ messages }) => (JSON.stringify(messages).length / 4 > threshold
    ? { messages: pruneMessages({ messages, reasoning: "all", toolCalls: "before-last-3-messages", emptyMessages: "remove" }) } : undefined);
  const steps = [...reads(12), { report: "All read." }];
  const run = async (threshold) => {
    const w = scripted(steps, { contextWindow: 1e9 }); // measured here, not refused
    await new ToolLoopAgent({ model: w.model, tools: { read: readTool() }, instructions: "You are a delegate.", prepareStep: recipe(threshold), stopWhen: () => false }).generate({ prompt: TASK });
    return w.prompts;
  };
  const ours = (await loop(steps)).prompts;
  const refused = (prompts) => prompts.filter((p) => promptTokens(p) + SMALL.maxTokens > SMALL.contextWindow).length;
  const last = (prompts) => ({ messages: prompts.at(-1).length, fileBodies: (JSON.stringify(prompts.at(-1)).match(/\/\/ src\/f\d+\.ts/g) ?? []).length,
    summary: JSON.stringify(prompts.at(-1)).includes("<summary>") });
  const rows = {
    "recipe as documented (100,000)": { refused: refused(await run(100_000)) },
    "recipe at this model's hardLimit (4,096)": { refused: 0, ...last(await run(4096)) },
    "createPrepareStep": { refused: refused(ours), ...last(ours) },
  };
  rows["recipe at this model's hardLimit (4,096)"].refused = refused(await run(4096));
  console.log(`# side by side, 12 reads on an 8k window: ${JSON.stringify(rows)}`);
  assert.equal(rows.createPrepareStep.refused, 0, "no request of ours is over the window");
  assert.ok(rows["recipe as documented (100,000)"].refused > 0, "the documented threshold knows no model's window");
  assert.equal(rows.createPrepareStep.summary, true, "what was read lives on in a summary");
  assert.equal(rows["recipe at this model's hardLimit (4,096)"].summary, false, "pruning deletes it");
});
