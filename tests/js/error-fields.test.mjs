// The declared error is the thrown one (issue 15 item 4): for every code, the fields a
// thrown DelegateContextError carries are exactly the ones `DelegateContextErrorFields`
// declares for it in the built .d.ts (required ones always, optional ones when known), and
// `DelegateContextError` declares each of them. Both come from one table in src/error.rs.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dc, root } from "./helpers.mjs";

/** `{ CODE: { field: optional } }` and the `DelegateContextError` members, read from a .d.ts. */
function declared(file) {
  const dts = readFileSync(file, "utf8").replace(/\/\*\*[\s\S]*?\*\//g, "");
  const fields = /export interface DelegateContextErrorFields \{([\s\S]*?)\n\}/.exec(dts);
  assert.ok(fields, `DelegateContextErrorFields in ${file}`);
  const byCode = {};
  for (const [, code, body] of fields[1].matchAll(/^\s+(\w+): \{([^}]*)\};$/gm)) {
    byCode[code] = Object.fromEntries([...body.matchAll(/(\w+)(\??):/g)].map(([, name, q]) => [name, q === "?"]));
  }
  const error = /export interface DelegateContextError extends Error \{([\s\S]*?)\n\}/.exec(dts);
  const members = [...error[1].matchAll(/^\s+(\w+)\??:/gm)].map((m) => m[1]);
  const codes = [.../export type DelegateContextErrorCode = ([^;]*);/.exec(dts)[1].matchAll(/"(\w+)"/g)].map((m) => m[1]);
  return { byCode, members, codes };
}

function thrown(fn) {
  try {
    fn();
  } catch (e) {
    return e;
  }
  assert.fail("should throw");
}

async function rejected(promise) {
  try {
    await promise;
  } catch (e) {
    return e;
  }
  assert.fail("should reject");
}

/** One thrown error of every code, each with every optional field known. */
async function oneOfEach() {
  const reg = new dc.DelegationRegistry();
  const rows = [];
  let n = 0;
  const task = (agent, status, lines = 0, say = true) => {
    const toolCallId = `call-${++n}`;
    const run = reg.start({ toolCallId, agent, task: `task ${n}` }, rows);
    rows.push({ id: toolCallId, role: "tool", content: "", toolName: "Task", toolCallId, toolStatus: "success", toolArgs: { agent, task: `task ${n}` },
      toolResult: { details: { delegationId: run.delegationId, agent: run.agent, status: "running", modelId: "m" } } });
    const mine = [];
    if (lines) {
      mine.push({ id: `a-${n}`, role: "assistant", content: "", parentToolCallId: toolCallId, agentName: agent });
      mine.push({ id: `r-${n}`, role: "tool", content: "", toolName: "Read", toolCallId: `r-${n}`, toolArgs: { path: "huge.log" }, toolStatus: "success",
        toolResult: { content: [{ type: "text", text: "x\n".repeat(lines) }] }, parentToolCallId: toolCallId, agentName: agent });
    }
    if (say) mine.push({ id: `s-${n}`, role: "assistant", content: "ok", parentToolCallId: toolCallId, agentName: agent });
    rows.push(...mine);
    if (status) reg.settle({ delegationId: run.delegationId, status, reads: dc.countChainReads(mine), rows: mine });
    return run.delegationId;
  };
  const done = task("explorer", "completed");
  const running = task("coder", null);
  const stopped = task("reviewer", "stopped");
  const big = task("scout", "completed", 50_001);
  const empty = task("tester", "completed", 0, false);
  const v = (req, r) => () => reg.validateResume(req, r);
  const budget = dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 });
  const aborted = new AbortController();
  aborted.abort();
  const big_ = [{ role: "user", content: "brief", timestamp: 1 }, { role: "user", content: "x".repeat(40_000), timestamp: 2 }];
  return [
    thrown(() => dc.estimateContextTokens([{ role: "user", content: 5 }])),
    dc.errorForParent({ status: 413 }, { modelId: "m", tokens: 9000, hardLimit: 8000 }),
    await rejected(dc.runDelegateTurn({ messages: big_, budget, modelId: "m", signal: aborted.signal, summarize: async () => "s" })),
    thrown(v({ delegationId: "no-such-id", agent: "explorer" })),
    thrown(v({ delegationId: running, agent: "coder" })),
    thrown(v({ delegationId: stopped, agent: "reviewer" })),
    thrown(v({ delegationId: done, agent: "coder" })),
    thrown(v({ delegationId: done, agent: "explorer", model: "gpt-5" })),
    thrown(v({ delegationId: big, agent: "scout" })),
    thrown(v({ delegationId: empty, agent: "tester" }, rows)),
    thrown(() => reg.settle({ delegationId: "nope", status: "completed" })),
    thrown(() => dc.resolveDelegateModels({ model: "gpt-5", models: [{ id: "small-8k", provider: "local" }] })),
  ];
}

const BASE = ["stack", "message", "name", "code", "retriable"];

test("every code's thrown fields are the declared ones, in both builds' declarations", async () => {
  const errors = await oneOfEach();
  for (const build of ["node", "web"]) {
    const { byCode, members, codes } = declared(resolve(root, `pkg/${build}/delegate_context.d.ts`));
    assert.deepEqual(errors.map((e) => e.code), codes, "one thrown error per declared code, in order");
    assert.deepEqual(Object.keys(byCode), codes);
    for (const e of errors) {
      assert.ok(dc.isDelegateContextError(e), e.code);
      const own = Object.keys(e).filter((k) => !BASE.includes(k)).sort();
      assert.deepEqual(own, Object.keys(byCode[e.code]).sort(), `${e.code}: thrown ${own} vs declared ${Object.keys(byCode[e.code])}`);
      for (const f of own) assert.ok(members.includes(f), `${e.code}.${f} is not a member of DelegateContextError`);
    }
    // an optional field is left out when unknown; a required one never is
    const bare = dc.errorForParent({ status: 413 }, { modelId: "m" });
    assert.deepEqual(Object.keys(bare).filter((k) => !BASE.includes(k)), Object.keys(byCode.SUBAGENT_CONTEXT_OVERFLOW).filter((k) => !byCode.SUBAGENT_CONTEXT_OVERFLOW[k]));
    assert.ok(!members.includes("omitted"), "the old `omitted` is gone");
  }
});

test("isDelegateContextError is a guard for this library's errors only", () => {
  const e = thrown(() => dc.contextBudget({ contextWindow: "x" }));
  assert.equal(dc.isDelegateContextError(e), true);
  const lookalike = Object.assign(new Error("x"), { name: "DelegateContextError", code: "NOT_A_CODE" });
  const others = { error: new Error("x"), lookalike, plain: { name: "DelegateContextError", code: "INVALID_INPUT" }, null: null, undefined,
    string: "INVALID_INPUT", number: 5, throwingGetters: new Proxy(new Error("x"), { get() { throw new Error("getter"); } }) };
  for (const [what, x] of Object.entries(others)) assert.equal(dc.isDelegateContextError(x), false, what);
  const copy = Object.assign(new Error(e.message), { name: "DelegateContextError", code: e.code });
  assert.equal(dc.isDelegateContextError(copy), true, "an Error rebuilt with a known code (e.g. across a worker) counts");
});
