// The one post-processing of wasm-bindgen's generated glue (issue 17 §6), used by every
// build of it: the package (scripts/patch-glue.mjs from build-pkg.sh, release and --dev),
// the benchmark's profiles (bench/profiles.sh) and the boundary tests (Node through
// scripts/boundary-glue-hook.cjs, the browsers through scripts/boundary-browser.mjs), so
// the glue the tests run is the glue users get. CommonJS so that a `--require` hook can
// load it; ES modules import it too.
//
// Four changes. Before init (the web build): an export called before `init()` throws a
// `DelegateContextError` with code `INVALID_STATE` that says to await `init()` first, not
// a TypeError about `undefined`. Speed: a string passed to wasm (every message crosses as its JSON text)
// is written with one TextEncoder.encodeInto into a buffer of 3 bytes per UTF-16 unit,
// then shrunk, instead of wasm-bindgen's JavaScript loop over its ASCII prefix (4.5-7.6 µs
// vs 0.6 µs for a 2,000-character turn of a real session); a string over 1 Mi units (a
// whole history, a huge tool result) is written by encodeInto into a byte per unit, grown
// by half the rest whenever a character needs more, so it never reserves 3x its size in
// wasm memory, which never shrinks (wasm-bindgen's loop over the ASCII prefix was 12% of a
// one-shot prepareCompaction on a real session). And so that a handle used after free() answers as every other error does:
// - free() a second time does nothing (what `using` plus an explicit free() does);
// - the two states of a handle that wasm-bindgen's runtime reports itself (a method of a
//   freed object: "null pointer passed to rust"; free() called from inside one of the
//   handle's own calls: "attempted to take ownership of Rust value while it was
//   borrowed") are `DelegateContextError`s with code `INVALID_STATE` and a message that
//   says what happened, not bare `Error`s. They are raised before any of our code runs,
//   so nothing is left half done. Any other message of the runtime's throw is a bug of
//   ours, not a state of the caller's: it stays the runtime's plain `Error`.
// Throws when the generated text is not what it expects (a wasm-bindgen upgrade), rather
// than leaving glue unpatched.
"use strict";

// wasm-bindgen's messages for a handle's states → what our INVALID_STATE error says
const STATES = {
  "null pointer passed to rust": "this object was freed (by free() or the end of its `using` block): create a new one",
  "attempted to take ownership of Rust value while it was borrowed":
    "free() was called from inside one of this object's own calls (a getter, toJSON or callback): the object can no longer be used and its memory is not released; free it after the call returns",
  "recursive use of an object detected which would lead to unsafe aliasing in rust":
    "this object was called from inside one of its own calls (a getter, toJSON or callback)",
};

const MOVED = /throw new Error\('Attempt to use a moved value'\);/g;
const FREE = /free\(\) \{\n(\s*)const ptr = this\.__destroy_into_raw\(\);\n/g;
const THROW = /(__wbg___wbindgen_throw_[0-9a-f]+: function\(arg0, arg1\) \{\n\s*)throw new Error\(getStringFromWasm0\(arg0, arg1\)\);/;
// (a debug build's glue checks the argument's type first: `--dev`)
const PASS = /(function passStringToWasm0\(arg, malloc, realloc\) \{\n(?:    if \(typeof\(arg\) !== 'string'\) throw .*\n)?    if \(realloc === undefined\) \{\n(?:.*\n){5}    \}\n)/;

/** The statement that throws our INVALID_STATE error with the message `expression`. */
function invalidState(expression) {
  return `const error = new Error(${expression}); error.name = "DelegateContextError"; error.code = "INVALID_STATE"; throw error;`;
}

/**
 * How many exported classes (free() methods) the package's glue has: DelegateContext,
 * DelegationRegistry, DelegateRun, RowRecorder, and the boundary's TurnStep and HookRun,
 * which host.js's dc_drive and dc_hook hold. The test runner's glue has one more (its
 * harness exports one).
 */
const PACKAGE_CLASSES = 6;
const TEST_RUNNER_CLASSES = PACKAGE_CLASSES + 1;

/**
 * The glue `text` (of `file`, named in errors) patched. `classes`: how many exported
 * classes (free() methods) it must have, PACKAGE_CLASSES or TEST_RUNNER_CLASSES.
 */
const WASM_SLOT = "let wasmModule, wasmInstance, wasm;";
const INIT_CHECK = /if \(wasm !== undefined\) return wasm;/g;
const NOT_READY_MESSAGE =
  "delegate-context is not initialised: await init() (the default export of delegate-context/web) before calling any other export";

/** The web build's glue: `wasm` starts as a stand-in that throws INVALID_STATE on any use. */
function patchInit(text, file) {
  if (!text.includes(WASM_SLOT) || [...text.matchAll(INIT_CHECK)].length !== 2) {
    throw new Error(`${file}: wasm-bindgen's init code is not what glue-patch.cjs expects`);
  }
  const standIn = `const NOT_READY = new Proxy({}, { get() { const error = new Error(${JSON.stringify(NOT_READY_MESSAGE)}); error.name = "DelegateContextError"; error.code = "INVALID_STATE"; error.retriable = false; throw error; } });`;
  return text
    .replace(WASM_SLOT, `${standIn}\nlet wasmModule, wasmInstance, wasm = NOT_READY;`)
    .replaceAll(INIT_CHECK, "if (wasm !== NOT_READY) return wasm;");
}

function patchGlue(text, file, classes) {
  // the web build (an init function) starts without its module
  if (text.includes("export { initSync, __wbg_init as default };")) text = patchInit(text, file);
  const frees = [...text.matchAll(FREE)].length;
  if (frees !== classes) throw new Error(`${file}: expected ${classes} free() methods, found ${frees}`);
  text = text.replaceAll(FREE, (all, indent) => `${all}${indent}if (ptr === 0) return; // freed already\n`);
  if (!THROW.test(text)) throw new Error(`${file}: wasm-bindgen's throw import not found`);
  text = text.replace(THROW, (_, head) => `${head}const message = getStringFromWasm0(arg0, arg1);
            const state = ${JSON.stringify(STATES)}[message];
            if (typeof state !== "string") throw new Error(message);
            ${invalidState("state")}`);
  // a debug build's glue checks for a freed handle itself, before the call
  text = text.replaceAll(MOVED, () => `{ ${invalidState(JSON.stringify(STATES["null pointer passed to rust"]))} }`);
  if (!PASS.test(text)) throw new Error(`${file}: wasm-bindgen's passStringToWasm0 not found`);
  return text.replace(PASS, (head) => `${head}    if (arg.length <= 1048576) {
        const cap = arg.length * 3;
        let ptr = malloc(cap, 1) >>> 0;
        const written = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + cap)).written;
        if (written !== cap) ptr = realloc(ptr, cap, written, 1) >>> 0;
        WASM_VECTOR_LEN = written;
        return ptr;
    }
    {
        let cap = arg.length;
        let ptr = malloc(cap, 1) >>> 0;
        let { read, written } = cachedTextEncoder.encodeInto(arg, getUint8ArrayMemory0().subarray(ptr, ptr + cap));
        while (read < arg.length) {
            const rest = arg.length - read;
            const grown = written + rest + (rest >> 1) + 4;
            ptr = realloc(ptr, cap, grown, 1) >>> 0;
            cap = grown;
            const more = cachedTextEncoder.encodeInto(arg.slice(read), getUint8ArrayMemory0().subarray(ptr + written, ptr + cap));
            read += more.read;
            written += more.written;
        }
        if (written !== cap) ptr = realloc(ptr, cap, written, 1) >>> 0;
        WASM_VECTOR_LEN = written;
        return ptr;
    }
`);
}

module.exports = { patchGlue, PACKAGE_CLASSES, TEST_RUNNER_CLASSES };
