// Every ```js example in README.md and the npm README (pkg-template/README.md) runs as
// a test against the built package: `from "delegate-context"` is pointed at pkg/node.
// A block fenced as ```js no-test is shown but not run (browser-only snippets).
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./helpers.mjs";

const tmp = resolve(root, "tests/js/.tmp");
mkdirSync(tmp, { recursive: true });
const entry = pathToFileURL(resolve(root, "pkg/node/delegate_context.js")).href;

for (const file of ["README.md", "pkg-template/README.md"]) {
  const text = readFileSync(resolve(root, file), "utf8");
  const blocks = [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  test(`${file} has runnable examples`, () => assert.ok(blocks.length > 0));
  blocks.forEach((code, i) => {
    test(`${file} example ${i + 1}`, async () => {
      const src = code.replaceAll(/from "delegate-context(?:\/node)?"/g, `from ${JSON.stringify(entry)}`);
      assert.ok(!/from "delegate-context\/web"/.test(src), "web examples must be fenced no-test");
      const out = resolve(tmp, `${file.replaceAll(/[^a-z]/gi, "_")}-${i + 1}.mjs`);
      writeFileSync(out, src);
      await import(pathToFileURL(out).href);
    });
  });
}
