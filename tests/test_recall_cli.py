"""`wenshu db recall` as a user runs it: --json, --batch (one process, one result per line), errors."""

from __future__ import annotations

import json

from typer.testing import CliRunner

from wenshu.cli.app import app

runner = CliRunner()
KEYS = {"tables", "columns", "values", "schema_block", "tokens", "full_schema_tokens"}


def test_recall_json(home):
    out = runner.invoke(app, ["db", "recall", "demo", "华东区上个月的销售额", "--json"])
    assert out.exit_code == 0, out.output
    data = json.loads(out.stdout)
    assert KEYS <= set(data)
    assert "regions" in [t["name"] for t in data["tables"]]
    assert {"table": "regions", "column": "region_name", "value": "华东"} in data["values"]
    assert all({"table", "column", "score"} == set(c) for c in data["columns"])
    assert 0 < data["tokens"] <= data["full_schema_tokens"] * 1.05


def test_recall_batch_keeps_order_and_survives_bad_lines(home):
    lines = [{"question": "top 10 cities by orders"}, "not json", {"question": ""}, {"question": "退款原因分布"}]
    stdin = "\n".join(x if isinstance(x, str) else json.dumps(x, ensure_ascii=False) for x in lines) + "\n"
    out = runner.invoke(app, ["db", "recall", "demo", "--batch", "--k", "3"], input=stdin)
    assert out.exit_code == 0, out.output
    rows = [json.loads(line) for line in out.stdout.splitlines() if line.strip()]
    assert len(rows) == 4
    assert KEYS <= set(rows[0]) and rows[0]["tables"][0]["name"] in ("cities", "orders")
    assert rows[1]["error"]["code"] == "bad_input"
    assert rows[2]["error"]["code"] == "empty_question"
    assert rows[3]["tables"][0]["name"] == "refunds"


def test_recall_unknown_datasource_is_one_clear_error(home):
    out = runner.invoke(app, ["db", "recall", "nope", "anything", "--json"])
    assert out.exit_code == 1
    assert json.loads(out.stdout)["error"]["code"] in ("not_found", "unknown_datasource")


def test_recall_plain_output(home):
    out = runner.invoke(app, ["db", "recall", "demo", "退款原因"])
    assert out.exit_code == 0, out.output
    assert "refunds" in out.stdout and "TABLE refunds" in out.stdout
