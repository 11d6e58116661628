// The hostile-input sweep's machinery, shared by tests/js/sweep.test.mjs (main thread),
// tests/js/sweep-worker.mjs (a worker_threads Worker with a 1 MB stack) and the web
// build. Nothing here loads the package: every function takes the loaded module `dc`.
//
// Cases are generated, not written: every entry point (export, method, the pi hook,
// runDelegateTurn) has one or more valid base inputs; every field those inputs hold (found
// by walking them, plus an unknown extra field on every object) gets every hostile value.
// A case passes when the call returns, or throws / rejects a DelegateContextError with a
// code (and a path for INVALID_INPUT); the promise settles within its time box; no input
// was changed (a descriptor-level snapshot, taken without calling getters, before and
// after); the module still answers a known call; the handle used still answers and frees.
import { types } from "node:util";

export const CODES = new Set(["INVALID_INPUT", "SUBAGENT_CONTEXT_OVERFLOW", "ABORTED", "UNKNOWN_DELEGATION", "DELEGATION_RUNNING", "NOT_RESUMABLE", "AGENT_MISMATCH", "MODEL_ON_RESUME", "READ_BUDGET_EXCEEDED", "NO_HISTORY", "INVALID_STATE"]);

const SKIP = Symbol("skip");
const NOW = 1_700_000_000_000;

// ---------------------------------------------------------------- hostile values

/** An object with no own fields, created by a class (JSON sees it as a plain object). */
export class Record {}
/** A class instance with its own field and a method. */
export class Widget {
  constructor() {
    this.kind = "widget";
  }
  method() {
    return 1;
  }
}

export function revoked() {
  const { proxy, revoke } = Proxy.revocable({}, {});
  revoke();
  return proxy;
}

export function throwingProxy() {
  const boom = () => {
    throw new Error("proxy trap boom");
  };
  return new Proxy({}, { get: boom, has: boom, ownKeys: boom, getOwnPropertyDescriptor: boom, getPrototypeOf: boom, defineProperty: boom, set: boom, deleteProperty: boom, isExtensible: boom, preventExtensions: boom });
}

/** An Error whose `message` getter throws (reading what a getter threw, throws again). */
export function errorWithThrowingMessage() {
  const e = new Error("outer");
  Object.defineProperty(e, "message", {
    get() {
      throw new Error("message getter boom");
    },
  });
  return e;
}

function deepObject(levels) {
  let v = 1;
  for (let i = 0; i < levels; i++) v = { a: [v] };
  return v;
}

const isObj = (v) => v !== null && typeof v === "object";
const isPlain = (v) => isObj(v) && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype;

export function deepFreeze(v, seen = new Set()) {
  const stack = [v];
  while (stack.length) {
    const x = stack.pop();
    if (!isObj(x) || seen.has(x) || types.isProxy(x)) continue;
    seen.add(x);
    Object.freeze(x);
    for (const k of Reflect.ownKeys(x)) {
      const d = Object.getOwnPropertyDescriptor(x, k);
      if (d && "value" in d) stack.push(d.value);
    }
  }
  return v;
}

/** A structural copy of plain data (functions and class instances kept by reference). */
function copy(v) {
  if (Array.isArray(v)) return v.map(copy);
  if (isPlain(v)) return Object.fromEntries(Object.entries(v).map(([k, x]) => [k, copy(x)]));
  return v;
}

/**
 * The hostile values. `kind` "value" sets the field, "delete" removes it, "getter"
 * defines a getter that throws `make()`. `equivalent`: the call must answer exactly as
 * with the valid value (a transparent Proxy, a deep-frozen copy, a class instance with
 * the same fields).
 */
export function hostileValues(shared) {
  const H = [];
  const value = (name, make, extra = {}) => H.push({ name, kind: "value", make, ...extra });
  const getter = (name, make, extra = {}) => H.push({ name, kind: "getter", make, ...extra });
  const core = { core: true };
  // callbacks and signals: only where a callback or a signal is read
  const callback = { where: (key) => /^(summarize|onOutcome|signal|2)$/.test(String(key)) };
  H.push({ name: "absent", kind: "delete", ...core });
  value("null", () => null, core);
  value("nested 10,000 levels", () => shared.deepObject);
  value('lone surrogate "\\ud800"', () => "a\ud800", core);
  for (const n of [NaN, Infinity, -Infinity, -0, 2 ** 53 + 1, 1e308, -1, 0.5]) value(`number ${Object.is(n, -0) ? "-0" : n}`, () => n, Number.isNaN(n) ? core : {});
  value("BigInt", () => 10n, core);
  value("Symbol", () => Symbol("s"));
  value("function", () => function f() {});
  value("function that throws", () => () => {
    throw new Error("callback boom");
  }, callback);
  value("async function that rejects with a revoked proxy", () => async () => {
    throw revoked();
  }, callback);
  value("function returning a revoked proxy", () => () => revoked(), callback);
  value("already-aborted AbortSignal", () => AbortSignal.abort(), callback);
  value("class instance", () => new Widget());
  value("empty object", () => ({}));
  value("cyclic object", () => {
    const o = { a: 1 };
    o.self = o;
    return o;
  });
  value("toJSON that throws", () => ({
    toJSON() {
      throw new Error("toJSON boom");
    },
  }));
  value("array of length 2^32 - 1", () => {
    const a = [];
    a.length = 2 ** 32 - 1;
    return a;
  });
  value("array of holes", () => [, , ,]); // eslint-disable-line no-sparse-arrays
  value("Proxy whose every trap throws", () => throwingProxy());
  value("revoked Proxy", () => revoked(), core);
  // derived from the valid value
  value("transparent Proxy of the valid value", (orig) => (isObj(orig) ? new Proxy(orig, {}) : SKIP), { equivalent: true });
  value("deep-frozen copy of the valid value", (orig) => (isObj(orig) && (isPlain(orig) || Array.isArray(orig)) ? deepFreeze(copy(orig)) : SKIP), { equivalent: true, core: true });
  value("class instance with the valid fields", (orig) => (isPlain(orig) ? Object.assign(new Record(), copy(orig)) : SKIP), { equivalent: true });
  value("the valid array with holes and undefined", (orig) => {
    if (!Array.isArray(orig) || orig.length === 0) return SKIP;
    const a = [, ...orig, undefined]; // eslint-disable-line no-sparse-arrays
    return a;
  });
  // getters on the parent object
  getter("getter that throws an Error", () => new Error("getter boom"), core);
  getter("getter that throws a Symbol", () => Symbol("boom"));
  getter("getter that throws a revoked Proxy", () => revoked());
  // reading the message of what a getter threw throws again
  getter("getter that throws an Error whose message getter throws", () => errorWithThrowingMessage());
  return H;
}

// ---------------------------------------------------------------- snapshots (no getter is called)

/**
 * A flat record of everything reachable from `roots` through own data properties:
 * prototypes, extensibility, every key with its descriptor; accessors by identity;
 * Proxies and `skip` objects by identity only (walking a Proxy would run its traps).
 */
export function snapshot(roots, skip) {
  const out = [];
  const ids = new Map();
  const stack = [roots];
  const idOf = (v) => {
    if (!ids.has(v)) {
      ids.set(v, ids.size);
      stack.push(v);
    }
    return ids.get(v);
  };
  idOf(roots);
  stack.length = 0;
  stack.push(roots);
  while (stack.length) {
    const x = stack.pop();
    out.push("#", ids.get(x));
    // a Proxy (walking it would run its traps), a skipped object, an AbortSignal (the
    // platform keeps its own bookkeeping on it: AbortSignal.any adds kDependantSignals)
    if (types.isProxy(x) || skip?.has(x) || (typeof AbortSignal !== "undefined" && x instanceof AbortSignal)) {
      out.push("opaque", x);
      continue;
    }
    out.push(Object.getPrototypeOf(x), Object.isExtensible(x));
    for (const k of Reflect.ownKeys(x)) {
      const d = Object.getOwnPropertyDescriptor(x, k);
      out.push(k, d.enumerable, d.configurable);
      if ("value" in d) {
        out.push(d.writable);
        const v = d.value;
        if ((typeof v === "object" && v !== null) || typeof v === "function") out.push("ref", idOf(v));
        else out.push(v);
      } else out.push("get", d.get, d.set);
    }
  }
  return out;
}

/** The first difference of two snapshots, or null. */
export function snapshotDiff(a, b) {
  const n = Math.max(a.length, b.length);
  for (let i = 0; i < n; i++) {
    if (!Object.is(a[i], b[i])) {
      let j = i;
      while (j > 0 && a[j] !== "#") j--;
      return `object #${a[j + 1]} changed near entry ${i}: ${describe(a[i])} -> ${describe(b[i])}`;
    }
  }
  return null;
}

function describe(x) {
  try {
    if (typeof x === "symbol") return x.toString();
    if (typeof x === "string") return JSON.stringify(x.length > 60 ? x.slice(0, 60) + "…" : x);
    if (typeof x === "function") return `function ${x.name}`;
    return String(x);
  } catch {
    return Object.prototype.toString.call(x);
  }
}

// ---------------------------------------------------------------- valid inputs

const brief = () => ({ role: "user", content: "Brief: audit src/ for unsafe casts.", timestamp: 1 });
const usage = (total) => ({ input: total, output: 0, cacheRead: 0, cacheWrite: 0, totalTokens: total, cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 } });
const toolCall = (i) => ({
  role: "assistant",
  content: [
    { type: "thinking", thinking: "I should read it.", thinkingSignature: "sig" },
    { type: "text", text: "Reading." },
    { type: "toolCall", id: `c${i}`, name: "read", arguments: { path: `src/${i}.rs`, limit: 10 } },
  ],
  api: "anthropic-messages", provider: "anthropic", model: "claude-x", usage: usage(0), stopReason: "toolUse", timestamp: 2,
});
const toolResult = (i, chars = 40) => ({
  role: "toolResult", toolCallId: `c${i}`, toolName: "read",
  content: [{ type: "text", text: "fn f() {}\n".repeat(Math.ceil(chars / 10)) }],
  details: { lines: 4 }, isError: false, timestamp: 3,
});

/** Every role and block kind, below any limit. */
export function smallMessages() {
  return [
    brief(),
    { role: "user", content: [{ type: "text", text: "and look" }, { type: "image", data: "iVBORw0KGgo=", mimeType: "image/png" }], timestamp: 4 },
    toolCall(0),
    toolResult(0),
    { role: "bashExecution", command: "ls", output: "a\nb", exitCode: 0, cancelled: false, truncated: false, timestamp: 5 },
    { role: "custom", customType: "note", content: "a note", display: true, details: { k: 1 }, timestamp: 6 },
    { role: "branchSummary", summary: "earlier branch", fromId: "e1", timestamp: 7 },
    { role: "compactionSummary", summary: "earlier work", tokensBefore: 900, timestamp: 8 },
    { role: "assistant", content: [{ type: "text", text: "Done so far." }], api: "a", provider: "p", model: "m", usage: usage(60), stopReason: "stop", timestamp: 9 },
  ];
}

/** Over the hardLimit (4,096) of an 8k window: the compaction path runs. */
export function bigMessages() {
  const m = [brief()];
  for (let i = 0; i < 8; i++) m.push(toolCall(i), toolResult(i, 3000));
  return m;
}

const smallBudget = (dc) => dc.contextBudget({ contextWindow: 8192, maxTokens: 1024 });
const options = () => ({ now: NOW, earlyTrigger: false, overheadTokens: 40, summaryMaxTokens: 500, customInstructions: "Focus on casts." });
const summarize = () => async (request) => `## Goal\nAudit.\n## Progress\n- ${request.kind}`;
const turnConfig = (dc) => ({ budget: smallBudget(dc), modelId: "local/small", options: options() });

/** A transcript: two chained explorer runs, a refused task, a parent turn, a subagent result. */
export function transcript() {
  return [
    { id: "u1", role: "user", content: "Audit the parser", createdAt: "2024-01-01T00:00:00.000Z" },
    { id: "t1", role: "tool", content: "", toolName: "task", toolCallId: "t1", toolStatus: "success", toolArgs: { agent: "Explorer.md", task: "Map the parser", description: "parser map" }, toolResult: { details: { delegationId: "d1", agent: "explorer", status: "completed", modelId: "m", startedAt: "2024-01-01T00:00:01.000Z" } } },
    { id: "r1", role: "tool", content: "", toolName: "Read", toolCallId: "r1", toolStatus: "success", toolArgs: { path: "src/parser.rs" }, toolResult: "fn parse() {}\nfn expr() {}", parentToolCallId: "t1", agentName: "explorer" },
    { id: "g1", role: "tool", content: "", toolName: "grep", toolCallId: "g1", toolStatus: "success", toolArgs: { pattern: "fn " }, toolResult: { content: [{ type: "text", text: "a\nb" }] }, parentToolCallId: "t1", agentName: "explorer" },
    { id: "a1", role: "assistant", content: "It is a Pratt parser.", thinking: "hm", status: "complete", parentToolCallId: "t1", agentName: "explorer" },
    { id: "t2", role: "tool", content: "", toolName: "Task", toolCallId: "t2", toolStatus: "success", toolArgs: { agent: "explorer", task: "Now the lexer", resume: "d1" }, toolResult: { details: { delegationId: "d2", agent: "explorer", status: "completed", resumedFrom: "d1", modelId: "m" } } },
    { id: "a2", role: "assistant", content: "The lexer is hand-written.", parentToolCallId: "t2", agentName: "explorer", usage: { inputTokens: 1, outputTokens: 2, totalTokens: 3 } },
    { id: "t3", role: "tool", content: "", toolName: "task", toolCallId: "t3", toolStatus: "error", toolArgs: { agent: "reviewer", task: "Review", resume: "dx" }, toolResult: { details: { error: { code: "NO_HISTORY" } } } },
    { id: "s1", role: "tool", content: "", toolName: "subagent", toolCallId: "s1", toolStatus: "success", toolArgs: { task: "x" }, toolResult: JSON.stringify({ success: true, data: { response: "All done." } }) },
    { id: "p1", role: "assistant", content: "Summary for you.", modelId: "m", providerId: "p", status: "complete" },
  ];
}

const chainRows = () => transcript().filter((r) => r.parentToolCallId === "t1" || r.parentToolCallId === "t2");

// ---------------------------------------------------------------- entry points

/**
 * Every entry point: `bases` (name → () => args, given the handle when there is one),
 * `call(args, handle)`, `setup()` / `health(handle)` / `teardown(handle)` for methods.
 * `paths`: "auto" (every field of the args) or a list of paths.
 */
export function entryPoints(dc) {
  const E = [];
  const fn = (name, bases, call = (args) => dc[name](...args), extra = {}) => E.push({ name, bases, call, ...extra });

  // foundation
  fn("version", { none: () => [] });
  fn("subagentInheritDenyTools", { none: () => [] });
  fn("resumeParameterSchema", { none: () => [] });
  fn("contextBudget", { model: () => [{ contextWindow: 64000, maxTokens: 16000, definitionMaxTokens: 8000, id: "m", provider: "p" }] });
  const estimateBases = {};
  smallMessages().forEach((m, i) => (estimateBases[`${m.role}#${i}`] = () => [smallMessages()[i]]));
  fn("estimateTokens", estimateBases, undefined, { primary: true, recordArgs: true });
  fn("calculateContextTokens", { usage: () => [usage(0)] });
  fn("estimateContextTokens", { small: () => [smallMessages()] });
  fn("requestOverheadTokens", { request: () => [{ systemPrompt: "You are a delegate.", tools: [{ name: "read", description: "Read a file", parameters: { type: "object", properties: { path: { type: "string" } } } }] }] });
  fn("buildParentContext", { rows: () => [transcript()] }, undefined, { primary: true });
  fn("subagentResultForParent", { json: () => [JSON.stringify({ success: true, data: { response: "done" } })] });
  // compaction primitives
  fn("serializeConversation", { small: () => [smallMessages()] });
  fn("prepareCompaction", { small: () => [smallMessages(), { reserveTokens: 2000, keepRecentTokens: 100, enabled: true }] });
  fn("compactionPlans", { small: () => [smallMessages(), [2, 5, 9], { reserveTokens: 2000, keepRecentTokens: 100 }] });
  fn("findCutPoint", { small: () => [smallMessages(), 0, 9, 100] });
  fn("reportForParent", { run: () => [{ report: "Done.", run: { boundaries: 3, contextCompactions: 1, contextDegraded: true, droppedMessages: 2, droppedTokens: 100 }, modelId: "local/small" }] });
  fn("errorForParent", { overflow: () => [{ status: 413, message: "request too large" }, { modelId: "local/small", tokens: 5000, hardLimit: 4096 }] });
  // the boundary step
  fn("prepareDelegateTurn", { small: () => [{ messages: smallMessages(), ...turnConfig(dc) }], big: () => [{ messages: bigMessages(), ...turnConfig(dc) }] });
  fn("completeDelegateTurn", {
    small: () => [{ messages: smallMessages(), ...turnConfig(dc), answer: { history: "## Goal\nx", turnPrefix: "prefix" } }],
    big: () => [{ messages: bigMessages(), ...turnConfig(dc), answer: { history: "## Goal\nx", turnPrefix: "prefix", error: undefined } }],
  });
  fn("runDelegateTurn", {
    small: () => [{ messages: smallMessages(), ...turnConfig(dc), summarize: summarize(), signal: new AbortController().signal }],
    big: () => [{ messages: bigMessages(), ...turnConfig(dc), summarize: summarize(), signal: new AbortController().signal }],
  }, undefined, { async: true });
  // the pi hook: createPrepareNextTurn(config)(ctx, agentSignal)
  const hookConfig = () => ({ ...turnConfig(dc), options: { now: NOW, summaryMaxTokens: 500 }, summarize: summarize(), signal: new AbortController().signal, onOutcome: () => {} });
  fn("createPrepareNextTurn + hook", {
    small: () => [hookConfig(), { context: { systemPrompt: "You are a delegate.", messages: smallMessages(), tools: [{ name: "read", parameters: { type: "object" } }] } }, new AbortController().signal],
    big: () => [hookConfig(), { context: { systemPrompt: "You are a delegate.", messages: bigMessages(), tools: [{ name: "read", parameters: { type: "object" } }] } }, new AbortController().signal],
  }, (args) => {
    const hook = dc.createPrepareNextTurn(args[0]);
    return hook(args[1], args[2]);
  }, { async: true });
  // fallback models
  fn("selectFallbackModel", { two: () => [{ messages: smallMessages(), candidates: [{ provider: "local", id: "tiny", contextWindow: 600, maxTokens: 100 }, { provider: "anthropic", id: "big", contextWindow: 200000, maxTokens: 8192, definitionMaxTokens: 4000 }], overheadTokens: 50 }] });
  fn("classifyProviderError", { plain: () => [{ status: 400, message: "prompt is too long: 210000 tokens" }], statusCode: () => [{ statusCode: 422, message: "maximum context length" }] });
  fn("filterInheritedTools", { mixed: () => [["read", { name: "Task", description: "x" }, { name: "grep", parameters: { type: "object" } }, "new_context", "ToolSearch"]] });
  // resumable delegations, pure functions
  fn("selectChainRows", { chain: () => [transcript(), { toolCallIds: ["t1", "t2"], agent: "explorer" }] });
  fn("chainRowsToMessages", { chain: () => [chainRows(), { provider: "anthropic", model: "claude-x", api: "anthropic-messages", thinkingSignature: "reasoning_content" }] });
  fn("countChainReads", { chain: () => [chainRows()] });
  fn("seedDelegateMessages", {
    derived: () => [{ brief: "Map the parser", rows: transcript(), chain: { toolCallIds: ["t1", "t2"], agent: "explorer" }, binding: { provider: "anthropic", model: "claude-x" }, hardLimit: 4096, systemPrompt: "You are the explorer.", tools: [{ name: "read", parameters: { type: "object" } }] }],
    overhead: () => [{ brief: "Map the parser", rows: chainRows(), binding: { provider: "anthropic", model: "claude-x", api: "x" }, hardLimit: 60, overheadTokens: 20 }],
  }, undefined, { primary: ["overhead"] });
  fn("resolveResumeBinding", { rebuilt: () => [{ recordedKey: "p/m", recordedModelId: "m", allowed: ["q/m", "p/n"], definitionBinding: "p/n" }] });
  fn("formatResumableList", { one: () => [[{ agent: "explorer", delegationId: "d2", objective: "parser map", files: ["a.rs", "b.rs"], readLines: 4, status: "completed" }, { agent: "reviewer", delegationId: "d9", objective: "", files: [], readLines: 0, status: null }]] });

  // DelegateContext
  const ctxSetup = (messages) => () => new dc.DelegateContext(messages());
  const ctxHealth = (ctx) => {
    const n = ctx.length;
    if (!Number.isInteger(n)) throw new Error(`length is ${n}`);
    if (ctx.messages().length !== n) throw new Error("messages() disagrees with length");
    ctx.estimateContextTokens();
    ctx.serializeConversation();
  };
  const ctxFree = (ctx) => ctx.free();
  const method = (name, setup, bases, call, extra = {}) => E.push({ name, setup, health: ctxHealth, teardown: ctxFree, bases, call, ...extra });
  // a handle as data: what equivalent inputs must give alike
  const ctxView = (ctx) => (ctx instanceof dc.DelegateContext ? { length: ctx.length, estimate: ctx.estimateContextTokens(), text: ctx.serializeConversation() } : ctx);
  E.push({ name: "new DelegateContext", bases: { small: () => [smallMessages()], big: () => [bigMessages()] }, call: (args) => new dc.DelegateContext(...args), view: ctxView, disposeResult: (r) => r?.free?.() });
  method("DelegateContext#push", ctxSetup(smallMessages), { more: () => [[toolCall(7), toolResult(7)]] }, (args, ctx) => ctx.push(...args), { primary: true });
  // sync compares message identities: an equal copy of a message is a different message (reloaded)
  method("DelegateContext#sync", ctxSetup(smallMessages), { appended: (ctx) => [[...ctx.messages(), toolCall(7), toolResult(7)]], reloaded: () => [bigMessages()] }, (args, ctx) => ctx.sync(...args), { identity: true });
  method("DelegateContext#findCutPoint", ctxSetup(smallMessages), { range: () => [100, 0, 9] }, (args, ctx) => ctx.findCutPoint(...args));
  method("DelegateContext#prepareCompaction", ctxSetup(smallMessages), { settings: () => [{ reserveTokens: 2000, keepRecentTokens: 100 }] }, (args, ctx) => ctx.prepareCompaction(...args));
  method("DelegateContext#serializeConversation", ctxSetup(smallMessages), { range: () => [1, 8] }, (args, ctx) => ctx.serializeConversation(...args));
  method("DelegateContext#prepareTurn", ctxSetup(bigMessages), { config: () => [turnConfig(dc)] }, (args, ctx) => ctx.prepareTurn(...args));
  method("DelegateContext#completeTurn", ctxSetup(bigMessages), { answer: () => [{ ...turnConfig(dc), answer: { history: "## Goal\nx", turnPrefix: "p", error: undefined } }] }, (args, ctx) => ctx.completeTurn(...args));
  method("DelegateContext#runTurn", ctxSetup(bigMessages), { summarize: () => [{ ...turnConfig(dc), summarize: summarize(), signal: new AbortController().signal }] }, (args, ctx) => ctx.runTurn(...args), { async: true });

  // DelegationRegistry
  const regSetup = () => {
    const reg = dc.DelegationRegistry.fromTranscript(transcript());
    const run = reg.start({ toolCallId: "t5", agent: "reviewer", task: "Review the lexer", description: "lexer review" });
    reg.running = run.delegationId;
    return reg;
  };
  const regHealth = (reg) => {
    if (!Number.isInteger(reg.chainCount)) throw new Error("chainCount");
    reg.resumablePrompt();
    reg.resumableList();
    reg.rebuildSkips();
    reg.resolve("d1");
  };
  const regMethod = (name, bases, call, extra = {}) => E.push({ name, setup: regSetup, health: regHealth, teardown: (reg) => reg.free(), bases, call, ...extra });
  const regView = (reg) => (reg instanceof dc.DelegationRegistry ? { chains: reg.chainCount, list: reg.resumableList(), prompt: reg.resumablePrompt(), skips: reg.rebuildSkips(), d1: reg.resolve("d1") } : reg);
  E.push({ name: "DelegationRegistry.fromTranscript", bases: { rows: () => [transcript()] }, call: (args) => dc.DelegationRegistry.fromTranscript(...args), view: regView, disposeResult: (r) => r?.free?.(), primary: true });
  regMethod("DelegationRegistry#start", {
    fresh: () => [{ toolCallId: "t9", agent: "explorer", task: "More", description: "more", model: "p/m", binding: { key: "p/m", modelId: "m" }, definition: "v1" }],
    resume: () => [{ toolCallId: "t9", agent: "explorer", task: "More", resume: "d2", candidates: { allowed: ["p/m"], definitionBinding: "p/m" }, definition: "v1" }, transcript()],
  }, (args, reg) => reg.start(...args));
  regMethod("DelegationRegistry#settle", {
    reads: (reg) => [{ delegationId: reg.running, status: "completed", reads: { files: ["a.rs"], lines: 3 } }],
    rows: (reg) => [{ delegationId: reg.running, status: "failed", rows: [...transcript(), { id: "x1", role: "assistant", content: "ok", parentToolCallId: "t5", agentName: "reviewer" }] }],
  }, (args, reg) => reg.settle(...args));
  regMethod("DelegationRegistry#validateResume", { rows: () => [{ delegationId: "d1", agent: "explorer" }, transcript()] }, (args, reg) => reg.validateResume(...args));
  regMethod("DelegationRegistry#resolve", { id: () => ["d1"] }, (args, reg) => reg.resolve(...args));
  regMethod("DelegationRegistry#chainConversation", { rows: () => [transcript(), "d2"] }, (args, reg) => reg.chainConversation(...args));
  regMethod("DelegationRegistry#resumableList/Prompt/rebuildSkips/chainCount", { none: () => [] }, (args, reg) => [reg.resumableList(...args), reg.resumablePrompt(...args), reg.rebuildSkips(...args), reg.chainCount]);
  return E;
}

/**
 * Every path to a field of `args`: each argument, each property at any depth, an unknown
 * extra property on every plain object, one past the end of every array. Each path gets
 * a `tier`: "full" (every hostile value) or "core" (the core set). Fields outside arrays
 * of records are full. Inside a record (a message, a row, a candidate), a field is full
 * the first time its name and place are seen, at a `primary` entry point (a reader of
 * that record kind); else core. Records in the middle of their array are core. Without
 * `primary`, only the last `sampleRecords` records of each array are walked inside.
 */
const OPAQUE = new Set(["details", "cost", "parameters", "properties", "createdAt"]);

export function fieldPaths(args, { primary = false, sampleRecords = 2, seen = new Set(), recordArgs = false } = {}) {
  const paths = [];
  const walk = (v, path, depth, shape) => {
    if (depth > 8) return;
    if (Array.isArray(v)) {
      const records = v.some((x) => isPlain(x));
      v.forEach((x, i) => {
        const middle = records && i > 0 && i < v.length - 1;
        paths.push({ path: [...path, i], tier: shape || middle ? "core" : "full" });
        if (!records && shape === undefined) walk(x, [...path, i], depth + 1, undefined);
        else if (primary || i >= v.length - sampleRecords) walk(x, [...path, i], depth + 1, records ? `${shape ?? ""}>` : `${shape}[#]`);
      });
      paths.push({ path: [...path, v.length], tier: shape ? "core" : "full" });
    } else if (isPlain(v)) {
      const top = path.length <= 1 || shape === ">" || (shape !== undefined && /^>*$/.test(shape));
      for (const k of [...Object.keys(v), ...(top || depth <= 1 ? ["extraHostField"] : [])]) {
        const s = shape === undefined ? undefined : `${shape}.${k}`;
        const tier = s === undefined ? "full" : primary && !seen.has(s) ? "full" : "core";
        if (s !== undefined) seen.add(s);
        paths.push({ path: [...path, k], tier });
        // host data the library keeps as it is: its own fields are not walked
        if (k in v && !OPAQUE.has(k)) walk(v[k], [...path, k], depth + 1, s);
      }
    }
  };
  args.forEach((a, i) => {
    paths.push({ path: [i], tier: "full" });
    walk(a, [i], 0, recordArgs ? ">" : undefined);
  });
  if (args.length === 0) paths.push({ path: [0], tier: "full" });
  return paths;
}

// ---------------------------------------------------------------- running cases

const showPath = (p) => p.map((k, i) => (typeof k === "number" ? `[${k}]` : i === 0 ? k : `.${k}`)).join("");

/** Mask what differs between two runs of the same call (random ids, clock times). */
function normalise(v) {
  let text;
  try {
    text = JSON.stringify(v, (k, x) => (typeof x === "number" && x > 1e12 ? "<time>" : x));
  } catch (e) {
    return `<unserialisable: ${e.message}>`;
  }
  return String(text).replace(/[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}/g, "<uuid>");
}

function timeBox(p, ms) {
  let timer;
  return Promise.race([
    Promise.resolve(p).then((v) => ({ settled: true, value: v }), (e) => ({ settled: true, error: e, rejected: true })),
    new Promise((r) => (timer = setTimeout(() => r({ settled: false }), ms))),
  ]).finally(() => clearTimeout(timer));
}

/** What a thrown value says about the call: null when it is a proper coded error. */
function judgeError(e, how) {
  if (e instanceof WebAssembly.RuntimeError) return `trap (${how}): ${e.message}`;
  if (!(e instanceof Error)) return `${how} a non-Error: ${describe(e)}`;
  if (e.name !== "DelegateContextError") return `raw ${e.name} (${how}): ${e.message}`;
  if (!CODES.has(e.code)) return `${how} a DelegateContextError without a known code: ${e.code}`;
  if (e.code === "INVALID_INPUT" && !(typeof e.path === "string" && e.path.length > 0)) return `INVALID_INPUT without a path: ${e.message}`;
  return null;
}

/**
 * Run one call as a case; returns {outcome, problems}. `outcome` is "ok", "ok:<json>" (when
 * `keepValue`), or the error code.
 */
export async function runCall(dc, { call, inputs, skip, async: isAsync, handle, health, teardown, view, disposeResult, keepValue, timeoutMs = 3000 }) {
  const problems = [];
  const before = snapshot(inputs, skip);
  let outcome;
  let value;
  try {
    value = call();
    if (value && typeof value.then === "function") {
      const r = await timeBox(value, timeoutMs);
      if (!r.settled) {
        problems.push(`promise still pending after ${timeoutMs} ms`);
        outcome = "pending";
      } else if (r.rejected) {
        const bad = judgeError(r.error, "rejected");
        if (bad) problems.push(bad);
        outcome = r.error?.code ?? "raw";
      } else {
        value = r.value;
        outcome = "ok";
      }
    } else {
      if (isAsync) problems.push("an async entry point returned a non-promise");
      outcome = "ok";
    }
  } catch (e) {
    const bad = judgeError(e, "threw");
    if (bad) problems.push(bad);
    outcome = e?.code ?? "raw";
  }
  if (outcome === "ok" && keepValue) {
    try {
      outcome = `ok:${normalise(view ? view(value) : value)}`;
    } catch (e) {
      problems.push(`the result does not answer: ${e.name}: ${e.message}`);
    }
  }
  if (outcome.startsWith?.("ok")) {
    try {
      disposeResult?.(value);
    } catch (e) {
      problems.push(`freeing the result threw: ${e.message}`);
    }
  }
  const diff = snapshotDiff(before, snapshot(inputs, skip));
  if (diff) problems.push(`input mutated: ${diff}`);
  try {
    if (dc.contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit !== 47616) problems.push("the module answers a known call wrongly");
  } catch (e) {
    problems.push(`the module no longer answers: ${e.name}: ${e.message}`);
  }
  if (handle !== undefined) {
    try {
      health?.(handle);
    } catch (e) {
      problems.push(`the handle no longer answers: ${e.name}: ${e.message}`);
    }
    try {
      teardown?.(handle);
    } catch (e) {
      problems.push(`free() of the handle threw: ${e.name}: ${e.message}`);
    }
  }
  return { outcome, problems };
}

/** Put hostile `h` at `path` of `args` (fresh objects). Returns false when it does not apply. */
function place(args, path, h) {
  let parent = args;
  for (const k of path.slice(0, -1)) parent = parent[k];
  const key = path.at(-1);
  if (!isObj(parent)) return false;
  const orig = parent[key];
  if (h.kind === "delete") {
    if (parent === args) args[key] = undefined;
    else if (Array.isArray(parent)) delete parent[key];
    else delete parent[key];
    return true;
  }
  if (h.kind === "getter") {
    if (parent === args) return false; // an argument itself: the caller would throw, not the library
    Object.defineProperty(parent, key, {
      get() {
        throw h.make();
      },
      enumerable: true,
      configurable: true,
    });
    return true;
  }
  const v = h.make(orig);
  if (v === SKIP) return false;
  parent[key] = v;
  return true;
}

/**
 * The combinatorial sweep: entry × base × field × hostile value. `filter(caseInfo)` picks
 * cases. Returns {cases, failures, ms, byOutcome}.
 */
export async function runSweep(dc, { filter = () => true, onlyEntries, coreOnly = false, log = () => {}, maxFailures = 200 } = {}) {
  const t0 = performance.now();
  const shared = { deepObject: deepObject(10000) };
  const skip = new Set([shared.deepObject]);
  const sharedBefore = snapshot([shared.deepObject]);
  const hostiles = hostileValues(shared);
  const failures = [];
  const byOutcome = {};
  let cases = 0;
  for (const entry of entryPoints(dc)) {
    if (onlyEntries && !onlyEntries.includes(entry.name)) continue;
    const seen = new Set(); // field shapes already given the full set, across the entry's bases
    for (const [baseName, base] of Object.entries(entry.bases)) {
      // the valid call first: it must answer (and gives what equivalent inputs must answer)
      const mk = () => {
        const handle = entry.setup?.();
        return { handle, args: base(handle) };
      };
      let { handle, args } = mk();
      const ref = await runCall(dc, { ...entry, call: () => entry.call(args, handle), inputs: args, skip, handle, keepValue: true });
      cases++;
      if (ref.problems.length || !ref.outcome.startsWith("ok")) failures.push({ label: `${entry.name} [${baseName}] valid input`, problems: ref.problems.length ? ref.problems : [`the valid input answered ${ref.outcome}`] });
      // the whole input deep-frozen: the same answer
      ({ handle, args } = mk());
      deepFreeze(args);
      const frozen = await runCall(dc, { ...entry, call: () => entry.call(args, handle), inputs: args, skip, handle, keepValue: true });
      cases++;
      if (frozen.problems.length || frozen.outcome !== ref.outcome) failures.push({ label: `${entry.name} [${baseName}] deep-frozen input`, problems: [...frozen.problems, ...(frozen.outcome !== ref.outcome ? [`answered ${frozen.outcome.slice(0, 300)}\n   instead of ${ref.outcome.slice(0, 300)}`] : [])] });
      const probe = mk();
      const primary = entry.primary === true || (Array.isArray(entry.primary) && entry.primary.includes(baseName));
      const paths = fieldPaths(probe.args, { primary, sampleRecords: 1, seen, recordArgs: entry.recordArgs });
      entry.teardown?.(probe.handle);
      for (const { path, tier } of paths) {
        // a "big" base repeats its "small" sibling's configuration: only its messages are new
        if (baseName === "big" && !path.some((k) => k === "messages")) continue;
        for (const h of hostiles) {
          if (tier === "core" && (coreOnly || !h.core)) continue;
          if (coreOnly && !h.core) continue;
          if (h.where && !h.where(path.at(-1))) continue;
          const info = { entry: entry.name, base: baseName, path, hostile: h };
          if (!filter(info)) continue;
          ({ handle, args } = mk());
          if (!place(args, path, h)) {
            entry.teardown?.(handle);
            continue;
          }
          const label = `${entry.name} [${baseName}] ${showPath(path)} = ${h.name}`;
          cases++;
          current.label = label;
          const r = await runCall(dc, { ...entry, call: () => entry.call(args, handle), inputs: args, skip, handle, keepValue: !!h.equivalent });
          const problems = [...r.problems];
          if (h.equivalent && !entry.identity && r.outcome !== ref.outcome) problems.push(`an equivalent input answered ${r.outcome.slice(0, 300)}\n   instead of ${ref.outcome.slice(0, 300)}`);
          byOutcome[r.outcome.startsWith("ok") ? "ok" : r.outcome] = (byOutcome[r.outcome.startsWith("ok") ? "ok" : r.outcome] ?? 0) + 1;
          if (problems.length) {
            failures.push({ label, problems });
            log(`FAIL ${label}: ${problems.join("; ")}`);
            if (failures.length >= maxFailures) return { cases, failures, ms: performance.now() - t0, byOutcome, truncated: true };
          }
        }
      }
    }
  }
  const sharedDiff = snapshotDiff(sharedBefore, snapshot([shared.deepObject]));
  if (sharedDiff) failures.push({ label: "the shared 10,000-level values", problems: [`mutated: ${sharedDiff}`] });
  return { cases, failures, ms: performance.now() - t0, byOutcome };
}

/** The case running now (for reports of uncaught exceptions). */
export const current = { label: "" };


// ---------------------------------------------------------------- the large cases

const BIG_LINE = "0123456789abcdef".repeat(4) + "\n"; // 65 characters
const REASONS = new Set(["NO_DELEGATION_ID", "NO_AGENT", "DUPLICATE_DELEGATION_ID", "MISSING_PARENT", "AGENT_MISMATCH", "CYCLE", "PARENT_GONE"]);

/**
 * A delegate's history of `n` messages: a turn is a tool call (about 400 bytes as JSON)
 * and its result of `minLines`..`minLines + spread - 1` lines of 28 characters (by
 * default 0.3–3 KB).
 */
export function realisticMessages(n, { minLines = 10, spread = 100 } = {}) {
  const m = [brief()];
  for (let i = 1; m.length < n; i++) {
    m.push({
      role: "assistant",
      content: [{ type: "text", text: `Step ${i}: reading the next file to follow the call graph.` }, { type: "toolCall", id: `call_${i}`, name: i % 3 ? "read" : "grep", arguments: i % 3 ? { path: `src/module_${i % 17}/file_${i % 251}.rs`, offset: i, limit: 200 } : { pattern: `fn handler_${i}`, path: "src/" } }],
      api: "anthropic-messages", provider: "anthropic", model: "claude-x", usage: usage(0), stopReason: "toolUse", timestamp: NOW + i,
    });
    if (m.length < n) m.push({ role: "toolResult", toolCallId: `call_${i}`, toolName: i % 3 ? "read" : "grep", content: [{ type: "text", text: `// file_${i % 251}.rs\n` + "let value = compute(input);\n".repeat(minLines + ((i * 7919) % spread)) }], isError: false, timestamp: NOW + i });
  }
  return m;
}

function taskRow(i, { resume, id = `d${i}`, agent = "explorer", call = `t${i}`, status = "completed" } = {}) {
  return { id: call, role: "tool", content: "", toolName: "task", toolCallId: call, toolStatus: "success", toolArgs: { agent, task: `task ${i}`, ...(resume !== undefined ? { resume } : {}) }, toolResult: { details: { delegationId: id, agent, status } } };
}
const replyRow = (i, call = `t${i}`, agent = "explorer") => ({ id: `a${i}-${call}`, role: "assistant", content: `reply ${i}`, parentToolCallId: call, agentName: agent });

/** Transcripts whose resume links are cyclic, self-referencing, out of order or duplicated. */
export function hostileTranscripts(chainLength = 1000) {
  const T = {};
  T["self resume"] = [taskRow(0, { resume: "d0" }), replyRow(0)];
  T["two-cycle"] = [taskRow(0, { resume: "d1" }), replyRow(0), taskRow(1, { resume: "d0" }), replyRow(1)];
  T["three-cycle, then a resume of the cycle"] = [taskRow(0, { resume: "d2" }), taskRow(1, { resume: "d0" }), taskRow(2, { resume: "d1" }), taskRow(3, { resume: "d1" }), replyRow(3)];
  T["resume of a later row (out of order)"] = [taskRow(1, { resume: "d0" }), replyRow(1), taskRow(0), replyRow(0)];
  T["the same delegationId on two Task calls"] = [taskRow(0), replyRow(0), taskRow(1, { id: "d0" }), replyRow(1), taskRow(2, { resume: "d0" }), replyRow(2)];
  T["the same toolCallId with two delegationIds"] = [taskRow(0), replyRow(0), taskRow(1, { call: "t0" }), replyRow(1, "t0")];
  T["a resume under another agent"] = [taskRow(0), replyRow(0), taskRow(1, { resume: "d0", agent: "reviewer" }), replyRow(1, "t1", "reviewer")];
  T["a resume of nothing, of '', of a number"] = [taskRow(0, { resume: "nope" }), taskRow(1, { resume: "" }), taskRow(2, { resume: 7 }), replyRow(2)];
  T["rows copied many times, statuses going backwards"] = [taskRow(0, { status: "running" }), replyRow(0), taskRow(0, { status: "completed" }), taskRow(0, { status: "running" }), taskRow(0, { status: "exploded" })];
  const linear = [], cycle = [], reversed = [];
  for (let i = 0; i < chainLength; i++) {
    linear.push(taskRow(i, { resume: i ? `d${i - 1}` : undefined }), replyRow(i));
    cycle.push(taskRow(i, { resume: `d${(i + 1) % chainLength}` }), replyRow(i));
  }
  for (let i = chainLength - 1; i >= 0; i--) reversed.push(taskRow(i, { resume: i ? `d${i - 1}` : undefined }), replyRow(i));
  T[`a chain of ${chainLength} resumes`] = linear;
  T[`a cycle of ${chainLength}`] = cycle;
  T[`a chain of ${chainLength} resumes, rows in reverse order`] = reversed;
  return T;
}

/** Each large case: {label, call, inputs, check(value)}; `check` throws when the answer is wrong. */
export function largeCases(dc, { light = true } = {}) {
  const L = [];
  // `light` (the main thread) or not (the worker): each runs the essential cases and its own share
  // groups: "both" threads, the "main" thread only, the "worker" only
  const add = (label, call, inputs = [], check, { group = "main" } = {}) => (group === "both" || group === (light ? "main" : "worker")) && L.push({ label, call, inputs, check });
  const essential = { group: "both" };
  const workerOnly = { group: "worker" };
  const budget = smallBudget(dc);
  const config = { budget, modelId: "local/small", options: { now: NOW } };
  const bigBudget = dc.contextBudget({ contextWindow: 200000, maxTokens: 8192 });
  const summarizeText = async (r) => `## Goal\nAudit.\n## Progress\n- ${r.kind}`;
  const ids = ["d1"];

  // a 50 MB tool result
  const text50 = BIG_LINE.repeat(Math.ceil((50 * 1024 * 1024) / BIG_LINE.length));
  const lines50 = text50.split("\n").length;
  const result50 = { role: "toolResult", toolCallId: "c0", toolName: "read", content: [{ type: "text", text: text50 }], isError: false, timestamp: 3 };
  const msgs50 = [brief(), toolCall(0), result50];
  const row50 = { id: "r50", role: "tool", content: "", toolName: "read", toolCallId: "r50", toolStatus: "success", toolArgs: { path: "huge.log" }, toolResult: text50, parentToolCallId: "t1", agentName: "explorer" };
  const eq = (a, b, what) => {
    if (a !== b) throw new Error(`${what}: ${a} instead of ${b}`);
  };
  add("50 MB: estimateTokens", () => dc.estimateTokens(result50), [result50], (v) => eq(v, Math.ceil(text50.length / 4), "tokens"), essential);
  add("50 MB: estimateContextTokens", () => dc.estimateContextTokens(msgs50), [msgs50]);
  add("50 MB: serializeConversation cuts the result", () => dc.serializeConversation(msgs50), [msgs50], (v) => v.length < 10000 || fail(`${v.length} characters`));
  add("50 MB: runDelegateTurn", () => dc.runDelegateTurn({ messages: msgs50, ...config, summarize: summarizeText }), [msgs50], undefined, workerOnly);
  add("50 MB: the pi hook", () => dc.createPrepareNextTurn({ ...config, summarize: summarizeText })({ context: { systemPrompt: "s", messages: msgs50, tools: [] } }), [msgs50], undefined, essential);
  add("50 MB: DelegateContext push + prepareTurn + runTurn", async () => {
    const ctx = new dc.DelegateContext([brief()]);
    try {
      ctx.push(msgs50.slice(1));
      ctx.prepareTurn(config);
      return await ctx.runTurn({ ...config, summarize: summarizeText }).catch((e) => {
        if (e.code !== "SUBAGENT_CONTEXT_OVERFLOW") throw e;
        return e.code;
      });
    } finally {
      ctx.free();
    }
  }, [msgs50], undefined, essential);
  add("50 MB: selectFallbackModel", () => dc.selectFallbackModel({ messages: msgs50, candidates: [{ provider: "p", id: "small", contextWindow: 2_000_000 }, { provider: "p", id: "huge", contextWindow: 100_000_000, maxTokens: 8192 }] }), [msgs50], (v) => eq(v.model?.id, "huge", "model"));
  add("50 MB: buildParentContext", () => dc.buildParentContext([{ id: "u", role: "user", content: "go" }, { ...row50, parentToolCallId: undefined, agentName: undefined }]), [row50], undefined, essential);
  add("50 MB: countChainReads", () => dc.countChainReads([row50]), [row50], (v) => eq(v.lines, lines50, "lines"));
  add("50 MB: seedDelegateMessages truncates it", () => dc.seedDelegateMessages({ brief: "Map the parser", rows: [replyRow(1, "t1"), row50], binding: { provider: "p", model: "m" }, hardLimit: 4096 }), [row50], (v) => v.tokens < 4096 || fail(`seed of ${v.tokens} tokens`), essential);
  add("50 MB: chainRowsToMessages", () => dc.chainRowsToMessages([row50], { provider: "p", model: "m" }), [row50], undefined, workerOnly);
  add("50 MB: subagentResultForParent", () => dc.subagentResultForParent(text50), [], (v) => eq(v.text.length, text50.length, "text"), workerOnly);
  add("50 MB: requestOverheadTokens", () => dc.requestOverheadTokens({ systemPrompt: text50, tools: [] }), [], (v) => eq(v, Math.ceil((text50.length + 2) / 4), "overhead"));

  // a 100,000-message context
  const hundredK = realisticMessages(100_000, { minLines: 1, spread: 4 });
  const big = { budget: bigBudget, modelId: "anthropic/claude-x", options: { now: NOW } };
  add("100,000 messages: DelegateContext push + prepareTurn + completeTurn", () => {
    const ctx = new dc.DelegateContext([hundredK[0]]);
    try {
      eq(ctx.push(hundredK.slice(1)), 100_000, "length");
      const plan = ctx.prepareTurn(big);
      if (plan.action === "unchanged") fail("100,000 messages fit 200k?");
      const out = ctx.completeTurn({ ...big, answer: { history: "## Goal\nx", turnPrefix: "p" } });
      eq(out.outcome, "compacted", "outcome");
      if (!(ctx.length < 10_000)) fail(`still ${ctx.length} messages after ${out.outcome}`);
      return out.outcome;
    } finally {
      ctx.free();
    }
  }, [hundredK], undefined, essential);
  add("100,000 messages: runDelegateTurn", () => dc.runDelegateTurn({ messages: hundredK, ...big, summarize: summarizeText }), [hundredK], (v) => eq(v.outcome, "compacted", "outcome"), workerOnly);
  add("100,000 messages: the pi hook", () => dc.createPrepareNextTurn({ ...big, summarize: summarizeText })({ context: { systemPrompt: "s", messages: hundredK, tools: [] } }), [hundredK], (v) => v.context.messages.length < 10_000 || fail("not compacted"), workerOnly);

  // 100,000 chains in one registry
  add("100,000 chains: start + settle, then the list, the prompt and an unknown resume", () => {
    const reg = new dc.DelegationRegistry();
    try {
      for (let i = 0; i < 100_000; i++) {
        const run = reg.start({ toolCallId: `t${i}`, agent: `agent-${i}`, task: `task ${i}`, description: `label ${i}` });
        reg.settle({ delegationId: run.delegationId, status: i % 7 ? "completed" : "failed", reads: { files: [`f${i}`], lines: i % 100 } });
      }
      eq(reg.chainCount, 100_000, "chains");
      eq(reg.resumableList().length, 100_000, "listed");
      reg.resumablePrompt();
      try {
        reg.validateResume({ delegationId: "no-such-id", agent: "agent-1" });
        fail("an unknown id was accepted");
      } catch (e) {
        if (e.code !== "UNKNOWN_DELEGATION") throw e;
        if (!(e.resumable.length <= 20)) fail(`${e.resumable.length} ids listed`);
      }
      return reg.chainCount;
    } finally {
      reg.free();
    }
  }, [], undefined, workerOnly);

  // transcripts whose resume links are hostile
  for (const [name, rows] of Object.entries(hostileTranscripts(200))) {
    add(`fromTranscript: ${name}`, () => {
      const reg = dc.DelegationRegistry.fromTranscript(rows);
      try {
        for (const s of reg.rebuildSkips()) if (!REASONS.has(s.reason)) fail(`skip reason ${s.reason}`);
        reg.resumablePrompt();
        reg.resumableList();
        const probe = [...new Set(rows.map((r) => r.toolResult?.details?.delegationId))].slice(0, 20);
        for (const id of [...probe, "nope"]) {
          for (const f of [() => reg.resolve(id), () => reg.validateResume({ delegationId: id, agent: "explorer" }, rows), () => reg.chainConversation(rows, id)]) {
            try {
              f();
            } catch (e) {
              if (e?.name !== "DelegateContextError" || !CODES.has(e.code)) throw e;
            }
          }
        }
        return reg.chainCount;
      } finally {
        reg.free();
      }
    }, [rows], undefined, essential);
  }
  return L;
}

function fail(message) {
  throw new Error(message);
}

/** Run the large cases (each time-boxed at `timeoutMs`). */
export async function runLarge(dc, { timeoutMs = 60000, light = true, log = () => {} } = {}) {
  const failures = [];
  const times = [];
  let cases = 0;
  for (const c of largeCases(dc, { light })) {
    cases++;
    current.label = c.label;
    const t0 = performance.now();
    let checked;
    const r = await runCall(dc, {
      call: () => {
        const v = c.call();
        const verify = (x) => {
          try {
            c.check?.(x);
          } catch (e) {
            checked = e.message;
          }
          return x;
        };
        return v && typeof v.then === "function" ? v.then(verify) : verify(v);
      },
      inputs: c.inputs,
      timeoutMs,
    });
    times.push([c.label, Math.round(performance.now() - t0)]);
    const problems = [...r.problems, ...(checked ? [`wrong answer: ${checked}`] : [])];
    log(`${c.label}: ${r.outcome} in ${Math.round(performance.now() - t0)} ms`);
    if (problems.length) failures.push({ label: c.label, problems });
  }
  return { cases, failures, times };
}
