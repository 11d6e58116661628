// The host's persistence: the UiMessage rows (host-contract §6) a desktop app writes as
// its agents work, and the file it keeps them in. The parent's messages are rows without
// `parentToolCallId`; a delegate's messages carry the Task call's id and `agentName`;
// the Task row (`id == toolCallId`) holds `toolArgs {agent, task, description, resume?}`
// and `toolResult.details {delegationId, agent, status, modelId, ...}`, rewritten in
// place when the delegation settles. Delegate compaction rewrites no row (ADR 0299).
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { dirname } from "node:path";

/** Text of a message's text blocks (or its string content). */
export function textOf(content) {
  if (typeof content === "string") return content;
  return (content ?? []).filter((b) => b.type === "text").map((b) => b.text).join("\n");
}

export class Transcript {
  /** `file`: where the rows are persisted; `rows`: what it holds already. */
  constructor(file, rows = []) {
    this.file = file;
    this.rows = rows;
    this.tick = rows.length;
  }

  /** Rows are stamped with a fake clock, one second apart: the output stays stable. */
  now() {
    return new Date(Date.UTC(2026, 10, 24, 9, 0, 0) + 1000 * this.tick++).toISOString();
  }

  push(row) {
    this.rows.push({ ...row, createdAt: this.now() });
    return this.rows.at(-1);
  }

  /** Rewrites a row in place (same id, same position), as the app's store does. */
  rewrite(id, change) {
    const i = this.rows.findIndex((r) => r.id === id);
    if (i < 0) throw new Error(`no row ${id}`);
    this.rows[i] = change(structuredClone(this.rows[i]));
    return this.rows[i];
  }

  /** The rows a run of a delegate wrote. */
  childRows(toolCallId) {
    return this.rows.filter((r) => r.parentToolCallId === toolCallId);
  }

  /** Writes the rows (a `UiMessage[]` JSON array) to the file. */
  persist() {
    mkdirSync(dirname(this.file), { recursive: true });
    writeFileSync(this.file, JSON.stringify(this.rows, null, 1) + "\n");
  }

  /** What the app finds on disk after a restart. */
  static load(file) {
    return new Transcript(file, JSON.parse(readFileSync(file, "utf8")));
  }

  /**
   * Persists a pi Agent's messages as they end: assistant rows (text, thinking, model,
   * usage; failed ones with `status: "error"`), one tool row per tool call (rewritten
   * with its result when the result arrives). `owner`: `{parentToolCallId, agentName}`
   * for a delegate, `{}` for the parent. The parent's Task rows are written by the Task
   * tool itself, so `skipTools` names the tools whose rows this must not write.
   * `users`: whether user messages are rows too (the parent's; a delegate's task is on
   * its Task row).
   */
  recordAgent(agent, owner, { idPrefix, skipTools = [], users = false }) {
    let n = 0;
    return agent.subscribe((event) => {
      if (event.type !== "message_end") return;
      const m = event.message;
      if (m.role === "user") {
        if (users) this.push({ id: `${idPrefix}-u${++n}`, role: "user", content: textOf(m.content), ...owner });
      } else if (m.role === "assistant") {
        const failed = m.stopReason === "error" || m.stopReason === "aborted";
        const thinking = m.content.filter((b) => b.type === "thinking").map((b) => b.thinking).join("\n");
        this.push({
          id: `${idPrefix}-a${++n}`, role: "assistant", content: textOf(m.content),
          ...(thinking ? { thinking } : {}),
          ...(failed ? { status: "error", error: m.errorMessage ?? "error" } : { status: "complete" }),
          modelId: m.model, providerId: m.provider,
          usage: { inputTokens: m.usage.input, outputTokens: m.usage.output, totalTokens: m.usage.totalTokens },
          ...owner,
        });
        for (const call of m.content.filter((b) => b.type === "toolCall" && !skipTools.includes(b.name))) {
          this.push({ id: call.id, role: "tool", content: "", toolName: call.name, toolCallId: call.id, toolArgs: call.arguments, toolStatus: "running", ...owner });
        }
      } else if (m.role === "toolResult" && !skipTools.includes(m.toolName)) {
        this.rewrite(m.toolCallId, (row) => ({
          ...row, toolStatus: m.isError ? "error" : "success", isError: m.isError, toolResult: { content: m.content },
        }));
      }
    });
  }
}
