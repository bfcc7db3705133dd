"""DuckDB (through duckdb-engine): the file opened `read_only` with external access off and the
configuration locked, so no statement can write, read a file or reach the network; a timer interrupts
a statement past its time limit; `EXPLAIN (FORMAT JSON)` cardinalities for the plan check."""

from __future__ import annotations

import json
import math
import threading

import sqlalchemy as sa

from wenshu.catalog import ColumnInfo, ForeignKeyInfo, TableInfo
from wenshu.engines.adapter import COMMON_DENIED, EngineAdapter, PlanEstimate
from wenshu.engines.connections import readonly_connection

SAFE_CONFIG = {"enable_external_access": False, "lock_configuration": True}


NESTED_LOOPS = {"CROSS_PRODUCT", "BLOCKWISE_NL_JOIN", "NESTED_LOOP_JOIN"}  # every pair of input rows is visited


def _cardinality(node: dict) -> float | None:
    extra = node.get("extra_info")
    text = str(extra.get("Estimated Cardinality", "")) if isinstance(extra, dict) else ""
    try:
        return float(text.lstrip("~").replace(",", ""))
    except ValueError:
        return None


def _walk(node: dict) -> tuple[float, float]:
    """(rows out of this operator, the most rows any operator below it handles)."""
    children = [_walk(child) for child in node.get("children") or []]
    outs = [out for out, _ in children]
    worst = max((w for _, w in children), default=0.0)
    if node.get("name") in NESTED_LOOPS and outs:
        visited = math.prod(outs)
        return _cardinality(node) or visited, max(worst, visited)
    out = _cardinality(node)
    out = out if out is not None else max(outs, default=0.0)
    return out, max(worst, out)


class DuckDBAdapter(EngineAdapter):
    name = "duckdb"
    label = "DuckDB"
    backends = ("duckdb",)
    dialect = "duckdb"
    packages = ("duckdb", "duckdb-engine")
    files_in_from = True
    own_schemas = frozenset({"main"})
    denied_functions = COMMON_DENIED | {
        "read_csv", "read_csv_auto", "read_parquet", "parquet_scan", "parquet_metadata",
        "parquet_schema", "parquet_file_metadata", "parquet_kv_metadata", "read_json",
        "read_json_auto", "read_json_objects", "read_ndjson", "read_ndjson_auto",
        "read_ndjson_objects", "read_text", "read_blob", "read_xlsx", "sniff_csv", "glob",
        "iceberg_scan", "iceberg_metadata", "iceberg_snapshots", "delta_scan", "sqlite_scan",
        "sqlite_attach", "postgres_scan", "postgres_scan_pushdown", "postgres_attach",
        "postgres_query", "postgres_execute", "mysql_query", "mysql_execute", "query",
        "query_table", "getenv", "st_read", "st_readosm", "st_read_meta", "read_csv_as_text",
        "duckdb_secrets", "which_secret", "load_aws_credentials", "httpfs", "http_get",
        "http_post", "arrow_scan", "sleep_ms",
    }  # fmt: skip
    system_table_prefixes = ("duckdb_", "sqlite_", "pg_", "pragma_")
    system_function_prefixes = ("duckdb_", "pragma_")
    buckets = {
        "day": "strftime(CAST({c} AS DATE), '%Y-%m-%d')",
        "week": "strftime(date_trunc('week', CAST({c} AS DATE)), '%Y-%m-%d')",  # the week's Monday
        "month": "strftime(CAST({c} AS DATE), '%Y-%m')",
        "quarter": "strftime(CAST({c} AS DATE), '%Y') || '-Q' || quarter(CAST({c} AS DATE))",
        "year": "strftime(CAST({c} AS DATE), '%Y')",
    }
    weekday = "CAST(isodow(CAST({c} AS DATE)) AS VARCHAR)"
    hour = "strftime(CAST({c} AS TIMESTAMP), '%H')"

    def engine_options(self, url: sa.URL) -> dict:
        return {"connect_args": {"read_only": True, "config": dict(SAFE_CONFIG)}}

    def cancel(self, engine: sa.Engine, conn: sa.Connection) -> None:
        conn.connection.driver_connection.interrupt()

    def is_timeout(self, err: BaseException) -> bool:
        return "interrupt" in str(err).lower()

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate:
        """The most rows any operator handles: its estimated cardinality, and for a nested loop or cross
        product (which has none) the product of its inputs'."""
        with readonly_connection(self, url, timeout_s) as (conn, _):
            rows = conn.exec_driver_sql("EXPLAIN (FORMAT JSON) " + sql, execution_options={"no_parameters": True})
            doc = json.loads(rows.fetchall()[0][1])
        return PlanEstimate(rows=max((_walk(node)[1] for node in doc), default=0.0))

    def catalog_connection(self, engine: sa.Engine) -> sa.Connection:
        return engine.connect()  # DuckDB's driver has no autocommit switch: a failed probe is rolled back

    def after_failed_probe(self, conn: sa.Connection) -> None:
        conn.rollback()

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        raw = conn.connection.driver_connection
        fired: list = []
        timer = threading.Timer(seconds, lambda: (fired.append(True), raw.interrupt()))
        timer.daemon = True
        timer.start()
        try:
            return conn.execute(query).scalar()
        except sa.exc.DBAPIError as exc:
            if fired or self.is_timeout(exc.orig):
                conn.rollback()
                return None
            conn.rollback()
            raise
        finally:
            timer.cancel()

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        value = conn.execute(sa.text(
            "SELECT estimated_size FROM duckdb_tables() WHERE table_name = :t AND schema_name = current_schema()"),
            {"t": table}).scalar()
        return None if value is None else int(value)

    def read_tables(self, conn: sa.Connection) -> list[TableInfo]:
        """From `duckdb_tables()`, `duckdb_views()`, `duckdb_columns()` and `duckdb_constraints()` (the
        driver's inspector asks PostgreSQL catalogs DuckDB does not have)."""
        schema = "current_schema()"
        listed = conn.exec_driver_sql(
            f"SELECT table_name, comment, 'table' FROM duckdb_tables() WHERE schema_name = {schema} UNION ALL "
            f"SELECT view_name, comment, 'view' FROM duckdb_views() WHERE schema_name = {schema} AND NOT internal")
        tables = {name: TableInfo(name=name, comment=comment or "", kind=kind) for name, comment, kind in listed}
        for table, column, type_, nullable, comment in conn.exec_driver_sql(
                f"SELECT table_name, column_name, data_type, is_nullable, comment FROM duckdb_columns() "
                f"WHERE schema_name = {schema} ORDER BY table_name, column_index"):
            if table in tables:
                tables[table].columns.append(ColumnInfo(name=column, type=type_, comment=comment or "",
                                                        nullable=bool(nullable)))
        for table, kind, cols, ref_table, ref_cols in conn.exec_driver_sql(
                f"SELECT table_name, constraint_type, constraint_column_names, referenced_table, "
                f"referenced_column_names FROM duckdb_constraints() WHERE schema_name = {schema} "
                "AND constraint_type IN ('PRIMARY KEY', 'FOREIGN KEY')"):
            info = tables.get(table)
            if info is None:
                continue
            if kind == "PRIMARY KEY":
                for col in info.columns:
                    col.primary_key = col.primary_key or col.name in cols
            else:
                info.foreign_keys.append(ForeignKeyInfo(list(cols), ref_table, list(ref_cols or [])))
                if len(cols) == 1 and ref_cols:
                    found = info.column(cols[0])
                    if found is not None:
                        found.foreign_key = f"{ref_table}.{ref_cols[0]}"
        return list(tables.values())
