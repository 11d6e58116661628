// The main job: delegate-context on pi's real client. A pi-agent-core `Agent` (the
// parent) delegates to sub-agents through its `task` tool, which runs each delegation
// with the package's own runner (delegate-context/pi's `runDelegate`: a second pi `Agent`
// on the delegate's own small model, driven by the core's run machine); the timeline is
// written from its events. Offline: pi-ai's faux provider plays the models
// (examples/demo/story.mjs); the files, windows, requests and token counts are real. In
// one run:
//   1. a delegate outgrows its window and compacts, several times, and finishes;
//   2. one degrades after its summarizer rejects, and its report says so;
//   3. one reads a file larger than its window and ends with SUBAGENT_CONTEXT_OVERFLOW;
//   4. a provider error is retried, then a fallback model too small for the carried
//      context is skipped and the next one finishes (modelFailures, finalModel);
//   5. the app restarts: the registry is rebuilt from the persisted rows, and a chain is
//      resumed, seeded within its budget.
// Usage: node examples/main.mjs [--serve] [--port N] [--out DIR]
import { createRequire } from "node:module";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, relative, resolve, sep } from "node:path";
import { fileURLToPath, pathToFileURL } from "node:url";
import { MODELS, key } from "./demo/world.mjs";
import { PARENT_SYSTEM_PROMPT, RESUME, TASKS_1, USER_1, USER_2 } from "./demo/story.mjs";
import { Transcript, textOf } from "./demo/host.mjs";
import { callTask, closing, createParent, createTaskTool, fmt } from "./demo/parent.mjs";
import { Timeline } from "./demo/timeline.mjs";
import { serve } from "./demo/serve.mjs";

export const root = resolve(dirname(fileURLToPath(import.meta.url)), "..");
const dc = createRequire(import.meta.url)(resolve(root, "pkg/node/delegate_context.js"));
const pi = await import(pathToFileURL(resolve(root, "pkg/pi/index.mjs")).href);

const toolResultTexts = (messages) => messages.filter((m) => m.role === "toolResult").map((m) => textOf(m.content));

/** One line of a message of the parent's context. */
function describe(m) {
  const text = m.role === "assistant"
    ? m.content.map((b) => (b.type === "toolCall" ? `[${b.name} ${b.id}${b.arguments.resume ? " resume" : ""}]` : b.type === "text" ? b.text : "")).join(" ")
    : textOf(m.content);
  const one = text.replace(/\s+/g, " ").trim();
  return `${m.role.padEnd(10)} ${m.isError ? "(error) " : ""}${one.length > 120 ? `${one.slice(0, 119)}…` : one}`;
}

/**
 * Runs the whole demo, printing its timeline with `write`; writes the transcript and the
 * largest delegate's session into `outDir`. Resolves with what happened (for the test).
 */
export async function runDemo({ outDir = resolve(root, "target/demo"), write = console.log } = {}) {
  const t = new Timeline(write);
  const files = { transcript: resolve(outDir, "transcript.json") };
  mkdirSync(outDir, { recursive: true });
  const shown = (p) => relative(root, p).split(sep).join("/");

  write(`delegate-context ${dc.version()}: the main job. A pi Agent (the parent) delegates to sub-agents`);
  write(`through this package; offline, pi-ai's faux provider plays the models. Budgets (ADR 0299 §1-2):`);
  for (const [role, m] of Object.entries(MODELS).filter(([r]) => r !== "summarizer")) {
    const b = dc.contextBudget(m);
    write(`  ${key(m).padEnd(17)} window ${fmt(m.contextWindow).padStart(7)}, output ${fmt(m.maxTokens).padStart(6)}: hardLimit ${fmt(b.hardLimit).padStart(7)}${role === "lead" ? "  (the parent)" : ""}`);
  }

  // ---- session 1: the parent delegates four tasks --------------------------------------
  const host = { transcript: new Transcript(files.transcript), registry: new dc.DelegationRegistry() };
  const results = [];
  const taskTool = createTaskTool(dc, pi, host, t, results);
  t.heading("Session 1");
  t.line("user", USER_1);
  const parent1 = createParent({
    pi, systemPrompt: PARENT_SYSTEM_PROMPT, messages: [], taskTool, transcript: host.transcript,
    turns: [
      ...TASKS_1.map((args, i) => callTask(`call_task_${i + 1}`, ["I'll delegate the reading, one sub-agent per question.", "Next, the changelog.", "Now the build log.", "Last, the tests."][i], args)),
      closing("Status for 3.0, from the sub-agents' reports:"),
    ],
  });
  await parent1.prompt(USER_1);
  t.line("parent", `answer:`, { event: "answer" });
  t.block(textOf(parent1.state.messages.at(-1).content));
  host.transcript.persist();
  const liveList = host.registry.resumableList();
  t.line("host", `${host.transcript.rows.length} rows persisted to ${shown(files.transcript)} (${host.transcript.rows.filter((r) => r.parentToolCallId).length} written by delegates)`);

  // ---- restart -------------------------------------------------------------------------
  t.heading("Restart");
  host.registry.free();
  host.transcript = Transcript.load(files.transcript);
  const rows = host.transcript.rows;
  host.registry = dc.DelegationRegistry.fromTranscript(rows);
  const rebuiltList = host.registry.resumableList();
  const sameList = JSON.stringify(rebuiltList) === JSON.stringify(liveList);
  t.line("restart", `the app closed (live registry freed) and reopened: ${rows.length} rows read back; DelegationRegistry.fromTranscript: ${host.registry.chainCount} chains, ${host.registry.rebuildSkips().length} Task rows skipped; resumable list equal to the live registry's: ${sameList ? "yes" : "NO"}`,
    { event: "rebuilt", chains: host.registry.chainCount, sameList });
  const rebuiltParent = dc.buildParentContext(rows);
  const sameReports = JSON.stringify(toolResultTexts(rebuiltParent.messages)) === JSON.stringify(toolResultTexts(parent1.state.messages));
  t.line("restart", `the parent's context rebuilt from the rows (buildParentContext): ${rebuiltParent.messages.length} messages, the same ${toolResultTexts(rebuiltParent.messages).length} tool results the live parent saw: ${sameReports ? "yes" : "NO"}`,
    { event: "parentRebuilt", sameReports });
  const resumable = host.registry.resumablePrompt();
  t.line("restart", "resumable list appended to the parent's system prompt:", { event: "resumableList", chains: rebuiltList.length });
  t.block(resumable);

  // ---- session 2: a resume, seeded within budget ---------------------------------------
  t.heading("Session 2");
  t.line("user", USER_2);
  const parent2 = createParent({
    pi, systemPrompt: `${PARENT_SYSTEM_PROMPT}\n\n${resumable}`, messages: rebuiltParent.messages, taskTool, transcript: host.transcript,
    turns: [
      callTask("call_task_5", "The explorer that surveyed the modules is in my list; resuming it.", (context) => ({
        ...RESUME, resume: /^- explorer \/ (\S+): survey modules$/m.exec(context.systemPrompt)?.[1] ?? "(not listed)",
      })),
      closing("From the explorer's report:"),
    ],
  });
  await parent2.prompt(USER_2);
  t.line("parent", "answer:", { event: "answer" });
  t.block(textOf(parent2.state.messages.at(-1).content));
  host.transcript.persist();
  const finalRows = host.transcript.rows;
  host.registry.free();

  // ---- the parent's context at the end -------------------------------------------------
  const parentContext = dc.buildParentContext(finalRows);
  const delegateRows = finalRows.filter((r) => r.parentToolCallId).length;
  t.heading(`Parent context at the end (buildParentContext of the ${finalRows.length} rows; the ${delegateRows} rows the delegates wrote stay out, only their reports come in):`);
  for (const m of parentContext.messages) write(`  ${describe(m)}`);

  // ---- files ---------------------------------------------------------------------------
  const largest = results.reduce((a, r) => (r.messages.length > a.messages.length ? r : a));
  files.session = resolve(outDir, `delegate-${largest.agent}-${largest.alias}.jsonl`);
  const model = largest.modelId.split("/");
  const entries = [
    { type: "session", version: 3, id: `demo-${largest.alias}`, timestamp: "2026-11-24T09:00:00.000Z", cwd: "/demo/invoice-service", provider: model[0], modelId: model[1] },
    ...largest.messages.map((message, i) => ({ type: "message", id: `m${i}`, parentId: i ? `m${i - 1}` : null, timestamp: new Date(message.timestamp || 0).toISOString(), message })),
  ];
  writeFileSync(files.session, entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  t.heading("Files");
  write(`  ${shown(files.transcript)}: the ${finalRows.length} UiMessage rows the host persisted (DelegationRegistry.fromTranscript and buildParentContext read them)`);
  write(`  ${shown(files.session)}: the ${largest.agent} ${largest.alias} delegate's ${largest.messages.length} pi messages, as a pi session (its whole transcript; compaction changed only what each request carried)`);
  write(`  To look at them in the inspector: bash scripts/main.sh --serve (or node examples/main.mjs --serve) and open the URLs it prints.`);

  return { results, events: t.events, files, rows: finalRows, liveList, rebuiltList, sameList, sameReports, parentContext, aliases: t.aliases };
}

/** The inspector's URL for a file under the served root (the gpt-4 preset has the small-8k budget). */
function inspectorUrl(base, file) {
  const path = relative(root, file).split(sep).join("/");
  return path.startsWith("../") ? `(${file} is outside the served root: use an --out under the repository)` : `${base}/www/index.html?transcript=/${path}&model=gpt-4`;
}

if (process.argv[1] && import.meta.url === pathToFileURL(resolve(process.argv[1])).href) {
  const args = process.argv.slice(2);
  const opt = (name) => (args.includes(name) ? args[args.indexOf(name) + 1] : undefined);
  const { files } = await runDemo({ outDir: opt("--out") ? resolve(opt("--out")) : undefined });
  if (args.includes("--serve")) {
    const { url } = await serve(root, opt("--port") === undefined ? 8000 : Number(opt("--port")));
    console.log(`\nServing ${root} on ${url} (Ctrl-C stops). The inspector, with the demo's files loaded:`);
    console.log(`  the transcript (delegations, resumable list, a resume's seed, the explorer chain's history):`);
    console.log(`    ${inspectorUrl(url, files.transcript)}`);
    console.log(`  the largest delegate's pi session (counted from its last provider usage, i.e. its last compacted request):`);
    console.log(`    ${inspectorUrl(url, files.session)}`);
    console.log("(the gpt-4 preset's 8,192-token window gives the same budget as the demo's local/small-8k.)");
  }
}
