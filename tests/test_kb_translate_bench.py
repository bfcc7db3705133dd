"""`python -m bench kb --translate` counts right: each answerable question is translated once by the model
(scripted here) and searched beside its translation, as the assistant's tool does; a question the model
could not translate is searched alone and counted as untranslated."""

from __future__ import annotations

from pathlib import Path

from bench.kb import rank_of
from bench.kb_corpus import render_corpus
from bench.kb_translate import translated_recall
from wenshu.errors import ModelTimeout
from wenshu.providers.base import ModelClient

FRESH = {"q": "生鲜食品最晚多少小时内必须送达？", "doc": "logistics_sla", "answer": "must arrive within 48 hours"}


def test_recall_with_the_translation_and_without_one(kb, fake_model, tmp_path: Path):
    kb.add(render_corpus(tmp_path / "corpus"))
    models = ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake")
    unanswerable = {"q": "公司年会在哪里开？", "doc": None}
    fake_model.queue("Within how many hours must fresh food be delivered at the latest?")
    out = translated_recall(kb, [FRESH, unanswerable], models, rank_of)
    assert (out["questions"], out["recall_at_5"], out["untranslated"]) == (1, 1.0, 0)
    assert len(fake_model.calls) == 1 and out["rows"][0]["translated"].startswith("Within how many hours")
    assert out["rows"][0]["rank_alternated"] is not None and out["alternated_recall_shown"] == 1.0
    fake_model.queue(ModelTimeout())
    out = translated_recall(kb, [FRESH], models, rank_of)
    assert (out["recall_at_5"], out["untranslated"]) == (0.0, 1)  # the Chinese question alone misses it
