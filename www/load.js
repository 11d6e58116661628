// Reads a transcript file's text into what the inspector analyses. No DOM, no wasm:
// Node tests import it directly. Accepted (first match wins):
//   - a pi session (.jsonl): one JSON entry per line; `type: "message"` entries carry
//     `.message`, an AgentMessage: their messages are the delegate's context;
//   - a JSON array of UiMessage rows (host-contract §6) or of AgentMessages;
//   - a JSON object with a `rows` or `messages` array (examples/sample-session.json),
//     optionally with `model: {modelId, ...}`.
// Syntax errors throw a TranscriptError with the line (and column) of the bad text.

/** A file the inspector cannot read: `line`/`column` (1-based) when known. */
export class TranscriptError extends Error {
  constructor(message, { line, column, path } = {}) {
    super(message);
    this.name = "TranscriptError";
    this.line = line;
    this.column = column;
    this.path = path;
  }
}

/**
 * Parses `text` (the file's content). Returns
 * `{kind: "pi-session" | "rows" | "messages", format, messages?, rows?, lines?, modelId?, notices}`:
 * `messages`/`rows` are the parsed arrays, `lines[i]` the file line of `messages[i]`
 * (pi sessions only), `modelId` the model the file says it ran on, `notices` what the
 * reader noticed (ignored entries, a synthetic brief, ...).
 */
export function parseTranscript(text, name = "file") {
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1);
  const first = text.search(/\S/);
  if (first < 0) throw new TranscriptError(`${name} is empty`);
  if (text[first] === "[") return fromArray(parseJson(text, name), name);
  if (text[first] !== "{") {
    const { line, column } = lineAt(text, first);
    throw new TranscriptError(
      `${name} is not JSON (line ${line}, column ${column}): expected a pi session (.jsonl), or a JSON array of UiMessage rows or AgentMessages`,
      { line, column },
    );
  }
  // One JSON object (possibly pretty-printed) or JSON Lines.
  let whole;
  try {
    whole = JSON.parse(text);
  } catch {
    // JSON Lines when the first line is a JSON value on its own; otherwise one
    // (pretty-printed) object with an error somewhere: report its position.
    const firstLine = text.slice(first).split("\n", 1)[0];
    try {
      JSON.parse(firstLine);
    } catch {
      parseJson(text, name);
    }
    return fromJsonl(text, name);
  }
  if (!isPiEntry(whole)) return fromObject(whole, name);
  return fromJsonl(text, name);
}

// ---- formats ----------------------------------------------------------------------

function fromObject(obj, name) {
  const notices = [];
  const modelId = typeof obj.model?.modelId === "string" ? obj.model.modelId : typeof obj.model === "string" ? obj.model : undefined;
  const model = recordedModel(obj);
  const provider = typeof obj.model?.providerId === "string" ? obj.model.providerId : typeof obj.model?.provider === "string" ? obj.model.provider : undefined;
  if (Array.isArray(obj.rows)) return { kind: "rows", format: "JSON object with rows", rows: obj.rows, modelId, provider, model, notices };
  if (Array.isArray(obj.messages)) return withBrief({ kind: "messages", format: "JSON object with messages", messages: obj.messages, modelId, provider, model, notices });
  throw new TranscriptError(`${name}: a JSON object without a "rows" or "messages" array (keys: ${Object.keys(obj).slice(0, 8).join(", ") || "none"})`);
}

function fromArray(arr, name) {
  if (arr.length === 0) throw new TranscriptError(`${name} holds an empty array: nothing to inspect`);
  let rowish = 0;
  let messageish = 0;
  for (const e of arr) {
    if (e === null || typeof e !== "object") continue;
    if (isRowLike(e)) rowish++;
    else if (isMessageLike(e)) messageish++;
  }
  if (rowish > messageish) {
    return { kind: "rows", format: "UiMessage[] (persisted rows)", rows: arr, notices: [] };
  }
  return withBrief({ kind: "messages", format: "AgentMessage[]", messages: arr, notices: [] });
}

function fromJsonl(text, name) {
  const entries = []; // every parsed entry (the header too), with its file line
  let modelId;
  let provider;
  let model;
  let lineNo = 0;
  for (const raw of text.split("\n")) {
    lineNo++;
    if (!raw.trim()) continue;
    let entry;
    try {
      entry = JSON.parse(raw);
    } catch (e) {
      const offset = jsonErrorOffset(raw);
      const column = offset >= 0 ? offset + 1 : undefined;
      throw new TranscriptError(
        `${name}: JSON syntax error on line ${lineNo}${column ? `, column ${column}` : ""}: ${engineMessage(e)}`,
        { line: lineNo, column },
      );
    }
    if (entry === null || typeof entry !== "object" || Array.isArray(entry)) {
      throw new TranscriptError(`${name}: line ${lineNo} is not a JSON object (a pi session has one entry object per line)`, { line: lineNo });
    }
    if ((entry.type === "session" || entry.type === "model_change") && typeof entry.modelId === "string") {
      modelId = entry.modelId;
      provider = typeof entry.provider === "string" ? entry.provider : undefined;
      model = recordedModel(entry) ?? (entry.type === "model_change" ? undefined : model);
    }
    if (entry.type === "message" && (entry.message === null || typeof entry.message !== "object" || Array.isArray(entry.message))) {
      throw new TranscriptError(`${name}: line ${lineNo}: a "message" entry without a message object`, { line: lineNo, path: "message" });
    }
    entries.push({ entry, line: lineNo });
  }
  const path = sessionPath(entries);
  const whole = { messages: [], lines: [] };
  const ignored = {};
  for (const { entry, line } of path) {
    const m = contextMessage(entry);
    if (m && entry.type === "message") {
      whole.messages.push(m);
      whole.lines.push(line);
    } else if (!m || entry.type === "compaction") {
      const t = typeof entry.type === "string" ? entry.type : "(no type)";
      if (t !== "session" && t !== "compaction") ignored[t] = (ignored[t] ?? 0) + 1;
    }
  }
  if (whole.messages.length === 0) throw new TranscriptError(`${name}: no "message" entries: not a pi session with messages`);
  const notices = [];
  const other = Object.entries(ignored);
  if (other.length) {
    notices.push(`Entries that are not messages are not part of the context and were skipped: ${other.map(([t, n]) => `${n} ${t}`).join(", ")}.`);
  }
  // pi's context: after the session's last compaction, its summary first, then the
  // entries from the compaction's first kept entry on (the compaction entry skipped).
  const messages = [];
  const lines = [];
  let compaction;
  const last = path.findLastIndex(({ entry }) => entry.type === "compaction");
  let from = 0;
  if (last >= 0) {
    const c = path[last];
    from = keptFrom(entries, path, last);
    const count = path.filter(({ entry }) => entry.type === "compaction").length;
    messages.push(contextMessage(c.entry));
    lines.push(c.line);
    const keptLine = path[from]?.line;
    const before = path.slice(0, from).filter(({ entry }) => entry.type === "message").length;
    compaction = { line: c.line, keptFromLine: keptLine, summarized: before, count, tokensBefore: c.entry.tokensBefore };
    notices.push(
      `pi builds this session's context from its last compaction (line ${c.line}${count > 1 ? `, the last of ${count}` : ""}): ` +
        `its summary first, then the messages from line ${keptLine ?? c.line + 1} on; ${plural(before, "earlier message")} are in the summary. ` +
        `The timeline replays all ${plural(whole.messages.length, "message")} from the start.`,
    );
  }
  for (let i = from; i < path.length; i++) {
    if (i === last) continue;
    const { entry, line } = path[i];
    if (entry.type === "compaction") continue;
    const m = contextMessage(entry);
    if (m) {
      messages.push(m);
      lines.push(line);
    }
  }
  const result = withBrief({ kind: "pi-session", format: "pi session (JSON Lines)", messages, lines, modelId, provider, model, notices, compaction });
  result.whole = withBrief({ messages: whole.messages, lines: whole.lines, notices: [] });
  return result;
}

/** A window (and output cap) the entry records: `contextWindow`, `maxTokens` (or under `model`). */
function recordedModel(obj) {
  const src = obj && typeof obj.model === "object" && obj.model !== null ? obj.model : obj;
  const w = src?.contextWindow;
  if (typeof w !== "number" || !(w > 0)) return undefined;
  const out = src.maxTokens ?? src.maxOutputTokens;
  return { contextWindow: w, maxTokens: typeof out === "number" && out > 0 ? out : undefined };
}

// The entries pi reads, in order: with ids and parentIds (session v2+), the branch from
// the last entry back to the root; otherwise the file's order.
function sessionPath(entries) {
  const body = entries.filter(({ entry }) => entry.type !== "session");
  if (!body.some(({ entry }) => typeof entry.id === "string" && "parentId" in entry)) return entries;
  const byId = new Map(body.filter(({ entry }) => typeof entry.id === "string").map((e) => [e.entry.id, e]));
  const path = [];
  const seen = new Set();
  for (let e = body[body.length - 1]; e && !seen.has(e); e = byId.get(e.entry.parentId)) {
    seen.add(e);
    path.push(e);
  }
  return path.reverse();
}

// Position in `path` of the compaction at `at`'s first kept entry: `firstKeptEntryId`
// (v2+), or `firstKeptEntryIndex` (v1: an index into the file's entries, header
// included); the entry after the compaction when neither is found.
function keptFrom(entries, path, at) {
  const c = path[at].entry;
  let target;
  if (typeof c.firstKeptEntryId === "string") target = path.findIndex(({ entry }) => entry.id === c.firstKeptEntryId);
  else if (Number.isInteger(c.firstKeptEntryIndex)) target = path.indexOf(entries[c.firstKeptEntryIndex]);
  return target >= 0 && target < at ? target : at + 1;
}

// The message an entry contributes to pi's context, or undefined.
function contextMessage(entry) {
  const ts = typeof entry.timestamp === "string" ? Date.parse(entry.timestamp) || 0 : typeof entry.timestamp === "number" ? entry.timestamp : 0;
  switch (entry.type) {
    case "message":
      return entry.message;
    case "compaction":
      return { role: "compactionSummary", summary: String(entry.summary ?? ""), tokensBefore: Number(entry.tokensBefore) || 0, timestamp: ts };
    case "branch_summary":
      return { role: "branchSummary", summary: String(entry.summary ?? ""), fromId: String(entry.fromId ?? ""), timestamp: ts };
    case "custom_message":
      return { role: "custom", customType: String(entry.customType ?? ""), content: entry.content ?? "", display: entry.display !== false, timestamp: ts };
    default:
      return undefined;
  }
}

/** "1 message", "2 messages" (numbers en-US). */
export function plural(n, noun) {
  const many = /[^aeiou]y$/.test(noun) ? `${noun.slice(0, -1)}ies` : `${noun}s`;
  return `${n.toLocaleString("en-US")} ${n === 1 ? noun : many}`;
}

/** "a user", "an assistant". */
export const article = (word) => `${/^[aeiou]/i.test(word) ? "an" : "a"} ${word}`;

// A delegate's context starts with its task brief, a user message. When the file's
// first message is another object, a synthetic brief is put first and said so.
function withBrief(result) {
  const m0 = result.messages[0];
  if (m0 && typeof m0 === "object" && !Array.isArray(m0) && m0.role !== "user") {
    const role = typeof m0.role === "string" ? m0.role : String(m0.role);
    result.messages = [{ role: "user", content: `[synthetic task brief: the file's first message is a "${role}" message]`, timestamp: 0 }, ...result.messages];
    if (result.lines) result.lines = [undefined, ...result.lines];
    result.syntheticBrief = true;
    result.notices.push(
      `The ${result.compaction ? "context" : "file"} starts with ${article(role)} message, not a user message (a delegate's context starts with its task brief). ` +
        `A synthetic brief was put first: message #0 below is that brief, #1 the ${result.compaction ? "summary" : "file's first message"}.`,
    );
  }
  return result;
}

// ---- shape guesses ----------------------------------------------------------------

const ROW_ONLY_ROLES = new Set(["tool", "system"]);
const MESSAGE_ONLY_ROLES = new Set(["toolResult", "compactionSummary", "branchSummary", "custom", "bashExecution"]);

function isRowLike(e) {
  return ROW_ONLY_ROLES.has(e.role) || "parentToolCallId" in e || "createdAt" in e || "toolArgs" in e || "agentName" in e;
}

function isMessageLike(e) {
  return MESSAGE_ONLY_ROLES.has(e.role) || Array.isArray(e.content) || typeof e.timestamp === "number" || "stopReason" in e;
}

function isPiEntry(obj) {
  return obj !== null && typeof obj === "object" && !Array.isArray(obj) && typeof obj.type === "string" && !("rows" in obj) && !("messages" in obj);
}

// ---- JSON errors with a position ----------------------------------------------------

/** `JSON.parse(text)`, or a TranscriptError naming the line and column of the error. */
export function parseJson(text, name = "file") {
  try {
    return JSON.parse(text);
  } catch (e) {
    const offset = jsonErrorOffset(text);
    const at = offset >= 0 ? lineAt(text, offset) : {};
    const where = at.line ? ` at line ${at.line}, column ${at.column}` : "";
    throw new TranscriptError(`${name}: JSON syntax error${where}: ${engineMessage(e)}`, at);
  }
}

// The engine's JSON.parse message without its own position (Chrome counts within the
// text it was given, a single line for JSON Lines; the reader says where instead).
function engineMessage(e) {
  return String(e.message).replace(/ in JSON at position \d+(?: \(line \d+ column \d+\))?/, "").replace(/, "[^"]*" is not valid JSON$/, "");
}

/** 1-based line and column of a string offset. */
export function lineAt(text, offset) {
  let line = 1;
  let lineStart = 0;
  for (let i = text.indexOf("\n"); i >= 0 && i < offset; i = text.indexOf("\n", i + 1)) {
    line++;
    lineStart = i + 1;
  }
  return { line, column: offset - lineStart + 1 };
}

/**
 * Offset of the first JSON syntax error in `text`, or -1 when it parses (or is too
 * deeply nested to scan). Engines differ in what their error messages say (Node 20
 * gives no position), so the position is found here, the same everywhere.
 */
export function jsonErrorOffset(text) {
  let i = 0;
  const n = text.length;
  const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
  const ws = () => {
    while (i < n && (text[i] === " " || text[i] === "\t" || text[i] === "\n" || text[i] === "\r")) i++;
  };
  const fail = () => {
    throw { offset: Math.min(i, n) };
  };
  const string = () => {
    i++; // opening quote
    while (i < n) {
      const c = text.charCodeAt(i);
      if (c === 0x22) return void i++;
      if (c < 0x20) fail();
      if (c === 0x5c) {
        const e = text[i + 1];
        if (e === "u") {
          if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) {
            i++;
            fail();
          }
          i += 6;
        } else if (e !== undefined && '"\\/bfnrt'.includes(e)) i += 2;
        else {
          i++;
          fail();
        }
      } else i++;
    }
    fail();
  };
  const value = () => {
    ws();
    const c = text[i];
    if (c === "{") {
      i++;
      ws();
      if (text[i] === "}") return void i++;
      for (;;) {
        ws();
        if (text[i] !== '"') fail();
        string();
        ws();
        if (text[i] !== ":") fail();
        i++;
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "}") return void i++;
        else fail();
      }
    }
    if (c === "[") {
      i++;
      ws();
      if (text[i] === "]") return void i++;
      for (;;) {
        value();
        ws();
        if (text[i] === ",") i++;
        else if (text[i] === "]") return void i++;
        else fail();
      }
    }
    if (c === '"') return string();
    for (const lit of ["true", "false", "null"]) {
      if (text.startsWith(lit, i)) return void (i += lit.length);
    }
    NUMBER.lastIndex = i;
    if (NUMBER.test(text)) return void (i = NUMBER.lastIndex);
    fail();
  };
  try {
    value();
    ws();
    if (i < n) fail();
    return -1;
  } catch (e) {
    if (e && typeof e.offset === "number") return e.offset;
    return -1; // RangeError: nesting deeper than the stack
  }
}

/**
 * The file line of a library error's `path` (`messages[3].content` → line of message 3),
 * when the file is a pi session; else undefined.
 */
export function lineOfPath(parsed, path) {
  if (!parsed?.lines || typeof path !== "string") return undefined;
  const m = /^(?:input\.)?messages\[(\d+)\]/.exec(path);
  return m ? parsed.lines[Number(m[1])] : undefined;
}
