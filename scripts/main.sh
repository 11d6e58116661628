#!/usr/bin/env bash
# The main job: install what is needed, build the npm package with wasm-pack, and run
# the Node example over the sample session the project ships.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build-pkg.sh
node examples/main.mjs
