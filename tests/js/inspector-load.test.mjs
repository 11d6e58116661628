// The inspector's plain modules in Node: how files are read (www/load.js: formats,
// synthetic brief, JSON errors with line and column), the model presets against
// pi-ai's registry (www/models.js), and the sample's delegation cases (www/sample.js).
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseTranscript, jsonErrorOffset, lineAt, lineOfPath, plural, TranscriptError } from "../../www/load.js";
import { boundaries, replaySession } from "../../www/replay.js";
import { eventKey, referenceReplay } from "./inspector-reference.mjs";
import { PRESETS, findPreset } from "../../www/models.js";
import { sampleTranscript } from "../../www/sample.js";
import { dc, fixturesDir, root } from "./helpers.mjs";

const user = (content) => ({ role: "user", content, timestamp: 1 });
const assistant = (text) => ({ role: "assistant", content: [{ type: "text", text }], stopReason: "stop", timestamp: 2 });
const jsonl = (entries) => entries.map((e) => JSON.stringify(e)).join("\n") + "\n";

/** The TranscriptError `fn` throws. */
function thrown(fn) {
  try {
    fn();
  } catch (e) {
    assert.ok(e instanceof TranscriptError, `expected a TranscriptError, got ${e}`);
    return e;
  }
  assert.fail("expected a TranscriptError");
}

test("presets are pi-ai's registry entries (window and output cap)", () => {
  const dir = resolve(root, "node_modules/@earendil-works/pi-ai/dist/providers/data");
  for (const p of PRESETS) {
    const data = JSON.parse(readFileSync(resolve(dir, `${p.provider}.json`), "utf8"));
    const entry = Object.values(data).map((models) => models[p.id]).find(Boolean);
    assert.ok(entry, `${p.provider}/${p.id} is in pi-ai's registry`);
    assert.deepEqual([p.contextWindow, p.maxTokens], [entry.contextWindow, entry.maxTokens], `${p.provider}/${p.id}`);
  }
  assert.equal(findPreset("claude-opus-4-5-20251101").id, "claude-opus-4-5");
  assert.equal(findPreset("anthropic/claude-haiku-4-5").id, "claude-haiku-4-5");
  assert.equal(findPreset("gpt-4").id, "gpt-4");
  assert.equal(findPreset("no-such-model"), undefined);
});

test("a pi session: messages, their file lines, the model it ran on, skipped entries", () => {
  const text = jsonl([
    { type: "session", id: "s", provider: "anthropic", modelId: "claude-sonnet-4-5" },
    { type: "message", message: user("Brief: map the parser") },
    { type: "thinking_level_change", thinkingLevel: "low" },
    { type: "message", message: assistant("It is a Pratt parser.") },
    { type: "model_change", provider: "anthropic", modelId: "claude-opus-4-5" },
    { type: "message", message: user("and the lexer?") },
  ]);
  const p = parseTranscript(text, "s.jsonl");
  assert.equal(p.kind, "pi-session");
  assert.equal(p.messages.length, 3);
  assert.deepEqual(p.lines, [2, 4, 6]);
  assert.equal(p.modelId, "claude-opus-4-5"); // the last model_change wins over the header
  assert.match(p.notices[0], /1 thinking_level_change, 1 model_change/);
  assert.equal(lineOfPath(p, "messages[1].content"), 4);
  assert.equal(lineOfPath(p, "rows[1]"), undefined);
});

test("a context that does not start with a user message gets a synthetic brief, said so", () => {
  const p = parseTranscript(jsonl([{ type: "message", message: assistant("hi") }, { type: "message", message: user("x") }]), "s.jsonl");
  assert.equal(p.syntheticBrief, true);
  assert.equal(p.messages.length, 3);
  assert.equal(p.messages[0].role, "user");
  assert.match(p.messages[0].content, /synthetic task brief/);
  assert.deepEqual(p.lines, [undefined, 1, 2]);
  assert.match(p.notices.join(" "), /The file starts with an assistant message.*#0 below is that brief, #1 the file's first message/);
  // the library accepts the result as a delegate's context
  const budget = dc.contextBudget({ contextWindow: 200000, maxTokens: 64000 });
  assert.equal(dc.prepareDelegateTurn({ messages: p.messages, budget, modelId: "m" }).action, "unchanged");
});

test("JSON arrays: UiMessage rows or AgentMessages; objects with rows or messages", () => {
  const rows = [
    { id: "u1", role: "user", content: "hi", createdAt: "2026-01-01T00:00:00Z" },
    { id: "t1", role: "tool", toolName: "task", toolCallId: "t1", toolArgs: { agent: "explorer", task: "x" } },
  ];
  assert.equal(parseTranscript(JSON.stringify(rows)).kind, "rows");
  assert.equal(parseTranscript(JSON.stringify([user("x"), assistant("y")])).kind, "messages");
  assert.equal(parseTranscript(JSON.stringify([{ role: "user", content: "plain" }])).kind, "messages");
  const example = readFileSync(resolve(root, "examples/sample-session.json"), "utf8");
  const p = parseTranscript(example, "sample-session.json");
  assert.equal(p.kind, "rows");
  assert.equal(p.modelId, "claude-sonnet-4-5");
  assert.equal(parseTranscript(JSON.stringify({ messages: [user("x")] })).kind, "messages");
  assert.match(thrown(() => parseTranscript('{"foo": 1}', "o.json")).message, /without a "rows" or "messages" array \(keys: foo\)/);
  assert.match(thrown(() => parseTranscript("[]", "e.json")).message, /empty array/);
  assert.match(thrown(() => parseTranscript("  \n", "e.json")).message, /is empty/);
  assert.match(thrown(() => parseTranscript("hello", "h.txt")).message, /not JSON \(line 1, column 1\)/);
});

test("JSON syntax errors name the line and column", () => {
  // JSON Lines: the bad line
  const lines = jsonl([{ type: "session" }, { type: "message", message: user("x") }]) + '{"type":"message","message":{"role":"user",}}\n';
  const e1 = thrown(() => parseTranscript(lines, "bad.jsonl"));
  assert.equal(e1.line, 3);
  assert.equal(e1.column, 44);
  assert.match(e1.message, /^bad\.jsonl: JSON syntax error on line 3, column 44: /);
  // a pretty-printed array
  const pretty = '[\n  {"role": "user", "content": "x"},\n  {"role": "assistant" "content": []}\n]';
  const e2 = thrown(() => parseTranscript(pretty, "bad.json"));
  assert.deepEqual([e2.line, e2.column], [3, 24]);
  assert.match(e2.message, /JSON syntax error at line 3, column 24/);
  // a pretty-printed object
  const e3 = thrown(() => parseTranscript('{\n  "rows": [\n    {"id": "a",, "role": "user"}\n  ]\n}', "bad.json"));
  assert.deepEqual([e3.line, e3.column], [3, 16]);
  // a line that is JSON but not an entry object
  assert.equal(thrown(() => parseTranscript('{"type":"session"}\n[1]\n')).line, 2);
  // a message entry without a message
  assert.match(thrown(() => parseTranscript('{"type":"session"}\n{"type":"message"}\n')).message, /line 2: a "message" entry without a message object/);
});

test("jsonErrorOffset agrees with JSON.parse on what is valid", () => {
  const valid = ['{"a":[1,-2.5e+3,true,false,null,"x\\u00e9\\n"]}', "[]", " 0 ", '"\\/"', JSON.stringify(sampleTranscript().slice(0, 5))];
  for (const v of valid) assert.equal(jsonErrorOffset(v), -1, v.slice(0, 40));
  const invalid = [["[1,]", 3], ["[01]", 2], ['{"a" 1}', 5], ['"\\x"', 2], ["[1] 2", 4], ['"abc', 4], ["tru", 0], ['"a\tb"', 2], ["{", 1]];
  for (const [text, at] of invalid) {
    assert.throws(() => JSON.parse(text));
    assert.equal(jsonErrorOffset(text), at, text);
  }
  assert.deepEqual(lineAt("ab\ncd\nef", 4), { line: 2, column: 2 });
});

test("the sample shows every delegation case the page explains", () => {
  const rows = sampleTranscript();
  assert.deepEqual(sampleTranscript(), rows, "deterministic");
  const reg = dc.DelegationRegistry.fromTranscript(rows);
  try {
    assert.deepEqual(reg.rebuildSkips().map((s) => s.reason), ["NO_DELEGATION_ID", "MISSING_PARENT"]);
    const codes = ["1", "3", "4", "6"].map((n) => {
      const chain = reg.resolve(`00000000-0000-4000-8000-00000000000${n}`);
      try {
        reg.validateResume({ delegationId: chain.latestDelegationId, agent: chain.agent }, rows);
        return "resumable";
      } catch (e) {
        return e.code;
      }
    });
    assert.deepEqual(codes, ["resumable", "NOT_RESUMABLE", "READ_BUDGET_EXCEEDED", "NOT_RESUMABLE"]);
    assert.equal(reg.resolve("00000000-0000-4000-8000-000000000001").delegationIds.length, 2, "a resumed chain");
    // the explorer chain is over GPT-4o's hardLimit: the sample shows a compaction
    const chain = reg.resolve("00000000-0000-4000-8000-000000000002");
    const seed = dc.seedDelegateMessages({ brief: chain.brief, rows, chain, binding: { provider: "openai", model: "gpt-4o" }, hardLimit: Number.MAX_SAFE_INTEGER });
    const budget = dc.contextBudget(findPreset("gpt-4o"));
    assert.equal(dc.prepareDelegateTurn({ messages: seed.messages, budget, modelId: "openai/gpt-4o" }).action, "summarize");
  } finally {
    reg.free();
  }
});

// ---- issue 18: pi's context, the whole life, and the replay ----------------------------

test("a pi session with compactions: pi's context is the last summary, then the entries from its first kept one", () => {
  const m = (i) => ({ type: "message", message: i % 2 ? assistant(`a${i}`) : user(`u${i}`) });
  // v1 (the real fixtures' format): firstKeptEntryIndex counts the file's entries, header included
  const v1 = [
    { type: "session", id: "s", provider: "local", modelId: "small-8k" },
    m(0), m(1), m(2), m(3),
    { type: "compaction", timestamp: "2026-01-01T00:00:00.000Z", summary: "first summary", firstKeptEntryIndex: 3, tokensBefore: 900 },
    m(4), m(5),
    { type: "compaction", timestamp: "2026-01-01T00:01:00.000Z", summary: "second summary", firstKeptEntryIndex: 6, tokensBefore: 950 },
    m(6), m(7),
  ];
  const p = parseTranscript(jsonl(v1), "v1.jsonl");
  assert.equal(p.kind, "pi-session");
  assert.equal(p.syntheticBrief, true, "a summary is not a brief");
  assert.deepEqual(p.messages.slice(1).map((x) => x.role === "compactionSummary" ? `summary:${x.summary}` : x.content[0]?.text ?? x.content), ["summary:second summary", "u4", "a5", "u6", "a7"]);
  assert.equal(p.messages[1].tokensBefore, 950);
  assert.equal(p.messages[1].timestamp, Date.UTC(2026, 0, 1, 0, 1));
  assert.deepEqual(p.lines, [undefined, 9, 7, 8, 10, 11]);
  assert.equal(p.whole.messages.length, 8, "the whole life: every message, no summary");
  assert.deepEqual(p.whole.lines, [2, 3, 4, 5, 7, 8, 10, 11]);
  assert.equal(p.whole.syntheticBrief, undefined, "the session starts with its user message");
  assert.deepEqual([p.modelId, p.provider, p.model], ["small-8k", "local", undefined]);
  assert.match(p.notices.join("\n"), /from its last compaction \(line 9, the last of 2\): its summary first, then the messages from line 7 on; 4 earlier messages are in the summary/);
  assert.match(p.notices.join("\n"), /starts with a compactionSummary message/);
  // the package reads it as a delegate's context: [brief, summary, kept...]
  const budget = dc.contextBudget({ contextWindow: 8192, maxTokens: 2048 });
  assert.equal(dc.prepareDelegateTurn({ messages: p.messages, budget, modelId: "local/small-8k" }).action, "unchanged");

  // v2+: ids and parentIds; the path runs from the last entry to the root (an abandoned branch is not in it)
  const e = (id, parentId, rest) => ({ id, parentId, timestamp: "2026-01-01T00:00:00.000Z", ...rest });
  const v3 = [
    { type: "session", version: 3, id: "s", provider: "anthropic", modelId: "claude-opus-4-5" },
    e("a", null, m(0)), e("b", "a", m(1)), e("c", "b", m(2)), e("x", "c", m(3)), // x: abandoned
    e("d", "c", m(3)), e("k", "d", { type: "compaction", summary: "S", firstKeptEntryId: "c", tokensBefore: 10 }), e("f", "k", m(4)),
  ];
  const q = parseTranscript(jsonl(v3), "v3.jsonl");
  assert.deepEqual(q.messages.slice(1).map((x) => x.role === "compactionSummary" ? "S" : x.content[0]?.text ?? x.content), ["S", "u2", "a3", "u4"]);
  assert.deepEqual(q.lines.slice(1), [7, 4, 6, 8]);
  assert.deepEqual(q.whole.lines, [2, 3, 4, 6, 8], "the abandoned branch (line 5) is not on the path");
});

test("a file's recorded window is read; counts and articles read as English", () => {
  const p = parseTranscript(JSON.stringify({ model: { providerId: "local", modelId: "small-8k", contextWindow: 8192, maxTokens: 2048 }, messages: [user("x")] }));
  assert.deepEqual([p.modelId, p.provider, p.model], ["small-8k", "local", { contextWindow: 8192, maxTokens: 2048 }]);
  const h = parseTranscript(jsonl([{ type: "session", modelId: "m", contextWindow: 32000 }, { type: "message", message: user("x") }]));
  assert.deepEqual(h.model, { contextWindow: 32000, maxTokens: undefined });
  assert.equal(plural(1, "message"), "1 message");
  assert.equal(plural(1234, "message"), "1,234 messages");
  const a = parseTranscript(jsonl([{ type: "message", message: assistant("hi") }]));
  assert.match(a.notices.join(" "), /starts with an assistant message/);
});

test("the real before-compaction session: pi's context after its last compaction", (t) => {
  const path = resolve(fixturesDir, "before-compaction.jsonl");
  if (!existsSync(path)) {
    if (process.env.CI === "true") throw new Error(`fixture missing under CI: ${path}`);
    console.log(`# SKIP: fixture ${path} is absent`);
    return t.skip("fixture absent");
  }
  const text = readFileSync(path, "utf8");
  const entries = text.split("\n").filter((l) => l.trim()).map((l) => JSON.parse(l));
  const last = entries.findLastIndex((e) => e.type === "compaction");
  const kept = entries.slice(entries[last].firstKeptEntryIndex).filter((e) => e.type === "message").map((e) => e.message);
  const p = parseTranscript(text, "before-compaction.jsonl");
  assert.equal(p.messages[1].summary, entries[last].summary);
  assert.deepEqual(p.messages.slice(2), kept, "the kept messages, the caller's own objects' content");
  assert.equal(p.whole.messages.length, entries.filter((e) => e.type === "message").length);
  // pi's own estimate of that context is near what the provider counted last (the
  // skipped compactions made it 375k against 180k before)
  const est = dc.estimateContextTokens(p.messages);
  const sum = p.messages.reduce((s, m) => s + dc.estimateTokens(m), 0);
  assert.ok(sum < 1.6 * est.tokens && est.tokens < 1.6 * sum, `estimate ${sum} and usage figure ${est.tokens} agree`);
});

test("replaySession (the page's replay) equals a replay through the one-shot functions", (t) => {
  // a generated delegate: a brief and 80 tool turns of ~1,000 tokens, one of 6,000 (over small-8k's hardLimit)
  const messages = [user("Brief: read every file under src/.")];
  for (let i = 0; i < 80; i++) {
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `src/f${i}.ts` } }], stopReason: "toolUse", timestamp: 2,
      usage: { input: 10, output: 5, cacheRead: 0, cacheWrite: 0, totalTokens: 15, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } } });
    messages.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: "x".repeat(i === 50 ? 24000 : 4000 + 37 * i) }], isError: false, timestamp: 3 });
  }
  messages.push(assistant("done"));
  assert.deepEqual(boundaries(messages).slice(0, 3), [3, 5, 7]);
  assert.equal(boundaries(messages).at(-1), messages.length);
  const cases = [
    [{ contextWindow: 32000, maxTokens: 8000 }, 1000, "compacted"],
    [{ contextWindow: 8192, maxTokens: 2048 }, 1000, "overflow"],
    [{ contextWindow: 32000, maxTokens: 8000 }, 15000, "degraded"],
  ];
  for (const [model, summaryTokens, kind] of cases) {
    const budget = dc.contextBudget(model);
    const r = replaySession(dc, messages, { budget, modelId: "local/m", summaryTokens });
    const ref = referenceReplay(messages, budget, "local/m", summaryTokens);
    assert.ok(r.events.some((e) => e.kind === kind), `${JSON.stringify(model)}/${summaryTokens}: a ${kind} (${r.events.map((e) => e.kind)})`);
    assert.deepEqual(r.events.map(eventKey), ref.events.map(eventKey));
    assert.deepEqual(r.turns.map((x) => x.tokens), ref.tokens);
    for (const e of r.events) if (e.kind !== "overflow") assert.ok(e.tokensAfter < budget.hardLimit, "every rewrite fits");
    assert.equal(r.end, kind === "overflow" ? "SUBAGENT_CONTEXT_OVERFLOW" : "completed");
  }
  // the recorded usage (15 tokens a request) is not what the replay counts
  const budget = dc.contextBudget({ contextWindow: 32000, maxTokens: 8000 });
  assert.notDeepEqual(replaySession(dc, messages, { budget, modelId: "m", useUsage: true }).turns.map((x) => x.tokens), replaySession(dc, messages, { budget, modelId: "m" }).turns.map((x) => x.tokens));

  for (const name of ["before-compaction.jsonl", "large-session.jsonl"]) {
    const path = resolve(fixturesDir, name);
    if (!existsSync(path)) {
      if (process.env.CI === "true") throw new Error(`fixture missing under CI: ${path}`);
      console.log(`# SKIP: fixture ${path} is absent`);
      continue;
    }
    const p = parseTranscript(readFileSync(path, "utf8"), name);
    for (const id of ["claude-opus-4-5", "gpt-4o"]) {
      const preset = findPreset(id);
      const b = dc.contextBudget(preset);
      const r = replaySession(dc, p.whole.messages, { budget: b, modelId: id });
      const ref = referenceReplay(p.whole.messages, b, id);
      assert.deepEqual(r.events.map(eventKey), ref.events.map(eventKey), `${name} on ${id}`);
      console.log(`# ${name} (${p.whole.messages.length} messages) on ${id}: ${r.turns.length} boundaries, ${r.events.map((e) => e.kind).join(", ") || "no event"}; replayed in ${r.ms.toFixed(0)} ms in Node`);
    }
  }
});
