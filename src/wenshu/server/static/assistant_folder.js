// The Assistant switch's folder picker. With the switch on it lists the folders the server lets the
// assistant work in (GET /api/workspaces: its workspace_roots and their subfolders, for an administrator);
// the chosen one goes with each assistant request, and the server checks it again. "No folder" (the
// default) sends none, and the assistant is offered no workspace tool. A user the server lists no folder
// for (not an administrator, no roots) sees no picker.

import { request } from "./api.js";
import { label } from "./i18n.js";
import { el } from "./dom.js";

const FOLDER_KEY = "wenshu.assistantFolder";

export function createFolderPicker(select, modeSwitch) {
  const show = () => {
    select.hidden = !modeSwitch.checked || select.options.length < 2;
  };

  // Listed each time the switch turns on: a token set or a root made since counts.
  async function load() {
    let folders = [];
    try {
      ({ folders = [] } = await request("GET", "/api/workspaces"));
    } catch {
      /* not allowed to use a workspace: no picker */
    }
    const chosen = select.value || localStorage.getItem(FOLDER_KEY) || "";
    const none = label(el("option", { value: "" }), "assistantNoFolder");
    select.replaceChildren(none, ...folders.map((f) => el("option", { value: f.path, title: f.path }, f.name)));
    select.value = folders.some((f) => f.path === chosen) ? chosen : "";
    show();
  }

  const sync = () => (modeSwitch.checked ? load() : show());
  select.addEventListener("change", () => localStorage.setItem(FOLDER_KEY, select.value));
  modeSwitch.addEventListener("change", sync);
  sync();
  // value(): the folder to send with an assistant request ("" for none); sync(): the switch was set by code.
  return { value: () => (select.hidden ? "" : select.value), sync };
}
