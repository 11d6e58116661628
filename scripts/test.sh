#!/usr/bin/env bash
# Runs every test of the project and fails if any fails. Installs what it needs first
# (scripts/bootstrap.sh, idempotent). Layers:
#   1. native: cargo test (unit, table, property tests of the pure core), cargo doc,
#      cargo clippy of the wasm32 build (the module's conventions: clippy.toml)
#   2. boundary: the tests/wasm/ binary, built once, run in Node, headless Chromium and
#      headless Firefox; a runtime where no test ran fails
#   3. package: wasm-pack build (release) → node --test over the built package
#      (differential tests against pi-agent-core, README examples, the real pi Agent,
#      the www/ page in headless Chromium), tsc --noEmit against the generated .d.ts.
#
# Deterministic: every property test runs the fixed seed below (proptest's
# PROPTEST_RNG_SEED), after the failures saved in tests/*.proptest-regressions;
# scripts/explore.sh looks for new failures with fresh seeds and more cases.
#
# Order, on 2 cores: two lanes side by side on separate cargo build directories (neither
# waits for the other's lock): the Rust lane (native tests and docs, then the boundary
# binary) and the package lane (the release build, whose LTO and wasm-opt steps use one
# core, then tsc). Then node --test runs with no build beside it, two test files at a time
# (each file is its own process; no test asserts a time, only hang guards, and files write
# to separate directories), the two browser runs of the boundary binary beside it (they
# mostly wait).
# A background layer's output is printed whole when it ends; every layer's time is in
# the table at the end.
set -euo pipefail
cd "$(dirname "$0")/.."
export PROPTEST_RNG_SEED=${PROPTEST_RNG_SEED:-20261201}
t0=$(date +%s)
logs=target/test-logs
mkdir -p "$logs"
: >"$logs/times.tsv"

# layer NAME CMD...: runs CMD; its time and result go to the table.
layer() {
  local name=$1 s rc=0
  shift
  s=$(date +%s)
  printf '\n=== %s (at %ss)\n' "$name" "$((s - t0))"
  "$@" || rc=$?
  printf '%s\t%s\t%s\n' "$name" "$(($(date +%s) - s))" "$([ $rc -eq 0 ] && echo ok || echo "FAILED ($rc)")" >>"$logs/times.tsv"
  return $rc
}
summary() {
  printf '\n=== layer times (%s, %ss wall in all)\n' "$1" "$(($(date +%s) - t0))"
  printf '%-52s %7s  %s\n' layer seconds result
  while IFS=$'\t' read -r name secs result; do
    printf '%-52s %7s  %s\n' "$name" "$secs" "$result"
  done <"$logs/times.tsv"
}

# Background layers: `bg NAME FUNCTION` starts one in its own process group (so that a
# failure elsewhere stops it with everything it started), `await NAME` prints its log.
declare -A pids=()
bg() {
  set -m
  "$2" >"$logs/$1.log" 2>&1 &
  pids[$1]=$!
  set +m
}
await() {
  local rc=0
  wait "${pids[$1]}" || rc=$?
  unset "pids[$1]"
  printf '\n===== %s (log: %s)\n' "$1" "$logs/$1.log"
  cat "$logs/$1.log"
  return $rc
}
finish() {
  local rc=$? p
  for p in "${pids[@]}"; do kill -- "-$p" 2>/dev/null || true; done
  if [ $rc -eq 0 ]; then
    summary "all layers passed"
  else
    summary "FAILED"
  fi
  exit $rc
}
trap finish EXIT

layer "bootstrap (install what is missing)" bash scripts/bootstrap.sh
source scripts/env.sh

# --- the boundary binary ---------------------------------------------------------------
# What `wasm-pack test --node|--headless --chrome|--headless --firefox --features
# boundary-tests -- --test wasm` runs (the feature: Cargo.toml says why),
# without its `cargo build --tests` step (that step also compiles the library's own unit
# tests for wasm, which nothing runs there): cargo test with the wasm-bindgen test runner.
# WASM_BINDGEN_USE_BROWSER runs the node-configured tests in a browser (they are not
# run_in_browser, so that Node runs them too). Every runtime runs the glue the package
# ships: the runner's generated glue patched by scripts/glue-patch.cjs, as build-pkg.sh
# patches the package's (issue 17 §6); a runtime whose output does not say so fails.
# The glue in its release shape, as the package's (the runner's default is wasm-bindgen's
# debug glue, which checks for a freed handle in JavaScript before the call).
runner=$(command -v wasm-bindgen-test-runner)
export CARGO_TARGET_WASM32_UNKNOWN_UNKNOWN_RUNNER=$runner WASM_BINDGEN_NO_DEBUG=1
# (no --quiet: cargo hands it to the runner, which refuses it)
boundary() { # boundary RUNTIME: run the binary there; fails unless a test ran and all passed
  local out="$logs/boundary-$1.out" rc=0
  case $1 in
    # the runner's Node process loads its glue through the hook, which patches it
    node) NODE_ARGS=--require=$PWD/scripts/boundary-glue-hook.cjs WASM_BINDGEN_TEST_ONLY_NODE=1 \
      cargo test --target wasm32-unknown-unknown --features boundary-tests --test wasm >"$out" 2>&1 || rc=$? ;;
    # the runner serves the page, the script patches the glue and opens it (it says why)
    chrome|firefox) node scripts/boundary-browser.mjs "$1" >"$out" 2>&1 || rc=$? ;;
  esac
  cat "$out"
  [ $rc -eq 0 ] || return $rc
  grep -Eq "test result: ok\. [1-9][0-9]* passed" "$out" || { echo "no boundary test ran in $1"; return 1; }
  grep -q "boundary: the glue is patched as the package's" "$out" || { echo "the boundary tests in $1 did not run the package's glue"; return 1; }
}
# --- lanes ---------------------------------------------------------------------------
rust_lane() {
  layer "native: cargo test" cargo test --quiet
  layer "native: cargo doc (every doc link resolves)" env RUSTDOCFLAGS="-D warnings" cargo doc --no-deps --quiet
  # the module's conventions (clippy.toml, src/lib.rs: text built out of line, slices
  # without a panic path), checked in the build users get
  layer "native: cargo clippy (wasm32: the module's conventions)" cargo clippy --quiet --target wasm32-unknown-unknown -- -D warnings
  # tests/wasm/ is one test binary; the native-only test files are not built for wasm
  layer "boundary: build the wasm test binary" cargo test --quiet --target wasm32-unknown-unknown --features boundary-tests --test wasm --no-run
  layer "boundary: Node" boundary node
}
package_lane() {
  # its own build directory: the release build does not wait for the Rust lane's lock
  export CARGO_TARGET_DIR=$PWD/target/pkg-build
  layer "package: wasm-pack build (node + web, release)" bash scripts/build-pkg.sh
  layer "types: tsc --noEmit against the generated .d.ts" types
}
types() {
  node_modules/.bin/tsc -p tests/ts/tsconfig.json    # our .d.ts, skipLibCheck false
  node_modules/.bin/tsc -p tests/ts/tsconfig.pi.json # pi-agent-core's own types accepted
  node_modules/.bin/tsc -p tests/ts/tsconfig.host-js.json # src/wasm/host.js, the binding's JavaScript
  node_modules/.bin/tsc -p tests/ts/tsconfig.ai.json # delegate-context/ai against the AI SDK's own types, skipLibCheck false
}
chrome_lane() { layer "boundary: headless Chromium" boundary chrome; }
firefox_lane() { layer "boundary: headless Firefox" boundary firefox; }

bg package package_lane
rust_lane
await package

bg boundary-chrome chrome_lane
bg boundary-firefox firefox_lane
layer "package: node --test tests/js" node --test --test-concurrency=2 tests/js/
await boundary-chrome
await boundary-firefox
