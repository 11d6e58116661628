// A complete host on pi (strict TypeScript): a parent Agent whose Task tool runs each
// delegation with delegate-context/pi's runDelegate, the rows persisted, a restart that
// rebuilds the registry and the parent's context from them, and a resume. Offline: the
// models and files are world.ts's (pi-ai's faux provider); everything else is what a host
// writes. Run: tests/js/runner-example.test.mjs compiles it (tsc, node16 and bundler) and
// runs it.
import { Agent, convertToLlm, type AgentMessage, type AgentTool } from "@earendil-works/pi-agent-core";
import type { Model } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { DelegationRegistry, buildParentContext, normalizeAgentName, resumeParameterSchema, type UiMessage } from "delegate-context";
import { createSummarizer, recordRows, runDelegate } from "delegate-context/pi";
import { USER_1, USER_2, models, readTool, streamFn } from "./world.js";

// ---- persistence: the host's store of rows, by id (a database in a real app) -----------
const rows = new Map<string, UiMessage>();
const store = (batch: UiMessage[]) => { for (const row of batch) rows.set(row.id, row); }; // a later copy replaces the earlier

// ---- delegates: their models (own first, then fallbacks), keyed as the registry names agents
const DELEGATE_MODELS = new Map<string, Model<any>[]>([[normalizeAgentName("tester"), [models.small, models.tiny, models.medium]]]);
const summarize = createSummarizer({ streamFn, model: models.summarizer });
let registry = new DelegationRegistry();

const taskTool: AgentTool = {
  name: "task", label: "Task", description: "Delegate a task to a sub-agent; only its report comes back.",
  parameters: Type.Object({
    agent: Type.String(), task: Type.String(), description: Type.Optional(Type.String()), model: Type.Optional(Type.String()),
    resume: Type.Optional(Type.String({ description: resumeParameterSchema().description })),
  }),
  execute: async (toolCallId, params) => {
    const args = params as { agent: string; task: string; description?: string; model?: string; resume?: string };
    const result = await runDelegate({
      registry, task: { toolCallId, ...args }, models: DELEGATE_MODELS.get(normalizeAgentName(args.agent)) ?? [models.small], streamFn,
      tools: [readTool], systemPrompt: `You are the ${args.agent} sub-agent. Read what the task needs, then report briefly.`,
      summarize, rows: [...rows.values()], onRows: store,
    });
    const failures = (result.details.modelFailures ?? []).map((f) => `${f.code === "SUBAGENT_CONTEXT_OVERFLOW" ? "skipped" : "failed"} ${f.model}`);
    console.log(`${args.description}: ${result.status}${result.code ? ` (${result.code})` : ""}, ${result.run.contextCompactions ?? 0} compactions` +
      `${result.run.contextDegraded ? ", degraded" : ""}${failures.map((f) => `, ${f}`).join("")}${result.details.resumedFrom ? ", resumed" : ""}` +
      `, ends on ${result.modelId}: ${result.content.slice(0, 60)}`);
    if (result.isError) throw new Error(result.content); // the parent reads it as the tool's error
    return { content: [{ type: "text", text: result.content }], details: result.details };
  },
};

// ---- the parent: one Agent per app start, its own rows recorded under the conversation's id
const PARENT_PROMPT = "You are the lead agent. Delegate reading to sub-agents with the task tool.";
function parent(systemPrompt: string, messages: AgentMessage[]): Agent {
  const agent = new Agent({ streamFn, convertToLlm, toolExecution: "sequential", initialState: { systemPrompt, model: models.lead, tools: [taskTool], messages } });
  recordRows(agent, { idPrefix: "conversation-1", onRows: store });
  return agent;
}

await parent(PARENT_PROMPT, []).prompt(USER_1);

// ---- restart: everything from the persisted rows, in whatever order the store returns them
const saved: UiMessage[] = JSON.parse(JSON.stringify([...rows.values()].reverse()));
registry.free();
registry = DelegationRegistry.fromTranscript(saved);
const { messages } = buildParentContext(saved);
console.log(`restart: ${saved.length} rows, ${registry.chainCount} chains, ${messages.length} parent messages`);
const second = parent(`${PARENT_PROMPT}\n\n${registry.resumablePrompt()}`, messages);
await second.prompt(USER_2);
const answer = second.state.messages.at(-1);
console.log(`answer: ${answer?.role === "assistant" ? answer.content.map((b) => (b.type === "text" ? b.text : "")).join("") : ""}`);
registry.free();
