// delegate-context/ai: the same delegate for the Vercel AI SDK 7 (`ai`). Every rule is the
// core's, as for pi: the turn boundary (compact, degrade, then SUBAGENT_CONTEXT_OVERFLOW)
// over the SDK's own messages (DelegateContext.pushModelMessages: the caller's objects
// kept, byte-identical), and one delegation start to settle (the core's DelegateRun:
// the model it resolves, retries, fallbacks re-checked against their own window, what the
// parent receives, the rows). This file drives the SDK and renders the core's new records
// (a summary, a seed) as the SDK's messages:
//
//   createPrepareStep  the boundary as a `prepareStep` (ToolLoopAgent, generateText,
//                      streamText), at every step including step 0
//   runDelegate        one delegation on a ToolLoopAgent, driven by the run machine
//   delegateTool       a sub-agent as a parent's tool: only the report reaches the parent
//   createRowRecorder  the parent's own messages as rows, per step
//   parentMessages     the parent's context rebuilt from rows, as ModelMessages
import {
  APICallError, RetryError, ToolLoopAgent, asSchema, generateText, jsonSchema, tool,
  type LanguageModel, type ModelMessage, type PrepareStepFunction, type PrepareStepResult, type StepResult,
  type Tool, type ToolSet,
} from "ai";
import * as dc from "delegate-context";
import type {
  AgentMessage, DelegateTurnOutcome, DelegateTurnReport, DelegationRegistry, FileTools, RequestEndedInput, RetryPolicy, RunEvent,
  RunModel, RunNext, RunResult, RunStep, RunTally, StepInfo, SummaryRequest, UiMessage,
} from "delegate-context";

// ---------------------------------------------------------------- models

/** What the SDK does not know of a model: its context window and output cap. */
export interface ModelWindow {
  contextWindow: number;
  /** The output the budget reserves (default 8,192); sent as each step's `maxOutputTokens`. */
  maxTokens?: number;
}

/** `providerId/modelId` of a model (a string model is its own id). */
export function modelKey(model: LanguageModel): string {
  if (typeof model === "string") return model;
  return `${model.provider}/${model.modelId}`;
}

const runModel = (model: LanguageModel, window: ModelWindow): RunModel => {
  const key = modelKey(model);
  const slash = key.indexOf("/");
  return slash < 0
    ? { id: key, contextWindow: window.contextWindow, maxTokens: window.maxTokens }
    : { id: key.slice(slash + 1), provider: key.slice(0, slash), api: "ai-sdk", contextWindow: window.contextWindow, maxTokens: window.maxTokens };
};

// ---------------------------------------------------------------- rendering the core's records

const SUMMARY_PREFIX = "The conversation history before this point was compacted into the following summary:\n\n<summary>\n";
const SUMMARY_SUFFIX = "\n</summary>";

/**
 * The core's messages (a seed, a summary, a parent context rebuilt from rows) as the
 * SDK's: user and assistant text, reasoning, tool calls, tool results (consecutive ones in
 * one `tool` message), and a summary as a user message that carries its record (so the
 * boundary reads it back as a summary, marks and all).
 */
export function toModelMessages(messages: readonly AgentMessage[]): ModelMessage[] {
  const out: ModelMessage[] = [];
  const parts = (content: unknown): any[] =>
    typeof content === "string" ? [{ type: "text", text: content }]
      : (Array.isArray(content) ? content : []).flatMap((b: any): any[] =>
        b?.type === "text" ? [{ type: "text", text: String(b.text ?? "") }]
          : b?.type === "image" ? [{ type: "file", mediaType: String(b.mimeType ?? "image/png"), data: String(b.data ?? "") }]
            : []);
  for (const m of messages) {
    const r = m as unknown as Record<string, any>;
    switch (r.role) {
      case "user":
        out.push({ role: "user", content: parts(r.content) });
        break;
      case "assistant": {
        const content: any[] = [];
        for (const b of Array.isArray(r.content) ? r.content : []) {
          if (b.type === "thinking") content.push({ type: "reasoning", text: b.thinking });
          else if (b.type === "text") content.push({ type: "text", text: b.text });
          else if (b.type === "toolCall") content.push({ type: "tool-call", toolCallId: b.id, toolName: b.name, input: b.arguments });
        }
        out.push({ role: "assistant", content });
        break;
      }
      case "toolResult": {
        const blocks = parts(r.content);
        const only = blocks.length === 1 && blocks[0].type === "text" ? String(blocks[0].text) : undefined;
        const output = only !== undefined ? { type: r.isError ? "error-text" : "text", value: only }
          : { type: "content", value: blocks.map((b) => (b.type === "file" ? { type: "file", mediaType: b.mediaType, data: { type: "data", data: b.data } } : b)) };
        const part = { type: "tool-result" as const, toolCallId: String(r.toolCallId), toolName: String(r.toolName), output } as any;
        const last = out.at(-1);
        if (last && last.role === "tool") last.content.push(part);
        else out.push({ role: "tool", content: [part] });
        break;
      }
      case "compactionSummary":
        out.push({
          role: "user", content: [{ type: "text", text: `${SUMMARY_PREFIX}${r.summary}${SUMMARY_SUFFIX}` }],
          providerOptions: { delegateContext: { record: r } },
        });
        break;
    }
  }
  return out;
}

/** A step's usage, finish reason and raw finish reason, as the core reads them. */
export const stepInfo = (step: Pick<StepResult<any>, "usage" | "finishReason" | "rawFinishReason"> | undefined): StepInfo | undefined =>
  step && { finishReason: step.finishReason, rawFinishReason: step.rawFinishReason, usage: step.usage };

// ---------------------------------------------------------------- the summarizer

/** Which model a summary request is for: the one the run is on. */
export interface SummarizeContext {
  model: LanguageModel;
  modelId: string;
}
/** Sends a summary request and resolves with its text (a rejection degrades the turn). */
export type AiSummarize = (request: SummaryRequest, signal: AbortSignal | undefined, context: SummarizeContext) => Promise<string> | string;

/** The SDK summarizer: `generateText` on `model` (default: the model the run is on) with the request's prompt and `maxTokens`. */
export function createSummarizer(options: { model?: LanguageModel } = {}): AiSummarize {
  return async (request, signal, context) => {
    const result = await generateText({
      model: options.model ?? context.model, instructions: request.systemPrompt, messages: toModelMessages(request.messages),
      maxOutputTokens: request.maxTokens, abortSignal: signal, maxRetries: 0,
    });
    return result.text;
  };
}

// ---------------------------------------------------------------- the boundary as a prepareStep

/** What `createPrepareStep` reports after each step's boundary: the boundary's figures and the run's counts so far (every boundary of this prepareStep, and the `run` it continued), as `createPrepareNextTurn` reports them. */
export type BoundaryReport = DelegateTurnReport & { stepNumber: number; modelId: string };

export interface PrepareStepOptions<TOOLS extends ToolSet> {
  /** The window and output cap of the step's model (the SDK knows neither): one for every model, or a resolver. */
  window: ModelWindow | ((model: LanguageModel) => ModelWindow);
  /** Default: `createSummarizer()`, the step's own model. */
  summarize?: AiSummarize;
  /** The tools the agent sends: their definitions count in every request (prepareStep does not receive them). */
  tools?: TOOLS;
  /** The run's abort signal (prepareStep does not receive one): an abort during a summary ends the step with `ABORTED`. */
  signal?: AbortSignal;
  /** Counts to continue (a delegate moved to a fallback model stays degraded). */
  run?: RunTally;
  /** Which tool calls are file reads, writes and edits (default pi's: `read`, `write`, `edit` with `path`). */
  fileTools?: Partial<FileTools>;
  /** Characters a file part counts, by media type or its top-level type (default: 4,800, a text file its text). */
  fileChars?: Record<string, number>;
  /** Told after every step's boundary; what it throws is ignored. */
  onBoundary?: (report: BoundaryReport) => void;
  /** Your own prepareStep, run after the boundary: it receives the budgeted messages. */
  prepareStep?: PrepareStepFunction<TOOLS>;
}

/** A `prepareStep` with the context it keeps between steps. */
export type DelegatePrepareStep<TOOLS extends ToolSet> = PrepareStepFunction<TOOLS> & {
  /** The run's counts so far. */
  readonly run: RunTally;
  /** The messages of the last step's request, as sent. */
  readonly sent: ModelMessage[];
  /** Releases the wasm memory of the kept context. */
  free(): void;
};

const toolDefinitions = (tools: ToolSet | undefined) =>
  Object.entries(tools ?? {}).map(([name, t]) => ({
    name, description: (t as Tool).description, inputSchema: (t as Tool).inputSchema === undefined ? undefined : asSchema((t as Tool).inputSchema).jsonSchema,
  }));

const instructionsText = (instructions: unknown): string =>
  typeof instructions === "string" ? instructions
    : Array.isArray(instructions) ? instructions.map((m) => String(m?.content ?? "")).join("\n")
    : instructions && typeof instructions === "object" ? String((instructions as { content?: unknown }).content ?? "") : "";

/**
 * The turn boundary (ADR 0299 §3–5) as a `prepareStep` for `ToolLoopAgent`,
 * `generateText` and `streamText`: before every step, step 0 included, the context is
 * measured against the budget of the step's model; at or above hardLimit it is compacted
 * (the summary rendered as a user message), or degraded, or the step throws
 * `SUBAGENT_CONTEXT_OVERFLOW` before any provider call. Kept messages are your own
 * objects; the context stays in wasm memory, so a step reads only its new messages.
 */
export function createPrepareStep<TOOLS extends ToolSet>(options: PrepareStepOptions<TOOLS>): DelegatePrepareStep<TOOLS> {
  let ctx = new dc.DelegateContext();
  if (options.run) ctx.run = options.run;
  let known: number | undefined; // the length of the messages the next step starts from
  let sent: ModelMessage[] = [];
  let overhead: { key: unknown; tokens: number } | undefined;
  const project = { fileTools: options.fileTools, fileChars: options.fileChars };
  const summarize = options.summarize ?? createSummarizer();
  const windowOf = (model: LanguageModel) => (typeof options.window === "function" ? options.window(model) : options.window);
  // contextBudget is pure: the same window (the same object with the same numbers) answers
  // the same budget, asked once
  let lastBudget: { window: ModelWindow; contextWindow: number; maxTokens?: number; budget: ReturnType<typeof dc.contextBudget> } | undefined;
  const budgetOf = (window: ModelWindow) => {
    const l = lastBudget;
    if (l && l.window === window && l.contextWindow === window.contextWindow && l.maxTokens === window.maxTokens) return l.budget;
    const budget = dc.contextBudget(window);
    lastBudget = { window, contextWindow: window.contextWindow, maxTokens: window.maxTokens, budget };
    return budget;
  };

  const prepareStep: PrepareStepFunction<TOOLS> = async (o) => {
    const modelId = modelKey(o.model);
    const budget = budgetOf(windowOf(o.model));
    // what is new since the last step (a step's messages are the last override or input plus its response)
    if (known !== undefined && o.stepNumber > 0 && o.messages.length >= known) {
      ctx.pushModelMessages(o.messages.slice(known), [stepInfo(o.steps.at(-1))], project);
    } else {
      const run = ctx.run;
      ctx.free();
      ctx = new dc.DelegateContext();
      ctx.run = run;
      const steps = o.messages.map(() => undefined as StepInfo | undefined);
      steps[o.messages.filter((m) => m.role === "assistant").length - 1] = stepInfo(o.steps.at(-1));
      ctx.pushModelMessages(o.messages, steps, project);
    }
    const overheadTokens = overhead && overhead.key === o.instructions ? overhead.tokens
      : dc.requestOverheadTokens({ systemPrompt: instructionsText(o.instructions), tools: toolDefinitions(options.tools) });
    overhead = { key: o.instructions, tokens: overheadTokens };
    const config = { budget, modelId, options: { overheadTokens } };
    // below the threshold, decided at once from running state (no summary, nothing to apply)
    // checkTurn's outcome has no `messages`: the context is o.messages as they are
    const out: Omit<DelegateTurnOutcome, "messages"> & { messages?: unknown[] } = ctx.checkTurn(config) ?? await ctx.runTurn({
      ...config, signal: options.signal,
      summarize: (request, signal) => summarize(request, signal, { model: o.model, modelId }),
    });
    const changed = out.messages !== undefined && out.outcome !== "unchanged";
    const messages = changed
      ? out.messages!.map((m) => ((m as AgentMessage).role === "compactionSummary" ? toModelMessages([m as AgentMessage])[0]! : (m as ModelMessage)))
      : o.messages;
    if (options.onBoundary) {
      const { messages: _, contextCompactions: __, contextDegraded: ___, ...figures } = out;
      const run = ctx.run;
      try {
        options.onBoundary({
          ...figures, stepNumber: o.stepNumber, modelId, run, boundaries: run.boundaries ?? 0,
          contextCompactions: run.contextCompactions ?? 0, contextDegraded: run.contextDegraded ?? false,
        });
      } catch {}
    }
    const mine: PrepareStepResult<TOOLS> = { ...(changed ? { messages } : {}), maxOutputTokens: budget.maxOutputTokens };
    const theirs = options.prepareStep ? await options.prepareStep({ ...o, messages }) : undefined;
    // the next step starts from the messages returned (ours, or yours: then it is read whole)
    known = theirs?.messages ? undefined : messages.length;
    sent = theirs?.messages ?? messages;
    return { ...mine, ...theirs };
  };
  return Object.defineProperties(prepareStep, {
    run: { get: () => ctx.run },
    sent: { get: () => sent },
    free: { value: () => ctx.free() },
  }) as DelegatePrepareStep<TOOLS>;
}

// ---------------------------------------------------------------- one delegation on a ToolLoopAgent

/** A Task call as the parent's model made it. */
export interface DelegateTask {
  toolCallId: string;
  agent: string;
  task: string;
  description?: string;
  /** `providerId/modelId` or a model id, one of the delegate's models. Refused on a resume. */
  model?: string;
  resume?: string;
}

/** A model a delegate may run on, with what the SDK does not know of it. */
export interface DelegateModel extends ModelWindow {
  model: LanguageModel;
}

export interface RunDelegateOptions<TOOLS extends ToolSet> {
  registry: DelegationRegistry;
  task: DelegateTask;
  /** The delegate's own model first, then its fallbacks. */
  models: readonly DelegateModel[];
  /** The session's model, when the delegate has none of its own. */
  sessionModel?: DelegateModel;
  instructions: string;
  tools?: TOOLS;
  /** Default: `createSummarizer()`, the model the run is on. */
  summarize?: AiSummarize;
  /** The session's rows (required on a resume). */
  rows?: readonly UiMessage[];
  /** Receives the rows to persist, one call at a time; a rejection ends the run (`WRITE_FAILED`). */
  onRows?: (rows: UiMessage[]) => void | Promise<void>;
  signal?: AbortSignal;
  retry?: RetryPolicy;
  /** Told every event of the run; what it throws is ignored. */
  onEvent?: (event: RunEvent) => void;
  fileTools?: Partial<FileTools>;
  fileChars?: Record<string, number>;
  /** The clock of the rows (milliseconds; default `Date.now`). */
  now?: () => number;
  /** More settings of the delegate's ToolLoopAgent (`stopWhen`, `temperature`, ...). */
  agentSettings?: { stopWhen?: ConstructorParameters<typeof ToolLoopAgent<never, TOOLS>>[0]["stopWhen"]; temperature?: number };
}

/** What the parent's tool returns, and the run's own messages. */
export type DelegateResult = RunResult & { messages: ModelMessage[] };

/**
 * What a rejected `generate()` came to, as the run reads it: a provider's failure (an
 * `APICallError`, also inside the SDK's `RetryError`) is a failed answer with the
 * provider's words, its status and the wait its headers ask for; anything else (this
 * library's coded errors, an abort) is what the loop threw.
 */
function endOf(e: unknown): RequestEndedInput {
  const inner = RetryError.isInstance(e) && e.lastError !== undefined ? e.lastError : e;
  if (!APICallError.isInstance(inner)) return { thrown: inner };
  const headers = inner.responseHeaders ?? {};
  const ms = Number(headers["retry-after-ms"]);
  const seconds = Number(headers["retry-after"]);
  const retryAfterMs = Number.isFinite(ms) && headers["retry-after-ms"] !== undefined ? ms
    : Number.isFinite(seconds) && headers["retry-after"] !== undefined ? seconds * 1000 : undefined;
  return { answer: { finishReason: "error", errorMessage: inner.message, status: inner.statusCode, retryAfterMs } };
}

/**
 * One delegation on a `ToolLoopAgent`, start to settle: the same run as
 * `delegate-context/pi`'s (the core's `DelegateRun`), so the same rules hold: the model it
 * resolves, the boundary at every step on that model's budget, retries, fallbacks
 * re-checked against their own window, one tally, what the parent receives, the rows and
 * the settlement, whatever happens.
 */
export async function runDelegate<TOOLS extends ToolSet>(options: RunDelegateOptions<TOOLS>): Promise<DelegateResult> {
  const now = options.now ?? Date.now;
  const { signal } = options;
  const byKey = new Map<string, DelegateModel>();
  for (const m of [...options.models, ...(options.sessionModel ? [options.sessionModel] : [])]) if (!byKey.has(modelKey(m.model))) byKey.set(modelKey(m.model), m);
  const summarize = options.summarize ?? createSummarizer();
  const project = { fileTools: options.fileTools, fileChars: options.fileChars };
  const { run, step: first } = dc.DelegateRun.start(options.registry, {
    task: options.task, models: options.models.map((m) => runModel(m.model, m)),
    sessionModel: options.sessionModel && runModel(options.sessionModel.model, options.sessionModel),
    overheadTokens: dc.requestOverheadTokens({ systemPrompt: options.instructions, tools: toolDefinitions(options.tools) }),
    retry: options.retry,
  }, options.rows ? [...options.rows] : undefined, now());

  const internal = new AbortController();
  let stopped = () => {};
  const stop = new Promise<void>((resolve) => (stopped = resolve));
  let finish: Extract<RunNext, { type: "finish" }> | undefined;
  let writing: Promise<void> = Promise.resolve();
  let freed = false;
  const write = (rows: UiMessage[]) => {
    const onRows = options.onRows;
    writing = writing.then(async () => {
      let failure: { error: unknown } | undefined;
      try {
        if (onRows) await onRows(rows);
      } catch (error) {
        failure = { error };
      }
      perform(() => (failure ? run.writeFailed(failure.error, now()) : run.written(now())));
    });
  };
  function perform(call: () => RunStep): RunNext {
    if (freed) return { type: "continue" };
    let step: RunStep;
    try {
      step = call();
    } catch (error) {
      step = run.crash(error, now());
    }
    if (step.rows.length) write(step.rows);
    for (const event of step.events) {
      try {
        options.onEvent?.(event);
      } catch {}
    }
    if (step.next.type === "stop" || step.next.type === "finish") {
      if (step.next.type === "finish") finish = step.next;
      internal.abort();
      stopped();
    }
    return step.next;
  }

  const messages: ModelMessage[] = [];
  let carried: ModelMessage[] = [];
  async function request(plan: Extract<RunNext, { type: "request" }>): Promise<RequestEndedInput> {
    const entry = byKey.get(plan.modelId)!;
    const context = plan.messages ? toModelMessages(plan.messages) : carried;
    if (plan.messages && messages.length === 0) messages.push(context.at(-1)!);
    const boundary = createPrepareStep<TOOLS>({
      window: entry, summarize, tools: options.tools, signal: internal.signal, run: plan.run, ...project,
      onBoundary: (report) => perform(() => run.boundary(report, now())),
    });
    type Settings = ConstructorParameters<typeof ToolLoopAgent<never, TOOLS>>[0];
    const agent = new ToolLoopAgent<never, TOOLS>({
      model: entry.model, instructions: options.instructions, tools: options.tools, maxRetries: 0, ...options.agentSettings,
      prepareStep: boundary,
      onStepEnd: (step: StepResult<TOOLS>) => {
        messages.push(...step.response.messages);
        perform(() => run.modelMessages(step.response.messages, stepInfo(step), project, now()));
      },
    } as unknown as Settings); // (a generic TOOLS may need a toolsContext: yours go in agentSettings)
    try {
      const result = await agent.generate({ messages: context, abortSignal: internal.signal });
      return { answer: { text: result.text, ...stepInfo(result.steps.at(-1)) } };
    } catch (e) {
      return endOf(e);
    } finally {
      carried = boundary.sent;
      boundary.free();
    }
  }

  const onAbort = () => perform(() => run.abort(now()));
  try {
    let next = perform(() => first);
    if (!finish) {
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();
    }
    while (!finish) {
      if (next.type === "request") {
        const ended = await Promise.race([request(next), stop.then((): RequestEndedInput => ({}))]);
        if (!finish) next = perform(() => run.requestEnded(ended, now()));
      } else if (next.type === "wait") {
        await Promise.race([new Promise<void>((resolve) => setTimeout(resolve, next.type === "wait" ? next.ms : 0)), stop]);
        if (!finish) next = perform(() => run.waited(now()));
      } else {
        next = perform(() => run.requestEnded({}, now()));
      }
    }
  } catch (error) {
    perform(() => run.crash(error, now()));
  } finally {
    signal?.removeEventListener("abort", onAbort);
  }
  try {
    if (finish?.awaitWrites) {
      const aborted = new Promise<void>((resolve) => signal?.addEventListener("abort", () => resolve(), { once: true }));
      await Promise.race([writing, aborted]);
    }
    return { ...(run.result() as RunResult), messages };
  } finally {
    freed = true;
    run.free();
  }
}

// ---------------------------------------------------------------- a sub-agent as a parent's tool

/** The Task tool's input. */
export interface TaskInput {
  agent: string;
  task: string;
  description?: string;
  model?: string;
  resume?: string;
}

export interface DelegateToolOptions<TOOLS extends ToolSet> extends Omit<RunDelegateOptions<TOOLS>, "task" | "signal" | "models" | "instructions" | "tools"> {
  /** Each agent's definition, by the name the parent used (key them with `normalizeAgentName`). */
  agent: (name: string) => { models: readonly DelegateModel[]; instructions: string; tools?: TOOLS } | undefined;
  description?: string;
}

const TASK_SCHEMA = jsonSchema<TaskInput>({
  type: "object",
  properties: {
    agent: { type: "string", description: "The sub-agent to run." },
    task: { type: "string", description: "What it must do, with everything it needs to know." },
    description: { type: "string", description: "A 3-6 word label." },
    model: { type: "string", description: "A model to run it on (only on a new delegation)." },
    resume: dc.resumeParameterSchema(),
  },
  required: ["agent", "task"],
  additionalProperties: false,
});

/**
 * A sub-agent as a parent's tool (name it `task`): `execute` runs the delegation
 * (`runDelegate`), `toModelOutput` gives the parent's model only what the run says the
 * parent receives (the report, the degraded notice first, or the error's guidance: never a
 * provider's words). The full result stays in the step's tool results.
 */
export function delegateTool<TOOLS extends ToolSet>(options: DelegateToolOptions<TOOLS>): Tool<TaskInput, DelegateResult> {
  return tool<TaskInput, DelegateResult, {}>({
    description: options.description ?? "Delegate a task to a sub-agent; only its report comes back. To continue one, pass its `resume` id.",
    inputSchema: TASK_SCHEMA,
    execute: async (input, { toolCallId, abortSignal }) => {
      const definition = options.agent(input.agent);
      if (!definition) throw new Error(`There is no sub-agent named "${input.agent}".`);
      return runDelegate({ ...options, ...definition, task: { toolCallId, ...input }, signal: abortSignal });
    },
    toModelOutput: ({ output }) => ({ type: output.isError ? "error-text" : "text", value: output.content }),
  });
}

// ---------------------------------------------------------------- the parent's rows

/** The parent's own messages as rows: call `prompt` with what you send, `onStepEnd` with each step. */
export function createRowRecorder(options: {
  idPrefix: string; onRows: (rows: UiMessage[]) => void | Promise<void>; skipTools?: string[]; firstIndex?: number;
  fileTools?: Partial<FileTools>; now?: () => number;
}) {
  const now = options.now ?? Date.now;
  const recorder = new dc.RowRecorder({ idPrefix: options.idPrefix, skipTools: options.skipTools ?? ["task"], firstIndex: options.firstIndex });
  const project = { fileTools: options.fileTools };
  return {
    prompt: (messages: ModelMessage[]) => options.onRows(recorder.pushModelMessages(messages, null, project, now())),
    onStepEnd: (step: Pick<StepResult<any>, "response" | "usage" | "finishReason" | "rawFinishReason">) =>
      options.onRows(recorder.pushModelMessages(step.response.messages, stepInfo(step), project, now())),
    free: () => recorder.free(),
  };
}

/** The parent's context rebuilt from the session's rows (only delegates' reports come in), as ModelMessages. */
export function parentMessages(rows: readonly UiMessage[]): ModelMessage[] {
  return toModelMessages(dc.buildParentContext([...rows]).messages);
}
