"""The plan step's prompt: the semantic model's vocabulary (the fixed part, saved as a prefix per datasource)
and the question.

Worked examples (setting plan_examples) are made of the model's own entries, never of a question set: its
first two measures, first ratio, first two dimensions without codes and first coded dimension with its first
value fill the templates of `prompts/plan_examples.md`; a model without those entries gets none.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from wenshu.prompts import render
from wenshu.semantic.model import SemanticModel


def _words(entry) -> str:
    extra = f" ({', '.join(entry.synonyms[:6])})" if entry.synonyms else ""
    return f"{entry.zh} / {entry.en}{extra}"


def plan_messages(model: SemanticModel, question: str, examples: bool = False) -> list:
    """The plan prompt; with `examples` (setting plan_examples) the fixed part ends with worked examples made
    of this model's own entries."""
    measures = "\n".join(f"- {e.id}: {_words(e)}" for e in [*model.measures, *model.ratios])
    dims = "\n".join(f"- {d.id}: {_words(d)}" + (f"; values: {', '.join(d.labels.values())}" if d.labels else "")
                     for d in model.dimensions)
    shown = worked_examples(model) if examples else ""
    system = render("plan_system", datasource=model.datasource, measures=measures, dimensions=dims, examples=shown)
    cache = f"{model.datasource}#plan" + ("#examples" if shown else "")
    return [SystemMessage(system, additional_kwargs={"prefix_cache": cache}),
            HumanMessage(render("plan_user", question=question).strip())]


def worked_examples(model: SemanticModel) -> str:
    """The examples' text for `model`, or "" when it lacks the entries they are made of."""
    category = [d for d in model.dimensions if d.kind == "category"]
    plain = [d for d in category if not d.labels]
    coded = [d for d in category if d.labels]
    if len(model.measures) < 2 or len(plain) < 2 or not coded:
        return ""
    m1, m2 = model.measures[:2]
    r1 = model.ratios[0] if model.ratios else m1
    d1, d2 = plain[:2]
    dl = coded[0]
    code = next(iter(dl.labels))
    names = {"m1": m1, "m2": m2, "r1": r1, "d1": d1, "d2": d2, "dl": dl}
    values = {f"{k}": e.id for k, e in names.items()}
    values |= {f"{k}_zh": e.zh for k, e in names.items()} | {f"{k}_en": e.en for k, e in names.items()}
    values |= {"v_zh": dl.label(code, "zh"), "v_en": dl.label(code, "en")}
    return render("plan_examples", **values)
