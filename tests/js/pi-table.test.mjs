// The reference table of pi-agent-core 0.85.1's compaction primitives (host-contract §3,
// ADR 0299 clause 3) on small hand-written contexts: tests/data/pi-table.json holds each
// context and what pi answers for it (`DEFAULT_COMPACTION_SETTINGS`,
// `serializeConversation(convertToLlm(messages))`, `prepareCompaction` and `findCutPoint`
// of every prefix at several keepRecentTokens, and the summary requests `compact` sends for
// whole contexts, captured from pi-ai's faux provider). The native tests
// (tests/pi_table.rs) hold the Rust core to it, so a wrong rule fails `cargo test` and
// cargo-mutants sees it (issue 20); this test checks the file against the live pi (a table
// that rots fails here), and rewrites it with `--write`:
//
//   node tests/js/pi-table.test.mjs --write
//
// The real sessions (compaction-diff.test.mjs) compare far more prefixes; these contexts
// are small enough to read, and reach the roles and block kinds the sessions lack.
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync, writeFileSync } from "node:fs";
import { createModels, fauxAssistantMessage, fauxProvider } from "@earendil-works/pi-ai";
import { BACKGROUND_CONTEXT } from "@earendil-works/pi-agent-core/harness/context";
import {
  compact,
  convertToLlm,
  DEFAULT_COMPACTION_SETTINGS,
  findCutPoint,
  prepareCompaction,
  serializeConversation,
} from "@earendil-works/pi-agent-core";
import { toEntries } from "./pi-entries.mjs";

const FILE = new URL("../data/pi-table.json", import.meta.url);
const KEEP = [1, 20, 60, 200, 1000];

const text = (t) => ({ type: "text", text: t });
const user = (content, timestamp = 1) => ({ role: "user", content, timestamp });
const assistant = (content, stopReason = "stop", extra = {}) => ({
  role: "assistant",
  content,
  api: "faux",
  provider: "faux",
  model: "m",
  usage: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: 0, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } },
  stopReason,
  timestamp: 2,
  ...extra,
});
const call = (id, name, args) => ({ type: "toolCall", id, name, arguments: args });
const result = (id, name, content, isError = false) => ({
  role: "toolResult",
  toolCallId: id,
  toolName: name,
  content,
  isError,
  timestamp: 3,
});
const words = (n, w = "word") => Array.from({ length: n }, (_, i) => `${w}${i}`).join(" ");

/** The contexts: each reaches roles, blocks or cuts the others do not. */
function contexts() {
  return [
    {
      name: "every role and block kind",
      messages: [
        user("Brief: audit src/ and fix the parser."),
        user([text("look at this"), { type: "image", data: "AAAA", mimeType: "image/png" }, text("and this")]),
        assistant(
          [
            { type: "thinking", thinking: "I should read the parser first." },
            text("Reading it."),
            call("c1", "read", { path: "src/parse.rs", offset: 10, nested: { a: [1, 2.5, "x"], b: null } }),
            call("c2", "bash", { command: "ls -la" }),
          ],
          "toolUse",
        ),
        result("c1", "read", [text(words(600, "line"))]),
        result("c2", "bash", [text("permission denied")], true),
        { role: "bashExecution", command: "cargo test", output: "ok: 3 passed", exitCode: 0, cancelled: false, truncated: false, timestamp: 4 },
        { role: "bashExecution", command: "sleep 9", output: "", exitCode: undefined, cancelled: true, truncated: true, fullOutputPath: "/tmp/out.txt", timestamp: 5 },
        { role: "bashExecution", command: "secret", output: "hidden", exitCode: 1, cancelled: false, truncated: false, excludeFromContext: true, timestamp: 6 },
        { role: "custom", customType: "note", content: "a custom note", display: true, timestamp: 7 },
        { role: "custom", customType: "blocks", content: [text("custom block")], display: false, timestamp: 8 },
        { role: "branchSummary", summary: "the branch tried X", fromId: "e1", timestamp: 9 },
        assistant([text("half an answer")], "error", { errorMessage: "overloaded" }),
        assistant([text("stopped")], "aborted"),
        assistant([]),
        assistant([call("c3", "edit", { path: "src/parse.rs", oldText: "a", newText: "b" }), call("c4", "write", { path: "src/new.rs", content: "fn main() {}" })], "toolUse"),
        result("c3", "edit", [text("edited")]),
        result("c4", "write", [text("")]),
        assistant([text(`Done: ${words(40)}`)]),
      ],
    },
    {
      name: "turns of tool rounds",
      messages: [
        user("Brief: read a.rs, b.rs and c.rs."),
        assistant([call("r1", "read", { path: "a.rs" })], "toolUse"),
        result("r1", "read", [text(words(120, "a"))]),
        assistant([call("r2", "read", { path: "b.rs" }), call("r3", "grep", { pattern: "fn", path: "c.rs" })], "toolUse"),
        result("r2", "read", [text(words(150, "b"))]),
        result("r3", "grep", [text(words(30, "g"))]),
        assistant([text(words(50, "so"))]),
        user("now c.rs"),
        assistant([call("r4", "read", { path: "c.rs" })], "toolUse"),
        result("r4", "read", [text(words(200, "c"))]),
        assistant([call("r5", "ls", { path: "." })], "toolUse"),
        result("r5", "ls", [text("a.rs b.rs c.rs")]),
        assistant([text(words(20, "end"))]),
      ],
    },
    {
      name: "a previous summary",
      messages: [
        { role: "compactionSummary", summary: "PREVIOUS SUMMARY", tokensBefore: 12345, timestamp: 0, details: { readFiles: ["prev-read.rs"], modifiedFiles: ["prev-mod.rs"] } },
        user("go on"),
        assistant([call("p1", "read", { path: "d.rs" })], "toolUse"),
        result("p1", "read", [text(words(100, "d"))]),
        assistant([text(words(60, "ok"))]),
        user("and e.rs"),
        assistant([call("p2", "edit", { path: "e.rs" })], "toolUse"),
        result("p2", "edit", [text("done")]),
      ],
    },
  ];
}

/**
 * pi's session entries for our messages: a leading `compactionSummary` message plays pi's
 * compaction entry (as in compaction-diff.test.mjs), every other message a message entry.
 */
function entriesOf(ms) {
  if (ms[0]?.role !== "compactionSummary") return toEntries(ms);
  const s = ms[0];
  const compaction = {
    type: "compaction", id: "c0", parentId: null, timestamp: new Date(0).toISOString(),
    summary: s.summary, tokensBefore: s.tokensBefore, firstKeptEntryId: "x", retainedTail: [], details: s.details,
  };
  return [compaction, ...toEntries(ms.slice(1)).map((e, i) => ({ ...e, id: `f${i}`, parentId: i === 0 ? "c0" : `f${i - 1}` }))];
}

/** Request settings `compact` is run with: reserveTokens, the model's maxTokens, focus. */
const REQUEST_SETTINGS = [
  { reserveTokens: 16384, maxTokens: 0, customInstructions: undefined },
  { reserveTokens: 1000, maxTokens: 300, customInstructions: "the files read" },
  { reserveTokens: 3000, maxTokens: 5000, customInstructions: "" },
];

/** The requests pi's `compact` sends for `preparation` (history first, then a split turn's prefix). */
async function requestsOf(preparation, { reserveTokens, maxTokens, customInstructions }) {
  const faux = fauxProvider({ models: [{ id: "summarizer", contextWindow: 1_000_000, maxTokens }] });
  const models = createModels();
  models.setProvider(faux.provider);
  const sent = [];
  const answer = (context, options) => {
    assert.equal(context.messages.length, 1);
    sent.push({ systemPrompt: context.systemPrompt, prompt: context.messages[0].content[0].text, maxTokens: options.maxTokens });
    return fauxAssistantMessage("SUMMARY");
  };
  faux.setResponses([answer, answer]);
  const model = faux.getModel("summarizer");
  const r = await compact({ ...preparation, settings: { ...preparation.settings, reserveTokens } }, models, model, customInstructions, undefined, undefined, undefined, BACKGROUND_CONTEXT);
  assert.ok(r.ok, JSON.stringify(r.error));
  return sent;
}

async function answers() {
  const out = { defaults: { ...DEFAULT_COMPACTION_SETTINGS }, contexts: [] };
  for (const { name, messages } of contexts()) {
    // JSON as the native tests read it (an `undefined` field is absent)
    const ms = JSON.parse(JSON.stringify(messages));
    const index = new Map(ms.map((m, i) => [m, i]));
    const ids = (list) => list.map((m) => index.get(m));
    const entries = entriesOf(ms);
    const serialized = serializeConversation(convertToLlm(ms));
    const plans = [];
    for (const keep of KEEP) {
      const settings = { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keep };
      for (let end = 0; end <= ms.length; end++) {
        const path = entries.slice(0, end);
        const r = prepareCompaction(path, settings);
        assert.ok(r.ok, `${name} end=${end}`);
        const cut = findCutPoint(path, 0, path.length, keep);
        const p = r.value;
        plans.push({
          keep,
          end,
          firstKeptEntryIndex: cut.firstKeptEntryIndex,
          turnStartIndex: cut.turnStartIndex,
          isSplitTurn: cut.isSplitTurn,
          prepared: p === undefined ? null : {
            messagesToSummarize: ids(p.messagesToSummarize),
            turnPrefixMessages: ids(p.turnPrefixMessages),
            retainedTail: ids(p.retainedTail),
            isSplitTurn: p.isSplitTurn,
            tokensBefore: p.tokensBefore,
            previousSummary: p.previousSummary ?? null,
            fileOps: { read: [...p.fileOps.read], written: [...p.fileOps.written], edited: [...p.fileOps.edited] },
          },
        });
      }
    }
    // the requests for the whole context at two cuts
    const requests = [];
    for (const keep of [20, 200]) {
      const preparation = prepareCompaction(entries, { ...DEFAULT_COMPACTION_SETTINGS, keepRecentTokens: keep }).value;
      for (const settings of REQUEST_SETTINGS) {
        requests.push({ keep, ...settings, customInstructions: settings.customInstructions ?? null, sent: await requestsOf(preparation, settings) });
      }
    }
    out.contexts.push({ name, messages: ms, serialized, plans, requests });
  }
  return out;
}

/** The table as text: a line per message and per plan, so a change reads as a diff. */
function format(t) {
  const lines = ["{", ` "defaults": ${JSON.stringify(t.defaults)},`, ' "contexts": ['];
  t.contexts.forEach((c, k) => {
    lines.push("  {", `   "name": ${JSON.stringify(c.name)},`, '   "messages": [');
    c.messages.forEach((m, i) => lines.push(`    ${JSON.stringify(m)}${i + 1 < c.messages.length ? "," : ""}`));
    lines.push("   ],", `   "serialized": ${JSON.stringify(c.serialized)},`, '   "plans": [');
    c.plans.forEach((p, i) => lines.push(`    ${JSON.stringify(p)}${i + 1 < c.plans.length ? "," : ""}`));
    lines.push("   ],", '   "requests": [');
    c.requests.forEach((r, i) => lines.push(`    ${JSON.stringify(r)}${i + 1 < c.requests.length ? "," : ""}`));
    lines.push("   ]", `  }${k + 1 < t.contexts.length ? "," : ""}`);
  });
  lines.push(" ]", "}");
  return `${lines.join("\n")}\n`;
}

if (process.argv.includes("--write")) {
  writeFileSync(FILE, format(await answers()));
  console.log(`wrote ${FILE.pathname}`);
} else {
  test("tests/data/pi-table.json is what pi-agent-core answers", async () => {
    const file = JSON.parse(readFileSync(FILE, "utf8"));
    assert.deepEqual(file, await answers());
  });
}
