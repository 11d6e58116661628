// Differential test (issue 15 item 2): a context overflow is recognised in every shape a
// pi host meets it, and decided as the installed @earendil-works/pi-ai decides it:
//   (a) pi's failed AssistantMessage (stopReason "error", errorMessage, no status),
//   (b) an Error with only a message, (c) an error with a status.
// Reference: pi-ai's own isContextOverflow / isRetryableAssistantError, and its own
// wordings, read from its installed sources (overflow.js's provider examples).
import { test } from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dc, root } from "./helpers.mjs";

const pi = await import("@earendil-works/pi-ai");
const piRoot = resolve(root, "node_modules/@earendil-works/pi-ai");

const GUIDANCE = (model) =>
  `The delegated task does not fit in the context window of model "${model}", even after compaction and history reduction. Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once.`;

/** The provider examples pi-ai documents in overflow.js (` * - Provider: "text"`). */
function documentedWordings() {
  const src = readFileSync(resolve(piRoot, "dist/utils/overflow.js"), "utf8");
  const out = [];
  for (const line of src.split("\n")) {
    const m = /^\s*\*\s+-\s+[^:"]+:\s+(.*)$/.exec(line);
    if (!m) continue;
    for (const q of m[1].matchAll(/"((?:[^"\\]|\\.)*)"/g)) {
      // the placeholders X and Y as numbers; "400/413 ..." as each status
      const text = JSON.parse(`"${q[1]}"`).replaceAll(/\bX\b/g, "140000").replaceAll(/\bY\b/g, "131072");
      if (text.length < 8) continue; // the quoted finish_reason "length"
      const statuses = /^(\d{3})\/(\d{3}) (.*)$/.exec(text);
      if (statuses) out.push(`${statuses[1]} ${statuses[3]}`, `${statuses[2]} ${statuses[3]}`);
      else out.push(text);
    }
  }
  return out;
}

// Each provider's real wordings (as pi-ai's sources and the providers' docs give them),
// one or more per OVERFLOW_PATTERNS entry.
const OVERFLOWS = [
  "prompt is too long: 8871 tokens > 8192 maximum",
  "400 {\"type\":\"error\",\"error\":{\"type\":\"invalid_request_error\",\"message\":\"prompt is too long: 213462 tokens > 200000 maximum\"}}",
  "413 {\"error\":{\"type\":\"request_too_large\",\"message\":\"Request exceeds the maximum size\"}}",
  "Validation error: Input is too long for requested model.",
  "Your input exceeds the context window of this model. Please adjust your input and try again.",
  "400 This model's maximum context length is 128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the length of the messages.",
  "Requested token count exceeds the model's maximum context length of 131072 tokens",
  "Requested token count exceeds the models maximum context length of 131,072 token",
  "Input length (265330) exceeds model's maximum context length (262144).",
  "exceeds maximum context length (1000)",
  "The input token count (1196265) exceeds the maximum number of tokens allowed (1048575).",
  "This model's maximum prompt length is 131072 but the request contains 537812 tokens.",
  "Please reduce the length of the messages or completion.",
  "This endpoint's maximum context length is 204800 tokens. However, you requested about 210000 tokens",
  "Input length 300000 exceeds the maximum allowed input length of 262,144 tokens.",
  "The input (140000 tokens) is longer than the model's context length (131072 tokens).",
  "prompt token count of 139000 exceeds the limit of 128000",
  "the request exceeds the available context size, try increasing it",
  "The number of tokens to keep from the initial prompt is greater than the context length",
  "invalid params, context window exceeds limit (2013)",
  "Your request exceeded model token limit: 262144 (requested: 300001)",
  "Prompt contains 140000 tokens and 0 draft tokens, too large for model with 131072 maximum context length",
  "Prompt has 70,000 tokens, but the configured context size is 65,536 tokens",
  "model_context_window_exceeded",
  "prompt too long; exceeded max context length by 1200 tokens",
  "prompt too long; exceeded context length by 5 tokens",
  "<400> InternalError.Algo.InvalidParameter: Range of input length should be [1, 98304]",
  "context_length_exceeded",
  "Error: context length exceeded",
  "Too many tokens in request",
  "Token limit exceeded for this model",
  "400 status code (no body)",
  "413 status code (no body)",
  "413 (no body)",
  "PROMPT IS TOO LONG",
];

// Not overflows: rate limits, 429s, throttling (Bedrock's "Too many tokens" included),
// 503/529 overloaded, auth, bad requests, and near misses of the patterns.
const NOT_OVERFLOWS = [
  "Throttling error: Too many tokens, please wait before trying again.",
  "Service unavailable: The service is temporarily unable to handle the request.",
  "429 Rate limit reached for gpt-4o in organization org-x on tokens per min (TPM): Limit 30000, Used 29000, Requested 2000.",
  "429 {\"type\":\"error\",\"error\":{\"type\":\"rate_limit_error\",\"message\":\"Number of request tokens has exceeded your per-minute rate limit\"}}",
  "Too many requests, please slow down",
  "Rate limit: token limit exceeded for this minute",
  "529 {\"type\":\"error\",\"error\":{\"type\":\"overloaded_error\",\"message\":\"Overloaded\"}}",
  "503 Service Unavailable",
  "500 Internal server error",
  "401 {\"type\":\"error\",\"error\":{\"type\":\"authentication_error\",\"message\":\"invalid x-api-key\"}}",
  "403 Forbidden",
  "400 Invalid schema for function 'read': 'path' is required",
  "insufficient_quota: You exceeded your current quota, please check your plan and billing details.",
  "fetch failed",
  "Request timed out.",
  "Connection error.",
  "maximum context length is unknown",
  "the context window of this model is 8192",
  "x 400 status code (no body)",
  "prompt is\ntoo long",
  "input token count\nexceeds the maximum",
  "",
];

// Mixed texts from the patterns' pieces (fixed seed): the matcher against pi's regexes.
function mixed(n) {
  let seed = 0x2f6b1d;
  const rnd = (k) => ((seed = (seed * 1103515245 + 12345) >>> 0) >>> 8) % k;
  const pieces = ["prompt", " is too long", " too long", "; exceeded ", "max ", "context", " ", "_", "-", "length", "exceeded",
    "maximum", " context length", " is ", "131072", "1,024", " tokens", " token", "(", ")", "'", "model", "s", " exceeds", " the",
    " of ", "input", " token count", "\n", "\r", "\u00a0", "\u2003", "rate limit", "too many requests", "Throttling error:", "400", "413",
    " status code", " (no body)", "K", "\u212a", "Range of input length should be", "limit", "greater than", "4", "00", "13", "throttling error:",
    "Service unavailable:", "window", " exceeds limit", "prompt has ", "but the configured context size is ", ",", " allowed input length of "];
  const out = [];
  for (let i = 0; i < n; i++) {
    let s = "";
    const len = 1 + rnd(9);
    for (let j = 0; j < len; j++) s += pieces[rnd(pieces.length)];
    out.push(s);
  }
  return out;
}

const usage = (input = 0, output = 0, cacheRead = 0) => ({
  input, output, cacheRead, cacheWrite: 0, totalTokens: input + output + cacheRead,
  cost: { input: 0, output: 0, cacheRead: 0, cacheWrite: 0, total: 0 },
});

/** pi's failed AssistantMessage, as its Agent ends a failed request. */
const failed = (errorMessage, stopReason = "error", u = usage()) => ({
  role: "assistant", content: [], api: "anthropic-messages", provider: "anthropic", model: "claude-haiku-4-5",
  usage: u, stopReason, errorMessage, timestamp: 1_700_000_000_000,
});

const shapes = (text) => ({
  message: failed(text),
  error: new Error(text),
  status: Object.assign(new Error(text), { status: 400 }),
});

// The host app's rule of host-contract §5 for a status: 413 always; 400/422 when the text
// matches this (or pi's patterns), and is not throttling (pi-ai's NON_OVERFLOW_PATTERNS).
const HOST = /context[ _-]?length|maximum context|context window|too many tokens|prompt is too long|input token count|exceeds the (?:maximum|model)|token limit/i;
const THROTTLING = [/^(Throttling error|Service unavailable):/i, /rate limit/i, /too many requests/i];

const corpus = () => [...documentedWordings(), ...OVERFLOWS, ...NOT_OVERFLOWS, ...mixed(4000)];

test("pi's documented wordings were read from its sources", () => {
  const docs = documentedWordings();
  assert.ok(docs.length >= 20, `only ${docs.length} examples found in pi-ai's overflow.js`);
  for (const text of docs) assert.equal(pi.isContextOverflow(failed(text)), true, text);
});

test("on pi's failed AssistantMessage, ours is pi-ai's isContextOverflow (and isRetryableAssistantError)", () => {
  let overflows = 0;
  const texts = corpus();
  for (const text of texts) {
    const msg = failed(text);
    const theirs = pi.isContextOverflow(msg);
    const ours = dc.classifyProviderError(msg);
    assert.equal(ours.contextTooLarge, theirs, JSON.stringify(text));
    assert.equal(ours.code, theirs ? "CONTEXT_TOO_LARGE" : null);
    assert.equal(ours.retriable, !theirs && pi.isRetryableAssistantError(msg), `retriable: ${JSON.stringify(text)}`);
    // an Error with the same text and no status is decided the same way
    const err = dc.classifyProviderError(new Error(text));
    assert.equal(err.contextTooLarge, theirs, `Error: ${JSON.stringify(text)}`);
    assert.equal(err.retriable, ours.retriable, `Error retriable: ${JSON.stringify(text)}`);
    overflows += theirs;
  }
  for (const text of OVERFLOWS) assert.equal(pi.isContextOverflow(failed(text)), true, `corpus: ${text}`);
  for (const text of NOT_OVERFLOWS) assert.equal(pi.isContextOverflow(failed(text)), false, `corpus: ${text}`);
  console.log(`# overflow-diff: ${texts.length} texts, ${overflows} overflows per pi-ai, ours equal on every one`);
});

test("pi's silent-overflow rules on usage, with and without the window", () => {
  let n = 0;
  for (const stopReason of ["stop", "length", "toolUse", "error", "aborted"]) {
    for (const input of [0, 8000, 8110, 8111, 8192, 9000]) {
      for (const cacheRead of [0, 100, 300]) {
        for (const output of [0, 1, 50]) {
          for (const cw of [undefined, 0, 8192, 16384]) {
            const msg = failed(stopReason === "error" ? "400 Bad Request" : undefined, stopReason, usage(input, output, cacheRead));
            if (stopReason !== "error") delete msg.errorMessage;
            const theirs = pi.isContextOverflow(msg, cw);
            assert.equal(dc.classifyProviderError(msg, cw).contextTooLarge, theirs, JSON.stringify({ stopReason, input, cacheRead, output, cw }));
            const forParent = dc.errorForParent(msg, { modelId: "m", contextWindow: cw });
            assert.equal(forParent !== msg, theirs);
            n++;
          }
        }
      }
    }
  }
  console.log(`# overflow-diff: ${n} usage cases equal to pi-ai`);
});

test("an overflow in any shape reaches the parent as SUBAGENT_CONTEXT_OVERFLOW, never the provider's text", () => {
  for (const text of [...documentedWordings(), ...OVERFLOWS]) {
    for (const [shape, error] of Object.entries(shapes(text))) {
      const out = dc.errorForParent(error, { modelId: "local/small", tokens: 9000, hardLimit: 8192 });
      assert.ok(dc.isDelegateContextError(out), `${shape}: ${text}`);
      assert.equal(out.code, "SUBAGENT_CONTEXT_OVERFLOW");
      assert.equal(out.message, GUIDANCE("local/small"));
      assert.equal(out.retriable, false);
      assert.equal(out.modelId, "local/small");
      assert.equal(out.tokens, 9000);
      assert.equal(out.hardLimit, 8192);
      if (text.length > 12) assert.ok(!out.message.includes(text), `${shape}: the provider's text leaked`);
    }
  }
  // the host's status rules: 413 always, whatever the text
  const e413 = Object.assign(new Error("Request Entity Too Large"), { statusCode: 413 });
  assert.equal(dc.errorForParent(e413, { modelId: "m" }).code, "SUBAGENT_CONTEXT_OVERFLOW");
});

test("under a status, the host app's rules (plus pi's wordings under 400/422)", () => {
  for (const text of corpus()) {
    const pis = pi.isContextOverflow(failed(text));
    const textual = pis || (HOST.test(text) && !THROTTLING.some((r) => r.test(text)));
    for (const status of [400, 422, 413, 429, 500, 503, 401]) {
      const expected = status === 413 || ((status === 400 || status === 422) && textual);
      for (const error of [Object.assign(new Error(text), { status }), { statusCode: status, message: text }]) {
        assert.equal(dc.classifyProviderError(error).contextTooLarge, expected, `${status}: ${JSON.stringify(text)}`);
      }
    }
  }
});

test("a non-overflow comes back unchanged, in every shape and with 429/503/401 statuses", () => {
  for (const text of NOT_OVERFLOWS) {
    const { message, error } = shapes(text);
    const all = { message, error };
    for (const status of [429, 503, 529, 401, 500]) all[`status ${status}`] = Object.assign(new Error(text), { status });
    for (const [shape, error] of Object.entries(all)) {
      const out = dc.errorForParent(error, { modelId: "m", contextWindow: 8192 });
      assert.equal(out, error, `${shape}: ${JSON.stringify(text)}`);
      assert.equal(dc.isDelegateContextError(out), false);
      assert.equal(dc.classifyProviderError(error).contextTooLarge, false);
    }
  }
  // even an overflow wording is not an overflow under a status that is not 400/413/422
  const throttled = Object.assign(new Error("Too many tokens, please wait"), { status: 429 });
  assert.equal(dc.errorForParent(throttled, { modelId: "m" }), throttled);
  assert.equal(dc.classifyProviderError(throttled).retriable, true);
  // a string is a message
  assert.equal(dc.classifyProviderError("prompt is too long").contextTooLarge, true);
  assert.equal(dc.errorForParent("fetch failed", { modelId: "m" }), "fetch failed");
});
