// Document citations under an answer: one link per passage the host attached (document, section, page),
// each opening a dialog with the passage text. A citation without its passage text is read back from
// GET /api/kb/chunks/{chunk_id}.

import { request } from "./api.js";
import { label, t } from "./i18n.js";
import { el } from "./dom.js";

let dialog = null;

function where(c) {
  return [c.section, c.page ? t("kbPage", { n: c.page }) : ""].filter(Boolean).join(" · ");
}

function passageDialog() {
  if (dialog) return dialog;
  const close = label(el("button", { type: "button", class: "passage-close" }), "kbClose");
  dialog = el("dialog", { class: "passage-dialog", "data-testid": "passage" },
    el("h3", { class: "passage-doc" }), el("p", { class: "passage-where" }),
    el("blockquote", { class: "passage-text" }), el("p", { class: "passage-note" }), close);
  close.addEventListener("click", () => dialog.close());
  dialog.addEventListener("click", (e) => e.target === dialog && dialog.close()); // a click on the backdrop
  document.body.append(dialog);
  return dialog;
}

function show(c, note) {
  const d = passageDialog();
  d.querySelector(".passage-doc").textContent = c.document || "";
  d.querySelector(".passage-where").textContent = where(c);
  d.querySelector(".passage-text").textContent = c.passage || "";
  const noteEl = d.querySelector(".passage-note");
  if (note) label(noteEl, note);
  else noteEl.replaceChildren();
  if (!d.open) d.showModal();
}

export async function openPassage(c) {
  if (c.passage || !c.chunk_id) {
    show(c);
    return;
  }
  try {
    show(await request("GET", `/api/kb/chunks/${encodeURIComponent(c.chunk_id)}`));
  } catch {
    show(c, "kbPassageGone");
  }
}

// The "Sources" block of an answer; null when there is no citation.
export function citationList(citations) {
  if (!citations || !citations.length) return null;
  const items = citations.map((c, i) => {
    const link = el("a", { href: "#", class: "citation", "data-testid": "citation" },
      `[${i + 1}] ${c.document}`, where(c) ? el("span", { class: "citation-where" }, ` · ${where(c)}`) : null);
    link.addEventListener("click", (e) => {
      e.preventDefault();
      openPassage(c);
    });
    return el("li", {}, link);
  });
  return el("div", { class: "citations", "data-testid": "citations" },
    label(el("span", { class: "citations-title" }), "kbSources"),
    el("ol", {}, ...items));
}
