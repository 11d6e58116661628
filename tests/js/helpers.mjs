// Shared helpers of the JS suites: the built package, and the real pi sessions of
// ../shared/fixtures/pi-sessions (never copied into this repository).
import { createRequire } from "node:module";
import { existsSync, readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "../..");
const require = createRequire(import.meta.url);

/** The built package (Node entry), as a user gets it from `require("delegate-context")`. */
export const dc = require(resolve(root, "pkg/node/delegate_context.js"));

export const fixturesDir = resolve(root, "../shared/fixtures/pi-sessions");
export const SESSION_FILES = ["large-session.jsonl", "before-compaction.jsonl"];

/**
 * The AgentMessage[] of a real session, or null (with a printed notice) when the
 * fixtures are absent. Under CI (CI=true) a missing fixture throws: the run must fail.
 */
export function loadSessionMessages(file) {
  const p = resolve(fixturesDir, file);
  if (!existsSync(p)) {
    if (process.env.CI === "true") throw new Error(`fixture missing under CI: ${p}`);
    console.log(`# SKIP: fixture ${p} is absent; differential test skipped`);
    return null;
  }
  return readFileSync(p, "utf8")
    .split("\n")
    .filter((l) => l.trim())
    .map((l) => JSON.parse(l))
    .filter((e) => e.type === "message")
    .map((e) => e.message);
}

/** Assert `fn` throws a DelegateContextError with `code` (and `path` when given). */
export function expectCode(assert, fn, code, path) {
  let thrown;
  try {
    fn();
  } catch (e) {
    thrown = e;
  }
  assert.ok(thrown instanceof Error, `expected an Error with code ${code}, got ${thrown}`);
  assert.equal(thrown.code, code, thrown.message);
  if (path !== undefined) assert.equal(thrown.path, path, thrown.message);
  return thrown;
}
