"""Where the rules cannot tell (assistant/source.py): a question that names the data's words, with a relevant
passage and no time window, is routed by the chat model's choice between the data and the documents. The
scripted fake model makes the choice; the documents, the embedder and the demo datasource are real."""

from __future__ import annotations

import json

import pytest

from wenshu.assistant.documents import documents_match
from wenshu.assistant.service import Assistant

UNSURE = "Are refunds taken out of GMV?"  # the data's words (refunds, GMV), a definition's answer


def choice(source: str) -> str:
    return json.dumps({"source": source})


@pytest.fixture
def assistant(settings, store, agent, kb, kb_docs):
    kb.add(kb_docs)
    return Assistant(settings.model_copy(update={"kb_translate_queries": False}), store, agent=agent, kb=kb)


def test_the_model_sends_an_unsure_question_to_the_documents(assistant, kb, fake_model):
    assert documents_match(kb, "default", UNSURE)[1]  # a passage is relevant: the rules alone would ask the data
    fake_model.queue(choice("documents"), json.dumps({"action": "search_documents", "arguments": {"query": "GMV 退款"}}),
                     json.dumps({"action": "final", "answer": "GMV 不扣除退款。"}))
    resp = assistant.ask(UNSURE)
    assert resp.route == "agent" and resp.status == "ok" and resp.answer == "GMV 不扣除退款。"
    assert [s.action for s in resp.steps] == ["search_documents"]  # the documents first, as for a rule's question
    system, user = fake_model.calls[0]
    assert system.additional_kwargs["prefix_cache"] == "demo#source"  # the fixed part is cached per datasource
    assert "- 退款政策 Refund Policy" in system.content and "GMV (销售额)" in system.content  # documents and measures
    assert "orders" in system.content and user.content.endswith(f"Question: {UNSURE}\nJSON:")
    assert user.content.startswith("The nearest passage of the documents: ") and "GMV" in user.content  # beside it
    assert fake_model.call_kwargs[0]["response_format"]["json_schema"]["schema"]["properties"]["source"]["enum"] == [
        "data", "documents"]


@pytest.mark.parametrize("answer", [choice("data"), "I would look at the documents."])
def test_the_data_or_no_clear_choice_keeps_the_rules_route(assistant, fake_model, answer):
    fake_model.queue(answer)
    way, ctx = assistant.prepare(UNSURE)
    assert (way, ctx.reason) == ("data", "data") and len(fake_model.calls) == 1


def test_a_question_over_a_time_window_is_not_put_to_the_model(assistant, kb, fake_model):
    question = "How much refund money did we pay back last month?"
    assert documents_match(kb, "default", question)[1]
    way, ctx = assistant.prepare(question)
    assert (way, ctx.reason) == ("data", "data") and fake_model.calls == []


def test_a_list_of_the_datas_records_with_its_columns_is_not_put_to_the_model(assistant, kb, fake_model):
    from wenshu.assistant.source import lists_rows

    question = "Which customers in Suzhou are diamond members? Name, gender and the date they signed up, please."
    assert documents_match(kb, "default", question)[1]  # the membership handbook is near
    way, ctx = assistant.prepare(question)
    assert (way, ctx.reason) == ("data", "data") and fake_model.calls == []
    assert not lists_rows(assistant.agent.semantic_model("demo"), UNSURE)


def test_the_switch_turns_the_choice_off(settings, store, agent, kb, kb_docs, fake_model):
    kb.add(kb_docs)
    off = Assistant(settings.model_copy(update={"kb_translate_queries": False, "assistant_source_model": False}),
                    store, agent=agent, kb=kb)
    way, ctx = off.prepare(UNSURE)
    assert (way, ctx.reason) == ("data", "data") and fake_model.calls == []


def test_the_choice_counts_in_the_answers_usage_when_the_data_answers(assistant, fake_model):
    fake_model.queue(choice("data"), *["SELECT COUNT(*) AS refunds FROM refunds"] * 3)  # a repair may ask again
    resp = assistant.ask(UNSURE)
    assert resp.route == "data" and resp.data is not None and resp.data.usage.llm_calls >= 1
    assert resp.usage.llm_calls == resp.data.usage.llm_calls + 1  # the choice is a call of this answer too
    assert resp.usage.prompt_tokens > resp.data.usage.prompt_tokens
