// The foundation through the built package: token accounting against pi-agent-core
// (differential, every message of both real sessions plus generated hard cases), the
// budget table of host-contract §4, the parent context, and bad input as Error objects
// with code + path that leave the instance working.
import test from "node:test";
import assert from "node:assert/strict";
import { estimateTokens as piEstimateTokens, estimateContextTokens as piEstimateContextTokens, calculateContextTokens as piCalculateContextTokens } from "@earendil-works/pi-agent-core";
import { dc, loadSessionMessages, SESSION_FILES, expectCode } from "./helpers.mjs";

const clone = (x) => structuredClone(x);

test("version() is the crate version", () => {
  assert.match(dc.version(), /^\d+\.\d+\.\d+/);
});

for (const file of SESSION_FILES) {
  test(`estimateTokens equals pi-agent-core on every message of ${file}`, (t) => {
    const messages = loadSessionMessages(file);
    if (!messages) return t.skip("fixtures absent");
    assert.ok(messages.length > 900, `${file}: ${messages.length} messages`);
    let compared = 0;
    for (const [i, m] of messages.entries()) {
      assert.equal(dc.estimateTokens(m), piEstimateTokens(m), `${file} message ${i} (${m.role})`);
      if (m.role === "assistant" && m.usage) assert.equal(dc.calculateContextTokens(m.usage), piCalculateContextTokens(m.usage));
      compared++;
    }
    console.log(`# ${file}: ${compared} messages compared`);
  });

  test(`estimateContextTokens equals pi-agent-core on prefixes of ${file}`, (t) => {
    const messages = loadSessionMessages(file);
    if (!messages) return t.skip("fixtures absent");
    // every 7th prefix plus the whole session; each result field for field
    for (let end = 1; end <= messages.length; end += end + 7 > messages.length && end !== messages.length ? messages.length - end : 7) {
      const prefix = messages.slice(0, end);
      assert.deepEqual(dc.estimateContextTokens(prefix), piEstimateContextTokens(prefix), `prefix ${end}`);
    }
  });
}

// Deterministic generator of hard cases: non-ASCII, emoji (surrogate pairs), images,
// nested and unicode tool arguments, numbers JSON.stringify prints in odd ways.
function rng(seed) {
  let s = seed >>> 0;
  return () => ((s = (Math.imul(s ^ (s >>> 15), 2246822519) + 0x9e3779b9) >>> 0) / 2 ** 32);
}
const ALPHABET = ["a", "Z", " ", "\n", "\t", '"', "\\", "\u0001", "\u001f", "é", "ß", "中", "😀", "👩‍💻", "\u2028", "𝄞", "ﬁ", "\u00a0"];
const NUMBERS = [0, -0, 1, -1, 1.5, 1e21, 1e-7, 0.000001, 123456789012345680000, 1.5e300, -2.5e-8, 0.1 + 0.2, 2 ** 53, 1 / 3, 5e-324, 1.7976931348623157e308, 42];
function genText(r, max) {
  let s = "";
  const n = Math.floor(r() * max);
  for (let i = 0; i < n; i++) s += ALPHABET[Math.floor(r() * ALPHABET.length)];
  return s;
}
function genValue(r, depth) {
  const k = Math.floor(r() * (depth > 2 ? 4 : 6));
  switch (k) {
    case 0: return genText(r, 12);
    case 1: return NUMBERS[Math.floor(r() * NUMBERS.length)];
    case 2: return r() < 0.5 ? true : r() < 0.5 ? false : null;
    case 3: return genText(r, 3);
    case 4: return Array.from({ length: Math.floor(r() * 4) }, () => genValue(r, depth + 1));
    default: {
      const o = {};
      for (let i = 0; i < Math.floor(r() * 4); i++) o[genText(r, 5) || "k"] = genValue(r, depth + 1);
      return o;
    }
  }
}
function genMessage(r) {
  const roles = ["user", "assistant", "toolResult", "custom", "bashExecution", "compactionSummary", "branchSummary", "mystery"];
  const role = roles[Math.floor(r() * roles.length)];
  const blocks = () => Array.from({ length: Math.floor(r() * 4) }, () => (r() < 0.7 ? { type: "text", text: genText(r, 40) } : { type: "image", data: "AAAA", mimeType: "image/png" }));
  switch (role) {
    case "user": return { role, content: r() < 0.5 ? genText(r, 60) : blocks(), timestamp: 1 };
    case "assistant": return {
      role, api: "x", provider: "p", model: "m", stopReason: "toolUse", timestamp: 2, hostOnly: { keep: genText(r, 5) },
      usage: { input: 1, output: 1, cacheRead: 0, cacheWrite: 0, totalTokens: 2, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
      content: Array.from({ length: Math.floor(r() * 5) }, () => {
        const x = r();
        if (x < 0.3) return { type: "text", text: genText(r, 50) };
        if (x < 0.5) return { type: "thinking", thinking: genText(r, 50), thinkingSignature: "s" };
        return { type: "toolCall", id: "c" + Math.floor(r() * 1e6), name: genText(r, 8) || "read", arguments: genValue(r, 0) && Object.fromEntries(Array.from({ length: Math.floor(r() * 4) }, () => [genText(r, 6), genValue(r, 1)])) };
      }),
    };
    case "toolResult": return { role, toolCallId: "c1", toolName: "read", content: blocks(), isError: false, timestamp: 3, details: genValue(r, 0) };
    case "custom": return { role, customType: "x", content: r() < 0.5 ? genText(r, 30) : blocks(), display: true, timestamp: 4 };
    case "bashExecution": return { role, command: genText(r, 20), output: genText(r, 80), exitCode: 0, timestamp: 5 };
    case "compactionSummary": return { role, summary: genText(r, 80), tokensBefore: 10, timestamp: 6 };
    case "branchSummary": return { role, summary: genText(r, 80), fromId: "e", timestamp: 7 };
    default: return { role, content: genText(r, 80), timestamp: 8 };
  }
}

test("estimateTokens equals pi-agent-core on 5,000 generated messages (unicode, emoji, images, nested arguments, odd numbers)", () => {
  const r = rng(20261130);
  for (let i = 0; i < 5000; i++) {
    const m = genMessage(r);
    const before = clone(m);
    assert.equal(dc.estimateTokens(m), piEstimateTokens(m), JSON.stringify(m));
    assert.deepEqual(m, before, "input not mutated");
  }
});

test("tool-call argument sizes use JavaScript number printing", () => {
  for (const n of NUMBERS) {
    const m = { role: "assistant", content: [{ type: "toolCall", id: "1", name: "x", arguments: { n, list: [n, { n }] } }] };
    assert.equal(dc.estimateTokens(m), piEstimateTokens(m), String(n));
  }
});

test("lone surrogates: text lengths and JSON.stringify of arguments are counted exactly as pi counts them", () => {
  const m = { role: "user", content: "a\ud800b" };
  assert.equal(dc.estimateTokens(m), piEstimateTokens(m));
  const a = { role: "assistant", content: [{ type: "toolCall", id: "1", name: "x", arguments: { s: "\ud800".repeat(8) } }] };
  // name "x" + {"s":"…"}: JSON.stringify writes a 6-character escape per lone surrogate
  assert.equal(piEstimateTokens(a), Math.ceil((1 + '{"s":""}'.length + 8 * 6) / 4));
  assert.equal(dc.estimateTokens(a), piEstimateTokens(a));
});

test("contextBudget matches the host-contract §4 table", () => {
  const rows = [
    [{ contextWindow: 256000, maxTokens: 32000 }, 224000, 32000, 44800],
    [{ contextWindow: 32000, maxTokens: 8000 }, 16000, 16000, 8000],
    [{ contextWindow: 64000, maxTokens: 16000 }, 47616, 16384, 9523],
    [{}, 111616, 16384, 22323],
    [{ contextWindow: 4096, maxTokens: 1024 }, 2048, 2048, 1024],
  ];
  for (const [model, hardLimit, requestHeadroom, keepRecentTokens] of rows) {
    const b = dc.contextBudget(model);
    assert.deepEqual([b.hardLimit, b.requestHeadroom, b.keepRecentTokens], [hardLimit, requestHeadroom, keepRecentTokens], JSON.stringify(model));
    assert.deepEqual(Object.keys(b).sort(), ["compactionTrigger", "contextWindow", "hardLimit", "keepRecentTokens", "maxOutputTokens", "requestHeadroom", "retainedUserBudget"]);
  }
  assert.equal(dc.contextBudget({ contextWindow: 200000, maxTokens: 64000, definitionMaxTokens: 4000 }).maxOutputTokens, 4000);
});

test("bad input throws an Error with code and path, and the instance keeps working", () => {
  expectCode(assert, () => dc.estimateTokens({ role: "user" }), "INVALID_INPUT", "message");
  expectCode(assert, () => dc.estimateTokens({ role: "assistant", content: [{ type: "toolCall", id: "1", name: 3, arguments: {} }] }), "INVALID_INPUT", "message.content[0]");
  expectCode(assert, () => dc.estimateContextTokens([{ role: "user", content: "x" }, 7]), "INVALID_INPUT", "messages[1]");
  expectCode(assert, () => dc.estimateContextTokens("nope"), "INVALID_INPUT", "messages");
  expectCode(assert, () => dc.contextBudget({ contextWindow: Infinity }), "INVALID_INPUT", "model.contextWindow");
  expectCode(assert, () => dc.contextBudget({ contextWindow: "big" }), "INVALID_INPUT", "model.contextWindow");
  expectCode(assert, () => dc.buildParentContext([{ id: "1", role: "user", content: "x" }, "row"]), "INVALID_INPUT", "rows[1]");
  const e = expectCode(assert, () => dc.buildParentContext([{ id: "1", role: "tool", toolName: "read", toolArgs: {}, toolCallId: 5 }]), "INVALID_INPUT", "rows[0].toolCallId");
  assert.equal(e.name, "DelegateContextError");
  assert.equal(e.retriable, false);
  // the same instance still answers
  assert.equal(dc.estimateTokens({ role: "user", content: "abcd" }), 1);
  assert.equal(dc.contextBudget({}).hardLimit, 111616);
});

test("buildParentContext: only delegate reports reach the parent; unknown message fields are not invented", () => {
  const rows = [
    { id: "u1", role: "user", content: "find the bug", createdAt: "2026-05-17T10:00:00.000Z" },
    { id: "a1", role: "assistant", content: "delegating", modelId: "m", providerId: "p" },
    { id: "t1", role: "tool", toolName: "Task", toolCallId: "t1", toolArgs: { agent: "explorer", task: "look" }, toolStatus: "success",
      toolResult: JSON.stringify({ success: true, data: { response: "REPORT", thinking: "secret", toolCalls: [1] } }) },
    { id: "d1", role: "assistant", content: "inner work", parentToolCallId: "t1", agentName: "explorer" },
    { id: "d2", role: "tool", toolName: "read", toolCallId: "r1", toolResult: "file text", parentToolCallId: "t1", agentName: "explorer" },
    { id: "t2", role: "tool", toolName: "task", toolCallId: "t2", toolResult: "{broken" },
  ];
  const before = clone(rows);
  const { messages, warnings } = dc.buildParentContext(rows);
  assert.deepEqual(rows, before);
  assert.deepEqual(messages.map((m) => m.role), ["user", "assistant", "toolResult", "toolResult"]);
  assert.equal(messages[0].timestamp, Date.parse("2026-05-17T10:00:00.000Z"));
  assert.deepEqual(messages[1].content.filter((b) => b.type === "toolCall").map((b) => b.id), ["t1", "t2"]);
  assert.equal(messages[2].content[0].text, "REPORT");
  assert.equal(messages[3].content[0].text, "{broken");
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0].code, "UNPARSEABLE_SUBAGENT_RESULT");
  assert.equal(warnings[0].rowId, "t2");
  const text = JSON.stringify(messages);
  for (const leak of ["secret", "inner work", "file text"]) assert.ok(!text.includes(leak), leak);
});

test("subagentResultForParent: live path", () => {
  assert.deepEqual(dc.subagentResultForParent('{"success":true,"data":{"response":"ok"}}'), { text: "ok", extracted: true });
  const r = dc.subagentResultForParent("not json");
  assert.equal(r.text, "not json");
  assert.equal(r.warning.code, "UNPARSEABLE_SUBAGENT_RESULT");
});

test("messages come back with every field and every number exactly as given", () => {
  const r = rng(7);
  const bits = new DataView(new ArrayBuffer(8));
  const randomDouble = () => {
    bits.setUint32(0, Math.floor(r() * 2 ** 32));
    bits.setUint32(4, Math.floor(r() * 2 ** 32));
    const x = bits.getFloat64(0);
    return Number.isFinite(x) ? x : 0.1;
  };
  const messages = [{ role: "user", content: "brief", timestamp: 1 }];
  for (let i = 0; i < 200; i++) {
    messages.push({
      role: "assistant", content: [{ type: "text", text: `t${i}`, hostBlockField: { n: randomDouble() } }], stopReason: "stop",
      usage: { input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3, cost: { input: randomDouble(), total: randomDouble() } },
      hostField: [randomDouble(), -0.0, 1e21, 5e-324, "é😀", null, { deep: randomDouble() }], timestamp: 2,
    });
  }
  const before = structuredClone(messages);
  const prep = dc.prepareCompaction(messages, { keepRecentTokens: 1_000_000 });
  assert.deepEqual(messages, before, "input not mutated");
  // everything is retained at this setting: the retained tail is the caller's own objects
  // (nothing was copied: every field and number, -0 included, is what the caller holds)
  assert.deepEqual(prep.retainedTail, messages);
  prep.retainedTail.forEach((m, i) => assert.equal(m, messages[i]));
});

test("a field or argument given as null reads as left out, in every export that reads one", () => {
  // requestOverheadTokens: `tools: null` is no tools
  assert.equal(dc.requestOverheadTokens({ systemPrompt: "abcd", tools: null }), dc.requestOverheadTokens({ systemPrompt: "abcd" }));
  assert.equal(dc.requestOverheadTokens({ systemPrompt: "abcd", tools: null }), 1);
  // errorForParent: null numbers are unknown, not bad input
  const fields = (e) => ({ code: e.code, modelId: e.modelId, tokens: e.tokens, hardLimit: e.hardLimit, message: e.message });
  assert.deepEqual(
    fields(dc.errorForParent({ status: 413 }, { modelId: "m", contextWindow: null, tokens: null, hardLimit: null })),
    fields(dc.errorForParent({ status: 413 }, { modelId: "m" })),
  );
  // a settlement's `rows: null` is no rows
  const reg = new dc.DelegationRegistry();
  const run = reg.start({ toolCallId: "t1", agent: "explorer", task: "T" });
  assert.equal(reg.settle({ delegationId: run.delegationId, status: "completed", rows: null }).delegationId, run.delegationId);
  reg.free();
});
