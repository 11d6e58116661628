// The demo's faux world: the repository the delegates read (generated, deterministic),
// the models they run on (offline, pi-ai's faux provider), and what each model "says".
// Nothing here knows delegate-context: it is what a real host would get from its file
// system and its providers.

/** The models of the demo: `provider/id` keys, windows and output caps. */
export const MODELS = {
  lead: { id: "lead-200k", contextWindow: 200000, maxTokens: 16000 }, // the parent
  small: { id: "small-8k", contextWindow: 8192, maxTokens: 2048 }, // most delegates
  tiny: { id: "tiny-4k", contextWindow: 4096, maxTokens: 1024 }, // a fallback too small
  medium: { id: "medium-32k", contextWindow: 32000, maxTokens: 8000 }, // a fallback that fits
  summarizer: { id: "summarizer", contextWindow: 32000, maxTokens: 4000 },
};
export const PROVIDER = "local";
export const API = "faux";
export const key = (m) => `${PROVIDER}/${m.id}`;

const MODULES = ["billing", "tax", "currency", "rounding", "ledger", "export", "import", "customers", "discounts", "reminders", "pdf", "audit"];
/** Modules that still call the deprecated `legacyRound()`, and on which line. */
const LEGACY_CALLS = { tax: 41, currency: 57, discounts: 33 };

/** One source file of about `lines` lines (roughly 30 characters each). */
function sourceFile(name, lines) {
  const out = [`// src/modules/${name}.ts: the ${name} step of the invoice pipeline`, `import { Row, transform } from "../core";`];
  for (let i = 3; out.length < lines; i++) {
    if (LEGACY_CALLS[name] === out.length + 1) out.push(`  total = legacyRound(total, 2); // TODO(3.0)`);
    else if (i % 6 === 0) out.push(`export function ${name}Step${i}(row: Row): Row {`);
    else if (i % 6 === 1) out.push(`  return transform(row, "${name}", ${i});`);
    else if (i % 6 === 2) out.push(`}`);
    else out.push(`  // ${name}: rule ${i} of the 2026 tariff`);
  }
  return out.join("\n");
}

function buildLog() {
  const out = [];
  for (let i = 0; i < 1200; i++) {
    const t = `00:${String(Math.floor(i / 60)).padStart(2, "0")}:${String(i % 60).padStart(2, "0")}`;
    if (i === 1117) out.push(`[${t}] error TS2345 src/modules/ledger.ts(88,7): Argument of type 'string' is not assignable to 'Cents'`);
    else out.push(`[${t}] info  compile src/modules/${MODULES[i % MODULES.length]}.ts (${(i * 7) % 40} ms)`);
  }
  return out.join("\n");
}

/** path → content. */
export const FILES = new Map([
  ...MODULES.map((m) => [`src/modules/${m}.ts`, sourceFile(m, 100)]),
  ["CHANGELOG.md", ["# Changelog", "## 3.0.0 (unreleased)", ...Array.from({ length: 95 }, (_, i) => `- change ${i + 1}: ${MODULES[i % 12]} now uses integer cents (#${400 + i})`)].join("\n")],
  ...["routes", "handlers", "schema", "auth", "errors"].map((f) => [`src/api/${f}.ts`, sourceFile(`api-${f}`, 110)]),
  ["logs/build.log", buildLog()],
  ...["billing", "tax", "ledger", "export"].map((m) => [`test/${m}.test.ts`, sourceFile(`${m}-test`, 80)]),
  ["src/legacy/round.ts", sourceFile("legacy-round", 40)],
]);

export const MODULE_PATHS = MODULES.map((m) => `src/modules/${m}.ts`);

/**
 * The size of a request as the provider receives it, estimated as pi does (messages
 * + system prompt + tool schemas, chars / 4). The demo's provider answers a 400 when
 * this plus the output cap exceeds the model's window (examples/demo/delegate.mjs).
 */
export function requestTokens(dc, context) {
  const messages = context.messages.reduce((n, m) => n + dc.estimateTokens(m), 0);
  const fixed = (context.systemPrompt ?? "").length + (context.tools ? JSON.stringify(context.tools).length : 0);
  return messages + Math.ceil(fixed / 4);
}
