"""A small SQLAlchemy dialect for Spark SQL over pyspark (`wenshu.engines.spark_dbapi`).

URLs:

- ``spark:///abs/path/warehouse`` - a local SparkSession (started once per process) over a warehouse
  directory whose sub-directories are parquet tables; optional query settings for the first session
  of the process: ``?master=local[4]&driver_memory=2g``.
- ``spark://host:15002[/database]`` - a Spark Connect server (`SparkSession.builder.remote`), the user
  name as `user_id`, the password as `token`, other query settings passed on (``?use_ssl=true``).
  Needs ``pip install "pyspark[connect]"``. Use credentials that can only read: Spark has no
  read-only session.

The inspector reads Spark's catalog API (tables, views, columns with comments, table comments); Spark
has no primary or foreign keys. Identifiers are quoted with backticks. Importing this module registers
the dialect in-process; a package declares it with the entry point
``[project.entry-points."sqlalchemy.dialects"] spark = "wenshu.engines.spark_dialect:SparkDialect"``.
"""

from __future__ import annotations

import re

import sqlalchemy as sa
from sqlalchemy import types as sqltypes
from sqlalchemy.dialects import registry
from sqlalchemy.engine import default, reflection
from sqlalchemy.sql import compiler

DEFAULT_CONNECT_PORT = 15002


class STRING(sqltypes.String):
    """Spark's STRING (any length)."""

    __visit_name__ = "STRING"


class TINYINT(sqltypes.SmallInteger):
    __visit_name__ = "TINYINT"


class SparkType(sqltypes.UserDefinedType):
    """Any other Spark type, shown under its Spark name (ARRAY<INT>, MAP<...>, TIMESTAMP_NTZ, ...)."""

    cache_ok = True

    def __init__(self, name: str):
        self.name = name.upper()

    def get_col_spec(self, **kw) -> str:
        return self.name


_SIMPLE = {
    "string": STRING, "int": sa.INTEGER, "integer": sa.INTEGER, "bigint": sa.BIGINT, "long": sa.BIGINT,
    "smallint": sa.SMALLINT, "short": sa.SMALLINT, "tinyint": TINYINT, "byte": TINYINT, "double": sa.DOUBLE,
    "float": sa.FLOAT, "real": sa.FLOAT, "boolean": sa.BOOLEAN, "date": sa.DATE, "timestamp": sa.TIMESTAMP,
    "binary": sa.BINARY,
}  # fmt: skip


def spark_type(name: str) -> sqltypes.TypeEngine:
    """The SQLAlchemy type for a Spark type name (`decimal(10,2)`, `varchar(20)`, `array<int>`, ...)."""
    low = (name or "").strip().lower()
    if low in _SIMPLE:
        return _SIMPLE[low]()
    if m := re.fullmatch(r"decimal\((\d+),\s*(\d+)\)", low):
        return sa.DECIMAL(int(m[1]), int(m[2]))
    if m := re.fullmatch(r"(var)?char\((\d+)\)", low):
        return (sa.VARCHAR if m[1] else sa.CHAR)(int(m[2]))
    return SparkType(low or "unknown")


class SparkTypeCompiler(compiler.GenericTypeCompiler):
    def visit_STRING(self, type_, **kw):
        return "STRING"

    visit_string = visit_text = visit_TEXT = visit_VARCHAR = visit_NVARCHAR = visit_unicode = visit_STRING
    visit_unicode_text = visit_CLOB = visit_STRING

    def visit_TINYINT(self, type_, **kw):
        return "TINYINT"

    def visit_DATETIME(self, type_, **kw):
        return "TIMESTAMP"

    def visit_large_binary(self, type_, **kw):
        return "BINARY"


class SparkIdentifierPreparer(compiler.IdentifierPreparer):
    def __init__(self, dialect):
        super().__init__(dialect, initial_quote="`", escape_quote="`")


class SparkDialect(default.DefaultDialect):
    name = "spark"
    driver = "pyspark"
    paramstyle = "named"
    supports_statement_cache = True
    supports_native_boolean = True
    supports_native_decimal = True
    supports_sane_rowcount = False
    supports_sane_multi_rowcount = False
    supports_server_side_cursors = False  # the DB-API streams anyway
    supports_alter = False
    supports_comments = True
    inline_comments = True
    preparer = SparkIdentifierPreparer
    type_compiler_cls = SparkTypeCompiler
    default_paramstyle = "named"

    @classmethod
    def import_dbapi(cls):
        from wenshu.engines import spark_dbapi

        return spark_dbapi

    def create_connect_args(self, url: sa.URL):
        query = dict(url.query)
        if url.host:  # Spark Connect
            params = {k: v for k, v in query.items() if isinstance(v, str)}
            if url.username:
                params["user_id"] = url.username
            if url.password:
                params["token"] = url.password
            tail = "".join(f";{k}={v}" for k, v in params.items())
            remote = f"sc://{url.host}:{url.port or DEFAULT_CONNECT_PORT}/{tail}"
            return [], {"remote": remote, "database": url.database or None}
        if not url.database:
            raise sa.exc.ArgumentError("a spark:// URL needs a warehouse directory (spark:///path) or a host")
        return [], {"warehouse": "/" + url.database.lstrip("/"), "master": query.get("master"),
                    "driver_memory": query.get("driver_memory")}

    # --- connections without transactions ------------------------------------------------------

    def get_isolation_level_values(self, dbapi_connection):
        return ["AUTOCOMMIT"]

    def get_isolation_level(self, dbapi_connection):
        return "AUTOCOMMIT"

    def set_isolation_level(self, dbapi_connection, level):
        pass  # Spark has no transactions: every level reads the same

    def do_ping(self, dbapi_connection) -> bool:
        dbapi_connection.ping()
        return True

    def is_disconnect(self, e, connection, cursor) -> bool:
        return bool(getattr(e, "disconnected", False)) or "connection is closed" in str(e)

    def _get_server_version_info(self, connection):
        version = str(connection.exec_driver_sql("SELECT version()").scalar() or "")
        return tuple(int(p) for p in re.findall(r"\d+", version.split()[0] if version else "")[:3])

    def _get_default_schema_name(self, connection):
        return connection.exec_driver_sql("SELECT current_database()").scalar()

    # --- the catalog (through Spark's catalog API, so Spark Connect works the same) ---------------

    @staticmethod
    def _catalog(connection):
        return connection.connection.dbapi_connection.session.catalog

    @staticmethod
    def _name(table: str, schema: str | None) -> str:
        from wenshu.engines.spark_session import quote

        return f"{quote(schema)}.{quote(table)}" if schema else quote(table)

    def _tables(self, connection, schema):
        from wenshu.engines.spark_errors import convert

        try:
            return [t for t in self._catalog(connection).listTables(schema) if not t.isTemporary]
        except Exception as err:  # noqa: BLE001 - Spark's own errors, as DB-API errors
            raise convert(err) from err

    @reflection.cache
    def get_schema_names(self, connection, **kw):
        return [d.name for d in self._catalog(connection).listDatabases()]

    @reflection.cache
    def get_table_names(self, connection, schema=None, **kw):
        return sorted(t.name for t in self._tables(connection, schema) if t.tableType != "VIEW")

    @reflection.cache
    def get_view_names(self, connection, schema=None, **kw):
        return sorted(t.name for t in self._tables(connection, schema) if t.tableType == "VIEW")

    def has_table(self, connection, table_name, schema=None, **kw) -> bool:
        return bool(self._catalog(connection).tableExists(self._name(table_name, schema)))

    @reflection.cache
    def get_columns(self, connection, table_name, schema=None, **kw):
        try:
            columns = self._catalog(connection).listColumns(self._name(table_name, schema))
        except Exception as err:  # noqa: BLE001 - the table does not exist (or cannot be read)
            raise sa.exc.NoSuchTableError(table_name) from err
        return [{"name": c.name, "type": spark_type(c.dataType), "nullable": bool(c.nullable), "default": None,
                 "comment": c.description or None} for c in columns]

    @reflection.cache
    def get_table_comment(self, connection, table_name, schema=None, **kw):
        try:
            table = self._catalog(connection).getTable(self._name(table_name, schema))
        except Exception as err:  # noqa: BLE001
            raise sa.exc.NoSuchTableError(table_name) from err
        return {"text": table.description or None}

    def get_pk_constraint(self, connection, table_name, schema=None, **kw):
        return {"constrained_columns": [], "name": None}

    def get_foreign_keys(self, connection, table_name, schema=None, **kw):
        return []

    def get_indexes(self, connection, table_name, schema=None, **kw):
        return []

    def get_unique_constraints(self, connection, table_name, schema=None, **kw):
        return []

    def get_check_constraints(self, connection, table_name, schema=None, **kw):
        return []


_registered = False


def register() -> None:
    """Make `spark://` URLs known to SQLAlchemy in this process (once)."""
    global _registered
    if not _registered:
        registry.register("spark", "wenshu.engines.spark_dialect", "SparkDialect")
        _registered = True


register()
