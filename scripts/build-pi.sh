#!/usr/bin/env bash
# Builds delegate-context/pi (pi/index.ts) into pkg/pi: index.mjs (ES module), index.cjs
# (CommonJS), index.d.mts / index.d.cts (declarations); one file, transformed, its imports
# left as they are (not bundled). Needs pkg/node's declarations
# (scripts/build-pkg.sh runs it after wasm-pack). Fails on a type error.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf pkg/pi
node_modules/.bin/esbuild pi/index.ts --format=esm --platform=neutral --target=es2022 --outfile=pkg/pi/index.mjs --log-level=warning
node_modules/.bin/esbuild pi/index.ts --format=cjs --platform=node --target=es2022 --outfile=pkg/pi/index.cjs --log-level=warning
node node_modules/typescript/bin/tsc -p pi/tsconfig.json
mv pkg/pi/index.d.ts pkg/pi/index.d.mts
cp pkg/pi/index.d.mts pkg/pi/index.d.cts
