"""`wenshu sql check` (single, --json, --db, --dialect, --batch), `wenshu db policy`, and the policy
reaching `wenshu sql run`: the CLI as a user runs it (Typer's runner) on the real demo database."""

from __future__ import annotations

import json
import time

import pytest
from typer.testing import CliRunner

from wenshu.cli.app import app

runner = CliRunner()


def run(*args, input=None):
    return runner.invoke(app, list(args), input=input)


def test_check_passes_and_prints_the_rewritten_sql(home):
    out = run("sql", "check", "SELECT 1")
    assert out.exit_code == 0, out.output
    assert "PASS" in out.stdout and "LIMIT" in out.stdout


def test_check_refusal_json_and_exit_1(home):
    out = run("sql", "check", "DELETE FROM orders", "--json")
    assert out.exit_code == 1
    data = json.loads(out.stdout)
    assert set(data) == {"passed", "layer", "code", "reason", "hint_for_model", "sql"}
    assert data["passed"] is False and data["layer"] == 1 and data["code"] == "sql_not_read_only"


def test_check_human_refusal_shows_layer_code_reason_hint(home):
    out = run("sql", "check", "--dialect", "postgres", "SELECT pg_sleep(10)")
    assert out.exit_code == 1
    for text in ("REFUSED", "layer 1", "sql_forbidden_function", "pg_sleep", "hint"):
        assert text in out.stdout


def test_dialect_changes_the_parser(home):
    assert run("sql", "check", "--dialect", "sqlite", "SELECT * FROM glob('x', 'y')").exit_code == 0
    assert run("sql", "check", "--dialect", "duckdb", "SELECT * FROM glob('*')").exit_code == 1


def test_check_with_db_uses_the_catalog(home):
    out = run("sql", "check", "--db", "demo", "--json", "SELECT pay_amout FROM orders")
    data = json.loads(out.stdout)
    assert out.exit_code == 1 and data["layer"] == 2 and data["code"] == "sql_unknown_column"
    assert "pay_amount" in data["hint_for_model"]
    assert run("sql", "check", "--db", "demo", "SELECT SUM(pay_amount) FROM orders").exit_code == 0


def test_batch_keeps_order_and_survives_bad_lines(home):
    lines = [
        json.dumps({"sql": "SELECT 1"}),
        "this is not json",
        json.dumps({"sql": "SELECT pg_read_file('/etc/passwd')", "dialect": "postgres"}),
        json.dumps({"nosql": 1}),
        "",
        json.dumps({"sql": "SELECT 2; DROP TABLE orders"}),
        json.dumps(["SELECT 1"]),
    ]
    out = run("sql", "check", "--batch", input="\n".join(lines) + "\n")
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    assert [r["code"] for r in rows] == [
        "ok", "input_invalid_json", "sql_forbidden_function", "input_invalid_json", "sql_multiple_statements",
        "input_invalid_json",
    ]  # fmt: skip
    assert rows[0]["passed"] and not any(r["passed"] for r in rows[1:])


def test_batch_is_fast_in_one_process(home):
    queries = [f"SELECT city_id, COUNT(*) FROM orders WHERE customer_id > {i} GROUP BY city_id" for i in range(2000)]
    payload = "".join(json.dumps({"sql": q, "dialect": "sqlite"}) + "\n" for q in queries)
    t0 = time.perf_counter()
    out = run("sql", "check", "--batch", input=payload)
    took = time.perf_counter() - t0
    rows = out.stdout.splitlines()
    assert out.exit_code == 0 and len(rows) == 2000
    assert all(json.loads(r)["passed"] for r in rows)
    assert took < 30, f"{2000 / took:.0f} statements/s"


def test_policy_cli_round_trip_and_enforcement(home):
    out = run("db", "policy", "demo", "--deny-column", "customers.phone", "--deny-table", "refunds", "--json")
    assert out.exit_code == 0, out.output
    assert json.loads(out.stdout)["policy"] == {
        "allow_tables": [], "deny_tables": ["refunds"], "deny_columns": ["customers.phone"],
    }  # fmt: skip
    shown = run("db", "policy", "demo")
    assert "customers.phone" in shown.stdout and "refunds" in shown.stdout

    denied = run("sql", "check", "--db", "demo", "--json", "SELECT customer_id FROM customers WHERE phone LIKE '138%'")
    assert denied.exit_code == 1 and json.loads(denied.stdout)["code"] == "sql_column_denied"
    assert json.loads(run("sql", "check", "--db", "demo", "--json", "SELECT * FROM refunds").stdout)["code"] == (
        "sql_table_denied"
    )
    ran = run("sql", "run", "--db", "demo", "--json", "SELECT * FROM customers LIMIT 2")
    assert ran.exit_code == 0, ran.output
    data = json.loads(ran.stdout)
    assert "phone" not in data["columns"] and "customer_id" in data["columns"] and len(data["rows"]) == 2
    refused = run("sql", "run", "--db", "demo", "--json", "SELECT phone FROM customers")
    assert refused.exit_code == 1 and json.loads(refused.stdout)["error"]["code"] == "sql_column_denied"

    cleared = run("db", "policy", "demo", "--clear", "--json")
    assert json.loads(cleared.stdout)["policy"]["deny_columns"] == []
    assert run("sql", "run", "--db", "demo", "--json", "SELECT phone FROM customers LIMIT 1").exit_code == 0


@pytest.mark.parametrize("args", [["--deny-column", "phone"], ["--deny-column", ""]])
def test_policy_cli_rejects_bad_entries(home, args):
    out = run("db", "policy", "demo", *args)
    if args[1]:
        assert out.exit_code == 1 and "table.column" in out.output
    else:
        assert out.exit_code == 0  # an empty entry is ignored


def test_unknown_datasource_is_one_sentence(home):
    out = run("sql", "check", "--db", "nope", "SELECT 1")
    assert out.exit_code == 1 and "nope" in out.output and "Traceback" not in out.output


def test_plan_check_runs_with_the_url(settings, store):
    """With a URL the guard asks the database for its plan (wenshu.guard.plan) after layers 1-3."""
    from wenshu.guard.guard import _plan_module
    from wenshu.agent.sql_service import guard_for

    assert _plan_module() is not None
    guard, catalog, url, dialect = guard_for(settings, "demo", store)
    ok = guard.check("SELECT order_id FROM orders WHERE order_id = 1", dialect=dialect, catalog=catalog, url=url)
    assert ok.passed and ok.sql.endswith("LIMIT 1000"), ok
