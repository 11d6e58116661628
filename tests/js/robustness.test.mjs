// Bad input never kills the instance: every export is fed hostile values (wrong types,
// missing fields, NaN/Infinity, negative and huge indices, cycles of ids, deep junk).
// Each call must either answer or throw a DelegateContextError with a stable `code`;
// a WebAssembly trap (a panic) fails the test, and after every call the same instance
// must still answer correctly.
import test from "node:test";
import assert from "node:assert/strict";
import { dc, expectCode } from "./helpers.mjs";

const CODES = new Set(["INVALID_INPUT", "SUBAGENT_CONTEXT_OVERFLOW", "ABORTED", "UNKNOWN_DELEGATION", "DELEGATION_RUNNING", "NOT_RESUMABLE", "AGENT_MISMATCH", "MODEL_ON_RESUME", "READ_BUDGET_EXCEEDED", "NO_HISTORY", "INVALID_STATE"]);

const msg = { role: "user", content: "brief", timestamp: 1 };
const JUNK = [
  undefined, null, 0, -1, NaN, Infinity, -Infinity, 1e308, "", "x", true, [], {}, [null], [1, 2], [{}], [msg, 5],
  { role: "user" }, { role: 5 }, [{ role: "assistant", content: [{ type: "toolCall" }] }], [{ role: "toolResult", content: [] }],
  [{ role: "assistant", content: "text", usage: { totalTokens: "big" } }], [{ role: "user", content: [{ type: "image" }] }],
  { messages: "x" }, { messages: [msg], budget: {} }, { messages: [], budget: dc.contextBudget({}), modelId: "m" },
  { messages: [msg], budget: { hardLimit: -5 }, modelId: 7 }, [{ id: 1, role: "user" }], [{ id: "1", role: "tool", toolArgs: "{not json" }],
  Symbol("s"), () => 1, new Date(0), Object.create(null), { length: 3 }, "[1,2]",
];

const show = (x) => {
  try {
    return typeof x === "symbol" ? x.toString() : JSON.stringify(x) ?? String(x);
  } catch {
    return Object.prototype.toString.call(x);
  }
};

function alive() {
  assert.equal(dc.estimateTokens({ role: "user", content: "abcd" }), 1);
  assert.equal(dc.contextBudget({}).hardLimit, 111616);
}

function probe(name, fn) {
  let out;
  try {
    out = fn();
  } catch (e) {
    assert.ok(e instanceof Error, `${name}: threw a non-Error ${String(e)}`);
    assert.ok(!(e instanceof WebAssembly.RuntimeError), `${name}: trapped: ${e.message}`);
    assert.ok(CODES.has(e.code), `${name}: an Error without a known code: ${e.code} ${e.message}`);
  }
  alive();
  return out;
}

async function probeAsync(name, fn) {
  try {
    await fn();
  } catch (e) {
    assert.ok(e instanceof Error && !(e instanceof WebAssembly.RuntimeError), `${name}: ${e}`);
    assert.ok(CODES.has(e.code), `${name}: an Error without a known code: ${e.code} ${e.message}`);
  }
  alive();
}

test("every free function answers or throws a coded Error for hostile input", async () => {
  const unary = ["estimateTokens", "calculateContextTokens", "estimateContextTokens", "contextBudget", "buildParentContext", "subagentResultForParent",
    "serializeConversation", "prepareDelegateTurn", "completeDelegateTurn", "selectFallbackModel", "classifyProviderError", "filterInheritedTools",
    "countChainReads", "seedDelegateMessages", "resolveResumeBinding", "formatResumableList", "prepareCompaction", "createPrepareNextTurn"];
  let calls = 0;
  for (const name of unary) {
    for (const x of JUNK) {
      probe(`${name}(${show(x)})`, () => dc[name](x));
      calls++;
    }
  }
  for (const x of JUNK) {
    for (const y of JUNK.slice(0, 12)) {
      probe("selectChainRows", () => dc.selectChainRows(x, y));
      probe("chainRowsToMessages", () => dc.chainRowsToMessages(x, y));
      probe("compactionPlans", () => dc.compactionPlans([msg], x, y));
      calls += 3;
    }
    await probeAsync("runDelegateTurn", () => dc.runDelegateTurn(x));
    calls++;
  }
  const ms = [msg, { role: "assistant", content: [{ type: "text", text: "a" }], stopReason: "stop" }];
  for (const [s, e, k] of [[0, 0, 1], [2, 1, 1], [-1, 2, 1], [0, 99, 1], [0.5, 1, 1], [NaN, 1, 1], [0, 2, NaN], [0, 2, -5], [0, 2, Infinity]]) {
    probe(`findCutPoint(${s},${e},${k})`, () => dc.findCutPoint(ms, s, e, k));
    calls++;
  }
  console.log(`# robustness: ${calls} hostile calls, no trap`);
});

test("the registry survives hostile calls and is never left half-updated", () => {
  const reg = new dc.DelegationRegistry();
  const run = reg.start({ toolCallId: "t1", agent: "explorer", task: "brief" });
  const before = () => JSON.stringify([reg.resumableList(), reg.resumablePrompt(), reg.chainCount]);
  for (const x of JUNK) {
    for (const m of ["start", "settle", "validateResume", "resolve", "chainConversation"]) {
      const snapshot = before();
      let threw = false;
      try {
        reg[m](x, x);
      } catch (e) {
        threw = true;
        assert.ok(!(e instanceof WebAssembly.RuntimeError) && CODES.has(e.code), `${m}(${show(x)}): ${e}`);
      }
      if (threw) assert.equal(before(), snapshot, `${m}(${show(x)}) threw but changed the registry`);
      alive();
    }
  }
  // self-resume, unknown statuses, double settle
  assert.throws(() => reg.start({ toolCallId: "t2", agent: "explorer", task: "again", resume: run.delegationId }), (e) => e.code === "DELEGATION_RUNNING");
  assert.throws(() => reg.settle({ delegationId: run.delegationId, status: "exploded" }), (e) => e.code === "INVALID_INPUT");
  reg.settle({ delegationId: run.delegationId, status: "completed" });
  assert.throws(() => reg.settle({ delegationId: run.delegationId, status: "completed" }), (e) => CODES.has(e.code));
  const rebuilt = dc.DelegationRegistry.fromTranscript([
    { id: "a", role: "tool", toolName: "Task", toolCallId: "a", toolArgs: { agent: "x", task: "t", resume: "B" }, toolResult: { details: { delegationId: "A", status: "completed" } } },
    { id: "b", role: "tool", toolName: "Task", toolCallId: "b", toolArgs: { agent: "x", task: "t", resume: "A" }, toolResult: { details: { delegationId: "B", status: "completed" } } },
    { id: "c", role: "tool", toolName: "Task", toolCallId: "c", toolArgs: { agent: "x", task: "t", resume: "C" }, toolResult: { details: { delegationId: "C", status: "weird" } } },
    { id: "d", role: "tool", toolName: "Task", toolCallId: "d", toolArgs: "{not json", toolResult: { details: { delegationId: "D" } } },
  ]);
  assert.ok(rebuilt.rebuildSkips().length >= 3, JSON.stringify(rebuilt.rebuildSkips()));
  rebuilt.free();
  reg.free();
  alive();
});

test("a bad value is named in JavaScript's words: what was expected, what came, numbers as JavaScript writes them (issue 36 §3)", () => {
  const budget = dc.contextBudget({ contextWindow: 8192 });
  const cases = [
    [() => dc.contextBudget({ contextWindow: true }), "model.contextWindow", "expected a number, got true"],
    [() => dc.contextBudget({ contextWindow: "8k" }), "model.contextWindow", 'expected a number, got "8k"'],
    [() => dc.contextBudget({ contextWindow: -1e-7 }), "model.contextWindow", "expected a finite number >= 0, got -1e-7"],
    [() => dc.messagesToRows(3), "input", "expected an object, got 3"],
    [() => dc.buildParentContext([{ id: 1 }]), "rows[0].id", "expected a string, got 1"],
    [() => dc.prepareDelegateTurn({ messages: [{ role: "user", content: 5 }], budget, modelId: "m" }), "messages[0].content", "expected a string or an array of blocks, got a number"],
    [() => dc.prepareDelegateTurn({ messages: [{ role: "user", content: "x", timestamp: "t" }], budget, modelId: "m" }), "messages[0].timestamp", "expected a number, got a string"],
  ];
  for (const [fn, path, words] of cases) {
    const e = expectCode(assert, fn, "INVALID_INPUT", path);
    assert.ok(e.message.endsWith(words), `${e.message} should end with ${words}`);
    assert.doesNotMatch(e.message, /invalid type|untagged enum|f64|struct \w+|`/);
  }
});
