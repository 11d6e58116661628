// The demo's faux models and the delegates' tool (not host code: a real host has real
// providers and files). A scripted provider per delegation answers each request with the
// next step of its script (`{say, read}` a tool call, `{report}` the answer, `{fail}` a
// provider error), records every request's size, and answers a 400 to one that does not
// fit the model's window, as a real provider would. The summarizer writes a summary of
// the reads, or fails with the plan's error.
import { createFauxCore, fauxAssistantMessage, fauxText, fauxToolCall } from "@earendil-works/pi-ai";
import { Type } from "typebox";
import { API, FILES, MODELS, PROVIDER, key, requestTokens } from "./world.mjs";
import { textOf } from "./host.mjs";

export const readTool = {
  name: "read",
  label: "Read",
  description: "Read a file of the repository (whole).",
  parameters: Type.Object({ path: Type.String() }),
  execute: async (_id, { path }) => {
    if (!FILES.has(path)) throw new Error(`ENOENT: ${path}`);
    const text = FILES.get(path);
    return { content: [{ type: "text", text }], details: { path, lines: text.split("\n").length } };
  },
};

export const delegateSystemPrompt = (agent) =>
  `You are the ${agent} sub-agent of a coding assistant. Read what the task needs with the read tool, one file at a time, then answer with a short report.`;

/** The request overhead of a delegate (system prompt + tool schemas), as the run counts it. */
export const delegateOverhead = (dc, agent) => dc.requestOverheadTokens({ systemPrompt: delegateSystemPrompt(agent), tools: [readTool] });

/** The provider of one delegation: `{streamFn, models, requests}` (`models`: every model of the demo, by key of MODELS). */
export function scriptedProvider(dc, idPrefix, script) {
  const core = createFauxCore({ api: API, provider: PROVIDER, models: Object.values(MODELS) });
  const requests = [];
  let reads = 0;
  core.setResponses(
    script.map((step) => (context, _options, _state, model) => {
      const tokens = requestTokens(dc, context);
      requests.push({ model: key(model), tokens, maxTokens: model.maxTokens, contextWindow: model.contextWindow });
      if (tokens + model.maxTokens > model.contextWindow) {
        return fauxAssistantMessage([], { stopReason: "error", errorMessage: `400 prompt is too long: ${tokens} tokens + ${model.maxTokens} output > ${model.contextWindow} maximum` });
      }
      if (step.fail) return fauxAssistantMessage([], { stopReason: "error", errorMessage: step.fail });
      if (step.report) return fauxAssistantMessage(step.report);
      return fauxAssistantMessage([fauxText(step.say), fauxToolCall("read", { path: step.read }, { id: `${idPrefix}-read-${++reads}` })], { stopReason: "toolUse" });
    }),
  );
  const models = Object.fromEntries(Object.entries(MODELS).map(([k, m]) => [k, core.getModel(m.id)]));
  return { streamFn: core.streamSimple, models, requests };
}

/**
 * The summarizer: the library's summary request sent to a (faux) model, its text back;
 * a failed response rejects (the run degrades). `failWith`: the error of every request.
 */
export function summarizer(failWith) {
  const core = createFauxCore({ api: API, provider: PROVIDER, models: [MODELS.summarizer] });
  const model = core.getModel(MODELS.summarizer.id);
  const answer = (context) => {
    if (failWith) return fauxAssistantMessage([], { stopReason: "error", errorMessage: failWith });
    const prompt = textOf(context.messages[0].content);
    const files = [...new Set([...prompt.matchAll(/read\(path="([^"]+)"\)/g)].map((m) => m[1]))];
    const before = /<previous-summary>[\s\S]*?Read (\d+) files/.exec(prompt);
    const done = Number(before?.[1] ?? 0) + files.length;
    return fauxAssistantMessage(`## Goal\nThe task brief (kept verbatim above).\n\n## Progress\n### Done\n- [x] Read ${done} files (${files.at(-1) ?? "none"} last)\n\n## Next Steps\n1. Continue with the remaining files, then report.`);
  };
  const calls = { count: 0 };
  const summarize = async (request, signal) => {
    calls.count++;
    core.setResponses([answer]);
    const msg = await core.streamSimple(model, { systemPrompt: request.systemPrompt, messages: request.messages }, { maxTokens: request.maxTokens, signal }).result();
    if (msg.stopReason === "error" || msg.stopReason === "aborted") throw new Error(`summary request failed: ${msg.errorMessage}`);
    return textOf(msg.content);
  };
  return { summarize, calls };
}

export const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : String(n));
