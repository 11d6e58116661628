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
