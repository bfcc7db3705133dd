// The sidebar: conversation history (newest first) with rename/delete, the datasource picker,
// and the drawer behaviour at phone width.

import { api } from "./api.js";
import { label, t } from "./i18n.js";
import { el } from "./dom.js";

function iconButton(cls, key, glyph) {
  return el("button", { type: "button", class: `${cls} icon`, "data-i18n-title": key, title: t(key) }, glyph);
}

export function createSidebar({ root, list, picker, menuButton, backdrop, state, onOpen, onError }) {
  function closeDrawer() {
    root.classList.remove("open");
    menuButton.setAttribute("aria-expanded", "false");
  }

  function toggleDrawer() {
    const open = root.classList.toggle("open");
    menuButton.setAttribute("aria-expanded", String(open));
  }

  function item(conv) {
    const title = conv.title || t("untitled");
    const open = el("button", { type: "button", class: "conv-open", title }, title);
    open.addEventListener("click", () => {
      closeDrawer();
      onOpen(conv.id);
    });
    const rename = iconButton("conv-rename", "rename", "✎");
    rename.addEventListener("click", async () => {
      const next = prompt(t("renamePrompt"), conv.title || "");
      if (next && next.trim()) await run(() => api.renameConversation(conv.id, next.trim()));
    });
    const remove = iconButton("conv-delete", "delete", "×");
    remove.addEventListener("click", async () => {
      if (!confirm(t("deleteConfirm"))) return;
      await run(() => api.deleteConversation(conv.id));
      if (state.conversationId === conv.id) onOpen(null);
    });
    const li = el("li", { class: "conv", "data-id": conv.id }, open, rename, remove);
    li.classList.toggle("active", conv.id === state.conversationId);
    return li;
  }

  async function run(action) {
    try {
      await action();
    } catch (err) {
      onError(err);
    }
    await refresh();
  }

  async function refresh() {
    try {
      const { items = [] } = await api.conversations();
      list.replaceChildren(...items.map(item));
      if (!items.length) list.append(label(el("li", { class: "empty" }), "noConversations"));
    } catch (err) {
      onError(err);
    }
  }

  function markActive() {
    for (const li of list.querySelectorAll(".conv")) {
      li.classList.toggle("active", li.dataset.id === state.conversationId);
    }
  }

  async function loadDatasources(preferred) {
    try {
      const { items = [] } = await api.datasources();
      picker.replaceChildren(...items.map((d) => el("option", { value: d.name }, `${d.name} (${d.dialect})`)));
      const names = items.map((d) => d.name);
      state.datasource = names.includes(preferred) ? preferred : names[0] || null;
      if (state.datasource) picker.value = state.datasource;
    } catch (err) {
      onError(err);
    }
  }

  function selectDatasource(name) {
    if (!name) return;
    if (![...picker.options].some((o) => o.value === name)) picker.append(el("option", { value: name }, name));
    picker.value = name;
    state.datasource = name;
  }

  picker.addEventListener("change", () => {
    state.datasource = picker.value;
  });
  menuButton.addEventListener("click", toggleDrawer);
  backdrop.addEventListener("click", closeDrawer);

  return { refresh, markActive, loadDatasources, selectDatasource, closeDrawer };
}
