"""The CLI as a user runs it, in-process (Typer's runner), with the scripted fake model from a file."""

from __future__ import annotations

import json

import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app
from wenshu.settings import reset_settings_cache

runner = CliRunner()
TOP = ("SELECT c.city_name AS city, COUNT(*) AS orders FROM orders o JOIN cities c ON o.city_id = c.city_id "
       "WHERE o.status = 1 GROUP BY c.city_name ORDER BY orders DESC LIMIT 3")


@pytest.fixture
def fake_script(home, tmp_path, monkeypatch):
    def write(*answers):
        path = tmp_path / "script.json"
        path.write_text(json.dumps(list(answers)), encoding="utf-8")
        monkeypatch.setenv("WENSHU_LLM_PROVIDER", "fake")
        monkeypatch.setenv("WENSHU_FAKE_SCRIPT", str(path))
        reset_settings_cache()
        return path

    return write


def run(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_ask_json_prints_the_agent_response(fake_script):
    fake_script(TOP)
    out = run("ask", "top 3 cities by orders", "--json")
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert set(data) >= {"conversation_id", "answer", "sql", "columns", "rows", "row_count", "truncated", "chart",
                         "cached", "trace", "usage", "error"}
    assert data["columns"] == ["city", "orders"] and data["row_count"] == 3 and data["error"] is None
    assert [t["node"] for t in data["trace"]][:4] == ["intent", "recall", "plan", "generate"]
    assert data["usage"]["llm_calls"] == 1


def test_ask_prints_sql_table_answer_and_timings(fake_script):
    fake_script(TOP)
    out = run("ask", "每个城市的订单量前3")
    assert out.exit_code == 0, out.output
    assert "SELECT" in out.stdout and "共 3 行" in out.stdout and "generate" in out.stdout


def test_empty_question_is_one_sentence_and_exit_1(fake_script):
    fake_script()
    out = run("ask", "  ")
    assert out.exit_code == 1
    assert "Please type a question" in out.output and "Traceback" not in out.output


def test_unknown_datasource(fake_script):
    fake_script()
    out = run("ask", "上个月订单量", "--db", "nope", "--json")
    assert out.exit_code == 1
    assert json.loads(out.stdout)["error"]["code"] == "unknown_datasource"


def test_missing_model_says_how_to_fix_it(home):
    out = run("ask", "上个月订单量")
    assert out.exit_code == 1
    assert "wenshu model install" in out.output and "WENSHU_LLM_BASE_URL" in out.output


def test_debug_shows_the_traceback(fake_script):
    fake_script()
    out = run("--debug", "ask", "上个月订单量", "--db", "nope")
    assert "Traceback" in out.output


def test_db_add_list_remove(fake_script, home, demo_db_file):
    fake_script()
    assert run("db", "add", "shop", str(home / "data" / "demo.sqlite")).exit_code == 0
    listed = json.loads(run("db", "list", "--json").stdout)
    assert {d["name"] for d in listed} == {"demo", "shop"}
    bad = run("db", "add", "broken", str(home / "missing.sqlite"))
    assert bad.exit_code == 1 and "does not exist" in bad.output
    assert "broken" not in run("db", "list").stdout
    assert run("db", "remove", "shop").exit_code == 0
    assert run("db", "remove", "shop").exit_code == 1


def test_sql_run_validates_and_runs_read_only(fake_script):
    fake_script()
    ok = run("sql", "run", "SELECT COUNT(*) AS n FROM regions", "--json")
    assert ok.exit_code == 0 and json.loads(ok.stdout)["rows"] == [[7]]
    bad = run("sql", "run", "DELETE FROM regions", "--json")
    assert bad.exit_code == 1 and json.loads(bad.stdout)["error"]["code"].startswith("sql_")
    assert json.loads(run("sql", "run", "SELECT COUNT(*) FROM regions", "--json").stdout)["rows"] == [[7]]
    again = json.loads(run("sql", "run", "SELECT COUNT(*) AS n FROM regions", "--json").stdout)
    assert again["rows"] == [[7]] and again["cached"]  # the one checked run path: the result cache


def test_log_shows_the_audit_trail(fake_script):
    fake_script(TOP)
    run("ask", "top 3 cities by orders")
    rows = json.loads(run("log", "--json").stdout)
    assert rows[0]["question"] == "top 3 cities by orders" and rows[0]["status"] == "ok"


def test_chat_keeps_the_conversation_and_survives_errors(fake_script):
    region = ("SELECT r.region_name AS region, COUNT(*) AS n FROM orders o JOIN cities c ON o.city_id=c.city_id "
              "JOIN regions r ON c.region_id=r.region_id WHERE o.status = 1 GROUP BY r.region_name")
    fake_script(region, region.replace("GROUP BY", "AND r.region_name='华东' GROUP BY"))
    out = run("chat", input="各大区订单量\n\n只看华东区\n/quit\n")
    assert out.exit_code == 0, out.output
    assert "共 7 行" in out.stdout and "华东" in out.stdout
    assert "region_name='华东'" in out.stdout


def test_model_status_and_doctor(home):
    status = json.loads(run("model", "status", "--json").stdout)
    assert status["installed"] is False and len(status["parts_missing"]) in (0, 22)
    doc = run("doctor")
    assert doc.exit_code == 0
    assert "wenshu model install" in doc.stdout and "demo" in doc.stdout


def test_settings_come_from_wenshu_toml_and_env(home, monkeypatch):
    (home / "wenshu.toml").write_text('row_limit = 77\nllm_model = "from-toml"\n', encoding="utf-8")
    monkeypatch.setenv("WENSHU_LLM_MODEL", "from-env")
    reset_settings_cache()
    from wenshu.settings import get_settings

    s = get_settings()
    assert s.row_limit == 77 and s.llm_model == "from-env" and s.home == home


def test_ask_through_the_semantic_plan_prints_the_plan(fake_script, monkeypatch):
    """The product default: a business question the semantic model covers is answered by a plan."""
    fake_script(json.dumps({"measures": ["paid_orders"], "dimensions": ["city"]}))
    monkeypatch.setenv("WENSHU_SEMANTIC_PATH", "1")
    reset_settings_cache()
    out = run("ask", "上个月订单量最多的3个城市")
    assert out.exit_code == 0, out.output
    assert "查询计划：订单量 · 按城市 · " in out.stdout and "前 3" in out.stdout and "WITH m_paid_orders" in out.stdout


def test_assist_prints_its_steps_as_they_happen_and_continues_a_conversation(fake_script):
    step = json.dumps({"action": "query_database", "arguments": {"question": "how many orders in total"}})
    fake_script("<think>The report needs the order count.</think>" + step, "SELECT COUNT(*) AS n FROM orders",
                json.dumps({"action": "final", "answer": "120,000 orders."}))
    out = run("assist", "Please write last week's weekly report")
    assert out.exit_code == 0, out.output
    assert '· query_database {"question": "how many orders in total"}' in out.stderr and "✓ " in out.stderr
    assert "The report needs the order count.\n· query_database" in out.stderr  # the thinking, on its own line
    assert "order count" not in out.stdout  # never the answer
    assert out.stdout.count("120,000 orders.") == 1  # streamed once, not printed again
    cid = out.stdout.split("conversation ")[-1].split()[0]
    fake_script(json.dumps({"action": "final", "answer": "Shorter: 120k."}))  # each run reads the script afresh
    again = json.loads(run("assist", "make it shorter", "-c", cid, "--json").stdout)
    assert again["conversation_id"] == cid and again["answer"] == "Shorter: 120k." and again["route"] == "agent"
    log = json.loads(run("log", "-n", "3", "--json").stdout)  # each turn audited, and the query it made
    assert [(r["route"], [t["tool"] for t in r["tools"] or []], bool(r["sql"])) for r in log] == [
        ("agent", [], False), ("agent", ["query_database"], False), (None, [], True)]  # a turn ends after its query
