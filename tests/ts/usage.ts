// Type-checked (tsc --noEmit, skipLibCheck false: our .d.ts is checked too), never run:
// the package's generated .d.ts must return precise types and reject wrong calls
// (pi-agent-core's own message types are checked in pi.ts). Every export is used at least once correctly and once wrongly; each
// `@ts-expect-error` line fails the check if the type it guards became `any` or loose.
import {
  DelegateContext,
  DelegateRun,
  DelegationRegistry,
  RowRecorder,
  messagesToRows,
  normalizeAgentName,
  resolveDelegateModels,
  taskRowRefused,
  taskRowSettle,
  taskRowStart,
  buildParentContext,
  calculateContextTokens,
  chainRowsToMessages,
  classifyProviderError,
  compactionPlans,
  completeDelegateTurn,
  contextBudget,
  countChainReads,
  createPrepareNextTurn,
  errorForParent,
  estimateContextTokens,
  estimateTokens,
  filterInheritedTools,
  findCutPoint,
  isDelegateContextError,
  formatResumableList,
  prepareCompaction,
  prepareDelegateTurn,
  reportForParent,
  requestOverheadTokens,
  resolveResumeBinding,
  resumeParameterSchema,
  runDelegateTurn,
  seedDelegateMessages,
  selectChainRows,
  selectFallbackModel,
  serializeConversation,
  subagentInheritDenyTools,
  subagentResultForParent,
  version,
  type AgentMessage,
  type ContextBudget,
  type DelegateContextError,
  type DelegateContextErrorCode,
  type DelegateTurnOutcome,
  type DelegateTurnReport,
  type RunEvent,
  type RunModel,
  type RunNext,
  type RunResult,
  type RunStep,
  type UiMessage,
} from "delegate-context";
import initWeb, { contextBudget as webBudget } from "delegate-context/web";

declare const piMessages: AgentMessage[];
const rows: UiMessage[] = [{ id: "1", role: "user", content: "hi" }];
const budget: ContextBudget = contextBudget({ contextWindow: 200_000, maxTokens: 32_000 });
const turn = { budget, modelId: "anthropic/claude-sonnet-4-5" };

// ---------------------------------------------------------------- right
const estimate = estimateContextTokens(piMessages);
const tokens: number = estimate.tokens;
const anchor: number | null = estimate.lastUsageIndex; // null, never undefined, when there is none
const one: number = estimateTokens(piMessages[0]);
const hard: number = budget.hardLimit + budget.keepRecentTokens + budget.compactionTrigger + budget.retainedUserBudget;
const total: number = calculateContextTokens({ input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 });
const overhead: number = requestOverheadTokens({ systemPrompt: "You are a delegate.", tools: [] });
const { messages, warnings } = buildParentContext(rows);
const roles: AgentMessage["role"][] = messages.map((m) => m.role);
const firstWarning: string | undefined = warnings[0]?.code;
const report: string = subagentResultForParent("{}").text;
const v: string = version();
const cut: number = findCutPoint(piMessages, 0, piMessages.length, 20_000).firstKeptEntryIndex;
const prepared = prepareCompaction(piMessages, { keepRecentTokens: 20_000 });
const kept: AgentMessage[] | undefined = prepared?.retainedTail;
const plans: number = compactionPlans(piMessages, [10, 20]).length;
const text: string = serializeConversation(piMessages);
const plan = prepareDelegateTurn({ messages: piMessages, ...turn });
const action: "unchanged" | "summarize" | "degrade" = plan.action;
const outcome: DelegateTurnOutcome = completeDelegateTurn({ messages: piMessages, ...turn, answer: { history: "h" } });
const dropped: number = outcome.droppedMessages;
async function step(): Promise<AgentMessage[]> {
  const out = await runDelegateTurn({ messages: piMessages, ...turn, summarize: async (request) => `${request.maxTokens}` });
  return out.messages;
}
const hook = createPrepareNextTurn({ ...turn, summarize: async () => "s", onOutcome: (r: DelegateTurnReport) => r.run.contextDegraded });
const parent: string = reportForParent({ report: "done", run: { contextDegraded: true, droppedMessages: 3 }, modelId: "m" }).text;
const forParent: DelegateContextError | Error = errorForParent(new Error("prompt is too long"), { modelId: "m", contextWindow: 8192 });
const forParentCode: string | undefined = isDelegateContextError(forParent) ? forParent.code : undefined;
const missing: number | undefined = isDelegateContextError(forParent) ? forParent.resumableOmitted : undefined;
const pick = selectFallbackModel({ messages: piMessages, candidates: [{ id: "m", provider: "p", contextWindow: 8192 }], overheadTokens: overhead });
const failureCode: string | undefined = pick.modelFailures[0]?.code;
const chosen: string | undefined = pick.model?.id;
const klass: string | null = classifyProviderError({ status: 413, message: "too large" }).code;
const klassCode: boolean = classifyProviderError({ statusCode: 422, message: "context length exceeded" }, 8192).contextTooLarge;
const tools = filterInheritedTools(["read", { name: "Task" }]);
const denied: string[] = [...tools.denied, ...subagentInheritDenyTools()];
const schema: string = resumeParameterSchema().description;

const handle = new DelegateContext(piMessages);
const size: number = handle.push([]) + handle.length;
const synced: "appended" | "reloaded" = handle.sync(piMessages);
const held: AgentMessage[] = handle.messages();
const handleEstimate: number = handle.estimateContextTokens().tokens;
const handleCut: number = handle.findCutPoint(20_000).firstKeptEntryIndex;
const handlePlan = handle.prepareCompaction();
const handleText: string = handle.serializeConversation(0, 2);
const handleTurn = handle.prepareTurn(turn);
const handleOut: DelegateTurnOutcome = handle.completeTurn({ ...turn, answer: { error: "down" } });
const handleRun: Promise<DelegateTurnOutcome> = handle.runTurn({ ...turn, summarize: () => "s" });
const checked: Omit<DelegateTurnOutcome, "messages"> | undefined = handle.checkTurn(turn);
const handleTally: boolean | undefined = handle.run.contextDegraded;
handle.run = { boundaries: 2, contextDegraded: true };
const pushedSdk: number = handle.pushModelMessages([{ role: "user", content: "hi" }], [{ finishReason: "tool-calls", usage: { inputTokens: 3 } }, null], { fileTools: { read: ["readFile"] }, fileChars: { "application/pdf": 4000 } });
handle.free();

const registry = DelegationRegistry.fromTranscript(rows);
const started = registry.start({ toolCallId: "c1", agent: "explorer", task: "Map the parser" }, rows);
const settled = registry.settle({ delegationId: started.delegationId, status: "completed", rows });
const target = registry.validateResume({ delegationId: started.delegationId, agent: "explorer" }, rows);
const status: string | null = target.status;
const info = registry.resolve(started.delegationId);
const listed: string = registry.resumablePrompt() + formatResumableList(registry.resumableList());
const convo = registry.chainConversation(rows, started.delegationId);
const skips: number = registry.rebuildSkips().length + registry.chainCount;
const selected: UiMessage[] = selectChainRows(rows, { toolCallIds: started.toolCallIds, agent: "explorer" });
const replayed: AgentMessage[] = chainRowsToMessages(selected, { provider: "anthropic", model: "claude-haiku-4-5" });
const reads: number = countChainReads(rows).lines;
const seed = seedDelegateMessages({ brief: "b", rows, binding: { provider: "p", model: "m" }, hardLimit: budget.hardLimit, overheadTokens: overhead });
const seeded: AgentMessage[] = seed.messages;
const binding: string = resolveResumeBinding({ allowed: ["p/m"], definitionBinding: "p/m", recordedKey: "p/m" }).key;
const agentKey: string = normalizeAgentName("agents/Code_Reviewer.md");
const runModels: RunModel[] = resolveDelegateModels({ model: "p/big", models: [{ id: "small", provider: "p", contextWindow: 8192 }, { id: "big", provider: "p" }] });
const written: UiMessage[] = messagesToRows({ messages: piMessages, parentToolCallId: "c1", agentName: "explorer", firstIndex: 3 });
const startRow: UiMessage = taskRowStart({ toolCallId: "c1", args: { agent: "explorer", task: "t" }, started, now: 0 });
const settleRow: UiMessage = taskRowSettle({ row: startRow, status: "failed", content: "x", isError: true, error: "WRITE_FAILED", finalModel: "p/big" });
const refusedRow: UiMessage = taskRowRefused({ toolCallId: "c2", args: { agent: "explorer", task: "t" }, code: "UNKNOWN_MODEL", message: "m" });
const { run: delegateRun, step: firstStep } = DelegateRun.start(registry, {
  task: { toolCallId: "c3", agent: "explorer", task: "Map the parser", model: "p/big" }, models: runModels, overheadTokens: overhead,
  retry: { maxRetries: 1, baseDelayMs: 10 },
}, rows, 0);
function driven(step: RunStep): number | string | undefined {
  const next: RunNext = step.next;
  switch (next.type) {
    case "request": return next.budget.hardLimit + next.attempt + (next.messages?.length ?? 0) + (next.run.boundaries ?? 0);
    case "wait": return next.ms;
    case "finish": return next.awaitWrites ? "await" : "now";
    default: return next.type;
  }
}
const stepKinds = [firstStep, delegateRun.message(piMessages[0]), delegateRun.boundary({} as DelegateTurnReport), delegateRun.requestEnded({ last: piMessages[0], thrown: new Error("x") }),
  delegateRun.waited(), delegateRun.written(1), delegateRun.writeFailed(new Error("ENOSPC")), delegateRun.abort(), delegateRun.crash("x")].map(driven);
const events: RunEvent["type"][] = firstStep.events.map((e) => e.type);
const finished: boolean = delegateRun.isFinished;
const runResult: RunResult | undefined = delegateRun.result();
const runCode: string | undefined = runResult?.error?.code ?? runResult?.details.finalModel;
delegateRun.free();
const recorder = new RowRecorder({ idPrefix: "conversation-1", skipTools: ["task"], firstIndex: 0 });
const recorded: UiMessage[] = recorder.push(piMessages[0], 0);
recorder.free();
registry.free();

function onError(e: unknown) {
  const err = e as DelegateContextError;
  const code: DelegateContextErrorCode = err.code;
  return code === "SUBAGENT_CONTEXT_OVERFLOW" ? err.modelId : err.path;
}

async function browser() {
  await initWeb();
  const b: ContextBudget = webBudget({});
  return b;
}

// ---------------------------------------------------------------- wrong: rejected
// @ts-expect-error contextWindow is a number
contextBudget({ contextWindow: "big" });
// @ts-expect-error a message needs a known role
estimateTokens({ role: "robot", content: "x" });
// @ts-expect-error user content is a string or blocks
estimateTokens({ role: "user", content: 5 });
// @ts-expect-error estimateContextTokens returns an object, not a number
const wrongEstimate: number = estimateContextTokens([]);
// @ts-expect-error usage numbers are numbers
calculateContextTokens({ totalTokens: "3" });
// @ts-expect-error requestOverheadTokens takes an object
requestOverheadTokens("You are a delegate.");
// @ts-expect-error rows have a role from the transcript's set
buildParentContext([{ id: "1", role: "bot", content: "x" }]);
// @ts-expect-error the raw result is a string
subagentResultForParent({ success: true });
// @ts-expect-error version takes nothing and returns a string
const wrongVersion: number = version();
// @ts-expect-error indices are numbers
findCutPoint(piMessages, "0", 1, 1);
// @ts-expect-error keepRecentTokens is a number
prepareCompaction(piMessages, { keepRecentTokens: "all" });
// @ts-expect-error ends are numbers
compactionPlans(piMessages, ["10"]);
// @ts-expect-error serializeConversation takes messages
serializeConversation("text");
// @ts-expect-error a turn needs a budget and a modelId
prepareDelegateTurn({ messages: piMessages });
// @ts-expect-error the answer's history is text
completeDelegateTurn({ messages: piMessages, ...turn, answer: { history: 5 } });
// @ts-expect-error runDelegateTurn needs a summarizer
runDelegateTurn({ messages: piMessages, ...turn });
// @ts-expect-error summarize is a function
createPrepareNextTurn({ ...turn, summarize: "s" });
// @ts-expect-error the report is text
reportForParent({ report: 5 });
// @ts-expect-error errorForParent's result is exact (the error or its own type), not unknown
const notUnknown: number = errorForParent(new Error("x"), { modelId: "m" });
// @ts-expect-error the old field name is gone: the thrown error has resumableOmitted
const oldOmitted = (forParent as DelegateContextError).omitted;
// @ts-expect-error the guard takes a value
isDelegateContextError();
// @ts-expect-error errorForParent needs the model id
errorForParent(new Error("x"), {});
// @ts-expect-error candidates are models
selectFallbackModel({ messages: piMessages, candidates: ["m"] });
// @ts-expect-error classifyProviderError takes an error object
classifyProviderError(413);
// @ts-expect-error tools are names or tool objects
filterInheritedTools([5]);
// @ts-expect-error the deny list is names
const wrongDeny: number[] = subagentInheritDenyTools();
// @ts-expect-error the schema's description is text
const wrongSchema: number = resumeParameterSchema().description;
// @ts-expect-error a handle holds messages
new DelegateContext([{ role: "robot" }]);
// @ts-expect-error push takes an array
handle.push(piMessages[0]);
// @ts-expect-error checkTurn needs a budget
handle.checkTurn({ modelId: "m" });
// @ts-expect-error checkTurn leaves your messages as they are: it returns none
handle.checkTurn(turn)?.messages;
// @ts-expect-error the file tools are names
handle.pushModelMessages([], [], { fileTools: { read: "readFile" } });
// @ts-expect-error the run's counts are counts
handle.run = { boundaries: "two" };
// @ts-expect-error sync answers one of two words
const wrongSync: boolean = handle.sync(piMessages);
// @ts-expect-error the handle's turn needs a budget
handle.prepareTurn({ modelId: "m" });
// @ts-expect-error the answer's turn prefix is text
handle.completeTurn({ ...turn, answer: { turnPrefix: 1 } });
// @ts-expect-error runTurn needs a summarizer
handle.runTurn(turn);
// @ts-expect-error findCutPoint's keepRecentTokens is a number
handle.findCutPoint("all");
// @ts-expect-error serializeConversation's indices are numbers
handle.serializeConversation("0");
// @ts-expect-error messages() returns messages
const wrongHeld: string[] = handle.messages();
// @ts-expect-error start needs the Task call's id, agent and task
registry.start({ agent: "explorer" });
// @ts-expect-error settle's status is one of the settled statuses
registry.settle({ delegationId: "d", status: "exploded" });
// @ts-expect-error validateResume needs the agent
registry.validateResume({ delegationId: "d" });
// @ts-expect-error resolve takes an id
registry.resolve(5);
// @ts-expect-error resumablePrompt returns text
const wrongPrompt: number = registry.resumablePrompt();
// @ts-expect-error chainConversation takes rows and an id
registry.chainConversation("d");
// @ts-expect-error fromTranscript takes rows
DelegationRegistry.fromTranscript("rows");
// @ts-expect-error rebuildSkips returns skips
const wrongSkips: string = registry.rebuildSkips();
// @ts-expect-error selectChainRows needs the chain's agent
selectChainRows(rows, { toolCallIds: [] });
// @ts-expect-error the binding needs a provider and a model
chainRowsToMessages(rows, { provider: "p" });
// @ts-expect-error countChainReads returns files and lines
const wrongReads: string = countChainReads(rows);
// @ts-expect-error a seed needs a brief
seedDelegateMessages({ rows, binding: { provider: "p", model: "m" }, hardLimit: 1 });
// @ts-expect-error allowed bindings are keys
resolveResumeBinding({ allowed: [1], definitionBinding: "p/m" });
// @ts-expect-error formatResumableList takes chains
formatResumableList(["d"]);
// @ts-expect-error the error's code is one of the library's codes
const wrongCode: DelegateContextErrorCode = "BOOM";
// @ts-expect-error normalizeAgentName takes a name
normalizeAgentName(5);
// @ts-expect-error Task.model is a name
resolveDelegateModels({ model: 5, models: [] });
// @ts-expect-error messagesToRows takes messages
messagesToRows({ messages: "m", idPrefix: "p" });
// @ts-expect-error taskRowStart needs what start returned
taskRowStart({ toolCallId: "c1", args: { agent: "explorer", task: "t" } });
// @ts-expect-error a settled status is one of the settled statuses
taskRowSettle({ row: startRow, status: "exploded", content: "x" });
// @ts-expect-error a refusal has a code
taskRowRefused({ toolCallId: "c2", args: { agent: "explorer", task: "t" }, message: "m" });
// @ts-expect-error a run needs its Task call
DelegateRun.start(registry, { models: runModels });
// @ts-expect-error a run starts on a registry
DelegateRun.start({}, { task: { toolCallId: "c", agent: "a", task: "t" } });
// @ts-expect-error the retry policy's numbers are numbers
DelegateRun.start(registry, { task: { toolCallId: "c", agent: "a", task: "t" }, retry: { maxRetries: "2" } });
// @ts-expect-error a message is a message
delegateRun.message("hello");
// @ts-expect-error requestEnded reads an object
delegateRun.requestEnded("done");
// @ts-expect-error isFinished is a boolean
const wrongFinished: string = delegateRun.isFinished;
// @ts-expect-error a wait step's ms is a number
const wrongNext: string = (firstStep.next as Extract<RunNext, { type: "wait" }>).ms;
// @ts-expect-error a recorder needs an id prefix
new RowRecorder({});
// @ts-expect-error push answers rows
const wrongRecorded: string = recorder.push(piMessages[0]);

export {
  tokens, anchor, one, hard, total, overhead, roles, firstWarning, report, v, cut, kept, plans, text, action, dropped, step, hook,
  parent, forParent, failureCode, chosen, klass, denied, schema, size, synced, held, handleEstimate, handleCut, handlePlan, handleText,
  handleTurn, handleOut, handleRun, settled, status, info, listed, convo, skips, replayed, reads, seeded, binding, onError, browser,
  wrongEstimate, wrongVersion, wrongDeny, wrongSchema, wrongSync, wrongHeld, wrongPrompt, wrongSkips, wrongReads, wrongCode,
  forParentCode, missing, notUnknown, oldOmitted, klassCode, agentKey, written, settleRow, refusedRow, stepKinds, events, finished,
  runCode, recorded, wrongFinished, wrongNext, wrongRecorded, checked, handleTally, pushedSdk,
};
