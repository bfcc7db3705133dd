// One chat message. A user message is a bubble of text; an assistant message has fixed slots
// (steps, answer, SQL with copy, table, chart, sources, error) filled from stream events as they arrive,
// or at once from a stored payload when a conversation is reloaded: the data pipeline's AgentResponse,
// or the general assistant's AssistantResponse (its tools, the documents it cites, the pipeline's answer or
// answers: a question too wide for one query shows each sub-question with its SQL and table).

import { label } from "./i18n.js";
import { el } from "./dom.js";
import { createSteps } from "./steps.js";
import { createTable } from "./table.js";
import { createChart } from "./chart.js";
import { createChips } from "./chips.js";
import { citationList } from "./citations.js";

// An error as the chat shows it: "Error: <the server's sentence>", with its stable code.
export function errorBox(err) {
  const box = el("div", { class: "error-box", role: "alert", "data-code": err.code || "" });
  box.append(label(el("strong"), "errorPrefix"), ": ", err.message || String(err));
  return box;
}

export function userMessage(text) {
  return el("article", { class: "msg user" }, el("div", { class: "bubble" }, text));
}

function sqlBlock(sql) {
  const code = el("code", {}, sql);
  const copy = label(el("button", { type: "button", class: "copy-sql" }), "copy");
  copy.addEventListener("click", async () => {
    try {
      await navigator.clipboard.writeText(sql);
    } catch {
      const area = el("textarea", {}, sql); // clipboard API needs a secure context; fall back
      document.body.append(area);
      area.select();
      document.execCommand("copy");
      area.remove();
    }
    label(copy, "copied");
    setTimeout(() => label(copy, "copy"), 1500);
  });
  const head = el("div", { class: "sql-head" }, label(el("span"), "sql"), copy);
  return el("div", { class: "sql-box", "data-testid": "sql" }, head, el("pre", {}, code));
}

// onPlan(text, plan, removed): run a changed plan (a chip was removed or swapped) in the same conversation.
export function assistantMessage({ onPlan } = {}) {
  const steps = createSteps();
  const slots = {
    answer: el("div", { class: "answer", "data-testid": "answer" }),
    citations: el("div", { class: "slot-citations" }),
    parts: el("div", { class: "slot-parts" }),
    plan: el("div", { class: "slot-plan" }),
    sql: el("div", { class: "slot-sql" }),
    table: el("div", { class: "slot-table" }),
    chart: el("div", { class: "slot-chart" }),
    note: el("div", { class: "slot-note" }),
    status: el("p", { class: "slot-status", "data-testid": "status", role: "status" }),
  };
  const bubble = el("div", { class: "bubble" }, steps.element, ...Object.values(slots));
  const element = el("article", { class: "msg assistant busy" }, bubble);
  let streamed = "";

  const setSql = (sql) => sql && slots.sql.replaceChildren(sqlBlock(sql));
  const setTable = (res) => res && res.columns && res.columns.length && slots.table.replaceChildren(createTable(res));
  const setChart = (spec) => spec && slots.chart.replaceChildren(createChart(spec));
  const setAnswer = (text) => {
    slots.answer.classList.remove("streaming");
    slots.answer.textContent = text || "";
  };

  const showError = (err) => slots.note.replaceChildren(errorBox(err));

  // Each answer of the data pipeline behind an assistant's answer (a sub-question, a query_database call):
  // its question, answer, SQL and table.
  function partBlock(part, n) {
    const r = part.response || {};
    const block = el("section", { class: "part", "data-testid": "part" },
      el("h4", { class: "part-question" }, `${n}. ${part.question}`),
      el("p", { class: "part-answer" }, r.answer || ""));
    if (r.sql) block.append(sqlBlock(r.sql));
    if (r.columns && r.columns.length) block.append(createTable(r));
    return block;
  }

  // The assistant's answer: the pipeline's part rendered as a data answer, then its own tools and sources.
  function fromAssistant(resp) {
    if (resp.data) fromResponse(resp.data);
    if (resp.answer) setAnswer(resp.answer);
    if (resp.parts && resp.parts.length) slots.parts.replaceChildren(...resp.parts.map((p, i) => partBlock(p, i + 1)));
    steps.fromTools(resp.steps);
    const sources = citationList(resp.citations);
    if (sources) slots.citations.replaceChildren(sources);
    for (const w of resp.warnings || []) {
      slots.note.append(el("p", { class: "warning-note", "data-code": w.code }, w.message));
    }
    if (resp.error && !resp.answer) showError(resp.error);
  }

  function fromResponse(resp) {
    if (!resp) return;
    if ("route" in resp) return fromAssistant(resp);
    if (resp.answer) setAnswer(resp.answer);
    const sources = citationList(resp.citations);
    if (sources) slots.citations.replaceChildren(sources);
    if (resp.plan && onPlan) slots.plan.replaceChildren(createChips(resp.plan, onPlan));
    if (!slots.sql.firstChild) setSql(resp.sql);
    if (!slots.table.firstChild) setTable(resp);
    if (!slots.chart.firstChild) setChart(resp.chart);
    steps.fromTrace(resp.trace);
    if (resp.error && !resp.answer) showError(resp.error);
    if (resp.cached) element.classList.add("cached");
  }

  function finish(status) {
    element.classList.remove("busy");
    element.dataset.status = status;
    steps.finish(status);
    if (status === "stopped") slots.note.append(label(el("p", { class: "stopped-note" }), "stopped"));
  }

  // The live status line: the place in the queue, the model preparing a datasource; cleared once work starts.
  function setStatus(key, vars) {
    if (key) label(slots.status, key, vars);
    else slots.status.replaceChildren();
  }

  function onProgress(data) {
    if (!data) return;
    if (data.node === "queue") setStatus(data.ahead ? "queuedAhead" : "queuedNext", { n: data.ahead });
    else if (data.stage === "prefix" && data.total) {
      setStatus("preparing", { pct: Math.floor((100 * data.done) / data.total) });
    } else if (data.stage === "prefix_ready") setStatus(null);
  }

  // One streamed event from POST /api/conversations/{id}/messages (or .../assistant).
  function onEvent({ type, data }) {
    if (type === "node") {
      steps.onNode(data);
      if (data && data.node === "queue") {
        if (data.status === "started") onProgress({ node: "queue", ahead: data.ahead || 0 });
        else setStatus(null);
      }
    } else if (type === "progress") onProgress(data);
    else if (type === "thinking") {
      setStatus(null);
      steps.onThinking(data);
    }
    else if (type === "token") {
      setStatus(null);
      streamed += (data && data.text) || "";
      slots.answer.classList.add("streaming");
      slots.answer.textContent = streamed;
    } else if (type === "sql") setSql(data.sql);
    else if (type === "result") setTable(data);
    else if (type === "chart") setChart(data.spec);
    else if (type === "answer") {
      setAnswer(data.text);
      fromResponse(data.response);
    } else if (type === "error") showError(data);
    else if (type === "done") {
      setStatus(null);
      finish(data.status || "ok");
    }
  }

  // A stored assistant message: {content, sql, status, payload: AgentResponse | null}.
  function fromStored(msg) {
    if (msg.status !== "stopped") setAnswer(msg.content);
    if (msg.payload) fromResponse(msg.payload);
    else setSql(msg.sql);
    if (msg.status === "error" && !(msg.payload && msg.payload.answer)) {
      showError({ code: "error", message: msg.content });
      setAnswer("");
    }
    finish(msg.status || "ok");
  }

  return { element, onEvent, fromResponse, fromStored, showError, finish };
}
