// Issue 10 part 2: the main job (examples/main.mjs) shows the mission on pi's real client.
// The demo runs in this process against the built pkg/node; every one of its five events
// is checked with its codes and numbers, the files it writes are opened with the library
// (and the inspector's reader), and the CLI (`--serve`) prints the same timeline and
// serves the files.
import test from "node:test";
import assert from "node:assert/strict";
import { spawn } from "node:child_process";
import { readFileSync } from "node:fs";
import { resolve } from "node:path";
import { dc, root } from "./helpers.mjs";
import { runDemo } from "../../examples/main.mjs";
import { delegateOverhead } from "../../examples/demo/models.mjs";
import { parseTranscript } from "../../www/load.js";

const outDir = resolve(root, "target/demo-test");
const GUIDANCE =
  /^The delegated task does not fit in the context window of model "local\/small-8k", even after compaction and history reduction\. Narrow the task, delegate to a model with a larger context window, or make the delegate read less at once\.$/;
const text = (m) => (typeof m.content === "string" ? m.content : m.content.filter((b) => b.type === "text").map((b) => b.text).join("\n"));

const lines = [];
const demo = await runDemo({ outDir, write: (l) => lines.push(l) });
const [survey, review, buildLog, audit, resumed] = demo.results;
const events = (alias, event) => demo.events.filter((e) => e.tag.endsWith(` ${alias}`) && (!event || e.event === event));
const parentResults = demo.parentContext.messages.filter((m) => m.role === "toolResult");

test("five delegations ran, in order, on the real pi Agent", () => {
  assert.deepEqual(demo.results.map((r) => [r.alias, r.agent, r.status]), [
    ["d1", "explorer", "completed"], ["d2", "reviewer", "completed"], ["d3", "explorer", "failed"], ["d4", "tester", "completed"], ["d5", "explorer", "completed"],
  ]);
  // every request any delegate sent fitted its model's window, output cap included
  for (const r of demo.results) {
    for (const q of r.requests) assert.ok(q.tokens + q.maxTokens <= q.contextWindow, `${r.alias}: ${q.tokens} + ${q.maxTokens} > ${q.contextWindow}`);
  }
  // one timeline line per boundary, in the documented form
  for (const r of demo.results) {
    const boundaries = events(r.alias, "boundary").filter((e) => !/pre-flight/.test(e.text));
    assert.ok(boundaries.length > 0);
    boundaries.forEach((e, i) => assert.match(e.text, new RegExp(`^boundary ${i + 1}: [\\d,]+ → ([\\d,]+|✗) / [\\d,]+, (unchanged|compacted|degraded|SUBAGENT_CONTEXT_OVERFLOW) \\(.+\\)$`)));
    for (const e of events(r.alias, "boundary")) assert.ok(lines.includes(`[${e.tag}] ${e.text}`));
  }
});

test("1. a delegate outgrows its window, compacts several times, and finishes", () => {
  assert.ok(survey.run.contextCompactions >= 2, `compactions: ${survey.run.contextCompactions}`);
  assert.equal(survey.run.contextDegraded, false);
  const compacted = events("d1", "boundary").filter((e) => e.outcome === "compacted");
  assert.equal(compacted.length, survey.run.contextCompactions);
  for (const e of compacted) {
    assert.ok(e.tokensBefore >= e.hardLimit && e.tokensAfter < e.hardLimit, `${e.tokensBefore} → ${e.tokensAfter} / ${e.hardLimit}`);
  }
  assert.ok(Math.max(...survey.requests.map((q) => q.tokens)) < 8192 && survey.requests.length === 13);
  assert.equal(survey.messages.at(-1).stopReason, "stop");
  // the runner's result (delegate-context/pi): what the parent received, not degraded
  assert.equal(survey.status, "completed");
  assert.equal(text(parentResults[0]), survey.content);
});

test("2. a failed summary degrades the run, and its report says so first", () => {
  const degraded = events("d2", "boundary").filter((e) => e.outcome === "degraded");
  assert.ok(degraded.length > 0);
  for (const e of degraded) {
    assert.equal(e.reason, "summaryFailed");
    assert.match(e.summaryError, /503 Service Unavailable/);
  }
  assert.equal(review.run.contextDegraded, true);
  assert.equal(review.details.contextDegraded, true);
  const notice = /^\[Delegate context degraded\] This delegate lost part of its working history[^\n]*\n\n/.exec(review.content)?.[0];
  assert.ok(notice, review.content);
  assert.equal(text(parentResults[1]), review.content, "the parent's context holds the notice first");
});

test("3. a file larger than the window ends in SUBAGENT_CONTEXT_OVERFLOW; the parent gets the guidance", () => {
  // the runner's result: the error as the run machine ended on it (the boundary's own fields)
  const e = buildLog.error;
  assert.equal(buildLog.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(buildLog.isError, true);
  assert.equal(e.code, "SUBAGENT_CONTEXT_OVERFLOW");
  assert.equal(e.modelId, "local/small-8k");
  assert.equal(e.hardLimit, 4096);
  assert.ok(e.tokens > 8192, "the read alone is larger than the window");
  assert.match(e.message, GUIDANCE);
  assert.equal(buildLog.requests.length, 1, "no request was sent with the log in it");
  assert.equal(parentResults[2].isError, true);
  assert.match(text(parentResults[2]), GUIDANCE);
  assert.equal(events("d3", "boundary").at(-1).outcome, "SUBAGENT_CONTEXT_OVERFLOW");
});

test("4. a fallback too small for the carried context is skipped and recorded", () => {
  // every model that failed (issue 34): small-8k's own 503 (after its retries), then the one skipped
  const failures = audit.details.modelFailures;
  assert.deepEqual(failures.map((f) => [f.model, f.code]), [["local/small-8k", "PROVIDER_ERROR"], ["local/tiny-4k", "SUBAGENT_CONTEXT_OVERFLOW"]]);
  assert.match(failures[1].message, /does not fit its context budget \(hardLimit 2048 of a 4096-token window\)/);
  assert.deepEqual(events("d4", "retry").map((e) => e.attempt), [1, 2], "the 503 was retried on small-8k first");
  assert.equal(audit.details.finalModel, "local/medium-32k");
  const chosen = events("d4", "fallbackChosen")[0];
  assert.ok(chosen.tokens > 2048 && chosen.tokens < chosen.hardLimit);
  assert.equal(audit.modelId, "local/medium-32k");
  assert.deepEqual([...new Set(audit.requests.map((q) => q.model))], ["local/small-8k", "local/medium-32k"], "tiny-4k was never sent a request");
  assert.equal(events("d4", "providerError")[0].status, 503);
  const row = demo.rows.find((r) => r.id === audit.toolCallId);
  assert.deepEqual(row.toolResult.details.modelFailures, failures);
});

test("5. after a restart the registry is rebuilt from the rows, and a resume is seeded within budget", () => {
  assert.equal(demo.sameList, true, "the rebuilt resumable list equals the live one");
  assert.equal(demo.sameReports, true, "the rebuilt parent context has the live parent's tool results");
  assert.deepEqual(demo.rebuiltList.map((c) => [c.agent, c.delegationId, c.objective]), [
    ["tester", audit.delegationId, "audit tests"], ["explorer", buildLog.delegationId, "find build error"],
    ["reviewer", review.delegationId, "review changelog"], ["explorer", survey.delegationId, "survey modules"],
  ]);
  assert.ok(lines.includes("    - explorer / d1: survey modules"), "the printed list names the chain");
  assert.equal(resumed.resumedFrom, survey.delegationId);
  const { seed, budget } = resumed;
  // the seed is sized with everything sent beside it: system prompt, tool schemas, and this run's task
  const overhead = events("d5", "seed")[0].overhead;
  assert.equal(overhead, delegateOverhead(dc, "explorer") + dc.estimateTokens(resumed.messages[0]));
  assert.ok(overhead > 50, "system prompt + tool schema");
  assert.ok(seed.tokens + overhead < budget.hardLimit, `${seed.tokens} + ${overhead} < ${budget.hardLimit}`);
  assert.equal(seed.truncated, true);
  assert.ok(seed.dropped.toolCallIds.length > 0 && seed.dropped.tokens > 0);
  assert.equal(text(seed.messages[0]), "Survey the twelve modules under src/modules/ (billing.ts to audit.ts): read each one, then report how money flows through the pipeline and which modules still call the deprecated legacyRound().");
  assert.equal(resumed.requests[0].tokens + resumed.requests[0].maxTokens <= 8192, true, "the resumed run's first request fits");
  assert.match(text(parentResults[4]), /^Yes\. legacyRound\(\)/);
});

test("the transcript file opens with the library and the inspector; the parent context holds only reports", () => {
  const rows = JSON.parse(readFileSync(demo.files.transcript, "utf8"));
  assert.deepEqual(rows, demo.rows);
  const reg = dc.DelegationRegistry.fromTranscript(rows);
  try {
    assert.deepEqual(reg.rebuildSkips(), []);
    assert.equal(reg.chainCount, 4, "the resume joined the survey's chain");
    const chain = reg.resolve(survey.delegationId);
    assert.deepEqual(chain.toolCallIds, [survey.toolCallId, resumed.toolCallId]);
    assert.equal(chain.latestDelegationId, resumed.delegationId);
    assert.equal(reg.validateResume({ delegationId: survey.delegationId, agent: "explorer" }, rows).latestDelegationId, resumed.delegationId);
  } finally {
    reg.free();
  }
  const { messages, warnings } = dc.buildParentContext(rows);
  assert.deepEqual(warnings, []);
  assert.deepEqual(messages, demo.parentContext.messages);
  assert.deepEqual(messages.filter((m) => m.role === "user").map(text), [
    "We ship invoice-service 3.0 on Friday. Survey the pipeline modules, review the changelog against the API, find the first error in logs/build.log, and audit the tests.",
    "Before Friday: can we delete legacyRound()? Reuse the explorer that surveyed the modules.",
  ]);
  assert.deepEqual(parentResults.map((m) => m.toolName), ["task", "task", "task", "task", "task"]);
  const delegateRows = rows.filter((r) => r.parentToolCallId);
  assert.ok(delegateRows.length > 50);
  const all = JSON.stringify(messages);
  assert.ok(!all.includes("Reading src/") && !all.includes("// src/modules/"), "no delegate work in the parent's context");

  const asRows = parseTranscript(readFileSync(demo.files.transcript, "utf8"), "transcript.json");
  assert.equal(asRows.kind, "rows");
  const session = parseTranscript(readFileSync(demo.files.session, "utf8"), "session.jsonl");
  assert.equal(session.kind, "pi-session");
  assert.equal(session.modelId, "small-8k");
  assert.deepEqual(session.messages, JSON.parse(JSON.stringify(survey.messages)), "the largest delegate's whole pi transcript");
});

test("node examples/main.mjs --serve prints the same timeline and serves the inspector's files", async (t) => {
  const child = spawn(process.execPath, ["examples/main.mjs", "--out", outDir, "--serve", "--port", "0"], { cwd: root, stdio: ["ignore", "pipe", "inherit"] });
  t.after(() => child.kill());
  let out = "";
  await new Promise((resolve_, reject) => {
    child.stdout.on("data", (d) => {
      out += d;
      if (/same budget as/.test(out)) resolve_();
    });
    child.on("exit", (code) => reject(new Error(`exited ${code}: ${out}`)));
  });
  const [timeline, served] = out.split("\nServing ");
  assert.equal(timeline, `${lines.join("\n")}\n`, "deterministic: the same output as the in-process run");
  const urls = [...served.matchAll(/http:\/\/127\.0\.0\.1:\d+\/www\/index\.html\?transcript=(\S+)&model=gpt-4/g)];
  assert.deepEqual(urls.map((u) => u[1]), ["/target/demo-test/transcript.json", `/target/demo-test/delegate-explorer-d1.jsonl`]);
  const base = new URL(urls[0][0]).origin;
  const page = await fetch(urls[0][0]);
  assert.equal(page.status, 200);
  assert.match(await page.text(), /delegate-context inspector/);
  const file = await fetch(`${base}${urls[0][1]}`);
  assert.equal(file.headers.get("content-type"), "application/json");
  assert.deepEqual(await file.json(), JSON.parse(readFileSync(demo.files.transcript, "utf8")), "the file the CLI wrote");
  assert.equal((await fetch(`${base}/pkg/web/delegate_context_bg.wasm`)).headers.get("content-type"), "application/wasm");
  assert.equal((await fetch(`${base}/../../etc/passwd`)).status, 404);
});
