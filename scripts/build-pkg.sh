#!/usr/bin/env bash
# Builds the npm package into pkg/: pkg/node (CommonJS, synchronous, for Node and
# Electron main), pkg/web (ES module + init(), for browsers and Electron renderers),
# plus what wasm-pack's output lacks (pkg-template/: package.json, README, LICENSE).
# Fails when wasm-pack fails (it may write an unoptimised pkg/ and still exit 1).
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/env.sh
profile=${1:---release}
rm -rf pkg
for target in nodejs web; do
  dir=$([ "$target" = nodejs ] && echo node || echo web)
  wasm-pack build "$profile" --target "$target" --out-dir "pkg/$dir" --out-name delegate_context --no-pack >/dev/null 2>pkg.$dir.log || { cat pkg.$dir.log; exit 1; }
  rm -f "pkg/$dir/.gitignore" "pkg/$dir/package.json" "pkg/$dir/README.md" "pkg/$dir/LICENSE" pkg.$dir.log
done
cp -r pkg-template/. pkg/
node -e 'const p=require("./pkg/package.json");p.version=require("child_process").execSync("cargo pkgid").toString().trim().split(/[@#]/).pop();require("fs").writeFileSync("pkg/package.json",JSON.stringify(p,null,2)+"\n")'
echo "built pkg/ ($(du -b pkg/node/delegate_context_bg.wasm | cut -f1) bytes of wasm)"
