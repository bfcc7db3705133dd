"""PostgreSQL: a read-only transaction with statement, lock and idle timeouts; one statement per
server-side cursor; `EXPLAIN (FORMAT JSON)` for the plan check; `pg_class.reltuples` for row counts."""

from __future__ import annotations

import sqlalchemy as sa

from wenshu.engines.adapter import COMMON_DENIED, SAMPLE_PREFIX, EngineAdapter, PlanEstimate
from wenshu.engines.connections import readonly_connection, translate_error



def _ms(timeout_s: float) -> int:
    return max(1, int(timeout_s * 1000))


def _max_plan_rows(node: dict) -> float:
    rows = float(node.get("Plan Rows") or 0)
    return max([rows] + [_max_plan_rows(child) for child in node.get("Plans", [])])


class PostgresAdapter(EngineAdapter):
    name = "postgresql"
    label = "PostgreSQL"
    backends = ("postgresql", "postgres")
    dialect = "postgres"
    packages = ("psycopg2-binary",)  # SQLAlchemy's default PostgreSQL driver
    drivers = {"psycopg": ("psycopg[binary]",), "psycopg2": ("psycopg2-binary",), "pg8000": ("pg8000",),
               "asyncpg": ("asyncpg",)}
    identifiers = "fold_lower"
    denied_functions = COMMON_DENIED | {
        "pg_read_binary_file", "pg_ls_dir", "pg_stat_file", "pg_ls_logdir", "pg_ls_waldir",
        "pg_ls_tmpdir", "pg_ls_archive_statusdir", "pg_current_logfile", "pg_file_write",
        "pg_file_rename", "pg_file_unlink", "pg_file_sync", "pg_logdir_ls", "pg_sleep_for",
        "pg_sleep_until", "lo_create", "lo_unlink", "lo_from_bytea", "lo_put", "lo_get", "lo_open",
        "loread", "lowrite", "lo_truncate", "dblink_exec", "dblink_connect", "dblink_connect_u",
        "dblink_send_query", "dblink_open", "dblink_fetch", "dblink_get_result", "set_config",
        "current_setting", "nextval", "setval", "pg_advisory_lock", "pg_advisory_xact_lock",
        "pg_try_advisory_lock", "pg_try_advisory_xact_lock", "pg_advisory_lock_shared",
        "pg_terminate_backend", "pg_cancel_backend", "pg_reload_conf", "pg_rotate_logfile",
        "pg_switch_wal", "pg_create_restore_point", "pg_promote", "pg_backup_start",
        "pg_backup_stop", "pg_start_backup", "pg_stop_backup", "pg_notify",
        "pg_create_logical_replication_slot", "pg_create_physical_replication_slot",
        "pg_drop_replication_slot", "pg_logical_emit_message", "pg_import_system_collations",
        "pg_stat_reset", "pg_stat_reset_shared", "pg_stat_reset_single_table_counters",
        "query_to_xml", "query_to_xmlschema", "query_to_xml_and_xmlschema", "cursor_to_xml",
        "cursor_to_xmlschema",
    }  # fmt: skip
    system_schemas = frozenset({"information_schema", "pg_catalog"})
    system_schema_prefixes = ("pg_",)
    own_schemas = frozenset({"public"})
    system_table_prefixes = ("pg_",)
    system_function_prefixes = ("pg_",)
    hidden_columns = frozenset({"ctid", "xmin", "xmax", "cmin", "cmax", "tableoid", "oid"})
    connect_timeout_drivers = frozenset({"psycopg2", "psycopg"})
    buckets = {
        "day": "to_char(CAST({c} AS DATE), 'YYYY-MM-DD')",
        "week": "to_char(date_trunc('week', CAST({c} AS DATE)), 'YYYY-MM-DD')",  # the week's Monday
        "month": "to_char(CAST({c} AS DATE), 'YYYY-MM')",
        "quarter": "to_char(CAST({c} AS DATE), 'YYYY-\"Q\"Q')",
        "year": "to_char(CAST({c} AS DATE), 'YYYY')",
    }
    weekday = "to_char(CAST({c} AS DATE), 'ID')"  # ISO: Monday 1
    hour = "to_char(CAST({c} AS TIMESTAMP), 'HH24')"

    def prepare_transaction(self, conn: sa.Connection, timeout_s: float) -> None:
        ms = _ms(timeout_s)
        conn.exec_driver_sql(
            f"SET TRANSACTION READ ONLY; SET LOCAL statement_timeout = {ms}; SET LOCAL lock_timeout = {ms}; "
            f"SET LOCAL idle_in_transaction_session_timeout = {ms + 5000}; "
            "SET LOCAL cursor_tuple_fraction = 1"  # plan the cursor for all its rows, like a plain query
        )

    def is_timeout(self, err: BaseException) -> bool:
        return (getattr(err, "pgcode", None) or getattr(err, "sqlstate", None)) == "57014"

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate | None:
        """EXPLAIN (FORMAT JSON) over the extended protocol, so a stacked statement cannot ride along."""
        with readonly_connection(self, url, timeout_s) as (conn, _):
            raw = conn.connection.driver_connection
            if type(raw).__module__.split(".", 1)[0] != "psycopg":
                return None  # only psycopg 3 can force the single-statement protocol here
            try:
                with raw.cursor() as cur:
                    cur.execute("EXPLAIN (FORMAT JSON) " + sql, binary=True)
                    doc = cur.fetchone()[0]
            except Exception as err:  # noqa: BLE001 - psycopg's errors: a timeout, a refusal or a database error
                raise translate_error(self, err, [], timeout_s, sql) from err
        top = doc[0]["Plan"]
        return PlanEstimate(rows=_max_plan_rows(top), cost=float(top.get("Total Cost") or 0))

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        conn.exec_driver_sql(f"SET statement_timeout = {_ms(seconds)}")
        try:
            return conn.execute(query).scalar()
        except sa.exc.OperationalError as exc:
            if "statement timeout" in str(exc.orig):
                return None
            raise
        finally:
            conn.exec_driver_sql("RESET statement_timeout")  # back to the role/database default

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        value = conn.execute(sa.text(
            "SELECT c.reltuples FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
            "WHERE c.relname = :t AND n.nspname = current_schema()"), {"t": table}).scalar()
        return None if value is None or float(value) < 0 else int(float(value))  # -1 before the first ANALYZE

    def sample_value(self, column):
        return sa.func.substr(sa.cast(column, sa.Text), 1, SAMPLE_PREFIX)

    def round2(self, sql: str) -> str:
        return f"ROUND(CAST({sql} AS NUMERIC), 2)"  # PostgreSQL rounds only numerics
