// Benchmarks, side by side with the reference JavaScript in one run, reported as
// ratios (ours / pi: below 1 means we are faster). Run: node bench/run.mjs
// Uses the real sessions of ../shared/fixtures/pi-sessions (skipped when absent).
import * as pi from "@earendil-works/pi-agent-core";
import { dc, loadSessionMessages, SESSION_FILES } from "../tests/js/helpers.mjs";

function time(fn, minMs = 300) {
  for (let i = 0; i < 3; i++) fn(); // warm up
  let n = 0;
  const t0 = performance.now();
  let t = t0;
  while (t - t0 < minMs) {
    fn();
    n++;
    t = performance.now();
  }
  return (t - t0) / n;
}

const rows = [];
function compare(name, ours, theirs) {
  const a = time(ours);
  const b = time(theirs);
  rows.push({ benchmark: name, "ours µs": (a * 1000).toFixed(1), "pi µs": (b * 1000).toFixed(2), "ratio ours/pi": (a / b).toFixed(1) });
}

for (const file of SESSION_FILES) {
  const messages = loadSessionMessages(file);
  if (!messages) continue;
  const label = `${file} (${messages.length} msgs)`;
  compare(`estimateContextTokens, whole session: ${label}`, () => dc.estimateContextTokens(messages), () => pi.estimateContextTokens(messages));
  compare(`estimateTokens, every message: ${label}`, () => { for (const m of messages) dc.estimateTokens(m); }, () => { for (const m of messages) pi.estimateTokens(m); });
  const extra = await import("./compaction.mjs").catch(() => null);
  if (extra) extra.register({ compare, messages, label, dc, pi });
}
console.table(rows);
