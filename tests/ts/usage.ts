// Type-checked (tsc --noEmit), never run: the package's generated .d.ts must accept what
// users of pi-agent-core pass, return precise types, and reject wrong calls. Each
// `@ts-expect-error` line fails the check if the type it guards became `any` or loose.
import type { AgentMessage as PiAgentMessage } from "@earendil-works/pi-agent-core";
import {
  contextBudget,
  estimateTokens,
  estimateContextTokens,
  calculateContextTokens,
  buildParentContext,
  subagentResultForParent,
  version,
  type ContextBudget,
  type AgentMessage,
  type UiMessage,
} from "delegate-context";
import initWeb, { contextBudget as webBudget } from "delegate-context/web";

declare const piMessages: PiAgentMessage[];

// pi-agent-core's own messages are accepted as they are
const estimate = estimateContextTokens(piMessages);
const tokens: number = estimate.tokens;
const anchor: number | undefined = estimate.lastUsageIndex;
const one: number = estimateTokens(piMessages[0]);
const budget: ContextBudget = contextBudget({ contextWindow: 200_000, maxTokens: 32_000 });
const hard: number = budget.hardLimit + budget.keepRecentTokens + budget.compactionTrigger + budget.retainedUserBudget;
const total: number = calculateContextTokens({ input: 1, output: 2, cacheRead: 0, cacheWrite: 0, totalTokens: 3 });

const rows: UiMessage[] = [{ id: "1", role: "user", content: "hi" }];
const { messages, warnings } = buildParentContext(rows);
const roles: AgentMessage["role"][] = messages.map((m) => m.role);
const firstWarning: string | undefined = warnings[0]?.code;
const report: string = subagentResultForParent("{}").text;
const v: string = version();

async function browser() {
  await initWeb();
  const b: ContextBudget = webBudget({});
  return b;
}

// wrong calls are rejected
// @ts-expect-error contextWindow is a number
contextBudget({ contextWindow: "big" });
// @ts-expect-error a message needs a known role
estimateTokens({ role: "robot", content: "x" });
// @ts-expect-error user content is a string or blocks
estimateTokens({ role: "user", content: 5 });
// @ts-expect-error rows have a role from the transcript's set
buildParentContext([{ id: "1", role: "bot", content: "x" }]);
// @ts-expect-error the budget has no field "limit"
const nope: number = budget.limit;
// @ts-expect-error estimateContextTokens returns an object, not a number
const wrong: number = estimateContextTokens([]);

export { tokens, anchor, one, hard, total, roles, firstWarning, report, v, browser, nope, wrong };
