"""SQLite: files opened read-only by the standard library (`sqlite_files`), the plan check from
`EXPLAIN QUERY PLAN`, the file's own version for caches, `sqlite_stat1` for row counts.

The plan check: full scans (`SCAN t`) nested in one loop multiply their tables' row counts (from
`sqlite_stat1`, else a bounded COUNT, cached per data version); a correlated subquery multiplies by
its outer loop. Index lookups (`SEARCH`) count as one row.
"""

from __future__ import annotations

import contextlib
import re
import sqlite3
import threading
import time
from datetime import date
from pathlib import Path

import sqlalchemy as sa
import sqlglot
from sqlglot import exp
from sqlalchemy.engine import make_url

from wenshu.engines.adapter import COMMON_DENIED, EngineAdapter, PlanEstimate
from wenshu.engines.result import ExecResult, db_error
from wenshu.errors import DatasourceUnreachable
from wenshu.engines.sqlite_files import Deadline, execute_file, file_version, open_sqlite, sqlite_error

COUNT_CAP = 50_000_000  # a bounded COUNT stops here; bigger tables are "at least this big"
_SCAN = re.compile(r"^SCAN (\S+)")
_counts: dict[tuple[str, str], dict[str, float]] = {}
_counts_lock = threading.Lock()


def sqlite_path(url: str) -> str | None:
    """The file path of a SQLite URL, or None when the URL is not SQLite."""
    u = make_url(url)
    return (u.database or "") if u.get_backend_name() == "sqlite" else None


def _aliases(sql: str) -> dict[str, str]:
    """alias (or name) -> table name, lower-cased, for every table the statement reads."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except Exception:  # noqa: BLE001 - unparseable: plan names are then used as they are
        return {}
    return {t.alias_or_name.lower(): t.name.lower() for t in tree.find_all(exp.Table) if t.name}


def _table_rows(conn: sqlite3.Connection, table: str, cache: dict[str, float]) -> float:
    if table in cache:
        return cache[table]
    exists = conn.execute("SELECT 1 FROM sqlite_master WHERE type = 'table' AND lower(name) = ?", (table,)).fetchone()
    if not exists:
        cache[table] = 1.0  # a CTE or subquery: its size is not a table's
        return 1.0
    quoted = '"' + table.replace('"', '""') + '"'
    n = conn.execute(f"SELECT COUNT(*) FROM (SELECT 1 FROM {quoted} LIMIT {COUNT_CAP})").fetchone()[0]
    cache[table] = float(max(n, 1))
    return cache[table]


def _stat_rows(conn: sqlite3.Connection) -> dict[str, float]:
    try:
        rows = conn.execute("SELECT tbl, stat FROM sqlite_stat1").fetchall()
    except sqlite3.Error:
        return {}
    out: dict[str, float] = {}
    for tbl, stat in rows:
        first = (stat or "").split(" ", 1)[0]
        if first.isdigit():
            out[tbl.lower()] = max(out.get(tbl.lower(), 1.0), float(first))
    return out


def worst_scan(plan: list[tuple], factor) -> float:
    """The largest product of nested loop sizes in an EXPLAIN QUERY PLAN tree."""
    children: dict[int, list[tuple[int, str]]] = {}
    for node_id, parent, _, detail in plan:
        children.setdefault(parent, []).append((node_id, detail))

    def walk(parent: int, outer: float) -> float:
        loop, worst, nested = outer, 0.0, []
        for node_id, detail in children.get(parent, []):
            m = _SCAN.match(detail)
            if m and detail != "SCAN CONSTANT ROW":
                loop *= factor(m.group(1))
            nested.append((node_id, detail))
        for node_id, detail in nested:
            inner_outer = loop if detail.startswith("CORRELATED") else outer
            worst = max(worst, walk(node_id, inner_outer))
        return max(loop, worst)

    return walk(0, 1.0)


class SQLiteAdapter(EngineAdapter):
    name = "sqlite"
    label = "SQLite"
    backends = ("sqlite",)
    dialect = "sqlite"
    denied_functions = COMMON_DENIED | {
        "edit", "fts3_tokenizer", "zipfile", "zipfile_cds", "fsdir", "sqlar_compress", "sqlar_uncompress",
        "shell", "system",
    }  # fmt: skip
    system_table_prefixes = ("sqlite_", "pragma_")
    system_function_prefixes = ("pragma_",)
    hidden_columns = frozenset({"rowid", "oid", "_rowid_"})
    quoted_names_are_strings = True
    now_dates = True
    own_schemas = frozenset({"main"})
    buckets = {
        "day": "date({c})",
        "week": "date({c}, 'weekday 0', '-6 days')",  # the week's Monday
        "month": "strftime('%Y-%m', {c})",
        "quarter": "strftime('%Y', {c}) || '-Q' || ((CAST(strftime('%m', {c}) AS INTEGER) + 2) / 3)",
        "year": "strftime('%Y', {c})",
    }
    weekday = "CAST((CAST(strftime('%w', {c}) AS INTEGER) + 6) % 7 + 1 AS TEXT)"  # %w: Sunday 0
    hour = "strftime('%H', {c})"

    def execute(self, url: str, sql: str, *, row_limit: int, timeout_s: float, max_bytes: int) -> ExecResult:
        return execute_file(sqlite_path(url) or "", sql, row_limit=row_limit, timeout_s=timeout_s, max_bytes=max_bytes)

    def catalog_engine(self, name: str, url: str) -> sa.Engine:
        """The file opened read-only (never created): a missing file is a clear error."""
        path = sqlite_path(url)
        if not path or path == ":memory:":
            return sa.create_engine(url)
        resolved = Path(path).expanduser().resolve()
        if not resolved.is_file():
            raise DatasourceUnreachable(name, f"the SQLite file {resolved} does not exist")
        uri = f"{resolved.as_uri()}?mode=ro"
        return sa.create_engine("sqlite://", creator=lambda: sqlite3.connect(uri, uri=True, check_same_thread=False))

    def data_version(self, url: str) -> str | None:
        path = sqlite_path(url)
        return None if not path or path == ":memory:" else file_version(path)

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate:
        path = sqlite_path(url) or ""
        key = (path, file_version(path))
        conn = open_sqlite(path)
        deadline = Deadline(timeout_s)
        try:
            conn.set_progress_handler(deadline, 2000)
            plan = conn.execute("EXPLAIN QUERY PLAN " + sql).fetchall()
            aliases = _aliases(sql)
            with _counts_lock:
                if key not in _counts and len(_counts) >= 64:
                    _counts.clear()  # old data versions
                cache = _counts.setdefault(key, _stat_rows(conn))
            worst = worst_scan(plan, lambda name: _table_rows(conn, aliases.get(name.lower(), name.lower()), cache))
        except sqlite3.Warning as err:
            raise db_error(str(err)) from err
        except sqlite3.Error as err:
            raise sqlite_error(err, deadline) from err
        finally:
            conn.close()
        return PlanEstimate(rows=worst, nested=True)

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        raw = conn.connection.driver_connection
        deadline = time.monotonic() + seconds
        raw.set_progress_handler(lambda: int(time.monotonic() > deadline), 10_000)
        try:
            return conn.execute(query).scalar()
        except sa.exc.OperationalError as exc:
            if "interrupted" in str(exc.orig):
                return None
            raise
        finally:
            raw.set_progress_handler(None, 0)

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        try:
            value = conn.execute(sa.text("SELECT stat FROM sqlite_stat1 WHERE tbl = :t LIMIT 1"), {"t": table}).scalar()
        except sa.exc.OperationalError:
            return None  # no sqlite_stat1 before the first ANALYZE
        return None if value is None else int(str(value).split()[0])

    @contextlib.contextmanager
    def lenient_text(self, conn: sa.Connection):
        """Decode stored text leniently, so one invalid UTF-8 value cannot abort a query."""
        raw = conn.connection.driver_connection
        old = raw.text_factory
        raw.text_factory = lambda b: b.decode("utf-8", "surrogateescape")
        try:
            yield
        finally:
            raw.text_factory = old

    def date_literal(self, day: date) -> str:
        return f"'{day.isoformat()}'"
