// Every ```js example in README.md and the npm README (pkg-template/README.md) runs as
// a test against the built package: `from "delegate-context"` is pointed at pkg/node.
// The web build's examples run too: `await init()` is given the wasm bytes.
import test from "node:test";
import assert from "node:assert/strict";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { root } from "./helpers.mjs";

const tmp = resolve(root, "tests/js/.tmp");
mkdirSync(tmp, { recursive: true });
const entry = pathToFileURL(resolve(root, "pkg/node/delegate_context.js")).href;
const webEntry = pathToFileURL(resolve(root, "pkg/web/delegate_context.js")).href;
const webWasm = resolve(root, "pkg/web/delegate_context_bg.wasm");

for (const file of ["README.md", "pkg-template/README.md"]) {
  const text = readFileSync(resolve(root, file), "utf8");
  const blocks = [...text.matchAll(/```js\n([\s\S]*?)```/g)].map((m) => m[1]);
  test(`${file} has runnable examples`, () => assert.ok(blocks.length > 0));
  blocks.forEach((code, i) => {
    test(`${file} example ${i + 1}`, async () => {
      // the web build runs in Node too, given the wasm bytes instead of a fetch
      const src = code
        .replaceAll(/from "delegate-context(?:\/node)?"/g, `from ${JSON.stringify(entry)}`)
        .replaceAll('from "delegate-context/web"', `from ${JSON.stringify(webEntry)}`)
        .replaceAll("await init();", `await init({ module_or_path: (await import("node:fs")).readFileSync(${JSON.stringify(webWasm)}) });`);
      const out = resolve(tmp, `${file.replaceAll(/[^a-z]/gi, "_")}-${i + 1}.mjs`);
      writeFileSync(out, src);
      await import(pathToFileURL(out).href);
    });
  });
}
