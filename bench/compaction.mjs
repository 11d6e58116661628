// Compaction benchmarks, registered by bench/run.mjs: the same work through our wasm
// exports and through pi-agent-core's JavaScript, on the real sessions.
export function register({ compare, messages, label, dc, pi }) {
  const entries = messages.map((message, i) => ({ type: "message", id: `e${i}`, parentId: i ? `e${i - 1}` : null, timestamp: new Date(0).toISOString(), message }));
  const brief = { role: "user", content: "Task brief: continue the work in this session.", timestamp: 0 };
  const delegate = [brief, ...messages];
  const budget = dc.contextBudget({ contextWindow: 1_000_000, maxTokens: 32_000 });
  const settings = { enabled: true, reserveTokens: 16384, keepRecentTokens: 20000 };
  compare(`turn boundary, below hardLimit (prepareDelegateTurn vs estimateContextTokens+shouldCompact): ${label}`,
    () => dc.prepareDelegateTurn({ messages: delegate, budget, modelId: "m" }),
    () => pi.shouldCompact(pi.estimateContextTokens(delegate).tokens, 1_000_000, settings));
  compare(`findCutPoint, whole session, keepRecentTokens 20000: ${label}`,
    () => dc.findCutPoint(messages, 0, messages.length, 20000),
    () => pi.findCutPoint(entries, 0, entries.length, 20000));
  compare(`prepareCompaction, whole session: ${label}`,
    () => dc.prepareCompaction(messages, { reserveTokens: 16384, keepRecentTokens: 20000 }),
    () => pi.prepareCompaction(entries, settings));
}
