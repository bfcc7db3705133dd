// Thumbs up / down under the conversation's latest finished answer: POST /api/conversations/{id}/feedback
// acts on the latest answer only ("down" rejects the example pair learned from that turn and forgets the
// cached first answer), so older answers get no buttons and the buttons move when a newer answer arrives.
// After a click the chosen button shows as pressed and both are disabled; a failed request shows the
// server's error under them and lets the user try again.

import { api } from "./api.js";
import { el } from "./dom.js";
import { t } from "./i18n.js";
import { errorBox } from "./message.js";

const VERDICTS = [["up", "👍", "feedbackUp"], ["down", "👎", "feedbackDown"]];

function feedbackBar(conversationId) {
  const note = el("div", { class: "feedback-note" });
  const buttons = VERDICTS.map(([verdict, icon, key]) => el("button", {
    type: "button", class: "feedback-button", "data-verdict": verdict, "data-testid": `feedback-${verdict}`,
    "data-i18n-title": key, "data-i18n-aria": key, title: t(key), "aria-label": t(key), "aria-pressed": "false",
  }, icon));
  const bar = el("div", { class: "feedback", "data-testid": "feedback" }, ...buttons, note);

  async function send(chosen) {
    for (const b of buttons) {
      b.disabled = true;
      b.setAttribute("aria-pressed", String(b === chosen));
    }
    note.replaceChildren();
    try {
      await api.feedback(conversationId, chosen.dataset.verdict);
      bar.dataset.verdict = chosen.dataset.verdict;
    } catch (err) {
      note.replaceChildren(errorBox(err));
      for (const b of buttons) {
        b.disabled = false;
        b.setAttribute("aria-pressed", "false");
      }
    }
  }

  for (const b of buttons) b.addEventListener("click", () => send(b));
  return bar;
}

// Removes the buttons from the answers in `list`; then, when `reply` (an assistant message's element) ended
// ok, puts fresh ones under it for the conversation `conversationId`.
export function placeFeedback(list, reply, conversationId) {
  for (const old of list.querySelectorAll(".feedback")) old.remove();
  if (!reply || !conversationId || reply.dataset.status !== "ok") return;
  reply.querySelector(".bubble").append(feedbackBar(conversationId));
}
