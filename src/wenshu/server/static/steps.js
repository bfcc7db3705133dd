// The collapsible steps panel: one row per graph node (intent → recall → SQL → validate → run →
// explain) with its status, its time in ms and, on failure or retry, the reason.

import { label, t } from "./i18n.js";
import { el } from "./dom.js";

const FAILED = new Set(["error", "retry"]);

export function createSteps() {
  const list = el("ol", { class: "steps-list" });
  const summary = el("summary", { class: "steps-summary" });
  const title = label(el("span"), "steps");
  const total = el("span", { class: "steps-total" });
  summary.append(title, total);
  // Open while the answer runs; it folds away once every step went well.
  const panel = el("details", { class: "steps", "data-testid": "steps", open: true }, summary, list);
  let current = null;

  // A step without a translated label (e.g. the server's `queue` step) shows its own name.
  function stepName(node) {
    const key = `node.${node}`;
    const name = el("span", { class: "step-name" });
    if (t(key) === key) name.textContent = node;
    else label(name, key);
    return name;
  }

  function row(node) {
    const item = el("li", { class: "step", "data-node": node });
    item.append(
      stepName(node),
      el("span", { class: "step-status" }),
      el("span", { class: "step-ms" }),
      el("div", { class: "step-detail" }),
    );
    list.append(item);
    return item;
  }

  function set(item, status, ms, detail) {
    item.dataset.status = status;
    label(item.querySelector(".step-status"), `status.${status}`);
    item.querySelector(".step-ms").textContent = ms == null ? "" : `${Math.round(ms)} ms`;
    const reason = item.querySelector(".step-detail");
    reason.textContent = detail && (FAILED.has(status) || status === "skipped") ? String(detail) : "";
  }

  function updateTotal() {
    let sum = 0;
    for (const ms of list.querySelectorAll(".step-ms")) sum += parseFloat(ms.textContent) || 0;
    total.textContent = sum ? ` · ${Math.round(sum)} ms` : "";
  }

  // A streamed `node` event: {node, status: "started" | "finished" | ok/retry/error..., ms?, detail?}.
  function onNode(ev) {
    if (!ev || !ev.node) return;
    if (ev.status === "started") {
      current = row(ev.node);
      set(current, "started", null, null);
      return;
    }
    const open = [...list.querySelectorAll(`.step[data-node="${CSS.escape(ev.node)}"]`)].pop();
    const item = open && open.dataset.status === "started" ? open : row(ev.node);
    const status = ev.status === "finished" ? ev.outcome || (ev.error ? "error" : "ok") : ev.status;
    set(item, status, ev.ms, ev.detail ?? ev.error ?? ev.reason);
    if (FAILED.has(status)) panel.open = true;
    updateTotal();
  }

  // The authoritative trace of the final AgentResponse replaces whatever was streamed.
  function fromTrace(trace) {
    if (!trace || !trace.length) return;
    list.replaceChildren();
    for (const step of trace) set(row(step.node), step.status || "ok", step.ms, step.detail);
    if (trace.some((s) => FAILED.has(s.status))) panel.open = true;
    updateTotal();
  }

  // A stopped or failed stream leaves running steps as they were: mark them.
  function finish(status) {
    for (const item of list.querySelectorAll('.step[data-status="started"]')) set(item, status, null, null);
    const failed = list.querySelector('.step[data-status="error"], .step[data-status="retry"]');
    panel.open = status !== "ok" || failed !== null;
  }

  return { element: panel, onNode, fromTrace, finish };
}
