// delegate-context/pi's runDelegate (issue 15, item 1): one delegation on pi-agent-core's
// real Agent, start to settle, offline with pi-ai's faux provider. Each test pins one seed
// promise the runner must keep: a delegate that compacts; one that degrades and says so; a
// single read that overflows (SUBAGENT_CONTEXT_OVERFLOW with the guidance); a provider
// overflow as pi reports it (an AssistantMessage with stopReason "error") that moves to a
// fallback, skipping one too small (modelFailures); a degraded run that stays degraded
// across a fallback (one tally across models); a restart from the rows the runner wrote
// and a resume that keeps its history; an abort; a refused resume.
import test from "node:test";
import assert from "node:assert/strict";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { dc, root } from "./helpers.mjs";

const { runDelegate, recordRows } = await import(resolve(root, "pkg/pi/index.mjs"));

const MODELS = [
  { id: "small-8k", contextWindow: 8192, maxTokens: 1024 }, // hardLimit 4,096
  { id: "tiny-4k", contextWindow: 4096, maxTokens: 1024 }, // hardLimit 2,048
  { id: "medium-32k", contextWindow: 32000, maxTokens: 8000 },
];
const SYSTEM_PROMPT = "You are a delegate. Read the files you are asked to read, then report.";
const SUMMARY = "## Goal\nRead the files.\n\n## Progress\n- read some files";

/** A `read` tool whose files are `lines` lines of about 38 characters. */
function readTool(sizes = {}) {
  return {
    name: "read", label: "Read", description: "Read a file.",
    parameters: Type.Object({ path: Type.String() }),
    execute: async (_id, { path }) => ({
      content: [{ type: "text", text: `// ${path}\n` + "const line = 'some source code here';\n".repeat(sizes[path] ?? 90) }],
      details: { path },
    }),
  };
}

/** Faux steps: `{read}` a tool call, `{fail}` pi's failed request, `{report}` the answer. */
function world(steps) {
  const core = createFauxCore({ provider: "local", models: MODELS });
  const requests = [];
  let n = 0;
  core.setResponses(steps.map((step) => (context, _o, _s, model) => {
    requests.push({ model: model.id, messages: context.messages.length });
    if (step.fail) return fauxAssistantMessage([], { stopReason: "error", errorMessage: step.fail });
    if (step.report) return fauxAssistantMessage(step.report);
    return fauxAssistantMessage([fauxText(`Reading ${step.read}.`), fauxToolCall("read", { path: step.read }, { id: `c${++n}` })], { stopReason: "toolUse" });
  }));
  const models = MODELS.map((m) => core.getModel(m.id));
  return { core, models, requests };
}

const reads = (k, from = 0) => Array.from({ length: k }, (_, i) => ({ read: `src/f${from + i}.ts` }));

/** The host's store: rows by id, a later copy replacing the earlier one in place. */
function store() {
  const rows = [];
  const onRows = (batch) => {
    for (const row of batch) {
      const i = rows.findIndex((r) => r.id === row.id);
      if (i < 0) rows.push(row);
      else rows[i] = row;
    }
  };
  return { rows, onRows };
}

// retries wait 1 ms here (the default backoff starts at 1 s)
const FAST_RETRY = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 30000 };

async function run({ steps, models = [0], summarize = async () => SUMMARY, task = {}, registry = new dc.DelegationRegistry(), sizes, rows, signal, tools, retry = FAST_RETRY }) {
  const w = world(steps);
  const s = store();
  if (rows) s.onRows(rows);
  const events = [];
  const result = await runDelegate({
    registry, models: models.map((i) => w.models[i]), streamFn: w.core.streamSimple, systemPrompt: SYSTEM_PROMPT,
    tools: tools ?? [readTool(sizes)], summarize, rows: s.rows.slice(), onRows: s.onRows, signal, onEvent: (e) => events.push(e), retry,
    task: { toolCallId: "task_1", agent: "explorer", task: "Read the files one by one, then report.", description: "read files", ...task },
  });
  return { result, rows: s.rows, events, registry, requests: w.requests };
}

const taskRow = (rows, id = "task_1") => rows.find((r) => r.id === id);

test("a delegate that compacts finishes, and its rows are what the readers read", async () => {
  const { result, rows, events } = await run({ steps: [...reads(12), { report: "All read." }] });
  assert.equal(result.status, "completed");
  assert.equal(result.isError, false);
  assert.equal(result.content, "All read.");
  assert.ok(result.run.contextCompactions >= 1, `compactions: ${result.run.contextCompactions}`);
  assert.equal(result.run.contextDegraded, false);
  assert.ok(events.some((e) => e.type === "boundary" && e.preflight), "a pre-flight boundary ran before the first request");
  // rows: the task, one assistant row per turn, one tool row per call, the Task row settled
  const own = rows.filter((r) => r.parentToolCallId === "task_1");
  assert.ok(own.every((r) => r.agentName === "explorer"));
  assert.equal(own.filter((r) => r.role === "user").length, 1);
  assert.equal(own.filter((r) => r.role === "assistant").length, 13);
  const tools = own.filter((r) => r.role === "tool");
  assert.equal(tools.length, 12);
  assert.ok(tools.every((r) => r.toolStatus === "success" && r.toolName === "read" && r.toolArgs.path && r.toolResult.content[0].text));
  const details = taskRow(rows).toolResult.details;
  assert.equal(details.status, "completed");
  assert.equal(details.turns, 13);
  assert.equal(details.toolCalls, 12);
  assert.equal(details.lastToolName, "read");
  assert.equal(details.contextCompactions, result.run.contextCompactions);
  assert.match(details.completedAt, /^\d{4}-\d\d-\d\dT/);
  assert.equal(details.report, "All read.");
  assert.deepEqual(result.details, details);
  // the parent's context rebuilt from the rows shows the report, nothing of the delegate's work
  const parentRows = [
    { id: "u", role: "user", content: "go" },
    { id: "a", role: "assistant", content: "delegating" },
    taskRow(rows),
    ...own,
  ];
  const parent = dc.buildParentContext(parentRows).messages;
  assert.equal(parent.at(-1).role, "toolResult");
  assert.equal(parent.at(-1).content[0].text, "All read.");
  assert.equal(parent.length, 3);
});

test("a degraded run's report starts with the degraded notice", async () => {
  const { result, rows } = await run({ steps: [...reads(12), { report: "Found 3 call sites." }], summarize: async () => { throw new Error("summarizer down"); } });
  assert.equal(result.status, "completed");
  assert.equal(result.run.contextDegraded, true);
  assert.match(result.content, /^\[Delegate context degraded\]/);
  assert.ok(result.content.endsWith("Found 3 call sites."));
  assert.equal(taskRow(rows).toolResult.details.contextDegraded, true);
  assert.equal(taskRow(rows).toolResult.details.report, result.content);
});

test("a single read that overflows ends with SUBAGENT_CONTEXT_OVERFLOW and its guidance", async () => {
  const { result, rows } = await run({ steps: [{ read: "logs/build.log" }, { report: "never" }], sizes: { "logs/build.log": 2000 } });
  assert.equal(result.status, "failed");
  assert.equal(result.isError, true);
  assert.equal(result.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.match(result.content, /does not fit in the context window of model "local\/small-8k".*Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once/s);
  const details = taskRow(rows).toolResult.details;
  assert.equal(details.status, "failed");
  assert.equal(details.error, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(taskRow(rows).toolStatus, "error");
});

test("a provider overflow as pi reports it moves to the next fallback that fits; the one too small is in modelFailures", async () => {
  const overflow = "prompt is too long: 8871 tokens > 8192 maximum";
  const { result, rows, events, requests } = await run({
    steps: [...reads(3), { fail: overflow }, ...reads(2, 3), { report: "Tests cover positive amounts only." }], models: [0, 1, 2],
  });
  assert.equal(result.status, "completed", result.content);
  assert.equal(result.content, "Tests cover positive amounts only.");
  assert.equal(result.modelId, "local/medium-32k");
  // every model that failed, with its reason (issue 34 §1): the primary's own overflow, then the one skipped
  assert.deepEqual(result.details.modelFailures.map((f) => [f.model, f.code]), [["local/small-8k", "CONTEXT_TOO_LARGE"], ["local/tiny-4k", "SUBAGENT_CONTEXT_OVERFLOW"]]);
  assert.ok(!`${result.content}${JSON.stringify(result.details)}`.includes("prompt is too long"), "the provider's text does not reach the parent");
  assert.deepEqual(requests.map((r) => r.model), ["small-8k", "small-8k", "small-8k", "small-8k", "medium-32k", "medium-32k", "medium-32k"]);
  assert.ok(events.some((e) => e.type === "providerError" && e.contextTooLarge), "classified as a context overflow (pi's failed AssistantMessage)");
  // the failed request is an error row (dropped on replay); the run's details keep the binding
  assert.equal(rows.filter((r) => r.status === "error").length, 1);
  assert.equal(taskRow(rows).toolResult.details.modelId, "small-8k");
});

test("a provider overflow with no fallback left reaches the parent as SUBAGENT_CONTEXT_OVERFLOW, never the provider's text", async () => {
  const { result } = await run({ steps: [...reads(2), { fail: "prompt is too long: 8871 tokens > 8192 maximum" }] });
  assert.equal(result.status, "failed");
  assert.equal(result.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.doesNotMatch(result.content, /prompt is too long/);
  assert.match(result.content, /Narrow the task/);
});

test("another provider error with no fallback left passes through as it is", async () => {
  // a 429 is retried (twice by the policy) before it is the run's end
  const { result } = await run({ steps: [{ fail: "429 rate limit exceeded" }, { fail: "429 rate limit exceeded" }, { fail: "429 rate limit exceeded" }] });
  assert.equal(result.status, "failed");
  assert.equal(result.code, "PROVIDER_ERROR");
  assert.equal(result.content, "429 rate limit exceeded");
});

test("a degraded run stays degraded across a fallback (one tally across models)", async () => {
  const { result, events } = await run({
    // a 503 is retried twice on small-8k before the run moves to medium-32k
    steps: [...reads(12), ...Array(3).fill({ fail: "503 Service Unavailable: small-8k is overloaded" }), { report: "Partial findings." }],
    models: [0, 2], summarize: async () => { throw new Error("summarizer down"); },
  });
  assert.equal(result.status, "completed", result.content);
  assert.equal(result.modelId, "local/medium-32k");
  assert.ok(events.some((e) => e.type === "boundary" && e.modelId === "local/small-8k" && e.report.outcome === "degraded"));
  const onFallback = events.filter((e) => e.type === "boundary" && e.modelId === "local/medium-32k");
  assert.ok(onFallback.length > 0);
  assert.ok(onFallback.every((e) => e.report.outcome !== "degraded"), "the fallback itself did not degrade");
  assert.equal(result.run.contextDegraded, true);
  assert.match(result.content, /^\[Delegate context degraded\]/);
  assert.equal(result.details.contextDegraded, true);
});

test("a restart from the rows the runner wrote, and a resume that keeps its history", async () => {
  const first = await run({ steps: [...reads(4), { report: "Money flows billing → tax." }], task: { task: "Survey the modules.", description: "survey" } });
  assert.equal(first.result.status, "completed");
  const saved = JSON.parse(JSON.stringify(first.rows));
  const live = first.registry.resumableList();
  const rebuilt = dc.DelegationRegistry.fromTranscript(saved);
  assert.deepEqual(rebuilt.resumableList(), live, "the rebuilt registry lists what the live one does");
  assert.equal(rebuilt.rebuildSkips().length, 0);
  const second = await run({
    steps: [{ read: "src/rounding.ts" }, { report: "legacyRound can go." }], registry: rebuilt, rows: saved,
    task: { toolCallId: "task_2", task: "Can legacyRound go?", description: "legacyRound", resume: first.result.delegationId },
  });
  assert.equal(second.result.status, "completed", second.result.content);
  assert.equal(second.result.details.resumedFrom, first.result.delegationId);
  const seed = second.events.find((e) => e.type === "seed").seed;
  assert.equal(seed.truncated, false);
  const calls = seed.messages.flatMap((m) => (m.role === "assistant" ? m.content.filter((b) => b.type === "toolCall") : []));
  assert.deepEqual(calls.map((c) => c.arguments.path), ["src/f0.ts", "src/f1.ts", "src/f2.ts", "src/f3.ts"], "the seed holds the earlier tool calls");
  assert.equal(seed.messages[0].content[0].text, "Survey the modules.");
  assert.equal(seed.messages.filter((m) => m.role === "toolResult").length, 4);
  // the chain now spans both runs, after another restart too
  const again = dc.DelegationRegistry.fromTranscript(second.rows);
  assert.deepEqual(again.resolve(second.result.delegationId).toolCallIds, ["task_1", "task_2"]);
  assert.deepEqual(again.resumableList(), second.registry.resumableList());
});

test("an abort through the signal ends the run as aborted and settles it", async () => {
  const controller = new AbortController();
  const tool = readTool();
  const slow = { ...tool, execute: async (id, args, signal) => { if (args.path === "src/f2.ts") controller.abort(); return tool.execute(id, args, signal); } };
  const { result, rows, registry } = await run({ steps: [...reads(6), { report: "never" }], signal: controller.signal, tools: [slow] });
  assert.equal(result.status, "aborted");
  assert.equal(result.code, "ABORTED");
  assert.equal(result.isError, true);
  assert.equal(taskRow(rows).toolResult.details.status, "aborted");
  assert.equal(registry.resolve(result.delegationId).status, "aborted");
});

test("a refused resume is the Task tool's error and a refused Task row, never a throw", async () => {
  const { result, rows } = await run({ steps: [], task: { resume: "no-such-id" } });
  assert.equal(result.status, "refused");
  assert.equal(result.code, "UNKNOWN_DELEGATION");
  assert.equal(result.isError, true);
  assert.match(result.content, /no-such-id/);
  assert.equal(rows.length, 1);
  assert.equal(taskRow(rows).toolResult.details.error, "UNKNOWN_DELEGATION");
  assert.equal(taskRow(rows).toolResult.details.delegationId, undefined);
});

test("the CommonJS build and recordRows", async () => {
  const cjs = createRequire(import.meta.url)(resolve(root, "pkg/pi/index.cjs"));
  assert.equal(typeof cjs.runDelegate, "function");
  assert.equal(typeof recordRows, "function");
});
