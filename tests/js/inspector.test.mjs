// The inspector (www/) in headless Chromium (Debian's /usr/bin/chromium via
// playwright-core). Every number the page shows is checked against the package's own
// result computed here in Node from pkg/node: budget, tokens, cut, action, outcome,
// chains, seeds. Screenshots go to target/screenshots/inspector-*.png.
import test from "node:test";
import assert from "node:assert/strict";
import { existsSync, readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dc, fixturesDir } from "./helpers.mjs";
import { serve, launch, newPage, screenshot } from "./browser.mjs";
import { placeholderSummary } from "../../www/analyse.js";
import { parseTranscript } from "../../www/load.js";
import { sampleTranscript } from "../../www/sample.js";

// ---- page helpers --------------------------------------------------------------------

/** The number a `[data-field=name]` element shows ("12,345" → 12345). */
async function num(page, field, scope = "") {
  const text = await page.textContent(`${scope} [data-field="${field}"]`);
  const n = Number(text.replace(/,/g, ""));
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
  assert.equal(await text(page, "isSplitTurn"), String(want.prep.isSplitTurn));
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

  await t.test("real sessions through the file input: numbers, and the 2 MB render time", async (t) => {
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
      console.log(`# ${name} (${(size / 1e6).toFixed(2)} MB): opened and rendered in ${openMs.toFixed(0)} ms in the page (${wall.toFixed(0)} ms as the test saw it); longest main-thread task ${longest.toFixed(0)} ms`);
      assert.ok(openMs < 1500, `${name} renders in ${openMs} ms`);
      assert.equal(await page.textContent("#error"), "");
      const parsed = parseTranscript(readFileSync(path, "utf8"), name);
      const preset = parsed.modelId.replace(/-\d{8}$/, "");
      assert.equal(await page.inputValue("#preset"), `anthropic/${preset}`, "the model the session names");
      // the preset's window and output cap, as pi-ai's registry has them
      const model = { contextWindow: Number(await page.inputValue("#contextWindow")), maxTokens: Number(await page.inputValue("#maxTokens")) };
      const want = expected(parsed.messages, model, `anthropic/${preset}`);
      await assertContext(page, want);
      await assertRows(page, { messages: parsed.messages, tokens: want.tokens });
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
    }
  });

  await t.test("2,000 generated messages (about 2 MB) open fast, the list stays virtual", async (t) => {
    const page = await openPage(t, browser, base);
    const many = generatedMessages(1000, 200);
    const json = JSON.stringify(many);
    await opened(page, () => page.setInputFiles("#file", file("many.json", json)));
    const openMs = Number(await page.getAttribute("#source", "data-open-ms"));
    console.log(`# ${many.length} generated messages (${(json.length / 1e6).toFixed(2)} MB): opened and rendered in ${openMs.toFixed(0)} ms in the page`);
    assert.ok(openMs < 1500, `rendered in ${openMs} ms`);
    await assertContext(page, expected(many, { contextWindow: 200000, maxTokens: 64000 }, "anthropic/claude-opus-4-5"));
    assert.ok((await page.$$("#list .row")).length < 80, "only the visible rows exist");
  });

  await t.test("malformed files: readable errors with the code, path and line, never a blank page", async (t) => {
    const page = await openPage(t, browser, base);
    const entries = [{ type: "session", id: "s" }, ...generatedMessages(2).map((message) => ({ type: "message", message }))];
    // 1. a JSON syntax error in a .jsonl: its line and column
    const lines = entries.map((e) => JSON.stringify(e));
    lines[3] = lines[3].replace('"role":', '"role"');
    await opened(page, () => page.setInputFiles("#file", file("syntax.jsonl", lines.join("\n"))));
    assert.match(await page.textContent("#error"), /^Cannot read the file: syntax\.jsonl: JSON syntax error on line 4, column 36: Expected ':' after property name$/);
    assert.equal(await page.getAttribute("body", "data-state"), "error");
    assert.equal(await page.isVisible("#context"), false);
    // 2. a message the library rejects: code, path and the file line of the message
    const bad = structuredClone(entries);
    bad[4].message.content = 5; // messages[3]
    await opened(page, () => page.setInputFiles("#file", file("bad.jsonl", bad.map((e) => JSON.stringify(e)).join("\n"))));
    let err = await page.textContent("#error");
    assert.match(err, /^INVALID_INPUT at messages\[3\]\.content \(line 5 of bad\.jsonl\): invalid input at /);
    assert.equal(await page.getAttribute("#error", "data-path"), "messages[3].content");
    await screenshot(page, "inspector-error");
    // 3. UiMessage rows with a bad role: the row's path
    const rows = sampleTranscript().slice(0, 3);
    rows[2] = { ...rows[2], role: "robot" };
    await opened(page, () => page.setInputFiles("#file", file("rows.json", JSON.stringify(rows, null, 2))));
    err = await page.textContent("#error");
    assert.match(err, /^INVALID_INPUT at rows\[2\]\.role: .*unknown variant `robot`/);
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
