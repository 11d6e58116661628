// The parent: a pi `Agent` on its own (faux) model whose `task` tool runs each delegation
// with delegate-context/pi's `runDelegate`, the package's runner (the run machine of the
// core: the Task row, the seed of a resume, the boundary hook on the delegate's model,
// retries and fallbacks, what the parent receives, the settlement). The timeline is
// written from its events (`onEvent`); only the report (or the error's guidance) comes
// back to the parent.
import { Agent, convertToLlm } from "@earendil-works/pi-agent-core";
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { API, MODELS, PROVIDER, key } from "./world.mjs";
import { PLANS } from "./story.mjs";
import { textOf } from "./host.mjs";
import { delegateOverhead, delegateSystemPrompt, fmt, readTool, scriptedProvider, summarizer } from "./models.mjs";

const short = (s, n = 110) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);
const count = (n, word) => `${fmt(n)} ${word}${n === 1 ? "" : "s"}`;
const pick = (o, keys) => Object.fromEntries(keys.filter((k) => o[k] !== undefined).map((k) => [k, o[k]]));

/**
 * The Task tool. `pi`: delegate-context/pi; `host`: `{transcript, registry}` (replaced on
 * a restart); `results`: where each delegation's outcome is collected (with what the
 * demo's provider saw).
 */
export function createTaskTool(dc, pi, host, timeline, results) {
  return {
    name: "task",
    label: "Task",
    description: "Delegate a task to a sub-agent; only its report comes back. To continue a sub-agent's session, pass its `resume` id from the list in your system prompt.",
    parameters: Type.Object({
      agent: Type.String(), task: Type.String(), description: Type.Optional(Type.String()), resume: Type.Optional(Type.String()),
    }),
    executionMode: "sequential",
    execute: async (toolCallId, args) => {
      const { transcript, registry } = host;
      const plan = PLANS[args.description];
      if (!plan) throw new Error(`the demo has no script for a delegation labelled "${args.description}"`);
      const provider = scriptedProvider(dc, toolCallId, plan.script);
      const { summarize, calls: summaries } = summarizer(plan.summaryFails);
      const budgetOf = (modelId) => dc.contextBudget(MODELS[Object.keys(MODELS).find((k) => key(MODELS[k]) === modelId)]);
      // the timeline, from the run's events
      let tag = args.agent;
      let alias;
      let boundary = 0;
      let seed;
      const say = (text, data) => timeline.line(tag, text, data);
      const onEvent = (e) => {
        switch (e.type) {
          case "started": {
            alias = timeline.alias(e.delegationId);
            tag = `${dc.normalizeAgentName(args.agent)} ${alias}`;
            timeline.line("parent", `task → ${tag}${e.resumedFrom ? `, resuming ${timeline.alias(e.resumedFrom)}` : ""}: "${args.description}" (${toolCallId}, model ${e.modelId}, hardLimit ${fmt(budgetOf(e.modelId).hardLimit)})`, { event: "task", alias, toolCallId });
            break;
          }
          case "seed": {
            seed = e.seed;
            const total = seed.tokens + seed.overheadTokens;
            say(`seed: ${seed.messages.length} messages, ${fmt(seed.tokens)} tokens + ${fmt(seed.overheadTokens)} request overhead = ${fmt(total)} ${total < seed.hardLimit ? "<" : "≥"} hardLimit ${fmt(seed.hardLimit)}; ` +
              `truncation dropped ${seed.dropped.toolCallIds.length} tool calls with their results and ${seed.dropped.messages} whole messages (${fmt(seed.dropped.tokens)} tokens), kept the brief and the newest turns`,
            { event: "seed", tokens: seed.tokens, overhead: seed.overheadTokens, hardLimit: seed.hardLimit, dropped: seed.dropped, truncated: seed.truncated });
            break;
          }
          case "boundary": {
            const r = e.report;
            const label = e.preflight ? `pre-flight on ${e.modelId}` : `boundary ${++boundary}`;
            const why = r.outcome === "unchanged" ? "below hardLimit" : r.outcome === "compacted" ? `${r.summarizedMessages} messages summarized` : `${r.reason}: "${r.summaryError ?? "no summary"}", ${r.droppedMessages} messages dropped`;
            say(`${label}: ${fmt(r.tokensBefore)} → ${fmt(r.tokensAfter)} / ${fmt(r.hardLimit)}, ${r.outcome} (${why})`, { event: "boundary", outcome: r.outcome, ...pick(r, ["tokensBefore", "tokensAfter", "hardLimit", "reason", "summaryError"]), modelId: e.modelId });
            break;
          }
          case "providerError":
            say(`provider error on ${e.modelId}: "${e.message}" (${e.contextTooLarge ? "CONTEXT_TOO_LARGE" : "not a context overflow"}, ${e.retriable ? "retriable" : "not retriable"})`,
              { event: "providerError", status: Number(/^(\d{3})\b/.exec(e.message)?.[1]) || undefined, message: e.message });
            break;
          case "retry":
            say(`retry ${e.attempt} on ${e.modelId} after ${fmt(e.delayMs)} ms`, { event: "retry", attempt: e.attempt });
            break;
          case "fallback":
            for (const f of e.modelFailures) say(`fallback skipped: ${f.model}, ${f.code}: ${f.message}`, { event: "fallbackSkipped", ...f, tokens: e.tokens });
            if (e.to) say(`fallback chosen: ${e.to} (carried ${fmt(e.tokens)} tokens, request overhead included, < hardLimit ${fmt(budgetOf(e.to).hardLimit)}); the run continues there`,
              { event: "fallbackChosen", model: e.to, tokens: e.tokens, hardLimit: budgetOf(e.to).hardLimit });
            break;
          case "ended":
            break;
        }
      };
      const models = [plan.model ?? "small", ...(plan.fallbacks ?? [])].map((k) => provider.models[k]);
      const result = await pi.runDelegate({
        registry, task: { toolCallId, ...args }, models, streamFn: provider.streamFn, tools: [readTool],
        systemPrompt: delegateSystemPrompt(dc.normalizeAgentName(args.agent)), summarize, rows: transcript.rows.slice(),
        onRows: (rows) => transcript.store(rows), now: () => transcript.clock(), onEvent,
      });
      if (result.status === "refused") {
        timeline.line("parent", `task refused, ${result.code}: ${result.content}`, { event: "taskRefused", code: result.code });
        throw new Error(result.content);
      }
      const e = result.error;
      if (e?.code === "SUBAGENT_CONTEXT_OVERFLOW" && e.tokens !== undefined) {
        // the boundary that could not fit (its hook threw, so it reported no outcome)
        say(`boundary ${++boundary}: ${fmt(e.tokens)} → ✗ / ${fmt(e.hardLimit)}, ${e.code} (brief + newest messages do not fit)`,
          { event: "boundary", outcome: e.code, tokensBefore: e.tokens, hardLimit: e.hardLimit, modelId: e.modelId });
      }
      // every request against its model's window, output cap included; the tightest one shown
      const requests = provider.requests;
      const margin = (r) => r.contextWindow - r.tokens - r.maxTokens;
      const tightest = requests.reduce((a, r) => (margin(r) < margin(a) ? r : a), requests[0]);
      const fits = requests.every((r) => margin(r) >= 0);
      say(
        `${result.status}: ${count(requests.length, "request")}${tightest ? `, ${fits ? "all" : "NOT all"} within the window (tightest: ${fmt(tightest.tokens)} + ${fmt(tightest.maxTokens)} output ${margin(tightest) >= 0 ? "≤" : ">"} ${fmt(tightest.contextWindow)} on ${tightest.model})` : ""}; ` +
          `${count(result.run.contextCompactions ?? 0, "context rewrite")}, ${count(summaries.count, "summary request")}, ${result.run.contextDegraded ? "degraded" : "not degraded"}`,
        { event: "finished", status: result.status, fits },
      );
      const budget = budgetOf(result.modelId);
      results.push({ alias, agent: dc.normalizeAgentName(args.agent), toolCallId, resumedFrom: result.details.resumedFrom, seed, budget, requests, summaries: summaries.count, ...result });
      if (result.isError) {
        timeline.line(tag, `the parent receives (tool error, ${result.code}): "${result.content}"`, { event: "parentError", code: result.code });
        throw new Error(result.content);
      }
      timeline.line(tag, result.run.contextDegraded
        ? `the parent receives the report with the notice first: "${short(result.content, 150)}"`
        : `the parent receives the report: "${short(result.content)}"`, { event: "report", degraded: Boolean(result.run.contextDegraded) });
      return { content: [{ type: "text", text: result.content }], details: result.details };
    },
  };
}

/**
 * The parent Agent of one app session: `turns` are its (faux) responses, `messages` its
 * context (rebuilt from the transcript after a restart); its own rows recorded with
 * delegate-context/pi's `recordRows`.
 */
export function createParent({ pi, systemPrompt, messages, turns, taskTool, transcript }) {
  const core = createFauxCore({ api: API, provider: PROVIDER, models: [MODELS.lead] });
  core.setResponses(turns);
  const agent = new Agent({
    streamFn: core.streamSimple, convertToLlm, toolExecution: "sequential",
    initialState: { systemPrompt, model: core.getModel(MODELS.lead.id), tools: [taskTool], messages },
  });
  pi.recordRows(agent, { idPrefix: "invoice-service", onRows: (rows) => transcript.store(rows), now: () => transcript.clock() });
  return agent;
}

/** A parent turn calling `task` with `args` (a function of the request's context, or an object). */
export const callTask = (id, say, args) => (context) =>
  fauxAssistantMessage([fauxText(say), fauxToolCall("task", typeof args === "function" ? args(context) : args, { id })], { stopReason: "toolUse" });

/** The parent's closing turn: one line per delegation of this prompt, from the tool results it saw. */
export const closing = (intro) => (context) => {
  const lastUser = context.messages.findLastIndex((m) => m.role === "user");
  const results = context.messages.slice(lastUser).filter((m) => m.role === "toolResult");
  const lines = results.map((m) => `- ${m.isError ? "failed: " : ""}${short(textOf(m.content), 140)}`);
  return fauxAssistantMessage([fauxText(`${intro}\n${lines.join("\n")}`)]);
};

export { delegateOverhead, fmt };
