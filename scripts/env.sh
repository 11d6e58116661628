# Sourced by the scripts: puts npm binaryen's wasm-opt first on PATH (never Debian's).
export PATH="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/node_modules/.bin:$HOME/.cargo/bin:$PATH"
