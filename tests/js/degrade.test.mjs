// Issue 7 part 1: degrade, then fail (ADR 0299 clauses 4–5), through the built package.
// Each test fails on the code before the issue (it is run there too, see the note).
import test from "node:test";
import assert from "node:assert/strict";
import { dc } from "./helpers.mjs";

const budget = dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 }); // hardLimit 4096
const MODEL = "local/small";
const brief = (text = "Brief: read the files.") => ({ role: "user", content: text, timestamp: 1 });
const turn = (id, path, chars) => [
  { role: "assistant", content: [{ type: "toolCall", id, name: "read", arguments: { path } }], stopReason: "toolUse", timestamp: 2 },
  { role: "toolResult", toolCallId: id, toolName: "read", content: [{ type: "text", text: "r".repeat(chars) }], isError: false, timestamp: 3 },
];
const failedSummary = (messages) => dc.completeDelegateTurn({ messages, budget, modelId: MODEL, answer: { error: "summary model down" }, options: { now: 5 } });

test("the degraded context keeps the newest message with its tool call, even when nothing older fits", () => {
  const ms = [brief(), ...turn("c1", "a.rs", 9000), ...turn("c2", "b.rs", 12000)];
  const out = failedSummary(ms);
  assert.equal(out.outcome, "degraded");
  assert.equal(out.messages[0], ms[0]);
  assert.equal(out.messages.length, 4, "brief, note, the newest call and its result");
  assert.equal(out.messages[2], ms[3]);
  assert.equal(out.messages[3], ms[4]);
});

test("the degrade note is exact: its count is droppedMessages, it lists the files read, it says whether messages follow", () => {
  const ms = [brief(), ...turn("c1", "a.rs", 9000), ...turn("c2", "b.rs", 12000)];
  const out = failedSummary(ms);
  const note = out.messages[1].summary;
  assert.match(note, new RegExp(`^\\[Context degraded\\] ${out.droppedMessages} earlier messages`));
  assert.equal(out.droppedMessages, 2);
  assert.match(note, /a\.rs/, "the file read in what was dropped");
  assert.match(note, /the most recent messages follow/);
  // nothing keepable after the brief (an orphan result): no claim that messages follow
  const orphan = [brief(), { role: "toolResult", toolCallId: "gone", toolName: "read", content: [{ type: "text", text: "r".repeat(20000) }], isError: false }];
  const none = failedSummary(orphan);
  assert.equal(none.messages.length, 2);
  assert.doesNotMatch(none.messages[1].summary, /recent messages follow/);
  assert.match(none.messages[1].summary, /^\[Context degraded\] 1 earlier message /);
});

test("a second degrade replaces the earlier note instead of wrapping it", () => {
  const ms = [brief(), ...turn("c1", "a.rs", 9000), ...turn("c2", "b.rs", 9000)];
  const first = failedSummary(ms);
  const second = failedSummary([...first.messages, ...turn("c3", "c.rs", 9000), ...turn("c4", "d.rs", 9000)]);
  assert.equal(second.outcome, "degraded");
  const note = second.messages[1].summary;
  assert.equal(note.split("[Context degraded]").length - 1, 1, note);
  assert.match(note, new RegExp(`^\\[Context degraded\\] ${second.droppedMessages} earlier messages`));
});

test("a single read larger than hardLimit ends the step with SUBAGENT_CONTEXT_OVERFLOW, without a summary request", async () => {
  const ms = [brief(), ...turn("c1", "big.rs", 64000)];
  let asked = 0;
  await assert.rejects(
    dc.runDelegateTurn({ messages: ms, budget, modelId: MODEL, summarize: async () => { asked++; return "s"; } }),
    (e) => e.code === "SUBAGENT_CONTEXT_OVERFLOW" && e.modelId === MODEL && /Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once\./.test(e.message),
  );
  assert.equal(asked, 0, "no summary could help: none was asked for");
});

test("every summary request carries the task brief", () => {
  const ms = [brief("BRIEF-TEXT: audit src/ for unsafe casts."), { role: "compactionSummary", summary: "earlier work", tokensBefore: 10, timestamp: 1 }];
  for (let i = 0; i < 8; i++) ms.push(...turn(`c${i}`, `f${i}.rs`, 3000));
  const p = dc.prepareDelegateTurn({ messages: ms, budget, modelId: MODEL });
  assert.equal(p.action, "summarize");
  for (const r of p.requests) assert.match(r.messages[0].content[0].text, /BRIEF-TEXT: audit src\/ for unsafe casts\./);
});

test("the brief plus one active tool turn at the early trigger: one split-turn summary request, then compacted", () => {
  const ms = [
    brief("b".repeat(6000)),
    { role: "assistant", content: [{ type: "text", text: "a".repeat(6000) }, { type: "toolCall", id: "c1", name: "read", arguments: { path: "x" } }], stopReason: "toolUse", timestamp: 2 },
    { role: "toolResult", toolCallId: "c1", toolName: "read", content: [{ type: "text", text: "r".repeat(2800) }], isError: false, timestamp: 3 },
  ];
  const options = { earlyTrigger: true };
  const p = dc.prepareDelegateTurn({ messages: ms, budget, modelId: MODEL, options });
  assert.ok(p.tokens >= budget.compactionTrigger && p.tokens < budget.hardLimit);
  assert.equal(p.action, "summarize");
  assert.deepEqual(p.requests.map((r) => r.kind), ["turnPrefix"]);
  const out = dc.completeDelegateTurn({ messages: ms, budget, modelId: MODEL, options, answer: { turnPrefix: "## Original Request\nread x" } });
  assert.equal(out.outcome, "compacted");
  assert.equal(out.messages[0], ms[0]);
});
