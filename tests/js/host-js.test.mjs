// src/wasm/host.js, the JavaScript the binding calls, tested by itself (issue 17 §1: the
// binding's JavaScript is a file of its own, tested like the rest). What the package does
// with it is tested through the package (compaction.test.mjs, hostile.test.mjs); here,
// the edge cases of each function: getters that throw, aborts before and after, a
// summarizer that throws synchronously or resolves with something unreadable.
import test from "node:test";
import assert from "node:assert/strict";
import * as host from "../../src/wasm/host.js";

const throwing = (what) => new Proxy({}, { get() { throw new Error(what); } });
/** An object whose getter `key` throws `what`. */
const getterThrows = (key, what) => Object.defineProperty({}, key, { enumerable: true, get() { throw new Error(what); } });

test("dc_describe_thrown never throws", () => {
  assert.equal(host.dc_describe_thrown("plain"), "plain");
  assert.equal(host.dc_describe_thrown(new Error("boom")), "boom");
  assert.equal(host.dc_describe_thrown({ status: 503 }), '{"status":503}');
  assert.equal(host.dc_describe_thrown(undefined), "undefined");
  assert.equal(host.dc_describe_thrown(Symbol("s")), "Symbol(s)");
  assert.equal(host.dc_describe_thrown(10n), "an unreadable value was thrown");
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  assert.equal(host.dc_describe_thrown(revoked.proxy), "an unreadable value was thrown");
  const e = new Error("x");
  Object.defineProperty(e, "message", { get() { throw new Error("no"); } });
  assert.equal(host.dc_describe_thrown(e), "an unreadable value was thrown");
});

test("the readers answer what JavaScript answers, and let a getter's exception through to the caller's catch", () => {
  assert.equal(host.dc_is_object(null), false);
  assert.equal(host.dc_is_object(() => 1), true);
  assert.equal(host.dc_is_array([]), true);
  assert.throws(() => host.dc_prop(throwing("getter"), "k"), /getter/);
  assert.equal(host.dc_stringify_strict({ a: NaN, b: null }), '{"a":"NaN","b":null}');
  assert.equal(host.dc_stringify_strict({ a: 1 }), '{"a":1}');
  assert.equal(host.dc_stringify_strict(undefined), undefined);
  assert.equal(host.dc_stringify_range([1, 2, 3], 1, 3), "[2,3]");
  assert.equal(host.dc_last_index_of_role([{ role: "a" }, null, { role: "b" }, { role: "a" }], "a", 3), 0);
  assert.equal(host.dc_last_index_of_role([{ role: "b" }], "a", 1), -1);
  assert.deepEqual(host.dc_without({ a: 1, b: 2 }, "a"), { b: 2 });
  const out = [0];
  host.dc_push_run(out, ["x", "y", "z"], 1, 3);
  assert.deepEqual(out, [0, "y", "z"]);
  assert.deepEqual(host.dc_with_messages({ systemPrompt: "s", messages: [1] }, [2]), { systemPrompt: "s", messages: [2] });
  assert.throws(() => host.dc_with_messages(getterThrows("tools", "ctx"), []), /ctx/);
});

test("dc_notify drops what a listener throws or rejects with", async () => {
  let seen;
  host.dc_notify((v) => { seen = v; }, 7);
  assert.equal(seen, 7);
  host.dc_notify(() => { throw new Error("listener"); }, 1);
  host.dc_notify(async () => { throw new Error("async listener"); }, 1); // no unhandled rejection
  host.dc_notify(() => ({ then: 5 }), 1);
  await new Promise((r) => setTimeout(r, 0));
});

test("dc_aborted and dc_any_signal read signals without throwing", () => {
  const a = new AbortController();
  const b = new AbortController();
  assert.equal(host.dc_aborted([undefined, a.signal, throwing("aborted")]), false);
  b.abort();
  assert.equal(host.dc_aborted([a.signal, b.signal]), true);
  assert.equal(host.dc_any_signal([undefined, null]), undefined);
  assert.equal(host.dc_any_signal([undefined, a.signal]), a.signal);
  const any = host.dc_any_signal([a.signal, new AbortController().signal]);
  assert.equal(any.aborted, false);
  a.abort();
  assert.equal(any.aborted, true);
});

test("dc_summarize settles with what came of the call, never rejects", async () => {
  const none = [];
  const ask = (summarize, signals = none) => host.dc_summarize(summarize, { kind: "history" }, undefined, signals);
  assert.deepEqual(await ask(async () => "## Goal"), { kind: "resolved", value: "## Goal" });
  assert.deepEqual(await ask(() => "sync text"), { kind: "resolved", value: "sync text" });
  assert.deepEqual(await ask(async () => ({ content: [{ type: "text", text: "a" }], stopReason: "stop", usage: {}, extra: 1 })), {
    kind: "resolved",
    value: { content: [{ type: "text", text: "a" }], text: undefined, stopReason: "stop", errorMessage: undefined },
  });
  for (const v of [undefined, null, 42, 10n, () => "f"]) assert.deepEqual(await ask(async () => v), { kind: "resolved" }, String(v));
  // of content blocks only type and text cross: what JSON cannot hold elsewhere in a block stays behind
  const cyclic = { type: "thinking", thinking: "t", n: 10n };
  cyclic.self = cyclic;
  assert.deepEqual(await ask(async () => ({ content: [cyclic, null, 3, { type: "text", text: "a", extra: 1n }] })), {
    kind: "resolved",
    value: { content: [{ type: "thinking", text: undefined }, null, null, { type: "text", text: "a" }], text: undefined, stopReason: undefined, errorMessage: undefined },
  });
  assert.equal(JSON.stringify((await ask(async () => ({ content: [cyclic] }))).value), '{"content":[{"type":"thinking"}]}');
  // a summarizer that throws synchronously, rejects, or resolves with a value whose getter throws
  assert.deepEqual(await ask(() => { throw new Error("sync"); }), { kind: "rejected", reason: "sync" });
  assert.deepEqual(await ask(async () => { throw new Error(""); }), { kind: "rejected", reason: "" });
  assert.deepEqual(await ask(() => Promise.reject({ status: 503 })), { kind: "rejected", reason: '{"status":503}' });
  assert.deepEqual(await ask(async () => getterThrows("content", "content getter")), { kind: "unreadable", reason: "content getter" });
  assert.deepEqual(await ask(async () => throwing("any getter")), { kind: "rejected", reason: "any getter" }, "its `then` throws: the promise rejects");
  // a thenable whose `then` getter throws rejects
  const thenable = { get then() { throw new Error("then getter"); } };
  assert.deepEqual(await ask(() => thenable), { kind: "rejected", reason: "then getter" });
});

test("dc_summarize: an abort of any signal wins, before the call or while it runs, and its listeners are removed", async () => {
  const before = new AbortController();
  before.abort();
  let called = false;
  assert.deepEqual(await host.dc_summarize(() => { called = true; return "s"; }, {}, before.signal, [undefined, before.signal]), { kind: "aborted" });
  assert.equal(called, false, "not called once a signal has fired");

  const during = new AbortController();
  let added = 0;
  let removed = 0;
  const counted = {
    aborted: false,
    addEventListener: (t, f) => { added++; during.signal.addEventListener(t, f); },
    removeEventListener: (t, f) => { removed++; during.signal.removeEventListener(t, f); },
  };
  const pending = host.dc_summarize(() => new Promise(() => {}), {}, during.signal, [counted]); // never settles
  during.abort();
  assert.deepEqual(await pending, { kind: "aborted" });
  assert.equal(added, 1);
  assert.equal(removed, 1);

  // after it settled, an abort changes nothing; a signal whose getters throw is skipped
  const late = new AbortController();
  const settled = await host.dc_summarize(async () => "s", {}, late.signal, [late.signal, throwing("aborted")]);
  late.abort();
  assert.deepEqual(settled, { kind: "resolved", value: "s" });
});

/** A step as src/wasm/turn.rs's TurnStep answers dc_drive: `requests` in turn, then `finish`'s value; what it was told is logged. */
function fakeStep(requests, { finish = () => "done", signals = [], nextThrows = -1 } = {}) {
  const log = [];
  let i = 0;
  return {
    log,
    summarize: async (request, signal) => {
      log.push(["summarize", request, signal]);
      return `summary of ${request}`;
    },
    signals,
    next() {
      if (i === nextThrows) throw Object.assign(new Error("overflow"), { code: "SUBAGENT_CONTEXT_OVERFLOW" });
      log.push(["next"]);
      return requests[i++];
    },
    reply(settled) {
      log.push(["reply", settled]);
    },
    finish() {
      log.push(["finish"]);
      return finish();
    },
    free() {
      log.push(["free"]);
    },
  };
}

test("dc_drive asks for each request, hands back what each call came to, finishes and frees the step", async () => {
  const step = fakeStep(["a", "b"]);
  assert.equal(await host.dc_drive(step), "done");
  assert.deepEqual(step.log, [
    ["next"],
    ["summarize", "a", undefined],
    ["reply", { kind: "resolved", value: "summary of a" }],
    ["next"],
    ["summarize", "b", undefined],
    ["reply", { kind: "resolved", value: "summary of b" }],
    ["next"],
    ["finish"],
    ["free"],
  ]);
  // nothing to ask: straight to finish
  const none = fakeStep([]);
  assert.equal(await host.dc_drive(none), "done");
  assert.deepEqual(none.log, [["next"], ["finish"], ["free"]]);
});

test("dc_drive: what the step throws rejects, and the step is freed whichever way it ends", async () => {
  const failing = fakeStep(["a"], { nextThrows: 1 });
  await assert.rejects(host.dc_drive(failing), (e) => e.code === "SUBAGENT_CONTEXT_OVERFLOW");
  assert.deepEqual(failing.log.at(-1), ["free"]);
  const finishing = fakeStep([], {
    finish: () => {
      throw new Error("finish threw");
    },
  });
  await assert.rejects(host.dc_drive(finishing), /finish threw/);
  assert.deepEqual(finishing.log.at(-1), ["free"]);
});

test("dc_drive gives the summarizer one signal for all of the step's, and an abort settles the call as aborted", async () => {
  const controller = new AbortController();
  const step = fakeStep(["a"], { signals: [controller.signal, undefined] });
  step.summarize = (request, signal) => {
    step.log.push(["summarize", request, signal === controller.signal]);
    controller.abort();
    return new Promise(() => {}); // never settles: the abort must
  };
  assert.equal(await host.dc_drive(step), "done");
  assert.deepEqual(step.log.slice(0, 3), [["next"], ["summarize", "a", true], ["reply", { kind: "aborted" }]]);
});

test("dc_hook: each call begins a step with the context and the Agent's signal and drives it; what begin throws rejects", async () => {
  const begun = [];
  const hook = host.dc_hook({
    begin(ctx, signal) {
      begun.push([ctx, signal]);
      if (ctx === "bad") throw new Error("begin threw");
      return fakeStep([], { finish: () => ({ context: ctx }) });
    },
  });
  const signal = new AbortController().signal;
  assert.deepEqual(await hook("c1", signal), { context: "c1" });
  const p = hook("bad"); // a promise, not a synchronous throw
  await assert.rejects(p, /begin threw/);
  assert.deepEqual(begun, [["c1", signal], ["bad", undefined]]);
});
