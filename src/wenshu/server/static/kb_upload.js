// Uploading documents: files chosen or dropped anywhere on the page go one per request to
// POST /api/kb/documents?background=true, which answers with a task; a toast per file follows it by
// polling GET /api/tasks/{id} (queued -> parsing -> chunking -> embedding -> summarizing -> ready, or the
// file's own error sentence) while the other files go on.

import { ApiError, errorFrom, headers, request } from "./api.js";
import { label, t } from "./i18n.js";
import { el } from "./dom.js";

const POLL_MS = 400;
const HIDE_READY_MS = 8000;

function toastArea() {
  let area = document.querySelector(".kb-toasts");
  if (!area) {
    area = el("div", { class: "kb-toasts", "aria-live": "polite", "data-testid": "kb-toasts" });
    document.body.append(area);
  }
  return area;
}

function createToast(name) {
  const status = el("span", { class: "kb-toast-status" });
  const bar = el("progress", { class: "kb-toast-bar", max: 1, value: 0 });
  const message = el("p", { class: "kb-toast-message" });
  const close = el("button", { type: "button", class: "icon kb-toast-close", "data-i18n-title": "kbClose",
    title: t("kbClose") }, "×");
  const node = el("div", { class: "kb-toast", role: "status", "data-name": name },
    el("div", { class: "kb-toast-head" }, el("strong", { class: "kb-toast-name" }, name), status, close), bar, message);
  close.addEventListener("click", () => node.remove());
  toastArea().append(node);

  // item: {status, done, total, error} as GET /api/tasks/{id} answers it for this file
  function update(item) {
    node.dataset.status = item.status;
    label(status, `kb.${item.status}`);
    const counted = item.total ? item.done / item.total : 0;
    bar.hidden = ["ready", "error", "duplicate", "removed"].includes(item.status);
    bar.value = counted;
    if (item.error) {
      node.setAttribute("role", "alert");
      node.dataset.code = item.error.code || "";
      message.textContent = item.error.message || "";
    } else if (item.total) message.textContent = `${item.done} / ${item.total}`;
    else message.textContent = "";
    if (item.finished && !item.error) setTimeout(() => node.remove(), HIDE_READY_MS);
  }

  update({ status: "uploading" });
  return { update };
}

async function post(file) {
  const form = new FormData();
  form.append("files", file, file.name);
  let res;
  try {
    res = await fetch("/api/kb/documents?background=true", { method: "POST", headers: headers(false), body: form });
  } catch {
    throw new ApiError("network_error", t("networkError"));
  }
  if (!res.ok) throw await errorFrom(res);
  return res.json();
}

const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

const ADDED = ["ready", "duplicate"]; // the file's document is in the knowledge base

// Upload one file and follow it to the end; onChange() after every change the document list may show,
// onAdded() once the file's document is in the knowledge base.
async function uploadOne(file, onChange, onAdded) {
  const toast = createToast(file.name);
  try {
    let task = await post(file);
    for (;;) {
      toast.update(task.items[0]);
      onChange();
      if (task.status === "done") {
        if (ADDED.includes(task.items[0].status)) onAdded();
        return;
      }
      await sleep(POLL_MS);
      task = await request("GET", `/api/tasks/${encodeURIComponent(task.task_id)}`);
    }
  } catch (err) {
    toast.update({ status: "error", finished: true, error: { code: err.code, message: err.message || String(err) } });
  }
}

export function uploadFiles(files, onChange, onAdded = () => {}) {
  return Promise.all([...files].map((f) => uploadOne(f, onChange, onAdded)));
}

// Dropping files anywhere on the page uploads them; an overlay says so while files are dragged over it.
export function enableDrop(onChange, onAdded) {
  const overlay = label(el("div", { class: "kb-drop", "data-testid": "kb-drop", hidden: true }), "kbDropHere");
  document.body.append(overlay);
  let depth = 0;
  const hasFiles = (e) => e.dataTransfer && [...e.dataTransfer.types].includes("Files");
  document.addEventListener("dragenter", (e) => {
    if (!hasFiles(e)) return;
    depth += 1;
    overlay.hidden = false;
  });
  document.addEventListener("dragleave", (e) => {
    if (!hasFiles(e)) return;
    depth = Math.max(0, depth - 1);
    if (!depth) overlay.hidden = true;
  });
  document.addEventListener("dragover", (e) => {
    if (hasFiles(e)) e.preventDefault(); // allows the drop
  });
  document.addEventListener("drop", (e) => {
    if (!hasFiles(e)) return;
    e.preventDefault();
    depth = 0;
    overlay.hidden = true;
    if (e.dataTransfer.files.length) uploadFiles(e.dataTransfer.files, onChange, onAdded);
  });
}
