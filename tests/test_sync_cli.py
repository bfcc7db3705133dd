"""`wenshu db sync|show|list|add` around the catalog sync, run in-process as a user would."""

from __future__ import annotations

import json
import sqlite3

from test_catalog_introspect import build_shop
from typer.testing import CliRunner

from wenshu.cli.app import app

runner = CliRunner()


def run(*args):
    return runner.invoke(app, list(args))


def test_add_syncs_and_list_shows_tables_and_sync_time(home, tmp_path):
    path = build_shop(tmp_path / "shop.db")
    added = run("db", "add", "shop", str(path))
    assert added.exit_code == 0, added.output
    assert "8 tables" in added.stdout
    listed = {d["name"]: d for d in json.loads(run("db", "list", "--json").stdout)}
    assert listed["shop"]["tables"] == 8 and listed["shop"]["synced_at"]
    assert listed["demo"]["tables"] >= 9
    text = run("db", "list").stdout
    assert "shop" in text and "never" not in text


def test_sync_json_report_and_full(home, tmp_path):
    path = build_shop(tmp_path / "shop.db")
    assert run("db", "add", "shop", str(path)).exit_code == 0
    with sqlite3.connect(path) as conn:
        conn.execute("DROP TABLE coupons")
    out = run("db", "sync", "shop", "--json")
    assert out.exit_code == 0, out.output
    report = json.loads(out.stdout)
    assert (report["removed"], report["unchanged"], report["added"]) == (1, 7, 0)
    assert report["details"]["removed"] == ["coupons"] and report["seconds"] >= 0
    full = run("db", "sync", "shop", "--full")
    assert full.exit_code == 0 and "7 changed" in full.stdout


def test_show_tables_and_one_table_with_inferred_keys(home, tmp_path):
    assert run("db", "add", "shop", str(build_shop(tmp_path / "shop.db"))).exit_code == 0
    tables = json.loads(run("db", "show", "shop", "--json").stdout)
    orders = next(t for t in tables["tables"] if t["name"] == "orders")
    assert orders["rows"] == 1000 and orders["columns"] == 6
    one = json.loads(run("db", "show", "shop", "orders", "--json").stdout)
    inferred = {f["columns"][0]: f for f in one["foreign_keys"] if f["inferred"]}
    assert inferred["customer_id"]["ref_table"] == "customers" and inferred["customer_id"]["confidence"] > 0.8
    text = run("db", "show", "shop", "orders").stdout
    assert "inferred: (customer_id) → customers(id) confidence 0.9" in text and "status" in text
    missing = run("db", "show", "shop", "nope")
    assert missing.exit_code == 1 and "no table 'nope'" in missing.output


def test_bad_input_messages(home, tmp_path):
    empty = tmp_path / "empty.db"
    sqlite3.connect(empty).close()
    added = run("db", "add", "empty", str(empty))
    assert added.exit_code == 0 and "no tables or views" in added.output  # registered, with a warning
    synced = run("db", "sync", "empty", "--json")
    assert synced.exit_code == 1 and json.loads(synced.stdout)["error"]["code"] == "datasource_empty"
    unknown = run("db", "sync", "nope")
    assert unknown.exit_code == 1 and "no datasource named 'nope'" in unknown.output
    gone = tmp_path / "gone.db"
    build_shop(gone)
    assert run("db", "add", "gone", str(gone)).exit_code == 0
    gone.unlink()
    failed = run("db", "sync", "gone", "--json")
    assert json.loads(failed.stdout)["error"]["code"] == "datasource_unreachable"
