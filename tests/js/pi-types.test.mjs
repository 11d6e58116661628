// What the library returns carries every field pi requires (issue 15 item 4, at run time;
// tests/ts/pi.ts checks the declarations). The reference is pi's own declarations: the
// required (non-optional) fields of each message interface are read from the installed
// @earendil-works/pi-ai and pi-agent-core .d.ts files.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dc, root } from "./helpers.mjs";

const dir = (p) => resolve(root, "node_modules", p);

/** `{ interfaceName: [required field, ...] }` of a declaration file. */
function requiredFields(file, names) {
  const text = readFileSync(file, "utf8").replace(/\/\*[\s\S]*?\*\//g, "");
  const out = {};
  for (const name of names) {
    const m = new RegExp(`export interface ${name}(?:<[^>]*>)? \\{([\\s\\S]*?)\\n\\}`).exec(text);
    assert.ok(m, `${name} not found in ${file}`);
    out[name] = [...m[1].matchAll(/^ {4}(\w+):/gm)].map((x) => x[1]);
  }
  return out;
}

const ai = requiredFields(resolve(dir("@earendil-works/pi-ai"), "dist/types.d.ts"), [
  "UserMessage", "AssistantMessage", "ToolResultMessage", "Usage", "TextContent", "ThinkingContent", "ToolCall", "ImageContent",
]);
const harness = requiredFields(resolve(dir("@earendil-works/pi-agent-core"), "dist/harness/messages.d.ts"), ["CompactionSummaryMessage"]);
const REQUIRED = {
  user: ai.UserMessage, assistant: ai.AssistantMessage, toolResult: ai.ToolResultMessage, compactionSummary: harness.CompactionSummaryMessage,
};
const BLOCKS = { text: ai.TextContent, thinking: ai.ThinkingContent, toolCall: ai.ToolCall, image: ai.ImageContent };

/** Every message has every field pi requires of its role (and its blocks and usage theirs). */
function assertPiShaped(messages, where) {
  assert.ok(messages.length > 0, `${where}: no messages`);
  for (const [i, m] of messages.entries()) {
    const required = REQUIRED[m.role];
    assert.ok(required, `${where}[${i}]: role ${m.role}`);
    for (const f of required) assert.ok(f in m && m[f] !== undefined, `${where}[${i}] (${m.role}) lacks ${f}: ${JSON.stringify(m).slice(0, 200)}`);
    assert.equal(typeof m.timestamp, "number", `${where}[${i}].timestamp`);
    if (Array.isArray(m.content)) {
      for (const b of m.content) for (const f of BLOCKS[b.type] ?? []) assert.ok(f in b, `${where}[${i}] ${b.type} block lacks ${f}`);
    }
    if (m.role === "assistant") {
      for (const f of ai.Usage) assert.ok(f in m.usage, `${where}[${i}].usage lacks ${f}`);
      assert.ok(["stop", "length", "toolUse", "error", "aborted", "pending", "deferred"].includes(m.stopReason));
    }
  }
}

// a delegate's persisted rows: a user brief, a tool turn, a final answer (no createdAt on some, no api in the binding)
const rows = [
  { id: "u1", role: "user", content: "Map the parser module", createdAt: "2026-01-01T00:00:00.000Z" },
  { id: "a1", role: "assistant", content: "", thinking: "read it" },
  { id: "r1", role: "tool", content: "", toolName: "Read", toolCallId: "r1", toolArgs: { path: "a.rs" }, toolStatus: "success", toolResult: { content: [{ type: "text", text: "fn main() {}" }] } },
  { id: "r2", role: "tool", content: "", toolName: "Read", toolCallId: "r2", toolArgs: { path: "b.rs" }, toolStatus: "running" },
  { id: "a2", role: "assistant", content: "The parser is a Pratt parser.", createdAt: "2026-01-01T00:01:00.000Z" },
];

test("rows → messages carry pi's required fields (seed, parent context, chain replay)", () => {
  assertPiShaped(dc.chainRowsToMessages(rows, { provider: "anthropic", model: "claude-haiku-4-5" }), "chainRowsToMessages");
  const seed = dc.seedDelegateMessages({ brief: "Map the parser module", rows, binding: { provider: "anthropic", model: "claude-haiku-4-5" }, hardLimit: 100_000 });
  assertPiShaped(seed.messages, "seedDelegateMessages");
  const noTimes = dc.seedDelegateMessages({ brief: "b", rows: rows.map(({ createdAt, ...r }) => r), binding: { provider: "p", model: "m" }, hardLimit: 100_000 });
  assertPiShaped(noTimes.messages, "seedDelegateMessages without createdAt");
  assertPiShaped(dc.buildParentContext(rows).messages, "buildParentContext");
  // a binding's api is kept when given
  const withApi = dc.chainRowsToMessages(rows, { provider: "anthropic", model: "claude-haiku-4-5", api: "anthropic-messages" });
  assert.ok(withApi.filter((m) => m.role === "assistant").every((m) => m.api === "anthropic-messages"));
});

const budget = dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 });
function session(turns) {
  const usage = { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } };
  const base = { api: "faux", provider: "faux", model: "faux-small", usage };
  const ms = [{ role: "user", content: "BRIEF: read the files", timestamp: 1 }];
  for (let i = 0; i < turns; i++) {
    ms.push({ role: "assistant", content: [{ type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `f${i}` } }], ...base, stopReason: "toolUse", timestamp: 2 + i });
    ms.push({ role: "toolResult", toolCallId: `c${i}`, toolName: "read", content: [{ type: "text", text: `line\n`.repeat(600) }], isError: false, timestamp: 2 + i });
  }
  return ms;
}

test("a turn's summary request, its outcome and the handle's messages carry pi's required fields", async () => {
  const requests = [];
  const out = await dc.runDelegateTurn({
    messages: session(8), budget, modelId: "faux/faux-small",
    summarize: async (request) => {
      requests.push(request);
      return "summary";
    },
  });
  assert.equal(out.outcome, "compacted");
  assertPiShaped(out.messages, "runDelegateTurn outcome");
  for (const r of requests) assertPiShaped(r.messages, `SummaryRequest(${r.kind}).messages`);
  const degraded = await dc.runDelegateTurn({ messages: session(8), budget, modelId: "m", summarize: async () => { throw new Error("down"); } });
  assert.equal(degraded.outcome, "degraded");
  assertPiShaped(degraded.messages, "degraded outcome");
  const handle = new dc.DelegateContext(session(8));
  await handle.runTurn({ budget, modelId: "m", summarize: async () => "s" });
  assertPiShaped(handle.messages(), "DelegateContext.messages()");
  handle.free();
});

test("selectFallbackModel hands back the caller's own model object", () => {
  const small = { provider: "local", id: "tiny", api: "openai-completions", contextWindow: 4000, maxTokens: 1000, cost: {} };
  const large = { provider: "anthropic", id: "claude-haiku-4-5", api: "anthropic-messages", contextWindow: 200000, maxTokens: 8192, headers: { a: "b" } };
  const pick = dc.selectFallbackModel({ messages: session(8), candidates: [small, large] });
  assert.equal(pick.model, large);
  assert.equal(pick.index, 1);
  assert.deepEqual(pick.modelFailures.map((f) => f.model), ["local/tiny"]);
  assert.equal(dc.selectFallbackModel({ messages: session(8), candidates: [small] }).model, null);
});
