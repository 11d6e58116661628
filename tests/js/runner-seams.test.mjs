// delegate-context/pi at its seams (issue 34): each test is one numbered failure of the
// runner as it was (a silent overflow ended `completed`, Task.model ignored, a failed
// write took the host down or wedged the chain, a resume without rows forgot its
// history, rows read back in another order jumbled the parent, a restart overwrote the
// parent's rows, a fallback left no trace, names changed on the way to the parent, an
// abort waited for storage), on pi-agent-core's real Agent with pi-ai's faux provider.
import test from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { Agent, convertToLlm } from "@earendil-works/pi-agent-core";
import { createAssistantMessageEventStream, createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { dc, root } from "./helpers.mjs";

const { runDelegate, recordRows, createSummarizer } = await import(resolve(root, "pkg/pi/index.mjs"));

const MODELS = [
  { id: "small-8k", contextWindow: 8192, maxTokens: 1024 }, // hardLimit 4,096
  { id: "tiny-4k", contextWindow: 4096, maxTokens: 1024 },
  { id: "big-32k", contextWindow: 32000, maxTokens: 8000 },
];
const FAST_RETRY = { maxRetries: 2, baseDelayMs: 1, maxDelayMs: 30000 };
const readTool = readToolOf(20);
function readToolOf(lines, onRead = () => {}) {
  return {
    name: "read", label: "Read", description: "Read a file.", parameters: Type.Object({ path: Type.String() }),
    execute: async (_id, { path }) => {
      onRead(path);
      return { content: [{ type: "text", text: `// ${path}\n` + "const line = 'some source code here';\n".repeat(lines) }], details: { path } };
    },
  };
}

/** Faux steps: `{read}` a tool call, `{fail}` pi's failed request, `{report}` the answer, `{usage}` an answer whose provider usage is that. */
function world(steps, provider = "acme") {
  const core = createFauxCore({ provider, models: MODELS });
  const requests = [];
  const usages = [];
  let n = 0;
  core.setResponses(steps.map((step) => (context, _o, _s, model) => {
    requests.push(model.id);
    usages.push(step.usage);
    if (step.fail) return fauxAssistantMessage([], { stopReason: "error", errorMessage: step.fail });
    if (step.report !== undefined) return fauxAssistantMessage(step.report === "" ? [] : step.report, { stopReason: step.stop ?? "stop" });
    return fauxAssistantMessage([fauxText(`Reading ${step.read}.`), fauxToolCall("read", { path: step.read }, { id: `c${++n}` })], { stopReason: "toolUse" });
  }));
  // the faux provider writes its own usage estimate: a step's `usage` replaces it, as a
  // provider that accepted an overflow silently would report it
  let call = 0;
  const streamFn = (model, context, options) => {
    const i = call++;
    const inner = core.streamSimple(model, context, options);
    const out = createAssistantMessageEventStream();
    (async () => {
      for await (const e of inner) {
        const usage = usages[i];
        if (usage && e.type === "done") out.push({ ...e, message: { ...e.message, usage: { ...e.message.usage, ...usage } } });
        else out.push(e);
      }
      out.end();
    })();
    return out;
  };
  return { core, streamFn, models: MODELS.map((m) => core.getModel(m.id)), requests };
}

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

const reads = (k, from = 0) => Array.from({ length: k }, (_, i) => ({ read: `src/f${from + i}.ts` }));

async function run({ steps, models = [0], task = {}, registry = new dc.DelegationRegistry(), rows, onRows, signal, tools = [readTool], ...rest }) {
  const w = world(steps);
  const s = store();
  const events = [];
  const result = await runDelegate({
    registry, models: models.map((i) => w.models[i]), streamFn: w.streamFn, systemPrompt: "You are a delegate.",
    tools, summarize: async () => "## Goal\nRead.", rows, onRows: onRows ?? s.onRows, signal, retry: FAST_RETRY,
    onEvent: (e) => events.push(e),
    task: { toolCallId: "task_1", agent: "explorer", task: "Read the files, then report.", ...task }, ...rest,
  });
  return { result, rows: s.rows, events, registry, requests: w.requests };
}

const usage = (input, output) => ({ input, output, cacheRead: 0, cacheWrite: 0, totalTokens: input + output });

test("1. a silent overflow is a failed request: never `completed`, never an empty report", async () => {
  // a "stop" whose input passes the window, with a fallback that fits: the run moves on
  const moved = await run({ steps: [{ read: "a.ts" }, { report: "Looks fine.", usage: usage(9000, 40) }, { report: "The real answer." }], models: [0, 2] });
  assert.equal(moved.result.status, "completed", moved.result.content);
  assert.equal(moved.result.content, "The real answer.");
  assert.deepEqual(moved.requests, ["small-8k", "small-8k", "big-32k"]);
  assert.equal(moved.result.details.finalModel, "acme/big-32k");
  // a "length" with no output at the window, no fallback: the overflow code, not an empty success
  const failed = await run({ steps: [{ read: "a.ts" }, { report: "", stop: "length", usage: usage(8192, 0) }] });
  assert.equal(failed.result.status, "failed");
  assert.equal(failed.result.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.match(failed.result.content, /does not fit in the context window of model "acme\/small-8k"/);
  assert.equal(failed.registry.resolve(failed.result.delegationId).status, "failed");
});

test("2. Task.model picks among the configured models; one that is not configured is refused", async () => {
  const picked = await run({ steps: [{ report: "ok" }], models: [0, 1, 2], task: { model: "acme/big-32k" } });
  assert.deepEqual(picked.requests, ["big-32k"]);
  assert.equal(picked.result.modelId, "acme/big-32k");
  assert.equal(picked.result.details.modelId, "big-32k", "the run's binding is the model it resolved");
  const refused = await run({ steps: [{ report: "never" }], models: [0, 2], task: { model: "no-such-model" } });
  assert.equal(refused.result.status, "refused");
  assert.equal(refused.result.code, "UNKNOWN_MODEL");
  assert.match(refused.result.content, /"no-such-model" is not configured.*acme\/small-8k, acme\/big-32k/);
  assert.deepEqual(refused.requests, [], "no request was made");
  assert.equal(refused.registry.chainCount, 0);
  assert.equal(refused.rows[0].toolResult.details.error, "UNKNOWN_MODEL");
  // no delegate model: the session's
  const w = world([{ report: "from the session model" }]);
  const session = await runDelegate({ registry: new dc.DelegationRegistry(), models: [], sessionModel: w.models[2], streamFn: w.streamFn,
    systemPrompt: "s", summarize: async () => "x", task: { toolCallId: "t", agent: "a", task: "go" } });
  assert.equal(session.modelId, "acme/big-32k");
});

test("3. a failed write ends the run as a result: no unhandled rejection, no chain left running", async () => {
  const unhandled = [];
  const onUnhandled = (e) => unhandled.push(e);
  process.on("unhandledRejection", onUnhandled);
  try {
    let batches = 0;
    const s = store();
    const onRows = async (rows) => {
      if (++batches === 3) throw new Error("ENOSPC: no space left on device");
      s.onRows(rows);
    };
    const registry = new dc.DelegationRegistry();
    const { result } = await run({ steps: [...reads(4), { report: "never reached" }], onRows, registry });
    assert.equal(result.status, "failed");
    assert.equal(result.code, "WRITE_FAILED");
    assert.match(result.content, /ENOSPC/);
    assert.ok(result.unsavedBatches >= 1);
    assert.equal(registry.resolve(result.delegationId).status, "failed", "settled, not running");
    // the chain can be resumed (a failed run's work is worth continuing): no DELEGATION_RUNNING
    const again = await run({ steps: [{ report: "resumed" }], registry, rows: s.rows, task: { toolCallId: "task_2", resume: result.delegationId } });
    assert.equal(again.result.status, "completed", again.result.content);
    // a streamFn that throws mid-run is the run's failure, settled
    const throwing = await runDelegate({ registry, models: [world([]).models[0]], streamFn: () => { throw new TypeError("boom"); },
      systemPrompt: "s", summarize: async () => "x", task: { toolCallId: "task_3", agent: "explorer", task: "go" }, retry: FAST_RETRY });
    assert.equal(throwing.status, "failed");
    assert.notEqual(registry.resolve(throwing.delegationId).status, "running");
    // a bad fallback model is refused before anything starts (INVALID_INPUT names it), nothing is left running
    const bad = { ...world([]).models[1], maxTokens: NaN };
    await assert.rejects(
      runDelegate({ registry, models: [world([]).models[0], bad], streamFn: world([]).streamFn, systemPrompt: "s", summarize: async () => "x",
        task: { toolCallId: "task_4", agent: "explorer", task: "go" } }),
      (e) => e.code === "INVALID_INPUT" && e.path === "options.models[1].maxTokens",
    );
    assert.equal(registry.resolve("task_4"), undefined);
    await new Promise((r) => setTimeout(r, 20));
    assert.deepEqual(unhandled, []);
  } finally {
    process.off("unhandledRejection", onUnhandled);
  }
});

test("4. a resume without the session's rows is refused, never a brief-only resume", async () => {
  const first = await run({ steps: [...reads(3), { report: "done" }] });
  await assert.rejects(
    run({ steps: [{ report: "x" }], registry: first.registry, task: { toolCallId: "task_2", resume: first.result.delegationId } }),
    (e) => e.code === "INVALID_INPUT" && e.path === "options.rows",
  );
  assert.equal(first.registry.resumableList().length, 1, "the chain is still resumable");
});

/** A parent Agent whose task tool runs each delegation, its rows recorded, in one store. */
let sessions = 0;
async function session({ prefix, rows, registry, messages = [], calls, models }) {
  const callPrefix = `${prefix}-s${++sessions}`; // a provider's call ids are unique
  const w = world(calls.flatMap((c) => c.steps));
  const lead = createFauxCore({ provider: "acme", models: [{ id: "lead", contextWindow: 200000, maxTokens: 8000 }] });
  lead.setResponses([
    ...calls.map((c, i) => fauxAssistantMessage([fauxText(`Delegating ${i}.`), fauxToolCall("task", c.args, { id: `${callPrefix}-call-${i}` })], { stopReason: "toolUse" })),
    fauxAssistantMessage("All done."),
  ]);
  const s = {
    onRows: (batch) => {
      for (const row of batch) {
        const i = rows.findIndex((r) => r.id === row.id);
        if (i < 0) rows.push(row);
        else rows[i] = row;
      }
    },
  };
  const taskTool = {
    name: "task", label: "Task", description: "Delegate.", parameters: Type.Object({ agent: Type.String(), task: Type.String(), resume: Type.Optional(Type.String()) }),
    execute: async (toolCallId, args) => {
      const r = await runDelegate({ registry, task: { toolCallId, ...args }, models: models(w), streamFn: w.streamFn, tools: [readTool],
        systemPrompt: "You are a delegate.", summarize: async () => "## Goal\nx", rows: rows.slice(), onRows: s.onRows, retry: FAST_RETRY });
      return { content: [{ type: "text", text: r.content }], details: r.details };
    },
  };
  const agent = new Agent({ streamFn: lead.streamSimple, convertToLlm, toolExecution: "sequential",
    initialState: { systemPrompt: "lead", model: lead.getModel("lead"), tools: [taskTool], messages } });
  recordRows(agent, { idPrefix: prefix, onRows: s.onRows });
  await agent.prompt(`Session ${prefix}: look at the code.`);
  return agent;
}

/** A deterministic shuffle (mulberry32). */
function shuffled(rows, seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = rows.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}

test("5. rows read back in any order give the same parent context, registry and seeds", async () => {
  const rows = [];
  const registry = new dc.DelegationRegistry();
  await session({ prefix: "conv", rows, registry, models: (w) => [w.models[2]], calls: [
    { args: { agent: "explorer", task: "Survey the modules." }, steps: [...reads(3), { report: "Billing feeds tax." }] },
    { args: { agent: "tester", task: "Find the tests." }, steps: [...reads(2, 5), { report: "Tests in test/." }] },
  ] });
  assert.ok(rows.every((r) => typeof r.order === "number"), "every row the package wrote has an order key");
  const parent = dc.buildParentContext(rows).messages;
  assert.deepEqual(parent.map((m) => m.role), ["user", "assistant", "toolResult", "assistant", "toolResult", "assistant"]);
  const list = dc.DelegationRegistry.fromTranscript(rows).resumableList();
  const chain = registry.resolve(list[0].delegationId);
  const seedOf = (rs) => dc.seedDelegateMessages({ brief: chain.brief, rows: rs, chain: { toolCallIds: chain.toolCallIds, agent: chain.agent },
    binding: { provider: "acme", model: "big-32k" }, hardLimit: 16000 });
  const seed = seedOf(rows);
  for (const s of [1, 2, 3, 42, 2026]) {
    const mixed = shuffled(rows, s);
    assert.deepEqual(dc.buildParentContext(mixed).messages, parent, `seed ${s}: the parent context`);
    assert.deepEqual(dc.DelegationRegistry.fromTranscript(mixed).resumableList(), list, `seed ${s}: the registry`);
    assert.deepEqual(seedOf(mixed), seed, `seed ${s}: the seed`);
  }
});

test("6. a restart of the same conversation never writes over its earlier rows", async () => {
  const rows = [];
  let registry = new dc.DelegationRegistry();
  const steps = (k) => [{ args: { agent: "explorer", task: `Read batch ${k}.` }, steps: [...reads(2, 10 * k), { report: `Batch ${k} read.` }] }];
  await session({ prefix: "conv-1", rows, registry, models: (w) => [w.models[2]], calls: steps(1) });
  for (let restart = 2; restart <= 3; restart++) {
    const before = structuredClone(rows);
    registry = dc.DelegationRegistry.fromTranscript(rows);
    const { messages } = dc.buildParentContext(rows);
    await session({ prefix: "conv-1", rows, registry, messages, models: (w) => [w.models[2]], calls: steps(restart) });
    for (const old of before) assert.deepEqual(rows.find((r) => r.id === old.id), old, `restart ${restart}: row ${old.id} kept`);
    const parent = dc.buildParentContext(rows).messages;
    assert.equal(parent.filter((m) => m.role === "user").length, restart, `restart ${restart}: every prompt is in the parent's context`);
    assert.equal(parent.filter((m) => m.role === "toolResult").length, restart);
  }
});

test("7. a fallback leaves a trace: every failed model, the model that finished; a 429 is retried first", async () => {
  const { result, requests, events } = await run({
    steps: [{ read: "a.ts" }, { fail: "529 overloaded_error: Overloaded" }, { fail: "529 overloaded_error: Overloaded" }, { fail: "529 overloaded_error: Overloaded" }, { report: "done on big" }],
    models: [0, 2],
  });
  assert.equal(result.status, "completed", result.content);
  assert.deepEqual(requests, ["small-8k", "small-8k", "small-8k", "small-8k", "big-32k"], "two retries on the same model, then the fallback");
  assert.deepEqual(events.filter((e) => e.type === "retry").map((e) => e.attempt), [1, 2]);
  assert.deepEqual(result.details.modelFailures, [{ model: "acme/small-8k", code: "PROVIDER_ERROR", message: "529 overloaded_error: Overloaded" }]);
  assert.equal(result.details.finalModel, "acme/big-32k");
  assert.equal(result.details.modelId, "small-8k", "the binding a resume continues on");
});

test("8. the listed agent name finds its definition: normalizeAgentName is how the registry keys agents", async () => {
  const { registry } = await run({ steps: [{ report: "Reviewed." }], task: { agent: "codeReviewer" } });
  const definitions = new Map([["codeReviewer", { prompt: "review" }]].map(([name, d]) => [dc.normalizeAgentName(name), d]));
  const listed = registry.resumableList()[0].agent;
  assert.ok(definitions.get(dc.normalizeAgentName(listed)), `"${listed}" finds the definition`);
  assert.equal(dc.normalizeAgentName("agents/Code_Reviewer.md"), "code-reviewer");
});

test("9. an abort returns at once, whatever storage does; what it did not save is reported", async () => {
  const controller = new AbortController();
  let batches = 0;
  const onRows = async () => {
    if (++batches >= 2) await new Promise(() => {}); // writes that never settle
  };
  // the run is aborted while it works (its second read)
  const tools = [readToolOf(20, (path) => path === "src/f1.ts" && controller.abort())];
  const started = Date.now();
  const { result, registry } = await run({ steps: [...reads(3), { report: "x" }], onRows, signal: controller.signal, tools });
  assert.ok(Date.now() - started < 1000, `returned in ${Date.now() - started} ms`);
  assert.equal(result.status, "aborted");
  assert.ok(result.unsavedBatches >= 1, `unsaved: ${result.unsavedBatches}`);
  assert.equal(registry.resolve(result.delegationId).status, "aborted");
});

test("summarize is told the model the run is on; createSummarizer sends pi's summary request", async () => {
  const seen = [];
  const w = world([...reads(12), { fail: "503 Service Unavailable" }, { fail: "503 Service Unavailable" }, { fail: "503 Service Unavailable" }, ...reads(8, 20), { report: "ok" }]);
  const summarizerCore = createFauxCore({ provider: "acme", models: [{ id: "summarizer" }] });
  summarizerCore.setResponses(Array(20).fill(0).map(() => fauxAssistantMessage("## Goal\nRead the files.")));
  const piSummarize = createSummarizer({ streamFn: summarizerCore.streamSimple, model: summarizerCore.getModel("summarizer") });
  const result = await runDelegate({
    registry: new dc.DelegationRegistry(), models: [w.models[0], w.models[2]], streamFn: w.streamFn, systemPrompt: "s", tools: [readToolOf(90)], retry: FAST_RETRY,
    summarize: async (request, signal, context) => { seen.push(context.modelId); return piSummarize(request, signal, context); },
    task: { toolCallId: "t", agent: "explorer", task: "Read the files one by one, then report." },
  });
  assert.equal(result.status, "completed", result.content);
  assert.ok(result.run.contextCompactions >= 1);
  assert.ok(seen.includes("acme/small-8k"), JSON.stringify(seen));
  assert.equal(summarizerCore.state.callCount, seen.length, "every summary went through pi-ai");
});
