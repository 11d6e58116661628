// The delegate runner: one delegation as a host runs it on pi's real client. A pi
// `Agent` on the delegate's own model (offline: pi-ai's faux provider plays the model,
// following a script), a `read` tool over the faux world, and delegate-context's
// `createPrepareNextTurn` hook at every turn boundary (compact, degrade, or fail with
// SUBAGENT_CONTEXT_OVERFLOW). A provider error moves the run to the next fallback model
// that can hold the carried context (`selectFallbackModel`, ADR 0299 §6); what the
// parent receives is `reportForParent` (a degraded run says so) or the error's message.
import { Agent, convertToLlm } from "@earendil-works/pi-agent-core";
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { API, FILES, MODELS, PROVIDER, key, requestTokens } from "./world.mjs";
import { textOf } from "./host.mjs";

const readTool = {
  name: "read",
  label: "Read",
  description: "Read a file of the repository (whole).",
  parameters: Type.Object({ path: Type.String() }),
  execute: async (_id, { path }) => {
    if (!FILES.has(path)) throw new Error(`ENOENT: ${path}`);
    const text = FILES.get(path);
    return { content: [{ type: "text", text }], details: { path, lines: text.split("\n").length } };
  },
};

export const delegateSystemPrompt = (agent) =>
  `You are the ${agent} sub-agent of a coding assistant. Read what the task needs with the read tool, one file at a time, then answer with a short report.`;

/** The request overhead of a delegate (system prompt + tool schemas), as the hook counts it. */
export const delegateOverhead = (dc, agent) => dc.requestOverheadTokens({ systemPrompt: delegateSystemPrompt(agent), tools: [readTool] });

/**
 * A faux provider for one delegate: answers each request with the next step of
 * `script` (`{say, read}` → a tool call; `{report}` → the final answer; `{fail}` → a
 * provider error), records every request's size, and rejects one that does not fit the
 * model's window (a 400, as a real provider would).
 */
function scriptedProvider(dc, idPrefix, script, requests) {
  const core = createFauxCore({ api: API, provider: PROVIDER, models: Object.values(MODELS) });
  let reads = 0;
  core.setResponses(
    script.map((step) => (context, _options, _state, model) => {
      const tokens = requestTokens(dc, context);
      requests.push({ model: key(model), tokens, maxTokens: model.maxTokens, contextWindow: model.contextWindow });
      if (tokens + model.maxTokens > model.contextWindow) {
        return fauxAssistantMessage([], { stopReason: "error", errorMessage: `400 prompt is too long: ${tokens} tokens + ${model.maxTokens} output > ${model.contextWindow} maximum` });
      }
      if (step.fail) return fauxAssistantMessage([], { stopReason: "error", errorMessage: step.fail });
      if (step.report) return fauxAssistantMessage(step.report);
      return fauxAssistantMessage([fauxText(step.say), fauxToolCall("read", { path: step.read }, { id: `${idPrefix}-read-${++reads}` })], { stopReason: "toolUse" });
    }),
  );
  return core;
}

/**
 * The host's summarizer: sends the library's summary request to a (faux) model and
 * returns its text; a failed response rejects, which the hook turns into a degraded
 * turn. `failWith`: the error every request of this summarizer gets.
 */
function summarizer(failWith) {
  const core = createFauxCore({ api: API, provider: PROVIDER, models: [MODELS.summarizer] });
  const model = core.getModel(MODELS.summarizer.id);
  const answer = (context) => {
    if (failWith) return fauxAssistantMessage([], { stopReason: "error", errorMessage: failWith });
    const prompt = textOf(context.messages[0].content);
    const files = [...new Set([...prompt.matchAll(/read\(path="([^"]+)"\)/g)].map((m) => m[1]))];
    const before = /<previous-summary>[\s\S]*?Read (\d+) files/.exec(prompt);
    const done = Number(before?.[1] ?? 0) + files.length;
    return fauxAssistantMessage(`## Goal\nThe task brief (kept verbatim above).\n\n## Progress\n### Done\n- [x] Read ${done} files (${files.at(-1) ?? "none"} last)\n\n## Next Steps\n1. Continue with the remaining files, then report.`);
  };
  const calls = { count: 0 };
  const summarize = async (request, signal) => {
    calls.count++;
    core.setResponses([answer]);
    const msg = await core.streamSimple(model, { systemPrompt: request.systemPrompt, messages: request.messages }, { maxTokens: request.maxTokens, signal }).result();
    if (msg.stopReason === "error" || msg.stopReason === "aborted") throw new Error(`summary request failed: ${msg.errorMessage}`);
    return textOf(msg.content);
  };
  return { summarize, calls };
}

/** The run's counts across the hooks of its models (one hook per model). */
function mergeRuns(runs) {
  const sum = (k) => runs.reduce((n, r) => n + (r[k] ?? 0), 0);
  return {
    boundaries: sum("boundaries"), contextCompactions: sum("contextCompactions"),
    contextDegraded: runs.some((r) => r.contextDegraded), droppedMessages: sum("droppedMessages"), droppedTokens: sum("droppedTokens"),
  };
}

/**
 * Runs one delegation. `plan`: `{model, fallbacks?, script, summaryFails?}` (models as
 * keys of MODELS); `prompt`: the task of this run; `seed`: the resumed run's initial
 * messages. `transcript`/`owner`: where its rows go (ids start with `idPrefix`).
 * `tag`: its name on the `timeline`.
 * Resolves `{status, modelId, text (what the parent receives), error?, report?, run,
 * requests, messages, modelFailures}`.
 */
export async function runDelegate(dc, { tag, idPrefix, agentName, plan, prompt, seed, transcript, owner, timeline }) {
  const say = (text, data) => timeline.line(tag, text, data);
  const requests = [];
  const core = scriptedProvider(dc, idPrefix, plan.script, requests);
  const { summarize, calls: summaries } = summarizer(plan.summaryFails);
  const systemPrompt = delegateSystemPrompt(agentName);
  const overheadTokens = delegateOverhead(dc, agentName);
  const queue = [plan.model, ...(plan.fallbacks ?? [])].map((k) => core.getModel(MODELS[k].id));
  let model = queue.shift();
  const runs = [];
  const modelFailures = [];
  let hookError;
  let boundary = 0;

  // The hook of one model: its own budget; every boundary goes to the timeline.
  const hookFor = (m) => {
    const budget = dc.contextBudget(m);
    const modelId = key(m);
    const slot = runs.push({}) - 1;
    let label = "";
    const hook = dc.createPrepareNextTurn({
      budget, modelId, summarize,
      onOutcome: (r) => {
        runs[slot] = r.run;
        const why = r.outcome === "unchanged" ? "below hardLimit" : r.outcome === "compacted" ? `${r.summarizedMessages} messages summarized` : `${r.reason}: "${r.summaryError ?? "no summary"}", ${r.droppedMessages} messages dropped`;
        say(`${label}: ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)} / ${fmt(r.hardLimit)}, ${r.outcome} (${why})`, { event: "boundary", outcome: r.outcome, ...pick(r, ["tokensBefore", "tokensAfter", "hardLimit", "reason", "summaryError"]), modelId });
      },
    });
    const wrapped = async (ctx, signal, preflight = false) => {
      label = preflight ? `pre-flight on ${modelId}` : `boundary ${++boundary}`;
      try {
        return await hook(ctx, signal);
      } catch (e) {
        hookError = e; // pi's Agent keeps only the message: keep the code here
        say(`${label}: ${fmt(e.tokens)} → ✗ / ${fmt(e.hardLimit)}, ${e.code} (brief + newest messages do not fit)`, { event: "boundary", outcome: e.code, tokensBefore: e.tokens, hardLimit: e.hardLimit, modelId });
        throw e;
      }
    };
    return { wrapped, budget };
  };

  let { wrapped } = hookFor(model);
  const agent = new Agent({
    streamFn: core.streamSimple,
    convertToLlm, // renders the compactionSummary message (the Agent's default would drop it)
    toolExecution: "sequential",
    initialState: { systemPrompt, model, tools: [readTool], messages: seed ?? [] },
    prepareNextTurnWithContext: (ctx, signal) => wrapped(ctx, signal),
  });
  const unsubscribe = transcript.recordAgent(agent, owner, { idPrefix });

  // A pre-flight: the hook, called before a first request on a context pi did not build
  // (a seed, a fallback's carried context). The context to send, or null if it cannot fit.
  const preflight = async (messages) => {
    try {
      const out = await wrapped({ context: { systemPrompt, messages, tools: [readTool] } }, undefined, true);
      return out ? out.context.messages : messages;
    } catch {
      return null; // SUBAGENT_CONTEXT_OVERFLOW, kept in hookError
    }
  };

  const task = { role: "user", content: [{ type: "text", text: prompt }], timestamp: Date.now() };
  if (!seed) await agent.prompt(task);
  else {
    const first = await preflight([...seed, task]);
    if (first) {
      agent.state.messages = first;
      await agent.continue();
    }
  }

  // A provider error ends pi's run: try the next fallback that can hold the context.
  while (agent.state.errorMessage && !hookError) {
    const failure = providerError(agent.state.errorMessage);
    const cls = dc.classifyProviderError(failure);
    say(`provider error on ${key(model)}: "${failure.message}" (${cls.contextTooLarge ? "CONTEXT_TOO_LARGE" : "not a context overflow"}, ${cls.retriable ? "retriable" : "not retriable"})`, { event: "providerError", ...failure });
    if (queue.length === 0) break;
    const carried = agent.state.messages.slice(0, -1); // without the failed response
    const choice = dc.selectFallbackModel({ messages: carried, candidates: queue, overheadTokens });
    for (const f of choice.modelFailures) {
      modelFailures.push(f);
      say(`fallback skipped: ${f.model}, ${f.code}: ${f.message}`, { event: "fallbackSkipped", ...f, tokens: choice.tokens });
    }
    if (!choice.model) break;
    queue.splice(0, choice.index + 1);
    model = choice.model;
    say(`fallback chosen: ${key(model)} (carried ${fmt(choice.tokens)} tokens, request overhead included, < hardLimit ${fmt(choice.budget.hardLimit)}); the run continues there`, { event: "fallbackChosen", model: key(model), tokens: choice.tokens, hardLimit: choice.budget.hardLimit });
    ({ wrapped } = hookFor(model));
    const next = await preflight(carried);
    if (!next) break;
    agent.state.messages = next;
    agent.state.model = model;
    await agent.continue();
  }
  unsubscribe();

  const run = mergeRuns(runs);
  const modelId = key(model);
  const last = agent.state.messages.at(-1);
  const result = { status: "completed", modelId, run, requests, messages: agent.state.messages, modelFailures, summaries: summaries.count };
  if (hookError || agent.state.errorMessage) {
    // clause 5: a provider overflow becomes SUBAGENT_CONTEXT_OVERFLOW with guidance; the
    // hook's own overflow already is one (pi's Agent kept only its message)
    const error = hookError ?? dc.errorForParent(providerError(agent.state.errorMessage), { modelId });
    Object.assign(result, { status: "failed", error, text: error.message ?? String(error) });
  } else {
    const report = dc.reportForParent({ report: textOf(last.content), run, modelId });
    Object.assign(result, { report, text: report.text });
  }
  // every request against its model's window, output cap included; the tightest one shown
  const margin = (r) => r.contextWindow - r.tokens - r.maxTokens;
  const tightest = requests.reduce((a, r) => (margin(r) < margin(a) ? r : a), requests[0]);
  const fits = requests.every((r) => margin(r) >= 0);
  say(
    `${result.status}: ${count(requests.length, "request")}${tightest ? `, ${fits ? "all" : "NOT all"} within the window (tightest: ${fmt(tightest.tokens)} + ${fmt(tightest.maxTokens)} output ${margin(tightest) >= 0 ? "≤" : ">"} ${fmt(tightest.contextWindow)} on ${tightest.model})` : ""}; ` +
      `${count(run.contextCompactions, "context rewrite")}, ${count(summaries.count, "summary request")}, ${run.contextDegraded ? "degraded" : "not degraded"}`,
    { event: "finished", status: result.status, fits },
  );
  return result;
}

/** The provider error pi's Agent kept as a message (the demo's provider, like many, puts the HTTP status first). */
const providerError = (message) => ({ status: Number(/^(\d{3})\b/.exec(message)?.[1]) || undefined, message });
const count = (n, word) => `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;
export const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));
