"""Per-dialect denylists of functions and table functions with side effects.

A function is denied when it reads or writes files, reaches the network or another database,
sleeps or burns CPU on purpose, loads code, changes settings or takes locks, or runs SQL given as
a string (which would hide a write from the statement check). Names are matched without case, for
both sqlglot's known function classes and unknown (Anonymous) calls, qualified or quoted.
The generic dialect (unknown engine) uses the union of every list.
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.guard.outcome import Problem

COMMON = {
    "load_extension", "load_file", "pg_read_file", "pg_sleep", "sleep", "benchmark", "dblink",
    "sys_exec", "sys_eval", "lo_import", "lo_export", "readfile", "writefile",
}  # fmt: skip

DENIED = {
    "sqlite": {"edit", "fts3_tokenizer", "zipfile", "zipfile_cds", "fsdir", "sqlar_compress",
               "sqlar_uncompress", "shell", "system"},
    "postgres": {
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
    },
    "mysql": {"get_lock", "release_lock", "release_all_locks", "master_pos_wait",
              "source_pos_wait", "wait_for_executed_gtid_set", "wait_until_sql_thread_after_gtids",
              "sys_get", "sys_set", "sys_bineval", "lib_mysqludf_sys_info"},
    "duckdb": {
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
    },
    "clickhouse": {
        "url", "urlcluster", "s3", "s3cluster", "gcs", "file", "filecluster", "remote",
        "remotesecure", "cluster", "clusterallreplicas", "hdfs", "hdfscluster", "mysql",
        "postgresql", "jdbc", "odbc", "mongodb", "redis", "sqlite", "executable", "input",
        "azureblobstorage", "azureblobstoragecluster", "deltalake", "hudi", "iceberg",
        "icebergs3", "icebergazure", "iceberghdfs", "sleepeachrow", "fuzzjson", "fuzzquery",
        "getsetting", "mergetreeindex", "loop",
    },
    "trino": {"query"},  # TABLE(system.query(query => '...')) runs SQL in the connector
}  # fmt: skip
ALL_DENIED = COMMON.union(*DENIED.values())


def denied_names(dialect: str) -> set[str]:
    """The names denied for `dialect`; every list at once for an engine without its own list."""
    return COMMON | DENIED[dialect] if dialect in DENIED else ALL_DENIED


def function_names(node: exp.Func) -> set[str]:
    """Every lower-case name a function node can be written as."""
    if isinstance(node, exp.Anonymous):
        return {str(node.name).lower()}
    names = {n.lower() for n in type(node).sql_names()}
    return names | {node.key.lower()}


def _denied(name: str) -> Problem:
    return Problem(
        "sql_forbidden_function",
        f"The function {name}() reads or writes files, reaches other servers, sleeps, changes "
        "settings or runs hidden SQL, and is not allowed.",
        f"Do not call {name}(); answer the question with plain SELECT over the datasource's tables.",
    )


def function_problem(node: exp.Func, dialect: str) -> Problem | None:
    hits = function_names(node) & denied_names(dialect)
    return _denied(sorted(hits)[0]) if hits else None


def table_source_problem(table: exp.Table, dialect: str) -> Problem | None:
    """DuckDB (and an unknown engine) read a file named in FROM: `FROM 'data.csv'`."""
    if dialect not in ("duckdb", "") or not isinstance(table.this, exp.Identifier):
        return None
    name = table.name
    if any(ch in name for ch in "/\\:*") or "." in name:
        return Problem(
            "sql_forbidden_function", f"`FROM '{name}'` reads a file or URL, which is not allowed.",
            "Query only the datasource's tables, by name.",
        )  # fmt: skip
    return None
