// Issue 17 §7, issue 36 §1: the module a browser loads stays small. The shipped `.wasm`
// (gzip -9, as scripts/build-pkg.sh prints it) must stay within issue 36's 210 KB (203,457
// bytes on 2026-12-05, with talc, ryu-js and serde_json's writer in place of our own
// allocator, digits and writer), so that a change that brings back a large piece of the
// standard library (a `parse::<f64>()` brings `f64::from_str` and its tables, +10 KB gzip;
// Rust's float formatter is +8 KB, `to_lowercase` and its tables +8 KB, serde_json's value
// tree more) fails here instead of going unnoticed. The budget is the bound, not
// today's size plus a margin. What replaces "a growth finds its bytes elsewhere" (the
// README's Size): a crate's job is written by hand only when that saves at least about
// 5 KB gzip per 300 lines, in safe code, with a differential test against the crate kept
// in the test command; a wanted growth below that bound takes the crate.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { root } from "./helpers.mjs";

const SIZE_BUDGET = 210_000;

test("the shipped .wasm stays within its gzip budget", () => {
  for (const target of ["node", "web"]) {
    const wasm = readFileSync(resolve(root, `pkg/${target}/delegate_context_bg.wasm`));
    const gz = gzipSync(wasm, { level: 9 }).length;
    assert.ok(gz <= SIZE_BUDGET, `pkg/${target}: ${gz} bytes gzip -9, over the budget of ${SIZE_BUDGET}`);
  }
});
