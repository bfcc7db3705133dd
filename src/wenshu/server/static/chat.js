// The chat pane: the message list, the composer (send / stop) and the streaming of one answer. With the
// assistant switch on, a message goes to the general assistant (its rules still send a data question
// straight to the data pipeline); a chip's plan always runs on the data pipeline.

import { api, ApiError } from "./api.js";
import { label, t } from "./i18n.js";
import { el } from "./dom.js";
import { assistantMessage, userMessage } from "./message.js";
import { createFolderPicker } from "./assistant_folder.js";
import { createAssistantMode } from "./assistant_mode.js";
import { placeFeedback } from "./feedback.js";

export function createChat({ list, form, input, sendButton, stopButton, modeSwitch, folderSelect, state, onChanged }) {
  let controller = null; // AbortController of the running stream
  let running = null; // {id} of the conversation whose answer is streaming
  let folder = null; // the Assistant switch's folder picker
  let mode = null; // the Assistant switch's default (assistant_mode.js)

  if (modeSwitch) {
    mode = createAssistantMode(modeSwitch, () => folder && folder.sync());
    if (folderSelect) folder = createFolderPicker(folderSelect, modeSwitch);
  }

  function scrollDown() {
    list.scrollTop = list.scrollHeight;
  }

  function setBusy(busy) {
    form.classList.toggle("busy", busy);
    sendButton.hidden = busy;
    stopButton.hidden = !busy;
    stopButton.disabled = !busy;
  }

  function welcome() {
    const examples = ["example1", "example2"].map((key) =>
      label(el("button", { type: "button", class: "example" }), key),
    );
    for (const b of examples) b.addEventListener("click", () => ask(b.textContent));
    const hint = el("div", { class: "examples" }, label(el("span"), "examples"), ...examples);
    list.replaceChildren(el("section", { class: "welcome" }, label(el("p"), "welcome"), hint));
  }

  function showMessages(messages) {
    list.replaceChildren();
    for (const msg of messages) {
      if (msg.role === "user") list.append(userMessage(msg.content));
      else {
        const m = assistantMessage({ onPlan: runPlan });
        list.append(m.element);
        m.fromStored(msg);
      }
    }
    if (!messages.length) welcome();
    else placeFeedback(list, list.lastElementChild.matches(".msg.assistant") && list.lastElementChild,
      state.conversationId);
    scrollDown();
  }

  async function ensureConversation() {
    if (state.conversationId) return state.conversationId;
    const conv = await api.createConversation(state.datasource);
    state.conversationId = conv.id;
    return conv.id;
  }

  // A chip was removed or swapped: ask again with that plan (no model call on the server).
  function runPlan(text, plan, removed) {
    const what = removed ? t("chipWithout", { x: text }) : t("chipSwitch", { x: text });
    return ask(what, plan);
  }

  async function ask(text, plan) {
    const question = (text || "").trim();
    if (!question || controller || sendButton.disabled) return; // not before the page has opened its conversation
    if (list.querySelector(".welcome")) list.replaceChildren();
    placeFeedback(list, null); // this question's answer becomes the latest
    list.append(userMessage(question));
    const reply = assistantMessage({ onPlan: runPlan });
    list.append(reply.element);
    scrollDown();
    input.value = "";
    controller = new AbortController();
    setBusy(true);
    let finished = false;
    let id = null;
    try {
      id = await ensureConversation();
      running = { id };
      onChanged(id);
      const onEvent = (ev) => {
        if (ev.type === "done") finished = true;
        reply.onEvent(ev);
        scrollDown();
      };
      if (modeSwitch && modeSwitch.checked && !plan) {
        const workspace = folder ? folder.value() : "";
        await api.assist(id, question, state.datasource, onEvent, controller.signal, workspace);
      } else await api.ask(id, question, state.datasource, onEvent, controller.signal, plan);
      if (!finished) reply.finish("stopped");
    } catch (err) {
      if (err.name === "AbortError") reply.finish("stopped");
      else {
        reply.showError(err instanceof ApiError ? err : { code: "error", message: String(err) });
        reply.finish("error");
      }
    } finally {
      controller = null;
      running = null;
      setBusy(false);
      if (list.lastElementChild === reply.element) placeFeedback(list, reply.element, id);
      onChanged(state.conversationId);
      input.focus();
    }
  }

  // Stop asks the server to cancel; if that fails the stream is aborted (the server cancels on disconnect).
  async function stop() {
    if (!controller) return;
    const current = controller;
    stopButton.disabled = true;
    try {
      const id = running && running.id;
      if (id) await api.stop(id);
      else current.abort();
    } catch {
      current.abort();
    }
    setTimeout(() => controller === current && current.abort(), 5000);
  }

  form.addEventListener("submit", (e) => {
    e.preventDefault();
    ask(input.value);
  });
  input.addEventListener("keydown", (e) => {
    if (e.key === "Enter" && !e.shiftKey && !e.isComposing) {
      e.preventDefault();
      ask(input.value);
    }
  });
  stopButton.addEventListener("click", stop);
  setBusy(false);

  // documentAdded(): an upload completed; the Assistant switch turns on unless the user chose a mode.
  const documentAdded = () => mode && mode.documentAdded();
  // ready(): the page has opened its first conversation; until then a question would be wiped by that opening.
  const ready = () => {
    sendButton.disabled = false;
  };
  return { ask, stop, showMessages, welcome, documentAdded, ready, isBusy: () => controller !== null };
}
