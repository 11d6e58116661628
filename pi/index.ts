// delegate-context/pi: one delegation on pi's Agent, start to settle (ADR 0299 and ADR
// 0279: what SubagentRun does). Every decision is a call into the package's core (the
// same exports a host with its own loop calls step by step); this file only constructs
// and drives pi's Agent, which is JavaScript's job:
//
//   start     registry.start (a new chain, or a validated `resume`; a refusal is the Task
//             tool's error plus a refused Task row) → the Task row (running)
//   seed      a resume: seedDelegateMessages within the delegate model's own budget
//   run       pi's Agent on the delegate's model, tools filtered (filterInheritedTools),
//             the turn-boundary hook on that model's budget, run once before the first
//             request (the pre-flight); abort through `signal`
//   fallback  a failed request (pi's AssistantMessage with stopReason "error"):
//             classifyProviderError, selectFallbackModel (skipped ones in modelFailures),
//             the next model's hook continues the same run tally
//   end       reportForParent (a degraded run says so) or errorForParent /
//             SUBAGENT_CONTEXT_OVERFLOW: never a provider's raw overflow text
//   settle    registry.settle with the run's rows → the Task row (settled)
//   rows      messagesToRows / taskRowStart / taskRowSettle / taskRowRefused → onRows
import type { Agent, AgentMessage, AgentOptions, AgentTool, AgentContext, ThinkingLevel } from "@earendil-works/pi-agent-core";
import type { AssistantMessage, Model } from "@earendil-works/pi-ai";
import * as dc from "delegate-context";
import type {
  DelegateTurnReport, DelegationRegistry, ModelFailure, RunTally, SeedResult, StartedDelegation, SummarizeCallback,
  TaskArgs, TaskDetails, UiMessage, MessagesToRowsInput,
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
  /** `Task.model` as the model passed it (refused on a resume). */
  model?: string;
  /** Any delegationId of the chain to continue. */
  resume?: string;
}

/** What happened during a run, for a host's log or UI. */
export type DelegateRunEvent =
  | { type: "started"; delegationId: string; resumedFrom?: string; modelId: string }
  | { type: "seed"; seed: SeedResult }
  | { type: "boundary"; modelId: string; preflight: boolean; report: DelegateTurnReport }
  | { type: "providerError"; modelId: string; message: string; contextTooLarge: boolean }
  | { type: "fallback"; from: string; to: string | null; tokens: number; modelFailures: ModelFailure[] };

export interface RunDelegateOptions {
  /** The session's delegation registry (`new DelegationRegistry()` or `DelegationRegistry.fromTranscript(rows)`). */
  registry: DelegationRegistry;
  task: DelegateTask;
  /** The delegate's model first, then its fallbacks, in order (pi `Model`s). A resume runs on the chain's own model when it is among them. */
  models: readonly Model<any>[];
  /** pi's stream function (your provider access). */
  streamFn: AgentOptions["streamFn"];
  systemPrompt: string;
  /** The tools the delegate may use (those a delegate never inherits are removed). */
  tools?: readonly AgentTool<any>[];
  /** Sends a summary request to a model, resolves with its text (see `createPrepareNextTurn`). */
  summarize: SummarizeCallback;
  /** The session's rows so far (a resume's history is read from them). */
  rows?: readonly UiMessage[];
  /** Receives the rows to persist, in order; store them by `id` (a later copy replaces an earlier one). Awaited in turn. */
  onRows?: (rows: UiMessage[]) => void | Promise<void>;
  /** Aborts the run (its Agent and any summary request). */
  signal?: AbortSignal;
  /** Default: pi-agent-core's harness `convertToLlm` (it renders the compaction summary). */
  convertToLlm?: AgentOptions["convertToLlm"];
  thinkingLevel?: ThinkingLevel;
  /** More options for the delegate's Agent (`getApiKey`, `toolExecution`, ...). */
  agentOptions?: Omit<AgentOptions, "initialState" | "streamFn" | "convertToLlm" | "prepareNextTurnWithContext">;
  /** The clock of the rows (milliseconds; default `Date.now`). */
  now?: () => number;
  onEvent?: (event: DelegateRunEvent) => void;
}

export interface DelegateResult {
  /** `refused`: the Task call was refused before a run started (e.g. a bad `resume`). */
  status: "completed" | "failed" | "aborted" | "refused";
  /** What the parent's tool result holds: the report (with the degraded notice first when the run lost history), or the error's message. */
  content: string;
  /** Whether the parent receives it as a tool error. */
  isError: boolean;
  /** The Task row's details as persisted. */
  details: TaskDetails;
  delegationId?: string;
  /** The error's code (`SUBAGENT_CONTEXT_OVERFLOW`, `ABORTED`, a clause-4 code, `PROVIDER_ERROR`). */
  code?: string;
  /** `providerId/modelId` the run ended on. */
  modelId?: string;
  /** The run's counts across every model it ran on. */
  run: RunTally;
  /** The run's own messages (its task first). */
  messages: AgentMessage[];
  /** Every row the run wrote (latest copies), its Task row last. */
  rows: UiMessage[];
}

/** `providerId/modelId`. */
export const modelKey = (model: Pick<Model<any>, "provider" | "id">): string => `${model.provider}/${model.id}`;

const budgetOf = (m: Model<any>) => dc.contextBudget({ contextWindow: m.contextWindow, maxTokens: m.maxTokens });

function codeOf(e: unknown): string | undefined {
  const code = e !== null && typeof e === "object" ? (e as { code?: unknown }).code : undefined;
  return typeof code === "string" ? code : undefined;
}

const messageOf = (e: unknown): string => (e instanceof Error ? e.message : String(e));

function textOf(message: AgentMessage | undefined): string {
  if (!message || !("content" in message)) return "";
  const content = message.content;
  if (typeof content === "string") return content;
  return (content as readonly { type: string; text?: string }[]).filter((b) => b.type === "text").map((b) => b.text ?? "").join("\n");
}

const isFailedRequest = (m: AgentMessage | undefined): m is AssistantMessage =>
  m !== undefined && m.role === "assistant" && (m.stopReason === "error" || m.stopReason === "aborted");

/**
 * Runs one delegation on pi's `Agent`, start to settle, and resolves with what the
 * parent's Task tool returns. Rejects only for a programming error (no models, an
 * `onRows` that throws); every failure of the run itself is a result with `isError`.
 */
export async function runDelegate(options: RunDelegateOptions): Promise<DelegateResult> {
  const { registry, task, systemPrompt, summarize, signal } = options;
  const now = options.now ?? Date.now;
  if (options.models.length === 0) throw new TypeError("runDelegate: `models` must hold the delegate's model");
  // pi is ES modules only (no `require` export): loaded with import(), from CommonJS too
  const pi = await import("@earendil-works/pi-agent-core");
  const args: TaskArgs = { agent: task.agent, task: task.task };
  if (task.description !== undefined) args.description = task.description;
  if (task.model !== undefined) args.model = task.model;
  if (task.resume !== undefined) args.resume = task.resume;
  const toolCallId = task.toolCallId;

  // ---- rows: every one goes to onRows, in order ----------------------------------------
  const written = new Map<string, UiMessage>();
  let persisting: Promise<void> = Promise.resolve();
  const persist = (rows: UiMessage[]) => {
    for (const row of rows) written.set(row.id, row);
    if (options.onRows && rows.length) {
      const onRows = options.onRows;
      persisting = persisting.then(() => onRows(rows));
    }
  };

  // ---- start ---------------------------------------------------------------------------
  const primary = options.models[0]!;
  let started: StartedDelegation;
  try {
    started = registry.start(
      {
        toolCallId, ...args,
        binding: { key: modelKey(primary), modelId: primary.id },
        ...(args.resume ? { candidates: { allowed: options.models.map(modelKey), definitionBinding: modelKey(primary) } } : {}),
      },
      options.rows ? [...options.rows] : undefined,
    );
  } catch (e) {
    const code = codeOf(e);
    if (code === undefined) throw e;
    // ADR 0279 clause 4: visible, never thrown: the Task tool's error, and a refused row
    const row = dc.taskRowRefused({ toolCallId, args, code, message: messageOf(e), now: now() });
    persist([row]);
    await persisting;
    return { status: "refused", content: messageOf(e), isError: true, details: detailsOf(row), code, run: {}, messages: [], rows: [row] };
  }
  // a resume continues on the chain's own model (clause 4), the others stay fallbacks
  const bound = options.models.findIndex((m) => modelKey(m) === started.modelBinding.key);
  const order = bound > 0 ? [options.models[bound]!, ...options.models.filter((_, i) => i !== bound)] : [...options.models];
  let model = order[0]!;
  const queue = order.slice(1);
  let taskRow = dc.taskRowStart({ toolCallId, args, started, thinkingLevel: options.thinkingLevel, now: now() });
  persist([taskRow]);
  options.onEvent?.({ type: "started", delegationId: started.delegationId, resumedFrom: started.resumedFrom, modelId: modelKey(model) });

  const tools = dc.filterInheritedTools([...(options.tools ?? [])]).tools as unknown as AgentTool<any>[];
  const runMessages: AgentMessage[] = [{ role: "user", content: [{ type: "text", text: task.task }], timestamp: now() }];
  let rowsFrom = 0;
  const writeRunRows = () => {
    persist(rowsSince(runMessages, rowsFrom, { parentToolCallId: toolCallId, agentName: started.agent }));
    rowsFrom = runMessages.length;
  };
  writeRunRows();

  // ---- the boundary hook of one model, continuing the run's tally ----------------------
  let run: RunTally | undefined;
  let hookError: unknown;
  let carried: AgentMessage[] = []; // the context of the latest request (what a fallback carries)
  let preflight = false;
  const hookFor = (m: Model<any>) => {
    const modelId = modelKey(m);
    const hook = dc.createPrepareNextTurn({
      budget: budgetOf(m), modelId, summarize, signal, run,
      onOutcome: (report) => {
        run = report.run;
        options.onEvent?.({ type: "boundary", modelId, preflight, report });
      },
    });
    return async (ctx: { context: AgentContext }, hookSignal?: AbortSignal) => {
      try {
        const out = await hook(ctx, hookSignal);
        carried = [...(out ? out.context.messages : ctx.context.messages)];
        return out;
      } catch (e) {
        hookError = e; // pi's Agent keeps only the message: the code is kept here
        throw e;
      }
    };
  };
  let hook = hookFor(model);
  /** The boundary once before the first request on a context pi did not build. */
  const preflightOn = async (messages: AgentMessage[]): Promise<AgentMessage[] | undefined> => {
    preflight = true;
    try {
      const out = await hook({ context: { systemPrompt, messages, tools } }, signal);
      return out ? out.context.messages : messages;
    } catch {
      return undefined;
    } finally {
      preflight = false;
    }
  };

  // ---- the delegate's Agent ------------------------------------------------------------
  const agent = new pi.Agent({
    ...options.agentOptions,
    streamFn: options.streamFn,
    convertToLlm: options.convertToLlm ?? pi.convertToLlm,
    initialState: { systemPrompt, model, tools, messages: [], ...(options.thinkingLevel ? { thinkingLevel: options.thinkingLevel } : {}) },
    prepareNextTurnWithContext: (ctx, hookSignal) => hook(ctx, hookSignal),
  });
  const unsubscribe = agent.subscribe((event) => {
    if (event.type !== "message_end" || event.message.role === "user") return;
    runMessages.push(event.message);
    writeRunRows();
  });
  const onAbort = () => agent.abort();
  signal?.addEventListener("abort", onAbort, { once: true });

  // ---- seed (a resume) and run, with fallbacks -----------------------------------------
  const modelFailures: ModelFailure[] = [];
  let failure: AssistantMessage | undefined;
  try {
    let next: AgentMessage[] | undefined = [runMessages[0]!];
    if (started.resumedFrom) {
      const seed = dc.seedDelegateMessages({
        brief: started.brief, rows: [...(options.rows ?? [])], chain: { toolCallIds: started.toolCallIds, agent: started.agent },
        binding: { provider: model.provider, model: model.id, api: model.api }, hardLimit: budgetOf(model).hardLimit,
        // the seed is sent with the system prompt, the tools and the new task: all of it fits (ADR 0299 §7)
        overheadTokens: dc.requestOverheadTokens({ systemPrompt, tools }) + dc.estimateTokens(runMessages[0]!),
      });
      options.onEvent?.({ type: "seed", seed });
      next = [...seed.messages, runMessages[0]!];
    }
    next = signal?.aborted ? undefined : await preflightOn(next);
    while (next) {
      agent.state.model = model;
      agent.state.messages = next;
      failure = undefined;
      try {
        await agent.continue();
      } catch (e) {
        hookError ??= e;
      }
      const last = agent.state.messages.at(-1);
      if (hookError !== undefined || signal?.aborted || !isFailedRequest(last) || last.stopReason === "aborted") break;
      // ADR 0299 §5–6: pi's failed request, classified; the next model that can hold the context
      failure = last;
      const cls = dc.classifyProviderError(last);
      options.onEvent?.({ type: "providerError", modelId: modelKey(model), message: last.errorMessage ?? "", contextTooLarge: cls.contextTooLarge });
      if (queue.length === 0) break;
      const choice = dc.selectFallbackModel({
        messages: carried,
        candidates: queue.map((m) => ({ id: m.id, provider: m.provider, contextWindow: m.contextWindow, maxTokens: m.maxTokens })),
        overheadTokens: dc.requestOverheadTokens({ systemPrompt, tools }),
      });
      modelFailures.push(...choice.modelFailures);
      const index = choice.index ?? null;
      const to = index === null ? null : queue[index]!;
      options.onEvent?.({ type: "fallback", from: modelKey(model), to: to && modelKey(to), tokens: choice.tokens, modelFailures: choice.modelFailures });
      if (to === null || index === null) break;
      queue.splice(0, index + 1);
      model = to;
      hook = hookFor(model);
      next = await preflightOn(carried);
    }
  } finally {
    unsubscribe();
    signal?.removeEventListener("abort", onAbort);
  }

  // ---- what the parent receives --------------------------------------------------------
  const modelId = modelKey(model);
  let status: "completed" | "failed" | "aborted";
  let content: string;
  let code: string | undefined;
  const last = agent.state.messages.at(-1);
  if (signal?.aborted || codeOf(hookError) === "ABORTED" || (hookError === undefined && last?.role === "assistant" && last.stopReason === "aborted")) {
    status = "aborted";
    code = "ABORTED";
    content = "The delegation was aborted before it finished.";
  } else if (hookError !== undefined) {
    status = "failed";
    // a coded error as it is; anything else (a streamFn that threw) as errorForParent
    // decides it: a provider's overflow reaches the parent as SUBAGENT_CONTEXT_OVERFLOW (§5)
    const e: unknown = codeOf(hookError) === undefined ? dc.errorForParent(hookError, { modelId }) : hookError;
    code = codeOf(e) ?? "INTERNAL";
    content = messageOf(e);
  } else if (failure !== undefined || isFailedRequest(last)) {
    const failed = (failure ?? last) as AssistantMessage;
    const e: unknown = dc.errorForParent(failed, { modelId });
    status = "failed";
    const coded = codeOf(e);
    code = coded ?? "PROVIDER_ERROR";
    content = coded ? messageOf(e) : failed.errorMessage || "The delegate's provider request failed.";
  } else {
    status = "completed";
    content = dc.reportForParent({ report: textOf(last), run: run ?? {}, modelId }).text;
  }

  // ---- settle --------------------------------------------------------------------------
  await persisting;
  const runRows = [...written.values()].filter((r) => r.parentToolCallId === toolCallId);
  registry.settle({ delegationId: started.delegationId, status, rows: runRows });
  taskRow = dc.taskRowSettle({
    row: taskRow, status, content, isError: status !== "completed", runRows, run: run ?? {}, modelFailures, error: code, now: now(),
  });
  persist([taskRow]);
  await persisting;
  return {
    status, content, isError: status !== "completed", details: detailsOf(taskRow), delegationId: started.delegationId, code, modelId,
    run: run ?? {}, messages: runMessages, rows: [...runRows, taskRow],
  };
}

function detailsOf(row: UiMessage): TaskDetails {
  return (row.toolResult as { details: TaskDetails }).details;
}

export interface RecordRowsOptions {
  /** The rows' id prefix: one per app session (e.g. `"s1"`), so two sessions' ids never meet. */
  idPrefix: string;
  /** Receives the rows to persist, in order; store them by `id`. */
  onRows: (rows: UiMessage[]) => void | Promise<void>;
  /** Tools whose calls get no row here. Default `["task"]`: `runDelegate` writes the Task rows. */
  skipTools?: string[];
}

/**
 * The rows of `messages[from..]`, sending wasm only the window from the turn that carries
 * the tool calls still open (a result rewrites its call's row), so writing a run message
 * by message is linear in the run: `firstIndex` keeps the row ids of the whole run.
 */
function rowsSince(messages: AgentMessage[], from: number, owner: Omit<MessagesToRowsInput, "messages">): UiMessage[] {
  let base = Math.min(from, messages.length - 1);
  while (base > 0 && messages[base]!.role !== "assistant") base--;
  base = Math.max(base, 0);
  return dc.messagesToRows({ ...owner, messages: messages.slice(base), start: from - base, firstIndex: base });
}

/**
 * Persists the parent Agent's own messages as rows (`messagesToRows`), as they end: a
 * user row per prompt, an assistant row per turn, a tool row per call (rewritten when its
 * result arrives). What `buildParentContext` and `DelegationRegistry.fromTranscript`
 * read after a restart. Returns the unsubscribe function.
 */
export function recordRows(agent: Agent, options: RecordRowsOptions): () => void {
  const messages: AgentMessage[] = [];
  const owner = { idPrefix: options.idPrefix, skipTools: options.skipTools ?? ["task"] };
  return agent.subscribe(async (event) => {
    if (event.type !== "message_end") return;
    messages.push(event.message);
    await options.onRows(rowsSince(messages, messages.length - 1, owner));
  });
}
