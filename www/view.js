// DOM helpers of the inspector: elements, numbers, the token bar and the virtualised
// message list. No library calls here: they get the numbers analyse.js computed.

/** `el("td", {class: "n", dataset: {field: "x"}}, "text", child)`. */
export function el(tag, attrs = {}, ...children) {
  const node = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === undefined || v === null || v === false) continue;
    if (k === "dataset") Object.assign(node.dataset, v);
    else if (k === "class") node.className = v;
    else if (k === "style") node.style.cssText = v;
    else if (k.startsWith("on")) node.addEventListener(k.slice(2), v);
    else node.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children.flat(Infinity)) if (c !== undefined && c !== null && c !== false) node.append(c instanceof Node ? c : String(c));
  return node;
}

/** 12345 → "12,345" (en-US, like the tests read it back). */
export const fmt = (n) => (typeof n === "number" ? n.toLocaleString("en-US") : n === undefined || n === null ? "—" : String(n));

/** A `<dl>`-like grid of fields: `[[label, value, field?], ...]`; `field` becomes data-field. */
export function fields(pairs) {
  return el(
    "dl",
    { class: "fields" },
    pairs.map(([label, value, field]) => [el("dt", {}, label), el("dd", { dataset: field ? { field } : undefined }, typeof value === "number" ? fmt(value) : value ?? "—")]),
  );
}

/** The text a message shows in the list: its first text, tool call or result, shortened. */
export function preview(m, max = 140) {
  if (m === null || typeof m !== "object") return String(m);
  let text = "";
  if (typeof m.content === "string") text = m.content;
  else if (Array.isArray(m.content)) {
    for (const b of m.content) {
      if (!b || typeof b !== "object") continue;
      if (b.type === "text" && b.text) text = b.text;
      else if (b.type === "toolCall") text = `${b.name}(${JSON.stringify(b.arguments ?? {})})`;
      else if (b.type === "thinking" && !text) text = `(thinking) ${b.thinking ?? ""}`;
      else if (b.type === "image") text = `[image ${b.mimeType ?? ""}]`;
      if (text) break;
    }
  } else if (typeof m.summary === "string") text = m.summary;
  else if (typeof m.command === "string") text = `$ ${m.command}`;
  if (m.role === "toolResult" && m.toolName) text = `${m.toolName} → ${text}`;
  text = text.replace(/\s+/g, " ").trim();
  return text.length > max ? `${text.slice(0, max - 1)}…` : text;
}

/**
 * The token bar: `segments` `[{region, tokens}]` laid end to end on a scale of `scale`
 * tokens, with vertical `marks` `[{at, label, kind}]`. Labels alternate between two
 * lanes so neighbouring marks stay readable.
 */
export function tokenBar({ segments, marks, scale, label }) {
  const pct = (t) => `${Math.min(100, (100 * t) / scale).toFixed(3)}%`;
  const bar = el("div", { class: "bar", role: "img", "aria-label": label });
  let at = 0;
  for (const s of segments) {
    if (s.tokens <= 0) continue;
    bar.append(el("div", { class: `seg r-${s.region}`, style: `left:${pct(at)};width:${pct(s.tokens)}`, title: `${s.region}: ${fmt(s.tokens)} tokens` }));
    at += s.tokens;
  }
  const sorted = [...marks].filter((m) => m.at >= 0).sort((a, b) => a.at - b.at);
  sorted.forEach((m, i) => {
    bar.append(
      el("div", { class: `mark m-${m.kind ?? "limit"}`, style: `left:${pct(m.at)}`, dataset: { mark: m.kind ?? "", at: String(m.at) } },
        // labels right of the line, or left of it in the bar's right third
        el("span", { class: `lane${i % 2}${m.at / scale > 0.66 ? " left" : ""}` }, `${m.label} ${fmt(m.at)}`)),
    );
  });
  return el("div", { class: "barbox" }, bar);
}

/** Consecutive messages of one region merged into `[{region, tokens, from, to}]`. */
export function runsOf(regions, tokens) {
  const runs = [];
  for (let i = 0; i < regions.length; i++) {
    const last = runs[runs.length - 1];
    if (last && last.region === regions[i]) {
      last.tokens += tokens[i];
      last.to = i;
    } else runs.push({ region: regions[i], tokens: tokens[i], from: i, to: i });
  }
  return runs;
}

/**
 * A list of `count` fixed-height rows of which only the visible ones exist in the DOM
 * (a 2,000-message file renders ~20 rows). `renderRow(i)` returns a row element.
 */
export class VirtualList {
  constructor(container, { rowHeight = 22, renderRow }) {
    this.container = container;
    this.rowHeight = rowHeight;
    this.renderRow = renderRow;
    this.count = 0;
    this.spacer = el("div", { class: "spacer" });
    this.layer = el("div", { class: "layer" });
    container.replaceChildren(this.spacer, this.layer);
    this.pending = false;
    container.addEventListener("scroll", () => this.schedule());
  }

  setCount(count) {
    this.count = count;
    this.spacer.style.height = `${count * this.rowHeight}px`;
    this.refresh();
  }

  schedule() {
    if (this.pending) return;
    this.pending = true;
    requestAnimationFrame(() => {
      this.pending = false;
      this.draw();
    });
  }

  /** Redraw now (after the rows' data changed). */
  refresh() {
    this.drawn = undefined;
    this.draw();
  }

  scrollTo(i) {
    this.container.scrollTop = Math.max(0, i * this.rowHeight - this.container.clientHeight / 3);
    this.draw();
  }

  draw() {
    const h = this.container.clientHeight || 400;
    const first = Math.max(0, Math.floor(this.container.scrollTop / this.rowHeight) - 5);
    const last = Math.min(this.count, Math.ceil((this.container.scrollTop + h) / this.rowHeight) + 5);
    const key = `${first}:${last}`;
    if (this.drawn === key) return;
    this.drawn = key;
    const rows = [];
    for (let i = first; i < last; i++) {
      const row = this.renderRow(i);
      row.style.top = `${i * this.rowHeight}px`;
      rows.push(row);
    }
    this.layer.replaceChildren(...rows);
  }
}
