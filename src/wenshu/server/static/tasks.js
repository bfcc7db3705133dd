// The task panel: start a workspace task in a folder the server allows (GET /api/workspaces lists them;
// nothing else can be chosen, and the server checks the folder again), watch its steps live over
// GET /api/tasks/{id}/events, then apply, discard, resume or stop it; the past tasks below reopen theirs.

import { request, stream } from "./api.js";
import { label, t } from "./i18n.js";
import { el } from "./dom.js";
import { createTaskView } from "./task_view.js";

const path = (id, action = "") => `/api/tasks/${encodeURIComponent(id)}${action}`;

function pastRow(task, onOpen) {
  const open = el("button", { type: "button", class: "task-past-open" }, task.goal);
  open.addEventListener("click", () => onOpen(task));
  const badge = label(el("span", { class: "task-status" }), `task.status.${task.running ? "running" : task.status}`);
  const when = new Date(task.created_at * 1000).toLocaleString();
  return el("li", { class: "task-past", "data-id": task.task_id, "data-status": task.status }, open, badge,
    el("span", { class: "task-past-where" }, `${task.workspace} · ${when}`));
}

export function setupTasks({ button }) {
  const folder = el("select", { class: "task-folder", "data-testid": "task-folder" });
  const goal = el("textarea", { class: "task-goal-input", rows: 2, "data-testid": "task-goal",
    "data-i18n-placeholder": "tasksGoalPlaceholder", placeholder: t("tasksGoalPlaceholder") });
  const start = label(el("button", { type: "submit", class: "task-start", "data-testid": "task-start" }), "tasksStart");
  const error = el("p", { class: "task-error", "data-testid": "task-error", role: "alert", hidden: true });
  const noRoots = label(el("p", { class: "hint", hidden: true, "data-testid": "task-no-roots" }), "tasksNoRoots");
  const form = el("form", { class: "task-form" },
    el("label", { class: "field" }, label(el("span"), "tasksFolder"), folder),
    el("label", { class: "field" }, label(el("span"), "tasksGoal"), goal), noRoots, el("div", {}, start), error);
  const past = el("ul", { class: "task-past-list", "data-testid": "task-list" });
  const close = label(el("button", { type: "button", class: "kb-close" }), "kbClose");
  let current = null; // {task_id, goal, workspace} of the task on screen
  let watching = null; // the AbortController of its event stream
  const view = createTaskView({ apply, discard, resume, stop });
  const dialog = el("dialog", { class: "tasks-dialog", "data-testid": "tasks-dialog" },
    el("div", { class: "kb-dialog-head" }, label(el("h2"), "tasksTitle"), close), form, view.root,
    label(el("h3", { class: "task-past-title" }), "tasksHistory"), past);
  document.body.append(dialog);

  function showError(err) {
    error.hidden = !err;
    error.textContent = err ? err.message || String(err) : "";
    error.dataset.code = (err && err.code) || "";
  }

  async function loadFolders() {
    try {
      const { folders = [] } = await request("GET", "/api/workspaces");
      const chosen = folder.value;
      folder.replaceChildren(...folders.map((f) => el("option", { value: f.path, title: f.path }, f.name)));
      if (folders.some((f) => f.path === chosen)) folder.value = chosen;
      noRoots.hidden = folders.length > 0;
      start.disabled = !folders.length;
    } catch (err) {
      showError(err);
    }
  }

  async function refreshList() {
    try {
      const { items = [] } = await request("GET", "/api/tasks?kind=workspace");
      past.replaceChildren(...items.map((task) => pastRow(task, watch)));
      if (!items.length) past.append(label(el("li", { class: "empty" }), "tasksEmpty"));
    } catch (err) {
      showError(err);
    }
  }

  // Show a task and follow its events: its steps so far, the new ones as they come, then its end.
  async function watch(task) {
    if (watching) watching.abort();
    const controller = (watching = new AbortController());
    current = task;
    view.reset(task);
    showError(null);
    try {
      await stream(path(task.task_id, "/events"), undefined, ({ type, data }) => {
        if (type === "decision") view.decision(data);
        else if (type === "step") view.step(data);
        else if (type === "done") {
          view.done(data);
          refreshList();
        }
      }, controller.signal, "GET");
    } catch (err) {
      if (err.name !== "AbortError") showError(err);
    } finally {
      if (watching === controller) watching = null;
    }
  }

  async function act(method, action, body) {
    showError(null);
    try {
      return await request(method, path(current.task_id, action), body);
    } catch (err) {
      showError(err);
      return null;
    }
  }

  async function apply() {
    const task = await act("POST", "/apply", {});
    if (task) view.done(task);
    refreshList();
  }

  async function discard() {
    if (!confirm(t("tasksDiscardConfirm"))) return;
    if (await act("POST", "/discard", {})) {
      view.hide();
      current = null;
    }
    refreshList();
  }

  async function resume() {
    const task = await act("POST", "/resume", {});
    if (task) watch(task);
  }

  async function stop() {
    await act("DELETE", "");
  }

  form.addEventListener("submit", async (event) => {
    event.preventDefault();
    showError(null);
    start.disabled = true;
    try {
      const task = await request("POST", "/api/tasks", { kind: "workspace", workspace: folder.value, goal: goal.value });
      refreshList();
      watch(task);
    } catch (err) {
      showError(err);
    } finally {
      start.disabled = !folder.options.length;
    }
  });
  button.addEventListener("click", () => {
    dialog.showModal();
    loadFolders();
    refreshList();
    if (current) watch(current);
  });
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    if (watching) watching.abort(); // the task goes on in the server; reopening it shows where it got to
  });
}
