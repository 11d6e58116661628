// The inspector's plain modules in Node: how files are read (www/load.js: formats,
// synthetic brief, JSON errors with line and column), the model presets against
// pi-ai's registry (www/models.js), and the sample's delegation cases (www/sample.js).
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { parseTranscript, jsonErrorOffset, lineAt, lineOfPath, TranscriptError } from "../../www/load.js";
import { PRESETS, findPreset } from "../../www/models.js";
import { sampleTranscript } from "../../www/sample.js";
import { dc, root } from "./helpers.mjs";

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
  assert.match(p.notices.join(" "), /messages\[0\] of the file is a "assistant" message.*indices below are the file's plus one/);
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
