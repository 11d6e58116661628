// The inspector's sample: a generated parent session (UiMessage rows, host-contract §6)
// with delegations that show every case the page explains: a resumed chain large
// enough to be over GPT-4o's hardLimit, a stopped run, a chain over the read budget,
// an interrupted run, a rejected Task call and a resume of an unknown id. Deterministic:
// the same rows every time (tests compare the page with the package on them).

const AT = Date.UTC(2026, 10, 24, 8, 0, 0);
const iso = (s) => new Date(AT + s * 1000).toISOString();

/** Deterministic UUID-shaped ids (`00000000-0000-4000-8000-00000000000n`). */
const uuid = (n) => `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`;

/** A TypeScript-looking file of `lines` lines (about 40 characters each). */
function fakeSource(path, lines) {
  const out = [`// ${path}`];
  for (let i = 1; i < lines; i++) out.push(`export const value${i} = compute(${i}, "${path.slice(-8)}");`);
  return out.join("\n");
}

function taskRow(id, s, args, details, toolStatus = "success") {
  return {
    id,
    role: "tool",
    content: "",
    createdAt: iso(s),
    toolName: "task",
    toolCallId: id,
    toolStatus,
    toolArgs: args,
    toolResult: { content: [{ type: "text", text: JSON.stringify({ success: !details.error, data: { response: details.report ?? "" } }) }], details },
  };
}

/** The sample transcript: `UiMessage[]`. */
export function sampleTranscript() {
  const rows = [];
  let s = 0;
  const parent = (role, content) => rows.push({ id: `p${rows.length}`, role, content, createdAt: iso(s++), ...(role === "assistant" ? { modelId: "claude-sonnet-4-5", providerId: "anthropic" } : {}) });
  // Rows written by a delegate: a text row, or a tool call and its result.
  const say = (call, agent, content) => rows.push({ id: `${call}-a${rows.length}`, role: "assistant", content, createdAt: iso(s++), parentToolCallId: call, agentName: agent, modelId: "gpt-4o", providerId: "openai" });
  const tool = (call, agent, toolName, toolArgs, toolResult, toolStatus = "success") =>
    rows.push({ id: `${call}-t${rows.length}`, role: "tool", content: "", createdAt: iso(s++), toolName, toolCallId: `${call}-c${rows.length}`, toolStatus, toolArgs, toolResult, parentToolCallId: call, agentName: agent });

  parent("user", "The nightly export job writes empty CSV files since Tuesday. Map the export pipeline, find the cause and fix it.");
  parent("assistant", "I'll have the explorer map the export pipeline first.");

  // 1. explorer: a long mapping run (44 files of 260 lines: over GPT-4o's hardLimit), completed.
  const d1 = uuid(1);
  rows.push(taskRow("task_1", s++, { agent: "explorer", task: "Map the export pipeline under src/export/: read every module and list what each exports and calls.", description: "Map export pipeline" },
    { delegationId: d1, agent: "explorer", status: "completed", startedAt: iso(s), modelId: "gpt-4o", report: "The pipeline has 44 modules; query.ts builds the row filter." }));
  for (let i = 0; i < 44; i++) {
    const path = `src/export/module${String(i).padStart(2, "0")}.ts`;
    say("task_1", "explorer", `Reading ${path}.`);
    tool("task_1", "explorer", "read", { path }, fakeSource(path, 260));
  }
  say("task_1", "explorer", "Mapped 44 modules: csv.ts writes, query.ts filters rows by `updatedAt > since`.");
  parent("assistant", "The explorer mapped the pipeline. Asking it to look at the filter.");

  // 2. the same chain, resumed: a second run, completed.
  const d2 = uuid(2);
  rows.push(taskRow("task_2", s++, { agent: "explorer", task: "Now find why query.ts drops every row since Tuesday.", resume: d1 },
    { delegationId: d2, agent: "explorer", status: "completed", startedAt: iso(s), modelId: "gpt-4o", resumedFrom: d1, report: "query.ts:88 compares a string with a Date." }));
  say("task_2", "explorer", "Reading the filter again, and the git log.");
  tool("task_2", "explorer", "read", { path: "src/export/query.ts" }, fakeSource("src/export/query.ts", 120));
  tool("task_2", "explorer", "grep", { pattern: "since" }, "src/export/query.ts:88: return rows.filter((r) => r.updatedAt > since);\nsrc/export/job.ts:12: const since = lastRun.toISOString();");
  say("task_2", "explorer", "Cause: `since` became a string in Tuesday's refactor; query.ts:88 compares it with a Date.");

  // 3. reviewer: stopped by the user (not resumable: NOT_RESUMABLE).
  rows.push(taskRow("task_3", s++, { agent: "reviewer", task: "Review the one-line fix in query.ts.", description: "Review the fix" },
    { delegationId: uuid(3), agent: "reviewer", status: "stopped", startedAt: iso(s), modelId: "claude-haiku-4-5" }));
  say("task_3", "reviewer", "Looking at the diff.");

  // 4. auditor: read more than 50,000 lines (READ_BUDGET_EXCEEDED).
  rows.push(taskRow("task_4", s++, { agent: "auditor", task: "Find every caller of rowsSince in the monorepo.", description: "Callers of rowsSince" },
    { delegationId: uuid(4), agent: "auditor", status: "completed", startedAt: iso(s), modelId: "gpt-4o", report: "312 callers." }));
  tool("task_4", "auditor", "grep", { pattern: "rowsSince" }, Array.from({ length: 26000 }, (_, i) => `f${i}`).join("\n"));
  tool("task_4", "auditor", "grep", { pattern: "rowsSince\\(" }, Array.from({ length: 26000 }, (_, i) => `g${i}`).join("\n"));
  say("task_4", "auditor", "312 callers, all in pkg*/src and app*/lib.");

  // 5. a rejected Task call: no delegationId (skipped by the rebuild: NO_DELEGATION_ID).
  rows.push(taskRow("task_5", s++, { agent: "planner", task: "Plan the migration." }, { error: "unknown agent: planner" }, "error"));

  // 6. tester: still running when the session was saved (rebuilt as interrupted).
  rows.push(taskRow("task_6", s++, { agent: "tester", task: "Run the export tests with the fix applied.", description: "Run export tests" },
    { delegationId: uuid(6), agent: "tester", status: "running", startedAt: iso(s), modelId: "gpt-4o" }));
  tool("task_6", "tester", "bash", { command: "npm test -- export" }, undefined, "running");

  // 7. a resume of an id the transcript does not hold (skipped: MISSING_PARENT).
  rows.push(taskRow("task_7", s++, { agent: "explorer", task: "Continue.", resume: uuid(99) },
    { delegationId: uuid(7), agent: "explorer", status: "completed", startedAt: iso(s), modelId: "gpt-4o", resumedFrom: uuid(99) }));

  parent("assistant", "Fixed query.ts:88 (parse `since` back into a Date) and added a test.");
  return rows;
}
