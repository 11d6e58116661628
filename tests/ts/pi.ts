// Type-checked, never run: the library's types fit pi's own (issue 15 item 4), checked
// against pi-agent-core's and pi-ai's declarations (tsconfig.pi.json; pi's dependencies'
// declarations are not ours to check). Every assignment below is WITHOUT a cast: what pi
// holds goes in as it is, and what the library returns goes into pi as it is.
import { Agent, type AgentMessage as PiAgentMessage, type AgentOptions } from "@earendil-works/pi-agent-core";
import type { AssistantMessage as PiAssistantMessage, Model, Api } from "@earendil-works/pi-ai";
import {
  DelegateContext,
  buildParentContext,
  chainRowsToMessages,
  classifyProviderError,
  completeDelegateTurn,
  contextBudget,
  createPrepareNextTurn,
  errorForParent,
  estimateContextTokens,
  isDelegateContextError,
  prepareDelegateTurn,
  runDelegateTurn,
  seedDelegateMessages,
  selectFallbackModel,
  type DelegateContextError,
  type SummaryRequest,
  type UiMessage,
} from "delegate-context";

declare const agent: Agent;
declare const piMessages: PiAgentMessage[];
declare const rows: UiMessage[];
declare const small: Model<Api>;
declare const large: Model<Api>;
declare const failed: PiAssistantMessage;

// ---------------------------------------------------------------- pi → the library
const budget = contextBudget(small);
const tokens: number = estimateContextTokens(agent.state.messages).tokens;
const action: string = prepareDelegateTurn({ messages: piMessages, budget, modelId: "m" }).action;
const handle = new DelegateContext(agent.state.messages);
handle.push(piMessages);
const hook = createPrepareNextTurn({
  budget,
  modelId: "m",
  // the summary request's messages go to pi's completion as they are
  summarize: async (request: SummaryRequest) => {
    const toPi: PiAgentMessage[] = request.messages;
    return String(toPi.length);
  },
});
const options: Pick<AgentOptions, "prepareNextTurnWithContext"> = { prepareNextTurnWithContext: hook };
const classified: boolean = classifyProviderError(failed, small.contextWindow).contextTooLarge;

// ---------------------------------------------------------------- the library → pi
const seed = seedDelegateMessages({ brief: "b", rows, binding: { provider: small.provider, model: small.id, api: small.api }, hardLimit: budget.hardLimit });
agent.state.messages = seed.messages;
const parent: PiAgentMessage[] = buildParentContext(rows).messages;
const chain: PiAgentMessage[] = chainRowsToMessages(rows, { provider: "p", model: "m" });
const kept: PiAgentMessage[] = handle.messages();
const outcome = completeDelegateTurn({ messages: piMessages, budget, modelId: "m", answer: { history: "h" } });
const next: PiAgentMessage[] = outcome.messages;
async function run(): Promise<PiAgentMessage[]> {
  return (await runDelegateTurn({ messages: agent.state.messages, budget, modelId: "m", summarize: async () => "s" })).messages;
}

// ---------------------------------------------------------------- fallback: the caller's own model type
const pick = selectFallbackModel({ messages: agent.state.messages, candidates: [small, large] });
const model: Model<Api> | null = pick.model;
if (pick.model) agent.state.model = pick.model;

// ---------------------------------------------------------------- errors: exact types and a guard
const forParent: DelegateContextError | PiAssistantMessage = errorForParent(failed, { modelId: small.id, contextWindow: small.contextWindow });
if (isDelegateContextError(forParent)) {
  const code: "SUBAGENT_CONTEXT_OVERFLOW" | string = forParent.code;
  const omitted: number | undefined = forParent.resumableOmitted;
  void [code, omitted];
} else {
  const text: string | undefined = forParent.errorMessage; // still pi's message
  void text;
}
function onError(e: unknown): string | undefined {
  return isDelegateContextError(e) ? e.code : undefined;
}

// ---------------------------------------------------------------- and none of it is `any`
// @ts-expect-error the pick is the caller's model type, not a number
const wrongPick: number = pick.model;
// @ts-expect-error a pi message is not a library error
const wrongError: DelegateContextError = failed;
// @ts-expect-error the library's messages are pi's messages, not strings
const wrongMessages: string[] = seed.messages;

export { wrongPick, wrongError, wrongMessages };
export { tokens, action, options, classified, parent, chain, kept, next, run, model, onError };
