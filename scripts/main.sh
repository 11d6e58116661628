#!/usr/bin/env bash
# The main job: install what is needed, build the npm package (release), and run the
# demo on pi's real client: a pi-agent-core Agent delegating to sub-agents through the
# package (examples/main.mjs; offline, pi-ai's faux provider plays the models). It prints
# the timeline and writes target/demo/. Arguments go to the demo:
#   bash scripts/main.sh --serve [--port N]   then serves the repository root on
#   127.0.0.1 and prints the inspector's URL with the demo's transcript loaded.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/bootstrap.sh
bash scripts/build-pkg.sh
node examples/main.mjs "$@"
