// A complete host on pi (strict TypeScript): a parent Agent whose Task tool runs each
// delegation with delegate-context/pi's runDelegate, the rows persisted, a restart that
// rebuilds the registry and the parent's context from them, and a resume. Offline: the
// models and files are world.ts's (pi-ai's faux provider); everything else is what a host
// writes. Run: tests/js/runner-example.test.mjs compiles it (tsc, node16 and bundler) and
// runs it.
import { Agent, convertToLlm, type AgentMessage, type AgentTool } from "@earendil-works/pi-agent-core";
import type { Model } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { DelegationRegistry, buildParentContext, resumeParameterSchema, type SummaryRequest, type UiMessage } from "delegate-context";
import { recordRows, runDelegate } from "delegate-context/pi";
import { USER_1, USER_2, models, readTool, streamFn } from "./world.js";

// ---- persistence: the host's store of rows (a database in a real app) ----------------
const rows: UiMessage[] = [];
const store = (batch: UiMessage[]) => {
  for (const row of batch) {
    const i = rows.findIndex((r) => r.id === row.id);
    if (i < 0) rows.push(row);
    else rows[i] = row; // the settled Task row replaces its running copy in place
  }
};

// ---- delegates: their models (fallbacks after the first), prompt and summarizer ------
const DELEGATE_MODELS: Record<string, Model<any>[]> = { tester: [models.small, models.tiny, models.medium] };
const summarize = async (request: SummaryRequest, signal?: AbortSignal) =>
  (await streamFn(models.summarizer, { systemPrompt: request.systemPrompt, messages: convertToLlm(request.messages) }, { maxTokens: request.maxTokens, signal })).result();
let registry = new DelegationRegistry();

const taskTool: AgentTool = {
  name: "task", label: "Task", description: "Delegate a task to a sub-agent; only its report comes back.",
  parameters: Type.Object({
    agent: Type.String(), task: Type.String(), description: Type.Optional(Type.String()),
    resume: Type.Optional(Type.String({ description: resumeParameterSchema().description })),
  }),
  execute: async (toolCallId, params) => {
    const args = params as { agent: string; task: string; description?: string; resume?: string };
    const result = await runDelegate({
      registry, task: { toolCallId, ...args }, models: DELEGATE_MODELS[args.agent] ?? [models.small], streamFn,
      tools: [readTool], systemPrompt: `You are the ${args.agent} sub-agent. Read what the task needs, then report briefly.`,
      summarize, rows, onRows: store,
    });
    console.log(`${args.description}: ${result.status}${result.code ? ` (${result.code})` : ""}, ${result.details.contextCompactions ?? 0} compactions` +
      `${result.details.contextDegraded ? ", degraded" : ""}${result.details.modelFailures ? `, skipped ${result.details.modelFailures.map((f) => f.model).join(", ")}` : ""}` +
      `${result.details.resumedFrom ? ", resumed" : ""}, ends on ${result.modelId}: ${result.content.slice(0, 60)}`);
    if (result.isError) throw new Error(result.content); // the parent reads it as the tool's error
    return { content: [{ type: "text", text: result.content }], details: result.details };
  },
};

// ---- the parent: one Agent per app session, its own rows recorded -------------------
const PARENT_PROMPT = "You are the lead agent. Delegate reading to sub-agents with the task tool.";
function parent(session: string, systemPrompt: string, messages: AgentMessage[]): Agent {
  const agent = new Agent({ streamFn, convertToLlm, toolExecution: "sequential", initialState: { systemPrompt, model: models.lead, tools: [taskTool], messages } });
  recordRows(agent, { idPrefix: session, onRows: store });
  return agent;
}

await parent("s1", PARENT_PROMPT, []).prompt(USER_1);

// ---- restart: everything from the persisted rows ------------------------------------
const saved: UiMessage[] = JSON.parse(JSON.stringify(rows));
registry.free();
registry = DelegationRegistry.fromTranscript(saved);
const { messages } = buildParentContext(saved);
console.log(`restart: ${saved.length} rows, ${registry.chainCount} chains, ${messages.length} parent messages`);
const second = parent("s2", `${PARENT_PROMPT}\n\n${registry.resumablePrompt()}`, messages);
await second.prompt(USER_2);
const answer = second.state.messages.at(-1);
console.log(`answer: ${answer?.role === "assistant" ? answer.content.map((b) => (b.type === "text" ? b.text : "")).join("") : ""}`);
registry.free();
