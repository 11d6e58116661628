// What the shipped glue (wasm-bindgen's JavaScript, post-processed by
// scripts/patch-glue.mjs) answers when wasm-bindgen's own runtime throws: a handle's
// states (freed; freed from inside its own call) are INVALID_STATE errors that say what
// happened; any other message of the runtime is a bug of ours and stays a plain Error.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dc, root } from "./helpers.mjs";

const brief = { role: "user", content: "brief", timestamp: 1 };

test("a method of a freed handle is INVALID_STATE (freed); free() twice does nothing", () => {
  const ctx = new dc.DelegateContext([brief]);
  ctx.free();
  assert.doesNotThrow(() => ctx.free());
  assert.throws(() => ctx.estimateContextTokens(), (e) =>
    e instanceof Error && e.name === "DelegateContextError" && e.code === "INVALID_STATE" && /was freed/.test(e.message));
});

test("free() from inside one of the handle's own calls is INVALID_STATE and says so; the outer call completes", () => {
  const ctx = new dc.DelegateContext([brief]);
  let inner;
  const reply = { role: "assistant", content: [], stopReason: "stop", timestamp: 2,
    get usage() { try { ctx.free(); } catch (e) { inner = e; } return undefined; } };
  ctx.push([reply]);
  assert.ok(inner, "free() inside push threw");
  assert.equal(inner.name, "DelegateContextError");
  assert.equal(inner.code, "INVALID_STATE");
  assert.match(inner.message, /free\(\) was called from inside one of this object's own calls/);
  // the handle is unusable afterwards, and says so
  assert.throws(() => ctx.estimateContextTokens(), (e) => e.code === "INVALID_STATE");
  // the instance keeps working
  const other = new dc.DelegateContext([brief]);
  assert.equal(other.estimateContextTokens().tokens > 0, true);
  other.free();
});

// The runtime's throw import as the package ships it, evaluated alone with a stub for the
// string read: only the handle states get a code.
for (const target of ["node", "web"]) {
  test(`${target} glue: any other runtime message stays a plain Error without a code`, () => {
    const glue = readFileSync(resolve(root, `pkg/${target}/delegate_context.js`), "utf8");
    const m = /__wbg___wbindgen_throw_[0-9a-f]+: function\(arg0, arg1\) \{\n([\s\S]*?)\n\s*\},\n/.exec(glue);
    assert.ok(m, "the throw import is in the glue");
    const thrown = (message) => {
      const f = new Function("getStringFromWasm0", "arg0", "arg1", m[1]);
      try {
        f(() => message, 0, 0);
      } catch (e) {
        return e;
      }
      assert.fail("the import did not throw");
    };
    for (const message of ["closure invoked recursively or after being dropped", "toString", "some other failure"]) {
      const e = thrown(message);
      assert.equal(e.message, message);
      assert.equal(e.code, undefined, message);
      assert.equal(e.name, "Error");
    }
    const freed = thrown("null pointer passed to rust");
    assert.equal(freed.code, "INVALID_STATE");
    assert.match(freed.message, /this object was freed/);
    const aliasing = thrown("recursive use of an object detected which would lead to unsafe aliasing in rust");
    assert.equal(aliasing.code, "INVALID_STATE");
    assert.match(aliasing.message, /called from inside one of its own calls/);
  });
}

test("an export of the web build called before init() is INVALID_STATE and says to await init(); after init it works", async () => {
  // a fresh copy of the web build (a module instance is initialised once per process)
  const { mkdtempSync, cpSync } = await import("node:fs");
  const { tmpdir } = await import("node:os");
  const dir = mkdtempSync(resolve(tmpdir(), "dc-web-"));
  cpSync(resolve(root, "pkg/web"), dir, { recursive: true });
  const web = await import(resolve(dir, "delegate_context.js"));
  for (const call of [() => web.contextBudget({ contextWindow: 8192 }), () => new web.DelegationRegistry(), () => web.version()]) {
    assert.throws(call, (e) => e instanceof Error && e.name === "DelegateContextError" && e.code === "INVALID_STATE" && e.retriable === false && /await init\(\)/.test(e.message));
  }
  await web.default({ module_or_path: readFileSync(resolve(dir, "delegate_context_bg.wasm")) });
  assert.equal(web.contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit, 47616);
});

// Strings cross into wasm through the patched passStringToWasm0: up to 1 Mi UTF-16 units
// into a buffer of 3 bytes per unit, longer ones into a byte per unit grown by half the
// rest whenever a character needs more. A summary text returns the message's characters,
// so every byte that crossed is compared: ASCII only, a character of 2, 3 and 4 bytes
// (a surrogate pair) early, in the middle and last, a lone surrogate (U+FFFD, as
// JSON.stringify's escape is read), and one of 3 bytes at every unit.
test("strings over 1 Mi units cross whole, whatever their characters and where they stand", () => {
  const long = 1_100_000;
  const cases = {
    "ASCII only": "a".repeat(long),
    "é first": "é" + "b".repeat(long),
    "😀 in the middle": "c".repeat(long / 2) + "😀" + "d".repeat(long / 2),
    "中 last": "e".repeat(long) + "中",
    "a lone surrogate": "f".repeat(long) + "\ud800" + "g",
    "3 bytes at every unit": "中".repeat(long),
    "mixed runs": ("x".repeat(1000) + "é中😀").repeat(1100),
  };
  for (const [name, text] of Object.entries(cases)) {
    const summary = dc.serializeConversation([{ role: "user", content: text, timestamp: 1 }]);
    assert.equal(summary, `[User]: ${text.replace("\ud800", "\ufffd")}`, name);
  }
});
