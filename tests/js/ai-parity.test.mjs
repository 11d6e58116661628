// Issue 35: the same numbers from the same core. A real session's pi messages, rendered as
// the AI SDK's ModelMessages (toModelMessages) and read back by DelegateContext.
// pushModelMessages, count what pi-agent-core counts of them: the same estimate, message by
// message, and the same boundary decision at every budget.
import test from "node:test";
import assert from "node:assert/strict";
import { resolve } from "node:path";
import { dc, root, loadSessionMessages, SESSION_FILES } from "./helpers.mjs";

const ai = await import(resolve(root, "pkg/ai/index.mjs"));

for (const file of SESSION_FILES) {
  test(`${file}: pi's messages and their ModelMessages count the same`, (t) => {
    const loaded = loadSessionMessages(file);
    if (!loaded) return t.skip("fixture absent");
    // the roles both frameworks have; usage left out on both sides (the SDK's lives on steps)
    const messages = loaded.filter((m) => ["user", "assistant", "toolResult"].includes(m.role))
      .map((m) => (m.role === "assistant" ? { ...m, usage: undefined, stopReason: "stop" } : m));
    const pi = new dc.DelegateContext(messages);
    const sdk = new dc.DelegateContext();
    sdk.pushModelMessages(ai.toModelMessages(messages));
    try {
      assert.equal(sdk.length, pi.length, "one of the core's messages per pi message");
      assert.deepEqual(sdk.estimateContextTokens(), pi.estimateContextTokens());
      for (const window of [8_192, 32_000, 128_000, 400_000]) {
        const config = { budget: dc.contextBudget({ contextWindow: window, maxTokens: 4_096 }), modelId: "m" };
        const { requests: piRequests, ...piPlan } = pi.prepareTurn(config);
        const { requests: sdkRequests, ...sdkPlan } = sdk.prepareTurn(config);
        assert.deepEqual(sdkPlan, piPlan, `the boundary at a ${window}-token window`);
        assert.equal(sdkRequests.length, piRequests.length);
      }
    } finally {
      pi.free();
      sdk.free();
    }
  });
}
