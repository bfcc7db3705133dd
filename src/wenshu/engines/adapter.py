"""The engine adapter: everything one SQL engine does differently, in one object.

The guard, the catalog sync, value sampling, generation, the semantic compiler and execution ask the
adapter; none of them branches on an engine's name. An adapter states:

- who it is: its name, the SQLAlchemy backends it serves, its sqlglot dialect, the pip packages of
  its driver, and whether the engine enforces a read-only session itself;
- what the guard refuses on it: denied functions, system schemas and prefixes, hidden columns,
  executable comments, files named in FROM, how identifiers compare;
- how to reach it safely: the engine and session settings (read-only, time limits), cancelling a
  statement, running one bounded query (`execute`), a plan estimate (`estimate`), a scalar under a
  time limit for sampling (`bounded_scalar`), cheap row estimates;
- the SQL it speaks for the semantic layer and the time hints: period buckets, rounding, text casts
  and date literals.

Built-in adapters register through the `wenshu.engines` entry point group, like a plugin would
(`wenshu.engines.registry`). `tests/test_engine_conformance.py` is the suite every adapter must pass.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass
from datetime import date
from typing import ClassVar

import sqlalchemy as sa

from wenshu.catalog import TableInfo
from wenshu.engines.connections import execute_sqlalchemy
from wenshu.engines.result import ExecResult
from wenshu.errors import InputError

COMMON_DENIED = frozenset({
    "load_extension", "load_file", "pg_read_file", "pg_sleep", "sleep", "benchmark", "dblink",
    "sys_exec", "sys_eval", "lo_import", "lo_export", "readfile", "writefile",
})  # fmt: skip
CONNECT_TIMEOUT_S = 10
SAMPLE_PREFIX = 256  # characters of a text value read when sampling


class DriverMissing(InputError):
    """The engine's Python driver is not installed."""

    code = "driver_missing"

    def __init__(self, label: str, packages: tuple[str, ...]):
        names = " ".join(packages)
        super().__init__(
            f"The {label} driver is not installed; install it with: pip install {names}",
            f"未安装 {label} 的驱动，请先安装：pip install {names}",
        )


@dataclass(frozen=True)
class PlanEstimate:
    """What the engine's plan says a statement will do, before it runs.

    rows: the most rows any step examines (for `nested`: the product of nested full scans);
    cost: the engine's own cost units, where it reports them (PostgreSQL); None elsewhere."""

    rows: float
    cost: float | None = None
    nested: bool = False


class EngineAdapter:
    """The base every engine adapter extends; the defaults fit an engine reached through SQLAlchemy."""

    name: ClassVar[str] = ""
    label: ClassVar[str] = ""
    backends: ClassVar[tuple[str, ...]] = ()  # SQLAlchemy backend names (URL scheme before '+')
    dialect: ClassVar[str] = ""  # sqlglot dialect
    packages: ClassVar[tuple[str, ...]] = ()  # pip packages of the default driver
    drivers: ClassVar[dict[str, tuple[str, ...]]] = {}  # SQLAlchemy driver name (postgresql+NAME) -> pip packages
    connect_timeout_drivers: ClassVar[frozenset[str]] = frozenset()  # drivers taking `connect_timeout`
    read_only_session: ClassVar[bool] = True  # False: only the guard's layers protect this engine
    # The guard's vocabulary for this engine.
    denied_functions: ClassVar[frozenset[str]] = frozenset()
    system_schemas: ClassVar[frozenset[str]] = frozenset()  # refused on every engine (a union)
    system_schema_prefixes: ClassVar[tuple[str, ...]] = ()
    own_schemas: ClassVar[frozenset[str]] = frozenset()  # qualifiers naming the datasource itself (public, main)
    metadata_columns: ClassVar[frozenset[str]] = frozenset()  # engine columns outside the data (Spark _metadata)
    system_table_prefixes: ClassVar[tuple[str, ...]] = ()
    system_function_prefixes: ClassVar[tuple[str, ...]] = ()
    hidden_columns: ClassVar[frozenset[str]] = frozenset()
    executable_comments: ClassVar[bool] = False  # MySQL/MariaDB run `/*! ... */`
    files_in_from: ClassVar[bool] = False  # DuckDB reads `FROM 'data.csv'`
    identifiers: ClassVar[str] = "insensitive"  # "insensitive" | "fold_lower" (PostgreSQL) | "exact"
    quoted_names_are_strings: ClassVar[bool] = False  # SQLite reads an unknown "name" as a string
    # The SQL it speaks: period labels (day, week, month, quarter, year) over a column `{c}`.
    buckets: ClassVar[dict[str, str]] = {}
    # the ISO day of the week of a date `{c}` as text, "1" Monday .. "7" Sunday (date parts: weekend or weekday)
    weekday: ClassVar[str | None] = None
    # the hour of the day of a time or timestamp `{c}` (stored as text or typed) as two-digit text, "00" .. "23"
    hour: ClassVar[str | None] = None
    union_distinct: ClassVar[str] = "UNION"  # ClickHouse wants UNION DISTINCT spelled out
    # whether a subquery may refer to the outer query's row (EXISTS (… WHERE inner.key = outer.key)); else
    # members are kept by IN over an uncorrelated subquery
    correlated_subqueries: ClassVar[bool] = True
    now_dates: ClassVar[bool] = False  # time hints as SQLite's date('now', ...) (else today's date literals)

    # --- the driver -----------------------------------------------------------------------------

    def check_driver(self, url: str) -> None:
        """Raise DriverMissing, naming the packages to install, when the URL's SQLAlchemy dialect or its
        driver cannot be imported."""
        u = sa.make_url(url)
        try:
            u.get_dialect().import_dbapi()
        except (ImportError, sa.exc.NoSuchModuleError) as err:
            driver = u.get_driver_name() if "+" in u.drivername else ""
            raise DriverMissing(self.label, self.drivers.get(driver) or self.packages) from err

    def engine_options(self, url: sa.URL) -> dict:
        """Keyword arguments for `sqlalchemy.create_engine` (connect timeouts, read-only opening)."""
        if url.get_driver_name() in self.connect_timeout_drivers:
            return {"connect_args": {"connect_timeout": CONNECT_TIMEOUT_S}}
        return {}

    def on_engine(self, engine: sa.Engine) -> None:
        """Hook run once on a new engine (event listeners)."""

    def catalog_engine(self, name: str, url: str) -> sa.Engine:
        """An engine for reading the datasource's structure and samples during a catalog sync."""
        self.check_driver(url)
        return sa.create_engine(url, **({"pool_pre_ping": True} | self.engine_options(sa.make_url(url))))

    # --- a read-only session ------------------------------------------------------------------

    def prepare_session(self, conn: sa.Connection, timeout_s: float) -> None:
        """Session settings that must precede the transaction (read-only, time limit)."""

    def prepare_transaction(self, conn: sa.Connection, timeout_s: float) -> None:
        """Settings inside the transaction the statement runs in."""

    def cancel(self, engine: sa.Engine, conn: sa.Connection) -> None:
        """Stop the statement running on `conn` (called from a timer thread; best effort)."""
        raw = getattr(conn.connection, "driver_connection", None)
        for method in ("interrupt", "cancel"):
            fn = getattr(raw, method, None)
            if callable(fn):
                fn()
                return

    def is_timeout(self, err: BaseException) -> bool:
        """Whether a driver error means the statement ran out of time."""
        return False

    def after_truncation(self, result, conn: sa.Connection) -> None:
        """Drop a result that was not read to its end (MySQL streams the rest unless the connection goes)."""

    def stream_results(self, conn: sa.Connection) -> bool:
        return bool(conn.dialect.supports_server_side_cursors)

    # --- running --------------------------------------------------------------------------------

    def execute(self, url: str, sql: str, *, row_limit: int, timeout_s: float, max_bytes: int) -> ExecResult:
        """Run one read statement; at most `row_limit` rows and about `max_bytes` of values."""
        return execute_sqlalchemy(self, url, sql, row_limit=row_limit, timeout_s=timeout_s, max_bytes=max_bytes)

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate | None:
        """The engine's plan estimate for `sql`, run read-only under the time limit. An adapter that
        cannot estimate returns None, and the conformance suite fails it."""
        return None

    def data_version(self, url: str) -> str | None:
        """A token that changes when the data may have changed; None when the engine cannot tell."""
        return None

    # --- sampling during a catalog sync ------------------------------------------------------

    def catalog_connection(self, engine: sa.Engine) -> sa.Connection:
        """A connection for a catalog sync on which one failed probe does not abort the next."""
        return engine.connect().execution_options(isolation_level="AUTOCOMMIT")

    def after_failed_probe(self, conn: sa.Connection) -> None:
        """Make the connection usable again after a probe failed (engines without autocommit)."""

    def read_tables(self, conn: sa.Connection) -> list[TableInfo] | None:
        """Every table and view of the default schema with columns, types, comments and declared keys,
        from the engine's own catalog; None to read them through SQLAlchemy's inspector."""
        return None

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        """Run a scalar query with an engine-side time limit; None when it ran out of time. Any other
        error is raised to the caller. The default has no limit, and the conformance suite fails it."""
        raise NotImplementedError(f"the {self.label} adapter has no time limit for sampling")

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        """The engine's own row statistics for a table, when it keeps them."""
        return None

    def sample_value(self, column):
        """The expression sampled for a text column (cut to a prefix, so huge values stay cheap)."""
        return sa.func.substr(column, 1, SAMPLE_PREFIX)

    def lenient_text(self, conn: sa.Connection):
        """A context in which one undecodable stored value cannot abort a sampling query."""
        return contextlib.nullcontext()

    # --- SQL text ---------------------------------------------------------------------------------

    def bucket(self, grain: str, column_sql: str) -> str:
        if grain not in self.buckets:
            raise KeyError(f"no {grain} buckets for {self.label}")
        return self.buckets[grain].format(c=column_sql)

    def date_part(self, part: str, column_sql: str) -> str:
        """A part of a date as text codes: the ISO day of the week, "1" for a weekend day and "0" else, or the hour
        of the day ("00" .. "23")."""
        if part == "hour_of_day" and self.hour is not None:
            return self.hour.format(c=column_sql)
        if self.weekday is None or part not in ("day_of_week", "day_type"):
            raise KeyError(f"no {part} for {self.label}")
        day = self.weekday.format(c=column_sql)
        return day if part == "day_of_week" else f"CASE WHEN {day} IN ('6', '7') THEN '1' ELSE '0' END"

    def round2(self, sql: str) -> str:
        return f"ROUND({sql}, 2)"

    def as_text(self, sql: str) -> str:
        return f"CAST({sql} AS VARCHAR)"

    def date_literal(self, day: date) -> str:
        return f"DATE '{day.isoformat()}'"

    def names_match(self, written: str, real: str, *, quoted: bool) -> bool:
        """Whether an identifier as written names the catalog object `real`."""
        if self.identifiers == "exact":
            return written == real
        if self.identifiers == "fold_lower":
            return written == real if quoted else written.lower() == real.lower()
        return written.lower() == real.lower()
