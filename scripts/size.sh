#!/usr/bin/env bash
# Where the .wasm's bytes go (issue 17 §7). Builds the release module the way the package
# does (cargo release + wasm-bindgen + wasm-opt with the package's flags, from Cargo.toml),
# prints its size (raw and gzip -9, the measure of scripts/build-pkg.sh), then twiggy's
# tables on the same module optimised with its names kept (wasm-opt -g): the top items,
# the monomorphised generics, and the bytes per crate.
#
#   bash scripts/size.sh          # top 40 items, top 20 monomorphisations, crates
#   bash scripts/size.sh 80       # top 80 items
#
# A dev tool, not a test; installs twiggy into ~/.cargo/bin once. Uses target/size/.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
top=${1:-40}
command -v twiggy >/dev/null || cargo install --locked twiggy
out=target/size
mkdir -p "$out"
cargo build --release --lib --target wasm32-unknown-unknown --quiet
wasm-bindgen --target web --out-dir "$out" --out-name m target/wasm32-unknown-unknown/release/delegate_context.wasm
flags=(-O3 --enable-bulk-memory --enable-nontrapping-float-to-int)
wasm-opt "${flags[@]}" "$out/m_bg.wasm" -o "$out/shipped.wasm"
wasm-opt "${flags[@]}" -g "$out/m_bg.wasm" -o "$out/named.wasm"
node -e '
const b = require("fs").readFileSync(process.argv[1]);
const gz = require("zlib").gzipSync(b, { level: 9 }).length;
console.log(`wasm ${b.length.toLocaleString("en-US")} bytes raw, ${gz.toLocaleString("en-US")} bytes gzip -9`);' "$out/shipped.wasm"
echo "=== top $top (twiggy top, names kept)"
twiggy top -n "$top" "$out/named.wasm"
echo "=== monomorphisations (twiggy monos)"
twiggy monos -m 20 -n 3 "$out/named.wasm"
echo "=== by crate (sum of items whose name begins with the crate; generics counted where instantiated)"
twiggy top -n 100000 -f csv "$out/named.wasm" | node -e '
const rows = require("fs").readFileSync(0, "utf8").trim().split("\n").slice(1);
const by = new Map();
for (const line of rows) {
  const m = line.match(/^(?:"((?:[^"]|"")*)"|([^,]*)),(\d+),/);
  if (!m) continue;
  const name = (m[1] ?? m[2]).replace(/""/g, "\"");
  const size = +m[3];
  let k = name.match(/^data\[/) ? "data" : name.match(/^(?:<)?(?:&)?(?:mut )?([a-z_][a-z0-9_]*)::/)?.[1] ?? (name.startsWith("<") ? "<impl>" : "other");
  by.set(k, (by.get(k) ?? 0) + size);
}
for (const [k, v] of [...by].sort((a, b) => b[1] - a[1]).slice(0, 25)) console.log(`${String(v).padStart(9)}  ${k}`);'
