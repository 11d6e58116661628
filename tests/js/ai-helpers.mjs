// Offline AI SDK 7 worlds for the tests: scripted MockLanguageModelV4 models (from `ai/test`)
// whose usage is the prompt's real size, a `read` tool over generated files, and the
// provider errors of the SDK's own classes.
import { APICallError, RetryError, jsonSchema, tool } from "ai";
import { MockLanguageModelV4 } from "ai/test";

/** V4 usage: `input` prompt tokens, `output` answer tokens. */
export const usage = (input, output = 10) => ({
  inputTokens: { total: input, noCache: input, cacheRead: 0, cacheWrite: 0 },
  outputTokens: { total: output, text: output, reasoning: 0 },
});

/** What a provider counts of a prompt: its JSON, 4 characters a token. */
export const promptTokens = (prompt) => Math.ceil(JSON.stringify(prompt).length / 4);

/** A file of `lines` lines of about 38 characters. */
export const file = (path, lines = 90) => `// ${path}\n` + "const line = 'some source code here';\n".repeat(lines);

/** A `read` tool; `sizes[path]` lines per file. */
export const readTool = (sizes = {}) =>
  tool({
    description: "Read a file.",
    inputSchema: jsonSchema({ type: "object", properties: { path: { type: "string" } }, required: ["path"], additionalProperties: false }),
    execute: async ({ path }) => file(path, sizes[path] ?? 90),
  });

/**
 * A scripted model: each request answers the next step: `{read}` a tool call, `{report}`
 * the answer, `{fail}` a thrown error (an Error, or a function of the request), `{stop}`
 * the finish reason of a report (`{unified, raw}`), `{usage}` a usage to report instead of
 * the prompt's size. Records every prompt (`prompts`) and the model's window: a prompt
 * over it (plus the output cap) is a 400 overflow, as a real provider answers.
 */
export function scripted(steps, { modelId = "small-8k", provider = "mock", contextWindow = 8192 } = {}) {
  let i = 0;
  let calls = 0;
  const prompts = [];
  const model = new MockLanguageModelV4({
    provider, modelId,
    doGenerate: async (options) => {
      prompts.push(options.prompt);
      const tokens = promptTokens(options.prompt);
      if (tokens + (options.maxOutputTokens ?? 0) > contextWindow) throw overflowError(`prompt is too long: ${tokens} tokens > ${contextWindow} maximum`);
      const step = steps[i++];
      if (!step) throw new Error(`scripted ${modelId}: no step #${i - 1}`);
      if (step.fail) throw typeof step.fail === "function" ? step.fail(options) : step.fail;
      const u = step.usage ?? usage(tokens);
      if (step.report !== undefined) {
        return { content: step.report ? [{ type: "text", text: step.report }] : [], finishReason: step.stop ?? { unified: "stop", raw: "end_turn" }, usage: u, warnings: [] };
      }
      return {
        content: [{ type: "text", text: `Reading ${step.read}.` }, { type: "tool-call", toolCallId: `${modelId}-c${++calls}`, toolName: "read", input: JSON.stringify({ path: step.read }) }],
        finishReason: { unified: "tool-calls", raw: "tool_use" }, usage: u, warnings: [],
      };
    },
  });
  return { model, prompts };
}

export const reads = (k, from = 0) => Array.from({ length: k }, (_, i) => ({ read: `src/f${from + i}.ts` }));

/** A provider's overflow as the SDK throws it (an `APICallError`, status 400). */
export const overflowError = (message) =>
  new APICallError({ message, url: "https://api.example/v1/messages", requestBodyValues: {}, statusCode: 400, isRetryable: false,
    responseBody: JSON.stringify({ type: "error", error: { type: "invalid_request_error", message } }) });

/** A throttled request as the SDK throws it after its own retries (a `RetryError`). */
export const retryError = (last) =>
  new RetryError({ message: `Failed after 3 attempts. Last error: ${last.message}`, reason: last.isRetryable ? "maxRetriesExceeded" : "errorNotRetryable", errors: [last] });

/** The host's store: rows by id, a later copy replacing the earlier one. */
export function store() {
  const rows = new Map();
  return { rows, onRows: (batch) => { for (const r of batch) rows.set(r.id, r); }, list: () => [...rows.values()] };
}

/** A deterministic shuffle (mulberry32). */
export function shuffled(rows, seed) {
  let a = seed >>> 0;
  const rand = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const out = rows.slice();
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(rand() * (i + 1));
    [out[i], out[j]] = [out[j], out[i]];
  }
  return out;
}
