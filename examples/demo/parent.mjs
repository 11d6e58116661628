// The parent: a pi `Agent` on its own (faux) model whose `task` tool runs a delegation
// the way the host's Task tool does (ADR 0279): `registry.start` (a new chain, or a
// `resume` of one), the Task row, the delegate's run (seeded within budget on a resume),
// then `registry.settle` and the Task row rewritten with the outcome. Only the report
// (or the error's guidance) comes back to the parent.
import { Agent, convertToLlm } from "@earendil-works/pi-agent-core";
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { API, MODELS, PROVIDER, key } from "./world.mjs";
import { PLANS } from "./story.mjs";
import { textOf } from "./host.mjs";
import { delegateOverhead, fmt, runDelegate } from "./delegate.mjs";

const short = (s, n = 110) => (s.length > n ? `${s.slice(0, n - 1)}…` : s);

/**
 * The Task tool. `host`: `{transcript, registry}` (replaced on a restart); `results`:
 * where each delegation's outcome is collected.
 */
export function createTaskTool(dc, host, timeline, results) {
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
      const binding = plan.model ? { key: key(MODELS[plan.model]), modelId: MODELS[plan.model].id } : undefined;
      const toolArgs = { agent: args.agent, task: args.task, description: args.description, ...(args.resume ? { resume: args.resume } : {}) };
      let run;
      try {
        run = registry.start({ toolCallId, ...toolArgs, binding }, transcript.rows);
      } catch (e) {
        // a refused resume (clause 4): a Task row with details.error, and the model reads why
        transcript.push({ id: toolCallId, role: "tool", content: "", toolName: "task", toolCallId, toolStatus: "error", isError: true, toolArgs,
          toolResult: { content: [{ type: "text", text: e.message }], details: { agent: args.agent, error: e.code } } });
        transcript.persist();
        timeline.line("parent", `task refused, ${e.code}: ${e.message}`, { event: "taskRefused", code: e.code });
        throw e;
      }
      const alias = timeline.alias(run.delegationId);
      const tag = `${run.agent} ${alias}`;
      // a new run uses its definition's model; a resume keeps the chain's (clause 4)
      const modelKey = Object.keys(MODELS).find((k) => MODELS[k].id === run.modelBinding.modelId);
      const model = MODELS[modelKey];
      const budget = dc.contextBudget(model);
      timeline.line("parent", `task → ${tag}${run.resumedFrom ? `, resuming ${timeline.alias(run.resumedFrom)}` : ""}: "${args.description}" (${toolCallId}, model ${key(model)}, hardLimit ${fmt(budget.hardLimit)})`, { event: "task", alias, toolCallId });
      const taskRow = transcript.push({
        id: toolCallId, role: "tool", content: "", toolName: "task", toolCallId, toolStatus: "running",
        toolArgs, toolResult: { details: { delegationId: run.delegationId, agent: run.agent, status: "running", modelId: model.id, ...(run.resumedFrom ? { resumedFrom: run.resumedFrom } : {}) } },
      });
      taskRow.toolResult.details.startedAt = taskRow.createdAt;
      transcript.persist();

      let seed;
      if (run.resumedFrom) {
        // ADR 0299 §7: the chain's history, truncated so that the first request (messages,
        // system prompt and tools) fits.
        const overhead = delegateOverhead(dc, run.agent);
        seed = dc.seedDelegateMessages({
          brief: run.brief, rows: transcript.rows, chain: { toolCallIds: run.toolCallIds, agent: run.agent },
          binding: { provider: PROVIDER, model: model.id, api: API }, hardLimit: budget.hardLimit, overheadTokens: overhead,
        });
        const total = seed.tokens + seed.overheadTokens;
        timeline.line(tag,
          `seed: ${seed.messages.length} messages, ${fmt(seed.tokens)} tokens + ${fmt(overhead)} request overhead = ${fmt(total)} ${total < budget.hardLimit ? "<" : "≥"} hardLimit ${fmt(budget.hardLimit)}; ` +
          `truncation dropped ${seed.dropped.toolCallIds.length} tool calls with their results and ${seed.dropped.messages} whole messages (${fmt(seed.dropped.tokens)} tokens), kept the brief and the newest turns`,
          { event: "seed", tokens: seed.tokens, overhead, hardLimit: budget.hardLimit, dropped: seed.dropped, truncated: seed.truncated });
      }

      const result = await runDelegate(dc, {
        tag, idPrefix: alias, agentName: run.agent, plan: { ...plan, model: modelKey }, prompt: args.task, seed: seed?.messages,
        transcript, owner: { parentToolCallId: toolCallId, agentName: run.agent }, timeline,
      });

      const childRows = transcript.childRows(toolCallId);
      const settled = registry.settle({ delegationId: run.delegationId, status: result.status, reads: dc.countChainReads(childRows), rows: childRows });
      const ok = result.status === "completed";
      // what the app stores: the subagent JSON (the parent context keeps `data.response`
      // only), or the error text the parent received
      const raw = ok
        ? JSON.stringify({ success: true, data: { prompt: args.task, response: result.text, toolCalls: childRows.filter((r) => r.role === "tool").map((r) => ({ name: r.toolName, args: r.toolArgs })), stats: { requests: result.requests.length, ...result.run } } })
        : result.text;
      transcript.rewrite(toolCallId, (row) => ({
        ...row, toolStatus: ok ? "success" : "error", isError: !ok,
        toolResult: {
          content: [{ type: "text", text: raw }],
          details: {
            // modelId stays the run's binding (what a resume continues on); a fallback is recorded beside it
            ...row.toolResult.details, status: result.status, ...(result.modelId === key(model) ? {} : { fallbackModelId: result.modelId.split("/")[1] }),
            contextCompactions: result.run.contextCompactions, contextDegraded: result.run.contextDegraded,
            ...(result.modelFailures.length ? { modelFailures: result.modelFailures } : {}), ...(ok ? {} : { error: result.error.code }),
          },
        },
      }));
      transcript.persist();
      results.push({ alias, agent: run.agent, toolCallId, delegationId: run.delegationId, resumedFrom: run.resumedFrom, settled, seed, budget, ...result });

      if (!ok) {
        timeline.line(tag, `the parent receives (tool error, ${result.error.code}): "${result.text}"`, { event: "parentError", code: result.error.code });
        throw new Error(result.text);
      }
      const text = dc.subagentResultForParent(raw).text; // seed 001, live path
      timeline.line(tag, result.report.degraded
        ? `the parent receives the report with the notice first: "${short(text, 150)}"`
        : `the parent receives the report: "${short(text)}"`, { event: "report", degraded: result.report.degraded });
      return { content: [{ type: "text", text }], details: { delegationId: run.delegationId, status: result.status } };
    },
  };
}

/**
 * The parent Agent of one app session: `turns` are its (faux) responses, `messages` its
 * context (rebuilt from the transcript after a restart).
 */
export function createParent({ systemPrompt, messages, turns, taskTool, transcript, session }) {
  const core = createFauxCore({ api: API, provider: PROVIDER, models: [MODELS.lead] });
  core.setResponses(turns);
  const agent = new Agent({
    streamFn: core.streamSimple, convertToLlm, toolExecution: "sequential",
    initialState: { systemPrompt, model: core.getModel(MODELS.lead.id), tools: [taskTool], messages },
  });
  transcript.recordAgent(agent, {}, { idPrefix: `p${session}`, skipTools: ["task"], users: true });
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
