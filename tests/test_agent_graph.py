"""Graph paths with the scripted fake model against the real demo SQLite database."""

from __future__ import annotations

import sqlite3

import pytest

from wenshu.contracts import AgentRequest
from wenshu.errors import EmptyQuestion, ModelTimeout, NotFound, UnknownDatasource

CITY_TOP = (
    "SELECT c.city_name AS 城市, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id = c.city_id "
    "WHERE o.status = 1 GROUP BY c.city_name ORDER BY 订单量 DESC LIMIT 10"
)


def gold(home, sql):
    with sqlite3.connect(home / "data" / "demo.sqlite") as conn:
        return [list(r) for r in conn.execute(sql).fetchall()]


def nodes(resp):
    return [(t.node, t.status) for t in resp.trace]


def test_happy_path_returns_sql_rows_chart_and_answer(agent, fake_model, home):
    fake_model.queue(f"```sql\n{CITY_TOP}\n```")
    events = []
    resp = agent.ask(AgentRequest(message="每个城市的订单量Top10"), on_event=events.append)
    assert resp.error is None
    assert resp.rows == gold(home, CITY_TOP)
    assert resp.columns == ["城市", "订单量"] and resp.row_count == 10
    mark = resp.chart["mark"]
    assert (mark["type"] if isinstance(mark, dict) else mark) == "bar"
    assert resp.answer.startswith("共 10 行")
    assert [n for n, _ in nodes(resp)] == ["intent", "recall", "plan", "generate", "validate", "execute", "evaluate", "explain"]
    assert resp.usage.llm_calls == 1
    kinds = {e.type for e in events}
    assert {"node", "token", "sql", "result", "answer"} <= kinds


def test_validation_failure_goes_back_to_generate_with_the_reason(agent, fake_model):
    fake_model.queue("SELECT city, COUNT(*) FROM order_list GROUP BY city", CITY_TOP)
    resp = agent.ask(AgentRequest(message="top 10 cities by orders"))
    assert resp.error is None and resp.row_count == 10
    assert ("validate", "error") in nodes(resp) and ("generate", "retry") in nodes(resp)
    retry_prompt = fake_model.calls[1][-1].content
    assert "order_list" in retry_prompt and "orders" in retry_prompt  # previous SQL and the fix hint


def test_non_sql_answer_is_retried(agent, fake_model):
    fake_model.queue("I think you should look at the orders table.", "SELECT COUNT(*) AS n FROM orders")
    resp = agent.ask(AgentRequest(message="how many orders are there"))
    assert resp.error is None and resp.rows[0][0] > 100_000


def test_evaluate_unsatisfied_goes_back_with_feedback(agent_all_checks, fake_model):
    agent = agent_all_checks  # empty_result is off by default; the loop is the same for every check
    empty = "SELECT COUNT(*) AS n FROM orders WHERE status = '已支付' GROUP BY status"
    fixed = "SELECT COUNT(*) AS n FROM orders WHERE status = 1"
    fake_model.queue(empty, fixed)
    resp = agent.ask(AgentRequest(message="已支付订单有多少"))
    assert resp.error is None and resp.sql.startswith(fixed)
    assert ("evaluate", "retry") in nodes(resp)
    assert "no rows" in fake_model.calls[1][-1].content


def test_fallback_when_retries_are_spent(agent, fake_model):
    fake_model.queue(*["DELETE FROM orders"] * 3)
    resp = agent.ask(AgentRequest(message="删除所有订单的数量统计"))
    assert resp.error and resp.error.code == "unanswerable"
    assert "暂时无法处理该查询" in resp.answer
    assert len(fake_model.calls) == 3
    assert nodes(resp)[-1] == ("fallback", "error")


def test_chitchat_and_out_of_scope_skip_the_database(agent, fake_model):
    hi = agent.ask(AgentRequest(message="你好"))
    assert hi.intent == "chitchat" and "问数" in hi.answer and hi.sql is None
    away = agent.ask(AgentRequest(message="what is the weather tomorrow"))
    assert away.intent == "out_of_scope" and away.usage.llm_calls == 0
    assert fake_model.calls == []


def test_unsure_rules_ask_the_fast_model_with_a_json_schema(agent, fake_model):
    fake_model.queue({"intent": "chitchat", "query_type": "aggregate"})
    resp = agent.ask(AgentRequest(message="嗯嗯好的"))
    assert resp.intent == "chitchat"
    fmt = fake_model.call_kwargs[0]["response_format"]
    assert fmt["type"] == "json_schema" and "intent" in fmt["json_schema"]["schema"]["properties"]


def test_followup_is_generated_from_the_previous_sql(agent, fake_model, settings, store):
    first = ("SELECT r.region_name AS 大区, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id=c.city_id "
             "JOIN regions r ON c.region_id=r.region_id WHERE o.status = 1 GROUP BY r.region_name")
    second = first.replace("GROUP BY", "AND r.region_name = '华东' GROUP BY")
    fake_model.queue(first, second)
    one = agent.ask(AgentRequest(message="各大区的订单量"))
    # a new process: a fresh Agent over the same home must still remember the conversation
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient

    again = Agent(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}))
    two = again.ask(AgentRequest(message="只看华东区", conversation_id=one.conversation_id))
    assert two.rows == [["华东", two.rows[0][1]]] and two.row_count == 1
    prompt = fake_model.calls[1][-1].content
    assert first in prompt and "各大区的订单量" in prompt
    turns = store.conversations.recent_turns(one.conversation_id, 5)
    assert [t.question for t in turns] == ["各大区的订单量", "只看华东区"]


def test_result_cache_skips_execution_on_repeat(agent, fake_model):
    fake_model.queue("SELECT COUNT(*) AS n FROM customers", "SELECT  count(*)  AS n FROM customers")
    first = agent.ask(AgentRequest(message="how many customers"))
    second = agent.ask(AgentRequest(message="how many customers"))
    assert not first.cached and second.cached and second.rows == first.rows
    assert ("execute", "cached") in nodes(second)


def test_audit_log_records_every_question(agent, fake_model, store):
    fake_model.queue("SELECT COUNT(*) AS n FROM customers")
    agent.ask(AgentRequest(message="how many customers"))
    fake_model.queue(*["nonsense"] * 3)
    agent.ask(AgentRequest(message="how many refunds"))
    rows = store.audit.query(limit=5)
    assert [r["status"] for r in rows] == ["fallback", "ok"]
    assert rows[1]["sql"].startswith("SELECT COUNT(*)") and rows[1]["row_count"] == 1
    assert "generate" in rows[1]["timings"] and rows[0]["retries"] == 2


def test_bad_input_is_refused_clearly(agent, fake_model):
    with pytest.raises(EmptyQuestion):
        agent.ask(AgentRequest(message="   "))
    with pytest.raises(UnknownDatasource) as err:
        agent.ask(AgentRequest(message="how many orders", datasource="nope"))
    assert "demo" in err.value.en
    with pytest.raises(NotFound):
        first = agent.ask(AgentRequest(message="你好"))
        agent.ask(AgentRequest(message="你好", conversation_id=first.conversation_id, user_id="mallory"))


def test_model_timeout_becomes_an_error_response(agent, fake_model, store):
    fake_model.queue(ModelTimeout())
    resp = agent.ask(AgentRequest(message="上个月订单量"))
    assert resp.error.code == "model_timeout" and "超时" in resp.answer
    assert store.audit.query(limit=1)[0]["error_code"] == "model_timeout"


def test_unreachable_datasource(agent, fake_model, store, tmp_path):
    store.datasources.add("gone", f"sqlite:///{tmp_path / 'missing.sqlite'}")
    resp = agent.ask(AgentRequest(message="how many orders", datasource="gone"))
    assert resp.error.code == "datasource_unreachable"


def test_a_language_the_model_answers_badly_ends_in_an_honest_fallback(agent, fake_model, store):
    fake_model.queue({"intent": "data", "query_type": "aggregate"}, "Je ne sais pas.", "Désolé...", "???")
    resp = agent.ask(AgentRequest(message="Combien de commandes le mois dernier ?"))
    assert resp.error.code == "unanswerable" and "rephrase" in resp.answer
    assert "no SQL" in " ".join(t.detail for t in resp.trace)
    assert store.audit.query(limit=1)[0]["question"] == "Combien de commandes le mois dernier ?"


def test_the_settings_given_to_the_agent_are_the_guard_s_bounds(store, fake_model):
    """Not the process-wide settings: an agent built with a tight plan limit refuses what the default allows."""
    from wenshu.agent.service import Agent
    from wenshu.providers.base import ModelClient
    from wenshu.settings import Settings

    scan = "SELECT COUNT(*) AS n FROM orders o JOIN order_items i ON i.order_id = o.order_id"  # scans all orders
    tight = Agent(Settings(plan_sqlite_max_scan_rows=1000, max_validate_retries=0), store,
                  models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    assert tight.validator.plan_limits.sqlite_max_scan_rows == 1000
    fake_model.queue(scan)
    resp = tight.ask(AgentRequest(message="订单明细一共有多少行"))
    assert resp.error is not None and "above the limit of 1,000" in " ".join(t.detail for t in resp.trace)
    roomy = Agent(Settings(), store, models=ModelClient({"fast": fake_model, "strong": fake_model}, provider="fake"))
    fake_model.queue(scan)
    assert roomy.ask(AgentRequest(message="订单明细一共有多少行")).error is None
