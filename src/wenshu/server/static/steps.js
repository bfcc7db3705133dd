// The collapsible steps panel: one row per graph node (intent → recall → SQL → validate → run →
// explain) with its status, its time in ms and, on failure or retry, the reason. The assistant's steps
// are rows too: its route, each decision of the model, each tool with its arguments and result, and each
// sub-question of a data question too wide for one query with its answer. A reasoning model's thinking
// is a row of its own, folded and greyed (it is never the answer, and is not stored with it).

import { label, t } from "./i18n.js";
import { el } from "./dom.js";

const FAILED = new Set(["error", "retry"]);
const TOLD = new Set(["route", "decide", "tool", "subquestion"]); // the assistant's rows always show their detail
const SUMMARY = 160;

const short = (text) => {
  const one = String(text ?? "").replace(/\s+/g, " ").trim();
  return one.length > SUMMARY ? `${one.slice(0, SUMMARY - 1)}…` : one;
};
const args = (a) => (a && Object.keys(a).length ? JSON.stringify(a) : "");

export function createSteps() {
  const list = el("ol", { class: "steps-list" });
  const summary = el("summary", { class: "steps-summary" });
  const title = label(el("span"), "steps");
  const total = el("span", { class: "steps-total" });
  summary.append(title, total);
  // Open while the answer runs; it folds away once every step went well.
  const panel = el("details", { class: "steps", "data-testid": "steps", open: true }, summary, list);
  let current = null;
  let thought = null; // the thinking row being written, until the next step

  // A step without a translated label (e.g. the server's `queue` step) shows its own name.
  function stepName(node) {
    const key = `node.${node}`;
    const name = el("span", { class: "step-name" });
    if (t(key) === key) name.textContent = node;
    else label(name, key);
    return name;
  }

  // `shown`: the name on the row when it is not the node's (a tool's own name).
  function row(node, shown) {
    const item = el("li", { class: "step", "data-node": node });
    item.append(
      stepName(shown || node),
      el("span", { class: "step-status" }),
      el("span", { class: "step-ms" }),
      el("div", { class: "step-detail" }),
    );
    list.append(item);
    return item;
  }

  // `why`: the route's rule, told after the route ("tools and skills · a document answers it, not the data").
  function set(item, status, ms, detail, why) {
    item.dataset.status = status;
    label(item.querySelector(".step-status"), `status.${status}`);
    item.querySelector(".step-ms").textContent = ms == null ? "" : `${Math.round(ms)} ms`;
    const reason = item.querySelector(".step-detail");
    const told = FAILED.has(status) || status === "skipped" || TOLD.has(item.dataset.node);
    if (item.dataset.node === "route" && detail) detail = [t(`route.${detail}`), why && t(`route.why.${why}`)].filter(Boolean).join(" · ");
    reason.textContent = detail && told ? String(detail) : "";
  }

  // A tool's detail: its arguments, then (once it finished) a summary of its result.
  const toolDetail = (item, result) => [item.dataset.args, result && short(result)].filter(Boolean).join(" → ");

  function updateTotal() {
    let sum = 0;
    for (const ms of list.querySelectorAll(".step-ms")) sum += parseFloat(ms.textContent) || 0;
    total.textContent = sum ? ` · ${Math.round(sum)} ms` : "";
  }

  // A streamed `node` event: {node, status: "started" | "finished" | ok/retry/error..., ms?, detail?}.
  function onNode(ev) {
    if (!ev || !ev.node) return;
    thought = null;
    if (ev.status === "started") {
      current = row(ev.node, ev.tool);
      current.dataset.args = args(ev.arguments);
      set(current, "started", null, ev.tool ? toolDetail(current) : ev.question || null);
      return;
    }
    const open = [...list.querySelectorAll(`.step[data-node="${CSS.escape(ev.node)}"]`)].pop();
    const item = open && open.dataset.status === "started" ? open : row(ev.node, ev.tool);
    const status = ev.status === "finished" ? ev.outcome || (ev.error ? "error" : "ok") : ev.status;
    set(item, status, ev.ms, ev.tool ? toolDetail(item, ev.detail) : ev.detail ?? ev.error ?? ev.reason, ev.reason);
    if (FAILED.has(status)) panel.open = true;
    updateTotal();
  }

  // A streamed `thinking` event: {text}, added to the thinking row of this step (a new one after a step).
  function onThinking(ev) {
    const text = ev && ev.text;
    if (!text) return;
    if (!thought) {
      thought = el("pre", { class: "thinking-text" });
      const fold = el("details", { class: "thinking" }, label(el("summary"), "thinking"), thought);
      list.append(el("li", { class: "step step-thinking", "data-node": "thinking", "data-testid": "thinking" }, fold));
    }
    thought.textContent += text;
  }

  // The authoritative trace of the final AgentResponse replaces whatever was streamed.
  function fromTrace(trace) {
    if (!trace || !trace.length) return;
    list.replaceChildren();
    for (const step of trace) set(row(step.node), step.status || "ok", step.ms, step.detail);
    if (trace.some((s) => FAILED.has(s.status))) panel.open = true;
    updateTotal();
  }

  // The tools of a stored AssistantResponse ({action, arguments, result, ok, ms}), when nothing was streamed.
  function fromTools(tools) {
    if (!tools || !tools.length || list.children.length) return;
    for (const s of tools) {
      const item = row("tool", s.action);
      item.dataset.args = args(s.arguments);
      set(item, s.ok ? "ok" : "error", s.ms, toolDetail(item, s.result));
    }
    updateTotal();
  }

  // A stopped or failed stream leaves running steps as they were: mark them.
  function finish(status) {
    for (const item of list.querySelectorAll('.step[data-status="started"]')) set(item, status, null, null);
    const failed = list.querySelector('.step[data-status="error"], .step[data-status="retry"]');
    panel.open = status !== "ok" || failed !== null;
  }

  return { element: panel, onNode, onThinking, fromTrace, fromTools, finish };
}
