// Issue 7 part 7: no input kills the module. Tried as a hostile host would, through the
// built package: values nested thousands of levels deep, absurd numbers, getters that
// throw, revoked proxies, arrays whose length is 2^32 − 1. Every call answers or throws
// (or rejects) a DelegateContextError with a code; the same instance keeps working; no
// promise is left pending; and the same holds in a worker thread with a small stack.
import test from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { dc, root } from "./helpers.mjs";

const budget = dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 });
const brief = { role: "user", content: "Brief: read the files.", timestamp: 1 };

function deep(levels, leaf = 1) {
  let v = leaf;
  for (let i = 0; i < levels; i++) v = { a: [v] };
  return v;
}

/** The instance still answers a known call correctly. */
function stillWorks() {
  assert.equal(dc.contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit, 47616);
  assert.equal(dc.estimateTokens({ role: "user", content: "abcdefgh" }), 2);
}

/** `fn` returns, or throws a coded DelegateContextError; never anything else. */
function answersOrCodes(fn, label) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof Error, `${label}: threw ${e}`);
    assert.equal(e.name, "DelegateContextError", `${label}: ${e.message}`);
    assert.ok(e.code, label);
  }
  stillWorks();
}

/** `promise` settles within `ms` (resolves, or rejects with a coded error). */
async function settles(promise, label, ms = 5000) {
  let timer;
  const timeout = new Promise((_, reject) => (timer = setTimeout(() => reject(new Error(`${label}: still pending after ${ms} ms`)), ms)));
  try {
    await Promise.race([promise, timeout]);
  } catch (e) {
    if (String(e.message).includes("still pending")) throw e;
    assert.equal(e.name, "DelegateContextError", `${label}: ${e}`);
    assert.ok(e.code, label);
  } finally {
    clearTimeout(timer);
  }
  stillWorks();
}

test("values nested 2,000 and 10,000 levels deep never trap the module", async () => {
  for (const levels of [2000, 10000]) {
    const call = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: deep(levels) }], stopReason: "toolUse" };
    const result = { role: "toolResult", toolCallId: "c", toolName: "read", content: [{ type: "text", text: "x" }], details: deep(levels), isError: false, hostField: deep(levels) };
    const messages = [{ ...brief, extra: deep(levels) }, call, result];
    answersOrCodes(() => dc.estimateTokens(call), `estimateTokens ${levels}`);
    answersOrCodes(() => dc.estimateContextTokens(messages), `estimateContextTokens ${levels}`);
    answersOrCodes(() => dc.prepareDelegateTurn({ messages, budget, modelId: "m" }), `prepareDelegateTurn ${levels}`);
    answersOrCodes(() => dc.prepareCompaction(messages), `prepareCompaction ${levels}`);
    answersOrCodes(() => new dc.DelegateContext(messages).free(), `DelegateContext ${levels}`);
    answersOrCodes(() => dc.buildParentContext([{ id: "r", role: "tool", toolName: "read", toolCallId: "c", toolArgs: deep(levels), toolResult: deep(levels) }]), `buildParentContext ${levels}`);
    answersOrCodes(() => dc.DelegationRegistry.fromTranscript([{ id: "t", role: "tool", toolName: "task", toolCallId: "t", toolArgs: { agent: "x", task: "y", deep: deep(levels) }, toolResult: { details: { delegationId: "d", deep: deep(levels) } } }]).free(), `fromTranscript ${levels}`);
    answersOrCodes(() => dc.seedDelegateMessages({ brief: "b", rows: [{ id: "r", role: "user", content: "x", extra: deep(levels) }], binding: { provider: "p", model: "m" }, hardLimit: 1000 }), `seedDelegateMessages ${levels}`);
    answersOrCodes(() => dc.selectFallbackModel({ messages, candidates: [{ id: "m", contextWindow: 100000, extra: deep(levels) }] }), `selectFallbackModel ${levels}`);
    const hook = dc.createPrepareNextTurn({ budget, modelId: "m", summarize: async () => "s" });
    await settles(hook({ context: { systemPrompt: "s", messages, tools: [{ name: "t", parameters: deep(levels) }] } }), `hook ${levels}`);
    await settles(dc.runDelegateTurn({ messages, budget, modelId: "m", summarize: async () => "s" }), `runDelegateTurn ${levels}`);
  }
  // deep tool arguments (3,000 nesting levels, far beyond serde_json's 128) are read, not refused: their size is JSON.stringify's
  const call = { role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: deep(1500) }] };
  assert.equal(dc.estimateTokens(call), Math.ceil(("read".length + JSON.stringify(deep(1500)).length) / 4));
});

test("absurd numbers saturate to an answer that is still right", () => {
  const messages = [brief];
  for (const overheadTokens of [1e308, 1e20, 2 ** 53 + 1]) {
    const pick = dc.selectFallbackModel({ messages, overheadTokens, candidates: [{ provider: "p", id: "big", contextWindow: 2_000_000, maxTokens: 8192 }] });
    assert.equal(pick.model, null, `no window holds ${overheadTokens} tokens of overhead`);
    assert.equal(pick.modelFailures[0].code, "SUBAGENT_CONTEXT_OVERFLOW");
  }
  const usage = { role: "assistant", content: [{ type: "text", text: "ok" }], stopReason: "stop", usage: { totalTokens: 1e308 } };
  const p = dc.prepareDelegateTurn({ messages: [brief, usage], budget, modelId: "m" });
  assert.notEqual(p.action, "unchanged", "a usage of 1e308 tokens is over any limit");
  answersOrCodes(() => dc.prepareDelegateTurn({ messages: [brief], budget, modelId: "m", options: { overheadTokens: Infinity } }), "Infinity overhead");
  answersOrCodes(() => dc.contextBudget({ contextWindow: 1e308, maxTokens: 1e308 }), "1e308 window");
  stillWorks();
});

function throwingArray() {
  return new Proxy([], {
    get(target, key) {
      if (key === "length") throw new Error("getter boom");
      return target[key];
    },
  });
}

function revoked() {
  const { proxy, revoke } = Proxy.revocable([], {});
  revoke();
  return proxy;
}

test("throwing getters and revoked proxies at the top level are INVALID_INPUT with the path", () => {
  const withGetter = [brief, Object.defineProperty({ role: "assistant" }, "content", { get() { throw new Error("getter boom"); }, enumerable: true })];
  for (const [label, value] of [["throwing length", throwingArray()], ["revoked proxy", revoked()], ["throwing element", withGetter]]) {
    for (const [name, call] of [
      ["estimateContextTokens", () => dc.estimateContextTokens(value)],
      ["prepareCompaction", () => dc.prepareCompaction(value)],
      ["prepareDelegateTurn", () => dc.prepareDelegateTurn({ messages: value, budget, modelId: "m" })],
      ["buildParentContext", () => dc.buildParentContext(value)],
      ["filterInheritedTools", () => dc.filterInheritedTools(value)],
      ["DelegateContext", () => new dc.DelegateContext(value)],
    ]) {
      let thrown;
      try {
        call();
      } catch (e) {
        thrown = e;
      }
      if (thrown === undefined) continue; // a call that never reads the bad part
      assert.equal(thrown.name, "DelegateContextError", `${name} (${label}): ${thrown}`);
      assert.equal(thrown.code, "INVALID_INPUT", `${name} (${label})`);
      assert.ok(typeof thrown.path === "string" && thrown.path.length > 0, `${name} (${label}) names a path`);
    }
  }
  stillWorks();
});

test("a hook or runDelegateTurn given hostile input rejects with a code, never hangs", async () => {
  const hook = dc.createPrepareNextTurn({ budget, modelId: "m", summarize: async () => "s" });
  const getterContext = { get context() { throw new Error("getter boom"); } };
  for (const [label, ctx] of [
    ["a throwing getter", getterContext],
    ["a revoked proxy", { context: { messages: revoked() } }],
    ["a throwing array", { context: { messages: throwingArray() } }],
    ["a revoked context", { context: revoked() }],
  ]) {
    await settles(hook(ctx), `hook with ${label}`);
  }
  await settles(dc.runDelegateTurn({ messages: throwingArray(), budget, modelId: "m", summarize: async () => "s" }), "runDelegateTurn");
  await settles(dc.runDelegateTurn(revoked()), "runDelegateTurn(revoked)");
  // a summarizer whose answer has a throwing getter is a failed summary, not a crash
  const big = [brief];
  for (let i = 0; i < 8; i++) {
    big.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `f${i}` } }], stopReason: "toolUse" });
    big.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: "x".repeat(3000) }], isError: false });
  }
  const out = await dc.runDelegateTurn({ messages: big, budget, modelId: "m", summarize: async () => ({ get content() { throw new Error("boom"); } }) });
  assert.equal(out.outcome, "degraded");
});

test("an array whose length is 2^32 − 1 is refused before any work", async () => {
  const huge = [];
  huge.length = 2 ** 32 - 1;
  const t0 = performance.now();
  answersOrCodes(() => dc.prepareDelegateTurn({ messages: huge, budget, modelId: "m" }), "prepareDelegateTurn");
  answersOrCodes(() => dc.estimateContextTokens(huge), "estimateContextTokens");
  answersOrCodes(() => dc.buildParentContext(huge), "buildParentContext");
  await settles(dc.runDelegateTurn({ messages: huge, budget, modelId: "m", summarize: async () => "s" }), "runDelegateTurn");
  await settles(dc.createPrepareNextTurn({ budget, modelId: "m", summarize: async () => "s" })({ context: { messages: huge } }), "hook");
  assert.ok(performance.now() - t0 < 30000, `refused in ${performance.now() - t0} ms`); // a guard against walking 2^32 − 1 holes, not a speed test
});

test("the same hostile inputs in a worker thread with a 1 MB stack", async () => {
  const code = `
    const { parentPort } = require("node:worker_threads");
    const dc = require(${JSON.stringify(`${root}/pkg/node/delegate_context.js`)});
    let v = 1; for (let i = 0; i < 2000; i++) v = { a: [v] };
    const messages = [{ role: "user", content: "b", extra: v }, { role: "assistant", content: [{ type: "toolCall", id: "c", name: "read", arguments: v }] }];
    const results = [];
    for (const f of [() => dc.estimateContextTokens(messages), () => dc.prepareCompaction(messages), () => dc.buildParentContext([{ id: "r", role: "user", content: "x", extra: v }])]) {
      try { f(); results.push("ok"); } catch (e) { results.push(e.code ?? ("raw " + e)); }
    }
    results.push(dc.contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit);
    parentPort.postMessage(results);
  `;
  const worker = new Worker(code, { eval: true, resourceLimits: { stackSizeMb: 1 } });
  const results = await new Promise((resolve, reject) => {
    worker.on("message", resolve);
    worker.on("error", reject);
  });
  await worker.terminate();
  for (const r of results.slice(0, -1)) assert.ok(r === "ok" || r === "INVALID_INPUT", `in a worker: ${r}`);
  assert.equal(results.at(-1), 47616, "the instance in the worker still works");
});
