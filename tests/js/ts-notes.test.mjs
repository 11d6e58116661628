// The npm README's TypeScript notes are true (issue 15 item 4), checked with the small
// tsconfigs of tests/ts against the built declarations: under `moduleResolution: "bundler"`
// the web declarations compile with `"dom"` and fail without it, and the `.wasm` URL import
// compiles with the `declare module "*.wasm"` the README gives.
import { test } from "node:test";
import assert from "node:assert/strict";
import { spawnSync } from "node:child_process";
import { resolve } from "node:path";
import { root } from "./helpers.mjs";

const tsc = resolve(root, "node_modules/typescript/bin/tsc");
const check = (config) => {
  const r = spawnSync(process.execPath, [tsc, "-p", resolve(root, "tests/ts", config)], { cwd: root, encoding: "utf8" });
  return { status: r.status, out: `${r.stdout}${r.stderr}` };
};

test("bundler resolution: the web declarations with \"dom\", and the .wasm URL import with its declaration", () => {
  const r = check("tsconfig.web.json");
  assert.equal(r.status, 0, r.out);
});

test("bundler resolution without \"dom\": the web declarations do not compile (the README says to add it)", () => {
  const r = check("tsconfig.web-nodom.json");
  assert.notEqual(r.status, 0);
  assert.match(r.out, /delegate_context\.d\.ts\(\d+,\d+\): error TS2304: Cannot find name '(RequestInfo|Response|AbortSignal)'/);
});

test("bundler resolution with @types/node but no \"dom\": the web declarations still do not compile", () => {
  const r = check("tsconfig.web-nodetypes.json");
  assert.notEqual(r.status, 0);
  assert.match(r.out, /delegate_context\.d\.ts\(\d+,\d+\): error TS\d+: Cannot find (name|namespace) '(RequestInfo|BufferSource|WebAssembly)'/);
});
