// The inspector tests' reference for the timeline: a replay of a session through the
// package's one-shot boundary functions (prepareDelegateTurn / completeDelegateTurn on
// plain arrays), independent of www/replay.js (which drives a DelegateContext handle).
// Shared by inspector-load.test.mjs (Node) and inspector.test.mjs (the page).
import assert from "node:assert/strict";
import { dc } from "./helpers.mjs";
import { placeholderSummary, withoutUsage } from "../../www/analyse.js";

/** An independent replay: the one-shot prepareDelegateTurn/completeDelegateTurn on arrays. */
export function referenceReplay(messages, budget, modelId, summaryTokens = 1000) {
  const copies = messages.map(withoutUsage);
  const index = new Map(copies.map((m, i) => [m, i]));
  const ends = [];
  copies.forEach((m, j) => m.role === "assistant" && j > copies.findIndex((x) => x.role === "assistant") && ends.push(j));
  if (ends.at(-1) !== copies.length) ends.push(copies.length);
  let context = [];
  let pushed = 0;
  const events = [];
  const tokens = [];
  for (const at of ends) {
    context = context.concat(copies.slice(pushed, at));
    pushed = at;
    const input = { messages: context, budget, modelId, options: { now: 0 } };
    const plan = dc.prepareDelegateTurn(input);
    tokens.push(plan.tokens);
    if (plan.action === "unchanged") continue;
    const answer = Object.fromEntries(plan.requests.map((r) => [r.kind, placeholderSummary(r.kind, summaryTokens)]));
    let out;
    try {
      out = dc.completeDelegateTurn({ ...input, answer });
    } catch (e) {
      assert.equal(e.code, "SUBAGENT_CONTEXT_OVERFLOW");
      events.push({ kind: "overflow", turn: tokens.length - 1, at, tokensBefore: plan.tokens, tokensAfter: null, keptFrom: undefined });
      break;
    }
    context = out.messages;
    const kept = out.messages.map((m) => index.get(m)).filter((i) => i !== undefined && i > 0);
    events.push({ kind: out.outcome, turn: tokens.length - 1, at, tokensBefore: out.tokensBefore, tokensAfter: out.tokensAfter, keptFrom: kept.length ? Math.min(...kept) : null, summarized: out.summarizedMessages, dropped: out.droppedMessages });
  }
  return { events, tokens };
}

/** The fields of replaySession's events the reference also computes. */
export const eventKey = (e) => ({ kind: e.kind, turn: e.turn, at: e.at, tokensBefore: e.tokensBefore, tokensAfter: e.tokensAfter, keptFrom: e.kind === "overflow" ? undefined : e.keptFrom, ...(e.kind === "overflow" ? {} : { summarized: e.summarized, dropped: e.dropped }) });

