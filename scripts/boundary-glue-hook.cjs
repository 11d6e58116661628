// The boundary tests in Node run the glue users get (issue 17 §6): preloaded into the
// wasm-bindgen test runner's Node process (scripts/test.sh passes it through the runner's
// NODE_ARGS as `--require`), it patches the runner's generated glue
// (`wasm-bindgen-test.js`) with scripts/glue-patch.cjs as it is loaded, and says so on
// stderr; test.sh fails the layer when that line is missing.
"use strict";
const Module = require("node:module");
const { readFileSync } = require("node:fs");
const { basename } = require("node:path");
const { patchGlue, TEST_RUNNER_CLASSES } = require("./glue-patch.cjs");

const loadJs = Module._extensions[".js"];
Module._extensions[".js"] = function (module, filename) {
  if (basename(filename) !== "wasm-bindgen-test.js") return loadJs(module, filename);
  module._compile(patchGlue(readFileSync(filename, "utf8"), filename, TEST_RUNNER_CLASSES), filename);
  process.stderr.write(`boundary: the glue is patched as the package's (${filename})\n`);
};
