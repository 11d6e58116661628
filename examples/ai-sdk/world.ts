// The offline world of the AI SDK example (not host code): the SDK's own mock models play
// every model from a script, and a faux repository stands in for the files. A real host
// has real providers (`anthropic("claude-…")`) and files instead; nothing here knows
// delegate-context.
import { APICallError, jsonSchema, tool, type LanguageModel } from "ai";
import { MockLanguageModelV4 } from "ai/test";

type Turn = { read: string } | { report: string } | { fail: string };
type Prompt = { role: string; content: unknown }[];
const tokens = (prompt: Prompt) => Math.ceil(JSON.stringify(prompt).length / 4);
const usage = (input: number) => ({ inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 }, outputTokens: { total: 20, text: 20, reasoning: 0 } });
const textOf = (prompt: Prompt) => JSON.stringify(prompt);

/** What each delegate does, by the first words of its task; the parent's script. */
const SCRIPTS: Record<string, Turn[]> = {
  "Survey the modules": ["billing", "tax", "currency", "rounding", "ledger", "export", "import", "audit"].map((m) => ({ read: `src/${m}.ts` }) as Turn)
    .concat({ report: "Money flows billing → tax → currency → rounding → ledger; tax.ts and currency.ts still call legacyRound()." }),
  "Audit the tests": [{ read: "test/billing.test.ts" }, { read: "test/tax.test.ts" }, { fail: "prompt is too long: 8871 tokens > 8192 maximum" },
    { read: "test/ledger.test.ts" }, { report: "ledger's tests cover positive amounts only." }],
  "Can legacyRound go": [{ read: "src/rounding.ts" }, { report: "Yes: replace the calls in tax.ts and currency.ts with roundCents(), then delete legacyRound()." }],
};
const progress = new Map<string, number>();
let calls = 0;

function model(modelId: string, contextWindow: number): LanguageModel {
  return new MockLanguageModelV4({
    provider: "local", modelId,
    doGenerate: async ({ prompt }) => {
      const text = textOf(prompt);
      if (modelId === "summarizer") return { content: [{ type: "text", text: "## Goal\nThe task above.\n\n## Progress\n- Read some files." }], finishReason: { unified: "stop", raw: "end_turn" }, usage: usage(tokens(prompt)), warnings: [] };
      if (modelId === "lead-200k") return parent(prompt);
      const key = Object.keys(SCRIPTS).filter((k) => text.includes(k)).at(-1)!;
      const turn = SCRIPTS[key]![progress.get(key) ?? 0]!;
      progress.set(key, (progress.get(key) ?? 0) + 1);
      if (tokens(prompt) > contextWindow || "fail" in turn) {
        throw new APICallError({ message: "fail" in turn ? turn.fail : "prompt is too long", url: "https://api.local/v1", requestBodyValues: {}, statusCode: 400, isRetryable: false });
      }
      if ("report" in turn) return { content: [{ type: "text", text: turn.report }], finishReason: { unified: "stop", raw: "end_turn" }, usage: usage(tokens(prompt)), warnings: [] };
      return { content: [{ type: "tool-call", toolCallId: `read_${++calls}`, toolName: "read", input: JSON.stringify({ path: turn.read }) }], finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: usage(tokens(prompt)), warnings: [] };
    },
  });
}

/** The parent: one Task call per line of its plan for the last user prompt, then the reports. */
function parent(prompt: Prompt) {
  const lastUser = prompt.map((m) => m.role).lastIndexOf("user");
  const asked = textOf(prompt.slice(lastUser, lastUser + 1));
  const done = prompt.slice(lastUser).filter((m) => m.role === "tool").length;
  const plan = asked.includes("legacyRound")
    ? [{ agent: "explorer", task: "Can legacyRound go before 3.0? Check src/rounding.ts.", description: "legacyRound", resume: /explorer \/ (\S+): survey/.exec(textOf(prompt))?.[1] }]
    : [{ agent: "explorer", task: "Survey the modules under src/ and report how money flows.", description: "survey" },
      { agent: "tester", task: "Audit the tests under test/ and report untested money paths.", description: "audit" }];
  const next = plan[done];
  if (!next) {
    const reports = textOf(prompt.slice(lastUser)).match(/(Yes: |Money flows|ledger's tests)[^"\\]*/g) ?? [];
    return { content: [{ type: "text" as const, text: reports.join("\n") }], finishReason: { unified: "stop" as const, raw: "end_turn" }, usage: usage(tokens(prompt)), warnings: [] };
  }
  return { content: [{ type: "tool-call" as const, toolCallId: `task_${++calls}`, toolName: "task", input: JSON.stringify(next) }], finishReason: { unified: "tool-calls" as const, raw: "tool_use" }, usage: usage(tokens(prompt)), warnings: [] };
}

export const models = {
  lead: model("lead-200k", 200000), small: model("small-8k", 8192), tiny: model("tiny-4k", 4096), medium: model("medium-32k", 32000), summarizer: model("summarizer", 32000),
};
const file = (name: string, lines: number) => Array.from({ length: lines }, (_, i) => `// ${name}: line ${i + 1} of the 2026 tariff`).join("\n");
export const readTool = tool({
  description: "Read a whole file of the repository.",
  inputSchema: jsonSchema<{ path: string }>({ type: "object", properties: { path: { type: "string" } }, required: ["path"] }),
  execute: async ({ path }) => file(path, 110),
});
export const USER_1 = "Prepare the 3.0 release: survey the modules, audit the tests.";
export const USER_2 = "Can we delete legacyRound() before 3.0? Reuse the explorer that surveyed the modules.";
