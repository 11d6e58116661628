// What the inspector shows, computed by the package. Every function takes the package
// module `dc` (the web build in the page, the node build in tests) and returns plain
// data; rendering is in view.js.

/** Region of a message after the next turn boundary (drives colours and the bar). */
export const REGION = { brief: "brief", summarized: "summarized", kept: "kept", dropped: "dropped", lost: "lost" };

/**
 * The placeholder the inspector answers a summary request with: a heading and filler
 * up to `tokens` estimated tokens (4 characters each), so the outcome can be shown
 * without calling a model.
 */
export function placeholderSummary(kind, tokens) {
  const head = `## Placeholder ${kind} summary (written by the inspector, not a model)\n`;
  const chars = Math.max(head.length, Math.floor(tokens) * 4);
  return head + "x".repeat(chars - head.length);
}

/** An assistant message without its provider usage (other messages as they are). */
export function withoutUsage(m) {
  if (m === null || typeof m !== "object" || m.role !== "assistant" || !("usage" in m)) return m;
  const { usage, ...rest } = m;
  return rest;
}

/**
 * Per-message `estimateTokens` (a Float64Array, same order). A malformed message
 * throws the library's error with its path made absolute (`message.content` →
 * `messages[3].content`).
 */
export function messageTokens(dc, messages) {
  const out = new Float64Array(messages.length);
  for (let i = 0; i < messages.length; i++) {
    try {
      out[i] = dc.estimateTokens(messages[i]);
    } catch (e) {
      if (typeof e?.path === "string" && e.path.startsWith("message")) e.path = `messages[${i}]${e.path.slice("message".length)}`;
      throw e;
    }
  }
  return out;
}

/**
 * A delegate's context under `budget`: the pi primitives' cut, the next boundary's plan
 * and, with placeholder summaries of `summaryTokens` tokens, its outcome (or the
 * `SUBAGENT_CONTEXT_OVERFLOW` it fails with). `tokens` are the per-message estimates.
 * Throws the library's errors for malformed messages (with `code` and `path`).
 */
export function analyseContext(dc, { messages, tokens, budget, modelId, summaryTokens = 1000 }) {
  const n = messages.length;
  const times = {};
  const timed = (name, fn) => {
    const t = performance.now();
    const r = fn();
    times[name] = performance.now() - t;
    return r;
  };
  let sum = 0;
  for (let i = 0; i < n; i++) sum += tokens[i];

  // pi's primitives over the whole array.
  const settings = { reserveTokens: budget.requestHeadroom, keepRecentTokens: budget.keepRecentTokens };
  const prep = timed("prepareCompaction", () => dc.prepareCompaction(messages, settings));
  const compaction = prep && {
    compactableStart: prep.compactableStart,
    firstKeptIndex: prep.firstKeptIndex,
    isSplitTurn: prep.isSplitTurn,
    messagesToSummarize: prep.messagesToSummarize.length,
    turnPrefixMessages: prep.turnPrefixMessages.length,
    retainedTail: prep.retainedTail.length,
    tokensBefore: prep.tokensBefore,
    previousSummary: prep.previousSummary,
    fileOps: prep.fileOps,
  };
  const cut = timed("findCutPoint", () => dc.findCutPoint(messages, 0, n, budget.keepRecentTokens));
  const estimate = timed("estimateContextTokens", () => dc.estimateContextTokens(messages));

  // The next turn boundary: plan, then the outcome with placeholder summaries.
  const input = { messages, budget, modelId };
  const plan = timed("prepareDelegateTurn", () => dc.prepareDelegateTurn(input));
  const figures = compareFigures(dc, { messages, sum, estimate, plan, budget, modelId });
  let answer;
  if (plan.action === "summarize") {
    answer = {};
    for (const r of plan.requests) answer[r.kind] = placeholderSummary(r.kind, summaryTokens);
  }
  let outcome;
  let failure;
  try {
    outcome = timed("completeDelegateTurn", () => dc.completeDelegateTurn(answer ? { ...input, answer } : input));
  } catch (e) {
    if (e?.code !== "SUBAGENT_CONTEXT_OVERFLOW") throw e;
    failure = { code: e.code, message: e.message, tokens: e.tokens, hardLimit: e.hardLimit, modelId: e.modelId, retriable: e.retriable };
  }

  // Regions: a rewritten context reuses the caller's own message objects, so what it
  // kept is found by identity; the rest was summarized (compacted) or dropped (degraded).
  const regions = new Array(n);
  const after = { brief: 0, summary: 0, kept: 0, messages: 0 };
  if (failure) {
    regions.fill(REGION.lost);
  } else if (outcome.outcome === "unchanged") {
    regions.fill(REGION.kept);
  } else {
    const index = new Map(messages.map((m, i) => [m, i]));
    const other = outcome.outcome === "compacted" ? REGION.summarized : REGION.dropped;
    regions.fill(other);
    for (const m of outcome.messages) {
      const i = index.get(m);
      if (i === undefined) after.summary += dc.estimateTokens(m);
      else {
        regions[i] = REGION.kept;
        after.kept += tokens[i];
      }
    }
    after.messages = outcome.messages.length;
  }
  if (n > 0 && regions[0] !== REGION.lost) {
    regions[0] = REGION.brief;
    if (outcome && outcome.outcome !== "unchanged") {
      after.brief = tokens[0];
      after.kept -= tokens[0];
    }
  }
  const counts = {};
  for (const r of regions) counts[r] = (counts[r] ?? 0) + 1;
  return { n, sum, estimate, figures, compaction, cut, plan, answer, outcome: outcome && strip(outcome), failure, regions, counts, after, times };
}

/**
 * The provider-usage figure and the chars/4 estimate side by side: `usage` (pi's
 * `estimateContextTokens`: the last trusted usage plus the estimates after it, or null
 * without usage), `estimate` (every message's chars/4), which one the boundary's
 * `plan.tokens` is (`decidedBy` "usage" | "estimate"), whether they `disagree` (one is
 * over 1.25 times the other, or they fall on two sides of the threshold), and then the
 * action the package takes on the estimate alone (`byEstimate`, usage removed).
 */
export function compareFigures(dc, { messages, sum, estimate, plan, budget, modelId }) {
  const hasUsage = estimate.lastUsageIndex !== undefined && estimate.lastUsageIndex !== null;
  const usage = hasUsage ? estimate.tokens : null;
  const decidedBy = hasUsage && plan.tokens !== sum ? "usage" : "estimate";
  const decided = plan.tokens;
  const other = decidedBy === "usage" ? sum : usage;
  let disagree = false;
  if (other !== null) {
    const [lo, hi] = [Math.min(decided, other), Math.max(decided, other)];
    disagree = hi > 1.25 * lo || (decided >= plan.threshold) !== (other >= plan.threshold);
  }
  let byEstimate = null;
  if (disagree && decidedBy === "usage") byEstimate = dc.prepareDelegateTurn({ messages: messages.map(withoutUsage), budget, modelId }).action;
  return { usage, usageTokens: hasUsage ? estimate.usageTokens : null, usageIndex: hasUsage ? estimate.lastUsageIndex : null, trailing: hasUsage ? estimate.trailingTokens : null, estimate: sum, decidedBy, decided, disagree, byEstimate };
}

// The outcome without its messages array (the page keeps only numbers).
function strip(outcome) {
  const { messages, ...rest } = outcome;
  return { ...rest, messageCount: messages.length };
}

/**
 * The delegations of a transcript: the registry rebuilt from `rows`, its resumable
 * prompt (as a host shows it right after a restart), its skipped Task rows, and every
 * chain with its runs, reads and why it is not resumable (`validateResume`'s code).
 * The caller owns `registry` and must `free()` it.
 */
export function analyseDelegations(dc, rows) {
  const registry = dc.DelegationRegistry.fromTranscript(rows);
  const prompt = registry.resumablePrompt();
  const skips = registry.rebuildSkips();
  const chains = [];
  const seen = new Set();
  const lastTaskRow = new Map(); // toolCallId → last copy of its Task row
  for (const r of rows) if (r && typeof r === "object" && r.role === "tool" && /^task$/i.test(r.toolName ?? "")) lastTaskRow.set(r.toolCallId ?? r.id, r);
  for (const row of lastTaskRow.values()) {
    const id = row.toolResult?.details?.delegationId;
    if (typeof id !== "string") continue;
    const chain = registry.resolve(id);
    if (!chain || seen.has(chain.delegationIds[0])) continue;
    seen.add(chain.delegationIds[0]);
    let whyNot = null;
    try {
      registry.validateResume({ delegationId: chain.latestDelegationId, agent: chain.agent }, rows);
    } catch (e) {
      whyNot = { code: e.code, message: e.message };
    }
    const runs = registry.chainConversation(rows, chain.latestDelegationId).turns.map((t) => ({
      delegationId: t.delegationId,
      toolCallId: t.toolCallId,
      status: t.status ?? null,
      task: t.task,
      rows: t.rows.length,
      ...runEnd(lastTaskRow.get(t.toolCallId)),
    }));
    const latestRow = lastTaskRow.get(chain.toolCallIds[chain.toolCallIds.length - 1]);
    chains.push({ ...chain, whyNot, runs, modelId: latestRow?.toolResult?.details?.modelId });
  }
  return { registry, prompt, skips, chains };
}

/**
 * How a run ended, as its settled Task row records it (host-contract §6 details):
 * `code` (a string `error`, or `error.code`, or `code`: the keys the package's rebuild reads, in its order), `degraded`
 * (`contextDegraded`), `compactions` (`contextCompactions`); null where the row says nothing.
 */
export function runEnd(row) {
  const d = row?.toolResult?.details;
  if (!d || typeof d !== "object") return { code: null, degraded: null, compactions: null };
  const code = typeof d.error === "string" ? d.error : typeof d.error?.code === "string" ? d.error.code : typeof d.code === "string" ? d.code : null;
  return {
    code,
    degraded: typeof d.contextDegraded === "boolean" ? d.contextDegraded : null,
    compactions: typeof d.contextCompactions === "number" ? d.contextCompactions : null,
  };
}

/** The parent's context (`buildParentContext`): it validates every row, with paths. */
export function parentContext(dc, rows) {
  const { messages, warnings } = dc.buildParentContext(rows);
  return { messages: messages.length, tokens: dc.estimateContextTokens(messages).tokens, warnings, delegateRows: rows.filter((r) => r?.parentToolCallId).length };
}

/**
 * A chain's whole history as a resumed delegate would start with it before truncation
 * (`seedDelegateMessages` with no effective limit): the context the inspector analyses.
 */
export function chainHistory(dc, rows, chain, binding) {
  return dc.seedDelegateMessages({ brief: chain.brief, rows, chain: { toolCallIds: chain.toolCallIds, agent: chain.agent }, binding, hardLimit: Number.MAX_SAFE_INTEGER }).messages;
}

/**
 * The seed of a resume of `chain` within `hardLimit`: `seedDelegateMessages`' result with
 * `messages` replaced by their count, `roles` counted, and the messages themselves as `seeded`.
 */
export function chainSeed(dc, rows, chain, binding, hardLimit) {
  const { messages, ...rest } = dc.seedDelegateMessages({ brief: chain.brief, rows, chain: { toolCallIds: chain.toolCallIds, agent: chain.agent }, binding, hardLimit });
  return { ...rest, messages: messages.length, roles: countRoles(messages), seeded: messages };
}

function countRoles(messages) {
  const out = {};
  for (const m of messages) out[m.role] = (out[m.role] ?? 0) + 1;
  return out;
}
