#!/usr/bin/env bash
# Explores the property tests with fresh seeds and more cases, for a bounded time. The test
# command (scripts/test.sh) runs every property with one fixed seed, so it answers the same
# on every run; this command looks for new failures instead.
#
#   bash scripts/explore.sh [SECONDS] [TEST_FILE...]
#
# SECONDS: the time budget (default 600); the run in progress when it ends is stopped and
# does not count. TEST_FILE: the property files (tests/NAME.rs) to explore, by NAME
# (default: every file under tests/ that uses proptest). Each round runs every file once
# with a fresh seed (printed) and PROPTEST_CASES cases (default 20000; the files that fix
# their own count run that many per round). A failure stops the command with the seed
# that reproduces it; proptest has then saved the shrunk case in
# tests/NAME.proptest-regressions, which the test command replays first: commit it, with
# a plain #[test] of the case where it found a bug.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
budget=${1:-600}
shift || true
files=("$@")
if [ ${#files[@]} -eq 0 ]; then
  for f in $(grep -l "use proptest" tests/*.rs); do files+=("$(basename "$f" .rs)"); done
fi
cases=${PROPTEST_CASES:-20000}
# build once, then run the test binaries themselves (a time limit then stops the test,
# not cargo in front of it)
declare -A bin
for f in "${files[@]}"; do
  bin[$f]=$(cargo test --quiet --no-run --test "$f" --message-format=json 2>/dev/null |
    sed -n 's/.*"executable":"\([^"]*\)".*/\1/p' | tail -1)
  [ -x "${bin[$f]}" ] || { echo "explore: no test binary for tests/$f.rs"; exit 1; }
done
start=$(date +%s)
deadline=$((start + budget))
round=0
runs=0
while [ "$(date +%s)" -lt "$deadline" ]; do
  round=$((round + 1))
  for f in "${files[@]}"; do
    left=$((deadline - $(date +%s)))
    [ "$left" -gt 0 ] || break
    seed=$(od -An -N8 -tu8 /dev/urandom | tr -d ' ')
    printf 'explore: round %d, tests/%s.rs, PROPTEST_RNG_SEED=%s PROPTEST_CASES=%s\n' "$round" "$f" "$seed" "$cases"
    set +e
    PROPTEST_RNG_SEED=$seed PROPTEST_CASES=$cases timeout "$left" "${bin[$f]}" --quiet >target/explore.log 2>&1
    rc=$?
    set -e
    if [ "$rc" -eq 124 ]; then
      echo "explore: time is up (the run in progress was stopped)"
      break 2
    elif [ "$rc" -ne 0 ]; then
      tail -n 40 target/explore.log
      printf '\nexplore: FAILED. Reproduce: PROPTEST_RNG_SEED=%s PROPTEST_CASES=%s cargo test --test %s\n' "$seed" "$cases" "$f"
      ls tests/*.proptest-regressions 2>/dev/null | sed 's/^/explore: regressions saved in /'
      exit 1
    fi
    runs=$((runs + 1))
  done
done
echo "explore: $runs runs in $(($(date +%s) - start)) s, no failure"
