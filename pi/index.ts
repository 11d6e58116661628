// delegate-context/pi: one delegation on pi's Agent, start to settle (ADR 0299 and ADR
// 0279: what SubagentRun does). The run is the core's state machine (`DelegateRun`):
// it resolves the model, starts and settles the registry's run, writes the rows, seeds a
// resume, decides what a request came to (completed, aborted, a provider failure, a
// silent overflow), when to retry and how long to wait, which fallback can hold the
// carried context, and what the parent receives. This file only drives pi's Agent,
// which is JavaScript's job, and does what each step says:
//
//   rows      → onRows, in order (one write at a time; each answered to the run)
//   events    → onEvent
//   request   → the boundary hook on that model's budget, run once on the context
//               (the pre-flight), then agent.continue(); the loop's last message and
//               what it threw go back to the run
//   wait      → a timer (a retry's delay), cut short by a stop
//   stop      → the agent is aborted; the run ends without waiting for it
//   finish    → the writes still pending are awaited (not after an abort), the result
//
// The abort signal, a write that fails and anything that throws here are told to the
// run, which ends and settles whatever happened.
import type { Agent, AgentMessage, AgentOptions, AgentTool, AgentContext, ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { Model } from "@earendil-works/pi-ai";
import * as dc from "delegate-context";
import type {
  DelegateTurnReport, DelegationRegistry, RequestEndedInput, RetryPolicy, RunEvent, RunModel, RunNext, RunResult, RunStep,
  SummaryRequest, UiMessage,
} from "delegate-context";

/** A Task call as the parent's model made it. */
export interface DelegateTask {
  /** The Task call's id (every row of the run carries it as `parentToolCallId`). */
  toolCallId: string;
  agent: string;
  /** The brief of this run. */
  task: string;
  /** A 3–6 word label. */
  description?: string;
  /** `Task.model`: `providerId/modelId` or a model id, one of `models` (or the session's). Refused on a resume. */
  model?: string;
  /** Any delegationId of the chain to continue. */
  resume?: string;
}

/** What happened during a run, for a host's log or UI (the run machine's events). */
export type DelegateRunEvent = RunEvent;

/** Which model a summary request is for: the one the run is on (it changes after a fallback). */
export interface SummarizeContext {
  model: Model<any>;
  /** `providerId/modelId`. */
  modelId: string;
}

/** Sends a summary request to a model and resolves with its text or its assistant message (see `createSummarizer`). */
export type PiSummarize = (
  request: SummaryRequest, signal: AbortSignal | undefined, context: SummarizeContext,
) => Promise<string | { content: unknown; stopReason?: string; errorMessage?: string }> | string;

export interface RunDelegateOptions {
  /** The session's delegation registry (`new DelegationRegistry()` or `DelegationRegistry.fromTranscript(rows)`). */
  registry: DelegationRegistry;
  task: DelegateTask;
  /** The delegate's models: its own first (its definition's pin), then its fallbacks, in order. `Task.model` may name any of them. */
  models: readonly Model<any>[];
  /** The session's model: the delegate's when `models` is empty (ADR 0299 §2: the inherited session model). */
  sessionModel?: Model<any>;
  /** pi's stream function (your provider access). */
  streamFn: NonNullable<AgentOptions["streamFn"]>;
  systemPrompt: string;
  /** The tools the delegate may use (those a delegate never inherits are removed). */
  tools?: readonly AgentTool<any>[];
  /** Sends a summary request. Default: `createSummarizer({ streamFn })`, the run's own model. */
  summarize?: PiSummarize;
  /** The session's rows so far. Required on a resume: the history is read from them. */
  rows?: readonly UiMessage[];
  /** Receives the rows to persist, in order, one call at a time; store them by `id` (a later copy replaces an earlier one). A rejection ends the run (`WRITE_FAILED`). */
  onRows?: (rows: UiMessage[]) => void | Promise<void>;
  /** Aborts the run (its Agent and any summary request); the result comes back at once. */
  signal?: AbortSignal;
  /** Default: pi-agent-core's harness `convertToLlm` (it renders the compaction summary). */
  convertToLlm?: AgentOptions["convertToLlm"];
  thinkingLevel?: ThinkingLevel;
  /** How retriable provider failures are retried on the same model (default: 2 retries, 1 s doubling, at most 30 s). */
  retry?: RetryPolicy;
  /** A fingerprint of the agent definition (ADR 0279 §11: a change is reported on resume). */
  definition?: string;
  /** More options for the delegate's Agent (`getApiKey`, `toolExecution`, ...). */
  agentOptions?: Omit<AgentOptions, "initialState" | "streamFn" | "convertToLlm" | "prepareNextTurnWithContext">;
  /** The clock of the rows (milliseconds; default `Date.now`). */
  now?: () => number;
  /** Told every event; what it throws is ignored. */
  onEvent?: (event: DelegateRunEvent) => void;
}

/** What the parent's Task tool returns (the run's result), and the run's own messages. */
export type DelegateResult = RunResult & {
  /** The run's own messages (its task first). */
  messages: AgentMessage[];
};

/** `providerId/modelId`. */
export const modelKey = (model: Pick<Model<any>, "provider" | "id">): string => `${model.provider}/${model.id}`;

const runModel = (m: Model<any>): RunModel => ({ id: m.id, provider: m.provider, api: m.api, contextWindow: m.contextWindow, maxTokens: m.maxTokens });

/**
 * The pi summarizer: pi-ai's `completeSimple` (or `streamFn`) over pi-agent-core's
 * `convertToLlm` of the request, on `model` or else the model the run is on, with the
 * request's `maxTokens`.
 */
export function createSummarizer(options: { streamFn?: AgentOptions["streamFn"]; model?: Model<any> } = {}): PiSummarize {
  return async (request, signal, context) => {
    const pi = await import("@earendil-works/pi-agent-core");
    const model = options.model ?? context.model;
    const llm = { systemPrompt: request.systemPrompt, messages: pi.convertToLlm(request.messages as AgentMessage[]) };
    const settings = { maxTokens: request.maxTokens, signal };
    if (options.streamFn) return (await options.streamFn(model, llm, settings)).result();
    return (await import("@earendil-works/pi-ai/compat")).completeSimple(model, llm, settings);
  };
}

/** Waits `ms`, or less when `cut` settles first. */
const sleep = (ms: number, cut: Promise<void>) =>
  Promise.race([new Promise<void>((resolve) => setTimeout(resolve, ms)), cut]);

/**
 * Runs one delegation on pi's `Agent`, start to settle, and resolves with what the
 * parent's Task tool returns. Rejects only for a programming error found before the run
 * starts (`INVALID_INPUT`: no model, a resume without `rows`, bad numbers); every failure
 * of the run itself is a result with `isError` and a `code`.
 */
export async function runDelegate(options: RunDelegateOptions): Promise<DelegateResult> {
  const { registry, task, systemPrompt, signal } = options;
  const now = options.now ?? Date.now;
  // pi is ES modules only (no `require` export): loaded with import(), from CommonJS too
  const pi = await import("@earendil-works/pi-agent-core");
  const tools = dc.filterInheritedTools([...(options.tools ?? [])]).tools as unknown as AgentTool<any>[];
  const byKey = new Map<string, Model<any>>();
  for (const m of [...options.models, ...(options.sessionModel ? [options.sessionModel] : [])]) if (!byKey.has(modelKey(m))) byKey.set(modelKey(m), m);
  const summarize = options.summarize ?? createSummarizer({ streamFn: options.streamFn });
  const { run, step: first } = dc.DelegateRun.start(registry, {
    task, models: options.models.map(runModel), sessionModel: options.sessionModel && runModel(options.sessionModel),
    thinkingLevel: options.thinkingLevel, overheadTokens: dc.requestOverheadTokens({ systemPrompt, tools }),
    retry: options.retry, definition: options.definition,
  }, options.rows ? [...options.rows] : undefined, now());

  // ---- doing what a step says ----------------------------------------------------------
  let agent: Agent | undefined;
  const internal = new AbortController(); // stops the hook's summary requests and the agent
  let stopped = () => {};
  const stop = new Promise<void>((resolve) => (stopped = resolve));
  let finish: Extract<RunNext, { type: "finish" }> | undefined;
  let writing: Promise<void> = Promise.resolve();
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
  let freed = false; // a write that settles after the run returned tells nothing
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
      agent?.abort();
      stopped();
    }
    return step.next;
  }

  // ---- one request: the pre-flight boundary, then the Agent on that model --------------
  const messages: AgentMessage[] = [];
  let carried: AgentMessage[] = []; // the context of the latest request (a retry or a fallback carries it)
  type Hook = (ctx: { context: AgentContext }, signal?: AbortSignal) => Promise<{ context: AgentContext } | undefined>;
  let hook: Hook = async () => undefined;
  async function request(plan: Extract<RunNext, { type: "request" }>): Promise<RequestEndedInput> {
    const model = byKey.get(plan.modelId)!;
    let thrown: unknown;
    const boundary = dc.createPrepareNextTurn({
      budget: plan.budget, modelId: plan.modelId, signal: internal.signal, run: plan.run,
      summarize: (r, s) => summarize(r, s, { model, modelId: plan.modelId }),
      onOutcome: (report: DelegateTurnReport) => perform(() => run.boundary(report, now())),
    });
    hook = async (ctx, hookSignal) => {
      try {
        const out = await boundary(ctx, hookSignal);
        carried = [...(out ? out.context.messages : ctx.context.messages)];
        return out;
      } catch (e) {
        thrown ??= e; // pi's Agent keeps only the message: the code is kept here
        throw e;
      }
    };
    try {
      const context = (plan.messages as AgentMessage[] | undefined) ?? carried;
      if (plan.messages && messages.length === 0) messages.push(context.at(-1)!);
      const out = await hook({ context: { systemPrompt, messages: context, tools } as AgentContext }, internal.signal);
      agent!.state.model = model;
      agent!.state.messages = out ? out.context.messages : context;
      await agent!.continue();
    } catch (e) {
      thrown ??= e;
    }
    return { last: agent!.state.messages.at(-1), thrown };
  }

  const onAbort = () => perform(() => run.abort(now()));
  try {
    let next = perform(() => first);
    if (!finish) {
      agent = new pi.Agent({
        ...options.agentOptions,
        streamFn: options.streamFn,
        convertToLlm: options.convertToLlm ?? pi.convertToLlm,
        initialState: { systemPrompt, model: [...byKey.values()][0]!, tools, messages: [], ...(options.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}) },
        prepareNextTurnWithContext: (ctx, hookSignal) => hook(ctx, hookSignal),
      });
      agent.subscribe((event) => {
        if (event.type !== "message_end") return;
        if (event.message.role !== "user") messages.push(event.message);
        perform(() => run.message(event.message, now()));
      });
      signal?.addEventListener("abort", onAbort, { once: true });
      if (signal?.aborted) onAbort();
    }
    while (!finish) {
      if (next.type === "request") {
        const ended = await Promise.race([request(next), stop.then((): RequestEndedInput => ({}))]);
        if (!finish) next = perform(() => run.requestEnded(ended, now()));
      } else if (next.type === "wait") {
        await sleep(next.ms, stop);
        if (!finish) next = perform(() => run.waited(now()));
      } else {
        // "stop" (the request already ended) or nothing left to wait for
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

export interface RecordRowsOptions {
  /** The rows' id prefix: your conversation's id. Each recording adds a token of its own, so a restart never writes over earlier rows. */
  idPrefix: string;
  /** Receives the rows to persist, in order; store them by `id`. */
  onRows: (rows: UiMessage[]) => void | Promise<void>;
  /** Told when `onRows` throws or rejects (the Agent goes on); default: `console.error`. */
  onError?: (error: unknown, rows: UiMessage[]) => void;
  /** Tools whose calls get no row here. Default `["task"]`: `runDelegate` writes the Task rows. */
  skipTools?: string[];
  /** The clock of the rows' order keys (milliseconds; default `Date.now`). */
  now?: () => number;
}

/**
 * Persists the parent Agent's own messages as rows, as they end (a `RowRecorder`): a user
 * row per prompt, an assistant row per turn, a tool row per call (rewritten when its
 * result arrives), each with its order key. What `buildParentContext` and
 * `DelegationRegistry.fromTranscript` read after a restart. Returns the unsubscribe
 * function.
 */
export function recordRows(agent: Agent, options: RecordRowsOptions): () => void {
  const now = options.now ?? Date.now;
  const recorder = new dc.RowRecorder({ idPrefix: options.idPrefix, skipTools: options.skipTools ?? ["task"], firstIndex: agent.state.messages.length });
  const unsubscribe = agent.subscribe(async (event) => {
    if (event.type !== "message_end") return;
    const rows = recorder.push(event.message, now());
    try {
      await options.onRows(rows);
    } catch (error) {
      (options.onError ?? ((e: unknown) => console.error("delegate-context/pi recordRows: onRows failed", e)))(error, rows);
    }
  });
  return () => {
    unsubscribe();
    recorder.free();
  };
}
