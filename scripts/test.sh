#!/usr/bin/env bash
# Runs every test of the project and fails if any fails. Installs what it needs first
# (scripts/bootstrap.sh, idempotent). Layers:
#   1. native: cargo test (unit, table, property tests of the pure core)
#   2. boundary: wasm-pack test --node, wasm-pack test --headless --chrome
#   3. package: wasm-pack build (release) → node --test over the built package
#      (differential tests against pi-agent-core, README examples, the real pi Agent),
#      tsc --noEmit against the generated .d.ts, and the www/ page in headless Chromium.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
source scripts/env.sh
start=$(date +%s)
step() { printf '\n=== %s (%ss)\n' "$*" "$(( $(date +%s) - start ))"; }

step "native: cargo test"
cargo test --quiet

step "boundary: wasm-pack test --node"
wasm-pack test --node

step "boundary: wasm-pack test --headless --chrome"
# WASM_BINDGEN_USE_BROWSER runs the same tests/wasm_*.rs in Chromium (they are not
# configured run_in_browser, so that --node runs them too); a run that executed no
# browser test fails.
WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome 2>&1 | tee target/chrome-tests.log
grep -q "Running headless tests in Chrome" target/chrome-tests.log || { echo "no test ran in Chrome"; exit 1; }

step "package: wasm-pack build (node + web)"
bash scripts/build-pkg.sh

step "package: node --test tests/js"
node --test --test-concurrency=1 tests/js/

step "types: tsc --noEmit against the generated .d.ts"
node_modules/.bin/tsc -p tests/ts/tsconfig.json     # our .d.ts, skipLibCheck false
node_modules/.bin/tsc -p tests/ts/tsconfig.pi.json  # pi-agent-core's own types accepted

step "done: all layers passed"
