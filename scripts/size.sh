#!/usr/bin/env bash
# Where the .wasm's bytes go (issue 17 §7). Builds the release module the way the package
# does (cargo release + wasm-bindgen + wasm-opt with the package's flags, from Cargo.toml),
# prints its size (raw and gzip -9, the measure of scripts/build-pkg.sh), then twiggy's
# tables on the same module optimised with its names kept (wasm-opt -g): the top items,
# the monomorphised generics, and the bytes per crate.
#
#   bash scripts/size.sh          # top 40 items, top 20 monomorphisations, crates
#   bash scripts/size.sh 80       # top 80 items
#   bash scripts/size.sh 40 X.wasm  # the tables of a module built before (names kept), no build
#
# A dev tool, not a test; installs twiggy into ~/.cargo/bin once. Uses target/size/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
top=${1:-40}
command -v twiggy >/dev/null || cargo install --locked twiggy
out=target/size
named=${2:-}
if [ -z "$named" ]; then
  mkdir -p "$out"
  cargo build --release --lib --target wasm32-unknown-unknown --quiet
  wasm-bindgen --target web --out-dir "$out" --out-name m target/wasm32-unknown-unknown/release/delegate_context.wasm
  flags=(-O3 --enable-bulk-memory --enable-nontrapping-float-to-int)
  wasm-opt "${flags[@]}" "$out/m_bg.wasm" -o "$out/shipped.wasm"
  wasm-opt "${flags[@]}" -g "$out/m_bg.wasm" -o "$out/named.wasm"
  named=$out/named.wasm
  node -e '
const b = require("fs").readFileSync(process.argv[1]);
const gz = require("zlib").gzipSync(b, { level: 9 }).length;
console.log(`wasm ${b.length.toLocaleString("en-US")} bytes raw, ${gz.toLocaleString("en-US")} bytes gzip -9`);' "$out/shipped.wasm"
fi
echo "=== top $top (twiggy top, names kept)"
twiggy top -n "$top" "$named"
echo "=== monomorphisations (twiggy monos)"
twiggy monos -m 20 -n 3 "$named"
echo "=== by crate, and by module of ours (shallow bytes; a generic counted where it was instantiated; export shims hold each export's body as wasm-opt inlined it)"
twiggy top -n 100000 -f csv "$named" | node -e '
const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").slice(1);
const by = new Map();
for (const line of rows) {
  const m = line.match(/^(?:"((?:[^"]|"")*)"|([^,]*)),(\d+),/);
  if (!m) continue;
  const name = (m[1] ?? m[2]).replace(/""/g, "\"");
  if (/names" subsection/.test(name)) continue; // not shipped: the build strips names
  let k;
  if (name.startsWith("data segment")) k = "data";
  else if (/ shim/.test(name)) k = "export shims";
  else {
    k = name.match(/([a-z_][a-z0-9_]*)(?:\[[0-9a-f]+\])?::/)?.[1] ?? "other";
    if (k === "delegate_context") k = "ours::" + (name.match(/delegate_context::([a-z_]+)/)?.[1] ?? "?");
  }
  by.set(k, (by.get(k) ?? 0) + +m[3]);
}
for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 30)) console.log(`${String(v).padStart(9)}  ${k}`);'
