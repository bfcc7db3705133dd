"""A data question too wide for one query: split by the semantic model's reading (`semantic.split`) into
sub-questions, each answered by the real data pipeline on the demo database, combined into one answer with
every sub-answer's SQL and table kept; the streamed events show each sub-question. A question one query
answers is not split and costs no extra model call. The scripted fake model writes the SQL."""

from __future__ import annotations

import pytest
from test_assistant import final, step

from wenshu.assistant.service import Assistant
from wenshu.semantic.library import bundled_text
from wenshu.semantic.model import parse_model
from wenshu.semantic.split import sub_questions

MODEL = parse_model(bundled_text("demo"))
WIDE_ZH = "上个月各大区的GMV，以及今年每个月的退款率"
SQL_REGIONS = ("SELECT r.region_name, SUM(o.pay_amount) AS gmv FROM orders o JOIN cities c ON c.city_id = o.city_id "
               "JOIN regions r ON r.region_id = c.region_id WHERE o.status = 1 AND o.order_date >= date('now', 'start of month', "
               "'-1 month') AND o.order_date < date('now', 'start of month') GROUP BY r.region_name")
SQL_MONTHS = ("SELECT strftime('%Y-%m', order_date) AS month, ROUND(100.0 * SUM(CASE WHEN orders.status = 3 THEN 1 "
              "ELSE 0 END) / COUNT(*), 2) AS refund_rate FROM orders WHERE orders.status IN (1, 3) "
              "AND order_date >= date('now', 'start of year') GROUP BY month")


@pytest.mark.parametrize("question, parts", [
    (WIDE_ZH, ["上个月各大区的GMV", "今年每个月的退款率"]),  # two windows, two shapes
    ("GMV by region last month and the refund rate by channel this year",
     ["GMV by region last month", "the refund rate by channel this year"]),
    ("上个月各大区的GMV；各品类的销量", ["上个月各大区的GMV", "上个月各品类的销量"]),  # the window carried over
    ("各渠道的访客数和各城市等级的新增客户数分别是多少", ["各渠道的访客数", "各城市等级的新增客户数分别是多少"]),
])
def test_a_question_whose_parts_need_different_queries_is_split(question, parts):
    assert sub_questions(MODEL, question) == parts


@pytest.mark.parametrize("question", [
    "上个月各大区的GMV和订单量",  # one window, one split: one plan holds both measures
    "华东和华南上个月的GMV",  # the first part names no measure: it belongs to the second
    "paid orders and refund amount by channel last week",  # a part naming no split or window agrees
    "这个月的GMV和上个月的GMV相比怎么样",  # a comparison is one plan
    "毛利和毛利率",
    "上个月每天的访客数",
])
def test_a_question_one_query_answers_is_not_split(question):
    assert sub_questions(MODEL, question) == []
    assert sub_questions(None, WIDE_ZH) == []  # no semantic model: nothing to read the parts by


@pytest.fixture
def assistant(settings, store, agent):
    return Assistant(settings, store, agent=agent)


def test_a_wide_question_is_answered_as_sub_questions_each_with_its_sql(assistant, fake_model):
    fake_model.queue(SQL_REGIONS, SQL_MONTHS)
    events = []
    resp = assistant.ask(WIDE_ZH, on_event=events.append)
    assert resp.route == "wide" and resp.status == "ok" and resp.data is None
    assert [p.question for p in resp.parts] == ["上个月各大区的GMV", "今年每个月的退款率"]
    assert [p.response.sql.split(" LIMIT")[0] for p in resp.parts] == [SQL_REGIONS, SQL_MONTHS]
    assert len(resp.parts[0].response.rows) == 7 and resp.parts[1].response.columns == ["month", "refund_rate"]
    assert "1. 上个月各大区的GMV" in resp.answer and "2. 今年每个月的退款率" in resp.answer
    assert resp.usage.llm_calls == 2 and len(fake_model.calls) == 2  # one generation per sub-question
    subs = [(e.status, e.data.get("n"), e.data["question"]) for e in events if e.node == "subquestion"]
    assert subs == [("started", 1, "上个月各大区的GMV"), ("ok", None, "上个月各大区的GMV"),
                    ("started", 2, "今年每个月的退款率"), ("ok", None, "今年每个月的退款率")]
    assert [e.data["detail"] for e in events if e.node == "route" and e.status == "ok"] == ["wide"]
    stored = assistant.store.conversations.messages(resp.conversation_id)
    assert [m.role for m in stored] == ["user", "assistant"]  # one turn; the sub-questions' own are dropped
    assert [p["question"] for p in stored[1].payload["parts"]] == ["上个月各大区的GMV", "今年每个月的退款率"]


def test_an_ordinary_data_question_is_not_split_and_costs_one_call(assistant, fake_model):
    fake_model.queue(SQL_REGIONS.replace("AS gmv", "AS gmv, COUNT(*) AS orders"))
    resp = assistant.ask("上个月各大区的GMV和订单量")
    assert resp.route == "data" and resp.data.error is None and len(fake_model.calls) == 1 and not resp.parts


def test_query_database_splits_a_wide_question_in_the_agent_loop(assistant, fake_model):
    fake_model.queue(step("query_database", question=WIDE_ZH), SQL_REGIONS, SQL_MONTHS, final("两个结果都在上面。"))
    events = []
    resp = assistant.ask("Please write last week's weekly report", on_event=events.append)
    assert resp.route == "agent" and [s.action for s in resp.steps] == ["query_database"]
    result = resp.steps[0].result
    assert result.startswith("[1] 上个月各大区的GMV\n") and "\n\n[2] 今年每个月的退款率\n" in result
    assert "SQL: SELECT r.region_name" in result and "SQL: SELECT strftime" in result
    assert [p.question for p in resp.parts] == ["上个月各大区的GMV", "今年每个月的退款率"]
    kinds = [(e.node, e.status) for e in events if e.node in ("tool", "subquestion")]
    assert kinds == [("tool", "started"), ("subquestion", "started"), ("subquestion", "ok"),
                     ("subquestion", "started"), ("subquestion", "ok"), ("tool", "ok")]
