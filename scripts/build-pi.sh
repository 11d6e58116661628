#!/usr/bin/env bash
# Builds delegate-context/pi (pi/index.ts) into pkg/pi: index.mjs (ES module), index.cjs
# (CommonJS), index.d.mts / index.d.cts (declarations). Needs pkg/node's declarations
# (scripts/build-pkg.sh runs it after wasm-pack). Fails on a type error.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf pkg/pi
external=(--external:delegate-context --external:@earendil-works/pi-agent-core --external:@earendil-works/pi-ai)
node node_modules/esbuild/bin/esbuild pi/index.ts --format=esm --platform=neutral --target=es2022 --outfile=pkg/pi/index.mjs "${external[@]}" --log-level=warning
node node_modules/esbuild/bin/esbuild pi/index.ts --format=cjs --platform=node --target=es2022 --outfile=pkg/pi/index.cjs "${external[@]}" --log-level=warning
node node_modules/typescript/bin/tsc -p pi/tsconfig.json
mv pkg/pi/index.d.ts pkg/pi/index.d.mts
cp pkg/pi/index.d.mts pkg/pi/index.d.cts
