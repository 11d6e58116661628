#!/usr/bin/env bash
# Builds delegate-context/ai (ai/index.ts) into pkg/ai: index.mjs (ES module: the AI SDK 7
# is ES modules only) and index.d.mts; one file, transformed, its imports (this package by
# its own name, `ai`) left as they are. Needs pkg/node's declarations (build-pkg.sh runs it
# after wasm-pack). Fails on a type error.
set -euo pipefail
cd "$(dirname "$0")/.."
rm -rf pkg/ai
node_modules/.bin/esbuild ai/index.ts --format=esm --platform=neutral --target=es2022 --outfile=pkg/ai/index.mjs --log-level=warning
node node_modules/typescript/bin/tsc -p ai/tsconfig.json
mv pkg/ai/index.d.ts pkg/ai/index.d.mts
