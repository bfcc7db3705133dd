import datetime as dt
import json
import sqlite3
import time
import uuid
from decimal import Decimal

import pytest

from wenshu.engines.connections import execute_sqlalchemy
from wenshu.engines.sqlite import SQLiteAdapter
from wenshu.engines.execute import ExecResult, data_version, execute_readonly, page
from wenshu.engines.values import jsonable
from wenshu.errors import DatasourceUnreachable, InputError, SQLExecutionError, SQLTimeout

BOMB = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT COUNT(*) FROM c"
ENDLESS = "WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c) SELECT x FROM c"


@pytest.fixture
def db(tmp_path):
    path = tmp_path / "shop.db"
    conn = sqlite3.connect(path)
    conn.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, amount REAL, raw BLOB, label BLOB)")
    conn.executemany(
        "INSERT INTO t (name, amount, raw, label) VALUES (?, ?, ?, ?)",
        [(f"n{i}", i * 1.5, bytes([i % 256, 0xFF]), "北京".encode()) for i in range(2500)],
    )
    conn.commit()
    conn.close()
    return path


def url(path) -> str:
    return f"sqlite:///{path}"


def count_rows(path) -> int:
    conn = sqlite3.connect(path)
    try:
        return conn.execute("SELECT COUNT(*) FROM t").fetchone()[0]
    finally:
        conn.close()


def test_select(db):
    res = execute_readonly(url(db), "SELECT id, name FROM t WHERE id <= 3 ORDER BY id;")
    assert isinstance(res, ExecResult)
    assert res.columns == ["id", "name"]
    assert res.rows == [[1, "n0"], [2, "n1"], [3, "n2"]]
    assert res.row_count == 3 and res.truncated is False and res.ms >= 0


def test_truncated_and_true_row_count(db):
    res = execute_readonly(url(db), "SELECT id FROM t", row_limit=100)
    assert len(res.rows) == 100 and res.truncated is True and res.row_count == 2500
    exact = execute_readonly(url(db), "SELECT id FROM t", row_limit=2500)
    assert len(exact.rows) == 2500 and exact.truncated is False and exact.row_count == 2500


def test_row_count_with_trailing_comment(db):
    res = execute_readonly(url(db), "SELECT id FROM t -- all of them", row_limit=10)
    assert res.truncated and res.row_count == 2500


def test_row_count_falls_back_to_row_limit_when_counting_times_out(db):
    started = time.monotonic()
    res = execute_readonly(url(db), ENDLESS, row_limit=10, timeout_s=0.5)
    assert res.truncated is True and res.row_count == 10 and len(res.rows) == 10
    assert time.monotonic() - started < 2.5


def test_values_are_json_safe(db):
    res = execute_readonly(url(db), "SELECT raw, label, amount, NULL AS empty FROM t WHERE id = 2")
    assert res.rows == [["01ff", "北京", 1.5, None]]
    json.dumps(res.rows)


def test_jsonable_conversions():
    assert jsonable(Decimal("1.25")) == 1.25
    assert jsonable(dt.date(2024, 1, 2)) == "2024-01-02"
    assert jsonable(dt.datetime(2024, 1, 2, 3, 4, 5)) == "2024-01-02T03:04:05"
    assert jsonable(b"\xff\x00") == "ff00" and jsonable(b"abc") == "abc"
    assert jsonable(float("nan")) is None
    assert jsonable(dt.timedelta(minutes=1)) == 60.0
    u = uuid.uuid4()
    assert jsonable([u, {"d": Decimal("2")}]) == [str(u), {"d": 2.0}]
    json.dumps([jsonable(v) for v in (Decimal("1"), dt.time(1, 2), memoryview(b"x"), object())])


@pytest.mark.parametrize(
    "sql",
    [
        "DELETE FROM t",
        "UPDATE t SET name = 'x'",
        "INSERT INTO t (name) VALUES ('x')",
        "DROP TABLE t",
        "CREATE TABLE evil (a)",
        "CREATE TEMP TABLE evil (a)",
        "PRAGMA query_only = OFF",
        "WITH x AS (SELECT 1) DELETE FROM t",
        "REPLACE INTO t (id, name) VALUES (1, 'x')",
    ],
)
def test_writes_refused_even_without_validator(db, sql):
    with pytest.raises(SQLExecutionError) as info:
        execute_readonly(url(db), sql)
    assert info.value.en and info.value.zh
    assert count_rows(db) == 2500
    conn = sqlite3.connect(db)
    names = {r[0] for r in conn.execute("SELECT name FROM sqlite_master")}
    assert names == {"t"} and conn.execute("SELECT name FROM t WHERE id = 1").fetchone()[0] == "n0"
    conn.close()


def test_attach_refused(db, tmp_path):
    other = tmp_path / "other.db"
    with pytest.raises(SQLExecutionError):
        execute_readonly(url(db), f"ATTACH DATABASE '{other}' AS other")
    assert not other.exists()


def test_dangerous_functions_refused(db):
    with pytest.raises(SQLExecutionError) as info:
        execute_readonly(url(db), "SELECT load_extension('/nonexistent/evil')")
    assert "load_extension" in info.value.en


def test_stacked_statements_refused(db):
    with pytest.raises(SQLExecutionError):
        execute_readonly(url(db), "SELECT 1; DELETE FROM t")
    assert count_rows(db) == 2500


def test_sql_error_has_en_and_zh_message(db):
    with pytest.raises(SQLExecutionError) as info:
        execute_readonly(url(db), "SELECT nope FROM t")
    err = info.value
    assert not isinstance(err, SQLTimeout)
    assert "no such column: nope" in err.en and "no such column: nope" in err.zh
    assert err.code == "sql_execution_error" and err.en.count(".") >= 1


def test_timeout_aborts_recursive_cte_bomb(db):
    started = time.monotonic()
    with pytest.raises(SQLTimeout) as info:
        execute_readonly(url(db), BOMB, timeout_s=1.0)
    elapsed = time.monotonic() - started
    assert elapsed < 2.0
    assert info.value.code == "sql_timeout"
    assert "1 s" in info.value.en and "秒" in info.value.zh


def test_missing_file_is_unreachable(tmp_path):
    with pytest.raises(DatasourceUnreachable):
        execute_readonly(url(tmp_path / "missing.db"), "SELECT 1")
    assert not (tmp_path / "missing.db").exists()  # read-only open must not create it


def test_not_a_database_is_unreachable(tmp_path):
    junk = tmp_path / "junk.db"
    junk.write_bytes(b"this is not a sqlite file at all" * 100)
    with pytest.raises(DatasourceUnreachable):
        execute_readonly(url(junk), "SELECT 1")


def test_unreachable_server():
    # A port nobody listens on; the driver may be missing too, both are "unreachable".
    with pytest.raises(DatasourceUnreachable):
        execute_readonly("postgresql://u:p@127.0.0.1:1/db", "SELECT 1", timeout_s=2)


def test_page():
    res = ExecResult(["x"], [[i] for i in range(7)], 7, False, 1.0)
    assert page(res, 1, 3) == [[0], [1], [2]]
    assert page(res, 3, 3) == [[6]]
    assert page(res, 4, 3) == []
    with pytest.raises(InputError):
        page(res, 0, 3)


def test_data_version_changes_when_data_changes(db):
    before = data_version(url(db))
    assert before == data_version(url(db))
    time.sleep(0.01)
    conn = sqlite3.connect(db)
    conn.execute("INSERT INTO t (name) VALUES ('new')")
    conn.commit()
    conn.close()
    assert data_version(url(db)) != before


def test_data_version_other_engines_and_missing_file(tmp_path):
    assert data_version("postgresql://u:p@localhost/db").startswith("hour-")
    with pytest.raises(DatasourceUnreachable):
        data_version(url(tmp_path / "missing.db"))


def test_sqlalchemy_path_rolls_back(db):
    """The generic (non-SQLite-stdlib) path, exercised on SQLite through SQLAlchemy: a write that
    slips through is rolled back and reported; reads work and are truncated like the SQLite path."""
    with pytest.raises(SQLExecutionError):
        execute_sqlalchemy(SQLiteAdapter(), url(db), "DELETE FROM t", row_limit=10, timeout_s=5)
    assert count_rows(db) == 2500
    res = execute_sqlalchemy(SQLiteAdapter(), url(db), "SELECT id, raw FROM t ORDER BY id", row_limit=10, timeout_s=5)
    assert res.columns == ["id", "raw"] and res.rows[0] == [1, "00ff"]
    assert res.truncated and res.row_count == 2500
    with pytest.raises(SQLExecutionError) as info:
        execute_sqlalchemy(SQLiteAdapter(), url(db), "SELECT nope FROM t", row_limit=10, timeout_s=5)
    assert "nope" in info.value.en
