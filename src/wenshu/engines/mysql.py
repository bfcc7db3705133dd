"""MySQL and MariaDB: a read-only session with `max_statement_time` (MariaDB) or `max_execution_time`
(MySQL), multi statements off on every connection, `KILL QUERY` from a second connection to cancel,
`EXPLAIN` row products for the plan check. Executable comments (`/*! ... */`) are refused by the guard."""

from __future__ import annotations

import math

import sqlalchemy as sa
from sqlalchemy import event

from wenshu.engines.adapter import COMMON_DENIED, EngineAdapter, PlanEstimate
from wenshu.engines.connections import readonly_connection

MULTI_STATEMENTS = 1 << 16  # MySQL client capability flag CLIENT_MULTI_STATEMENTS
TIMEOUT_ERRNOS = (3024, 1969, 1317)


def _no_multi_statements(dialect, conn_rec, cargs, cparams) -> None:
    cparams["client_flag"] = int(cparams.get("client_flag", 0)) & ~MULTI_STATEMENTS


def _is_mariadb(conn: sa.Connection) -> bool:
    return bool(getattr(conn.dialect, "is_mariadb", False))


def _limit_setting(conn: sa.Connection, seconds: float) -> tuple[str, str]:
    if _is_mariadb(conn):
        return "max_statement_time", f"{max(seconds, 0.001):.3f}"
    return "max_execution_time", str(max(1, int(seconds * 1000)))


class MySQLAdapter(EngineAdapter):
    name = "mysql"
    label = "MySQL/MariaDB"
    backends = ("mysql", "mariadb")
    dialect = "mysql"
    packages = ("mysqlclient",)  # SQLAlchemy's default MySQL driver
    drivers = {"pymysql": ("pymysql",), "mysqldb": ("mysqlclient",), "mysqlconnector": ("mysql-connector-python",),
               "mariadbconnector": ("mariadb",)}
    executable_comments = True
    denied_functions = COMMON_DENIED | {
        "get_lock", "release_lock", "release_all_locks", "master_pos_wait", "source_pos_wait",
        "wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids", "sys_get", "sys_set",
        "sys_bineval", "lib_mysqludf_sys_info",
    }  # fmt: skip
    system_schemas = frozenset({"information_schema", "performance_schema", "sys", "mysql"})
    connect_timeout_drivers = frozenset({"pymysql", "mysqldb"})
    buckets = {
        "day": "DATE_FORMAT({c}, '%Y-%m-%d')",
        "week": "DATE_FORMAT(DATE_SUB(DATE({c}), INTERVAL WEEKDAY({c}) DAY), '%Y-%m-%d')",  # the week's Monday
        "month": "DATE_FORMAT({c}, '%Y-%m')",
        "quarter": "CONCAT(YEAR({c}), '-Q', QUARTER({c}))",
        "year": "DATE_FORMAT({c}, '%Y')",
    }
    weekday = "CAST(WEEKDAY({c}) + 1 AS CHAR)"  # WEEKDAY(): Monday 0
    hour = "DATE_FORMAT({c}, '%H')"

    def on_engine(self, engine: sa.Engine) -> None:
        event.listen(engine, "do_connect", _no_multi_statements)

    def prepare_session(self, conn: sa.Connection, timeout_s: float) -> None:
        conn.exec_driver_sql("SET SESSION TRANSACTION READ ONLY")
        setting, value = _limit_setting(conn, timeout_s)
        conn.exec_driver_sql(f"SET SESSION {setting} = {value}")
        conn.rollback()  # end the implicit transaction; the next one starts read-only

    def cancel(self, engine: sa.Engine, conn: sa.Connection) -> None:
        """MySQL drivers cannot cancel: `KILL QUERY` the statement from a second connection."""
        raw = getattr(conn.connection, "driver_connection", None)
        thread_id = raw.thread_id() if callable(getattr(raw, "thread_id", None)) else None
        if thread_id is None:
            return
        cargs, cparams = engine.dialect.create_connect_args(engine.url)
        other = engine.dialect.dbapi.connect(*cargs, **cparams)
        try:
            other.cursor().execute(f"KILL QUERY {int(thread_id)}")
        finally:
            other.close()

    def is_timeout(self, err: BaseException) -> bool:
        args = getattr(err, "args", None)
        return bool(args) and args[0] in TIMEOUT_ERRNOS

    def after_truncation(self, result, conn: sa.Connection) -> None:
        """Drop an unbuffered result without reading it to its end (the protocol has no way to stop the
        server sending; closing the connection does), then drop the connection."""
        pending = getattr(getattr(result, "cursor", None), "_result", None)
        if hasattr(pending, "unbuffered_active"):
            pending.unbuffered_active = False
        conn.invalidate()

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate | None:
        """`EXPLAIN`: the product of `rows` over the tables of each SELECT, a dependent subquery
        multiplied by its outer SELECT. A materialized derived table (an aggregate, DISTINCT, LIMIT or
        UNION that MariaDB cannot merge) counts once, in its own SELECT: MariaDB estimates its output as
        its input (a one-row SUM over 8,000 orders is 8,000 rows), so joining five such results would
        read as 8,000^5. A join of large materialized results is left to the time limit."""
        with readonly_connection(self, url, timeout_s) as (conn, _):
            result = conn.exec_driver_sql("EXPLAIN " + sql, execution_options={"no_parameters": True})
            rows = [dict(r._mapping) for r in result]
        groups: dict[object, float] = {}
        dependent: set = set()
        for row in rows:
            key = row.get("id")
            size = max(float(row.get("rows") or 1), 1.0)
            if str(row.get("table") or "").startswith(("<derived", "<subquery", "<union")):
                size = 1.0  # a materialized result: its own SELECT is counted as a group of its own
            groups[key] = groups.get(key, 1.0) * size
            if "DEPENDENT" in str(row.get("select_type") or "").upper():
                dependent.add(key)
        if not groups:
            return PlanEstimate(rows=0.0)
        outer = groups.get(min((k for k in groups if k is not None), default=None), 1.0)
        worst = max(v * outer if k in dependent else v for k, v in groups.items())
        return PlanEstimate(rows=worst if math.isfinite(worst) else math.inf)

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        setting, value = _limit_setting(conn, seconds)
        conn.exec_driver_sql(f"SET SESSION {setting} = {value}")
        try:
            return conn.execute(query).scalar()
        except sa.exc.OperationalError as exc:
            if self.is_timeout(exc.orig):
                return None
            raise
        finally:
            conn.exec_driver_sql(f"SET SESSION {setting} = DEFAULT")  # back to the global value

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        value = conn.execute(sa.text(
            "SELECT table_rows FROM information_schema.tables WHERE table_schema = DATABASE() AND table_name = :t"),
            {"t": table}).scalar()
        return None if value is None else int(value)

    def as_text(self, sql: str) -> str:
        return f"CAST({sql} AS CHAR)"

    def date_literal(self, day) -> str:
        return f"'{day.isoformat()}'"
