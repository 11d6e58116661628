// Issue 17 §7, issue 36 §1: the module a browser loads stays small. The shipped `.wasm`
// (gzip -9, as scripts/build-pkg.sh prints it) must stay within 255 KB: issue 36's 210 KB
// held the crates that replaced our allocator, digits and writer (203,457 bytes on
// 2026-12-05); issue 34's delegate run machine (src/run/, the DelegateRun and RowRecorder
// classes) then added 31 KB (234,645), measured function by function with twiggy, and
// issue 35's reading of the AI SDK's messages (src/ai_sdk.rs and its exports) 15 KB
// (249,573). The
// smaller profiles were measured and refused for speed (bench/profiles.sh: opt-level s
// 215,482 bytes at ×1.19 the time, z 197,078 at ×1.51). A change that brings back a large
// piece of the standard library (a `parse::<f64>()` brings `f64::from_str` and its tables;
// a `str` slice that can panic brings the panic message's Unicode tables, +17 KB raw, as
// the run machine's first build did; Rust's float formatter, `to_lowercase` and its
// tables, serde_json's value tree) fails here instead of going unnoticed. What replaces "a growth finds its bytes elsewhere" (the
// README's Size): a crate's job is written by hand only when that saves at least about
// 5 KB gzip per 300 lines, in safe code, with a differential test against the crate kept
// in the test command; a wanted growth below that bound takes the crate.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { root } from "./helpers.mjs";

const SIZE_BUDGET = 255_000;

test("the shipped .wasm stays within its gzip budget", () => {
  for (const target of ["node", "web"]) {
    const wasm = readFileSync(resolve(root, `pkg/${target}/delegate_context_bg.wasm`));
    const gz = gzipSync(wasm, { level: 9 }).length;
    assert.ok(gz <= SIZE_BUDGET, `pkg/${target}: ${gz} bytes gzip -9, over the budget of ${SIZE_BUDGET}`);
  }
});
