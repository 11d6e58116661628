#!/usr/bin/env bash
# Builds the npm package into pkg/: pkg/node (CommonJS, synchronous, for Node and
# Electron main), pkg/web (ES module + init(), for browsers and Electron renderers),
# plus what wasm-pack's output lacks (pkg-template/: package.json, README, LICENSE).
# Fails when wasm-pack fails (it may write an unoptimised pkg/ and still exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
profile=${1:---release}
rm -rf pkg
for target in nodejs web; do
  dir=$([ "$target" = nodejs ] && echo node || echo web)
  wasm-pack build "$profile" --target "$target" --out-dir "pkg/$dir" --out-name delegate_context --no-pack >/dev/null 2>pkg.$dir.log || { cat pkg.$dir.log; exit 1; }
  rm -f "pkg/$dir/.gitignore" "pkg/$dir/package.json" "pkg/$dir/README.md" "pkg/$dir/LICENSE" pkg.$dir.log
done
cp -r pkg-template/. pkg/
# the complete pi host the npm README links to ships in the package (its test runs this copy)
mkdir -p pkg/examples/pi-host
cp examples/pi-host/host.ts examples/pi-host/world.ts examples/pi-host/package.json examples/pi-host/tsconfig.*.json pkg/examples/pi-host/
mkdir -p pkg/examples/ai-sdk
cp examples/ai-sdk/host.ts examples/ai-sdk/world.ts examples/ai-sdk/package.json examples/ai-sdk/tsconfig.json pkg/examples/ai-sdk/
# wasm-bindgen writes `[Symbol.dispose](): void` into the classes of the .d.ts; a project
# whose lib lacks esnext.disposable (e.g. ["es2022", "dom"], skipLibCheck false) fails on
# it with TS2550. The declarations pull that lib in themselves (TypeScript >= 5.2).
for dts in pkg/node/delegate_context.d.ts pkg/web/delegate_context.d.ts; do
  { echo '/// <reference lib="esnext.disposable" />'; cat "$dts"; } > "$dts.tmp" && mv "$dts.tmp" "$dts"
done
# pkg/node loads on Node 18 and older Electron too: its snippets rewritten to CommonJS
# (wasm-bindgen issue #1525; the script says why).
node scripts/cjs-snippets.mjs pkg/node
# strings cross into wasm with one encodeInto, and a freed handle answers INVALID_STATE
# like any other error (the script says how)
node scripts/patch-glue.mjs pkg/node/delegate_context.js pkg/web/delegate_context.js
# delegate-context/pi, the runner over pi's Agent (pi/index.ts): ESM and CommonJS, its
# imports (this package by its own name, pi-agent-core and pi-ai, optional peers) left as
# imports; its declarations from tsc, one copy per module format.
bash scripts/build-pi.sh
# delegate-context/ai, the same delegate for the Vercel AI SDK 7 (ai/index.ts): ESM only
bash scripts/build-ai.sh
node -e 'const p=require("./pkg/package.json");p.version=require("child_process").execSync("cargo pkgid").toString().trim().split(/[@#]/).pop();require("fs").writeFileSync("pkg/package.json",JSON.stringify(p,null,2)+"\n")'
node -e '
const b = require("fs").readFileSync("pkg/web/delegate_context_bg.wasm");
const gz = require("zlib").gzipSync(b, { level: 9 }).length;
console.log(`built pkg/: wasm ${b.length.toLocaleString("en-US")} bytes raw, ${gz.toLocaleString("en-US")} bytes gzip -9`);'
