// Differential test (issue 3, part 1): our compaction primitives against
// @earendil-works/pi-agent-core 0.85.1 on the real sessions of ../shared/fixtures/pi-sessions.
//
// Turn boundary (the prefixes compared): a prefix ends after an assistant message that
// calls no tools, or after a tool result that is not followed by another tool result
// (the last result of an assistant's calls). For every such prefix of both sessions and
// every keepRecentTokens setting, pi's prepareCompaction (on the messages wrapped as
// session entries) and ours must agree on the cut, the split, the exact messages of each
// part (compared by identity: each part is the same run of input messages), tokensBefore
// and fileOps. Our index-level batch export (compactionPlans) covers every prefix; the
// full prepareCompaction / findCutPoint exports are compared on a sample, message by message.
import test from "node:test";
import assert from "node:assert/strict";
import {
  convertToLlm,
  findCutPoint as piFindCutPoint,
  prepareCompaction as piPrepareCompaction,
  serializeConversation as piSerializeConversation,
} from "@earendil-works/pi-agent-core";
import { dc, loadSessionMessages, SESSION_FILES } from "./helpers.mjs";
import { toEntries } from "./pi-entries.mjs";

const KEEP_RECENT = [1000, 5000, 20000, 100000];
const RESERVE = 16384;
const SAMPLE_EVERY = 40;

function turnBoundaries(ms) {
  const ends = [];
  for (let e = 1; e <= ms.length; e++) {
    const last = ms[e - 1];
    const next = ms[e];
    if (last.role === "assistant" && !last.content.some((b) => b.type === "toolCall")) ends.push(e);
    else if (last.role === "toolResult" && (!next || next.role !== "toolResult")) ends.push(e);
  }
  return ends;
}

const range = (a, b) => Array.from({ length: Math.max(0, b - a) }, (_, i) => a + i);
const indicesOf = (index, list) => list.map((m) => index.get(m));

function compareRow(label, pi, ours, index, offset = 0) {
  if (pi === undefined) {
    assert.equal(ours.applicable, false, `${label}: pi returned undefined`);
    return;
  }
  assert.equal(ours.applicable, true, label);
  assert.equal(ours.isSplitTurn, pi.isSplitTurn, `${label}: isSplitTurn`);
  assert.equal(ours.tokensBefore, pi.tokensBefore, `${label}: tokensBefore`);
  assert.deepEqual(indicesOf(index, pi.messagesToSummarize), range(ours.compactableStart, ours.historyEnd).map((i) => i - offset), `${label}: messagesToSummarize`);
  const prefix = ours.isSplitTurn ? range(ours.turnStartIndex, ours.firstKeptEntryIndex) : [];
  assert.deepEqual(indicesOf(index, pi.turnPrefixMessages), prefix.map((i) => i - offset), `${label}: turnPrefixMessages`);
  assert.deepEqual(indicesOf(index, pi.retainedTail), range(ours.firstKeptEntryIndex, ours.end).map((i) => i - offset), `${label}: retainedTail`);
  assert.equal(ours.previousSummary, pi.previousSummary, `${label}: previousSummary`);
  assert.deepEqual(ours.fileOps, { read: [...pi.fileOps.read], written: [...pi.fileOps.written], edited: [...pi.fileOps.edited] }, `${label}: fileOps`);
}

const totals = { prefixes: 0, comparisons: 0, full: 0, summaryPrefixes: 0 };

for (const file of SESSION_FILES) {
  const ms = loadSessionMessages(file);
  test(`compaction matches pi-agent-core on every turn-boundary prefix of ${file}`, { skip: ms === null }, () => {
    const entries = toEntries(ms);
    const index = new Map(ms.map((m, i) => [m, i]));
    const ends = turnBoundaries(ms);
    assert.ok(ends.length > 300, `${file}: only ${ends.length} boundaries`);
    totals.prefixes += ends.length;
    for (const keep of KEEP_RECENT) {
      const settings = { enabled: true, reserveTokens: RESERVE, keepRecentTokens: keep };
      const rows = dc.compactionPlans(ms, ends, settings);
      assert.equal(rows.length, ends.length);
      ends.forEach((end, k) => {
        const pathEntries = entries.slice(0, end);
        const r = piPrepareCompaction(pathEntries, settings);
        assert.ok(r.ok);
        const label = `${file} end=${end} keep=${keep}`;
        compareRow(label, r.value, rows[k], index);
        const cut = piFindCutPoint(pathEntries, 0, end, keep);
        assert.equal(rows[k].firstKeptEntryIndex, cut.firstKeptEntryIndex, `${label}: findCutPoint`);
        assert.equal(rows[k].turnStartIndex, cut.turnStartIndex, `${label}: turnStartIndex`);
        totals.comparisons++;
        if (k % SAMPLE_EVERY === 0 || k === ends.length - 1) {
          // The full exports, message by message.
          const prefix = ms.slice(0, end);
          const ours = dc.prepareCompaction(prefix, settings);
          const pi = r.value;
          assert.deepEqual(ours.messagesToSummarize, pi.messagesToSummarize, `${label}: full messagesToSummarize`);
          assert.deepEqual(ours.turnPrefixMessages, pi.turnPrefixMessages, `${label}: full turnPrefixMessages`);
          assert.deepEqual(ours.retainedTail, pi.retainedTail, `${label}: full retainedTail`);
          assert.equal(ours.tokensBefore, pi.tokensBefore);
          assert.deepEqual(dc.findCutPoint(prefix, 0, end, keep), cut, `${label}: findCutPoint export`);
          totals.full++;
        }
      });
    }
  });

  test(`a compactionSummary message plays pi's previous compaction entry in ${file}`, { skip: ms === null }, () => {
    const index = new Map(ms.map((m, i) => [m, i]));
    const ends = turnBoundaries(ms).filter((_, k) => k % 7 === 0);
    for (const keep of [1000, 20000]) {
      const settings = { enabled: true, reserveTokens: RESERVE, keepRecentTokens: keep };
      for (const end of ends) {
        // the previous compaction retained ms[a..b) and ms[b..end) came after it
        const a = Math.floor(end / 3);
        const b = Math.floor(end / 2);
        if (ms[a]?.role === "toolResult" || b <= a) continue;
        const details = { readFiles: ["/tmp/prev-read.ts"], modifiedFiles: ["/tmp/prev-mod.ts"] };
        const compactionEntry = {
          type: "compaction", id: "c1", parentId: null, timestamp: new Date(0).toISOString(),
          summary: "PREVIOUS SUMMARY", tokensBefore: 12345, firstKeptEntryId: "x",
          retainedTail: ms.slice(a, b), details,
        };
        const pathEntries = [compactionEntry, ...toEntries(ms.slice(b, end)).map((e, i) => ({ ...e, id: `f${i}` }))];
        const pi = piPrepareCompaction(pathEntries, settings).value;
        const ours = [{ role: "compactionSummary", summary: "PREVIOUS SUMMARY", tokensBefore: 12345, timestamp: 0, details }, ...ms.slice(a, end)];
        const row = dc.compactionPlans(ours, [ours.length], settings)[0];
        assert.equal(row.compactableStart, 1);
        // ours indexes the array with the summary in front: message ms[i] sits at i - a + 1
        const oursRow = { ...row, end: row.end };
        const shift = new Map([...index].map(([m, i]) => [m, i - a + 1]));
        compareRow(`${file} previous-summary end=${end} keep=${keep}`, pi, oursRow, shift);
        totals.summaryPrefixes++;
      }
    }
  });

  test(`serializeConversation matches pi on ${file}`, { skip: ms === null }, () => {
    assert.equal(dc.serializeConversation(ms), piSerializeConversation(convertToLlm(ms)));
    for (let s = 0; s < ms.length; s += 97) {
      const part = ms.slice(s, s + 150);
      assert.equal(dc.serializeConversation(part), piSerializeConversation(convertToLlm(part)));
    }
  });
}

test("differential totals", { skip: totals === null }, () => {
  console.log(
    `# compaction diff: ${totals.prefixes} turn-boundary prefixes x ${KEEP_RECENT.length} keepRecentTokens settings = ${totals.comparisons} comparisons (${totals.full} full message-by-message), ${totals.summaryPrefixes} with a previous summary`,
  );
});
