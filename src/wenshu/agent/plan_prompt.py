"""The plan step's prompt: the semantic model's vocabulary (the fixed part, saved as a prefix per datasource)
and the question.

Worked examples (setting plan_examples) are made of the model's own entries, never of a question set: its
first two measures, first ratio, first two dimensions without codes and first coded dimension with its first
value fill the templates of `prompts/plan_examples.md`; a model without those entries gets none.
"""

from __future__ import annotations

from langchain_core.messages import HumanMessage, SystemMessage

from wenshu.i18n import detect_lang
from wenshu.prompts import render
from wenshu.semantic.model import SemanticModel


def _words(entry, english: bool) -> str:
    """An entry's names: both languages', or with `english` its English name and English synonyms only."""
    synonyms = [s for s in entry.synonyms if detect_lang(s) == "en"] if english else entry.synonyms
    extra = f" ({', '.join(synonyms[:6])})" if synonyms else ""
    return f"{entry.en}{extra}" if english else f"{entry.zh} / {entry.en}{extra}"


def _values(d, english: bool) -> str:
    labels = [d.label(code, "en") for code in d.labels] if english else list(d.labels.values())
    return f"; values: {', '.join(labels)}" if labels else ""


def plan_messages(model: SemanticModel, question: str, english_only: bool = False, examples: bool = False) -> list:
    """The plan prompt. With `english_only` (setting plan_vocabulary_in_english) an English question sees the
    vocabulary in English alone, a saved prefix of its own; with `examples` (setting plan_examples) the fixed
    part ends with worked examples made of this model's own entries."""
    english = english_only and detect_lang(question) == "en"
    measures = "\n".join(f"- {e.id}: {_words(e, english)}" for e in [*model.measures, *model.ratios])
    dims = "\n".join(f"- {d.id}: {_words(d, english)}{_values(d, english)}" for d in model.dimensions)
    names = render("plan_names_en" if english else "plan_names_both").strip()
    shown = worked_examples(model) if examples else ""
    system = render("plan_system", datasource=model.datasource, measures=measures, dimensions=dims, names=names,
                    examples=shown)
    cache = f"{model.datasource}#plan" + ("#en" if english else "") + ("#examples" if shown else "")
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
