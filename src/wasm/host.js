// @ts-check
// The JavaScript the binding calls (wasm-bindgen copies this file into the package's
// snippets/; scripts/cjs-snippets.mjs rewrites it to CommonJS for pkg/node, so it holds
// `export function` declarations and nothing else is exported). Each function reads or
// calls host values without letting an exception escape into wasm where the Rust side
// cannot catch it (src/wasm/host.rs says why); none of them decides anything: the rules
// live in the Rust core. Type-checked (tsc, tests/ts/tsconfig.host-js.json) and tested
// directly (tests/js/host-js.test.mjs).

// ---------------------------------------------------------------- host values (host.rs)

/** @param {unknown} v */
export function dc_is_array(v) {
  return Array.isArray(v);
}

/** @param {any} a */
export function dc_length(a) {
  return a.length;
}

/** @param {any} a @param {number} i */
export function dc_get(a, i) {
  return a[i];
}

/** @param {any} o @param {string} k */
export function dc_prop(o, k) {
  return o[k];
}

/** @param {unknown} v */
export function dc_is_object(v) {
  return v !== null && (typeof v === "object" || typeof v === "function");
}

/**
 * The message of a thrown value, for an error text; never throws.
 * @param {unknown} e
 * @returns {string}
 */
export function dc_describe_thrown(e) {
  try {
    if (typeof e === "string") return e;
    if (e instanceof Error) return String(e.message);
    const text = JSON.stringify(e);
    return text === undefined ? String(e) : text;
  } catch (x) {
    return "an unreadable value was thrown";
  }
}

// ---------------------------------------------------------------- JSON (convert.rs)

/** @param {string} k @param {unknown} x */
const dc_finite = (k, x) => (typeof x === "number" && !Number.isFinite(x) ? String(x) : x);

/**
 * `JSON.stringify(v)` with `Infinity` and `NaN` written as strings. Without a replacer
 * first (twice as fast): they are written as null, so a text without "null" had none;
 * only one with "null" is written again with the replacer.
 * @param {unknown} v
 * @returns {string | undefined}
 */
export function dc_stringify_strict(v) {
  const text = JSON.stringify(v);
  return text === undefined || !text.includes("null") ? text : JSON.stringify(v, dc_finite);
}

/**
 * `dc_stringify_strict` of `{budget, modelId, options}` read from `o`: a turn boundary's
 * configuration in one crossing (read field by field, three crossings and three texts,
 * it was two thirds of a `prepareTurn` that had nothing new). `undefined` when reading or
 * writing them threw or one of them is a non-finite number: the caller then reads them
 * one by one, and names the bad one.
 * @param {any} o
 * @returns {string | undefined}
 */
export function dc_turn_config_text(o) {
  try {
    const budget = o.budget;
    const modelId = o.modelId;
    const options = o.options;
    for (const v of [budget, modelId, options]) if (typeof v === "number" && !Number.isFinite(v)) return undefined;
    return dc_stringify_strict({ budget, modelId, options });
  } catch {
    return undefined;
  }
}

/**
 * Sets the prompt of a summary request the library just wrote (with an empty prompt):
 * the text crosses once, as a string (src/wasm/turn.rs, `request_to_js`).
 * @param {{ messages: { content: { text: string }[] }[] }} request
 * @param {string} text
 */
export function dc_set_prompt(request, text) {
  request.messages[0].content[0].text = text;
}

// ---------------------------------------------------------------- messages (messages.rs)

/**
 * One `JSON.stringify` of `a[from..to]`.
 * @param {any} a @param {number} from @param {number} to
 * @returns {string}
 */
export function dc_stringify_range(a, from, to) {
  return JSON.stringify(from === 0 && to === a.length ? a : Array.prototype.slice.call(a, from, to));
}

/**
 * Index of the last message with `role` before `to`, or -1.
 * @param {any} a @param {string} role @param {number} to
 */
export function dc_last_index_of_role(a, role, to) {
  for (let i = to - 1; i >= 0; i--) {
    const m = a[i];
    if (m !== null && typeof m === "object" && m.role === role) return i;
  }
  return -1;
}

// ---------------------------------------------------------------- the context (host_context.rs)

/**
 * Append `refs[start..end]` to `out` (both the binding's own arrays).
 * @param {unknown[]} out @param {unknown[]} refs @param {number} start @param {number} end
 */
export function dc_push_run(out, refs, start, end) {
  for (let i = start; i < end; i++) out.push(refs[i]);
}

// ---------------------------------------------------------------- transcripts (delegation.rs)

/**
 * A plain copy of `o`'s own enumerable properties except `k`.
 * @param {any} o @param {string} k
 */
export function dc_without(o, k) {
  /** @type {Record<string, unknown>} */
  const r = {};
  for (const key of Object.keys(o)) if (key !== k) r[key] = o[key];
  return r;
}

// ---------------------------------------------------------------- the turn drivers (turn.rs)

/**
 * `{...context, messages}`, or the exception a getter of `context` throws.
 * @param {object} context @param {unknown[]} messages
 */
export function dc_with_messages(context, messages) {
  return { ...context, messages };
}

/**
 * Tell a listener; what it throws or rejects with is dropped (it must not break the
 * loop, and a rejection nobody handles would end a Node process).
 * @param {(value: unknown) => unknown} listener @param {unknown} value
 */
export function dc_notify(listener, value) {
  try {
    const p = /** @type {any} */ (listener(value));
    if (p !== null && typeof p === "object" && typeof p.then === "function") p.then(undefined, () => {});
  } catch (e) {}
}

/**
 * Whether any of `signals` is aborted (a signal whose `aborted` throws is not).
 * @param {any[]} signals
 */
export function dc_aborted(signals) {
  for (const s of signals) {
    try {
      if (s && s.aborted === true) return true;
    } catch (e) {}
  }
  return false;
}

/**
 * One signal that aborts when any of `signals` does (`AbortSignal.any` where there is
 * one, else the first), or `undefined` for none.
 * @param {any[]} signals
 */
export function dc_any_signal(signals) {
  const live = signals.filter((s) => s != null);
  if (live.length === 0) return undefined;
  if (live.length === 1) return live[0];
  try {
    if (typeof AbortSignal !== "undefined" && typeof AbortSignal.any === "function") return AbortSignal.any(live);
  } catch (e) {}
  return live[0];
}

/**
 * What a summarizer's call came to, as `Settled` in src/compaction/run.rs reads it.
 * @typedef {{ kind: "resolved", value?: unknown }
 *   | { kind: "rejected", reason: string }
 *   | { kind: "unreadable", reason: string }
 *   | { kind: "aborted" }} Settled
 */

/**
 * What a summarizer resolved with, read without throwing: a string as it is; of an
 * object, the fields a reply may carry (the core reads them); anything else as nothing.
 * A `content` that is not an array crosses as it is (a string, or what the core then
 * finds unreadable).
 * @param {unknown} v
 * @returns {Settled}
 */
function dc_resolved(v) {
  if (typeof v === "string") return { kind: "resolved", value: v };
  if (v === null || typeof v !== "object") return { kind: "resolved" };
  try {
    const m = /** @type {any} */ (v);
    const c = m.content;
    // of content blocks, only `type` and `text` cross (a block's other fields may hold
    // what JSON cannot: a cycle, a BigInt)
    const content = Array.isArray(c) ? c.map((b) => (b !== null && typeof b === "object" ? { type: b.type, text: b.text } : null)) : c;
    return { kind: "resolved", value: { content, text: m.text, stopReason: m.stopReason, errorMessage: m.errorMessage } };
  } catch (error) {
    return { kind: "unreadable", reason: dc_describe_thrown(error) };
  }
}

/**
 * Calls `summarize(request, signal)` and settles (never rejects) with what came of it:
 * an abort of any of `signals` wins at once, whatever the summarizer does; the
 * listeners are removed when it settles.
 * @param {(request: unknown, signal?: AbortSignal) => unknown} summarize
 * @param {unknown} request
 * @param {AbortSignal | undefined} signal
 * @param {any[]} signals
 * @returns {Promise<Settled>}
 */
export function dc_summarize(summarize, request, signal, signals) {
  return new Promise((resolve) => {
    let done = false;
    /** @type {any[]} */
    const live = [];
    /** @param {Settled} r */
    const finish = (r) => {
      if (done) return;
      done = true;
      for (const s of live) {
        try {
          s.removeEventListener("abort", onAbort);
        } catch (e) {}
      }
      resolve(r);
    };
    const onAbort = () => finish({ kind: "aborted" });
    /** @param {unknown} error */
    const rejected = (error) => finish({ kind: "rejected", reason: dc_describe_thrown(error) });
    for (const s of signals) {
      try {
        if (!s) continue;
        if (s.aborted === true) {
          finish({ kind: "aborted" });
          return;
        }
        if (typeof s.addEventListener === "function") {
          s.addEventListener("abort", onAbort);
          live.push(s);
        }
      } catch (e) {}
    }
    let p;
    try {
      p = summarize(request, signal);
    } catch (error) {
      rejected(error);
      return;
    }
    Promise.resolve(p).then((value) => finish(dc_resolved(value)), rejected);
  });
}

/**
 * The step a boundary is driven by: `TurnStep` in src/wasm/turn.rs.
 * @typedef {{ summarize: (request: unknown, signal?: AbortSignal) => unknown, signals: any[],
 *   next(): unknown, reply(settled: Settled): void, finish(): unknown, free(): void }} TurnStep
 */

/**
 * Drives one boundary: asks the step for each summary request, awaits the summarizer
 * (`dc_summarize`) and hands back what came of it, then resolves with what the step
 * finishes with. The step decides everything; an error it throws rejects. The step is
 * freed however it ends (its lock with it).
 * @param {TurnStep} step
 * @returns {Promise<unknown>}
 */
export async function dc_drive(step) {
  try {
    const summarize = step.summarize;
    const signals = step.signals;
    const signal = dc_any_signal(signals);
    for (let request = step.next(); request !== undefined; request = step.next()) {
      step.reply(await dc_summarize(summarize, request, signal, signals));
    }
    return step.finish();
  } finally {
    step.free();
  }
}

/**
 * The hook `createPrepareNextTurn` returns: each call begins a boundary of `run` (a
 * `HookRun` of src/wasm/turn.rs) and drives it; what `begin` throws rejects.
 * @param {{ begin(ctx: unknown, signal: unknown): TurnStep }} run
 * @returns {(ctx: unknown, signal?: AbortSignal) => Promise<unknown>}
 */
export function dc_hook(run) {
  return async (ctx, signal) => dc_drive(run.begin(ctx, signal));
}
