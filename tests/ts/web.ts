// Type-checked, never run (tsconfig.web.json, tsconfig.web-nodom.json): the npm README's
// TypeScript notes. Under `moduleResolution: "bundler"` the declarations are the web
// build's; importing the wasm's URL needs the `*.wasm` declaration of wasm.d.ts.
import init, { contextBudget } from "delegate-context";
import wasmUrl from "delegate-context/delegate_context_bg.wasm"; // esbuild: loader {".wasm": "file"}

await init({ module_or_path: new URL(wasmUrl, import.meta.url) });
export const hardLimit: number = contextBudget({ contextWindow: 64000, maxTokens: 16000 }).hardLimit;
