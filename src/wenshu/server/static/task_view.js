// One workspace task on screen: each step as it streams in (its decision — action, target, reason — at
// once, its result summary when it comes), then the ending sentence, the last verify result, the diff and
// the buttons its status allows (Apply, Discard, Resume, Stop). tasks.js feeds it and wires the buttons.

import { label } from "./i18n.js";
import { el } from "./dom.js";

const RESUMABLE = ["interrupted", "failed", "max_steps", "queued", "running"];

function actionName(action, target) {
  if (action === "verify") return label(el("span", { class: "task-step-action" }), `task.verify.${target || "finish"}`);
  return label(el("span", { class: "task-step-action" }), `task.action.${action}`);
}

function stepRow(decision) {
  const { n, action, target, reason } = decision;
  const head = el("div", { class: "task-step-head" }, el("span", { class: "task-step-n" }, `${n}.`),
    actionName(action, target), action === "verify" || !target ? null : el("code", { class: "task-step-target" }, target),
    el("span", { class: "task-step-state" }));
  const why = reason ? el("p", { class: "task-step-reason" }, reason) : null;
  const summary = label(el("pre", { class: "task-step-summary" }), "tasksWorking");
  return el("li", { class: "task-step", "data-n": n, "data-action": action, "data-state": "running" }, head, why, summary);
}

function fillResult(row, step) {
  row.dataset.state = step.ok ? "ok" : "failed";
  if (step.code) row.dataset.code = step.code;
  if (step.outcome) row.dataset.outcome = step.outcome;
  const state = row.querySelector(".task-step-state");
  if (step.action === "verify" && step.outcome) label(state, `task.outcome.${step.outcome}`);
  else label(state, step.ok ? "task.ok" : "task.failed"); // a refusal's summary starts with its code
  const summary = row.querySelector(".task-step-summary");
  delete summary.dataset.i18n;
  summary.textContent = step.summary || "";
}

function diffView(diff) {
  const pre = el("pre", { class: "task-diff", "data-testid": "task-diff" });
  for (const line of diff.split("\n")) {
    let kind = "";
    if (line.startsWith("+++") || line.startsWith("---")) kind = "file";
    else if (line.startsWith("+")) kind = "add";
    else if (line.startsWith("-")) kind = "del";
    else if (line.startsWith("@@")) kind = "hunk";
    pre.append(el("span", { class: kind ? `diff-${kind}` : null }, line), "\n");
  }
  return pre;
}

export function createTaskView(actions) {
  const title = el("h3", { class: "task-goal" });
  const where = el("p", { class: "task-where" });
  const status = el("span", { class: "task-status" });
  const steps = el("ol", { class: "task-steps", "data-testid": "task-steps" });
  const ending = el("div", { class: "task-ending", "data-testid": "task-ending", hidden: true });
  const buttons = {};
  for (const [name, key] of [["apply", "tasksApply"], ["discard", "tasksDiscard"], ["resume", "tasksResume"],
    ["stop", "tasksStop"]]) {
    buttons[name] = label(el("button", { type: "button", class: `task-${name}`, "data-testid": `task-${name}`,
      hidden: true }), key);
    buttons[name].addEventListener("click", () => actions[name]());
  }
  const root = el("section", { class: "task-view", "data-testid": "task-view", hidden: true },
    el("div", { class: "task-view-head" }, title, status), where, steps, ending,
    el("div", { class: "task-buttons" }, ...Object.values(buttons)));
  const rows = new Map();

  function show(task, running) {
    root.dataset.status = task.status;
    root.dataset.taskId = task.task_id;
    label(status, `task.status.${running ? "running" : task.status}`);
    buttons.stop.hidden = !running;
    buttons.apply.hidden = running || task.status !== "solved";
    buttons.resume.hidden = running || !RESUMABLE.includes(task.status);
    buttons.discard.hidden = running;
  }

  return {
    root,
    reset(task) {
      root.hidden = false;
      title.textContent = task.goal || "";
      where.textContent = task.workspace || "";
      steps.replaceChildren();
      ending.hidden = true;
      ending.replaceChildren();
      rows.clear();
      show(task, true);
    },
    decision(d) {
      if (rows.has(d.n)) return;
      const row = stepRow(d);
      rows.set(d.n, row);
      steps.append(row);
    },
    step(s) {
      if (!rows.has(s.n)) this.decision(s);
      fillResult(rows.get(s.n), s);
    },
    done(task) {
      for (const s of task.steps || []) this.step(s);
      show(task, false);
      const verify = task.result && task.result.verify;
      const badge = verify ? label(el("span", { class: "task-verify", "data-verify": verify, "data-testid": "task-verify" }),
        `task.outcome.${verify}`) : null;
      const diff = task.result && task.result.diff;
      ending.replaceChildren(el("p", { class: "task-message", "data-testid": "task-message" }, badge, task.message || ""),
        diff ? diffView(diff) : null);
      ending.dataset.code = (task.ending && task.ending.code) || "";
      ending.hidden = false;
    },
    hide() {
      root.hidden = true;
      delete root.dataset.taskId;
    },
  };
}
