// What the faux models say: the user's two prompts, the parent's turns (it calls the
// `task` tool), and each delegation's plan (its model, fallbacks, and the script of its
// turns). A real run would get these from real models; the numbers the library works
// on (file sizes, windows, requests) are real.
import { MODULE_PATHS } from "./world.mjs";

export const PARENT_SYSTEM_PROMPT =
  "You are the lead agent of a coding assistant. Delegate reading to sub-agents with the task tool; you only see their reports.";

export const USER_1 =
  "We ship invoice-service 3.0 on Friday. Survey the pipeline modules, review the changelog against the API, find the first error in logs/build.log, and audit the tests.";
export const USER_2 = "Before Friday: can we delete legacyRound()? Reuse the explorer that surveyed the modules.";

/** The parent's Task calls of the first session, in order. */
export const TASKS_1 = [
  { agent: "explorer", description: "survey modules", task: "Survey the twelve modules under src/modules/ (billing.ts to audit.ts): read each one, then report how money flows through the pipeline and which modules still call the deprecated legacyRound()." },
  { agent: "reviewer", description: "review changelog", task: "Review the 3.0 entries of CHANGELOG.md against src/api/ (routes, handlers, schema, auth, errors): report the entries the API does not implement." },
  { agent: "explorer", description: "find build error", task: "Read logs/build.log in full and report the first error with its file and line." },
  { agent: "tester", description: "audit tests", task: "Audit test/billing, test/tax, test/ledger and test/export: report which money paths have no test." },
];
/** The resume of the second session (its `resume` id is read from the system prompt). */
export const RESUME = { agent: "explorer", description: "legacyRound removal", task: "Check src/legacy/round.ts and src/modules/rounding.ts: can legacyRound() be deleted before 3.0, and what replaces its calls?" };

const reads = (paths) => paths.map((read) => ({ say: `Reading ${read}.`, read }));

/** Each delegation's plan, by its Task description. Models are keys of MODELS. */
export const PLANS = {
  "survey modules": {
    model: "small",
    script: [
      ...reads(MODULE_PATHS),
      { report: "Money flows billing → discounts → tax → currency → rounding → ledger; export, pdf and audit read the ledger; import and customers feed billing; reminders read customers. Three modules still call the deprecated legacyRound(): tax.ts:41, currency.ts:57, discounts.ts:33." },
    ],
  },
  "review changelog": {
    model: "small",
    summaryFails: "503 Service Unavailable: the summarizer is overloaded",
    script: [
      ...reads(["CHANGELOG.md", "src/api/routes.ts", "src/api/handlers.ts", "src/api/schema.ts", "src/api/auth.ts", "src/api/errors.ts"]),
      { report: "Of the 95 entries for 3.0, 93 are implemented in src/api/. Missing: #417 (rounding mode on /invoices) and #452 (audit export endpoint)." },
    ],
  },
  "find build error": {
    model: "small",
    script: [{ say: "Opening the build log.", read: "logs/build.log" }, { report: "(never reached)" }],
  },
  "audit tests": {
    model: "small",
    fallbacks: ["tiny", "medium"],
    script: [
      ...reads(["test/billing.test.ts", "test/tax.test.ts", "test/ledger.test.ts"]),
      // a retriable failure: retried twice on small-8k (the run's retry budget), then the fallback
      ...Array(3).fill({ fail: "503 Service Unavailable: small-8k is overloaded" }),
      ...reads(["test/export.test.ts"]),
      { report: "billing, tax, ledger and export have tests; ledger's only cover positive amounts. No test covers currency conversion or discounts." },
    ],
  },
  "legacyRound removal": {
    script: [
      ...reads(["src/legacy/round.ts", "src/modules/rounding.ts"]),
      { report: "Yes. legacyRound() (src/legacy/round.ts) has three callers, the ones I found in the survey: tax.ts:41, currency.ts:57, discounts.ts:33. rounding.ts already exports roundCents(); replace the three calls with roundCents(total) and delete src/legacy/round.ts." },
    ],
  },
};
