// The printed timeline: one line per event, `[who] what`. Delegation ids are random
// UUIDs (the registry issues them); the timeline names them d1, d2, ... in the order
// they were issued, so the output is the same on every run. Every line is also kept as
// a structured event (for the test).
const UUID = /[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}/g;

export class Timeline {
  constructor(write = console.log) {
    this.write = write;
    this.events = [];
    this.aliases = new Map();
  }

  /** The short name of a delegation id (d1, d2, ...). */
  alias(id) {
    if (!this.aliases.has(id)) this.aliases.set(id, `d${this.aliases.size + 1}`);
    return this.aliases.get(id);
  }

  /** `text` with every known delegation id replaced by its short name. */
  redact(text) {
    return text.replace(UUID, (id) => (this.aliases.has(id) ? this.aliases.get(id) : id));
  }

  line(tag, text, data = {}) {
    const shown = this.redact(text);
    this.events.push({ tag, text: shown, ...data });
    this.write(`[${tag}] ${shown}`);
  }

  heading(text) {
    this.write(`\n${text}`);
  }

  /** Indented lines (a block of text the parent or the user would see). */
  block(text, indent = "    ") {
    for (const l of this.redact(text).split("\n")) this.write(`${indent}${l}`);
  }
}
