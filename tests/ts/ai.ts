// Type-checked (tsc --noEmit, strict, skipLibCheck false), never run: delegate-context/ai
// against the Vercel AI SDK 7's own types. createPrepareStep is a PrepareStepFunction for
// ToolLoopAgent, generateText and streamText with no cast; wrong calls are rejected.
import { ToolLoopAgent, generateText, jsonSchema, streamText, tool, type LanguageModel, type ModelMessage, type PrepareStepFunction, type Tool } from "ai";
import { DelegationRegistry, type UiMessage } from "delegate-context";
import {
  createPrepareStep, createRowRecorder, createSummarizer, delegateTool, modelKey, parentMessages, runDelegate, toModelMessages,
  type BoundaryReport, type DelegateModel, type DelegateResult,
} from "delegate-context/ai";

declare const model: LanguageModel;
declare const rows: UiMessage[];
const read = tool({ inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } } }), execute: async ({ path }) => path });
const tools = { read };

// ---------------------------------------------------------------- right
const prepareStep = createPrepareStep({ window: { contextWindow: 200_000, maxTokens: 32_000 }, tools, summarize: createSummarizer({ model }),
  onBoundary: (r: BoundaryReport) => r.run.contextDegraded });
const asFunction: PrepareStepFunction<typeof tools> = prepareStep;
const agent = new ToolLoopAgent({ model, tools, prepareStep });
const viaText = generateText({ model, tools, prompt: "x", prepareStep });
const viaStream = streamText({ model, tools, prompt: "x", prepareStep: createPrepareStep<typeof tools>({ window: () => ({ contextWindow: 8192 }) }) });
const compactions: number | undefined = prepareStep.run.contextCompactions;
prepareStep.free();
const registry = new DelegationRegistry();
const small: DelegateModel = { model, contextWindow: 8192, maxTokens: 1024 };
const task: Tool = delegateTool({ registry, agent: () => ({ models: [small], instructions: "x", tools }) });
async function delegate(): Promise<string> {
  const result: DelegateResult = await runDelegate({ registry, task: { toolCallId: "t", agent: "explorer", task: "go" }, models: [small], instructions: "x", tools });
  const seen: ModelMessage[] = result.messages;
  return `${result.status} ${result.details.finalModel} ${seen.length}`;
}
const recorder = createRowRecorder({ idPrefix: "c1", onRows: (r: UiMessage[]) => void r });
const history: ModelMessage[] = [...parentMessages(rows), ...toModelMessages([])];
const key: string = modelKey(model);

// ---------------------------------------------------------------- wrong: rejected
// @ts-expect-error the window is required
createPrepareStep({ tools });
// @ts-expect-error a window's size is a number
createPrepareStep({ window: { contextWindow: "big" } });
// @ts-expect-error a delegate model needs its window
runDelegate({ registry, task: { toolCallId: "t", agent: "a", task: "go" }, models: [{ model }], instructions: "x" });
// @ts-expect-error a Task call needs its id
runDelegate({ registry, task: { agent: "a", task: "go" }, models: [small], instructions: "x" });
// @ts-expect-error rows are the package's rows
parentMessages([{ role: "user" }]);
// @ts-expect-error the run's counts are counts
const wrongRun: string = prepareStep.run;

export { asFunction, agent, viaText, viaStream, compactions, task, delegate, recorder, history, key, wrongRun };
