// Loads the web build of the package and shows the budget for the model entered.
import init, { contextBudget, version } from "../pkg/web/delegate_context.js";

await init();
document.getElementById("version").textContent = `delegate-context ${version()}`;
const body = document.querySelector("#budget tbody");
const error = document.getElementById("error");

function render() {
  const model = {
    contextWindow: Number(document.getElementById("contextWindow").value),
    maxTokens: Number(document.getElementById("maxTokens").value),
  };
  try {
    const budget = contextBudget(model);
    body.replaceChildren(
      ...Object.entries(budget).map(([k, v]) => {
        const tr = document.createElement("tr");
        tr.innerHTML = `<th>${k}</th><td data-field="${k}">${v.toLocaleString("en-US")}</td>`;
        return tr;
      }),
    );
    error.textContent = "";
  } catch (e) {
    error.textContent = `${e.code}: ${e.message}`;
  }
}
document.getElementById("model").addEventListener("input", render);
render();
document.body.dataset.ready = "true";
