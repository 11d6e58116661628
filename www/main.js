// The inspector page: loads the package's web build, opens a transcript (file picker,
// drop, sample, or ?transcript=<url>), and shows what delegate-context decides for it
// under the chosen model's budget. Parsing is in load.js, library calls in analyse.js,
// DOM helpers in view.js.
import { parseTranscript, lineOfPath, plural, TranscriptError } from "./load.js";
import { PRESETS, presetKey, findPreset } from "./models.js";
import { sampleTranscript } from "./sample.js";
import { analyseContext, analyseDelegations, chainHistory, chainSeed, messageTokens, parentContext } from "./analyse.js";
import { el, fmt, fields, preview, tokenBar, layoutLabels, runsOf, timelineChart, VirtualList } from "./view.js";
import { replaySession } from "./replay.js";

const $ = (id) => document.getElementById(id);
const nextFrame = () => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 0)));

let dc; // the package (web build), once initialised
const state = {
  opened: 0, // files opened so far (body[data-opened] for tests)
  analyses: 0, // budget-dependent refreshes so far (body[data-analyses])
  gen: 0, // bumps on every open: stale work compares and stops
  file: null, // {name, parsed}
  delegations: null, // analyseDelegations(...) (owns a DelegationRegistry)
  chain: -1, // selected chain's index
  context: null, // {messages, tokens, lines, title}
  analysis: null,
  errors: { file: null, model: null },
  modelFromUrl: false, // ?model=<id> or ?contextWindow= given: a file's own model does not replace it
  modelChosen: false, // the user picked a preset or typed a window: the page never replaces it silently
  asking: false, // the window prompt is open: nothing budget-dependent is shown until it is answered
  fileModelId: undefined, // the model id the file names (used as modelId when no preset matches)
  replay: null, // the last replaySession(...) result
  refreshes: 0, // bumps on every refresh: a stale replay does not run
};

// ---- errors ------------------------------------------------------------------------

/** One readable line for any error: the library's code, where in the file, its message. */
function describe(e) {
  if (e instanceof TranscriptError) return { code: "UNREADABLE_FILE", line: e.line, text: `Cannot read the file: ${e.message}` };
  if (e && e.name === "DelegateContextError") {
    const parsed = state.file?.parsed;
    const line = e.fileLine ?? lineOfPath(parsed, e.path);
    const path = filePath(parsed, e.path);
    // a pi session's message is named by its line; an array's by its index in the file
    const where = line ? ` at line ${line} of ${state.file.name} (${path})` : path ? ` at ${path}` : "";
    // the library's message starts with "invalid input at <path>: ": said once, above
    // (the page may have made its path absolute: messages[3].content for message.content)
    const message = String(e.message).replace(/^invalid input at \S+: /, "");
    return { code: e.code, path, libraryPath: e.path, line, text: `${e.code}${where}: ${message}` };
  }
  return { code: e?.name ?? "Error", text: `${e?.name ?? "Error"}: ${e?.message ?? String(e)}` };
}

// A library path in the file's own terms: in a pi session, `messages[i].x` is the
// `message.x` of the entry on its line; in an array that got a synthetic brief,
// `messages[i]` is the file's `messages[i-1]` (the brief stays messages[0]).
function filePath(parsed, path) {
  if (typeof path !== "string") return path;
  if (parsed?.kind === "pi-session") return path.replace(/^(?:input\.)?messages\[\d+\]/, "message");
  if (!parsed?.syntheticBrief) return path;
  return path.replace(/^((?:input\.)?messages)\[(\d+)\]/, (all, head, i) => (Number(i) > 0 ? `${head}[${Number(i) - 1}]` : all));
}

function setError(slot, e) {
  state.errors[slot] = e ? describe(e) : null;
  const box = $("error");
  const shown = [state.errors.file, state.errors.model].filter(Boolean);
  box.replaceChildren(...shown.map((d) => el("div", { dataset: { code: d.code, path: d.path ?? "", line: d.line ?? "" } }, d.text)));
  const first = shown[0];
  box.dataset.code = first?.code ?? "";
  box.dataset.path = first?.path ?? "";
  box.dataset.libraryPath = first?.libraryPath ?? "";
}

// ---- model and budget --------------------------------------------------------------

function fillPresets() {
  const select = $("preset");
  select.replaceChildren(
    el("option", { value: "custom" }, "custom (type window and max tokens)"),
    ...PRESETS.map((p) => el("option", { value: presetKey(p) }, `${p.provider}/${p.id}: ${fmt(p.contextWindow)} / ${fmt(p.maxTokens)}`)),
  );
}

function selectPreset(p) {
  $("preset").value = presetKey(p);
  $("contextWindow").value = p.contextWindow;
  $("maxTokens").value = p.maxTokens;
}

/** The model the delegate runs on, as the form says. */
function currentModel() {
  const num = (id) => ($(id).value.trim() === "" ? undefined : Number($(id).value));
  const key = $("preset").value;
  const preset = PRESETS.find((p) => presetKey(p) === key);
  const named = state.fileModelId;
  return {
    model: { contextWindow: num("contextWindow"), maxTokens: num("maxTokens") },
    modelId: preset ? key : named ? named.key : "custom/model",
    binding: preset ? { provider: preset.provider, model: preset.id } : named ? { provider: named.provider, model: named.id } : { provider: "custom", model: "model" },
  };
}

/** Sets the form to a window and output cap (the matching preset when `id` names one with those numbers). */
function setWindow(contextWindow, maxTokens, id) {
  const p = findPreset(id);
  if (p && p.contextWindow === contextWindow && (maxTokens === undefined || p.maxTokens === maxTokens)) return void selectPreset(p);
  $("preset").value = "custom";
  $("contextWindow").value = contextWindow;
  $("maxTokens").value = maxTokens ?? "";
}

/**
 * The model of a newly opened file, never a silent default: the model given in the
 * URL or chosen by the user stays; else the window the file records; else the preset
 * of the model it names; else the page asks for the window and output tokens.
 */
function chooseModel(parsed, suggested, notices) {
  const id = typeof suggested === "string" && suggested ? suggested : undefined;
  const provider = parsed.provider ?? (id?.includes("/") ? id.slice(0, id.indexOf("/")) : undefined);
  const bare = id?.includes("/") ? id.slice(id.lastIndexOf("/") + 1) : id;
  state.fileModelId = id ? { provider: provider ?? "custom", id: bare, key: `${provider ?? "custom"}/${bare}` } : undefined;
  const preset = findPreset(id);
  const recorded = parsed.model;
  const named = id ? `the model ${id}` : "no model";
  if (state.modelFromUrl || state.modelChosen) {
    notices.push(`The file names ${named}; the page keeps the model ${state.modelFromUrl ? "given in the URL" : "you chose"} (${describeModel()}).`);
  } else if (recorded) {
    setWindow(recorded.contextWindow, recorded.maxTokens, id);
    if (recorded.maxTokens === undefined) {
      $("maxTokens").value = preset?.maxTokens ?? "";
    }
    notices.push(`The file records ${named} with a ${fmt(recorded.contextWindow)}-token window${recorded.maxTokens ? ` and ${fmt(recorded.maxTokens)} output tokens` : ""}: used.`);
    if (recorded.maxTokens === undefined && !preset) return ask(`The file records the window of ${named} (${fmt(recorded.contextWindow)} tokens) but not its output tokens.`, recorded.contextWindow);
  } else if (preset) {
    selectPreset(preset);
    notices.push(`The file names ${named}: preset ${presetKey(preset)} (window ${fmt(preset.contextWindow)}, output ${fmt(preset.maxTokens)}) selected.`);
  } else {
    return ask(id ? `The file names the model ${id}, which is not among the presets, and does not record its window.` : "The file names no model and records no window.");
  }
  closeAsk();
}

function describeModel() {
  const { model, modelId } = currentModel();
  return `${modelId}: window ${fmt(model.contextWindow)}, output ${fmt(model.maxTokens)}`;
}

// The window prompt: analysis waits until the window and output tokens are given.
function ask(why, contextWindow) {
  state.asking = true;
  $("ask-why").textContent = `${why} Type the window and output tokens of the model it runs on, or pick a preset above: nothing is decided before.`;
  $("askWindow").value = contextWindow ?? "";
  $("askMaxTokens").value = "";
  $("ask").hidden = false;
  // no preset stands for the unknown model meanwhile
  $("preset").value = "custom";
  $("contextWindow").value = contextWindow ?? "";
  $("maxTokens").value = "";
}

function closeAsk() {
  state.asking = false;
  $("ask").hidden = true;
}

function answerAsk() {
  const w = Number($("askWindow").value);
  const out = Number($("askMaxTokens").value);
  if (!($("askWindow").value.trim() && w > 0) || !($("askMaxTokens").value.trim() && out > 0)) {
    $("ask-why").dataset.invalid = "true";
    $("askWindow").reportValidity?.();
    return;
  }
  $("preset").value = "custom";
  $("contextWindow").value = w;
  $("maxTokens").value = out;
  state.modelChosen = true;
  closeAsk();
  refresh();
}

/** The budget of the current model (and its table), or null after showing the error. */
function renderBudget() {
  const body = $("budget").querySelector("tbody");
  if (state.asking) {
    body.replaceChildren(el("tr", {}, el("td", { dataset: { field: "budgetPending" } }, "The budget waits for the model's window and output tokens.")));
    setError("model", null);
    return null;
  }
  try {
    const budget = dc.contextBudget(currentModel().model);
    body.replaceChildren(...Object.entries(budget).map(([k, v]) => el("tr", {}, el("th", {}, k), el("td", { dataset: { field: k } }, fmt(v)))));
    setError("model", null);
    return budget;
  } catch (e) {
    body.replaceChildren();
    setError("model", e);
    return null;
  }
}

// ---- opening a file ----------------------------------------------------------------

function reset() {
  state.delegations?.registry.free();
  state.delegations = null;
  state.file = null;
  state.context = null;
  state.analysis = null;
  state.chain = -1;
  $("delegations").hidden = true;
  $("context").hidden = true;
  $("timeline").hidden = true;
  state.replay = null;
  $("notices").replaceChildren();
  $("source").textContent = "";
  setError("file", null);
}

/** Opens a transcript's text: parse, delegations, context, analysis. */
async function openText(text, name) {
  const gen = ++state.gen;
  reset();
  document.body.dataset.state = "loading";
  $("source").textContent = `Reading ${name}…`;
  const t0 = performance.now();
  try {
    const parsed = parseTranscript(text, name);
    state.file = { name, parsed };
    const count = parsed.kind === "rows" ? plural(parsed.rows.length, "row") : parsed.compaction ? `${plural(parsed.whole.messages.length, "message")}, ${plural(parsed.messages.length - (parsed.syntheticBrief ? 1 : 0), "message")} in pi's context (the summary and the messages kept after it)` : plural(parsed.messages.length - (parsed.syntheticBrief ? 1 : 0), "message");
    $("source").textContent = `${name}: ${parsed.format}, ${count} (${fmt(text.length)} characters)`;
    const notices = [...parsed.notices];
    let suggested = parsed.modelId;
    if (parsed.kind === "rows") {
      const parent = parentContext(dc, parsed.rows); // validates every row (paths rows[i]...)
      state.delegations = analyseDelegations(dc, parsed.rows);
      const chains = state.delegations.chains;
      if (chains.length === 0) notices.push("No delegation in these rows: no Task row with a delegationId.");
      else {
        // The chain with the most rows is the interesting context.
        const sizes = chains.map((c) => c.runs.reduce((s, r) => s + r.rows, 0));
        state.chain = sizes.indexOf(Math.max(...sizes));
        suggested ??= chains[state.chain].modelId;
      }
      renderDelegations(parent);
    }
    chooseModel(parsed, suggested, notices);
    $("notices").replaceChildren(...notices.map((n) => el("li", {}, n)));
    await nextFrame(); // let the page paint what it has
    if (gen !== state.gen) return;
    setContext();
    await nextFrame();
    if (gen !== state.gen) return;
    await refresh();
  } catch (e) {
    if (gen !== state.gen) return;
    $("context").hidden = true;
    $("timeline").hidden = true;
    closeAsk();
    setError("file", e);
    $("source").textContent = `${name}: not opened (${fmt(text.length)} characters): the error is below.`;
  } finally {
    if (gen === state.gen) {
      const ms = performance.now() - t0;
      $("source").dataset.openMs = ms.toFixed(1);
      document.body.dataset.state = state.errors.file ? "error" : "ready";
      document.body.dataset.opened = String(++state.opened);
    }
  }
}

/** The context to analyse: the file's messages, or the selected chain's history. */
function setContext() {
  const parsed = state.file.parsed;
  let messages;
  let title;
  if (parsed.kind === "rows") {
    const chain = state.delegations.chains[state.chain];
    if (!chain) return void (state.context = null);
    messages = chainHistory(dc, parsed.rows, chain, currentModel().binding);
    title = `chain ${chain.agent} / ${chain.latestDelegationId}: the brief and the chain's whole history`;
  } else {
    messages = parsed.messages;
    const own = messages.length - (parsed.syntheticBrief ? 1 : 0);
    title = parsed.compaction
      ? `pi's context: the last compaction's summary and the ${plural(own - 1, "message")} kept after it`
      : `the file's ${plural(own, "message")}`;
  }
  const tokens = messageTokens(dc, messages);
  const whole = parsed.whole ? { messages: parsed.whole.messages, lines: parsed.whole.lines } : undefined;
  if (whole) {
    try {
      messageTokens(dc, whole.messages); // every message of the replay checked first
    } catch (e) {
      const m = /^messages\[(\d+)\]/.exec(e?.path ?? "");
      if (m) e.fileLine = whole.lines[Number(m[1])];
      throw e;
    }
  }
  state.context = { messages, tokens, lines: parsed.kind === "rows" ? undefined : parsed.lines, title, whole };
  list.setCount(0);
}

/** Everything that depends on the budget: the seed, the cut, the next boundary. */
/**
 * Everything that depends on the budget. The verdict is drawn at once; the replay of
 * the whole session runs in the next frame (a newer refresh supersedes it), so a
 * change of model shows its verdict before the timeline is redrawn.
 */
async function refresh() {
  const gen = ++state.refreshes;
  try {
    const replay = analyse();
    if (!replay) return;
    $("timeline-summary").dataset.pending = "true";
    await nextFrame();
    if (gen !== state.refreshes) return;
    try {
      replay();
    } catch (e) {
      $("timeline").hidden = true;
      setError("file", e);
    }
  } finally {
    if (gen === state.refreshes) {
      delete $("timeline-summary").dataset.pending;
      document.body.dataset.analyses = String(++state.analyses); // tests wait on it
    }
  }
}

const summaryTokens = () => Math.max(1, Number($("summaryTokens").value) || 1000);

function analyse() {
  const budget = renderBudget();
  if (!budget || !state.file || state.errors.file || state.asking) {
    $("context").hidden = true;
    $("timeline").hidden = true;
    if (state.asking) $("seed").replaceChildren(el("p", {}, "The seed waits for the model's window and output tokens."));
    return;
  }
  const { modelId, binding } = currentModel();
  try {
    const chain = state.delegations?.chains[state.chain];
    if (chain) renderSeed(chainSeed(dc, state.file.parsed.rows, chain, binding, budget.hardLimit), budget);
    if (!state.context) return;
    const t = performance.now();
    const a = analyseContext(dc, { ...state.context, budget, modelId, summaryTokens: summaryTokens() });
    a.ms = performance.now() - t;
    state.analysis = a;
    renderContext(a, budget);
    const whole = state.context.whole ?? state.context;
    const placeholder = summaryTokens();
    return () => {
      state.replay = replaySession(dc, whole.messages, { budget, modelId, summaryTokens: placeholder });
      renderTimeline(state.replay, budget, whole);
    };
  } catch (e) {
    $("context").hidden = true;
    $("timeline").hidden = true;
    setError("file", e);
  }
}

// ---- rendering -----------------------------------------------------------------------

function renderDelegations(parent) {
  const { chains, skips, prompt } = state.delegations;
  $("delegations").hidden = false;
  $("parent").textContent =
    `The parent's context (buildParentContext): ${fmt(parent.messages)} messages, ${fmt(parent.tokens)} tokens; ` +
    `${fmt(parent.delegateRows)} rows written by delegates stay out of it.` +
    (parent.warnings.length ? ` Warnings: ${parent.warnings.map((w) => w.code).join(", ")}.` : "");
  const body = $("chains").querySelector("tbody");
  body.replaceChildren(
    ...chains.map((c, i) =>
      el("tr", { class: i === state.chain ? "selected" : "", dataset: { chain: String(i), id: c.latestDelegationId } },
        el("td", {}, el("input", { type: "radio", name: "chain", checked: i === state.chain, "aria-label": `select chain ${c.agent}`, onchange: () => selectChain(i) })),
        el("td", {}, el("b", {}, c.agent), el("br"), el("small", {}, c.objective)),
        el("td", { dataset: { field: "runs" } }, c.runs.map((r) => el("div", { dataset: { run: r.delegationId, status: r.status ?? "", code: r.code ?? "", degraded: r.degraded === null ? "" : String(r.degraded), compactions: r.compactions ?? "" } },
          el("code", {}, r.delegationId), " ", runEndText(r), `, ${plural(r.rows, "row")}`))),
        el("td", { dataset: { field: "status" } }, c.status ?? "none recorded"),
        el("td", { dataset: { field: "reads" } }, `${plural(c.reads.files.length, "file")}, ${plural(c.reads.lines, "line")}`,
          el("br"), el("small", {}, c.reads.files.slice(0, 3).join(", ") + (c.reads.files.length > 3 ? ", …" : ""))),
        el("td", { dataset: { field: "resumable", code: c.whyNot?.code ?? "" } },
          c.whyNot ? [el("span", { class: "no" }, c.whyNot.code), el("br"), el("small", {}, c.whyNot.message)] : el("span", { class: "yes" }, "resumable")),
      ),
    ),
  );
  $("skips").replaceChildren(
    skips.length
      ? el("p", {}, "Task rows the rebuild skipped (rebuildSkips()): ",
        skips.map((s, i) => [i ? "; " : "", el("code", { dataset: { skip: s.reason } }, s.toolCallId), ` (row ${s.index}): ${s.reason}`]))
      : el("p", {}, "The rebuild skipped no Task row."),
  );
  $("prompt").textContent = prompt || "(empty: no chain is resumable)";
  $("prompt-box").open = true;
}

/** How a run ended, in words: its status, its error code, degraded or not, compactions. */
function runEndText(r) {
  const parts = [el("b", {}, r.status ?? "no status recorded")];
  if (r.code) parts.push(" with ", el("code", { class: "no" }, r.code));
  const more = [];
  if (r.compactions !== null) more.push(plural(r.compactions, "compaction"));
  if (r.degraded === true) more.push("degraded: history lost");
  else if (r.degraded === false) more.push("not degraded");
  if (more.length) parts.push(` (${more.join(", ")})`);
  return parts;
}

function selectChain(i) {
  state.chain = i;
  for (const tr of $("chains").querySelectorAll("tbody tr")) tr.classList.toggle("selected", tr.dataset.chain === String(i));
  try {
    setContext();
    refresh();
  } catch (e) {
    setError("file", e);
  }
}

function renderSeed(seed, budget) {
  const roles = Object.entries(seed.roles).map(([r, n]) => `${n} ${r}`).join(", ");
  $("seed").replaceChildren(
    fields([
      ["messages", `${fmt(seed.messages)} (${roles})`, "seedMessages"],
      ["tokens", seed.tokens, "seedTokens"],
      ["hardLimit", seed.hardLimit, "seedHardLimit"],
      ["truncated", seed.truncated ? "yes" : "no", "seedTruncated"],
      ["tool calls stripped", `${fmt(seed.dropped.toolCallIds.length)}${seed.dropped.toolCallIds.length ? `: ${seed.dropped.toolCallIds.slice(0, 4).join(", ")}${seed.dropped.toolCallIds.length > 4 ? ", …" : ""}` : ""}`, "seedDroppedCalls"],
      ["messages dropped", seed.dropped.messages, "seedDroppedMessages"],
      ["tokens dropped", seed.dropped.tokens, "seedDroppedTokens"],
      ["brief over hardLimit", seed.briefOverLimit ? "yes: kept anyway" : "no"],
    ]),
    el("p", {}, el("small", {}, `seedDelegateMessages({brief, rows, chain, binding, hardLimit: ${fmt(budget.hardLimit)}}): what a resume of this chain would start with.`)),
    seededList(seed.seeded),
  );
}

// The seeded messages, listed when opened (index, role, estimated tokens, content).
function seededList(messages) {
  const table = el("table", { id: "seeded" });
  const details = el("details", { ontoggle: () => {
    if (!details.open || table.rows.length) return;
    table.append(el("tr", {}, el("th", {}, "#"), el("th", {}, "role"), el("th", {}, "tokens"), el("th", {}, "content")),
      ...messages.slice(0, 1000).map((m, i) => el("tr", {}, el("td", {}, `#${i}`), el("td", {}, m.role), el("td", { class: "n" }, fmt(dc.estimateTokens(m))), el("td", {}, preview(m, 100)))));
    if (messages.length > 1000) table.append(el("tr", {}, el("td", { colspan: 4 }, `… ${fmt(messages.length - 1000)} more`)));
  } }, el("summary", {}, `The seeded history (${fmt(messages.length)} messages)`), table);
  return details;
}

const THRESHOLD_NAME = (plan, budget) => (plan.threshold === budget.hardLimit ? "hardLimit" : "the 90% trigger");

/** The verdict's sentence, with the figure it was decided on. */
function verdictText(a, budget) {
  const p = a.plan;
  const limit = `${THRESHOLD_NAME(p, budget)} ${fmt(p.threshold)}`;
  if (a.failure) return `fail: SUBAGENT_CONTEXT_OVERFLOW (${fmt(p.tokens)} tokens; even the brief and the newest messages do not fit under hardLimit ${fmt(budget.hardLimit)})`;
  const o = a.outcome;
  if (o.outcome === "unchanged") return `leave it: ${fmt(p.tokens)} tokens, below ${limit}`;
  if (o.outcome === "compacted") return `compact: ${fmt(o.tokensBefore)} tokens reach ${limit}; ${fmt(o.tokensAfter)} after the summary`;
  return `degrade: ${fmt(o.tokensBefore)} tokens reach ${limit} and the summary does not bring them under hardLimit; history lost (${plural(o.droppedMessages, "message")} dropped)`;
}

const ACTION_WORDS = { unchanged: "leave it", summarize: "compact", degrade: "degrade" };

function renderContext(a, budget) {
  const ctx = state.context;
  const f = a.figures;
  $("context").hidden = false;
  $("context-title").textContent = `(${ctx.title})`;
  const verdict = a.failure ? "fail" : a.outcome.outcome;
  const usageText = f.usage === null
    ? "none: no assistant message with usable provider usage"
    : `${fmt(f.usage)} (usage ${fmt(f.usageTokens)} at message #${f.usageIndex} + ${fmt(f.trailing)} estimated after it)`;
  const source = f.decidedBy === "usage" ? "the provider usage figure" : "the chars/4 estimate";
  const notes = [];
  if (f.disagree) {
    notes.push(el("p", { class: "disagree", dataset: { field: "figuresNotice", disagree: "true", decidedBy: f.decidedBy } },
      `The two figures disagree: provider usage puts the context at ${fmt(f.usage)} tokens, the chars/4 estimate at ${fmt(f.estimate)}. `,
      f.decidedBy === "usage"
        ? `The decision used the provider usage figure (${fmt(f.decided)}), as pi does: it is what the provider counted for the request of message #${f.usageIndex}, plus estimates of the messages after it. `
        : `The decision used the chars/4 estimate (${fmt(f.decided)}): the recorded usage was measured before the context was rewritten, so the package does not trust it here. `,
      f.byEstimate && f.byEstimate !== a.plan.action
        ? el("b", { dataset: { field: "byEstimate", value: f.byEstimate } }, `By the estimate alone the package would ${ACTION_WORDS[f.byEstimate] ?? f.byEstimate}. `)
        : f.byEstimate ? el("span", { dataset: { field: "byEstimate", value: f.byEstimate } }, `By the estimate alone the action is the same. `) : "",
      f.decidedBy === "usage" && f.estimate > f.usage
        ? "A file can list more than its last request carried (messages a compaction replaced, or a transcript kept whole while the requests were compacted); the bars below draw every message's estimate."
        : ""));
  } else if (f.usage !== null) {
    notes.push(el("p", { dataset: { field: "figuresNotice", disagree: "false", decidedBy: f.decidedBy } },
      `Provider usage and the chars/4 estimate agree within 25% and on the same side of ${THRESHOLD_NAME(a.plan, budget)}; the decision used ${source}.`));
  }
  $("summary").replaceChildren(
    el("p", {}, el("span", { class: `verdict ${verdict}`, dataset: { field: "verdict", value: verdict } }, `Next turn boundary: ${verdictText(a, budget)}`),
      el("small", { dataset: { field: "analysisMs" } }, `  analysed in ${a.ms.toFixed(0)} ms`)),
    fields([
      ["messages", a.n, "messageCount"],
      ["provider usage + estimate after it", usageText, "usageFigure"],
      ["chars/4 estimate of every message", a.sum, "estimateSum"],
      [`decided on (${source})`, a.plan.tokens, "boundaryTokens"],
      [`against ${THRESHOLD_NAME(a.plan, budget)}`, a.plan.threshold, "threshold"],
    ]),
    ...notes,
  );
  // Bars: the context now, and after the boundary.
  const scale = Math.max(budget.contextWindow, a.sum, a.plan.tokens);
  const marks = [
    { at: budget.hardLimit, label: "hardLimit", kind: "limit" },
    { at: budget.compactionTrigger, label: "90% trigger", kind: "trigger" },
    { at: budget.contextWindow, label: "window", kind: "window" },
    { at: a.plan.tokens, label: f.decidedBy === "usage" ? "decided on (usage)" : "decided on (estimate)", kind: "tokens" },
  ];
  if (f.disagree && f.decidedBy === "usage") marks.push({ at: a.sum, label: "chars/4 estimate", kind: "estimate" });
  if (a.sum > budget.keepRecentTokens) marks.push({ at: a.sum - budget.keepRecentTokens, label: "keepRecentTokens from here", kind: "keep" });
  const bars = [el("h3", {}, "Now (each message's chars/4 estimate, oldest left)"), tokenBar({ segments: runsOf(a.regions, ctx.tokens), marks, scale, label: "the context now" })];
  if (a.outcome && a.outcome.outcome !== "unchanged") {
    bars.push(
      el("h3", {}, `After the boundary (${a.outcome.outcome}): ${fmt(a.outcome.tokensAfter)} tokens`),
      tokenBar({
        segments: [{ region: "brief", tokens: a.after.brief }, { region: "summary", tokens: a.after.summary }, { region: "kept", tokens: a.after.kept }],
        marks: [{ at: budget.hardLimit, label: "hardLimit", kind: "limit" }, { at: a.outcome.tokensAfter, label: "after", kind: "tokens" }],
        scale,
        label: "the context after the boundary",
      }),
    );
  }
  $("bars").replaceChildren(...bars);
  for (const box of $("bars").querySelectorAll(".barbox")) layoutLabels(box);
  renderCut(a);
  renderBoundary(a);
  list.setCount(a.n);
}

function renderCut(a) {
  const c = a.compaction;
  $("cut").replaceChildren(
    el("h3", {}, "Where pi's cut falls"),
    el("p", {}, el("small", {}, "pi-agent-core's prepareCompaction over these messages, with reserveTokens = requestHeadroom and the budget's keepRecentTokens: what pi would summarize and keep.")),
    c
      ? fields([
        ["summarizable from message", `#${c.compactableStart}`, "compactableStart"],
        ["first message kept verbatim", `#${c.firstKeptIndex}`, "firstKeptIndex"],
        ["the cut splits a turn", c.isSplitTurn ? "yes: the turn's start is summarized on its own (turn prefix)" : "no", "isSplitTurn"],
        ["messages for the history summary", c.messagesToSummarize, "messagesToSummarize"],
        ["messages for the turn-prefix summary", c.turnPrefixMessages, "turnPrefixMessages"],
        ["messages kept verbatim", c.retainedTail, "retainedTail"],
        ["tokens before", c.tokensBefore, "tokensBefore"],
        ["previous summary", c.previousSummary === undefined ? "none" : plural(c.previousSummary.length, "character")],
        ["files read / written / edited", `${c.fileOps.read.length} / ${c.fileOps.written.length} / ${c.fileOps.edited.length}`],
      ])
      : el("p", {}, "prepareCompaction returns undefined (no messages, or a summary last): nothing to compact."),
    c && c.turnPrefixMessages
      ? el("p", {}, el("small", {}, `The cut falls inside a turn: the ${plural(c.turnPrefixMessages, "message")} of that turn before the cut get their own short summary, beside the history summary of the ${plural(c.messagesToSummarize, "message")} before the turn.`))
      : "",
    el("p", {}, el("small", {}, `findCutPoint over all messages keeps from #${a.cut.firstKeptEntryIndex}`, a.cut.turnStartIndex >= 0 ? `; its turn starts at #${a.cut.turnStartIndex}` : "", ".")),
    el("span", { hidden: true, dataset: { field: "cutFirstKept" } }, String(a.cut.firstKeptEntryIndex)),
    el("span", { hidden: true, dataset: { field: "cutTurnStart" } }, String(a.cut.turnStartIndex)),
    el("button", { type: "button", onclick: () => list.scrollTo(a.cut.firstKeptEntryIndex) }, "show the cut in the list"),
  );
}

function requestText(r) {
  const m = r.messages[0];
  const prompt = typeof m?.content === "string" ? m.content : (m?.content ?? []).map((b) => b.text ?? "").join("\n");
  return `[system prompt]\n${r.systemPrompt}\n\n[user]\n${prompt}`;
}

function renderBoundary(a) {
  const p = a.plan;
  const box = [el("h3", {}, "The next turn boundary (the package's step)")];
  box.push(el("p", {}, el("small", {}, "prepareDelegateTurn, then completeDelegateTurn. Its cut keeps an active turn whole (ADR 0136), so it can differ from pi's cut beside it.")));
  box.push(fields([
    ["action", p.action, "action"],
    ["turn", p.turn === "active" ? "active (tool results pending or just in)" : "completed", "turnKind"],
    ["reason", p.reason ?? "—", "reason"],
    ["messages to summarize (history and turn prefix)", p.summarizedMessages, "planSummarized"],
    ["messages kept verbatim", p.retainedMessages, "planRetained"],
  ]));
  box.push(el("span", { hidden: true, dataset: { field: "turn" } }, p.turn));
  if (p.requests.length) {
    box.push(el("p", {}, `${plural(p.requests.length, "summary request")} the host would send:`));
    for (const r of p.requests) {
      const text = requestText(r);
      const pre = el("pre", { dataset: { request: r.kind } });
      const details = el("details", { ontoggle: () => {
        if (details.open && !pre.textContent) pre.textContent = text.length > 200000 ? `${text.slice(0, 200000)}\n… ${fmt(text.length - 200000)} more characters` : text;
      } },
      el("summary", {}, `${r.kind}: up to ${fmt(r.maxTokens)} output tokens, about ${fmt(r.estimatedInputTokens)} input tokens${r.bounded ? `, bounded (${plural(r.omittedParts, "part")} omitted)` : ""}; ${plural(text.length, "character")}`),
      pre);
      box.push(el("div", { dataset: { field: "request", kind: r.kind } }, details));
    }
  }
  if (a.failure) {
    box.push(el("p", { class: "verdict fail", dataset: { field: "failure", code: a.failure.code } }, `${a.failure.code}: ${a.failure.message}`),
      fields([["tokens", a.failure.tokens], ["hardLimit", a.failure.hardLimit], ["retriable", a.failure.retriable ? "yes" : "no"]]));
  } else {
    const o = a.outcome;
    box.push(
      el("p", {}, a.answer ? el("small", {}, `Outcome with placeholder summaries of ${fmt(summaryTokens())} tokens:`) : el("small", {}, "Outcome:")),
      fields([
        ["outcome", o.outcome, "outcome"],
        ["tokens before", o.tokensBefore, "outcomeTokensBefore"],
        ["tokens after", o.tokensAfter, "tokensAfter"],
        ["messages after", o.messageCount, "messagesAfter"],
        ["messages summarized", o.summarizedMessages, "summarizedMessages"],
        ["messages dropped", o.droppedMessages, "droppedMessages"],
        ["tokens dropped", o.droppedTokens, "droppedTokens"],
        ["history lost (degraded)", o.contextDegraded ? "yes" : "no", "contextDegraded"],
        ["reason", o.reason ?? "—"],
        ["summary error", o.summaryError ?? "—"],
      ]),
    );
  }
  $("boundary").replaceChildren(...box);
}

const EVENT_WORDS = { compacted: "compacted", degraded: "degraded", overflow: "overflow: SUBAGENT_CONTEXT_OVERFLOW" };

/** The replay's timeline: the chart, its legend, and one row per event with its cut. */
function renderTimeline(r, budget, whole) {
  $("timeline").hidden = false;
  const counts = { compacted: 0, degraded: 0, overflow: 0 };
  for (const e of r.events) counts[e.kind]++;
  const at = (i) => (i === null || i === undefined ? "—" : `#${i}${whole.lines?.[i] ? ` (line ${whole.lines[i]})` : ""}`);
  const last = r.turns.at(-1);
  const endText = r.end === "completed"
    ? `the run reaches its end at ${fmt(last?.after ?? 0)} tokens`
    : `the run fails at turn ${fmt(r.events.at(-1).turn + 1)} with ${r.end}`;
  $("timeline-summary").replaceChildren(
    el("p", { dataset: { field: "replaySummary", end: r.end } },
      `${plural(whole.messages.length, "message")} replayed through ${plural(r.turns.length, "turn boundary")} (one before each model request after the first, one at the end): `,
      el("b", {}, `${plural(counts.compacted, "compaction")}, ${plural(counts.degraded, "degrade")}, ${counts.overflow ? "an overflow" : "no overflow"}`),
      `; ${endText}.`),
    el("p", {}, el("small", { dataset: { field: "replayMs" } }, `Replayed in ${r.ms.toFixed(0)} ms. Tokens are chars/4 estimates (the usage a file recorded counted the original run's context, not this one); each summary is a placeholder of ${fmt(summaryTokens())} tokens.`)),
  );
  $("timeline-chart").replaceChildren(timelineChart({ turns: r.turns, events: r.events, hardLimit: budget.hardLimit, trigger: budget.compactionTrigger, window: budget.contextWindow }));
  $("timeline-legend").replaceChildren(
    el("li", {}, el("i", { class: "k-tokens" }), "tokens at each boundary, then after a rewrite"),
    el("li", {}, el("i", { class: "k-limit" }), `hardLimit ${fmt(budget.hardLimit)}`),
    el("li", {}, el("i", { class: "k-trigger" }), `90% trigger ${fmt(budget.compactionTrigger)} (off by default)`),
    el("li", {}, el("i", { class: "k-window" }), `window ${fmt(budget.contextWindow)}`),
    el("li", {}, el("i", { class: "ev-compacted dot" }), "compaction"),
    el("li", {}, el("i", { class: "ev-degraded dot" }), "degrade"),
    el("li", {}, el("i", { class: "ev-overflow dot" }), "overflow"),
  );
  const body = $("events").querySelector("tbody");
  body.replaceChildren(...r.events.map((e, i) => el("tr", {
    class: `ev-row ${e.kind}`,
    dataset: { event: String(i), kind: e.kind, turn: String(e.turn), at: String(e.at), before: String(e.tokensBefore), after: e.tokensAfter === null ? "" : String(e.tokensAfter), keptFrom: e.keptFrom ?? "", summarized: e.summarized ?? "", dropped: e.dropped ?? "" },
  },
  el("td", { class: "n" }, fmt(i + 1)),
  el("td", { class: "n" }, fmt(e.turn + 1)),
  el("td", {}, e.at < whole.messages.length ? at(e.at) : "the end"),
  el("td", { class: "n" }, `${fmt(e.tokensBefore)} → ${e.tokensAfter === null ? "✗" : fmt(e.tokensAfter)}`),
  el("td", {}, el("span", { class: `verdict ${e.kind === "overflow" ? "fail" : e.kind}` }, EVENT_WORDS[e.kind])),
  el("td", {}, e.kind === "overflow"
    ? `the brief and the newest messages do not fit under hardLimit ${fmt(e.hardLimit)}: the run ends`
    : e.kind === "compacted"
      ? `${plural(e.summarized, "message")} summarized; verbatim from ${at(e.keptFrom)}${e.isSplitTurn ? " (a split turn)" : ""}`
      : `${plural(e.dropped, "message")} dropped (${fmt(e.droppedTokens)} tokens)${e.summarized ? `, ${plural(e.summarized, "message")} summarized` : ""}; kept from ${at(e.keptFrom)}${e.reason ? `; ${e.reason}` : ""}`),
  )));
  $("events").hidden = r.events.length === 0;
  $("timeline").dataset.replayMs = r.ms.toFixed(1);
  $("timeline").dataset.events = String(r.events.length);
}

// The message list: one row per message, drawn only when visible.
const list = new VirtualList($("list"), {
  renderRow(i) {
    const ctx = state.context;
    const a = state.analysis;
    const m = ctx.messages[i];
    const region = a?.regions[i] ?? "";
    const line = ctx.lines?.[i];
    const cls = `row b-${region}${a?.compaction && i === a.compaction.firstKeptIndex ? " cut" : ""}`;
    return el("div", { class: cls, dataset: { i: String(i) }, title: line ? `file line ${line}` : "", onclick: () => showMessage(i) },
      el("span", { class: "n" }, `#${i}`),
      el("span", {}, m?.role ?? "?"),
      el("span", { class: "n" }, fmt(ctx.tokens[i])),
      el("span", {}, el("span", { class: `tag r-${region}` }, region)),
      el("span", { class: "txt" }, preview(m)));
  },
});

function showMessage(i) {
  const ctx = state.context;
  const json = JSON.stringify(ctx.messages[i], null, 2) ?? "undefined";
  const line = ctx.lines?.[i];
  $("detail").textContent = `messages[${i}]${line ? ` (line ${line} of ${state.file.name})` : ""}, ${fmt(ctx.tokens[i])} tokens, ${state.analysis?.regions[i] ?? ""}\n` +
    (json.length > 30000 ? `${json.slice(0, 30000)}\n… ${fmt(json.length - 30000)} more characters` : json);
}

// ---- wiring --------------------------------------------------------------------------

let debounce;
function onModelInput(event) {
  if (["preset", "contextWindow", "maxTokens"].includes(event.target.id)) {
    state.modelChosen = true;
    if (state.asking) closeAsk();
  }
  if (event.target.id === "preset") {
    const p = PRESETS.find((x) => presetKey(x) === event.target.value);
    if (p) selectPreset(p);
  } else if (event.target.id !== "summaryTokens") {
    const p = PRESETS.find((x) => presetKey(x) === $("preset").value);
    if (p && (Number($("contextWindow").value) !== p.contextWindow || Number($("maxTokens").value) !== p.maxTokens)) $("preset").value = "custom";
  }
  renderBudget(); // cheap: at once
  clearTimeout(debounce);
  debounce = setTimeout(refresh, 150); // the analysis: once typing pauses
}

async function openFile(file) {
  if (!file) return;
  await openText(await file.text(), file.name);
}

async function openUrl(url) {
  const name = decodeURIComponent(new URL(url, location.href).pathname.split("/").pop() || url);
  let text;
  try {
    const res = await fetch(new URL(url, location.href));
    if (!res.ok) throw new Error(`HTTP ${res.status} ${res.statusText}`);
    text = await res.text();
  } catch (e) {
    reset();
    setError("file", new Error(`Could not fetch ${url}: ${e.message}`));
    document.body.dataset.state = "error";
    document.body.dataset.opened = String(++state.opened);
    return;
  }
  await openText(text, name);
}

function wire() {
  fillPresets();
  selectPreset(PRESETS[0]);
  $("model").addEventListener("input", onModelInput);
  $("askUse").addEventListener("click", answerAsk);
  $("ask").addEventListener("keydown", (e) => {
    if (e.key === "Enter") answerAsk();
  });
  $("file").addEventListener("change", (e) => openFile(e.target.files[0]));
  $("sample").addEventListener("click", () => openText(JSON.stringify(sampleTranscript()), "sample (generated)"));
  const drop = $("drop");
  document.addEventListener("dragover", (e) => {
    e.preventDefault();
    drop.classList.add("over");
  });
  document.addEventListener("dragleave", () => drop.classList.remove("over"));
  document.addEventListener("drop", (e) => {
    e.preventDefault();
    drop.classList.remove("over");
    openFile(e.dataTransfer.files[0]);
  });
  // Anything unexpected is shown, never a blank page.
  window.addEventListener("error", (e) => setError("file", e.error ?? new Error(e.message)));
  window.addEventListener("unhandledrejection", (e) => setError("file", e.reason));
}

async function boot() {
  try {
    dc = await import("../pkg/web/delegate_context.js");
    await dc.default();
  } catch (e) {
    $("version").textContent = "";
    $("error").textContent = `Could not load the WebAssembly module (../pkg/web/delegate_context.js): ${e.message}. ` +
      "Build it with `bash scripts/build-pkg.sh` and serve the repository root over HTTP.";
    document.body.dataset.ready = "error";
    return;
  }
  $("version").textContent = `delegate-context ${dc.version()}`;
  wire();
  const params = new URLSearchParams(location.search);
  const preset = findPreset(params.get("model"));
  if (preset) {
    selectPreset(preset);
    state.modelFromUrl = true;
  }
  // ?contextWindow=8192&maxTokens=2048: a model that is not a preset (the demo's local/small-8k)
  const w = Number(params.get("contextWindow"));
  if (w > 0) {
    setWindow(w, Number(params.get("maxTokens")) > 0 ? Number(params.get("maxTokens")) : undefined, params.get("model") ?? undefined);
    if (!(Number(params.get("maxTokens")) > 0)) $("maxTokens").value = "";
    state.modelFromUrl = true;
  }
  renderBudget();
  document.body.dataset.ready = "true";
  if (params.get("transcript")) await openUrl(params.get("transcript"));
}

boot();
