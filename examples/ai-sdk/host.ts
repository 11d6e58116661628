// A complete host on the Vercel AI SDK 7 (strict TypeScript): a parent ToolLoopAgent whose
// `task` tool runs each delegation with delegate-context/ai (compaction at every step, a
// fallback, rows persisted), a restart that rebuilds the registry and the parent's context
// from the rows, and a resume. Offline: the models and files are world.ts's (the SDK's mock
// models); everything else is what a host writes. Run: tests/js/ai-example.test.mjs.
import { ToolLoopAgent, type ModelMessage } from "ai";
import { DelegationRegistry, normalizeAgentName, type UiMessage } from "delegate-context";
import { createRowRecorder, createSummarizer, delegateTool, parentMessages, type DelegateModel } from "delegate-context/ai";
import { USER_1, USER_2, models, readTool } from "./world.js";

// ---- persistence: the host's store of rows, by id (a database in a real app) -----------
const rows = new Map<string, UiMessage>();
const store = (batch: UiMessage[]) => { for (const row of batch) rows.set(row.id, row); };

// ---- delegates: their models (the SDK knows no window: we say it), tools, instructions --
const small: DelegateModel = { model: models.small, contextWindow: 8192, maxTokens: 1024 };
const MODELS = new Map<string, DelegateModel[]>([
  [normalizeAgentName("tester"), [small, { model: models.tiny, contextWindow: 4096, maxTokens: 1024 }, { model: models.medium, contextWindow: 32000, maxTokens: 8000 }]],
]);
let registry = new DelegationRegistry();
const task = () => delegateTool({
  registry, rows: [...rows.values()], onRows: store, summarize: createSummarizer({ model: models.summarizer }),
  agent: (name) => ({ models: MODELS.get(normalizeAgentName(name)) ?? [small], tools: { read: readTool },
    instructions: `You are the ${name} sub-agent. Read what the task needs, then report briefly.` }),
  onEvent: (e) => { if (e.type === "ended" || e.type === "fallback") console.log(`  ${JSON.stringify(e)}`); },
});

// ---- the parent: one agent per app start, its own messages recorded per step -----------
async function ask(prompt: string, history: ModelMessage[], instructions: string): Promise<string> {
  const recorder = createRowRecorder({ idPrefix: "conversation-1", onRows: store, firstIndex: history.length });
  const messages: ModelMessage[] = [...history, { role: "user", content: prompt }];
  await recorder.prompt(messages.slice(history.length));
  const parent = new ToolLoopAgent({ model: models.lead, instructions, tools: { task: task() }, onStepEnd: (step) => recorder.onStepEnd(step) });
  const result = await parent.generate({ messages });
  recorder.free();
  return result.text;
}

const INSTRUCTIONS = "You are the lead agent. Delegate reading to sub-agents with the task tool.";
console.log(`answer: ${await ask(USER_1, [], INSTRUCTIONS)}`);

// ---- restart: everything from the persisted rows, in whatever order the store returns them
const saved: UiMessage[] = JSON.parse(JSON.stringify([...rows.values()].reverse()));
registry.free();
registry = DelegationRegistry.fromTranscript(saved);
const history = parentMessages(saved);
console.log(`restart: ${saved.length} rows, ${registry.chainCount} chains, ${history.length} parent messages`);
console.log(`answer: ${await ask(USER_2, history, `${INSTRUCTIONS}\n\n${registry.resumablePrompt()}`)}`);
registry.free();
