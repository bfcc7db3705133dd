"""Layer 4 on real servers: the read-only session alone stops writes, stacked statements and long
statements on PostgreSQL and MariaDB, fetches in bounded batches, and leaks no session state."""

from __future__ import annotations

import time

import pytest
import sqlalchemy as sa

from fixtures_seed import CANARY, SENTINEL_TEXT, checksums, files_under
from wenshu.engines.connections import execute_sqlalchemy
from wenshu.engines.registry import adapter_for_url
from wenshu.engines.execute import execute_readonly
from wenshu.engines.result import fetch_rows
from wenshu.errors import SQLExecutionError, SQLTimeout


@pytest.fixture(params=["postgres", "mariadb"])
def server(request):
    return request.getfixturevalue("pg_server" if request.param == "postgres" else "mariadb_server")


def run(url, sql, **kw):
    kw.setdefault("row_limit", 100)
    kw.setdefault("timeout_s", 2.0)
    return execute_readonly(url, sql, **kw)


def test_reads_typed_values_and_true_row_count(server):
    res = run(server.url, "SELECT id, amount, created_at FROM orders WHERE id <= 2 ORDER BY id")
    assert res.columns == ["id", "amount", "created_at"]
    assert res.rows == [[1, 47.5, "2024-02-02"], [2, 84.5, "2024-03-03"]]
    big = run(server.ro_url, "SELECT id FROM orders ORDER BY id", row_limit=50)
    assert big.truncated and len(big.rows) == 50 and big.row_count == 2000 and big.rows[-1] == [50]
    assert run(server.ro_url, "SELECT token FROM canary ORDER BY id").rows == [[t] for _, t in CANARY]


WRITES = [
    "DELETE FROM canary",
    "UPDATE canary SET token = 'x'",
    "INSERT INTO canary VALUES (9, 'x')",
    "DROP TABLE canary",
    "CREATE TABLE evil (a INT)",
    "ALTER TABLE canary ADD COLUMN b INT",
    "TRUNCATE TABLE canary",
    "CREATE TEMPORARY TABLE evil AS SELECT * FROM canary",
    "SELECT * FROM canary FOR UPDATE",
    "GRANT SELECT ON canary TO PUBLIC",
]
PG_WRITES = [
    "WITH d AS (DELETE FROM canary RETURNING *) SELECT * FROM d",
    "SELECT * INTO evil FROM canary",
    "SELECT 1; COMMIT; DELETE FROM canary",
    "SELECT 1; COMMIT; SET default_transaction_read_only = off; DELETE FROM canary",
    "SELECT * FROM canary FOR SHARE",
    "SELECT nextval('canary_seq')",
    "SELECT setval('canary_seq', 100)",
]
MY_WRITES = [
    "SELECT 1; DELETE FROM canary",
    "REPLACE INTO canary VALUES (1, 'x')",
    "SET GLOBAL max_connections = 3",
    "RENAME TABLE canary TO canary2",
    "CREATE VIEW evil AS SELECT 1",
]  # a shared lock (LOCK IN SHARE MODE) is allowed in a read-only transaction; layer 1 refuses it


@pytest.mark.parametrize("who", ["superuser", "read-only role"])
def test_writes_fail_at_layer4(server, who):
    url = server.url if who == "superuser" else server.ro_url
    before = checksums(server.url)
    extra = PG_WRITES if server.engine == "postgres" else MY_WRITES
    allowed = []
    for sql in WRITES + extra:
        if who == "superuser" and sql.startswith("SET GLOBAL"):
            continue  # MariaDB lets an account with SUPER run it in a read-only session: see docs/security.md
        try:
            run(url, sql)
            allowed.append(sql)
        except SQLExecutionError as err:
            assert err.en and err.zh and "DECLARE" not in err.en
    assert allowed == []
    assert checksums(server.url) == before


def test_refusals_say_why(pg_server, mariadb_server):
    with pytest.raises(SQLExecutionError) as info:
        run(pg_server.url, "DELETE FROM canary")
    assert info.value.code == "sql_refused" and "DELETE" in info.value.en
    with pytest.raises(SQLExecutionError) as info:
        run(pg_server.url, "SELECT 1; DELETE FROM canary")
    assert info.value.code == "sql_refused" and "several statements" in info.value.en
    with pytest.raises(SQLExecutionError) as info:
        run(mariadb_server.url, "DELETE FROM canary")
    assert info.value.code == "sql_refused" and "READ ONLY" in info.value.en


@pytest.mark.parametrize("sql", {"postgres": "SELECT pg_sleep(30)", "mariadb": "SELECT SLEEP(30)"}.items(), ids=str)
def test_sleep_stopped_by_timeout(pg_server, mariadb_server, sql):
    engine, text = sql
    url = (pg_server if engine == "postgres" else mariadb_server).ro_url
    started = time.monotonic()
    with pytest.raises(SQLTimeout):
        run(url, text, timeout_s=1.0)
    assert time.monotonic() - started < 2.5
    assert run(url, "SELECT 1").rows == [[1]]  # the pooled connection is usable again


def test_huge_result_streams_and_stops_early(server):
    """A 4-million-row cross join, row limit 10: only a few rows cross the wire (no fetchall)."""
    started = time.monotonic()
    res = run(server.ro_url, "SELECT a.id, b.id FROM orders a, orders b", row_limit=10, timeout_s=5)
    assert res.truncated and len(res.rows) == 10
    assert res.row_count in (10, 4_000_000)  # the count may time out; then the known rows are reported
    assert time.monotonic() - started < 7
    assert run(server.ro_url, "SELECT COUNT(*) FROM canary").rows == [[3]]


def test_byte_budget_truncates(server):
    res = execute_sqlalchemy(adapter_for_url(server.ro_url), server.ro_url, "SELECT id, name FROM customers ORDER BY id", row_limit=1000,
                             timeout_s=5, max_bytes=200)  # fmt: skip
    assert res.truncated and 1 <= len(res.rows) < 20 and res.row_count == 200


def test_fetch_rows_byte_budget_on_a_plain_cursor(tmp_path):
    import sqlite3

    conn = sqlite3.connect(tmp_path / "x.db")
    cur = conn.execute("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c LIMIT 100) SELECT x, 'abcdefgh' FROM c")
    rows, truncated = fetch_rows(cur, 1000, max_bytes=100)
    assert truncated and len(rows) == 6  # the row that crosses the budget (6 * (8 + 10) > 100) is kept
    conn.close()


def test_session_state_does_not_leak(mariadb_server):
    """A statement that changes the session is refused, and its connection is discarded."""
    for sql in ("SET SESSION sql_select_limit = 1", "SET SESSION TRANSACTION READ WRITE"):
        with pytest.raises(SQLExecutionError):
            run(mariadb_server.url, sql)
        assert len(run(mariadb_server.url, "SELECT id FROM customers").rows) == 100
        with pytest.raises(SQLExecutionError):
            run(mariadb_server.url, "DELETE FROM canary")


def test_superuser_file_reads_need_a_read_only_role(pg_server, mariadb_server):
    """What docs/security.md states: a read-only transaction does not stop a superuser reading server
    files; a role without file privileges does. Layer 1 refuses these functions for everyone."""
    pg_read = f"SELECT pg_read_file('{pg_server.sentinel_file}')"
    assert SENTINEL_TEXT in str(run(pg_server.url, pg_read).rows)
    with pytest.raises(SQLExecutionError, match="permission denied"):
        run(pg_server.ro_url, pg_read)
    my_read = f"SELECT LOAD_FILE('{mariadb_server.sentinel_file}')"
    assert SENTINEL_TEXT in str(run(mariadb_server.url, my_read).rows)
    assert run(mariadb_server.ro_url, my_read).rows == [[None]]
    before = files_under(mariadb_server.sentinel_dir)
    with pytest.raises(SQLExecutionError, match="FILE"):
        run(mariadb_server.ro_url, f"SELECT * FROM canary INTO OUTFILE '{mariadb_server.sentinel_dir}/out.txt'")
    assert files_under(mariadb_server.sentinel_dir) == before


def test_server_fixtures_start_quickly(pg_server, mariadb_server):
    assert pg_server.startup_s < 30 and mariadb_server.startup_s < 30
    for srv in (pg_server, mariadb_server):
        engine = sa.create_engine(srv.ro_url, poolclass=sa.pool.NullPool)
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT COUNT(*) FROM customers").scalar() == 200
        engine.dispose()
