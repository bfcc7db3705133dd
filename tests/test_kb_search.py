"""Hybrid passage search with the real embedder over real generated documents: the right passage with
its document, section path and page, in Chinese, English and across the two; exact keywords; "not in
the documents"; the keyword index following adds and removes; collections kept apart."""

from __future__ import annotations

from fixtures_kb import CAMPAIGN_BUDGET, CUSTOM_RULE, GMV_DEFINITION, PLATINUM_RULE, injection_md

from wenshu.kb.search import Searcher


def test_passages_come_with_their_document_section_and_page(kb, kb_docs):
    kb.add(kb_docs)
    custom = kb.search("定制商品能退款吗").passages[0]
    assert custom.document == "退款政策 (v2).docx" and CUSTOM_RULE in custom.text
    assert custom.heading == "退款政策 Refund Policy > 例外情况" and custom.page is None
    assert custom.where == "退款政策 Refund Policy > 例外情况"
    platinum = kb.search("How do gold members become platinum?").passages[0]
    assert (platinum.document, platinum.page, platinum.where) == ("membership.pdf", 2, "p. 2")
    assert PLATINUM_RULE in platinum.text and platinum.title == "Membership Handbook"
    gmv = kb.search("GMV包含运费吗").passages[0]
    assert gmv.document == "metrics.md" and GMV_DEFINITION in gmv.text and gmv.heading == "指标手册 > GMV"
    budget = kb.search("双十一活动的总预算是多少").passages[0]  # a Chinese question, an English document
    assert budget.document == "campaign.html" and CAMPAIGN_BUDGET in budget.text
    assert all(p.score > 0 for p in kb.search("退款多久到账").passages)


def test_exact_words_are_found_by_keyword_and_nothing_relevant_is_not_in_the_documents(kb, kb_docs, tmp_path):
    kb.add([*kb_docs, injection_md(tmp_path / "suppliers.md")])
    hit = kb.search("Hangzhou Boxes").passages[0]
    assert hit.document == "suppliers.md" and hit.coverage == 1.0
    for question in ("明天上海会下雨吗", "Who won the football world cup in 2018?", "红烧肉怎么做"):
        result = kb.search(question)
        assert not result.found and result.to_dict() == {"query": question, "found": False, "passages": []}


def test_search_follows_adds_and_removes(kb, kb_docs):
    assert not kb.search("复购率的定义").found  # an empty knowledge base
    kb.add([kb_docs[3]])
    assert kb.search("复购率的定义").passages[0].document == "metrics.md"
    kb.remove("metrics.md")
    assert not kb.search("复购率的定义").found


def test_collections_are_kept_apart(kb, kb_docs):
    kb.add([kb_docs[3]], collection="finance")
    kb.add([kb_docs[2]])
    assert kb.search("GMV包含运费吗", collection="finance").passages[0].document == "metrics.md"
    assert all(p.document != "metrics.md" for p in kb.search("GMV包含运费吗").passages)
    assert kb.add([kb_docs[3]])[0].status == "added"  # the same file in another collection is not a duplicate


def test_keyword_only_search_works_without_an_embedder(kb, kb_docs):
    kb.add(kb_docs)
    keyword_only = Searcher(kb.docs, None, kb.index)
    assert keyword_only.search("定制商品 退款").passages[0].document == "退款政策 (v2).docx"
