// The inspector page: loads the package's web build, opens a transcript (file picker,
// drop, sample, or ?transcript=<url>), and shows what delegate-context decides for it
// under the chosen model's budget. Parsing is in load.js, library calls in analyse.js,
// DOM helpers in view.js.
import { parseTranscript, lineOfPath, TranscriptError } from "./load.js";
import { PRESETS, presetKey, findPreset } from "./models.js";
import { sampleTranscript } from "./sample.js";
import { analyseContext, analyseDelegations, chainHistory, chainSeed, messageTokens, parentContext } from "./analyse.js";
import { el, fmt, fields, preview, tokenBar, runsOf, VirtualList } from "./view.js";

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
  modelFromUrl: false, // ?model=<id> given: a file's own model does not replace it
};

// ---- errors ------------------------------------------------------------------------

/** One readable line for any error: the library's code and path, a file line. */
function describe(e) {
  if (e instanceof TranscriptError) return { code: "UNREADABLE_FILE", line: e.line, text: `Cannot read the file: ${e.message}` };
  if (e && e.name === "DelegateContextError") {
    const line = lineOfPath(state.file?.parsed, e.path);
    const where = e.path ? ` at ${e.path}` : "";
    const fileLine = line ? ` (line ${line} of ${state.file.name})` : "";
    return { code: e.code, path: e.path, line, text: `${e.code}${where}${fileLine}: ${e.message}` };
  }
  return { code: e?.name ?? "Error", text: `${e?.name ?? "Error"}: ${e?.message ?? String(e)}` };
}

function setError(slot, e) {
  state.errors[slot] = e ? describe(e) : null;
  const box = $("error");
  const shown = [state.errors.file, state.errors.model].filter(Boolean);
  box.replaceChildren(...shown.map((d) => el("div", { dataset: { code: d.code, path: d.path ?? "", line: d.line ?? "" } }, d.text)));
  const first = shown[0];
  box.dataset.code = first?.code ?? "";
  box.dataset.path = first?.path ?? "";
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
  return {
    model: { contextWindow: num("contextWindow"), maxTokens: num("maxTokens") },
    modelId: preset ? key : "custom/model",
    binding: preset ? { provider: preset.provider, model: preset.id } : { provider: "custom", model: "model" },
  };
}

/** The budget of the current model (and its table), or null after showing the error. */
function renderBudget() {
  const body = $("budget").querySelector("tbody");
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
    const count = parsed.kind === "rows" ? `${fmt(parsed.rows.length)} rows` : `${fmt(parsed.messages.length)} messages`;
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
    const preset = findPreset(suggested);
    if (state.modelFromUrl) {
      if (suggested) notices.push(`The file names the model ${suggested}; the page keeps the model given in the URL.`);
    } else if (suggested && preset) {
      selectPreset(preset);
      notices.push(`The file names the model ${suggested}: preset ${presetKey(preset)} selected.`);
    } else if (suggested) notices.push(`The file names the model ${suggested}, which is not among the presets: type its window and max tokens.`);
    $("notices").replaceChildren(...notices.map((n) => el("li", {}, n)));
    await nextFrame(); // let the page paint what it has
    if (gen !== state.gen) return;
    setContext();
    await nextFrame();
    if (gen !== state.gen) return;
    refresh();
  } catch (e) {
    if (gen !== state.gen) return;
    $("context").hidden = true;
    setError("file", e);
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
    title = `the file's ${fmt(messages.length)} messages`;
  }
  const tokens = messageTokens(dc, messages);
  state.context = { messages, tokens, lines: parsed.kind === "rows" ? undefined : parsed.lines, title };
  list.setCount(0);
}

/** Everything that depends on the budget: the seed, the cut, the next boundary. */
function refresh() {
  try {
    analyse();
  } finally {
    document.body.dataset.analyses = String(++state.analyses); // tests wait on it
  }
}

function analyse() {
  const budget = renderBudget();
  if (!budget || !state.file || state.errors.file) {
    $("context").hidden = true;
    return;
  }
  const { modelId, binding } = currentModel();
  try {
    const chain = state.delegations?.chains[state.chain];
    if (chain) renderSeed(chainSeed(dc, state.file.parsed.rows, chain, binding, budget.hardLimit), budget);
    if (!state.context) return;
    const t = performance.now();
    const a = analyseContext(dc, { ...state.context, budget, modelId, summaryTokens: Math.max(1, Number($("summaryTokens").value) || 1000) });
    a.ms = performance.now() - t;
    state.analysis = a;
    renderContext(a, budget);
  } catch (e) {
    $("context").hidden = true;
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
        el("td", { dataset: { field: "runs" } }, c.runs.map((r) => el("div", {}, el("code", {}, r.delegationId), ` ${r.status ?? "no status"}, ${fmt(r.rows)} rows`))),
        el("td", { dataset: { field: "status" } }, c.status ?? "none recorded"),
        el("td", { dataset: { field: "reads" } }, `${fmt(c.reads.files.length)} files, ${fmt(c.reads.lines)} lines`,
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

const VERDICT = { unchanged: "leave it: below the threshold", compacted: "compact", degraded: "degrade: history lost", fail: "fail: SUBAGENT_CONTEXT_OVERFLOW" };

function renderContext(a, budget) {
  const ctx = state.context;
  $("context").hidden = false;
  $("context-title").textContent = `(${ctx.title})`;
  const verdict = a.failure ? "fail" : a.outcome.outcome;
  $("summary").replaceChildren(
    el("p", {}, el("span", { class: `verdict ${verdict}`, dataset: { field: "verdict", value: verdict } }, `Next turn boundary: ${VERDICT[verdict]}`),
      el("small", { dataset: { field: "analysisMs" } }, `  analysed in ${a.ms.toFixed(0)} ms`)),
    fields([
      ["messages", a.n, "messageCount"],
      ["sum of per-message estimates", a.sum, "estimateSum"],
      ["tokens at the boundary", a.plan.tokens, "boundaryTokens"],
      ["  of which provider usage", a.estimate.lastUsageIndex === undefined || a.estimate.lastUsageIndex === null
        ? "none trusted: all estimates" : `${fmt(a.estimate.usageTokens)} (message #${a.estimate.lastUsageIndex}) + ${fmt(a.estimate.trailingTokens)} estimated after it`],
      [`compared with (${a.plan.threshold === budget.hardLimit ? "hardLimit" : "compactionTrigger"})`, a.plan.threshold, "threshold"],
    ]),
  );
  // Bars: the context now, and after the boundary.
  const scale = Math.max(budget.contextWindow, a.sum, a.plan.tokens);
  const marks = [
    { at: budget.hardLimit, label: "hardLimit", kind: "limit" },
    { at: budget.compactionTrigger, label: "90% trigger", kind: "trigger" },
    { at: budget.contextWindow, label: "window", kind: "window" },
    { at: a.plan.tokens, label: "boundary tokens", kind: "tokens" },
  ];
  if (a.sum > budget.keepRecentTokens) marks.push({ at: a.sum - budget.keepRecentTokens, label: "keepRecentTokens ←", kind: "keep" });
  const bars = [el("h3", {}, "Now (per-message estimates, oldest left)"), tokenBar({ segments: runsOf(a.regions, ctx.tokens), marks, scale, label: "the context now" })];
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
  renderCut(a);
  renderBoundary(a);
  list.setCount(a.n);
}

function renderCut(a) {
  const c = a.compaction;
  $("cut").replaceChildren(
    el("h3", {}, "Where the cut falls (pi's primitives)"),
    c
      ? fields([
        ["compactableStart", c.compactableStart, "compactableStart"],
        ["firstKeptIndex", c.firstKeptIndex, "firstKeptIndex"],
        ["isSplitTurn", String(c.isSplitTurn), "isSplitTurn"],
        ["messagesToSummarize", c.messagesToSummarize, "messagesToSummarize"],
        ["turnPrefixMessages", c.turnPrefixMessages, "turnPrefixMessages"],
        ["retainedTail", c.retainedTail, "retainedTail"],
        ["tokensBefore", c.tokensBefore, "tokensBefore"],
        ["previous summary", c.previousSummary === undefined ? "none" : `${fmt(c.previousSummary.length)} characters`],
        ["files read / written / edited", `${c.fileOps.read.length} / ${c.fileOps.written.length} / ${c.fileOps.edited.length}`],
      ])
      : el("p", {}, "prepareCompaction returns undefined (no messages, or a summary last): nothing to compact."),
    el("p", {}, el("small", {}, "prepareCompaction(messages, {reserveTokens: requestHeadroom, keepRecentTokens}) over the whole array; findCutPoint(messages, 0, n, keepRecentTokens):")),
    fields([
      ["firstKeptEntryIndex", a.cut.firstKeptEntryIndex, "cutFirstKept"],
      ["turnStartIndex", a.cut.turnStartIndex, "cutTurnStart"],
      ["isSplitTurn", String(a.cut.isSplitTurn), "cutSplit"],
    ]),
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
  const box = [el("h3", {}, "The next turn boundary (prepareDelegateTurn → completeDelegateTurn)")];
  box.push(fields([
    ["action", p.action, "action"],
    ["turn", p.turn, "turn"],
    ["reason", p.reason ?? "—", "reason"],
    ["summarizedMessages", p.summarizedMessages, "planSummarized"],
    ["retainedMessages", p.retainedMessages, "planRetained"],
  ]));
  if (p.requests.length) {
    box.push(el("p", {}, `${p.requests.length} summary request(s) the host would send:`));
    for (const r of p.requests) {
      const text = requestText(r);
      const pre = el("pre", { dataset: { request: r.kind } });
      const details = el("details", { ontoggle: () => {
        if (details.open && !pre.textContent) pre.textContent = text.length > 200000 ? `${text.slice(0, 200000)}\n… ${fmt(text.length - 200000)} more characters` : text;
      } },
      el("summary", {}, `${r.kind}: maxTokens ${fmt(r.maxTokens)}, ~${fmt(r.estimatedInputTokens)} input tokens${r.bounded ? `, bounded (${fmt(r.omittedParts)} parts omitted)` : ""}; ${fmt(text.length)} characters`),
      pre);
      box.push(el("div", { dataset: { field: "request", kind: r.kind } }, details));
    }
  }
  if (a.failure) {
    box.push(el("p", { class: "verdict fail", dataset: { field: "failure", code: a.failure.code } }, `${a.failure.code}: ${a.failure.message}`),
      fields([["tokens", a.failure.tokens], ["hardLimit", a.failure.hardLimit], ["retriable", String(a.failure.retriable)]]));
  } else {
    const o = a.outcome;
    box.push(
      el("p", {}, a.answer ? el("small", {}, `Outcome with placeholder summaries of ${fmt(Number($("summaryTokens").value))} tokens:`) : el("small", {}, "Outcome:")),
      fields([
        ["outcome", o.outcome, "outcome"],
        ["tokensBefore", o.tokensBefore, "outcomeTokensBefore"],
        ["tokensAfter", o.tokensAfter, "tokensAfter"],
        ["messages after", o.messageCount, "messagesAfter"],
        ["summarizedMessages", o.summarizedMessages, "summarizedMessages"],
        ["droppedMessages", o.droppedMessages, "droppedMessages"],
        ["droppedTokens", o.droppedTokens, "droppedTokens"],
        ["contextDegraded", String(o.contextDegraded), "contextDegraded"],
        ["reason", o.reason ?? "—"],
        ["summaryError", o.summaryError ?? "—"],
      ]),
    );
  }
  $("boundary").replaceChildren(...box);
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
  renderBudget();
  document.body.dataset.ready = "true";
  if (params.get("transcript")) await openUrl(params.get("transcript"));
}

boot();
