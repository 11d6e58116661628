// The offline world of the pi-host example (not host code): pi-ai's faux provider plays
// every model, following a script, and a faux repository stands in for the files. A real
// host has real providers and files instead; nothing here knows delegate-context.
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall, type Context } from "@earendil-works/pi-ai";
import type { AgentTool } from "@earendil-works/pi-agent-core";
import { Type } from "typebox";

const core = createFauxCore({
  api: "faux", provider: "local",
  models: [
    { id: "lead-200k", contextWindow: 200000, maxTokens: 16000 },
    { id: "small-8k", contextWindow: 8192, maxTokens: 2048 },
    { id: "tiny-4k", contextWindow: 4096, maxTokens: 1024 },
    { id: "medium-32k", contextWindow: 32000, maxTokens: 8000 },
    { id: "summarizer", contextWindow: 32000, maxTokens: 4000 },
  ],
});
const model = (id: string) => core.getModel(id)!;
export const models = { lead: model("lead-200k"), small: model("small-8k"), tiny: model("tiny-4k"), medium: model("medium-32k"), summarizer: model("summarizer") };
export const streamFn = core.streamSimple;

/** A repository of generated files, about 30 characters a line. */
const file = (name: string, lines: number) => Array.from({ length: lines }, (_, i) => `// ${name}: line ${i + 1} of the 2026 tariff`).join("\n");
const FILES = new Map<string, string>([
  ...["billing", "tax", "currency", "rounding", "ledger", "export", "import", "audit"].map((m): [string, string] => [`src/${m}.ts`, file(m, 110)]),
  ["logs/build.log", file("build", 2400)],
  ["CHANGELOG.md", file("changelog", 110)],
  ...["billing", "tax", "ledger", "export"].map((m): [string, string] => [`test/${m}.test.ts`, file(`${m}-test`, 120)]),
]);
export const readTool: AgentTool = {
  name: "read", label: "Read", description: "Read a whole file of the repository.",
  parameters: Type.Object({ path: Type.String() }),
  execute: async (_id, params) => {
    const { path } = params as { path: string };
    const text = FILES.get(path);
    if (text === undefined) throw new Error(`ENOENT: ${path}`);
    return { content: [{ type: "text", text }], details: { path } };
  },
};

type Step = { read: string } | { report: string } | { fail: string };
const reads = (paths: string[]): Step[] => paths.map((read) => ({ read }));
/** What each delegate does, by the first words of its task. */
const SCRIPTS: Record<string, Step[]> = {
  "Survey the modules": [...reads(["billing", "tax", "currency", "rounding", "ledger", "export", "import", "audit"].map((m) => `src/${m}.ts`)),
    { report: "Money flows billing → tax → currency → rounding → ledger; tax.ts and currency.ts still call legacyRound()." }],
  "Review the changelog": [...reads(["CHANGELOG.md", "src/billing.ts", "src/tax.ts", "src/ledger.ts", "src/export.ts"]), { report: "Two 3.0 entries are not implemented." }],
  "Find the first error": [{ read: "logs/build.log" }, { report: "(never reached: the log does not fit)" }],
  "Audit the tests": [...reads(["test/billing.test.ts", "test/tax.test.ts"]), { fail: "prompt is too long: 8871 tokens > 8192 maximum" },
    ...reads(["test/ledger.test.ts", "test/export.test.ts"]), { report: "ledger's tests cover positive amounts only." }],
  "Can legacyRound go": [{ read: "src/rounding.ts" }, { report: "Yes: replace the calls in tax.ts and currency.ts with roundCents(), then delete legacyRound()." }],
};
const progress = new Map<string, number>();
const textOf = (content: unknown) => (typeof content === "string" ? content : (content as { type: string; text?: string }[]).map((b) => b.text ?? "").join("\n"));
let calls = 0;

function delegate(context: Context) {
  const task = [...context.messages].reverse().map((m) => (m.role === "user" ? textOf(m.content) : "")).find((t) => Object.keys(SCRIPTS).some((k) => t.startsWith(k)))!;
  const key = Object.keys(SCRIPTS).find((k) => task.startsWith(k))!;
  const step = SCRIPTS[key]![progress.get(key) ?? 0]!;
  progress.set(key, (progress.get(key) ?? 0) + 1);
  if ("fail" in step) return fauxAssistantMessage([], { stopReason: "error", errorMessage: step.fail });
  if ("report" in step) return fauxAssistantMessage(step.report);
  return fauxAssistantMessage([fauxText(`Reading ${step.read}.`), fauxToolCall("read", { path: step.read }, { id: `read_${++calls}` })], { stopReason: "toolUse" });
}

/** The parent: one Task call per line of `PARENT_TASKS`, then a closing answer from the reports. */
const PARENT_TASKS: Record<string, { agent: string; description: string; task: string; resume?: true }[]> = {
  "Prepare the 3.0 release": [
    { agent: "explorer", description: "survey modules", task: "Survey the modules under src/ and report how money flows." },
    { agent: "reviewer", description: "review changelog", task: "Review the changelog against src/ and report what is missing." },
    { agent: "explorer", description: "find build error", task: "Find the first error in logs/build.log." },
    { agent: "tester", description: "audit tests", task: "Audit the tests under test/ and report untested money paths." },
  ],
  "Can we delete legacyRound": [{ agent: "explorer", description: "legacyRound removal", task: "Can legacyRound go before 3.0? Check src/rounding.ts.", resume: true }],
};
function parent(context: Context) {
  const lastUser = context.messages.findLastIndex((m) => m.role === "user");
  const prompt = textOf(context.messages[lastUser]!.content);
  const script = PARENT_TASKS[Object.keys(PARENT_TASKS).find((k) => prompt.startsWith(k))!]!;
  const results = context.messages.slice(lastUser).filter((m) => m.role === "toolResult");
  const next = script[results.length];
  if (!next) return fauxAssistantMessage(results.map((m) => `- ${textOf(m.content).slice(0, 100)}`).join("\n"));
  const resume = next.resume ? /^- explorer \/ (\S+): survey modules$/m.exec(context.systemPrompt ?? "")?.[1] : undefined;
  const { resume: _, ...args } = next;
  return fauxAssistantMessage([fauxToolCall("task", { ...args, ...(resume ? { resume } : {}) }, { id: `task_${++calls}` })], { stopReason: "toolUse" });
}

/** The summarizer: a summary of the reads, except for the reviewer's (its summarizer is down). */
function summary(context: Context) {
  const prompt = textOf(context.messages[0]!.content);
  if (prompt.includes("Review the changelog")) return fauxAssistantMessage([], { stopReason: "error", errorMessage: "503 Service Unavailable" });
  const files = [...new Set([...prompt.matchAll(/read\(path="([^"]+)"\)/g)].map((m) => m[1]))];
  return fauxAssistantMessage(`## Goal\nThe task above.\n\n## Progress\n- Read ${files.join(", ") || "nothing yet"}.`);
}

core.setResponses(Array.from({ length: 1000 }, () => (context: Context, _options: unknown, _state: unknown, m: { id: string }) =>
  m.id === "summarizer" ? summary(context) : m.id === "lead-200k" ? parent(context) : delegate(context)));

export const USER_1 = "Prepare the 3.0 release: survey the modules, review the changelog, find the build error, audit the tests.";
export const USER_2 = "Can we delete legacyRound() before 3.0? Reuse the explorer that surveyed the modules.";
