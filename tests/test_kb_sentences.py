"""The sentences of the shown passages closest to the question (kb/sentences.py), with the real embedder, and
the documents tool naming them after the passages (setting kb_key_sentences)."""

from __future__ import annotations

from types import SimpleNamespace

from fixtures_kb import CUSTOM_RULE

from wenshu.kb.sentences import closest_sentences, split_sentences

HANDBOOK = ("经营指标口径手册\n\n本手册统一公司经营分析中常用指标的计算口径，所有报表和看板须按本手册取数。"
            "口径变更须经数据治理委员会审批。\n\n客单价\n\n客单价等于净销售额除以下单客户数。")
PENALTIES = "Late delivery costs the supplier 0.5 percent of the order value per day.\nAll suppliers sign the code of conduct."


def test_a_passage_splits_after_chinese_and_english_sentence_ends_and_at_line_breaks():
    assert split_sentences(HANDBOOK) == ["经营指标口径手册", "本手册统一公司经营分析中常用指标的计算口径，所有报表和看板须按本手册取数。",
                                         "口径变更须经数据治理委员会审批。", "客单价等于净销售额除以下单客户数。"]
    assert split_sentences("| 等级 | 倍率 |\n|---|---|\n| 银卡 | 1.2 |\nOK. Fine. It costs 5 yuan.") == [
        "| 等级 | 倍率 |", "| 银卡 | 1.2 |", "It costs 5 yuan."]  # table rules and fragments left out


def test_the_closest_sentence_is_picked_among_passages_in_either_language(kb):
    passages = [SimpleNamespace(text=HANDBOOK), SimpleNamespace(text=PENALTIES)]
    picked = closest_sentences(kb.embedder, passages, ["口径变更需要谁审批？"], 1)
    assert picked == ["口径变更须经数据治理委员会审批。"]
    english = closest_sentences(kb.embedder, passages, ["How much does late delivery cost the supplier?"], 2)
    assert english[0].startswith("Late delivery costs") and len(english) == 2
    assert closest_sentences(kb.embedder, passages, [""], 2) == [] and closest_sentences(None, passages, ["x"], 2) == []
    assert closest_sentences(kb.embedder, passages, ["口径"], 0) == []


def test_the_documents_tool_names_the_closest_sentences_after_the_passages(kb, kb_docs):
    from wenshu.assistant.documents import offer_documents

    kb.add(kb_docs)
    named = offer_documents(kb, "定制商品可以退款吗？", key_sentences=2).tools[0].call({"query": "定制商品退款"})[0]
    passages, key = named.split("\n\nThe sentences of these passages closest to the question:\n")
    assert passages.startswith("[1] 退款政策 (v2).docx") and key.splitlines()[0] == f"- {CUSTOM_RULE}"
    assert len(key.splitlines()) == 2
    plain = offer_documents(kb, "定制商品可以退款吗？").tools[0].call({"query": "定制商品退款"})[0]
    assert plain == passages  # 0 (the function's default): the passages alone
