// The chart: the answer's Vega-Lite spec drawn with the vendored vega-embed, and a type switch
// (bar / line / pie / table only) that rewrites the mark and the encoding of the same data.

import { label, t } from "./i18n.js";
import { el } from "./dom.js";

const TYPES = [
  ["bar", "chartBar"],
  ["line", "chartLine"],
  ["arc", "chartArc"],
  ["table", "chartTable"],
];

function markType(spec) {
  return typeof spec.mark === "string" ? spec.mark : spec.mark && spec.mark.type;
}

// The category (or time) channel and the measure channel of a bar, line or arc spec.
function channels(enc) {
  if (enc.theta) return { category: enc.color, measure: enc.theta };
  const xQuant = enc.x && enc.x.type === "quantitative";
  return xQuant ? { category: enc.y, measure: enc.x } : { category: enc.x, measure: enc.y };
}

export function withType(spec, type) {
  const out = structuredClone(spec);
  const enc = out.encoding || {};
  const { category, measure } = channels(enc);
  const series = enc.theta ? null : enc.color;
  const tooltip = enc.tooltip;
  if (!category || !measure || markType(spec) === type) return out;
  const catType = category.type === "quantitative" ? "nominal" : category.type;
  const cat = { field: category.field, type: catType, title: category.title };
  const mea = { field: measure.field, type: "quantitative", title: measure.title };
  if (type === "arc") {
    out.mark = { type: "arc" };
    const color = { ...cat, type: cat.type === "temporal" ? "ordinal" : cat.type };
    out.encoding = { theta: { ...mea, stack: true }, color, tooltip };
  } else {
    out.mark = type === "line" ? { type: "line", point: true } : { type: "bar" };
    const x = type === "bar" && cat.type === "nominal" ? { ...cat, sort: "-y" } : cat;
    out.encoding = { x, y: mea, tooltip };
    if (series) out.encoding.color = series;
  }
  if (!out.encoding.tooltip) delete out.encoding.tooltip;
  return out;
}

// Export (SVG/PNG) only: "open in editor" and the source views would leave the offline page.
const EMBED_ACTIONS = { export: true, source: false, compiled: false, editor: false };

function draw(target, spec) {
  target.replaceChildren();
  if (!window.vegaEmbed) {
    target.append(label(el("p", { class: "chart-error" }), "chartError"));
    return;
  }
  const sized = { width: "container", autosize: { type: "fit", contains: "padding" }, ...spec };
  window
    .vegaEmbed(target, sized, { actions: EMBED_ACTIONS, renderer: "svg" })
    .catch((err) => {
      target.replaceChildren(label(el("p", { class: "chart-error", title: String(err) }), "chartError"));
    });
}

export function createChart(spec) {
  const target = el("div", { class: "chart", "data-testid": "chart" });
  const box = el("div", { class: "chart-box" });
  const initial = markType(spec) || "bar";
  const switcher = el("div", { class: "chart-types", role: "group", "aria-label": t("chart") });
  let current = initial;

  function choose(type) {
    current = type;
    for (const b of switcher.children) b.setAttribute("aria-pressed", String(b.dataset.type === type));
    box.classList.toggle("table-only", type === "table");
    if (type !== "table") draw(target, type === initial ? spec : withType(spec, type));
  }

  for (const [type, key] of TYPES) {
    const button = label(el("button", { type: "button", class: "chart-type", "data-type": type }), key);
    button.addEventListener("click", () => current !== type && choose(type));
    switcher.append(button);
  }
  box.append(switcher, target);
  // Draw once the box is in the document, so "container" width has a size to read.
  requestAnimationFrame(() => choose(initial));
  return box;
}
