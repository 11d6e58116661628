// The pi Agent hook's cost per turn does not grow with the history (issue 16 item 3),
// pinned without timing: what the hook reads of the host's messages per call, counted by
// a Proxy around the array pi's Agent hands it, is the same over a 200-message and a
// 4,000-message history (the new messages and a fixed few), as `DelegateContext.push`
// reads only what is new. A replaced array is still read whole.
import test from "node:test";
import assert from "node:assert/strict";
import { dc } from "./helpers.mjs";

const budget = dc.contextBudget({ contextWindow: 100_000_000, maxTokens: 32_000 });
const usage = (n) => ({ input: n, output: 50, cacheRead: 0, cacheWrite: 0, totalTokens: n + 50, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });

/** One tool turn: an assistant that calls `read` (with provider usage) and its result. */
function turn(i) {
  return [
    {
      role: "assistant",
      content: [{ type: "text", text: `Reading file ${i}.` }, { type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `src/f${i}.ts` } }],
      api: "x", provider: "p", model: "m", stopReason: "toolUse", timestamp: 10 + i, usage: usage(1000 + 40 * i),
    },
    { role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: `file ${i}\n` + "line of code\n".repeat(20) }], isError: false, timestamp: 11 + i },
  ];
}

function history(turns) {
  const ms = [{ role: "user", content: "BRIEF: read every file.", timestamp: 1 }];
  for (let i = 0; i < turns; i++) ms.push(...turn(i));
  return ms;
}

/** `array` behind a Proxy that counts the reads of its elements. */
function counted(array) {
  const reads = { n: 0 };
  const proxy = new Proxy(array, {
    get(target, key, receiver) {
      if (typeof key === "string" && /^(0|[1-9]\d*)$/.test(key)) reads.n++;
      return Reflect.get(target, key, receiver);
    },
  });
  return { proxy, reads };
}

/** Element reads of each of `calls` hook calls after a history of `turns` turns, one new turn pushed before each call. */
async function readsPerCall(turns, calls = 5) {
  const target = history(turns);
  const { proxy, reads } = counted(target);
  const hook = dc.createPrepareNextTurn({ budget, modelId: "m", summarize: async () => "s" });
  const ctx = { context: { systemPrompt: "You are a delegate.", messages: proxy, tools: [] } };
  assert.equal(await hook(ctx), undefined); // loads the history
  const perCall = [];
  for (let k = 0; k < calls; k++) {
    target.push(...turn(turns + k)); // as pi's Agent appends: the same array, two new messages
    reads.n = 0;
    assert.equal(await hook(ctx), undefined);
    perCall.push(reads.n);
  }
  return perCall;
}

test("per hook call, the reads of the Agent's messages do not grow with the history", async () => {
  const small = await readsPerCall(100);
  const large = await readsPerCall(2_000);
  console.log(`# element reads per hook call: ${small.join(", ")} (201-message history), ${large.join(", ")} (4,001 messages)`);
  assert.deepEqual(large, small, "the same reads whatever the history's length");
  for (const n of large) assert.ok(n <= 2 + 4, `${n} element reads for 2 new messages`);
});

test("a replaced messages array is still read whole", async () => {
  const target = history(50);
  const reports = [];
  const hook = dc.createPrepareNextTurn({ budget, modelId: "m", summarize: async () => "s", onOutcome: (r) => reports.push(r) });
  assert.equal(await hook({ context: { systemPrompt: "s", messages: target, tools: [] } }), undefined);
  // the same messages in a new array, the last one a copy: not the array the hook knows
  const replaced = [...target.slice(0, -1), { ...target.at(-1) }, ...turn(50)];
  const { proxy, reads } = counted(replaced);
  assert.equal(await hook({ context: { systemPrompt: "s", messages: proxy, tools: [] } }), undefined);
  assert.ok(reads.n >= replaced.length, `${reads.n} element reads of a replaced ${replaced.length}-message array`);
  assert.equal(reports.length, 2);
});
