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
RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet   # every doc link resolves

# The boundary tests are one test binary (tests/wasm/): built once per runner, the
# runner started once (the native-only test files are not built for wasm at all).
step "boundary: wasm-pack test --node"
wasm-pack test --node -- --test wasm

step "boundary: wasm-pack test --headless --chrome"
# WASM_BINDGEN_USE_BROWSER runs the same tests in Chromium (they are not configured
# run_in_browser, so that --node runs them too); a run that executed no browser test
# fails. Chromium sometimes never finishes loading the test page ("Loading scripts...",
# then chromedriver: "Timed out receiving message from renderer" after 300 s), even on
# an idle machine and twice in a row; that failure, and only it, is retried, up to three
# attempts in all (a rehearsal on a clean clone hung twice, then passed in 5 s).
chrome() { WASM_BINDGEN_USE_BROWSER=1 wasm-pack test --headless --chrome -- --test wasm 2>&1 | tee target/chrome-tests.log; }
for attempt in 1 2 3; do
  chrome && break
  grep -q "Timed out receiving message from renderer" target/chrome-tests.log || exit 1
  [ "$attempt" -lt 3 ] || exit 1
  echo "Chromium did not load the test page (attempt $attempt); retrying"
done
grep -q "test result: ok" target/chrome-tests.log || { echo "no test ran in Chrome"; exit 1; }

step "package: wasm-pack build (node + web)"
bash scripts/build-pkg.sh

step "package: node --test tests/js"
node --test --test-concurrency=1 tests/js/

step "types: tsc --noEmit against the generated .d.ts"
node_modules/.bin/tsc -p tests/ts/tsconfig.json     # our .d.ts, skipLibCheck false
node_modules/.bin/tsc -p tests/ts/tsconfig.pi.json  # pi-agent-core's own types accepted

step "done: all layers passed"
