// The main job: load the sample session this project ships, then print the budget a
// delegate gets on a few real model windows, the session's token accounting, and the
// parent context the host would send (only the delegate's report, never its work).
import { createRequire } from "node:module";
import { readFileSync } from "node:fs";
import { dirname, resolve } from "node:path";
import { fileURLToPath } from "node:url";

const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(import.meta.url);
const dc = require(resolve(here, "../pkg/node/delegate_context.js"));
const session = JSON.parse(readFileSync(resolve(here, "sample-session.json"), "utf8"));

console.log(`delegate-context ${dc.version()}\n`);

console.log("Budget of the model a delegate runs on (ADR 0299 clauses 1-2):");
const models = [
  { name: "claude-sonnet-4-5", contextWindow: 200000, maxTokens: 64000 },
  { name: "gpt-4.1-mini", contextWindow: 1047576, maxTokens: 32768 },
  { name: "llama-3.1-8b (32k)", contextWindow: 32000, maxTokens: 8000 },
  { name: "qwen2.5-coder (8k)", contextWindow: 8192, maxTokens: 2048 },
  { name: "unknown model (defaults)" },
];
const table = models.map(({ name, ...m }) => ({ model: name, ...dc.contextBudget(m) }));
console.table(table);

const rows = session.rows;
const delegateRows = rows.filter((r) => r.parentToolCallId);
console.log(`\nSample session: ${rows.length} persisted rows, ${delegateRows.length} written by a delegate.`);

const { messages, warnings } = dc.buildParentContext(rows);
const estimate = dc.estimateContextTokens(messages);
const perMessage = messages.map((m) => dc.estimateTokens(m));
console.log("\nToken accounting of the parent context (pi-agent-core's estimateContextTokens):");
console.log(`  tokens ${estimate.tokens} (usage ${estimate.usageTokens} + trailing ${estimate.trailingTokens}, anchor ${estimate.lastUsageIndex})`);
console.log(`  per message: ${perMessage.join(", ")}`);
const rawResult = rows.find((r) => r.toolName === "task").toolResult.content[0].text;
console.log(`  the Task result as stored: ${rawResult.length} chars; in the parent's context: ${dc.subagentResultForParent(rawResult).text.length} chars`);

console.log(`\nParent context (${messages.length} messages, ${warnings.length} warnings):`);
for (const m of messages) {
  const text =
    m.role === "user" || m.role === "toolResult"
      ? (typeof m.content === "string" ? m.content : m.content.filter((b) => b.type === "text").map((b) => b.text).join("\n"))
      : m.content.map((b) => (b.type === "toolCall" ? `[toolCall ${b.name} ${b.id}]` : b.type === "thinking" ? `[thinking]` : b.text)).join(" ");
  console.log(`  ${m.role.padEnd(10)} ${text.length > 110 ? text.slice(0, 107) + "..." : text}`);
}
