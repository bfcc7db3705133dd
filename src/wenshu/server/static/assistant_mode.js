// The Assistant switch's default. A choice the user made (flipping the switch) is stored under MODE_KEY and
// always wins. Until then the switch follows the knowledge base: it starts on when GET /api/kb/documents
// lists a document (so questions about the documents reach the assistant, which reads them, and data
// questions still go straight to the data pipeline), and it turns on when an upload in this page completes.
// A server the user may not list documents on leaves it off.

import { request } from "./api.js";

const MODE_KEY = "wenshu.mode";
const UNUSABLE = ["error", "removed"];

// onSet(): called after the switch was set by this module (no "change" event fires then).
export function createAssistantMode(modeSwitch, onSet) {
  const chosen = () => localStorage.getItem(MODE_KEY);

  function suggest() {
    if (chosen() !== null || modeSwitch.checked) return;
    modeSwitch.checked = true;
    onSet();
  }

  async function followDocuments() {
    try {
      const { items = [] } = await request("GET", "/api/kb/documents");
      if (items.some((d) => !UNUSABLE.includes(d.status))) suggest();
    } catch {
      /* no knowledge base for this user: the switch stays off */
    }
  }

  modeSwitch.checked = chosen() === "assistant";
  modeSwitch.addEventListener("change", () => localStorage.setItem(MODE_KEY, modeSwitch.checked ? "assistant" : "data"));
  if (chosen() === null) followDocuments();
  // documentAdded(): an upload in this page completed; the switch turns on unless the user has chosen.
  return { documentAdded: suggest };
}
