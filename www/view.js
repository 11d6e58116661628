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
 * tokens, with vertical `marks` `[{at, label, kind}]`. Call `layoutLabels` once the bar
 * is in the document: it puts the marks' labels in lanes so that none overlaps another.
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
  for (const m of [...marks].filter((m) => m.at >= 0).sort((a, b) => a.at - b.at)) {
    bar.append(
      el("div", { class: `mark m-${m.kind ?? "limit"}`, style: `left:${pct(m.at)}`, dataset: { mark: m.kind ?? "", at: String(m.at) } },
        el("span", { class: "label" }, `${m.label} ${fmt(m.at)}`)),
    );
  }
  return el("div", { class: "barbox" }, bar);
}

/**
 * Places the labels of a token bar (in the document): right of its line, or left of it
 * when it would leave the bar; in the lowest lane above the bar where it overlaps no
 * other label. The box above the bar grows with the lanes used.
 */
export function layoutLabels(barbox, laneHeight = 18, gap = 6) {
  const bar = barbox.querySelector(".bar");
  const width = bar.clientWidth;
  const lanes = []; // per lane, the labels' [left, right] spans
  for (const mark of bar.querySelectorAll(".mark")) {
    const span = mark.querySelector(".label");
    const x = mark.offsetLeft;
    const w = span.offsetWidth;
    const right = x + 3 + w <= width;
    const left = right ? x + 3 : x - 3 - w;
    span.style.left = right ? "3px" : `${-3 - w}px`;
    let lane = lanes.findIndex((spans) => spans.every(([a, b]) => left + w + gap <= a || b + gap <= left));
    if (lane < 0) lane = lanes.push([]) - 1;
    lanes[lane].push([left, left + w]);
    span.style.top = `${-(lane + 1) * laneHeight - 4}px`;
  }
  barbox.style.paddingTop = `${lanes.length * laneHeight + 10}px`;
}

const SVG = "http://www.w3.org/2000/svg";
function svg(tag, attrs = {}, ...children) {
  const node = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) if (v !== undefined && v !== null) node.setAttribute(k, String(v));
  for (const c of children) if (c !== undefined && c !== null) node.append(c);
  return node;
}

/**
 * The timeline of a replay: the tokens at each turn boundary (and what the next request
 * carries after a rewrite) against hardLimit, the trigger and the window, with a marker
 * for each compaction, degrade or overflow. `turns` and `events` as replaySession
 * returns them. Lines are named in a legend under the chart, not on it.
 */
export function timelineChart({ turns, events, hardLimit, trigger, window }) {
  const W = 1000;
  const H = 260;
  const [L, R, T, B] = [64, 12, 10, 28];
  const n = turns.length;
  const top = Math.max(hardLimit * 1.15, ...turns.map((t) => t.tokens));
  const x = (k) => L + (n <= 1 ? 0 : (k / (n - 1)) * (W - L - R));
  const y = (v) => T + (1 - Math.min(v, top) / top) * (H - T - B);
  const chart = svg("svg", { viewBox: `0 0 ${W} ${H}`, class: "timeline", role: "img", "aria-label": "tokens per turn boundary against hardLimit" });
  for (let i = 0; i <= 4; i++) {
    const v = Math.round((top * i) / 4);
    chart.append(svg("line", { x1: L, x2: W - R, y1: y(v), y2: y(v), class: "grid" }), svg("text", { x: L - 6, y: y(v) + 4, "text-anchor": "end", class: "tick" }, fmt(v)));
  }
  chart.append(svg("text", { x: L, y: H - 8, class: "tick" }, "turn 1"), svg("text", { x: W - R, y: H - 8, "text-anchor": "end", class: "tick" }, `turn ${fmt(n)}`));
  if (window <= top) chart.append(svg("line", { x1: L, x2: W - R, y1: y(window), y2: y(window), class: "l-window", "data-line": "window" }));
  chart.append(svg("line", { x1: L, x2: W - R, y1: y(trigger), y2: y(trigger), class: "l-trigger", "data-line": "trigger" }));
  chart.append(svg("line", { x1: L, x2: W - R, y1: y(hardLimit), y2: y(hardLimit), class: "l-limit", "data-line": "hardLimit" }));
  let d = "";
  turns.forEach((t, k) => {
    d += `${k ? "L" : "M"}${x(k).toFixed(1)},${y(t.tokens).toFixed(1)}`;
    if (t.after !== null && t.after !== t.tokens) d += `L${x(k).toFixed(1)},${y(t.after).toFixed(1)}`;
  });
  chart.append(svg("path", { d, class: "tokens" }));
  events.forEach((e, i) => {
    const cx = x(e.turn);
    const cy = y(e.tokensBefore);
    const title = svg("title", {}, `${e.kind} at turn ${e.turn + 1}: ${fmt(e.tokensBefore)} → ${e.tokensAfter === null ? "✗" : fmt(e.tokensAfter)} tokens`);
    chart.append(e.kind === "overflow"
      ? svg("path", { d: `M${cx - 6},${cy - 6}L${cx + 6},${cy + 6}M${cx - 6},${cy + 6}L${cx + 6},${cy - 6}`, class: "ev ev-overflow", "data-event": String(i) }, title)
      : svg("circle", { cx, cy, r: 4.5, class: `ev ev-${e.kind}`, "data-event": String(i) }, title));
  });
  return chart;
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
