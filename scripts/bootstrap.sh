#!/usr/bin/env bash
# Installs everything the build and the tests need on a fresh machine of this kind
# (Debian 12, rustup, Node 20, npm), idempotently: a second run skips what is there.
# Facts behind each step: ../shared/docs/toolchain.md.
set -euo pipefail
cd "$(dirname "$0")/.."
log() { printf '[bootstrap] %s\n' "$*"; }
export PATH="$HOME/.cargo/bin:$PATH"

# 1. the wasm target
if ! rustup target list --installed | grep -qx wasm32-unknown-unknown; then
  log "adding wasm32-unknown-unknown"; rustup target add wasm32-unknown-unknown
fi

# 2. wasm-pack, pinned
if ! command -v wasm-pack >/dev/null || [ "$(wasm-pack --version)" != "wasm-pack 0.15.1" ]; then
  log "installing wasm-pack 0.15.1"; cargo install wasm-pack --version 0.15.1 --locked
fi

# 3. wasm-bindgen-cli of exactly the lockfile's wasm-bindgen (without --locked: see toolchain.md)
WB=$(cargo pkgid wasm-bindgen | sed 's/.*@//')
if ! command -v wasm-bindgen >/dev/null || [ "$(wasm-bindgen --version | awk '{print $2}')" != "$WB" ]; then
  log "installing wasm-bindgen-cli $WB"; cargo install wasm-bindgen-cli --version "=$WB" --force
fi

# 4. Debian chromium for the headless tests, driven by playwright-core (never Debian's binaryen)
if [ ! -x /usr/bin/chromium ]; then
  log "installing chromium"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
fi
# 5. Debian firefox-esr + geckodriver (crates.io, pinned) for the boundary tests in Firefox
if [ ! -x /usr/bin/firefox-esr ]; then
  log "installing firefox-esr"
  apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq firefox-esr >/dev/null
fi
# (its version read whole, then its first line: `geckodriver --version | head -1` closes the
# pipe while geckodriver still writes, and its println! panics on the broken pipe)
gecko_version() { local v; v=$(geckodriver --version 2>/dev/null) || true; printf '%s\n' "${v%%$'\n'*}"; }
if ! command -v geckodriver >/dev/null || [ "$(gecko_version | awk '{print $2}')" != "0.37.1" ]; then
  log "installing geckodriver 0.37.1"; cargo install geckodriver --version 0.37.1 --locked
fi
if [ -x /usr/bin/wasm-opt ]; then
  log "WARNING: /usr/bin/wasm-opt (Debian binaryen) is present and breaks builds; npm binaryen is put first on PATH"
fi

# 6. npm dev dependencies (pi-agent-core reference, binaryen's wasm-opt, typescript, playwright-core)
if [ ! -f node_modules/.package-lock.json ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
  log "npm ci"; npm ci --no-audit --no-fund --loglevel=error
fi
log "toolchain ready: $(wasm-pack --version), wasm-bindgen $WB, $(node_modules/.bin/wasm-opt --version | head -1), $(gecko_version), $(firefox-esr --version 2>/dev/null | tail -1)"
