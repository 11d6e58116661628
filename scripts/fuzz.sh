#!/usr/bin/env bash
# Fuzz the core with cargo-fuzz (libFuzzer). Needs nightly Rust and cargo-fuzz, which this
# script installs when missing (idempotent); the normal build and tests never need them.
#
#   scripts/fuzz.sh TARGET [SECONDS] [libFuzzer flags...]   run one target (default 60 s)
#   scripts/fuzz.sh all [SECONDS]                           run every target, one after another
#   scripts/fuzz.sh cmin TARGET                             minimize TARGET's corpus in place
#                                                           (one input per new edge)
#   scripts/fuzz.sh list                                    the targets
#
# Runs are niced and capped (-rss_limit_mb=4096). The library has no unsafe code, so runs
# skip AddressSanitizer (several times faster); FUZZ_SANITIZER=address turns it back on.
# The corpus grows in fuzz/corpus/TARGET; a crash is written to fuzz/artifacts/TARGET/
# (fuzz/README.md says how to reproduce it and add it to the committed corpus).
# Targets: message_facts transcript_rows budget turn_boundary registry_ops.
set -euo pipefail
cd "$(dirname "$0")/.."
TARGETS=(message_facts transcript_rows budget turn_boundary registry_ops)

ensure_tools() {
    if ! rustup toolchain list | grep -q '^nightly'; then
        rustup toolchain install nightly --profile minimal
    fi
    if ! cargo +nightly fuzz --version >/dev/null 2>&1; then
        cargo install cargo-fuzz --locked || cargo install cargo-fuzz
    fi
}

run_target() {
    local target=$1 seconds=$2
    shift 2
    mkdir -p "fuzz/corpus/$target"
    echo "=== fuzz $target for ${seconds}s"
    (cd fuzz && nice -n 19 cargo +nightly fuzz run -O -s "${FUZZ_SANITIZER:-none}" "$target" -- \
        -max_total_time="$seconds" -rss_limit_mb=4096 -timeout=60 -print_final_stats=1 "$@")
}

case "${1:-}" in
    "" | -h | --help)
        sed -n '2,14p' "$0"
        exit 0
        ;;
    list)
        printf '%s\n' "${TARGETS[@]}"
        ;;
    all)
        ensure_tools
        for t in "${TARGETS[@]}"; do
            run_target "$t" "${2:-60}"
        done
        ;;
    cmin)
        ensure_tools
        target=${2:?usage: scripts/fuzz.sh cmin TARGET}
        (cd fuzz && nice -n 19 cargo +nightly fuzz cmin -O -s "${FUZZ_SANITIZER:-none}" "$target" -- -rss_limit_mb=4096 -timeout=60 -use_counters=0)
        ;;
    *)
        target=$1
        if [[ ! " ${TARGETS[*]} " == *" $target "* ]]; then
            echo "unknown target $target (one of: ${TARGETS[*]})" >&2
            exit 2
        fi
        ensure_tools
        seconds=${2:-60}
        shift $(($# >= 2 ? 2 : 1))
        run_target "$target" "$seconds" "$@"
        ;;
esac
