"""The plan path in the graph, with the scripted fake model on the real demo database: a grounded plan
answers with compiled SQL; an ungrounded or uncompilable one says why and free SQL answers."""

from __future__ import annotations

import json
import sqlite3

import pytest

from wenshu.contracts import AgentRequest

FREE_SQL = "SELECT COUNT(*) AS n FROM orders WHERE status = 1"


@pytest.fixture
def agent(plan_agent):
    return plan_agent


def step(resp, node: str):
    return next(t for t in resp.trace if t.node == node)


def test_a_grounded_plan_answers_with_compiled_sql(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"], "share": True}))
    resp = agent.ask(AgentRequest(message="上个月销售额按大区拆开，以及各自的占比"))
    assert resp.error is None, resp.error
    plan = step(resp, "plan")
    assert plan.status == "ok" and plan.detail.startswith("plan: gmv by region")
    assert "generate" not in [t.node for t in resp.trace]  # one model call: the plan
    assert len(fake_model.calls) == 1 and resp.sql.startswith("WITH m_gmv")
    assert resp.columns == ["大区", "销售额", "占比%"] and len(resp.rows) == 7
    assert abs(sum(r[2] for r in resp.rows) - 100) < 0.1
    system = fake_model.calls[0][0]
    assert "gmv: 销售额 / GMV" in system.content and system.additional_kwargs == {"prefix_cache": "demo#plan"}
    schema = fake_model.call_kwargs[0]["response_format"]["json_schema"]["schema"]
    assert "aov" in schema["properties"]["measures"]["items"]["enum"] and "window" not in schema["properties"]
    assert "date('now'" not in resp.sql and "order_date" in resp.sql  # the resolver's window, as dates


def test_a_question_that_names_no_measure_goes_to_free_sql_without_asking_for_a_plan(agent, fake_model):
    fake_model.queue(FREE_SQL)
    resp = agent.ask(AgentRequest(message="我们一共卖过多少种商品？"))  # members of a dimension, not a measure
    plan = step(resp, "plan")
    assert plan.status == "skipped" and "names none of the semantic model's measures" in plan.detail
    assert step(resp, "generate").status == "ok" and resp.sql.startswith("SELECT COUNT(*)")
    assert len(fake_model.calls) == 1  # free SQL only: no plan was asked for that grounding would drop


def test_a_plan_whose_measure_the_question_does_not_name_answers_the_one_its_words_back(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["aov"]}))
    fake_model.default = FREE_SQL
    resp = agent.ask(AgentRequest(message="Customers that bought something last month?"))
    plan = step(resp, "plan")  # "customers that bought" backs buyers, so a plan was asked for; aov is not said
    assert plan.status == "ok" and "aov" in plan.detail and resp.plan["plan"]["measures"] == ["buyers"]
    assert "query plan" in fake_model.calls[0][0].content and "COUNT(DISTINCT" in resp.sql
    assert not any(s.node == "generate" for s in resp.trace)  # no free SQL was written


def test_a_plan_that_would_fan_out_is_not_compiled_and_free_sql_answers(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["paid_orders"], "dimensions": ["category"]}))
    fake_model.default = ("SELECT cat.category_name AS 品类, COUNT(DISTINCT o.order_id) AS 订单量 "
                          "FROM order_items oi JOIN orders o ON o.order_id = oi.order_id JOIN products p ON "
                          "p.product_id = oi.product_id JOIN categories cat ON cat.category_id = p.category_id "
                          "WHERE o.status = 1 GROUP BY cat.category_name")
    resp = agent.ask(AgentRequest(message="订单量按品类的占比分别是多少"))  # an order in two categories: shares > 100 %
    plan = step(resp, "plan")
    assert plan.status == "skipped" and "repeat the measure's rows" in plan.detail
    assert "generate" in [t.node for t in resp.trace] and "category_name" in resp.sql


def test_a_split_the_measure_cannot_reach_uses_its_finer_measure_and_says_so(agent, fake_model):
    """GMV is an order amount: split by category it becomes the line amounts (item_sales), said in the answer."""
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["category"]}))
    resp = agent.ask(AgentRequest(message="销售额按品类分别是多少"))
    assert step(resp, "plan").status == "ok" and "item_sales" in step(resp, "plan").detail
    assert resp.columns == ["品类", "商品销售额"] and "m_item_sales" in resp.sql and "m_gmv" not in resp.sql
    assert "商品销售额" in resp.answer and "不能按此拆分" in resp.answer
    measure = next(c for c in resp.plan["chips"] if c["kind"] == "measure")
    assert measure["options"] and measure["options"][0]["plan"]["measures"] == ["gmv"]


def test_what_the_question_does_not_name_is_dropped_from_the_plan(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv", "uv"], "dimensions": ["city"],
                                 "filters": [{"dimension": "region", "values": ["华南"]}]}))
    resp = agent.ask(AgentRequest(message="本月的销售额是多少"))
    plan = step(resp, "plan")
    assert plan.status == "ok" and "dropped" in plan.detail and "dimension city" in plan.detail
    assert resp.columns == ["销售额"] and len(resp.rows) == 1  # one total: no city split, no region filter


def test_a_follow_up_edits_the_previous_plan_with_no_model_call(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"]}))
    first = agent.ask(AgentRequest(message="上个月各大区的销售额"))
    assert first.plan and first.plan["plan"]["dimensions"] == ["region"]
    calls = len(fake_model.calls)
    second = agent.ask(AgentRequest(message="再按渠道分一下", conversation_id=first.conversation_id))
    assert len(fake_model.calls) == calls  # the plan was edited, not asked for again
    assert "edited the previous plan" in step(second, "plan").detail
    assert second.plan["plan"]["dimensions"] == ["region", "channel"] and second.columns[:2] == ["大区", "渠道"]
    assert second.plan["plan"]["window"] == first.plan["plan"]["window"]


def test_a_terse_follow_up_the_plan_can_take_is_data_without_asking_the_model(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["cancel_rate"], "dimensions": ["channel"]}))
    first = agent.ask(AgentRequest(message="上个月各渠道的取消率，全部排一下"))
    assert first.plan and first.plan["plan"].get("limit") is None, first.plan
    calls = len(fake_model.calls)
    second = agent.ask(AgentRequest(message="keep the two worst", conversation_id=first.conversation_id))
    assert len(fake_model.calls) == calls  # neither the intent nor the plan asked the model
    assert step(second, "intent").detail.startswith("data/") and second.plan["plan"]["limit"] == 2


def test_a_terse_follow_up_naming_only_a_value_is_data_by_the_value_index(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["refund_amount"], "dimensions": ["city"]}))
    first = agent.ask(AgentRequest(message="近两个月退款金额最高的五个城市"))
    assert first.plan and first.plan["plan"]["dimensions"] == ["city"], first.plan
    calls = len(fake_model.calls)
    second = agent.ask(AgentRequest(message="杭州不计入的话", conversation_id=first.conversation_id))
    assert len(fake_model.calls) == calls  # no opener word: the value index names 杭州, the plan edit takes it
    assert step(second, "intent").detail.startswith("data/") and second.error is None
    assert [(f["dimension"], f["op"], f["values"]) for f in second.plan["plan"]["filters"]] == [("city", "not_in", ["杭州"])]
    assert "杭州" not in [row[0] for row in second.rows]


def test_the_plan_survives_a_restart(store, fake_model, home):
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    def fresh() -> Agent:
        return Agent(Settings(semantic_path=True), store,
                     models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))

    fake_model.queue(json.dumps({"measures": ["paid_orders"]}))
    first = fresh().ask(AgentRequest(message="本月的订单量"))
    again = fresh().ask(AgentRequest(message="换成下单客户数", conversation_id=first.conversation_id))
    assert again.plan["plan"]["measures"] == ["buyers"] and "COUNT(DISTINCT" in again.sql


def test_a_chip_runs_its_plan_with_no_model_call(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"], "share": True}))
    first = agent.ask(AgentRequest(message="上个月各大区销售额的占比"))
    share = next(c for c in first.plan["chips"] if c["kind"] == "share")
    calls = len(fake_model.calls)
    rerun = agent.ask(AgentRequest(message=share["label"], plan=share["remove"], conversation_id=first.conversation_id))
    assert len(fake_model.calls) == calls and step(rerun, "intent").detail.startswith("data/")
    assert rerun.columns == ["大区", "销售额"] and "OVER" not in rerun.sql
    assert [r[0] for r in rerun.rows] and rerun.rows == sorted(rerun.rows, key=lambda r: -r[1])
    fake_model.queue(FREE_SQL)
    bad = agent.ask(AgentRequest(message="已支付订单", plan={"measures": ["no_such_measure"]}))
    assert step(bad, "plan").status == "skipped" and "not a measure" in step(bad, "plan").detail


def test_the_api_reads_and_replaces_the_semantic_model_and_runs_a_plan(live_server):
    client = live_server.client()
    got = client.get("/api/datasources/demo/semantic")
    assert got.status_code == 200 and "gmv" in got.json()["measures"]
    text = got.json()["yaml"]
    broken = text.replace("expr: pay_amount", "expr: no_such_column", 1)
    bad = client.put("/api/datasources/demo/semantic", json={"yaml": broken})
    assert bad.status_code == 400 and bad.json()["error"]["code"] == "semantic_model_invalid"
    assert "measures" in bad.json()["error"]["message"] or "gmv" in bad.json()["error"]["message"]
    ok = client.put("/api/datasources/demo/semantic", json={"yaml": text.replace("zh: 销售额", "zh: 成交总额", 1)})
    assert ok.status_code == 200 and ok.json()["version"] == got.json()["version"] + 1
    assert "成交总额" in client.get("/api/datasources/demo/semantic").json()["yaml"]
    assert client.get("/api/datasources/nope/semantic").status_code == 404
    plan = {"measures": ["paid_orders"], "dimensions": ["city_tier"]}
    ran = client.post("/api/ask", json={"message": "订单量 · 按城市等级", "plan": plan})
    assert ran.status_code == 200 and ran.json()["plan"]["plan"] == plan
    assert [r[0] for r in ran.json()["rows"]] == ["一线", "新一线", "二线", "其他"]  # labels, in code order


def test_a_detail_list_answers_from_the_record_with_no_model_call_and_follow_ups_edit_it(agent, fake_model):
    resp = agent.ask(AgentRequest(message="上个月被取消的订单有哪些"))
    assert resp.error is None, resp.error
    assert step(resp, "plan").detail.startswith("plan: rows of order") and fake_model.calls == []
    assert resp.columns == ["订单号", "下单时间", "城市", "渠道", "商品总额"] and resp.rows
    assert f"共 {resp.row_count} 条订单" in resp.answer and resp.chart is None
    kinds = [c["kind"] for c in resp.plan["chips"]]
    assert kinds[0] == "records" and "filter" in kinds and "window" in kinds
    narrowed = agent.ask(AgentRequest(message="只看小程序的", conversation_id=resp.conversation_id))
    assert step(narrowed, "plan").detail.endswith("edited the previous plan") and fake_model.calls == []
    assert 0 < narrowed.row_count < resp.row_count and "'mini_program'" in narrowed.sql
    assert "渠道" not in narrowed.columns  # every row's channel is the mini program: no column says it again


def test_a_plan_is_evaluated_by_its_own_shape_and_a_regenerated_answer_is_not_explained_as_the_plan(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["paid_orders"]}))
    resp = agent.ask(AgentRequest(message="上周订单量和前一周相比变化多少？"))  # 前一周: no top-N check on the plan
    assert step(resp, "evaluate").status == "ok" and "generate" not in [t.node for t in resp.trace]
    assert resp.plan["plan"]["compare"] == "previous" and len(resp.columns) == 4  # 变化多少: the amount too
    fake_model.default = "SELECT COUNT(*) AS n FROM regions"  # a plan with no rows: free SQL tries again
    empty = {"measures": ["gmv"], "filters": [{"dimension": "region", "values": ["不存在的大区"]}]}
    redone = agent.ask(AgentRequest(message="不存在的大区的销售额", plan=empty))
    assert step(redone, "generate").status == "retry" and redone.sql.startswith("SELECT COUNT(*)")
    assert redone.plan is None and redone.rows == [[7]]  # the model's SQL, not explained as the plan


def test_the_period_before_moves_the_window_back_one_period_with_no_model_call(agent, fake_model):
    from datetime import date

    fake_model.queue(json.dumps({"measures": ["gmv"], "dimensions": ["region"]}))
    first = agent.ask(AgentRequest(message="上周各大区的销售额"))
    window = first.plan["plan"]["window"]
    start, end = date.fromisoformat(window["start"]), date.fromisoformat(window["end"])
    assert (end - start).days == 7 and start.weekday() == 0
    calls = len(fake_model.calls)
    second = agent.ask(AgentRequest(message="那前一周呢", conversation_id=first.conversation_id))
    assert len(fake_model.calls) == calls
    earlier = second.plan["plan"]["window"]
    assert earlier == {"start": str(start - (end - start)), "end": window["start"]}
    third = agent.ask(AgentRequest(message="And the week before?", conversation_id=first.conversation_id))
    assert third.plan["plan"]["window"]["end"] == earlier["start"]
    assert third.plan["plan"]["dimensions"] == ["region"]


def test_a_list_whose_rows_match_nothing_answers_empty_without_free_sql(agent, fake_model):
    fake_model.default = "SELECT order_id FROM refunds"  # free SQL would find rows by dropping the bound
    none = {"records": "refund", "filters": [{"dimension": "refund_amount", "op": "gt", "values": [10 ** 9]}]}
    resp = agent.ask(AgentRequest(message="一笔超过十亿元的退款", plan=none))
    assert resp.error is None and resp.rows == [] and step(resp, "evaluate").status == "ok"
    assert "generate" not in [t.node for t in resp.trace] and len(fake_model.calls) == 0


def test_the_n_that_fell_most_are_ranked_by_their_change_and_said_so(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["paid_orders"], "dimensions": ["city"]}))
    resp = agent.ask(AgentRequest(message="上个月哪三个城市的订单量比前一个月掉得最厉害"))
    assert resp.error is None, resp.error
    assert resp.plan["plan"]["by_change"] is True and resp.plan["plan"]["order"] == "asc" and len(resp.rows) == 3
    changes = [r[3] for r in resp.rows]
    assert changes == sorted(changes) and "订单量变化最低的是" in resp.answer
    top = next(c for c in resp.plan["chips"] if c["kind"] == "top")
    assert top["label"] == "降幅最大 3" and "by_change" not in top["remove"]


def test_the_n_that_fell_by_the_most_show_the_fall_itself(agent, fake_model):
    fake_model.queue(json.dumps({"measures": ["paid_orders"], "dimensions": ["city"]}))
    resp = agent.ask(AgentRequest(message="上个月哪三个城市的订单量比前一个月减少得最多，少了多少"))
    assert resp.error is None, resp.error
    assert resp.plan["plan"]["difference"] is True and resp.columns[-1] == "订单量减少额" and len(resp.columns) == 4
    falls = [r[3] for r in resp.rows]
    assert falls == sorted(falls, reverse=True) and all(r[3] == r[2] - r[1] for r in resp.rows)
    assert f"订单量减少额最高的是 {resp.rows[0][0]}（{int(falls[0])} 单）" in resp.answer


def test_a_plan_the_model_cuts_short_is_read_from_the_questions_words(agent, fake_model):
    fake_model.queue('{"measures": ["paid_orders"], "filters": [{"dimension": "gender", "values": ["男"]}, {"dim')
    resp = agent.ask(AgentRequest(message="上个月各渠道的订单量"))
    plan = step(resp, "plan")
    assert plan.status == "ok" and "did not parse" in plan.detail, plan.detail
    assert resp.plan["plan"]["measures"] == ["paid_orders"] and resp.plan["plan"]["dimensions"] == ["channel"]
    assert len(fake_model.calls) == 1 and resp.error is None  # no free SQL after it


def test_a_plan_the_model_cuts_short_with_no_measure_named_goes_to_free_sql(agent, fake_model):
    fake_model.queue('{"measures": ["gmv"], "dimensions": ["reg')
    fake_model.default = FREE_SQL
    resp = agent.ask(AgentRequest(message="Customers that bought something last month?"))
    plan = step(resp, "plan")
    assert plan.status == "skipped" and "no plan from the model" in plan.detail


def test_a_distinct_count_split_by_a_finer_table_joins_through_it(agent, fake_model, demo_db_file):
    """Customers who bought each category: a distinct count is not repeated by the join to the order lines."""
    fake_model.queue(json.dumps({"measures": ["buyers"], "dimensions": ["category"]}))
    resp = agent.ask(AgentRequest(message="下单客户数按品类分别是多少"))
    assert step(resp, "plan").status == "ok" and not any(s.node == "generate" for s in resp.trace)
    expected = ("SELECT c.category_name, COUNT(DISTINCT o.customer_id) FROM orders o JOIN order_items i ON "
                "i.order_id = o.order_id JOIN products p ON p.product_id = i.product_id JOIN categories c ON "
                "c.category_id = p.category_id WHERE o.status = 1 GROUP BY 1")
    with sqlite3.connect(demo_db_file) as conn:
        want = dict(conn.execute(expected).fetchall())
    got = {row[0]: row[-1] for row in resp.rows}
    assert got == want and len(want) == 10
