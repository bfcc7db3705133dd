// The result table: client-side paging (20 rows a page) and a CSV download of all returned rows.

import { label } from "./i18n.js";
import { el } from "./dom.js";

export const PAGE_SIZE = 20;

function cellText(value) {
  if (value == null) return "";
  if (typeof value === "object") return JSON.stringify(value);
  return String(value);
}

export function toCsv(columns, rows) {
  const quote = (v) => {
    const s = cellText(v);
    return /[",\r\n]/.test(s) ? `"${s.replace(/"/g, '""')}"` : s;
  };
  const lines = [columns.map(quote).join(",")];
  for (const r of rows) lines.push(r.map(quote).join(","));
  return "\ufeff" + lines.join("\r\n") + "\r\n"; // BOM so spreadsheet apps read UTF-8 (Chinese) correctly
}

function download(filename, text) {
  const url = URL.createObjectURL(new Blob([text], { type: "text/csv;charset=utf-8" }));
  const a = el("a", { href: url, download: filename });
  document.body.append(a);
  a.click();
  a.remove();
  setTimeout(() => URL.revokeObjectURL(url), 1000);
}

export function createTable({ columns = [], rows = [], row_count, truncated }) {
  const pages = Math.max(1, Math.ceil(rows.length / PAGE_SIZE));
  let page = 1;
  const head = el("thead", {}, el("tr", {}, ...columns.map((c) => el("th", { scope: "col" }, c))));
  const body = el("tbody");
  const table = el("table", { class: "result-table", "data-testid": "result-table" }, head, body);
  const info = el("span", { class: "page-info" });
  const prev = label(el("button", { type: "button", class: "prev", onclick: () => show(page - 1) }), "prev");
  const next = label(el("button", { type: "button", class: "next", onclick: () => show(page + 1) }), "next");
  const count = label(el("span", { class: "row-count" }), truncated ? "rowsTruncated" : "rows", {
    n: row_count ?? rows.length,
  });
  const csv = label(el("button", { type: "button", class: "download-csv" }), "downloadCsv");
  csv.addEventListener("click", () => download("wenshu-result.csv", toCsv(columns, rows)));
  const pager = el("div", { class: "pager" }, count, prev, info, next, csv);

  function show(n) {
    page = Math.min(Math.max(1, n), pages);
    const slice = rows.slice((page - 1) * PAGE_SIZE, page * PAGE_SIZE);
    const cell = (v) => el("td", { class: typeof v === "number" ? "num" : null }, cellText(v));
    body.replaceChildren(...slice.map((r) => el("tr", {}, ...r.map(cell))));
    label(info, "page", { page, pages });
    prev.disabled = page <= 1;
    next.disabled = page >= pages;
    pager.classList.toggle("single", pages <= 1);
  }

  show(1);
  return el("div", { class: "table-box" }, el("div", { class: "table-scroll" }, table), pager);
}
