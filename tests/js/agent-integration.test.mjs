// Issue 3, part 5: the ready prepareNextTurnWithContext hook in a real pi-agent-core 0.85.1
// Agent, driven offline by pi-ai's faux provider. A delegate with an 8,192-token window
// runs 35 tool turns whose results are large; it compacts at turn boundaries, every
// request the "provider" receives fits the window, and it finishes. A brief larger than
// the window ends in SUBAGENT_CONTEXT_OVERFLOW.
import test from "node:test";
import assert from "node:assert/strict";
// SubagentRun passes pi's harness convertToLlm (ADR 0299, Context): it renders the
// compactionSummary message as a user message. The Agent's default one keeps only
// user/assistant/toolResult and would drop the summary.
import { Agent, convertToLlm } from "@earendil-works/pi-agent-core";
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { dc } from "./helpers.mjs";

const WINDOW = 8192;
const MAX_TOKENS = 1024;
const TOOL_TURNS = 35;
const SYSTEM_PROMPT = "You are a delegate. Read the files you are asked to read and report.";

/** The request a provider would receive, in tokens (chars / 4, as pi estimates). */
function requestTokens(context) {
  const messages = context.messages.reduce((n, m) => n + dc.estimateTokens(m), 0);
  const fixed = (context.systemPrompt ?? "").length + (context.tools ? JSON.stringify(context.tools).length : 0);
  return messages + Math.ceil(fixed / 4);
}

const chunkTool = {
  name: "read_chunk",
  label: "Read chunk",
  description: "Read a chunk of a file.",
  parameters: Type.Object({ path: Type.String() }),
  execute: async (_id, params) => ({
    // about 900 tokens per result: 4 results already exceed half the window
    content: [{ type: "text", text: `// ${params.path}\n` + "const line = 'some source code here';\n".repeat(90) }],
    details: { path: params.path },
  }),
};

/** `hook` for the Agent, keeping what it rejected with: pi's Agent keeps only the
 * error's message, and the tests check its `code`. */
function recordingErrors(hook) {
  const recording = {
    error: undefined,
    hook: async (ctx, signal) => {
      try {
        return await hook(ctx, signal);
      } catch (e) {
        recording.error = e;
        throw e;
      }
    },
  };
  return recording;
}

function setup({ brief, turns }) {
  const core = createFauxCore({ models: [{ id: "faux-small", contextWindow: WINDOW, maxTokens: MAX_TOKENS }] });
  const model = core.getModel("faux-small");
  const requests = [];
  const record = (context) => requests.push({ tokens: requestTokens(context), messages: context.messages.length });
  const responses = [];
  for (let i = 0; i < turns; i++) {
    responses.push((context) => {
      record(context);
      return fauxAssistantMessage([fauxText(`Reading file ${i}.`), fauxToolCall("read_chunk", { path: `src/file${i}.ts` }, { id: `call_${i}` })], { stopReason: "toolUse" });
    });
  }
  responses.push((context) => {
    record(context);
    return fauxAssistantMessage("All files read. Report: done.");
  });
  core.setResponses(responses);
  const budget = dc.contextBudget({ contextWindow: model.contextWindow, maxTokens: model.maxTokens });
  const summaries = [];
  const reports = [];
  const hook = dc.createPrepareNextTurn({
    budget,
    modelId: `${model.provider}/${model.id}`,
    summarize: async (request) => {
      summaries.push(request);
      const prompt = request.messages[0].content[0].text;
      assert.ok(prompt.includes("<conversation>\n"));
      assert.ok(prompt.includes(brief), "every summary request shows the task brief");
      assert.ok(request.estimatedInputTokens + request.maxTokens <= WINDOW, "the summary request fits the window");
      const files = [...prompt.matchAll(/path="(src\/file\d+\.ts)"/g)].map((m) => m[1]);
      return `## Goal\nRead every file of the task.\n\n## Progress\n### Done\n- [x] Read ${files.length} files (${files.at(-1) ?? "none"} last)`;
    },
    onOutcome: (r) => reports.push(r),
  });
  const recording = recordingErrors(hook);
  const agent = new Agent({
    streamFn: core.streamSimple,
    convertToLlm,
    initialState: { systemPrompt: SYSTEM_PROMPT, model, tools: [chunkTool], messages: [] },
    prepareNextTurnWithContext: recording.hook,
  });
  return { agent, core, model, budget, requests, summaries, reports, hook, brief, hookError: () => recording.error };
}

test("a real Agent delegate compacts at turn boundaries and finishes within its window", async () => {
  const s = setup({ brief: "Read src/file0.ts through src/file34.ts one by one, then report.", turns: TOOL_TURNS });
  await s.agent.prompt(s.brief);
  await s.agent.waitForIdle();
  assert.equal(s.hookError(), undefined);
  assert.equal(s.agent.state.errorMessage, undefined);
  const last = s.agent.state.messages.at(-1);
  assert.equal(last.role, "assistant");
  assert.equal(last.stopReason, "stop");
  assert.match(last.content[0].text, /Report: done/);
  assert.equal(s.requests.length, TOOL_TURNS + 1, "every turn reached the provider");
  const largest = Math.max(...s.requests.map((r) => r.tokens));
  for (const r of s.requests) assert.ok(r.tokens + MAX_TOKENS <= WINDOW, `request of ${r.tokens} tokens + ${MAX_TOKENS} output exceeds ${WINDOW}`);
  const last_ = s.reports.at(-1);
  assert.ok(last_.contextCompactions >= 2, `compactions: ${last_.contextCompactions}`);
  assert.equal(last_.contextDegraded, false);
  assert.equal(s.summaries.length >= last_.contextCompactions, true);
  // the whole transcript stays in agent.state; the brief was never lost from a request
  assert.ok(s.agent.state.messages.length > 2 * TOOL_TURNS);
  const toolResults = s.agent.state.messages.filter((m) => m.role === "toolResult").length;
  assert.equal(toolResults, TOOL_TURNS);
  console.log(
    `# agent integration: ${TOOL_TURNS} tool turns + 1 final, ${s.requests.length} requests, ${last_.contextCompactions} compactions over ${last_.boundaries} boundaries, largest request ${largest} tokens (+${MAX_TOKENS} output) vs window ${WINDOW} (hardLimit ${s.budget.hardLimit})`,
  );
});

test("every compacted request starts with the brief, then the summary", async () => {
  const core = createFauxCore({ models: [{ id: "faux-small", contextWindow: WINDOW, maxTokens: MAX_TOKENS }] });
  const model = core.getModel("faux-small");
  const brief = "BRIEF: read twelve files.";
  const seen = [];
  core.setResponses([
    ...Array.from({ length: 12 }, (_, i) => (context) => {
      seen.push(context.messages);
      return fauxAssistantMessage([fauxToolCall("read_chunk", { path: `f${i}` }, { id: `c${i}` })], { stopReason: "toolUse" });
    }),
    (context) => {
      seen.push(context.messages);
      return fauxAssistantMessage("done");
    },
  ]);
  const agent = new Agent({
    streamFn: core.streamSimple,
    convertToLlm,
    initialState: { systemPrompt: SYSTEM_PROMPT, model, tools: [chunkTool], messages: [] },
    prepareNextTurnWithContext: dc.createPrepareNextTurn({
      budget: dc.contextBudget(model),
      modelId: model.id,
      summarize: async () => "summary of earlier reads",
    }),
  });
  await agent.prompt(brief);
  let compactedRequests = 0;
  for (const messages of seen) {
    assert.equal(messages[0].role, "user");
    assert.equal(messages[0].content[0].text, brief, "the brief is verbatim the first message");
    if (messages[1]?.role === "user" && messages[1].content[0].text.includes("compacted into the following summary")) compactedRequests++;
    // provider-valid: every tool call answered, no orphan result
    const open = new Set();
    for (const m of messages) {
      if (m.role === "toolResult") assert.ok(open.delete(m.toolCallId), `orphan result ${m.toolCallId}`);
      else {
        assert.equal(open.size, 0);
        if (m.role === "assistant") for (const b of m.content) if (b.type === "toolCall") open.add(b.id);
      }
    }
  }
  assert.ok(compactedRequests > 0);
});

test("a failing summarizer degrades and the run still finishes, marked degraded", async () => {
  const s = setup({ brief: "Read the files.", turns: 15 });
  const reports = [];
  const hook = dc.createPrepareNextTurn({
    budget: s.budget,
    modelId: s.model.id,
    summarize: async () => {
      throw new Error("summary model is down");
    },
    onOutcome: (r) => reports.push(r),
  });
  const agent = new Agent({
    streamFn: s.core.streamSimple,
    convertToLlm,
    initialState: { systemPrompt: SYSTEM_PROMPT, model: s.model, tools: [chunkTool], messages: [] },
    prepareNextTurnWithContext: hook,
  });
  await agent.prompt(s.brief);
  assert.equal(agent.state.messages.at(-1).stopReason, "stop");
  for (const r of s.requests) assert.ok(r.tokens + MAX_TOKENS <= WINDOW);
  const degraded = reports.filter((r) => r.outcome === "degraded");
  assert.ok(degraded.length > 0);
  assert.equal(degraded[0].reason, "summaryFailed");
  assert.equal(degraded[0].summaryError, "summary model is down");
  assert.equal(reports.at(-1).contextDegraded, true);
});

test("a brief larger than the window ends in SUBAGENT_CONTEXT_OVERFLOW", async () => {
  const s = setup({ brief: "x".repeat(4 * WINDOW + 400), turns: 3 });
  // pre-flight: the hook, called by the host before the first request, refuses to send it
  await assert.rejects(
    s.hook({ context: { systemPrompt: SYSTEM_PROMPT, messages: [{ role: "user", content: s.brief, timestamp: 1 }], tools: [] } }),
    (e) => {
      assert.equal(e.code, "SUBAGENT_CONTEXT_OVERFLOW");
      assert.equal(e.retriable, false);
      assert.equal(e.modelId, "faux/faux-small");
      assert.equal(e.hardLimit, s.budget.hardLimit);
      assert.ok(e.tokens > WINDOW);
      assert.match(e.message, /^The delegated task does not fit in the context window of model "faux\/faux-small", even after compaction and history reduction\. Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once\.$/);
      return true;
    },
  );
  // in the Agent loop: a brief that passes the first request but not hardLimit fails at
  // the first boundary with the same error, and the run ends with its guidance text
  const t = setup({ brief: "y".repeat(4 * (s.budget.hardLimit + 100)), turns: 3 });
  await t.agent.prompt(t.brief);
  assert.equal(t.hookError()?.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.match(t.agent.state.errorMessage, /does not fit in the context window of model "faux\/faux-small"/);
  assert.equal(t.requests.length, 1, "no request was sent after the overflow");
});

test("a delegate whose single read is larger than its hardLimit ends at that boundary with SUBAGENT_CONTEXT_OVERFLOW", async () => {
  const core = createFauxCore({ models: [{ id: "faux-small", contextWindow: WINDOW, maxTokens: MAX_TOKENS }] });
  const model = core.getModel("faux-small");
  let requests = 0;
  core.setResponses([
    ...Array.from({ length: 5 }, (_, i) => () => {
      requests++;
      return fauxAssistantMessage([fauxToolCall("read_big", { path: `huge${i}.log` }, { id: `big_${i}` })], { stopReason: "toolUse" });
    }),
    () => {
      requests++;
      return fauxAssistantMessage("done");
    },
  ]);
  const bigTool = {
    name: "read_big", label: "Read", description: "Read a file.", parameters: Type.Object({ path: Type.String() }),
    // about 12,000 tokens: three times the delegate's hardLimit
    execute: async (_id, { path }) => ({ content: [{ type: "text", text: `${path}\n` + "log line with some text\n".repeat(2000) }], details: {} }),
  };
  let summaries = 0;
  const hook = dc.createPrepareNextTurn({ budget: dc.contextBudget(model), modelId: "faux/faux-small", summarize: async () => { summaries++; return "s"; } });
  const recording = recordingErrors(hook);
  const agent = new Agent({
    streamFn: core.streamSimple,
    convertToLlm,
    initialState: { systemPrompt: SYSTEM_PROMPT, model, tools: [bigTool], messages: [] },
    prepareNextTurnWithContext: recording.hook,
  });
  await agent.prompt("Read huge0.log and report.");
  assert.equal(recording.error?.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.match(agent.state.errorMessage, /does not fit in the context window of model "faux\/faux-small".*read less at once/);
  assert.equal(requests, 1, "the run ended at the first boundary: no re-reading loop");
  assert.equal(summaries, 0, "no summary request could help, none was sent");
  const toolResults = agent.state.messages.filter((m) => m.role === "toolResult");
  assert.equal(toolResults.length, 1);
});
