// pi-agent-core's compaction primitives read session entries; the library reads messages.
// The differential tests (compaction-diff.test.mjs, pi-table.test.mjs) wrap each message
// as pi's session does, in one place.

/** `ms` as pi's message entries, each the parent of the next. */
export function toEntries(ms) {
  return ms.map((message, i) => ({
    type: "message",
    id: `e${i}`,
    parentId: i === 0 ? null : `e${i - 1}`,
    timestamp: new Date(typeof message.timestamp === "number" ? message.timestamp : 0).toISOString(),
    message,
  }));
}
