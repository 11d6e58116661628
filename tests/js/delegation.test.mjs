// Resumable delegations (ADR 0279, ADR 0299 clause 7) through the built package: the
// DelegationRegistry handle's whole lifecycle as a host drives it (including free()),
// a restart rebuilt from the rows the host wrote, every clause-4 error as an Error with
// `code`, the pure functions, seeds checked against pi-agent-core's own estimateTokens,
// and a few timings of the boundary.
import test from "node:test";
import assert from "node:assert/strict";
import { estimateTokens as piEstimateTokens } from "@earendil-works/pi-agent-core";
import { dc, expectCode } from "./helpers.mjs";

const { DelegationRegistry } = dc;

const HEADER =
  'Reusable subagent sessions (same conversation only). To continue one, pass its `resume` id on Task. Saying "reuse" in prose is not enough; omit `resume` to start a new session. Do not pass `model` when resuming.';

/** A minimal host: writes the rows the app would persist and drives the registry. */
class Host {
  constructor(reg = new DelegationRegistry()) {
    this.reg = reg;
    this.rows = [];
    this.n = 0;
    this.taskRows = new Map();
  }
  id(p) {
    return `${p}-${++this.n}`;
  }
  task(args) {
    const toolCallId = this.id("call");
    const run = this.reg.start({ toolCallId, ...args, binding: { key: "anthropic/claude-x", modelId: "claude-x" } }, this.rows);
    const row = {
      id: toolCallId, role: "tool", content: "", toolName: "Task", toolCallId, toolStatus: "success",
      toolArgs: { agent: args.agent, task: args.task, ...(args.description ? { description: args.description } : {}), ...(args.resume ? { resume: args.resume } : {}) },
      toolResult: { details: { delegationId: run.delegationId, agent: run.agent, status: "running", modelId: "claude-x", ...(run.resumedFrom ? { resumedFrom: run.resumedFrom } : {}) } },
    };
    this.rows.push(row);
    this.taskRows.set(run.delegationId, row);
    return run;
  }
  read(run, path, lines) {
    const parentToolCallId = run.toolCallIds.at(-1);
    const callId = this.id("read");
    this.rows.push({ id: this.id("a"), role: "assistant", content: "", thinking: `I should read ${path}`, parentToolCallId, agentName: run.agent });
    this.rows.push({
      id: callId, role: "tool", content: "", toolName: "Read", toolCallId: callId, toolArgs: { path }, toolStatus: "success",
      toolResult: { content: [{ type: "text", text: Array.from({ length: lines }, (_, i) => `line ${i}`).join("\n") }] },
      parentToolCallId, agentName: run.agent,
    });
  }
  say(run, text) {
    this.rows.push({ id: this.id("a"), role: "assistant", content: text, parentToolCallId: run.toolCallIds.at(-1), agentName: run.agent });
  }
  settle(run, status = "completed") {
    const runRows = this.rows.filter((r) => r.parentToolCallId === run.toolCallIds.at(-1));
    const out = this.reg.settle({ delegationId: run.delegationId, status, reads: dc.countChainReads(runRows), rows: runRows });
    const copy = structuredClone(this.taskRows.get(run.delegationId));
    copy.toolResult.details.status = status;
    this.rows.push(copy); // the settlement projection rewrites the row (later copy wins)
    return out;
  }
}

test("registry lifecycle: start, work, settle, list, resume, seed, conversation, free", () => {
  const host = new Host();
  const a = host.task({ agent: "Explorer", task: "Map the parser module", description: "parser map" });
  assert.match(a.delegationId, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  assert.equal(a.agent, "explorer");
  assert.deepEqual(a.diagnostics, []);
  assert.equal(host.reg.resumablePrompt(), "", "a running chain is never listed");
  host.read(a, "src/parser.rs", 120);
  host.say(a, "The parser is a Pratt parser.");
  const settled = host.settle(a);
  assert.deepEqual(settled, { delegationId: a.delegationId, status: "completed", resumable: true, evicted: [] });
  assert.equal(
    host.reg.resumablePrompt(),
    `${HEADER}\n- explorer / ${a.delegationId}: parser map\n  Files read: src/parser.rs`,
  );

  // resume (agent spelled differently, as the model may)
  const target = host.reg.validateResume({ delegationId: a.delegationId, agent: "explorer.md" }, host.rows);
  assert.equal(target.brief, "Map the parser module");
  assert.deepEqual(target.toolCallIds, a.toolCallIds);
  const b = host.task({ agent: "explorer.md", task: "Now the lexer", resume: a.delegationId });
  assert.equal(b.resumedFrom, a.delegationId);
  assert.equal(b.brief, "Map the parser module");
  assert.deepEqual(b.modelBinding, { key: "anthropic/claude-x", modelId: "claude-x" });

  // seed the resumed run within a budget
  const budget = dc.contextBudget({ contextWindow: 200000, maxTokens: 8192 });
  const seeded = dc.seedDelegateMessages({
    brief: b.brief, rows: host.rows, chain: { toolCallIds: b.toolCallIds, agent: b.agent },
    binding: { provider: "anthropic", model: "claude-x", api: "anthropic-messages" }, hardLimit: budget.hardLimit,
  });
  assert.equal(seeded.truncated, false);
  assert.deepEqual(seeded.messages.map((m) => m.role), ["user", "assistant", "toolResult", "assistant"]);
  assert.equal(seeded.messages[0].content[0].text, "Map the parser module");
  assert.equal(seeded.messages[1].content[1].type, "toolCall");
  assert.equal(seeded.messages[1].stopReason, "toolUse");
  assert.equal(seeded.tokens, seeded.messages.reduce((s, m) => s + piEstimateTokens(m), 0));

  host.read(b, "src/lexer.rs", 30);
  host.settle(b);
  const info = host.reg.resolve(a.delegationId);
  assert.equal(info.latestDelegationId, b.delegationId, "a middle id resolves to its chain");
  assert.deepEqual(info.reads, { files: ["src/parser.rs", "src/lexer.rs"], lines: 150 });

  // one conversation per chain (clause 13)
  const conv = host.reg.chainConversation(host.rows, b.delegationId);
  assert.deepEqual(conv.turns.map((t) => t.task), ["Map the parser module", "Now the lexer"]);
  assert.deepEqual(conv.turns.map((t) => t.rows.length), [3, 2]);

  // free(): the handle is gone, using it again throws instead of touching freed memory
  assert.equal(typeof host.reg[Symbol.dispose], "function");
  host.reg.free();
  assert.throws(() => host.reg.resumablePrompt());
});

test("restart: the registry rebuilt from the host's rows answers like the live one", () => {
  const host = new Host();
  const runs = [];
  for (const [agent, task] of [["explorer", "one"], ["coder", "two"], ["explorer", "three"], ["explorer", "four"], ["coder", "five"]]) {
    const r = host.task({ agent, task, description: `label ${task}` });
    host.read(r, `src/${task}.rs`, 10);
    host.settle(r, task === "two" ? "failed" : "completed");
    runs.push(r);
  }
  const r6 = host.task({ agent: "coder", task: "six", resume: runs[1].delegationId });
  host.say(r6, "done");
  host.settle(r6, "stopped");
  const rebuilt = DelegationRegistry.fromTranscript(host.rows);
  try {
    assert.equal(rebuilt.resumablePrompt(), host.reg.resumablePrompt());
    assert.deepEqual(rebuilt.resumableList(), host.reg.resumableList());
    assert.deepEqual(rebuilt.rebuildSkips(), []);
    for (const r of [...runs, r6]) {
      const req = { delegationId: r.delegationId, agent: r.agent };
      let live, again;
      try { live = host.reg.validateResume(req, host.rows); } catch (e) { live = e.code; }
      try { again = rebuilt.validateResume(req, host.rows); } catch (e) { again = e.code; }
      if (typeof live === "object") {
        delete live.recordedModel.key; // a rebuild cannot know the key, only the model id
        assert.deepEqual(again, live);
      } else assert.equal(again, live, r.delegationId);
    }
    // the evicted explorer chain and the stopped coder chain are not offered
    assert.equal(rebuilt.resumableList().length, 3);
  } finally {
    rebuilt.free();
    host.reg.free();
  }
});

test("every clause-4 row is an Error with a stable code", () => {
  const host = new Host();
  const done = host.task({ agent: "explorer", task: "done" });
  host.say(done, "ok");
  host.settle(done);
  const running = host.task({ agent: "coder", task: "busy" });
  const stopped = host.task({ agent: "reviewer", task: "stop me" });
  host.say(stopped, "partial");
  host.settle(stopped, "stopped");
  const big = host.task({ agent: "scout", task: "read everything" });
  host.read(big, "huge.log", 50001);
  host.settle(big);
  const empty = host.task({ agent: "tester", task: "nothing happens" });
  host.settle(empty);
  const v = (req, rows) => () => host.reg.validateResume(req, rows);

  let e = expectCode(assert, v({ delegationId: "no-such-id", agent: "explorer" }), "UNKNOWN_DELEGATION");
  assert.equal(e.name, "DelegateContextError");
  assert.equal(e.message, `Unknown delegation "no-such-id". Reusable: explorer / ${done.delegationId}.`);
  assert.deepEqual(e.resumable, [done.delegationId]);
  e = expectCode(assert, v({ delegationId: running.delegationId, agent: "coder" }), "DELEGATION_RUNNING");
  assert.equal(e.message, `Delegation ${running.delegationId} is still running, call TaskWait first`);
  e = expectCode(assert, v({ delegationId: stopped.delegationId, agent: "reviewer" }), "NOT_RESUMABLE");
  assert.equal(e.status, "stopped");
  e = expectCode(assert, v({ delegationId: done.delegationId, agent: "coder" }), "AGENT_MISMATCH");
  assert.equal(e.expected, "explorer");
  assert.equal(e.actual, "coder");
  expectCode(assert, v({ delegationId: done.delegationId, agent: "explorer", model: "gpt-5" }), "MODEL_ON_RESUME");
  e = expectCode(assert, v({ delegationId: big.delegationId, agent: "scout" }), "READ_BUDGET_EXCEEDED");
  assert.equal(e.lines, 50001);
  expectCode(assert, v({ delegationId: empty.delegationId, agent: "tester" }, host.rows), "NO_HISTORY");
  // start() refuses the same way, and writes nothing
  const before = host.reg.resumablePrompt();
  expectCode(assert, () => host.reg.start({ toolCallId: "x1", agent: "explorer", task: "t", resume: done.delegationId, model: "m" }), "MODEL_ON_RESUME");
  expectCode(assert, () => host.reg.start({ toolCallId: "x1", agent: "explorer", task: "t", resume: "nope" }), "UNKNOWN_DELEGATION");
  assert.equal(host.reg.resumablePrompt(), before);
  // interrupted: the app closed mid-run; the rebuild says so
  const rebuilt = DelegationRegistry.fromTranscript(host.rows);
  e = expectCode(assert, () => rebuilt.validateResume({ delegationId: running.delegationId, agent: "coder" }), "NOT_RESUMABLE");
  assert.equal(e.status, "interrupted");
  rebuilt.free();
  host.reg.free();
});

test("bad input: INVALID_INPUT with a path, and the handle keeps working", () => {
  const reg = new DelegationRegistry();
  const missing = expectCode(assert, () => reg.start({ toolCallId: "c", agent: "x" }), "INVALID_INPUT", "input");
  assert.match(missing.message, /missing field `task`/);
  expectCode(assert, () => reg.start({ toolCallId: "c", agent: "x", task: "   " }), "INVALID_INPUT", "input.task");
  expectCode(assert, () => reg.settle({ delegationId: "d", status: "exploded" }), "INVALID_INPUT", "input.status");
  expectCode(assert, () => reg.settle({ delegationId: "d", status: "completed" }), "INVALID_STATE");
  expectCode(assert, () => DelegationRegistry.fromTranscript([{ id: "1", role: "robot", parentToolCallId: "t" }]), "INVALID_INPUT", "rows[0].role");
  expectCode(assert, () => DelegationRegistry.fromTranscript([{ id: "p" }, { id: 7, role: "tool", toolName: "Task" }]), "INVALID_INPUT", "rows[1].id");
  expectCode(assert, () => DelegationRegistry.fromTranscript("rows"), "INVALID_INPUT", "rows");
  expectCode(assert, () => dc.seedDelegateMessages({ brief: "b", rows: [], binding: { provider: "p", model: "m" }, hardLimit: Infinity }), "INVALID_INPUT", "input.hardLimit");
  expectCode(assert, () => dc.resolveResumeBinding({ allowed: ["a/b"], definitionBinding: "oops" }), "INVALID_INPUT", "candidates.definitionBinding");
  // a transcript full of oddities rebuilds with documented skips, never a throw
  const odd = DelegationRegistry.fromTranscript([
    { id: "t1", role: "tool", toolName: "Task", toolCallId: "t1", toolArgs: "{broken", toolResult: { details: { delegationId: "D1", agent: "x", status: "completed" } } },
    { id: "t2", role: "tool", toolName: "Task", toolCallId: "t2", toolArgs: { agent: "x", task: "t", resume: "D2" }, toolResult: { details: { delegationId: "D2" } } },
    { id: "t3", role: "tool", toolName: "task", toolCallId: "t3", toolArgs: { agent: "x", task: "t" }, toolResult: { details: { delegationId: "D1" } } },
    { id: "t4", role: "tool", toolName: "Task", toolCallId: "t4", toolArgs: { agent: "x", task: "t" }, toolResult: { details: { error: "UNKNOWN_DELEGATION" } } },
  ]);
  assert.deepEqual(odd.rebuildSkips().map((s) => s.reason), ["CYCLE", "DUPLICATE_DELEGATION_ID", "NO_DELEGATION_ID"]);
  assert.equal(odd.chainCount, 1);
  assert.equal(odd.resumablePrompt(), "", "no brief recorded: nothing to list");
  odd.free();
  const run = reg.start({ toolCallId: "c", agent: "x", task: "fine" });
  assert.equal(run.agent, "x");
  reg.free();
});

test("pure functions: selection, conversion, reads, binding", () => {
  const rows = [
    { id: "t1", role: "tool", toolName: "Task", toolCallId: "t1", toolArgs: { agent: "explorer", task: "T" } },
    { id: "u", role: "user", content: "T", parentToolCallId: "t1", agentName: "explorer" },
    { id: "g", role: "tool", toolName: "Grep", toolCallId: "g", toolArgs: { pattern: "fn main" }, toolStatus: "running", parentToolCallId: "t1", agentName: "Explorer" },
    { id: "f", role: "assistant", content: "oops", status: "error", parentToolCallId: "t1", agentName: "explorer" },
    { id: "w", role: "tool", toolName: "write", toolCallId: "w", toolArgs: { path: "out" }, toolResult: "ok", parentToolCallId: "t1", agentName: "explorer" },
    { id: "o", role: "assistant", content: "other", parentToolCallId: "t1", agentName: "coder" },
  ];
  const sel = dc.selectChainRows(rows, { toolCallIds: ["t1"], agent: "explorer.md" });
  assert.deepEqual(sel.map((r) => r.id), ["u", "g", "f", "w"]);
  const ms = dc.chainRowsToMessages(sel, { provider: "openai", model: "gpt-5", api: "openai-responses" });
  assert.deepEqual(ms.map((m) => m.role), ["user", "assistant", "toolResult", "assistant", "toolResult"]);
  assert.equal(ms[2].content[0].text, "[tool call was interrupted before a result was recorded]");
  assert.equal(ms[2].isError, true);
  assert.equal(ms[3].stopReason, "toolUse", "a carrier is synthesised after the failed assistant");
  assert.equal(ms[3].model, "gpt-5");
  assert.deepEqual(dc.countChainReads(sel), { files: ["fn main"], lines: 0 });
  const b = dc.resolveResumeBinding({ recordedModelId: "gpt-5", allowed: ["acct1/o3", "acct2/gpt-5"], definitionBinding: "acct1/o3" });
  assert.deepEqual(b, { key: "acct2/gpt-5", providerId: "acct2", modelId: "gpt-5", source: "modelId" });
  const gone = dc.resolveResumeBinding({ recordedKey: "old/gpt-4", allowed: [], definitionBinding: "acct1/o3" });
  assert.equal(gone.modelChangedFrom, "gpt-4");
  assert.equal(dc.formatResumableList([]), "");
});

test("seeds fit hardLimit by pi's own estimateTokens, oldest tool results dropped first", () => {
  const host = new Host();
  const r = host.task({ agent: "explorer", task: "Survey the repository" });
  for (let i = 0; i < 40; i++) host.read(r, `src/f${i}.rs`, 200);
  host.say(r, "Summary: all forty files read.");
  host.settle(r);
  for (const hardLimit of [100000, 20000, 5000, 500, 3]) {
    const s = dc.seedDelegateMessages({ brief: r.brief, rows: host.rows, chain: { toolCallIds: r.toolCallIds, agent: r.agent }, binding: { provider: "p", model: "m" }, hardLimit });
    const total = s.messages.reduce((n, m) => n + piEstimateTokens(m), 0);
    assert.equal(total, s.tokens);
    if (s.briefOverLimit) assert.equal(s.messages.length, 1);
    else assert.ok(total < hardLimit, `${total} < ${hardLimit}`);
    assert.equal(s.messages[0].content[0].text, "Survey the repository");
    const calls = new Set(s.messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((c) => c.type === "toolCall").map((c) => c.id) : [])));
    const results = s.messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId);
    assert.deepEqual([...calls].sort(), [...results].sort(), "every call answered, no orphan result");
    if (s.truncated && results.length) {
      // the survivors are the newest reads
      const kept = s.messages.filter((m) => m.role === "toolResult").map((m) => m.toolCallId);
      assert.ok(s.dropped.toolCallIds.every((id) => Number(id.split("-")[1]) < Number(kept[0].split("-")[1])));
    }
  }
  host.reg.free();
});

test("measured: boundary cost of a rebuild and a resume on a large transcript", () => {
  const host = new Host();
  let last;
  for (let i = 0; i < 200; i++) {
    const r = host.task({ agent: ["explorer", "coder", "reviewer"][i % 3], task: `task ${i}`, description: `label ${i}` });
    for (let j = 0; j < 10; j++) host.read(r, `src/${i}/${j}.rs`, 20);
    host.say(r, `finished ${i}`);
    host.settle(r);
    last = r;
  }
  const n = host.rows.length;
  let t = performance.now();
  const rebuilt = DelegationRegistry.fromTranscript(host.rows);
  const rebuildMs = performance.now() - t;
  t = performance.now();
  const target = rebuilt.validateResume({ delegationId: last.delegationId, agent: last.agent }, host.rows);
  const validateMs = performance.now() - t;
  const chainRows = dc.selectChainRows(host.rows, { toolCallIds: target.toolCallIds, agent: target.agent });
  t = performance.now();
  const seeded = dc.seedDelegateMessages({ brief: target.brief, rows: chainRows, binding: { provider: "p", model: "m" }, hardLimit: 100000 });
  const seedMs = performance.now() - t;
  t = performance.now();
  for (let i = 0; i < 100; i++) rebuilt.resumablePrompt();
  const promptUs = ((performance.now() - t) / 100) * 1000;
  console.log(`# ${n} rows: fromTranscript ${rebuildMs.toFixed(1)} ms, validateResume(+rows) ${validateMs.toFixed(1)} ms, seed of ${seeded.messages.length} messages ${seedMs.toFixed(2)} ms, resumablePrompt ${promptUs.toFixed(0)} µs`);
  assert.equal(rebuilt.resumableList().length, 6, "2 per agent");
  rebuilt.free();
  host.reg.free();
});

test("review findings: a run that left only an echo of its brief has no history; blank fields fall through", () => {
  const reg = new DelegationRegistry();
  const rows = [];
  const run = reg.start({ toolCallId: "t1", agent: "explorer", task: "T" }, rows);
  rows.push({ id: "u", role: "user", content: "T", parentToolCallId: "t1", agentName: "explorer" });
  rows.push({ id: "a", role: "assistant", content: "", status: "error", parentToolCallId: "t1", agentName: "explorer" });
  reg.settle({ delegationId: run.delegationId, status: "failed", rows });
  assert.equal(reg.resumablePrompt(), "", "never listed (ADR 0279 clause 4, last row)");
  expectCode(assert, () => reg.validateResume({ delegationId: run.delegationId, agent: "explorer" }, rows), "NO_HISTORY");
  reg.free();
  // `path || file_path || pattern`, and an empty text result is no result
  const reads = dc.countChainReads([{ id: "r", role: "tool", toolName: "Read", toolCallId: "r", toolArgs: { path: "", file_path: "a.rs" }, toolResult: "x" }]);
  assert.deepEqual(reads.files, ["a.rs"]);
  const ms = dc.chainRowsToMessages([{ id: "r", role: "tool", toolName: "read", toolCallId: "r", toolArgs: {}, toolResult: { content: [{ type: "text", text: "" }] } }], { provider: "p", model: "m" });
  assert.equal(ms.at(-1).content[0].text, "[no tool result recorded]");
});

test("non-ASCII agent names never break the registry (a panic would kill the instance)", () => {
  const reg = new DelegationRegistry();
  for (const agent of ["Аналитик", "search 🔍", "日x", "日.md"]) {
    const run = reg.start({ toolCallId: `t-${agent}`, agent, task: "brief" });
    reg.settle({ delegationId: run.delegationId, status: "completed" });
  }
  const rebuilt = DelegationRegistry.fromTranscript([
    { id: "t", role: "tool", toolName: "Task", toolCallId: "t", toolArgs: { agent: "Аналитик", task: "x" }, toolResult: { details: { delegationId: "D", status: "completed" } } },
  ]);
  assert.equal(rebuilt.resolve("D").agent, "аналитик");
  rebuilt.free();
  reg.free();
});

test("a seed never carries an earlier request's usage, truncated or not (ADR 0299 clause 7)", () => {
  const rows = [
    { id: "a1", role: "assistant", content: "found it", usage: { inputTokens: 150000, outputTokens: 10, totalTokens: 150010 }, parentToolCallId: "t1", agentName: "explorer" },
  ];
  const seed = dc.seedDelegateMessages({ brief: "B", rows, chain: { toolCallIds: ["t1"], agent: "explorer" }, binding: { provider: "p", model: "m" }, hardLimit: 100000 });
  assert.equal(seed.truncated, false);
  assert.equal(seed.messages[1].usage.totalTokens, 0);
  // so the first boundary judges the seeded context by its own size
  const budget = dc.contextBudget({ contextWindow: 128000, maxTokens: 8192 });
  assert.equal(dc.prepareDelegateTurn({ messages: seed.messages, budget, modelId: "m" }).action, "unchanged");
});

// ---------------------------------------------------------------------------------------
// Issue 7: regressions through the built package (each failed before its fix).

test("clause 7 counts reusable chains: stopped and over-budget chains never evict a resumable one", () => {
  const host = new Host();
  const keep = [];
  for (const task of ["one", "two"]) {
    const r = host.task({ agent: "explorer", task });
    host.say(r, `did ${task}`);
    host.settle(r);
    keep.push(r.delegationId);
  }
  for (const status of ["stopped", "aborted", "interrupted"]) {
    const r = host.task({ agent: "explorer", task: status });
    host.say(r, "partial");
    host.settle(r, status);
  }
  const big = host.task({ agent: "explorer", task: "read it all" });
  host.read(big, "huge.log", 50001);
  host.settle(big);
  assert.deepEqual(host.reg.resumableList().map((c) => c.delegationId), [...keep].reverse());
  // the two newest that cannot be resumed are kept and answer their own code
  expectCode(assert, () => host.reg.validateResume({ delegationId: big.delegationId, agent: "explorer" }, host.rows), "READ_BUDGET_EXCEEDED");
  assert.equal(host.reg.chainCount, 4);
  // and a rebuild from the transcript agrees
  const rebuilt = DelegationRegistry.fromTranscript(host.rows);
  assert.deepEqual(rebuilt.resumableList(), host.reg.resumableList());
  assert.equal(rebuilt.chainCount, host.reg.chainCount);
  rebuilt.free();
  host.reg.free();
});

test("clause 4: a wrong agent is AGENT_MISMATCH while the chain runs; NO_HISTORY lists what remains and is answered once", () => {
  const host = new Host();
  const done = host.task({ agent: "coder", task: "fix it" });
  host.say(done, "fixed");
  host.settle(done);
  const running = host.task({ agent: "explorer", task: "look" });
  let e = expectCode(assert, () => host.reg.validateResume({ delegationId: running.delegationId, agent: "coder" }), "AGENT_MISMATCH");
  assert.equal(e.expected, "explorer");
  expectCode(assert, () => host.reg.validateResume({ delegationId: running.delegationId, agent: "explorer" }), "DELEGATION_RUNNING");
  host.rows.push({ id: "boom", role: "assistant", content: "boom", status: "error", parentToolCallId: running.toolCallIds[0], agentName: "explorer" });
  host.settle(running);
  e = expectCode(assert, () => host.reg.validateResume({ delegationId: running.delegationId, agent: "explorer" }, host.rows), "NO_HISTORY");
  assert.deepEqual(e.resumable, [done.delegationId]);
  assert.equal(e.resumableOmitted, 0);
  assert.match(e.message, /no recorded history to resume; start a new delegation\. Reusable: coder \/ /);
  expectCode(assert, () => host.reg.validateResume({ delegationId: running.delegationId, agent: "explorer" }, host.rows), "UNKNOWN_DELEGATION");
  host.reg.free();
});

test("tool names fold case: rEaD, READ, browserPREVIEW, TASK are the read-only and Task tools", () => {
  const reads = dc.countChainReads([
    { id: "1", role: "tool", toolName: "rEaD", toolCallId: "1", toolArgs: { path: "a" }, toolResult: "x\ny" },
    { id: "2", role: "tool", toolName: "READ", toolCallId: "2", toolArgs: { path: "b" }, toolResult: "x" },
    { id: "3", role: "tool", toolName: "browserPREVIEW", toolCallId: "3", toolArgs: { path: "c" }, toolResult: "x" },
    { id: "4", role: "tool", toolName: "Browser_Preview", toolCallId: "4", toolArgs: { path: "d" }, toolResult: "x" },
  ]);
  assert.deepEqual(reads, { files: ["a", "b", "c", "d"], lines: 5 });
  const reg = DelegationRegistry.fromTranscript([
    { id: "t", role: "tool", toolName: "TASK", toolCallId: "t", toolArgs: { agent: "x", task: "T" }, toolResult: { details: { delegationId: "D", status: "completed" } } },
    { id: "a", role: "assistant", content: "done", parentToolCallId: "t", agentName: "x" },
  ]);
  assert.deepEqual(reg.resumableList().map((c) => c.delegationId), ["D"]);
  reg.free();
});

test("a rebuild skip names the row's index in the whole transcript", () => {
  const rows = [
    { id: "u", role: "user", content: "parent talks" },
    { id: "a", role: "assistant", content: "parent answers" },
    { id: "t1", role: "tool", toolName: "Task", toolCallId: "t1", toolArgs: { agent: "x", task: "T" }, toolResult: { details: { error: "UNKNOWN_DELEGATION" } } },
  ];
  const reg = DelegationRegistry.fromTranscript(rows);
  assert.deepEqual(reg.rebuildSkips(), [{ index: 2, toolCallId: "t1", reason: "NO_DELEGATION_ID" }]);
  reg.free();
});

test("one row rule in the core and the binding: a Task row whose toolCallId is blank is known by its id", () => {
  const rows = [
    { id: "t1", role: "tool", toolName: "Task", toolCallId: "", toolArgs: { agent: "explorer", task: "T" }, toolResult: { details: { delegationId: "D1", status: "completed" } } },
    { id: "a", role: "assistant", content: "found", parentToolCallId: "t1", agentName: "explorer" },
  ];
  const reg = DelegationRegistry.fromTranscript(rows);
  const conv = reg.chainConversation(rows, "D1");
  assert.equal(conv.turns[0].toolCallId, "t1");
  assert.equal(conv.turns[0].taskRow?.id, "t1", "the Task row is found through wasm as natively");
  assert.deepEqual(conv.turns[0].rows.map((r) => r.id), ["a"]);
  reg.free();
});

test("ADR 0299 clause 7: a seed plus the request overhead starts below hardLimit", () => {
  const budget = dc.contextBudget({ contextWindow: 32000, maxTokens: 8000 });
  assert.equal(budget.hardLimit, 16000);
  const host = new Host();
  const r = host.task({ agent: "explorer", task: "Survey the parser" });
  for (let i = 0; i < 7; i++) {
    const callId = `read-${i}`;
    host.rows.push({ id: host.id("a"), role: "assistant", content: "", parentToolCallId: r.toolCallIds[0], agentName: "explorer" });
    host.rows.push({ id: callId, role: "tool", content: "", toolName: "read", toolCallId: callId, toolArgs: { path: `f${i}` }, toolStatus: "success",
      toolResult: { content: [{ type: "text", text: "x".repeat(8800) }] }, parentToolCallId: r.toolCallIds[0], agentName: "explorer" });
  }
  host.say(r, "All read.");
  host.settle(r);
  const seedWith = (extra) => dc.seedDelegateMessages({ brief: r.brief, rows: host.rows, chain: { toolCallIds: r.toolCallIds, agent: r.agent }, binding: { provider: "p", model: "m" }, hardLimit: budget.hardLimit, ...extra });
  const bare = seedWith({});
  assert.equal(bare.truncated, false);
  assert.ok(bare.tokens > 13000 && bare.tokens < 16000, `${bare.tokens}`); // fits alone, not with 3,000 of overhead
  // the pi hook counts the system prompt and tools of every request
  const systemPrompt = "s".repeat(10000);
  const tools = [{ name: "read", description: "d".repeat(1950), parameters: { type: "object" } }];
  const overhead = Math.ceil((systemPrompt.length + JSON.stringify(tools).length) / 4);
  for (const seed of [seedWith({ systemPrompt, tools }), seedWith({ overheadTokens: overhead })]) {
    assert.equal(seed.overheadTokens, overhead);
    assert.equal(seed.truncated, true);
    assert.ok(seed.tokens + overhead < budget.hardLimit, `${seed.tokens} + ${overhead}`);
    assert.equal(seed.messages[0].content[0].text, "Survey the parser");
    // so the first turn boundary does not compact it
    const plan = dc.prepareDelegateTurn({ messages: seed.messages, budget, modelId: "m", options: { overheadTokens: overhead } });
    assert.equal(plan.action, "unchanged");
  }
  expectCode(assert, () => seedWith({ overheadTokens: 5, systemPrompt }), "INVALID_INPUT", "input.overheadTokens");
  expectCode(assert, () => seedWith({ overheadTokens: -1 }), "INVALID_INPUT", "input.overheadTokens");
  host.reg.free();
});

test("resumeParameterSchema: the library's words for the Task tool's resume parameter", () => {
  const schema = dc.resumeParameterSchema();
  assert.deepEqual(Object.keys(schema), ["type", "description"]);
  assert.equal(schema.type, "string");
  assert.match(schema.description, /requires this id/);
  assert.match(schema.description, /prose resumes nothing/);
  assert.match(schema.description, /do not pass `model`/);
});

test("a registry of 20,000 chains: settles stay quick, an unknown-id error stays short", () => {
  const reg = new DelegationRegistry();
  const t = performance.now();
  for (let i = 0; i < 20000; i++) {
    const run = reg.start({ toolCallId: `t${i}`, agent: `agent-${i}`, task: "x" });
    reg.settle({ delegationId: run.delegationId, status: "completed", reads: { files: [], lines: 1 } });
  }
  const ms = performance.now() - t;
  console.log(`# 20,000 start+settle pairs through wasm: ${ms.toFixed(0)} ms`);
  assert.ok(ms < 120000, `${ms} ms`); // a guard against the quadratic registry (181 s before issue 7), not a speed test
  const e = expectCode(assert, () => reg.validateResume({ delegationId: "no-such-id", agent: "x" }), "UNKNOWN_DELEGATION");
  assert.ok(e.message.length < 2000, `${e.message.length} characters`);
  assert.match(e.message, /\(\+19980 more\)\.$/);
  assert.equal(e.resumable.length, 20);
  assert.equal(e.resumableOmitted, 19980);
  reg.free();
});

// ---------------------------------------------------------------------------------------
// Hostile host values: a thrown error with a code and a path, never a trap, and the
// module keeps working afterwards.

function stillWorks() {
  const reg = new DelegationRegistry();
  const run = reg.start({ toolCallId: "ok", agent: "x", task: "t" });
  assert.equal(reg.settle({ delegationId: run.delegationId, status: "completed" }).status, "completed");
  reg.free();
  assert.deepEqual(dc.countChainReads([]), { files: [], lines: 0 });
}

test("rows that throw when read: INVALID_INPUT with the path of the value", () => {
  const revoked = Proxy.revocable([], {});
  revoked.revoke();
  const lengthThrows = new Proxy([], { get(target, key) { if (key === "length") throw new Error("no length"); return Reflect.get(target, key); } });
  const elementThrows = [{ id: "1", role: "user", content: "" }];
  Object.defineProperty(elementThrows, 1, { get() { throw new Error("no row"); }, enumerable: true });
  const fieldThrows = [{ id: "1", get role() { throw new Error("no role"); }, get parentToolCallId() { throw new Error("no parent"); } }];
  const cases = [
    [revoked.proxy, /^rows$/],
    [lengthThrows, /^rows\.length$/],
    [elementThrows, /^rows\[1\]$/],
    // each function reads the fields its row rule needs, and decodes what it keeps
    [fieldThrows, /^rows\[0\](\.parentToolCallId|\.role)?$/],
  ];
  for (const [rows, path] of cases) {
    const calls = [
      () => DelegationRegistry.fromTranscript(rows),
      () => dc.countChainReads(rows),
      () => dc.selectChainRows(rows, { toolCallIds: ["t"], agent: "x" }),
      () => dc.chainRowsToMessages(rows, { provider: "p", model: "m" }),
    ];
    for (const call of calls) {
      const e = expectCode(assert, call, "INVALID_INPUT");
      assert.match(e.path, path, e.message);
      assert.match(e.message, /threw|not JSON data/);
    }
    stillWorks();
  }
  // `rows` inside an input object, and a whole input that is a revoked Proxy
  const reg = new DelegationRegistry();
  const run = reg.start({ toolCallId: "t", agent: "x", task: "T" });
  expectCode(assert, () => reg.settle({ delegationId: run.delegationId, status: "completed", get rows() { throw new Error("no rows"); } }), "INVALID_INPUT", "input.rows");
  expectCode(assert, () => reg.settle({ delegationId: run.delegationId, status: "completed", rows: revoked.proxy }), "INVALID_INPUT", "input.rows");
  expectCode(assert, () => reg.settle(revoked.proxy), "INVALID_INPUT");
  expectCode(assert, () => dc.seedDelegateMessages({ brief: "b", get rows() { throw new Error("no rows"); }, binding: { provider: "p", model: "m" }, hardLimit: 10 }), "INVALID_INPUT", "input.rows");
  expectCode(assert, () => dc.seedDelegateMessages({ brief: "b", rows: lengthThrows, binding: { provider: "p", model: "m" }, hardLimit: 10 }), "INVALID_INPUT", "input.rows.length");
  expectCode(assert, () => reg.validateResume({ delegationId: run.delegationId, agent: "x" }, revoked.proxy), "INVALID_INPUT", "rows");
  assert.equal(reg.settle({ delegationId: run.delegationId, status: "completed" }).status, "completed", "the handle still works");
  reg.free();
  stillWorks();
});

test("rows with deeply nested values: INVALID_INPUT with a path or accepted, never a trap", () => {
  const nest = (depth) => {
    let v = "leaf";
    for (let i = 0; i < depth; i++) v = { v };
    return v;
  };
  const task = { id: "t", role: "tool", toolName: "Task", toolCallId: "t", toolArgs: { agent: "x", task: "T" }, toolResult: { details: { delegationId: "D", status: "completed" } } };
  for (const depth of [2000, 5000, 20000]) {
    const deep = nest(depth);
    for (const field of ["toolArgs", "toolResult", "custom"]) {
      const row = { id: "r", role: "tool", toolName: "read", toolCallId: "r", toolArgs: { path: "a" }, toolResult: "x", parentToolCallId: "t", agentName: "x", [field]: deep };
      const calls = [
        () => DelegationRegistry.fromTranscript([task, row]).free(),
        () => dc.countChainReads([row]),
        () => dc.selectChainRows([row], { toolCallIds: ["t"], agent: "x" }),
        () => dc.chainRowsToMessages([row], { provider: "p", model: "m" }),
        () => dc.seedDelegateMessages({ brief: "T", rows: [row], binding: { provider: "p", model: "m" }, hardLimit: 1e9 }),
      ];
      for (const call of calls) {
        try {
          call();
        } catch (e) {
          assert.equal(e.name, "DelegateContextError", `depth ${depth} ${field}: ${e}`);
          assert.equal(e.code, "INVALID_INPUT");
          assert.match(e.path, /rows\[\d+\]/);
        }
        stillWorks();
      }
    }
  }
});

test("generated types: statuses the library returns as null are typed `string | null`", async () => {
  const { readFileSync } = await import("node:fs");
  const { resolve } = await import("node:path");
  const { root } = await import("./helpers.mjs");
  const dts = readFileSync(resolve(root, "pkg/node/delegate_context.d.ts"), "utf8");
  for (const name of ["ResumeTarget", "ResumableChain", "ChainInfo", "ChainTurn"]) {
    const body = dts.match(new RegExp(`export interface ${name} \\{([\\s\\S]*?)\\n\\}`))?.[1];
    assert.ok(body, `${name} is declared`);
    assert.match(body, /\n    status: string \| null;/, name);
  }
  assert.match(dts, /export function resumeParameterSchema\(\): ResumeParameterSchema;/);
  assert.match(dts, /export type RebuildSkipReason = "NO_DELEGATION_ID"/);
  assert.match(dts, /export type DiagnosticCode = "MODEL_CHANGED" \| "DEFINITION_CHANGED";/);
});

test("agent names are normalised as the host does, with JavaScript's trim and toLowerCase (host-contract §6)", () => {
  // the host's rule, written in JavaScript: basename, drop `.md`, trim, lowercase,
  // spaces/underscores → `-`
  const hostRule = (name) => {
    const base = name.split(/[/\\]/).pop().trim().replace(/\.md$/i, "");
    return base.trim().toLowerCase().replace(/[ _]/g, "-");
  };
  // a fixed sequence (a linear congruential generator, seed 20261202) over letters whose
  // lowercase is not one character or depends on the word (Σ, İ, Kelvin sign, ǅ, Deseret),
  // case-ignorable characters, JavaScript's and Rust's differing white space (U+FEFF,
  // U+0085), separators and `.md`
  const alphabet = [
    "Σ", "Σ", "Σ", "Σ", "σ", "İ", "I", "\u212A", "A", "z", "Ω", "Ά", "ǅ", "ß", "ᾈ", "\u{10400}", "Ж", "\u0301", "\u00AD",
    "'", ".", ":", "\u02B0", " ", "_", "-", "/", "\\", "\uFEFF", "\u0085", "\u3000", "\n", "1", "中", ".md", ".MD",
  ];
  const reg = new DelegationRegistry();
  let x = 20261202;
  const next = () => (x = (Math.imul(x, 1103515245) + 12345) >>> 0) / 2 ** 32; // [0, 1)
  let sigmas = 0;
  for (let i = 0; i < 300; i++) {
    let name = "";
    const len = 1 + Math.floor(next() * 8);
    for (let j = 0; j < len; j++) name += alphabet[Math.floor(next() * alphabet.length)];
    const want = hostRule(name);
    const start = () =>
      reg.start({ toolCallId: `call-${i}`, agent: name, task: "t", binding: { key: "anthropic/claude-x", modelId: "claude-x" } }, []);
    if (want === "") {
      expectCode(assert, start, "INVALID_INPUT", "input.agent");
      continue;
    }
    assert.equal(start().agent, want, JSON.stringify(name));
    if (want.includes("ς")) sigmas++;
  }
  assert.ok(sigmas >= 10, `only ${sigmas} names with a final sigma`);
  reg.free();
});

test("messagesToRows: the rows of a run, and a bad message named by its path in the reader's words", () => {
  const owner = { parentToolCallId: "task_1", agentName: "explorer" };
  const messages = [
    { role: "user", content: "Read a.rs", timestamp: 0 },
    { role: "assistant", content: [{ type: "toolCall", id: "c1", name: "read", arguments: { path: "a.rs" } }], stopReason: "toolUse", timestamp: 1000 },
    { role: "toolResult", toolCallId: "c1", toolName: "read", content: "fn a() {}", isError: false, timestamp: 2000 },
  ];
  const rows = dc.messagesToRows({ ...owner, messages });
  assert.deepEqual(rows.map((r) => r.id), ["task_1:u0", "task_1:a1", "task_1:c1"]);
  assert.deepEqual(rows[2].toolResult, { content: [{ type: "text", text: "fn a() {}" }] });
  assert.equal(rows[2].toolStatus, "success");
  // a window of the run: the same row, its index from firstIndex
  assert.deepEqual(dc.messagesToRows({ ...owner, messages: messages.slice(1), start: 1, firstIndex: 1 }), rows.slice(2));
  const bad = [messages[0], { ...messages[2], content: [{ type: "text", text: 5 }] }];
  const e = expectCode(assert, () => dc.messagesToRows({ ...owner, messages: bad }), "INVALID_INPUT", "input.messages[1].content");
  assert.match(e.message, /\[0\]: text: expected a string, got a number/);
  expectCode(assert, () => dc.messagesToRows({ ...owner }), "INVALID_INPUT", "input.messages");
  expectCode(assert, () => dc.messagesToRows({ ...owner, messages: [5] }), "INVALID_INPUT", "input.messages[0]");
  expectCode(assert, () => dc.messagesToRows({ messages }), "INVALID_INPUT", "input.idPrefix");
  expectCode(assert, () => dc.messagesToRows({ ...owner, messages, start: -1 }), "INVALID_INPUT", "input.start");
});
