// Wires the page together: language, settings (token), sidebar, chat, and the #c=<id> route
// that reopens the current conversation after a reload.

import { api, getToken, setToken } from "./api.js";
import { applyI18n, getLang, label, setLang } from "./i18n.js";
import { createSidebar } from "./sidebar.js";
import { createChat } from "./chat.js";
import { setupKnowledgeBase } from "./kb.js";
import { setupTasks } from "./tasks.js";

const $ = (sel) => document.querySelector(sel);
const state = { conversationId: null, datasource: null, meta: null };

function showBanner(err) {
  const banner = $("#banner");
  banner.hidden = !err;
  if (!err) return;
  if (err.status === 401) label(banner, "unauthorized");
  else {
    delete banner.dataset.i18n;
    banner.textContent = err.message || String(err);
  }
}

const sidebar = createSidebar({
  root: document.body,
  list: $("#conversations"),
  picker: $("#datasource"),
  menuButton: $("#menu"),
  backdrop: $("#backdrop"),
  state,
  onOpen: (id) => openConversation(id),
  onError: showBanner,
});

const chat = createChat({
  list: $("#messages"),
  form: $("#composer"),
  input: $("#question"),
  sendButton: $("#send"),
  stopButton: $("#stop"),
  modeSwitch: $("#assistant-mode"),
  folderSelect: $("#assistant-folder"),
  state,
  onChanged: (id) => {
    setRoute(id);
    sidebar.refresh();
  },
});

function setRoute(id) {
  const hash = id ? `#c=${encodeURIComponent(id)}` : "";
  if (location.hash !== hash) history.replaceState(null, "", hash || location.pathname);
  sidebar.markActive();
}

async function openConversation(id) {
  if (chat.isBusy()) await chat.stop();
  state.conversationId = id;
  setRoute(id);
  if (!id) {
    chat.welcome();
    return;
  }
  try {
    const conv = await api.conversation(id);
    sidebar.selectDatasource(conv.datasource);
    chat.showMessages(conv.messages || []);
    showBanner(null);
  } catch (err) {
    state.conversationId = null;
    setRoute(null);
    chat.welcome();
    showBanner(err);
  }
}

function setupSettings() {
  const dialog = $("#settings-dialog");
  const field = $("#token");
  $("#settings").addEventListener("click", () => {
    field.value = getToken();
    dialog.showModal();
  });
  $("#settings-form").addEventListener("submit", () => {
    setToken(field.value);
    boot();
  });
  $("#lang").addEventListener("click", () => setLang(getLang() === "zh" ? "en" : "zh"));
}

async function boot() {
  showBanner(null);
  try {
    state.meta = await api.meta();
    $("#version").textContent = state.meta.version ? `v${state.meta.version}` : "";
  } catch (err) {
    showBanner(err);
  }
  // `?db=NAME` (as `wenshu desktop --db NAME` opens the page) picks a datasource the caller may see.
  const asked = new URLSearchParams(location.search).get("db");
  const visible = (state.meta && state.meta.datasources) || [];
  await sidebar.loadDatasources(visible.includes(asked) ? asked : state.meta && state.meta.default_datasource);
  await sidebar.refresh();
  const match = location.hash.match(/^#c=(.+)$/);
  await openConversation(match ? decodeURIComponent(match[1]) : null);
  chat.ready(); // Send stays disabled until here: opening the conversation replaces the message list
}

applyI18n();
setupSettings();
setupKnowledgeBase({ button: $("#kb-open"), onError: showBanner, onAdded: chat.documentAdded });
setupTasks({ button: $("#tasks-open") });
$("#new-chat").addEventListener("click", () => {
  sidebar.closeDrawer();
  openConversation(null);
  $("#question").focus();
});
boot();
