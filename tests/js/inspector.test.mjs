// The inspector (www/) in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core). Every number the page shows is checked against the package's own
// result computed here in Node from pkg/node: budget, tokens, cut, action, outcome,
// chains, seeds, the usage/estimate figures, and the replayed timeline (against a
// replay through the one-shot functions, tests/js/inspector-reference.mjs). The demo's
// files, the real pi sessions and an unknown-model file are opened as a user would.
// Screenshots go to target/screenshots/inspector-*.png.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync, rmSync } from "node:fs";
import { resolve } from "node:path";
import { dc, fixturesDir, root } from "./helpers.mjs";
import { serve, launch, newPage, screenshot } from "./browser.mjs";
import { placeholderSummary, withoutUsage } from "../../www/analyse.js";
import { parseTranscript } from "../../www/load.js";
import { findPreset } from "../../www/models.js";
import { sampleTranscript } from "../../www/sample.js";
import { eventKey, referenceReplay } from "./inspector-reference.mjs";
import { runDemo } from "../../examples/main.mjs";

// ---- page helpers --------------------------------------------------------------------

/** The number a `[data-field=name]` element shows ("12,345" or "#12" → a number). */
async function num(page, field, scope = "") {
  const text = await page.textContent(`${scope} [data-field="${field}"]`);
  const n = Number(text.replace(/[,#]/g, ""));
  assert.ok(Number.isFinite(n), `${field} shows a number: ${JSON.stringify(text)}`);
  return n;
}
const text = (page, field, scope = "") => page.textContent(`${scope} [data-field="${field}"]`);

/** Runs `action` and waits until the page finished opening one more file. */
async function opened(page, action) {
  const before = Number((await page.getAttribute("body", "data-opened")) ?? 0);
  await action();
  await page.waitForFunction((b) => Number(document.body.dataset.opened ?? 0) > b, before, { timeout: 20000 });
}

/** Runs `action` and waits for the next budget-dependent analysis. */
async function analysed(page, action) {
  const before = Number((await page.getAttribute("body", "data-analyses")) ?? 0);
  await action();
  await page.waitForFunction((b) => Number(document.body.dataset.analyses ?? 0) > b, before, { timeout: 20000 });
}

/** A file for `page.setInputFiles`. */
const file = (name, content) => ({ name, mimeType: "application/json", buffer: Buffer.from(content) });

async function openPage(t, browser, base, query = "", expectedErrors = /^$/) {
  const errors = [];
  const page = await newPage(browser, errors);
  t.after(() => assert.deepEqual(errors.filter((e) => !expectedErrors.test(e)), [], "no page errors"));
  await page.goto(`${base}/www/index.html${query}`);
  await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
  return page;
}

async function setModel(page, contextWindow, maxTokens) {
  await page.fill("#contextWindow", String(contextWindow));
  await page.fill("#maxTokens", String(maxTokens));
}

// ---- expectations computed in Node ---------------------------------------------------

/** What the package says about `messages` under `model`, with the page's placeholder. */
function expected(messages, model, modelId, summaryTokens = 1000) {
  const budget = dc.contextBudget(model);
  const prep = dc.prepareCompaction(messages, { reserveTokens: budget.requestHeadroom, keepRecentTokens: budget.keepRecentTokens });
  const cut = dc.findCutPoint(messages, 0, messages.length, budget.keepRecentTokens);
  const input = { messages, budget, modelId };
  const plan = dc.prepareDelegateTurn(input);
  const answer = plan.action === "summarize" ? Object.fromEntries(plan.requests.map((r) => [r.kind, placeholderSummary(r.kind, summaryTokens)])) : undefined;
  let outcome;
  let failure;
  try {
    outcome = dc.completeDelegateTurn({ ...input, answer });
  } catch (e) {
    failure = e;
  }
  const tokens = messages.map((m) => dc.estimateTokens(m));
  return { budget, prep, cut, plan, outcome, failure, tokens, sum: tokens.reduce((a, b) => a + b, 0) };
}

/** The page's context numbers equal the package's. */
async function assertContext(page, want) {
  assert.equal(await num(page, "hardLimit"), want.budget.hardLimit);
  assert.equal(await num(page, "messageCount"), want.tokens.length);
  assert.equal(await num(page, "estimateSum"), want.sum);
  assert.equal(await num(page, "boundaryTokens"), want.plan.tokens);
  assert.equal(await num(page, "threshold"), want.plan.threshold);
  assert.equal(await text(page, "action"), want.plan.action);
  assert.equal(await text(page, "turn"), want.plan.turn);
  assert.equal(await num(page, "planSummarized"), want.plan.summarizedMessages);
  assert.equal(await num(page, "planRetained"), want.plan.retainedMessages);
  assert.equal(await num(page, "compactableStart"), want.prep.compactableStart);
  assert.equal(await num(page, "firstKeptIndex"), want.prep.firstKeptIndex);
  assert.match(await text(page, "isSplitTurn"), want.prep.isSplitTurn ? /^yes: / : /^no$/);
  assert.equal(await num(page, "messagesToSummarize"), want.prep.messagesToSummarize.length);
  assert.equal(await num(page, "turnPrefixMessages"), want.prep.turnPrefixMessages.length);
  assert.equal(await num(page, "retainedTail"), want.prep.retainedTail.length);
  assert.equal(await num(page, "tokensBefore"), want.prep.tokensBefore);
  assert.equal(await num(page, "cutFirstKept"), want.cut.firstKeptEntryIndex);
  assert.equal(await num(page, "cutTurnStart"), want.cut.turnStartIndex);
  const kinds = await page.$$eval('[data-field="request"]', (els) => els.map((e) => e.dataset.kind));
  assert.deepEqual(kinds, want.plan.requests.map((r) => r.kind));
  if (want.failure) {
    assert.equal(await page.getAttribute('[data-field="verdict"]', "data-value"), "fail");
    assert.equal(await page.getAttribute('[data-field="failure"]', "data-code"), want.failure.code);
    assert.match(await text(page, "failure"), /does not fit in the context window of model/);
    return;
  }
  const o = want.outcome;
  assert.equal(await page.getAttribute('[data-field="verdict"]', "data-value"), o.outcome);
  assert.equal(await text(page, "outcome"), o.outcome);
  assert.equal(await num(page, "tokensAfter"), o.tokensAfter);
  assert.equal(await num(page, "messagesAfter"), o.messages.length);
  assert.equal(await num(page, "summarizedMessages"), o.summarizedMessages);
  assert.equal(await num(page, "droppedMessages"), o.droppedMessages);
  assert.equal(await num(page, "droppedTokens"), o.droppedTokens);
}

/** The first rendered rows of the message list equal the package's per-message estimates. */
async function assertRows(page, want) {
  const rows = await page.$$eval("#list .row", (els) => els.map((e) => [Number(e.dataset.i), e.children[1].textContent, Number(e.children[2].textContent.replace(/,/g, ""))]));
  assert.ok(rows.length > 5, "rows are drawn");
  for (const [i, role, tokens] of rows) assert.deepEqual([i, role, tokens], [i, want.messages[i].role, want.tokens[i]]);
}

/**
 * The usage-anchored figure and the chars/4 estimate are both shown, the decision's
 * figure is the package's, and the notice says when they disagree and which one decided
 * (with the package's own action on the estimate alone).
 */
async function assertFigures(page, messages, want, modelId) {
  const est = dc.estimateContextTokens(messages);
  const usage = est.lastUsageIndex === undefined || est.lastUsageIndex === null ? null : est;
  const usageText = await text(page, "usageFigure");
  if (usage) assert.match(usageText, new RegExp(`^${usage.tokens.toLocaleString("en-US")} \\(usage ${usage.usageTokens.toLocaleString("en-US")} at message #${usage.lastUsageIndex} \\+ ${usage.trailingTokens.toLocaleString("en-US")} estimated after it\\)$`));
  else assert.match(usageText, /^none/);
  assert.equal(await num(page, "estimateSum"), want.sum);
  const decidedBy = usage && want.plan.tokens !== want.sum ? "usage" : "estimate";
  const other = decidedBy === "usage" ? want.sum : usage?.tokens;
  const notice = await page.$('[data-field="figuresNotice"]');
  if (other === undefined) {
    assert.equal(notice, null, "no second figure, no notice");
    return { decidedBy, disagree: false };
  }
  const lo = Math.min(want.plan.tokens, other);
  const hi = Math.max(want.plan.tokens, other);
  const disagree = hi > 1.25 * lo || (want.plan.tokens >= want.plan.threshold) !== (other >= want.plan.threshold);
  assert.equal(await notice.getAttribute("data-disagree"), String(disagree));
  assert.equal(await notice.getAttribute("data-decided-by"), decidedBy);
  const noticeText = await notice.textContent();
  if (disagree) {
    assert.match(noticeText, new RegExp(`^The two figures disagree: provider usage puts the context at ${usage.tokens.toLocaleString("en-US")} tokens, the chars/4 estimate at ${want.sum.toLocaleString("en-US")}\\. The decision used the ${decidedBy === "usage" ? "provider usage figure" : "chars/4 estimate"} \\(${want.plan.tokens.toLocaleString("en-US")}\\)`));
    if (decidedBy === "usage") {
      const byEstimate = dc.prepareDelegateTurn({ messages: messages.map(withoutUsage), budget: want.budget, modelId }).action;
      assert.equal(await page.getAttribute('[data-field="byEstimate"]', "data-value"), byEstimate);
    }
  }
  return { decidedBy, disagree };
}

/** No two labels of a token bar overlap, and none leaves the page. */
async function assertLabels(page) {
  const bars = await page.$$eval(".barbox", (boxes) => boxes.filter((b) => b.offsetParent).map((b) =>
    [...b.querySelectorAll(".mark .label")].map((s) => {
      const r = s.getBoundingClientRect();
      return { text: s.textContent, left: r.left, right: r.right, top: r.top, bottom: r.bottom };
    })));
  assert.ok(bars.length > 0, "bars drawn");
  const width = await page.evaluate(() => document.documentElement.clientWidth);
  for (const labels of bars) {
    for (const a of labels) assert.ok(a.left >= 0 && a.right <= width, `label ${a.text} inside the page`);
    for (let i = 0; i < labels.length; i++) {
      for (let j = i + 1; j < labels.length; j++) {
        const [a, b] = [labels[i], labels[j]];
        const overlap = a.left < b.right && b.left < a.right && a.top < b.bottom && b.top < a.bottom;
        assert.ok(!overlap, `labels "${a.text}" and "${b.text}" overlap`);
      }
    }
  }
}

/** The page's timeline equals a replay of `whole` through the package's one-shot functions. */
async function assertTimeline(page, whole, budget, modelId, summaryTokens = 1000) {
  const ref = referenceReplay(whole, budget, modelId, summaryTokens);
  const shown = await page.$$eval("#events tbody tr", (trs) => trs.map((tr) => ({ ...tr.dataset })));
  const num = (v) => (v === "" ? null : Number(v));
  const got = shown.map((d) => eventKey({
    kind: d.kind, turn: Number(d.turn), at: Number(d.at), tokensBefore: Number(d.before), tokensAfter: num(d.after),
    keptFrom: num(d.keptFrom), summarized: num(d.summarized), dropped: num(d.dropped),
  }));
  assert.deepEqual(got, ref.events.map(eventKey), "the timeline's events");
  assert.equal(await page.$$eval("svg.timeline .ev", (els) => els.length), ref.events.length, "one marker per event");
  const summary = await text(page, "replaySummary");
  const count = (k) => ref.events.filter((e) => e.kind === k).length;
  assert.match(summary, new RegExp(`through ${ref.tokens.length.toLocaleString("en-US")} turn boundar(y|ies) .*: ${count("compacted").toLocaleString("en-US")} compactions?, ${count("degraded").toLocaleString("en-US")} degrades?, ${count("overflow") ? "an overflow" : "no overflow"}`));
  assert.equal(await page.getAttribute('[data-field="replaySummary"]', "data-end"), count("overflow") ? "SUBAGENT_CONTEXT_OVERFLOW" : "completed");
  return { ref, ms: Number(await page.getAttribute("#timeline", "data-replay-ms")) };
}

/** How each run of a chain ended, as the rows' last Task copy records it. */
function runEnds(rows) {
  const last = new Map();
  for (const r of rows) if (r.role === "tool" && /^task$/i.test(r.toolName ?? "")) last.set(r.toolCallId, r);
  const out = {};
  for (const r of last.values()) {
    const d = r.toolResult?.details;
    if (typeof d?.delegationId !== "string") continue;
    out[d.delegationId] = { status: d.status ?? "", code: (typeof d.error === "string" ? d.error : d.error?.code ?? d.code ?? ""), degraded: typeof d.contextDegraded === "boolean" ? String(d.contextDegraded) : "", compactions: typeof d.contextCompactions === "number" ? String(d.contextCompactions) : "" };
  }
  return out;
}

// A brief plus `turns` tool turns of ~430 tokens each: over a 32k window's hardLimit.
function generatedMessages(turns = 60, briefChars = 200) {
  const messages = [{ role: "user", content: `Brief: read every file under src/ and list what it exports. ${"Be thorough. ".repeat(briefChars / 13)}`, timestamp: 1 }];
  for (let i = 0; i < turns; i++) {
    messages.push({ role: "assistant", content: [{ type: "toolCall", id: `call_${i}`, name: "read", arguments: { path: `src/file${i}.ts` } }], stopReason: "toolUse", timestamp: 2 + i });
    messages.push({ role: "toolResult", toolCallId: `call_${i}`, toolName: "read", content: [{ type: "text", text: `// src/file${i}.ts\n${"export const x = 1;\n".repeat(85)}` }], isError: false, timestamp: 2 + i });
  }
  messages.push({ role: "assistant", content: [{ type: "text", text: "All files read; writing the report." }], stopReason: "stop", timestamp: 99 });
  return messages;
}

/** A fixture's path, or a skip (a failure under CI=true) when the fixtures are absent. */
function fixture(t, name) {
  const p = resolve(fixturesDir, name);
  if (existsSync(p)) return p;
  if (process.env.CI === "true") throw new Error(`fixture missing under CI: ${p}`);
  console.log(`# SKIP: fixture ${p} is absent; the fixture part of this test is skipped`);
  t.skip(`fixture ${name} absent`);
  return null;
}

// ---- tests ---------------------------------------------------------------------------

test("inspector in Chromium", async (t) => {
  const gen = generatedMessages();
  const base = await serve(t, { routes: { "/gen/generated.json": JSON.stringify(gen) } });
  const browser = await launch(t);

  await t.test("budget: presets and typed windows, errors readable", async (t) => {
    const page = await openPage(t, browser, base);
    assert.match(await page.textContent("#version"), /^delegate-context \d/);
    assert.equal(await page.inputValue("#preset"), "anthropic/claude-opus-4-5");
    assert.equal(await num(page, "hardLimit"), 150000);
    await page.selectOption("#preset", "openai/gpt-4o");
    assert.equal(await num(page, "hardLimit"), dc.contextBudget({ contextWindow: 128000, maxTokens: 16384 }).hardLimit);
    await setModel(page, 64000, 16000);
    assert.equal(await page.inputValue("#preset"), "custom");
    assert.equal(await num(page, "hardLimit"), 47616);
    assert.equal(await num(page, "keepRecentTokens"), 9523);
    assert.equal(await num(page, "requestHeadroom"), 16384);
    await page.fill("#contextWindow", "-5");
    assert.match(await page.textContent("#error"), /^INVALID_INPUT at model\.contextWindow: .*expected a finite number >= 0, got -5/);
    await page.fill("#contextWindow", "64000");
    assert.equal(await page.textContent("#error"), "");
  });

  await t.test("sample: chains, resumable list and seed equal the package's", async (t) => {
    const page = await openPage(t, browser, base);
    await opened(page, () => page.click("#sample"));
    const rows = sampleTranscript();
    const reg = dc.DelegationRegistry.fromTranscript(rows);
    t.after(() => reg.free());
    assert.equal(await page.textContent("#prompt"), reg.resumablePrompt());
    assert.equal(await page.inputValue("#preset"), "openai/gpt-4o", "the model the chain recorded");
    const shown = await page.$$eval("#chains tbody tr", (trs) => trs.map((tr) => [tr.dataset.id, tr.querySelector('[data-field="resumable"]').dataset.code]));
    const want = shown.map(([id]) => {
      const chain = reg.resolve(id);
      try {
        reg.validateResume({ delegationId: chain.latestDelegationId, agent: chain.agent }, rows);
        return [chain.latestDelegationId, ""];
      } catch (e) {
        return [chain.latestDelegationId, e.code];
      }
    });
    assert.deepEqual(shown, want);
    assert.deepEqual(shown.map(([, code]) => code), ["", "NOT_RESUMABLE", "READ_BUDGET_EXCEEDED", "NOT_RESUMABLE"]);
    const skips = await page.$$eval("[data-skip]", (els) => els.map((e) => [e.textContent, e.dataset.skip]));
    assert.deepEqual(skips, reg.rebuildSkips().map((s) => [s.toolCallId, s.reason]));
    // the selected chain (explorer, two runs): its seed and its context
    const chain = reg.resolve(shown[0][0]);
    assert.equal(await page.textContent("#chains tr.selected [data-field=runs]").then((s) => (s.match(/completed/g) ?? []).length), 2);
    const binding = { provider: "openai", model: "gpt-4o" };
    const model = { contextWindow: 128000, maxTokens: 16384 };
    const budget = dc.contextBudget(model);
    const seed = dc.seedDelegateMessages({ brief: chain.brief, rows, chain, binding, hardLimit: budget.hardLimit });
    assert.equal(await num(page, "seedTokens"), seed.tokens);
    assert.equal(await num(page, "seedHardLimit"), budget.hardLimit);
    assert.equal(await text(page, "seedTruncated"), seed.truncated ? "yes" : "no");
    assert.match(await text(page, "seedMessages"), new RegExp(`^${seed.messages.length} `));
    assert.match(await text(page, "seedDroppedCalls"), new RegExp(`^${seed.dropped.toolCallIds.length}: ${seed.dropped.toolCallIds[0]}`));
    assert.equal(await num(page, "seedDroppedMessages"), seed.dropped.messages);
    assert.equal(await num(page, "seedDroppedTokens"), seed.dropped.tokens);
    const history = dc.seedDelegateMessages({ brief: chain.brief, rows, chain, binding, hardLimit: Number.MAX_SAFE_INTEGER }).messages;
    const wantContext = expected(history, model, "openai/gpt-4o");
    assert.equal(wantContext.outcome.outcome, "compacted", "the sample shows a compaction");
    await assertContext(page, wantContext);
    await assertRows(page, { messages: history, tokens: wantContext.tokens });
    await assertLabels(page);
    await assertTimeline(page, history, budget, "openai/gpt-4o");
    await screenshot(page, "inspector-sample");
    // the seeded history, listed on demand
    await page.click("#seed details summary");
    await page.waitForSelector("#seeded tr:nth-child(2)");
    const seededRows = await page.$$eval("#seeded tr", (trs) => trs.slice(1).map((tr) => [tr.children[1].textContent, Number(tr.children[2].textContent.replace(/,/g, ""))]));
    assert.deepEqual(seededRows, seed.messages.map((m) => [m.role, dc.estimateTokens(m)]));
    // another chain: the stopped reviewer (a short context, below the limit)
    await analysed(page, () => page.check('#chains tr[data-chain="1"] input'));
    const reviewer = reg.resolve(shown[1][0]);
    const rHistory = dc.seedDelegateMessages({ brief: reviewer.brief, rows, chain: reviewer, binding, hardLimit: Number.MAX_SAFE_INTEGER }).messages;
    await assertContext(page, expected(rHistory, model, "openai/gpt-4o"));
    assert.equal(await page.getAttribute('[data-field="verdict"]', "data-value"), "unchanged");
  });

  await t.test("a generated transcript over a small model's hardLimit: compact, degrade, fail", async (t) => {
    const page = await openPage(t, browser, base);
    await setModel(page, 32000, 8000);
    await opened(page, () => page.setInputFiles("#file", file("generated.json", JSON.stringify(gen))));
    const model = { contextWindow: 32000, maxTokens: 8000 };
    let want = expected(gen, model, "custom/model");
    assert.equal(want.budget.hardLimit, 16000);
    assert.equal(want.plan.action, "summarize");
    assert.equal(want.outcome.outcome, "compacted");
    await assertContext(page, want);
    await assertRows(page, { messages: gen, tokens: want.tokens });
    // the summary request's text is shown on demand
    await page.click('[data-field="request"] summary');
    await page.waitForFunction(() => document.querySelector('[data-field="request"] pre').textContent.length > 0); // filled on toggle
    const shownRequest = await page.textContent('[data-field="request"] pre');
    const request = want.plan.requests[0];
    assert.ok(shownRequest.includes(request.systemPrompt), "system prompt shown");
    assert.ok(shownRequest.includes(request.messages[0].content[0]?.text ?? request.messages[0].content), "prompt shown");
    // the cut is marked in the list
    await page.click("text=show the cut in the list");
    assert.equal(await page.getAttribute("#list .row.cut", "data-i"), String(want.prep.firstKeptIndex));
    await assertLabels(page);
    await assertTimeline(page, gen, want.budget, "custom/model");
    await screenshot(page, "inspector-generated");

    // a summary as long as the whole budget: the compaction cannot fit, the run degrades
    await analysed(page, () => page.fill("#summaryTokens", "20000"));
    want = expected(gen, model, "custom/model", 20000);
    assert.equal(want.outcome.outcome, "degraded");
    assert.ok(want.outcome.droppedMessages > 0);
    await assertContext(page, want);
    assert.ok(await page.isVisible(".bar .seg.r-dropped"), "the bar shows what is dropped");
    await page.$eval("#list", (l) => {
      l.scrollTop = 0;
    });
    await page.waitForSelector('#list .row[data-i="0"]');
    const tags = await page.$$eval("#list .row .tag", (els) => els.map((e) => e.textContent));
    assert.deepEqual(tags.slice(0, 3), ["brief", "dropped", "dropped"], "dropped messages are marked");
    await screenshot(page, "inspector-degraded");

    // a brief that alone is over GPT-4's hardLimit (4,096): the boundary fails
    const big = generatedMessages(3, 40000);
    await page.fill("#summaryTokens", "1000");
    await analysed(page, () => page.selectOption("#preset", "openai/gpt-4"));
    await opened(page, () => page.setInputFiles("#file", file("big-brief.json", JSON.stringify(big))));
    want = expected(big, { contextWindow: 8192, maxTokens: 8192 }, "openai/gpt-4");
    assert.equal(want.failure?.code, "SUBAGENT_CONTEXT_OVERFLOW");
    await assertContext(page, want);
    await screenshot(page, "inspector-fail");
  });

  await t.test("real sessions: pi's context after its last compaction, both figures, the timeline (times logged, not asserted)", async (t) => {
    const page = await openPage(t, browser, base);
    for (const name of ["before-compaction.jsonl", "large-session.jsonl"]) {
      const path = fixture(t, name);
      if (!path) return;
      await page.evaluate(() => {
        window.__longest = 0;
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__longest = Math.max(window.__longest, e.duration);
        }).observe({ type: "longtask" });
      });
      const t0 = performance.now();
      await opened(page, () => page.setInputFiles("#file", path));
      const wall = performance.now() - t0;
      const openMs = Number(await page.getAttribute("#source", "data-open-ms"));
      const longest = await page.evaluate(() => window.__longest);
      const size = readFileSync(path).length;
      const parsed = parseTranscript(readFileSync(path, "utf8"), name);
      const replayMs = Number(await page.getAttribute("#timeline", "data-replay-ms"));
      console.log(`# ${name} (${(size / 1e6).toFixed(2)} MB, ${parsed.whole.messages.length} messages): opened, analysed, replayed (${replayMs.toFixed(0)} ms) and rendered in ${openMs.toFixed(0)} ms in the page (${wall.toFixed(0)} ms as the test saw it); longest main-thread task ${longest.toFixed(0)} ms`);
      assert.equal(await page.textContent("#error"), "");
      assert.equal(await page.isVisible("#ask"), false, "a known model: no prompt");
      const preset = parsed.modelId.replace(/-\d{8}$/, "");
      assert.equal(await page.inputValue("#preset"), `anthropic/${preset}`, "the model the session names");
      // the preset's window and output cap, as pi-ai's registry has them
      const model = { contextWindow: Number(await page.inputValue("#contextWindow")), maxTokens: Number(await page.inputValue("#maxTokens")) };
      const want = expected(parsed.messages, model, `anthropic/${preset}`);
      await assertContext(page, want);
      await assertRows(page, { messages: parsed.messages, tokens: want.tokens });
      const figures = await assertFigures(page, parsed.messages, want, `anthropic/${preset}`);
      console.log(`# ${name}: decided on ${want.plan.tokens} (${figures.decidedBy}); chars/4 estimate ${want.sum}; ${figures.disagree ? "they disagree" : "they agree"}`);
      if (name === "before-compaction.jsonl") {
        // pi's context: the last compaction's summary first (after the synthetic brief)
        assert.equal(await page.textContent('#list .row[data-i="1"] span:nth-child(2)'), "compactionSummary");
        assert.match(await page.textContent("#notices"), /from its last compaction \(line 629, the last of 2\)/);
        // read as pi reads it, the estimate is no longer twice the usage (375k against 180k
        // with the compactions skipped); the decision is the provider's figure
        assert.equal(figures.decidedBy, "usage");
        assert.ok(want.sum < want.plan.tokens * 1.5 && want.plan.tokens < want.sum * 1.5, `${want.sum} against ${want.plan.tokens}`);
      }
      await assertLabels(page);
      const { ref } = await assertTimeline(page, parsed.whole.messages, want.budget, `anthropic/${preset}`);
      console.log(`# ${name} on ${preset}: ${ref.tokens.length} boundaries, events ${ref.events.map((e) => e.kind).join(", ") || "none"}`);
      // virtualised: a few dozen rows exist, and the last message is one scroll away
      assert.ok((await page.$$("#list .row")).length < 80);
      const t1 = performance.now();
      await page.$eval("#list", (l) => {
        l.scrollTop = l.scrollHeight;
      });
      await page.waitForSelector(`#list .row[data-i="${parsed.messages.length - 1}"]`);
      console.log(`# ${name}: scrolled to message #${parsed.messages.length - 1} in ${(performance.now() - t1).toFixed(0)} ms`);
      await page.click(`#list .row[data-i="${parsed.messages.length - 1}"]`);
      assert.match(await page.textContent("#detail"), new RegExp(`^messages\\[${parsed.messages.length - 1}\\] \\(line ${parsed.lines.at(-1)} of ${name}\\)`));
      if (name === "before-compaction.jsonl") await screenshot(page, "inspector-fixture");
      // another model redraws the timeline: GPT-4o's 128k window
      await analysed(page, () => page.selectOption("#preset", "openai/gpt-4o"));
      const switchMs = Number(await page.getAttribute("#timeline", "data-replay-ms"));
      const w2 = expected(parsed.messages, { contextWindow: 128000, maxTokens: 16384 }, "openai/gpt-4o");
      await assertContext(page, w2);
      const r2 = await assertTimeline(page, parsed.whole.messages, w2.budget, "openai/gpt-4o");
      console.log(`# ${name}: switched to gpt-4o, replayed ${r2.ref.tokens.length} boundaries (${r2.ref.events.length} events) in ${switchMs.toFixed(0)} ms in the page`);
      await assertLabels(page);
      if (name === "before-compaction.jsonl") await screenshot(page, "inspector-fixture-gpt-4o");
      await page.selectOption("#preset", "custom"); // the next file names its model again
      await page.reload();
      await page.waitForSelector("body[data-ready=true]", { timeout: 15000 });
    }
  });

  await t.test("the demo's files: the window prompt, past runs' end codes, usage against the estimate, the timeline", async (t) => {
    const outDir = resolve(root, "target/demo-inspector");
    rmSync(outDir, { recursive: true, force: true });
    const demo = await runDemo({ outDir, write: () => {} });
    const rows = JSON.parse(readFileSync(demo.files.transcript, "utf8"));
    const rel = (p) => `/${p.slice(root.length + 1).split("\\").join("/")}`;
    // the transcript: its chains ran on local/small-8k, which no preset knows: the page asks
    const page = await openPage(t, browser, base, `?transcript=${rel(demo.files.transcript)}`);
    await page.waitForSelector("body[data-opened='1']", { timeout: 20000 });
    assert.equal(await page.isVisible("#ask"), true, "the window prompt");
    assert.match(await page.textContent("#ask-why"), /names the model small-8k, which is not among the presets/);
    assert.equal(await page.isVisible("#context"), false, "no verdict before the window is known");
    assert.equal(await page.isVisible("#timeline"), false);
    await screenshot(page, "inspector-demo-ask");
    // past runs: how each ended, as the rows record it
    const ends = runEnds(rows);
    const shownRuns = await page.$$eval("#chains [data-run]", (els) => els.map((e) => [e.dataset.run, e.dataset.code, e.dataset.degraded, e.dataset.compactions, e.textContent]));
    assert.ok(shownRuns.length >= 4);
    for (const [id, code, degraded, compactions, words] of shownRuns) {
      assert.deepEqual([code, degraded, compactions], [ends[id].code, ends[id].degraded, ends[id].compactions], `run ${id}`);
      if (ends[id].code) assert.ok(words.includes(ends[id].code), `the code is written: ${words}`);
    }
    assert.ok(shownRuns.some(([, code]) => code === "SUBAGENT_CONTEXT_OVERFLOW"), "the failed run's code");
    assert.ok(shownRuns.some(([, , degraded]) => degraded === "true"), "the degraded run");
    // answering the prompt: the demo's small-8k (8,192 window, 2,048 output)
    await page.fill("#askWindow", "8192");
    await analysed(page, () => page.fill("#askMaxTokens", "2048").then(() => page.click("#askUse")));
    assert.equal(await page.isVisible("#ask"), false);
    const model = { contextWindow: 8192, maxTokens: 2048 };
    const budget = dc.contextBudget(model);
    const reg = dc.DelegationRegistry.fromTranscript(rows);
    t.after(() => reg.free());
    const selectedId = await page.getAttribute("#chains tr.selected", "data-id");
    const chain = reg.resolve(selectedId);
    const binding = { provider: "custom", model: "small-8k" };
    const history = dc.seedDelegateMessages({ brief: chain.brief, rows, chain, binding, hardLimit: Number.MAX_SAFE_INTEGER }).messages;
    const want = expected(history, model, "custom/small-8k");
    await assertContext(page, want);
    await assertFigures(page, history, want, "custom/small-8k");
    await assertLabels(page);
    await assertTimeline(page, history, budget, "custom/small-8k");
    await screenshot(page, "inspector-demo-transcript");

    // the largest delegate's pi session, as `--serve` prints its URL (the gpt-4 preset:
    // the same budget as small-8k), then with the window typed into the URL instead
    const parsed = parseTranscript(readFileSync(demo.files.session, "utf8"), "d1");
    const served = await openPage(t, browser, base, `?transcript=${rel(demo.files.session)}&model=gpt-4`);
    await served.waitForSelector("body[data-opened='1']", { timeout: 20000 });
    assert.match(await served.textContent("#notices"), /names the model small-8k; the page keeps the model given in the URL \(openai\/gpt-4: window 8,192, output 8,192\)/);
    await assertContext(served, expected(parsed.messages, { contextWindow: 8192, maxTokens: 8192 }, "openai/gpt-4"));
    const session = await openPage(t, browser, base, `?transcript=${rel(demo.files.session)}&contextWindow=8192&maxTokens=2048`);
    await session.waitForSelector("body[data-opened='1']", { timeout: 20000 });
    assert.equal(await session.isVisible("#ask"), false);
    assert.equal(await session.inputValue("#preset"), "custom");
    const w = expected(parsed.messages, model, "local/small-8k");
    await assertContext(session, w);
    const figures = await assertFigures(session, parsed.messages, w, "local/small-8k");
    // the file holds the whole transcript, the last request carried a compacted context:
    // the usage figure and the estimate disagree, and the page says so
    assert.equal(figures.disagree, true);
    assert.equal(figures.decidedBy, "usage");
    assert.ok(w.sum > budget.contextWindow && w.plan.tokens < budget.hardLimit, `${w.sum} estimated, ${w.plan.tokens} by usage`);
    assert.match(await text(session, "verdict"), new RegExp(`^Next turn boundary: leave it: ${w.plan.tokens.toLocaleString("en-US")} tokens, below hardLimit 4,096$`));
    await assertLabels(session);
    const { ref } = await assertTimeline(session, parsed.whole.messages, budget, "local/small-8k");
    assert.ok(ref.events.some((e) => e.kind === "compacted"), "the replay compacts where the demo did");
    await screenshot(session, "inspector-demo-session");
  });

  await t.test("an unknown-model file: the page asks, never a silent default; a recorded window is used", async (t) => {
    const page = await openPage(t, browser, base);
    const entries = [{ type: "session", id: "s", provider: "acme", modelId: "acme-tiny-16k" }, ...generatedMessages(40).map((message) => ({ type: "message", message }))];
    await opened(page, () => page.setInputFiles("#file", file("acme.jsonl", entries.map((e) => JSON.stringify(e)).join("\n"))));
    assert.equal(await page.isVisible("#ask"), true);
    assert.match(await page.textContent("#ask-why"), /^The file names the model acme-tiny-16k, which is not among the presets, and does not record its window\. Type the window and output tokens/);
    assert.equal(await page.isVisible("#context"), false);
    assert.equal(await page.$('[data-field="verdict"]:visible'), null, "no verdict shown");
    // an incomplete answer is refused
    await page.fill("#askWindow", "16000");
    await page.click("#askUse");
    assert.equal(await page.isVisible("#ask"), true);
    await page.fill("#askMaxTokens", "4000");
    await analysed(page, () => page.click("#askUse"));
    const model = { contextWindow: 16000, maxTokens: 4000 };
    const messages = generatedMessages(40);
    const want = expected(messages, model, "acme/acme-tiny-16k");
    await assertContext(page, want);
    assert.equal(await page.inputValue("#contextWindow"), "16000");
    await assertLabels(page);
    await assertTimeline(page, messages, want.budget, "acme/acme-tiny-16k");
    await screenshot(page, "inspector-unknown-model");
    // a file that records its window: used, no prompt (a fresh page: nothing chosen yet)
    const page2 = await openPage(t, browser, base);
    await opened(page2, () => page2.setInputFiles("#file", file("recorded.json", JSON.stringify({ model: { providerId: "acme", modelId: "acme-tiny-16k", contextWindow: 16000, maxTokens: 4000 }, messages }))));
    assert.equal(await page2.isVisible("#ask"), false);
    assert.match(await page2.textContent("#notices"), /records the model acme-tiny-16k with a 16,000-token window and 4,000 output tokens: used/);
    await assertContext(page2, want);
    // a file naming no model at all: asked too
    await page2.reload();
    await page2.waitForSelector("body[data-ready=true]");
    await opened(page2, () => page2.setInputFiles("#file", file("plain.json", JSON.stringify(messages))));
    assert.equal(await page2.isVisible("#ask"), true);
    assert.match(await page2.textContent("#ask-why"), /^The file names no model and records no window\./);
    // picking a preset answers it too
    await analysed(page2, () => page2.selectOption("#preset", "openai/gpt-4"));
    assert.equal(await page2.isVisible("#ask"), false);
    await assertContext(page2, expected(messages, { contextWindow: 8192, maxTokens: 8192 }, "openai/gpt-4"));
  });

  await t.test("2,000 generated messages (about 2 MB): the list stays virtual, the timeline redraws on a model switch (times logged)", async (t) => {
    const page = await openPage(t, browser, base);
    const many = generatedMessages(1000, 200);
    const json = JSON.stringify(many);
    await page.selectOption("#preset", "anthropic/claude-opus-4-5");
    await opened(page, () => page.setInputFiles("#file", file("many.json", json)));
    const openMs = Number(await page.getAttribute("#source", "data-open-ms"));
    const replayMs = Number(await page.getAttribute("#timeline", "data-replay-ms"));
    console.log(`# ${many.length} generated messages (${(json.length / 1e6).toFixed(2)} MB): opened, analysed, replayed (${replayMs.toFixed(0)} ms) and rendered in ${openMs.toFixed(0)} ms in the page`);
    const want = expected(many, { contextWindow: 200000, maxTokens: 64000 }, "anthropic/claude-opus-4-5");
    await assertContext(page, want);
    await assertTimeline(page, many, want.budget, "anthropic/claude-opus-4-5");
    assert.ok((await page.$$("#list .row")).length < 80, "only the visible rows exist");
    // switching the model redraws the timeline (timed in the page)
    const before = await page.$$eval("#events tbody tr", (trs) => trs.length);
    await analysed(page, () => page.selectOption("#preset", "openai/gpt-4o"));
    const switchMs = Number(await page.getAttribute("#timeline", "data-replay-ms"));
    const w2 = expected(many, { contextWindow: 128000, maxTokens: 16384 }, "openai/gpt-4o");
    const { ref } = await assertTimeline(page, many, w2.budget, "openai/gpt-4o");
    console.log(`# ${many.length} generated messages: switching to gpt-4o replayed ${ref.tokens.length} boundaries (${before} → ${ref.events.length} events) in ${switchMs.toFixed(0)} ms in the page`);
  });

  await t.test("malformed files: readable errors with the code, path and line, never a blank page", async (t) => {
    const page = await openPage(t, browser, base);
    await setModel(page, 32000, 8000);
    const entries = [{ type: "session", id: "s" }, ...generatedMessages(2).map((message) => ({ type: "message", message }))];
    // 1. a JSON syntax error in a .jsonl: its line and column
    const lines = entries.map((e) => JSON.stringify(e));
    lines[3] = lines[3].replace('"role":', '"role"');
    await opened(page, () => page.setInputFiles("#file", file("syntax.jsonl", lines.join("\n"))));
    assert.match(await page.textContent("#error"), /^Cannot read the file: syntax\.jsonl: JSON syntax error on line 4, column 36: Expected ':' after property name$/);
    assert.equal(await page.getAttribute("body", "data-state"), "error");
    assert.equal(await page.isVisible("#context"), false);
    assert.equal(await page.textContent("#source"), `syntax.jsonl: not opened (${lines.join("\n").length.toLocaleString("en-US")} characters): the error is below.`, "the status line says it failed");
    // 2. a message the library rejects: code, path and the file line of the message
    const bad = structuredClone(entries);
    bad[4].message.content = 5; // messages[3]
    await opened(page, () => page.setInputFiles("#file", file("bad.jsonl", bad.map((e) => JSON.stringify(e)).join("\n"))));
    let err = await page.textContent("#error");
    assert.match(err, /^INVALID_INPUT at line 5 of bad\.jsonl \(message\.content\): \S/);
    assert.doesNotMatch(err, /invalid input at/, "the place is said once");
    assert.equal(await page.getAttribute("#error", "data-path"), "message.content");
    assert.equal(await page.getAttribute("#error", "data-library-path"), "messages[3].content");
    await screenshot(page, "inspector-error");
    // an array whose first message is not a user message gets a synthetic brief: the
    // error names the file's own index, not the page's
    await opened(page, () => page.setInputFiles("#file", file("first.json", JSON.stringify([{ role: "assistant", content: 5, timestamp: 1 }]))));
    err = await page.textContent("#error");
    assert.match(err, /^INVALID_INPUT at messages\[0\]\.content: \S/);
    assert.equal(await page.getAttribute("#error", "data-library-path"), "messages[1].content");
    // 3. UiMessage rows with a bad role: the row's path
    const rows = sampleTranscript().slice(0, 3);
    rows[2] = { ...rows[2], role: "robot" };
    await opened(page, () => page.setInputFiles("#file", file("rows.json", JSON.stringify(rows, null, 2))));
    err = await page.textContent("#error");
    assert.match(err, /^INVALID_INPUT at rows\[2\]\.role: expected one of .*, got "robot"/);
    // 4. a pretty-printed JSON array with a syntax error: line and column
    await opened(page, () => page.setInputFiles("#file", file("broken.json", '[\n  {"role": "user", "content": "x"},\n  {"role": "assistant" "content": []}\n]')));
    assert.match(await page.textContent("#error"), /JSON syntax error at line 3, column 24/);
    // 5. not a transcript at all
    await opened(page, () => page.setInputFiles("#file", file("notes.txt", "hello")));
    assert.match(await page.textContent("#error"), /not JSON \(line 1, column 1\)/);
    // a good file afterwards clears the error and shows the context
    await opened(page, () => page.setInputFiles("#file", file("generated.json", JSON.stringify(gen))));
    assert.equal(await page.textContent("#error"), "");
    assert.equal(await page.isVisible("#context"), true);
  });

  await t.test("?transcript=<url> opens a served file; ?model= picks the preset; drop opens a file", async (t) => {
    const page = await openPage(t, browser, base, "?transcript=/gen/generated.json&model=gpt-4o");
    await page.waitForSelector("body[data-opened='1']", { timeout: 20000 });
    assert.match(await page.textContent("#source"), /^generated\.json: AgentMessage\[\], 122 messages/);
    assert.equal(await page.inputValue("#preset"), "openai/gpt-4o");
    await assertContext(page, expected(gen, { contextWindow: 128000, maxTokens: 16384 }, "openai/gpt-4o"));
    // a missing file: a readable error
    const missing = await openPage(t, browser, base, "?transcript=/gen/missing.json", /404 \(Not Found\)/);
    await missing.waitForSelector("body[data-opened='1']", { timeout: 20000 });
    assert.match(await missing.textContent("#error"), /^Error: Could not fetch \/gen\/missing\.json: HTTP 404/);
    // drag and drop of a file
    const data = JSON.stringify(generatedMessages(5));
    const transfer = await page.evaluateHandle((content) => {
      const dt = new DataTransfer();
      dt.items.add(new File([content], "dropped.json", { type: "application/json" }));
      return dt;
    }, data);
    await opened(page, () => page.dispatchEvent("#drop", "drop", { dataTransfer: transfer }));
    assert.match(await page.textContent("#source"), /^dropped\.json: AgentMessage\[\], 12 messages/);
    assert.equal(await num(page, "messageCount"), 12);
  });
});
