"""A documents question searched in the other language too (kb/crosslingual.py): the real assistant, the real
embedder and index, the scripted fake model. The model translates the request once, before the turn's first
step, and the search_documents tool searches the translation beside the request and the model's query."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from wenshu.assistant.service import Assistant
from wenshu.errors import ModelTimeout
from wenshu.kb.crosslingual import other_language

QUESTION = "生鲜食品最晚多少小时内必须送达？"  # the passage is English: "...must arrive within 48 hours"
TRANSLATED = "Within how many hours must fresh food be delivered at the latest?"
PASSAGE = "must arrive within 48 hours"


def step(action: str, **arguments) -> str:
    return json.dumps({"action": action, "arguments": arguments}, ensure_ascii=False)


def final(answer: str) -> str:
    return json.dumps({"action": "final", "answer": answer}, ensure_ascii=False)


@pytest.fixture
def corpus(kb, tmp_path: Path):
    """The knowledge-base benchmark's documents: Chinese and English policies side by side."""
    from bench.kb_corpus import render_corpus

    kb.add(render_corpus(tmp_path / "corpus"))
    return kb


def test_the_other_language_is_english_for_chinese_and_chinese_for_the_rest():
    assert other_language("成都仓几点关门") == "en" and other_language("When does it close?") == "zh"


def test_a_chinese_question_finds_an_english_passage_through_its_translation(settings, store, agent, corpus,
                                                                              fake_model):
    off = settings.model_copy(update={"kb_translate_queries": False})
    fake_model.queue(step("search_documents", query=QUESTION), final("不知道。"))
    Assistant(off, store, agent=agent, kb=corpus).ask(QUESTION)
    assert PASSAGE not in fake_model.calls[-1][-1].content  # the request alone does not find the passage
    fake_model.calls.clear(), fake_model.call_kwargs.clear()
    fake_model.queue(TRANSLATED, step("search_documents", query=QUESTION), final("生鲜食品须在48小时内送达。"))
    resp = Assistant(settings, store, agent=agent, kb=corpus).ask(QUESTION)
    translate_call, search_step, answer_step = fake_model.calls
    assert "Translate the user's question into English" in translate_call[0].content
    assert translate_call[-1].content == QUESTION  # before the first step: the steps' prompts stay consecutive
    assert fake_model.call_kwargs[0].get("temperature") == 0
    assert PASSAGE in answer_step[-1].content  # found through the translation
    assert any(PASSAGE in c.passage for c in resp.citations)


def test_without_the_translation_the_search_still_answers(settings, store, agent, corpus, fake_model):
    fake_model.queue(ModelTimeout(), step("search_documents", query="fresh food delivery time limit"), final("48 hours."))
    resp = Assistant(settings, store, agent=agent, kb=corpus).ask(QUESTION)
    assert resp.status == "ok" and resp.answer == "48 hours." and resp.citations  # the model's own English query
