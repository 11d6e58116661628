// The whole life of a session under a model: its messages replayed through the
// package's own turn-boundary step (a `DelegateContext`: push the turn's messages,
// `prepareTurn`, and `completeTurn` with placeholder summaries), one boundary before
// every model request after the first and one after the last message. Plain JS over
// the package module `dc` (the web build in the page, pkg/node in the tests): the page
// and the Node tests run this same code.
import { placeholderSummary, withoutUsage } from "./analyse.js";

/**
 * The boundaries of `messages`: the indices `j` (exclusive ends) at which the context
 * `messages[0..j)` is checked, i.e. before each assistant message after the first
 * request, and at the end.
 */
export function boundaries(messages) {
  const out = [];
  let requests = 0;
  for (let j = 0; j < messages.length; j++) {
    if (messages[j]?.role !== "assistant") continue;
    if (requests++ > 0) out.push(j);
  }
  if (messages.length > 0 && out[out.length - 1] !== messages.length) out.push(messages.length);
  return out;
}

/**
 * Replays `messages` (the brief first) under `budget`. Summaries are placeholders of
 * `summaryTokens` tokens. Provider usage is removed first (`useUsage` false, the
 * default): the usage a file recorded counted the context of the original run, not the
 * replayed one, so every figure is the package's chars/4 estimate.
 *
 * Returns `{turns, events, end, ms}`: `turns[k] = {at, tokens, after, action}` per
 * boundary (`at` = messages before it; `tokens` what the boundary measured, `after`
 * what the next request carries), `events` the boundaries that rewrote the context or
 * failed (`kind` "compacted" | "degraded" | "overflow", with the cut: `keptFrom`, the
 * first message of the session kept verbatim after it, `summarized`, `dropped`, ...),
 * `end` "completed" or "SUBAGENT_CONTEXT_OVERFLOW".
 */
export function replaySession(dc, messages, { budget, modelId, summaryTokens = 1000, useUsage = false, options = {} }) {
  const t0 = performance.now();
  const copies = useUsage ? messages : messages.map(withoutUsage);
  const index = new Map(copies.map((m, i) => [m, i]));
  const config = { budget, modelId, options: { now: 0, ...options } };
  const turns = [];
  const events = [];
  let end = "completed";
  const ctx = new dc.DelegateContext();
  try {
    let pushed = 0;
    for (const at of boundaries(copies)) {
      ctx.push(copies.slice(pushed, at));
      pushed = at;
      const plan = ctx.prepareTurn(config);
      const turn = { at, tokens: plan.tokens, after: plan.tokens, action: plan.action };
      turns.push(turn);
      if (plan.action === "unchanged") continue;
      const answer = {};
      for (const r of plan.requests) answer[r.kind] = placeholderSummary(r.kind, summaryTokens);
      let out;
      try {
        out = ctx.completeTurn({ ...config, answer });
      } catch (e) {
        if (e?.code !== "SUBAGENT_CONTEXT_OVERFLOW") throw e;
        turn.after = null;
        events.push({ kind: "overflow", turn: turns.length - 1, at, tokensBefore: plan.tokens, tokensAfter: null, hardLimit: budget.hardLimit, code: e.code, message: e.message });
        end = e.code;
        break;
      }
      turn.after = out.tokensAfter;
      let keptFrom = null;
      for (const m of out.messages) {
        const i = index.get(m);
        if (i !== undefined && i > 0 && (keptFrom === null || i < keptFrom)) keptFrom = i;
      }
      events.push({
        kind: out.outcome,
        turn: turns.length - 1,
        at,
        tokensBefore: out.tokensBefore,
        tokensAfter: out.tokensAfter,
        hardLimit: out.hardLimit,
        keptFrom,
        summarized: out.summarizedMessages,
        dropped: out.droppedMessages,
        droppedTokens: out.droppedTokens,
        isSplitTurn: out.isSplitTurn,
        reason: out.reason ?? null,
        messagesAfter: out.messages.length,
      });
    }
  } finally {
    ctx.free();
  }
  return { turns, events, end, ms: performance.now() - t0 };
}
