// The plan of an answer as chips (measure · dimension · filter · window · grain · comparison · share · top N).
// Each chip comes from the server with the plan without it (`remove`) and the plans of its alternatives
// (`options`); a click re-runs that plan in the same conversation, with no model call. No plan logic here.

import { t } from "./i18n.js";
import { el } from "./dom.js";

export function createChips(view, onPlan) {
  const row = el("div", { class: "chips", "data-testid": "chips" });
  for (const chip of (view && view.chips) || []) {
    const item = el("span", { class: `chip chip-${chip.kind}`, "data-kind": chip.kind }, el("span", {}, chip.label));
    for (const option of chip.options || []) {
      const swap = el("button", { type: "button", class: "chip-option", "data-testid": "chip-option" }, `⇄ ${option.label}`);
      swap.addEventListener("click", () => onPlan(option.label, option.plan));
      item.append(swap);
    }
    if (chip.remove) {
      const drop = el("button", { type: "button", class: "chip-remove", "data-testid": "chip-remove",
        "data-i18n-title": "chipRemove", title: t("chipRemove") }, "×");
      drop.addEventListener("click", () => onPlan(chip.label, chip.remove, true));
      item.append(drop);
    }
    row.append(item);
  }
  return row;
}
