// Type-checked, never run: pi-agent-core's own messages and Agent hook types are accepted
// as they are (tsconfig.pi.json: pi's dependencies' declarations are not ours to check).
import type { AgentMessage as PiAgentMessage, AgentOptions } from "@earendil-works/pi-agent-core";
import { contextBudget, createPrepareNextTurn, estimateContextTokens, prepareDelegateTurn, DelegateContext } from "delegate-context";

declare const piMessages: PiAgentMessage[];
const budget = contextBudget({ contextWindow: 200_000, maxTokens: 32_000 });
const tokens: number = estimateContextTokens(piMessages).tokens;
const action: string = prepareDelegateTurn({ messages: piMessages, budget, modelId: "m" }).action;
const handle = new DelegateContext(piMessages);
handle.push(piMessages);
const hook = createPrepareNextTurn({ budget, modelId: "m", summarize: async () => "s" });
const options: Pick<AgentOptions, "prepareNextTurnWithContext"> = { prepareNextTurnWithContext: hook };

export { tokens, action, options };
