"""`python -m bench kb --answers` counts right: the real assistant (scripted fake model, real embedder, two of
the benchmark's documents) answers three questions of bench/data/kb/questions.yaml — one grounded, one
stated without a search (uncited), one cited with the wrong figure — and one the documents cannot answer;
the grader (bench/kb_grade.py) and the summary say exactly that."""

from __future__ import annotations

import json

import yaml

from bench.kb import QUESTIONS
from bench.kb_answers import ask_all, pick, shown_rank, summarize
from bench.kb_corpus import SOURCES, render
from bench.kb_grade import key_facts, squash, stated
from wenshu.assistant.service import Assistant

ITEMS = yaml.safe_load(QUESTIONS.read_text(encoding="utf-8"))["questions"]


def step(action: str, **arguments) -> str:
    return json.dumps({"action": action, "arguments": arguments}, ensure_ascii=False)


def final(answer: str) -> str:
    return json.dumps({"action": "final", "answer": answer}, ensure_ascii=False)


def test_the_grader_counts_grounded_uncited_wrong_and_refused(settings, store, agent, kb, fake_model, tmp_path):
    kb.add([render(SOURCES / "refund_policy.md", "docx", tmp_path), render(SOURCES / "membership_program.md", "md", tmp_path)])
    refund = [q for q in ITEMS if q["doc"] == "refund_policy" and key_facts(q) and not q.get("says")]
    grounded, uncited, wrong = refund[:3]
    negative = next(q for q in ITEMS if q["doc"] is None)
    wrong_figure = " ".join(str(int(n[0]) + 1000) for n in key_facts(wrong))
    # each question is translated for the search first (kb/crosslingual.py), then searched and answered
    fake_model.queue("the refund question", step("search_documents", query=grounded["q"]), final(f"答：{grounded['answer']}。"),
                     "the refund question", step("search_documents", query=wrong["q"]), final(f"答案是 {wrong_figure}。"),
                     "the other question", step("search_documents", query=negative["q"]), final("文档中没有提到这件事。"))
    records = ask_all(Assistant(settings, store, agent=agent, kb=kb), [grounded, wrong, negative],
                      echo=lambda line: None)
    verdicts = [(r["tool"], r.get("cited"), r.get("stated"), r.get("grounded"), r.get("refused")) for r in records]
    assert verdicts == [("search_documents", True, True, True, None), ("search_documents", True, False, False, None),
                        ("search_documents", None, None, None, True)]
    # an answer stated without a citation: the host makes the first step of a documents question a search
    # (assistant/route.py needs_tool), so it is graded from the record an answer without one would leave
    records.insert(1, {**records[0], "q": uncited["q"], "tool": "none", "cited": False, "documents_tool": False,
                       "stated": True, "grounded": False})
    s = summarize(records)
    assert (s["questions"], s["grounded_pct"], s["cited_not_stated"], s["stated_not_cited"], s["neither"]) == (
        3, 33.3, 1, 1, 0)
    assert s["unanswerable_refused_pct"] == 100.0 and s["documents_tool_pct"] == 66.7
    assert s["tools"] == {"search_documents": 3, "none": 1} and s["median_s"] is not None
    # the answering passage was among those shown for both searched questions (the inserted record copies the first)
    assert records[0]["shown"] and records[2]["shown"] and records[3]["shown"] is None
    assert s["passage_shown_pct"] == 100.0 and s["grounded_when_shown_pct"] == 33.3


def test_stated_needs_the_answer_or_every_key_fact_not_an_echo_of_the_question():
    item = {"q": "How long is delivery to Lhasa?", "answer": "take up to 7 days, 1,200 yuan", "doc": "x"}
    assert key_facts(item) == [["7"], ["1200"]]
    assert stated(item, "It takes up to 7 days and costs 1200 yuan")
    assert not stated(item, "It takes up to 17 days and costs 1,200 yuan")  # whole numbers only
    assert not stated(item, "It takes up to 7.5 days and costs 1,200 yuan") and not stated(item, "7 days")
    assert stated({**item, "says": [["七天", "7天"]]}, "大约 7 天") and not stated({**item, "says": [["七天"]]}, "7天")
    yes_no = {"q": "GMV包含运费吗", "answer": "包含运费", "says": [["包含运费"]], "not": ["不包含"]}
    assert stated(yes_no, "是的，GMV 包含运费。") and not stated(yes_no, "GMV不包含运费。")
    assert not stated({"q": "GMV包含运费吗", "answer": "包含运费"}, "GMV包含运费吗")  # the answer sits in the question


def test_every_question_has_facts_the_question_does_not_give_away():
    """An answer is checked against the expected answer or key facts; none of them may sit in the question
    (but a yes/no question's fact, whose `not:` words catch the opposite answer)."""
    empty = [q["q"] for q in ITEMS if q["doc"] and not key_facts(q) and squash(q["answer"]) in squash(q["q"])]
    echoed = [(q["q"], alt) for q in ITEMS if q["doc"] and not q.get("not") for fact in key_facts(q) for alt in fact
              if squash(alt) in squash(q["q"])]
    assert (empty, echoed) == ([], [])


def test_a_fixed_subset_takes_every_nth_question_of_each_kind():
    chosen = pick(ITEMS, every=2)
    answerable = [q for q in ITEMS if q["doc"]]
    assert chosen[0] is answerable[0] and chosen[1] is answerable[2] and sum(q["doc"] is None for q in chosen) == 4


def test_a_held_out_run_prints_the_verdict_without_the_question_or_answer():
    from bench.kb_answers import _line

    record = {"q": "仓库几点关门？", "doc": "logistics_sla", "grounded": False, "cited": True, "stated": False,
              "tool": "search_documents", "seconds": 3.2, "answer": "晚上八点。"}
    assert "仓库几点关门" in _line(record) and "晚上八点" in _line(record)
    hidden = _line(record, shown=False)
    assert "仓库" not in hidden and "八点" not in hidden and hidden.startswith("✗ cited=True stated=False")


def test_the_answering_passage_is_found_among_those_shown_by_its_document_and_text():
    item = {"q": "多久退款？", "doc": "refund_policy", "answer": "系统在一个工作日内 发起退款"}
    other = "[1] membership_program.md · 积分\n积分两年有效。\n\n[2] refund_policy.docx\n七天无理由退货。"
    holding = "[1] refund_policy.docx · 退款时效\n退货入库后，系统在一个\n工作日内发起退款。"
    assert shown_rank(item, [other, holding]) == 3 and shown_rank(item, [other]) is None
    assert shown_rank({**item, "doc": "metric_handbook"}, [holding]) is None and shown_rank({**item, "doc": None}, [holding]) is None
