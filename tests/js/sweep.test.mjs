// The hostile-input sweep through the built package (issue: a deeper sweep than
// hostile.test.mjs). Generated cases, entry point × field × hostile value (see
// sweep-cases.mjs), run on the main thread with pkg/node, in a worker_threads Worker with
// a 1 MB stack with pkg/node, and in another such worker with the web build (init() given
// the wasm bytes), plus the large cases (a 50 MB tool result, a 100,000-message context,
// 100,000 chains, cyclic and self resume links) on the main thread and in the worker.
// Every case answers, or throws / rejects a DelegateContextError with a code (and a path
// for INVALID_INPUT), settles within its time box, leaves its input unchanged, and
// leaves the module and its handle working. The bugs it found are reproduced below
// (sweep-repro.mjs) and each runs as a regression test (each failed before its fix).
import test from "node:test";
import assert from "node:assert/strict";
import { Worker } from "node:worker_threads";
import { dc, root } from "./helpers.mjs";
import { runSweep, runLarge } from "./sweep-cases.mjs";

const workerUrl = new URL("./sweep-worker.mjs", import.meta.url);

/** Run `task` in a worker with a 1 MB stack; `deadlineMs` counts from the worker's "timing" mark. */
function inWorker(data, { deadlineMs } = {}) {
  return new Promise((resolve, reject) => {
    const worker = new Worker(workerUrl, { workerData: { root, ...data }, resourceLimits: { stackSizeMb: 1 } });
    let timer;
    worker.on("message", (m) => {
      if (m.phase === "timing") {
        if (deadlineMs) timer = setTimeout(() => {
          worker.terminate();
          resolve({ result: { ok: false, details: [`still running ${deadlineMs} ms after the timed call began (worker terminated)`] }, uncaught: [] });
        }, deadlineMs);
        return;
      }
      clearTimeout(timer);
      worker.terminate();
      resolve(m);
    });
    worker.on("error", (e) => {
      clearTimeout(timer);
      reject(e);
    });
  });
}

const fmt = (n) => n.toLocaleString("en-US");
const report = (failures) => failures.slice(0, 30).map((f) => `  ${f.label}\n    ${f.problems.join("\n    ")}`).join("\n");

// the two workers start now and run while the main thread sweeps
const t0 = performance.now();
const nodeWorker = inWorker({ task: "sweep", build: "node", large: true });
const webWorker = inWorker({ task: "sweep", build: "web", coreOnly: true });

test("sweep: every entry point × field × hostile value, main thread (pkg/node)", async () => {
  const r = await runSweep(dc);
  console.log(`# sweep: ${fmt(r.cases)} cases on the main thread in ${(r.ms / 1000).toFixed(1)} s, ${r.failures.length} failures; outcomes ${JSON.stringify(r.byOutcome)}`);
  assert.equal(r.failures.length, 0, `failures:\n${report(r.failures)}`);
});

test("sweep: the large cases on the main thread (a 50 MB tool result at every entry point that reads one, a 100,000-message DelegateContext, hostile resume links)", async () => {
  const t = performance.now();
  const r = await runLarge(dc, { light: true });
  console.log(`# sweep: ${r.cases} large cases on the main thread in ${((performance.now() - t) / 1000).toFixed(1)} s, ${r.failures.length} failures; slowest ${r.times.sort((a, b) => b[1] - a[1]).slice(0, 3).map(([l, ms]) => `${l}: ${ms} ms`).join("; ")}`);
  assert.equal(r.failures.length, 0, `failures:\n${report(r.failures)}`);
});

test("sweep: the same in a worker with a 1 MB stack (pkg/node), with the large cases (100,000 chains, the hook and runDelegateTurn over 100,000 messages)", async () => {
  const { result, uncaught } = await nodeWorker;
  const { sweep, large } = result;
  console.log(`# sweep: ${fmt(sweep.cases)} cases in a worker (1 MB stack) in ${(sweep.ms / 1000).toFixed(1)} s, ${sweep.failures.length} failures; ${large.cases} large cases, ${large.failures.length} failures`);
  assert.deepEqual(uncaught, []);
  assert.equal(sweep.failures.length + large.failures.length, 0, `failures:\n${report([...sweep.failures, ...large.failures])}`);
});

test("sweep: the web build (init with the wasm bytes) in a worker with a 1 MB stack, the core hostile values at every field", async () => {
  const { result, uncaught } = await webWorker;
  const { sweep } = result;
  console.log(`# sweep: ${fmt(sweep.cases)} cases of the web build in a worker in ${(sweep.ms / 1000).toFixed(1)} s, ${sweep.failures.length} failures (all sweeps done ${((performance.now() - t0) / 1000).toFixed(1)} s after start)`);
  assert.deepEqual(uncaught, []);
  assert.equal(sweep.failures.length, 0, `failures:\n${report(sweep.failures)}`);
});

// ------------------------------------------------------------------ bugs the sweep found, fixed

const BUGS = [
  ["messageGetterRawError", "a getter that throws an Error whose `message` getter throws: the second exception escapes raw (no name, no code) through the non-catch `message` import"],
  ["messageGetterBricksContext", "the same getter in DelegateContext#push leaves its RefCell borrowed: every later call on the handle traps (RuntimeError: unreachable), free() throws, the context leaks"],
  ["messageGetterBricksRegistry", "the same getter in DelegationRegistry#settle rows: the registry answers 'recursive use of an object' ever after and cannot be freed"],
  ["messageGetterHookPending", "the same getter as the hook's ctx.context: the hook's promise never settles (uncaught exception in a microtask) and a runDelegateTurn started in the same tick stays pending too"],
  ["hookContextGetterPending", "hook: an enumerable getter on ctx.context that throws (a field the library never reads) makes Object.assign throw inside the future on a compaction: pending forever, uncaught exception, other hooks/turns of the same tick pending"],
  ["reentrantGetterLeaksHandle", "a message getter (or settings getter) that calls the same DelegateContext while it pushes: the inner call traps (RefCell already borrowed) and wasm-bindgen's borrow is never released: free() throws forever (leak)"],
  ["seedMutatesArray", "seedDelegateMessages(array) writes a `rows` property onto the caller's array"],
  ["useAfterFree", "a method after free(), free() twice, [Symbol.dispose]() after free(): raw Error 'null pointer passed to rust' without name or code"],
  ["onOutcomeRejection", "an async onOutcome that rejects: the returned promise is dropped, an unhandled rejection (fatal in Node's default mode)"],
  ["longChainConversation", "DelegationRegistry#chainConversation is quadratic in the chain's runs: a 3,000-run chain takes seconds on the caller's thread", 60000],
  ["degradeLargeContext", "the degrade path (failed summary) over 70,000 messages takes seconds (is_kept scans the kept units for every message)", 60000],
];

for (const [name, what, deadlineMs] of BUGS) {
  test(`found by the sweep, fixed: ${what} (reproduction ${name})`, async () => {
    const { result, uncaught } = await inWorker({ task: "repro", name, build: "node" }, { deadlineMs });
    const details = [...result.details, ...uncaught];
    assert.deepEqual(uncaught, [], details.join("\n"));
    assert.ok(result.ok, details.join("\n"));
  });
}
