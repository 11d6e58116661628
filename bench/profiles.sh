#!/usr/bin/env bash
# Chooses the release profile by measuring size and speed together (issue 8): builds the
# nodejs target with each candidate (rustc opt-level + the matching wasm-opt level) into
# target/profiles/NAME/pkg, runs `node bench/run.mjs --quick --pkg` on each in turn, and
# prints one line per profile: raw and gzip bytes, and each candidate's time relative to
# the shipped profile (O3) as the geometric mean over every row of the benchmark.
#
#   bash bench/profiles.sh            # all candidates: O3 (shipped), s, z
#   bash bench/profiles.sh s z        # only some
#
# Not a test (several minutes; nothing asserts a time). Each build has its own cargo
# target directory under target/profiles/, so the project's own target/ is untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
source scripts/env.sh
names=("$@"); [ ${#names[@]} -gt 0 ] || names=(O3 s z)
flags=(--enable-bulk-memory --enable-nontrapping-float-to-int)
for name in "${names[@]}"; do
  case $name in
    O3) level=3 ;; s) level=s ;; z) level=z ;;
    *) echo "unknown profile $name (O3, s, z)"; exit 2 ;;
  esac
  dir=target/profiles/$name
  mkdir -p "$dir"
  echo "=== $name: building (opt-level $level, wasm-opt -O$([ $level = 3 ] && echo 3 || echo $level))"
  CARGO_TARGET_DIR=$dir/cargo CARGO_PROFILE_RELEASE_OPT_LEVEL=$level \
    wasm-pack build --release --no-opt --target nodejs --out-dir "$PWD/$dir/pkg" --out-name delegate_context --no-pack >/dev/null 2>"$dir/build.log" || { cat "$dir/build.log"; exit 1; }
  # the same glue as the shipped package (scripts/build-pkg.sh)
  node scripts/cjs-snippets.mjs "$dir/pkg"
  node scripts/patch-glue.mjs "$dir/pkg/delegate_context.js"
  node_modules/.bin/wasm-opt "-O$level" "${flags[@]}" "$dir/pkg/delegate_context_bg.wasm" -o "$dir/pkg/delegate_context_bg.wasm"
  node --expose-gc --max-old-space-size=8000 bench/run.mjs --quick --pkg "$dir/pkg" > "$dir/bench.txt"
  mv target/bench/results-pkg.json "$dir/bench.json"
done
node - "${names[@]}" <<'JS'
const fs = require("fs");
const names = process.argv.slice(2);
const runs = Object.fromEntries(names.map((n) => [n, JSON.parse(fs.readFileSync(`target/profiles/${n}/bench.json`, "utf8"))]));
const base = runs.O3;
for (const n of names) {
  const r = runs[n];
  let line = `${n.padEnd(3)} ${r.wasm.node.raw.toLocaleString("en-US").padStart(9)} B raw  ${r.wasm.node.gzip.toLocaleString("en-US").padStart(8)} B gzip`;
  if (base && n !== "O3") {
    const logs = r.rows.map((row, i) => Math.log(row["ours µs"] / base.rows[i]["ours µs"])).filter(Number.isFinite);
    line += `  time ×${Math.exp(logs.reduce((a, b) => a + b, 0) / logs.length).toFixed(2)} of O3 (geometric mean of ${logs.length} rows)`;
  }
  console.log(line);
}
JS
