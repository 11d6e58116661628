// The host's persistence: the UiMessage rows (host-contract §6) the package writes as the
// agents work (delegate-context/pi's runDelegate and recordRows), stored by id, and the
// file the app keeps them in. The parent's messages are rows without `parentToolCallId`;
// a delegate's messages carry the Task call's id and `agentName`; the Task row
// (`id == toolCallId`) holds `toolArgs {agent, task, description, resume?}` and
// `toolResult.details {delegationId, agent, status, modelId, ...}`, rewritten in place
// when the delegation settles. Delegate compaction rewrites no row (ADR 0299).
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

  /** The clock of the rows: a fake one, one second a tick, so the output stays stable. */
  clock() {
    return Date.UTC(2026, 10, 24, 9, 0, 0) + 1000 * this.tick++;
  }

  /** Stores rows by id: a later copy replaces the earlier one in place, as the app's store does. */
  store(batch) {
    for (const row of batch) {
      const i = this.rows.findIndex((r) => r.id === row.id);
      if (i < 0) this.rows.push(row);
      else this.rows[i] = row;
    }
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
}
