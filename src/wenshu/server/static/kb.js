// The knowledge base panel: the documents (status, progress, summary, remove) and the upload button;
// dropping files anywhere on the page uploads them too (kb_upload.js). The list refreshes while any
// document is still being worked on, so a resume after a server restart shows its progress as well.

import { request } from "./api.js";
import { label, t } from "./i18n.js";
import { el } from "./dom.js";
import { enableDrop, uploadFiles } from "./kb_upload.js";

const ACCEPT = ".pdf,.docx,.pptx,.xlsx,.html,.htm,.md,.markdown,.txt,.csv";
const REFRESH_MS = 1000;
const SETTLED = ["ready", "error"];

function documentRow(doc, onRemove) {
  const status = doc.queued ? "queued" : doc.status;
  const badge = label(el("span", { class: "kb-doc-status", "data-status": status }), `kb.${status}`);
  const facts = [doc.pages ? t("kbPages", { n: doc.pages }) : "", doc.chunk_count ? t("kbChunks", { n: doc.chunk_count }) : "",
    doc.total ? `${doc.done} / ${doc.total}` : ""].filter(Boolean).join(" · ");
  let detail;
  if (doc.status === "error") detail = el("p", { class: "kb-doc-error" }, doc.error_message || "");
  else if (doc.summary) detail = el("p", { class: "kb-doc-summary" }, doc.summary);
  else if (doc.status === "summarizing") detail = label(el("p", { class: "kb-doc-pending" }), "kbSummaryPending");
  const remove = label(el("button", { type: "button", class: "kb-doc-remove" }), "kbRemove");
  remove.addEventListener("click", () => onRemove(doc));
  const head = el("div", { class: "kb-doc-head" }, el("strong", { class: "kb-doc-name" }, doc.name), badge,
    el("span", { class: "kb-doc-facts" }, facts), remove);
  return el("li", { class: "kb-doc", "data-id": doc.id, "data-name": doc.name, "data-status": status }, head, detail);
}

// onAdded(): an upload in this page put a document in the knowledge base.
export function setupKnowledgeBase({ button, onError, onAdded }) {
  const list = el("ul", { class: "kb-docs", "data-testid": "kb-docs" });
  const picker = el("input", { type: "file", multiple: true, accept: ACCEPT, hidden: true, "data-testid": "kb-file" });
  const upload = label(el("button", { type: "button", class: "kb-upload", "data-testid": "kb-upload" }), "kbUpload");
  const close = label(el("button", { type: "button", class: "kb-close" }), "kbClose");
  const dialog = el("dialog", { class: "kb-dialog", "data-testid": "kb-dialog" },
    el("div", { class: "kb-dialog-head" }, label(el("h2"), "kbTitle"), close),
    el("div", { class: "kb-actions" }, upload, picker, label(el("span", { class: "hint" }), "kbDropHint")), list);
  document.body.append(dialog);
  let timer = null;

  async function refresh() {
    clearTimeout(timer);
    timer = null;
    if (!dialog.open) return;
    try {
      const { items = [] } = await request("GET", "/api/kb/documents");
      list.replaceChildren(...items.map((d) => documentRow(d, remove)));
      if (!items.length) list.append(label(el("li", { class: "empty" }), "kbEmpty"));
      if (items.some((d) => !SETTLED.includes(d.status))) timer = setTimeout(refresh, REFRESH_MS);
    } catch (err) {
      onError(err);
    }
  }

  async function remove(doc) {
    if (!confirm(t("kbRemoveConfirm", { name: doc.name }))) return;
    try {
      await request("DELETE", `/api/kb/documents/${encodeURIComponent(doc.id)}`);
    } catch (err) {
      onError(err);
    }
    refresh();
  }

  const changed = () => {
    if (dialog.open && timer === null) refresh();
  };
  button.addEventListener("click", () => {
    dialog.showModal();
    refresh();
  });
  close.addEventListener("click", () => dialog.close());
  upload.addEventListener("click", () => picker.click());
  picker.addEventListener("change", () => {
    uploadFiles(picker.files, changed, onAdded);
    picker.value = "";
  });
  enableDrop(changed, onAdded);
  return { refresh };
}
