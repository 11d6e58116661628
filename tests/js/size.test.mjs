// Issue 17 §7: the module a browser loads stays small. The shipped `.wasm` (gzip -9, as
// scripts/build-pkg.sh prints it) must stay within issue 17's 200 KB (197,048 bytes on
// 2026-12-03), so that a change that brings back a large piece of the
// standard library (a `parse::<f64>()` brings `f64::from_str` and its tables, +10 KB gzip;
// Rust's float formatter is +8 KB, `to_lowercase` and its tables +8 KB, serde_json's value
// tree more) fails here instead of going unnoticed. The budget is the bound, not today's
// size plus a margin: a growth that is wanted finds its bytes elsewhere.
import test from "node:test";
import assert from "node:assert/strict";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { gzipSync } from "node:zlib";
import { root } from "./helpers.mjs";

const SIZE_BUDGET = 200_000;

test("the shipped .wasm stays within its gzip budget", () => {
  for (const target of ["node", "web"]) {
    const wasm = readFileSync(resolve(root, `pkg/${target}/delegate_context_bg.wasm`));
    const gz = gzipSync(wasm, { level: 9 }).length;
    assert.ok(gz <= SIZE_BUDGET, `pkg/${target}: ${gz} bytes gzip -9, over the budget of ${SIZE_BUDGET}`);
  }
});
