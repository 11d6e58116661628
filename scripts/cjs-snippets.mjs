// The nodejs target require()s wasm-bindgen's inline_js snippets, but they keep ES module
// syntax (wasm-bindgen issue #1525): only a Node with require(esm) (20.19+, 22.12+) loads
// them, not Node 18 or the Node of older Electron releases. Rewrites the snippets of a
// nodejs-target directory to CommonJS, and marks the directory CommonJS.
//
//   node scripts/cjs-snippets.mjs DIR
import { readFileSync, readdirSync, writeFileSync, existsSync } from "node:fs";
import { join } from "node:path";

const dir = process.argv[2];
const files = (d) => readdirSync(d, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? files(join(d, e.name)) : e.name.endsWith(".js") ? [join(d, e.name)] : []));
const snippets = join(dir, "snippets");
for (const f of existsSync(snippets) ? files(snippets) : []) {
  const names = [];
  const s = readFileSync(f, "utf8").replace(/^export (async function|function|const|let|class) ([A-Za-z_$][\w$]*)/gm, (_, kind, name) => (names.push(name), `${kind} ${name}`));
  if (/^\s*(import|export)\b/m.test(s)) throw new Error(`${f}: ES module syntax the CommonJS rewrite does not handle`);
  writeFileSync(f, `${s}\n${names.map((n) => `module.exports.${n} = ${n};`).join("\n")}\n`);
}
writeFileSync(join(dir, "package.json"), JSON.stringify({ type: "commonjs" }) + "\n");
