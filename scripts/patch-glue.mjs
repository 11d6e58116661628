// Patches the package's glue files in place with scripts/glue-patch.cjs (what it changes
// and why is written there); build-pkg.sh and bench/profiles.sh run it.
//
//   node scripts/patch-glue.mjs pkg/node/delegate_context.js pkg/web/delegate_context.js
import { readFileSync, writeFileSync } from "node:fs";
import glue from "./glue-patch.cjs";

for (const file of process.argv.slice(2)) {
  writeFileSync(file, glue.patchGlue(readFileSync(file, "utf8"), file, glue.PACKAGE_CLASSES));
}
