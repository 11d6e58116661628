// The compaction exports through the wasm boundary (issue 3): the boundary step (sync
// and async), the summary request, errors with code and path, inputs not mutated,
// unknown fields kept, fallback models, provider error classification, tool inheritance.
import test from "node:test";
import assert from "node:assert/strict";
import { dc, expectCode } from "./helpers.mjs";

const budget = dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 }); // hardLimit 4096, keepRecent 2048
const MODEL = "faux/faux-small";

/** brief, then `turns` tool turns of `size` chars per result, with host fields everywhere. */
function session(turns, size = 3000) {
  const ms = [{ role: "user", content: [{ type: "text", text: "BRIEF: read the files", hostTag: "b" }], timestamp: 1, hostBrief: { id: 7 } }];
  for (let i = 0; i < turns; i++) {
    ms.push({
      role: "assistant",
      content: [
        { type: "thinking", thinking: "plan " + i, thinkingSignature: "sig" },
        { type: "toolCall", id: `c${i}`, name: i % 3 === 0 ? "edit" : "read", arguments: { path: `src/f${i}.ts` }, futureField: [i] },
      ],
      api: "x", provider: "p", model: "m", stopReason: "toolUse", timestamp: 10 + i, responseId: `r${i}`,
    });
    ms.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: "x".repeat(size) }], isError: false, timestamp: 11 + i, hostMeta: { turn: i } });
  }
  return ms;
}

test("below hardLimit nothing happens; at or above it the summary request is ready to send", () => {
  const small = session(2);
  const p = dc.prepareDelegateTurn({ messages: small, budget, modelId: MODEL });
  assert.equal(p.action, "unchanged");
  assert.equal(p.requests.length, 0);
  assert.ok(p.tokens < budget.hardLimit);

  const big = session(8);
  const q = dc.prepareDelegateTurn({ messages: big, budget, modelId: MODEL, options: { now: 5 } });
  assert.equal(q.action, "summarize");
  assert.equal(q.turn, "active");
  assert.ok(q.tokens >= budget.hardLimit);
  assert.ok(q.requests.length >= 1);
  for (const r of q.requests) {
    assert.ok(r.systemPrompt.startsWith("You are a context summarization assistant."));
    assert.equal(r.messages.length, 1);
    assert.equal(r.messages[0].role, "user");
    assert.equal(r.messages[0].timestamp, 5);
    assert.ok(r.estimatedInputTokens + r.maxTokens <= budget.contextWindow);
    assert.equal(r.maxTokens, r.kind === "history" ? Math.min(Math.floor(0.8 * budget.requestHeadroom), budget.maxOutputTokens) : Math.min(Math.floor(0.5 * budget.requestHeadroom), budget.maxOutputTokens));
  }
  // the earlier trigger is opt-in
  const nearly = session(5);
  const t = dc.prepareDelegateTurn({ messages: nearly, budget, modelId: MODEL });
  const early = dc.prepareDelegateTurn({ messages: nearly, budget, modelId: MODEL, options: { earlyTrigger: true } });
  assert.equal(t.threshold, budget.hardLimit);
  assert.equal(early.threshold, budget.compactionTrigger);
  if (t.tokens >= budget.compactionTrigger && t.tokens < budget.hardLimit) {
    assert.equal(t.action, "unchanged");
    assert.equal(early.action, "summarize");
  }
});

test("compacted: brief verbatim first, then the summary, then the retained messages unchanged", () => {
  const ms = session(8);
  const before = structuredClone(ms);
  const p = dc.prepareDelegateTurn({ messages: ms, budget, modelId: MODEL });
  const answer = {};
  for (const r of p.requests) answer[r.kind] = `${r.kind} summary`;
  const out = dc.completeDelegateTurn({ messages: ms, budget, modelId: MODEL, answer, options: { now: 99 } });
  assert.deepEqual(ms, before, "input not mutated");
  assert.equal(out.outcome, "compacted");
  assert.equal(out.contextCompactions, 1);
  assert.equal(out.contextDegraded, false);
  assert.deepEqual(out.messages[0], ms[0], "brief verbatim, unknown fields kept");
  const s = out.messages[1];
  assert.equal(s.role, "compactionSummary");
  assert.equal(s.timestamp, 99);
  assert.equal(s.tokensBefore, out.tokensBefore);
  // one user message (the brief) makes the whole run one turn: pi's split-turn summary,
  // with "No prior history." where the history summary would be
  const kinds = p.requests.map((r) => r.kind);
  assert.ok(s.summary.startsWith(kinds.includes("history") ? "history summary" : "No prior history."));
  if (p.isSplitTurn) assert.match(s.summary, /\n\n---\n\n\*\*Turn Context \(split turn\):\*\*\n\nturnPrefix summary/);
  assert.match(s.summary, /<read-files>\nsrc\/f1\.ts\n/);
  assert.match(s.summary, /<modified-files>\nsrc\/f0\.ts\n/);
  const tail = out.messages.slice(2);
  assert.equal(tail.length, p.retainedMessages);
  assert.deepEqual(tail, ms.slice(ms.length - tail.length), "retained messages unchanged, host fields included");
  assert.equal(s.details.retainedMessages, tail.length);
  assert.ok(out.tokensAfter < budget.hardLimit);
  // no thrash: the next boundary leaves it alone
  assert.equal(dc.prepareDelegateTurn({ messages: out.messages, budget, modelId: MODEL }).action, "unchanged");
});

test("a failed summary degrades to the brief and the newest messages that fit, marked degraded", () => {
  const ms = session(8);
  const out = dc.completeDelegateTurn({ messages: ms, budget, modelId: MODEL, answer: { error: "timeout" } });
  assert.equal(out.outcome, "degraded");
  assert.equal(out.reason, "summaryFailed");
  assert.equal(out.summaryError, "timeout");
  assert.equal(out.contextDegraded, true);
  assert.ok(out.droppedMessages > 0);
  assert.deepEqual(out.messages[0], ms[0]);
  assert.equal(out.messages[1].role, "compactionSummary");
  assert.match(out.messages[1].summary, /^\[Context degraded\] \d+ earlier messages/);
  assert.notEqual(out.messages[2].role, "toolResult", "never starts with an orphan result");
  assert.ok(out.tokensAfter < budget.hardLimit);
});

test("even the brief does not fit: SUBAGENT_CONTEXT_OVERFLOW with the guidance text", () => {
  const ms = [{ role: "user", content: "z".repeat(4 * budget.hardLimit + 8), timestamp: 1 }];
  const e = expectCode(assert, () => dc.completeDelegateTurn({ messages: ms, budget, modelId: MODEL }), "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(e.name, "DelegateContextError");
  assert.equal(e.retriable, false);
  assert.equal(e.modelId, MODEL);
  assert.equal(e.hardLimit, budget.hardLimit);
  assert.equal(e.tokens, budget.hardLimit + 2);
  assert.equal(e.message, `The delegated task does not fit in the context window of model "${MODEL}", even after compaction and history reduction. Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once.`);
});

test("bad input throws INVALID_INPUT with a path, and the instance keeps working", () => {
  const ms = session(2);
  expectCode(assert, () => dc.prepareDelegateTurn({ messages: [ms[1]], budget, modelId: MODEL }), "INVALID_INPUT", "messages[0]");
  expectCode(assert, () => dc.prepareDelegateTurn({ messages: [], budget, modelId: MODEL }), "INVALID_INPUT", "messages");
  const bad = structuredClone(ms);
  bad[2].content = [{ type: "text", text: 5 }];
  expectCode(assert, () => dc.prepareDelegateTurn({ messages: bad, budget, modelId: MODEL }), "INVALID_INPUT", "messages[2].content");
  expectCode(assert, () => dc.prepareDelegateTurn({ messages: ms, budget: { hardLimit: "x" }, modelId: MODEL }), "INVALID_INPUT");
  expectCode(assert, () => dc.prepareDelegateTurn(null), "INVALID_INPUT", "input");
  expectCode(assert, () => dc.findCutPoint(ms, 0, ms.length + 1, 10), "INVALID_INPUT", "endIndex");
  expectCode(assert, () => dc.createPrepareNextTurn({ budget, modelId: MODEL, summarize: 3 }), "INVALID_INPUT", "summarize");
  // the same instance still works
  assert.equal(dc.prepareDelegateTurn({ messages: ms, budget, modelId: MODEL }).action, "unchanged");
  assert.deepEqual(dc.findCutPoint(ms, 0, ms.length, 1), { firstKeptEntryIndex: 0, turnStartIndex: -1, isSplitTurn: false }, "pi: a trailing result over budget keeps everything");
  assert.deepEqual(dc.findCutPoint(ms, 0, ms.length, 800), { firstKeptEntryIndex: 3, turnStartIndex: 0, isSplitTurn: true });
});

test("runDelegateTurn: compacts with the host's summarizer, degrades on rejection, rejects ABORTED on abort", async () => {
  const ms = session(8);
  const before = structuredClone(ms);
  const seen = [];
  const out = await dc.runDelegateTurn({
    messages: ms, budget, modelId: MODEL,
    summarize: async (request, signal) => {
      seen.push([request.kind, signal]);
      return { role: "assistant", content: [{ type: "text", text: `${request.kind} text` }], stopReason: "stop" };
    },
  });
  assert.equal(out.outcome, "compacted");
  assert.match(out.messages[1].summary, /^(history text|No prior history\.\n\n---\n\n\*\*Turn Context \(split turn\):\*\*\n\nturnPrefix text)/);
  assert.ok(["history", "turnPrefix"].includes(seen[0][0]));
  assert.deepEqual(ms, before);

  const rejected = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: () => Promise.reject(new Error("503 from provider")) });
  assert.equal(rejected.outcome, "degraded");
  assert.equal(rejected.summaryError, "503 from provider");
  const thrown = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: () => { throw new Error("sync throw"); } });
  assert.equal(thrown.outcome, "degraded");
  const errored = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: async () => ({ content: [], stopReason: "error", errorMessage: "overloaded" }) });
  assert.equal(errored.summaryError, "overloaded");
  const empty = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: async () => "   " });
  assert.equal(empty.outcome, "degraded", "an empty summary is a failure, not a success");

  const pre = new AbortController();
  pre.abort();
  let called = false;
  await assert.rejects(dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, signal: pre.signal, summarize: async () => { called = true; return "s"; } }), { code: "ABORTED" });
  assert.equal(called, false);
  const during = new AbortController();
  await assert.rejects(
    dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, signal: during.signal, summarize: async (_r, signal) => { during.abort(); assert.equal(signal.aborted, true); throw new Error("aborted"); } }),
    (e) => e.code === "ABORTED" && e.name === "DelegateContextError",
  );
  assert.deepEqual(ms, before, "an abort changes nothing");

  const small = session(1);
  const unchanged = await dc.runDelegateTurn({ messages: small, budget, modelId: MODEL, summarize: async () => assert.fail("not called") });
  assert.equal(unchanged.outcome, "unchanged");
  assert.deepEqual(unchanged.messages, small);
  await assert.rejects(
    dc.runDelegateTurn({ messages: [{ role: "user", content: "q".repeat(20000) }], budget, modelId: MODEL, summarize: async () => "s" }),
    { code: "SUBAGENT_CONTEXT_OVERFLOW" },
  );
  await assert.rejects(dc.runDelegateTurn({ messages: "nope", budget, modelId: MODEL, summarize: async () => "s" }), { code: "INVALID_INPUT", path: "messages" });
});

test("the hook keeps counts across turns and returns the next context", async () => {
  const reports = [];
  const hook = dc.createPrepareNextTurn({ budget, modelId: MODEL, summarize: async () => "sum", onOutcome: (r) => reports.push(r), options: { overheadTokens: 0 } });
  assert.equal(typeof hook, "function");
  const ctx = { context: { systemPrompt: "sys", messages: session(1), tools: [], extra: 1 }, message: {}, toolResults: [] };
  assert.equal(await hook(ctx), undefined);
  const big = { context: { systemPrompt: "sys", messages: session(8), tools: [], extra: 1 } };
  const next = await hook(big);
  assert.equal(next.context.systemPrompt, "sys");
  assert.equal(next.context.extra, 1);
  assert.equal(next.context.messages[1].role, "compactionSummary");
  const again = await hook({ context: { ...big.context, messages: [...next.context.messages, ...session(8).slice(1)] } });
  assert.ok(again);
  assert.deepEqual(reports.map((r) => [r.outcome, r.boundaries, r.contextCompactions, r.contextDegraded]), [
    ["unchanged", 1, 0, false],
    ["compacted", 2, 1, false],
    ["compacted", 3, 2, false],
  ]);
  // a previous summary is updated, not lost
  assert.match(again.context.messages[1].summary, /^sum/);
});

test("selectFallbackModel skips alternatives whose own window cannot hold the context", () => {
  const ms = session(8); // ~6,000 tokens
  const r = dc.selectFallbackModel({
    messages: ms,
    candidates: [
      { provider: "openai", id: "tiny", contextWindow: 8192, maxTokens: 1024, extra: "kept" },
      { provider: "anthropic", id: "mid", contextWindow: 16000, maxTokens: 4000 },
      { provider: "google", id: "huge", contextWindow: 1000000, maxTokens: 8000 },
    ],
  });
  assert.equal(r.index, 1);
  assert.equal(r.model.id, "mid");
  assert.equal(r.budget.hardLimit, dc.contextBudget({ contextWindow: 16000, maxTokens: 4000 }).hardLimit);
  assert.equal(r.modelFailures.length, 1);
  assert.equal(r.modelFailures[0].model, "openai/tiny");
  assert.equal(r.modelFailures[0].code, "SUBAGENT_CONTEXT_OVERFLOW", "as the host app records a window skip");
  assert.match(r.modelFailures[0].message, /does not fit/);
  const none = dc.selectFallbackModel({ messages: ms, candidates: [{ provider: "openai", id: "tiny", contextWindow: 8192 }] });
  assert.equal(none.model, null);
  assert.equal(none.modelFailures.length, 1);
  expectCode(assert, () => dc.selectFallbackModel({ messages: ms, candidates: [{ id: "x", contextWindow: -1 }] }), "INVALID_INPUT", "candidates[0].contextWindow");
});

test("classifyProviderError follows host-contract §5", () => {
  const e413 = Object.assign(new Error("Request Entity Too Large"), { status: 413 });
  assert.deepEqual(dc.classifyProviderError(e413), { code: "CONTEXT_TOO_LARGE", retriable: false, contextTooLarge: true });
  assert.equal(dc.classifyProviderError({ status: 400, message: "This model's maximum context length is 8192 tokens" }).code, "CONTEXT_TOO_LARGE");
  assert.equal(dc.classifyProviderError({ status: 400, message: "prompt is too long: 9000 tokens > 8192 maximum" }).contextTooLarge, true);
  assert.equal(dc.classifyProviderError({ statusCode: 422, message: "Input exceeds the model's token limit" }).contextTooLarge, true);
  assert.deepEqual(dc.classifyProviderError({ status: 400, message: "invalid schema" }), { code: null, retriable: false, contextTooLarge: false });
  assert.equal(dc.classifyProviderError({ status: 529, message: "overloaded" }).retriable, true);
  assert.equal(dc.classifyProviderError({ status: 500, message: "context window" }).contextTooLarge, false);
});

test("filterInheritedTools: the deny list, after normalising; new_context never passes", () => {
  const read = { name: "read", execute: async () => {}, parameters: {} };
  const newContext = { name: "new_context", execute: async () => {} };
  const r = dc.filterInheritedTools([read, "Task", newContext, "bash", "task_wait", { name: "ToolSearch" }, "asktool", "EnterPlanMode"]);
  assert.equal(r.tools.length, 2);
  assert.equal(r.tools[0], read, "the same tool object");
  assert.equal(r.tools[1], "bash");
  assert.deepEqual(r.denied, ["Task", "new_context", "task_wait", "ToolSearch", "asktool", "EnterPlanMode"]);
  assert.deepEqual(dc.subagentInheritDenyTools(), ["Task", "TaskWait", "TaskList", "TaskStop", "EnterPlanMode", "EnterGoalMode", "asktool", "new_context", "ToolSearch"]);
  expectCode(assert, () => dc.filterInheritedTools([{ label: "no name" }]), "INVALID_INPUT", "tools[0].name");
});

test("prepareCompaction and findCutPoint keep pi's names and fields", () => {
  const ms = session(6);
  const p = dc.prepareCompaction(ms, { reserveTokens: 16384, keepRecentTokens: 1000 });
  for (const k of ["messagesToSummarize", "turnPrefixMessages", "retainedTail", "isSplitTurn", "tokensBefore", "fileOps", "settings"]) assert.ok(k in p, k);
  assert.ok(Array.isArray(p.fileOps.read) && Array.isArray(p.fileOps.edited) && Array.isArray(p.fileOps.written));
  assert.equal(p.previousSummary, undefined);
  assert.equal(dc.prepareCompaction([], {}), undefined);
  const cut = dc.findCutPoint(ms, 0, ms.length, 1000);
  assert.deepEqual(Object.keys(cut).sort(), ["firstKeptEntryIndex", "isSplitTurn", "turnStartIndex"]);
});

test("a summary request that ends on its own is a failed summary: the turn degrades (clause 4)", async () => {
  const ms = session(8);
  const before = structuredClone(ms);
  // the summarizer's own request timed out (pi-ai resolves with stopReason "aborted") while the run's signal is quiet
  const timedOut = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, signal: new AbortController().signal,
    summarize: async () => ({ content: [], stopReason: "aborted", errorMessage: "Request timed out" }) });
  assert.equal(timedOut.outcome, "degraded");
  assert.equal(timedOut.reason, "summaryFailed");
  assert.equal(timedOut.summaryError, "Request timed out");
  // a fetch-style AbortError the host's own request raised
  const fetchAbort = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL,
    summarize: async () => { throw new DOMException("The operation was aborted.", "AbortError"); } });
  assert.equal(fetchAbort.outcome, "degraded");
  assert.equal(fetchAbort.contextDegraded, true);
  assert.deepEqual(ms, before);
});

test("an abort of the run's signal while the summary is pending rejects ABORTED at once, even if the summarizer never settles", async () => {
  const ms = session(8);
  const run = new AbortController();
  let asked = false;
  const pending = dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, signal: run.signal,
    summarize: () => { asked = true; return new Promise(() => {}); } }); // never settles, ignores its signal
  await new Promise((r) => setTimeout(r, 10));
  assert.ok(asked);
  run.abort();
  const t0 = Date.now();
  await assert.rejects(pending, { code: "ABORTED", name: "DelegateContextError" });
  assert.ok(Date.now() - t0 < 10000); // "at once": a hang guard, not a speed test (the summarizer never settles)
  // the Agent's own signal does the same through the hook
  const loop = new AbortController();
  const hook = dc.createPrepareNextTurn({ budget, modelId: MODEL, summarize: () => new Promise(() => {}) });
  const step = hook({ context: { systemPrompt: "s", messages: ms } }, loop.signal);
  await new Promise((r) => setTimeout(r, 10));
  loop.abort();
  await assert.rejects(step, { code: "ABORTED" });
});

test("the hook passes one signal that fires for the run's signal and for the Agent's own", async () => {
  const ms = session(8);
  const run = new AbortController();
  const loop = new AbortController();
  let seen;
  const hook = dc.createPrepareNextTurn({
    budget, modelId: MODEL, signal: run.signal,
    summarize: async (_request, signal) => {
      seen = signal;
      loop.abort(); // agent.abort() while the summary request runs
      assert.equal(signal.aborted, true, "the Agent's abort reaches the summary request");
      throw new DOMException("aborted", "AbortError");
    },
  });
  await assert.rejects(hook({ context: { systemPrompt: "s", messages: ms } }, loop.signal), { code: "ABORTED" });
  assert.ok(seen);
});

test("a rewritten context reuses the caller's own message objects: nothing is copied or lost", async () => {
  const ms = session(8);
  ms.at(-1).hostMap = new Map([["k", 1]]); // not expressible in JSON
  ms.at(-1).hostDate = new Date(0);
  const out = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: async () => "## Goal\nread" });
  assert.equal(out.outcome, "compacted");
  assert.equal(out.messages[0], ms[0], "the brief is the caller's object");
  assert.equal(out.messages.at(-1), ms.at(-1), "retained messages are the caller's objects");
  assert.ok(out.messages.at(-1).hostMap instanceof Map);
  assert.ok(out.messages.at(-1).hostDate instanceof Date);
  assert.equal(out.messages[1].role, "compactionSummary");
  const degraded = await dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: async () => { throw new Error("down"); } });
  assert.equal(degraded.outcome, "degraded");
  assert.equal(degraded.messages.at(-1), ms.at(-1));
});

test("the hook keeps a host's own options.now: the summary it writes carries that timestamp (issue 17 §1)", async () => {
  // the hook used to overwrite options.now with Date.now() at every boundary
  const hook = dc.createPrepareNextTurn({ budget, modelId: MODEL, summarize: async () => "## Goal\nread", options: { now: 4242 } });
  const next = await hook({ context: { systemPrompt: "s", messages: session(8), tools: [] } });
  assert.equal(next.context.messages[1].role, "compactionSummary");
  assert.equal(next.context.messages[1].timestamp, 4242);
  // without one, the step's clock
  const t0 = Date.now();
  const clocked = await dc.createPrepareNextTurn({ budget, modelId: MODEL, summarize: async () => "## Goal\nread" })({ context: { systemPrompt: "s", messages: session(8) } });
  assert.ok(clocked.context.messages[1].timestamp >= t0);
});

test("one boundary at a time: a runTurn holds its context from the call on, the hook refuses a second call (issue 17 §1)", async () => {
  const ctx = new dc.DelegateContext(session(8));
  let release;
  const pending = ctx.runTurn({ budget, modelId: MODEL, summarize: () => new Promise((r) => { release = r; }) });
  // at once, before the promise first runs: the context the boundary began from must not change
  expectCode(assert, () => ctx.push([{ role: "user", content: "late", timestamp: 1 }]), "INVALID_STATE");
  expectCode(assert, () => ctx.completeTurn({ budget, modelId: MODEL }), "INVALID_STATE");
  await assert.rejects(ctx.runTurn({ budget, modelId: MODEL, summarize: async () => "s" }), { code: "INVALID_STATE" });
  await new Promise((r) => setTimeout(r, 10));
  release("## Goal\nread");
  const out = await pending;
  assert.equal(out.outcome, "compacted");
  assert.equal(ctx.push([{ role: "user", content: "next", timestamp: 2 }]), out.messages.length + 1, "free again once it settled");
  // a runTurn whose configuration is refused holds nothing
  await assert.rejects(ctx.runTurn({ budget, modelId: MODEL, summarize: 3 }), { code: "INVALID_INPUT" });
  assert.equal(typeof ctx.push([]), "number");
  ctx.free();

  let settle;
  const hook = dc.createPrepareNextTurn({ budget, modelId: MODEL, summarize: () => new Promise((r) => { settle = r; }) });
  const first = hook({ context: { systemPrompt: "s", messages: session(8) } });
  await new Promise((r) => setTimeout(r, 10));
  await assert.rejects(hook({ context: { systemPrompt: "s", messages: session(8) } }), { code: "INVALID_STATE", message: /called again/ });
  settle("## Goal\nread");
  assert.ok(await first);
});

test("checkTurn: below the threshold the boundary is decided at once and counted, at or above it is left to runTurn", async () => {
  const ctx = new dc.DelegateContext(session(2));
  const out = ctx.checkTurn({ budget, modelId: MODEL });
  assert.equal(out.outcome, "unchanged");
  assert.ok(!("messages" in out), "the context is the caller's messages as they are");
  assert.ok(out.tokensBefore > 0 && out.tokensBefore < budget.hardLimit && out.tokensAfter === out.tokensBefore);
  assert.equal(ctx.run.boundaries, 1);
  // the same figures a full boundary would give
  const full = await ctx.runTurn({ budget, modelId: MODEL, summarize: async () => assert.fail("nothing to summarise") });
  assert.deepEqual({ ...full, messages: undefined }, { ...out, messages: undefined });
  assert.equal(ctx.run.boundaries, 2);

  const big = new dc.DelegateContext(session(8));
  assert.equal(big.checkTurn({ budget, modelId: MODEL }), undefined);
  assert.equal(big.run.boundaries ?? 0, 0, "a boundary left to runTurn is not counted twice");
  const compacted = await big.runTurn({ budget, modelId: MODEL, summarize: async () => "## Goal\nread" });
  assert.equal(compacted.outcome, "compacted");
  assert.equal(big.run.boundaries, 1);

  // a refused configuration names its path, and the handle keeps working
  const err = expectCode(assert, () => ctx.checkTurn({ budget: { ...budget, hardLimit: "x" }, modelId: MODEL }), "INVALID_INPUT");
  assert.match(err.path ?? err.message, /hardLimit/);
  assert.equal(ctx.checkTurn({ budget, modelId: MODEL }).outcome, "unchanged");
  // while a runTurn holds the context it is refused too
  const held = new dc.DelegateContext(session(8));
  let release;
  const pending = held.runTurn({ budget, modelId: MODEL, summarize: () => new Promise((r) => { release = r; }) });
  expectCode(assert, () => held.checkTurn({ budget, modelId: MODEL }), "INVALID_STATE");
  await new Promise((r) => setTimeout(r, 10));
  release("## Goal\nread");
  assert.equal((await pending).outcome, "compacted");
  assert.equal(held.checkTurn({ budget, modelId: MODEL }).outcome, "unchanged", "free again once it settled");
  ctx.free(); big.free(); held.free();
});

// A turn boundary's configuration crosses as one text and the last one decoded is kept:
// the same text again is not decoded again, but any change to the object (in place, a
// field of the budget, the model id, an option) is read, and a bad field is still named.
test("prepareTurn reads its configuration anew whenever it changed, in place or not", () => {
  const ctx = new dc.DelegateContext(session(8));
  const roomy = dc.contextBudget({ contextWindow: 200000, maxTokens: 8192 });
  const config = { budget: { ...roomy }, modelId: MODEL, options: { now: 5 } };
  assert.equal(ctx.prepareTurn(config).action, "unchanged");
  assert.equal(ctx.prepareTurn(config).action, "unchanged");
  Object.assign(config.budget, budget); // the same object, a small window now
  const plan = ctx.prepareTurn(config);
  assert.equal(plan.action, "summarize");
  assert.equal(plan.hardLimit, budget.hardLimit);
  assert.equal(plan.requests[0].messages[0].timestamp, 5);
  config.options.now = 9; // an option changed in place
  assert.equal(ctx.prepareTurn(config).requests[0].messages[0].timestamp, 9);
  config.budget.hardLimit = Number.NaN; // non-finite: named, not read as a string
  expectCode(assert, () => ctx.prepareTurn(config), "INVALID_INPUT", "config.budget.hardLimit");
  config.budget.hardLimit = budget.hardLimit;
  Object.defineProperty(config, "modelId", { get() { throw new Error("no model"); }, configurable: true });
  expectCode(assert, () => ctx.prepareTurn(config), "INVALID_INPUT", "config.modelId");
  Object.defineProperty(config, "modelId", { value: 7, configurable: true });
  expectCode(assert, () => ctx.prepareTurn(config), "INVALID_INPUT", "config.modelId");
  Object.defineProperty(config, "modelId", { value: MODEL, configurable: true });
  assert.equal(ctx.prepareTurn(config).action, "summarize");
  ctx.free();
});
