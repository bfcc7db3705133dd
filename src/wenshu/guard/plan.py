"""The query plan check (part of layer 3): ask the engine for its plan and refuse statements whose
estimated work is above configurable limits, before they run.

- SQLite: `EXPLAIN QUERY PLAN`; full scans (`SCAN t`) nested in one loop multiply their tables' row
  counts (from `sqlite_stat1`, else a bounded COUNT, cached per data version); a correlated
  subquery multiplies by its outer loop. Index lookups (`SEARCH`) count as one row.
- PostgreSQL: `EXPLAIN (FORMAT JSON)`: the top-level Total Cost and the largest Plan Rows of any node.
- MySQL/MariaDB: `EXPLAIN`: the product of `rows` over the tables of each SELECT (a dependent
  subquery multiplied by its outer SELECT).

The EXPLAIN runs through the same read-only session (layer 4) with the time limit. An engine we
cannot ask (or a driver that cannot force a single statement) yields None; an EXPLAIN that fails or
times out raises a WenshuError (SQLExecutionError / SQLTimeout / DatasourceUnreachable), which the
guard turns into a refusal: no plan means no proof that the query is cheap.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from dataclasses import dataclass

import sqlalchemy as sa
import sqlglot
from sqlglot import exp
from sqlalchemy.engine import make_url

from wenshu.engines.connections import readonly_connection, translate_error
from wenshu.engines.execute import Deadline, data_version, open_sqlite, sqlite_error, sqlite_path
from wenshu.engines.result import db_error

_HINT = (
    "Add WHERE filters (on indexed columns where possible), aggregate with GROUP BY, join tables on "
    "their keys, and avoid cross joins of large tables with themselves."
)
COUNT_CAP = 50_000_000  # a bounded COUNT stops here; bigger tables are "at least this big"
_SCAN = re.compile(r"^SCAN (\S+)")


@dataclass(frozen=True)
class PlanLimits:
    max_cost: float = 1e7  # PostgreSQL total cost
    max_rows: float = 1e8  # rows the plan estimates to examine (PostgreSQL, MySQL, MariaDB)
    sqlite_max_scan_rows: float = 1e9  # product of nested full-scan sizes (SQLite)

    @classmethod
    def from_settings(cls, settings) -> PlanLimits:
        return cls(settings.plan_max_cost, settings.plan_max_rows, settings.plan_sqlite_max_scan_rows)


@dataclass(frozen=True)
class PlanProblem:
    code: str
    reason: str
    hint: str


def _big(n: float) -> str:
    return f"{n:,.0f}" if n < 1e15 else f"{n:.2e}"


def _too_many_rows(rows: float, limit: float, where: str) -> PlanProblem:
    return PlanProblem(
        "sql_plan_too_many_rows",
        f"The query plan estimates about {_big(rows)} rows examined{where}, above the limit of {_big(limit)}.",
        _HINT,
    )


def check_plan(url: str, sql: str, limits: PlanLimits | None = None, timeout_s: float = 5.0) -> PlanProblem | None:
    """A PlanProblem when the engine's estimate for `sql` is above `limits`; None when it is within
    them or the engine cannot be asked. Raises a WenshuError when the EXPLAIN fails."""
    limits = limits or PlanLimits()  # the settings' defaults; Guard.from_settings passes the configured ones
    try:
        backend = make_url(url).get_backend_name()
    except sa.exc.ArgumentError:
        return None
    try:
        if backend == "sqlite":
            return _check_sqlite(url, sql, limits, timeout_s)
        if backend == "postgresql":
            return _check_postgres(url, sql, limits, timeout_s)
        if backend in ("mysql", "mariadb"):
            return _check_mysql(url, sql, limits, timeout_s)
    except (sqlite3.Error, sqlite3.Warning) as err:
        raise db_error(str(err)) from err
    except sa.exc.SQLAlchemyError as err:
        raise translate_error(err, [], timeout_s, sql) from err
    return None


# --- SQLite --------------------------------------------------------------------------------------

_counts: dict[tuple[str, str], dict[str, float]] = {}
_counts_lock = threading.Lock()


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


def _worst_scan(plan: list[tuple], factor) -> float:
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


def _check_sqlite(url: str, sql: str, limits: PlanLimits, timeout_s: float) -> PlanProblem | None:
    path = sqlite_path(url) or ""
    key = (path, data_version(url))
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
        worst = _worst_scan(plan, lambda name: _table_rows(conn, aliases.get(name.lower(), name.lower()), cache))
    except (sqlite3.Error, sqlite3.Warning) as err:
        raise sqlite_error(err, deadline) from err
    finally:
        conn.close()
    if worst > limits.sqlite_max_scan_rows:
        return PlanProblem(
            "sql_plan_too_costly",
            f"The query plan scans about {_big(worst)} row combinations (nested full scans), above the limit of "
            f"{_big(limits.sqlite_max_scan_rows)}.",
            _HINT,
        )
    return None


# --- PostgreSQL ----------------------------------------------------------------------------------


def _pg_explain(conn: sa.Connection, sql: str, timeout_s: float):
    """EXPLAIN (FORMAT JSON) over the extended protocol, so a stacked statement cannot ride along."""
    raw = conn.connection.driver_connection
    if type(raw).__module__.split(".", 1)[0] != "psycopg":
        return None  # only psycopg 3 can force the single-statement protocol here
    try:
        with raw.cursor() as cur:
            cur.execute("EXPLAIN (FORMAT JSON) " + sql, binary=True)
            return cur.fetchone()[0]
    except Exception as err:  # noqa: BLE001 - psycopg's errors: a timeout, a refusal or a database error
        raise translate_error(err, [], timeout_s, sql) from err


def _max_plan_rows(node: dict) -> float:
    rows = float(node.get("Plan Rows") or 0)
    return max([rows] + [_max_plan_rows(child) for child in node.get("Plans", [])])


def _check_postgres(url: str, sql: str, limits: PlanLimits, timeout_s: float) -> PlanProblem | None:
    with readonly_connection(url, timeout_s) as (conn, _):
        doc = _pg_explain(conn, sql, timeout_s)
    if not doc:
        return None
    top = doc[0]["Plan"]
    cost = float(top.get("Total Cost") or 0)
    if cost > limits.max_cost:
        return PlanProblem(
            "sql_plan_too_costly",
            f"The query plan's estimated cost is {_big(cost)}, above the limit of {_big(limits.max_cost)}.",
            _HINT,
        )
    rows = _max_plan_rows(top)
    return _too_many_rows(rows, limits.max_rows, "") if rows > limits.max_rows else None


# --- MySQL / MariaDB -----------------------------------------------------------------------------


def _check_mysql(url: str, sql: str, limits: PlanLimits, timeout_s: float) -> PlanProblem | None:
    with readonly_connection(url, timeout_s) as (conn, _):
        result = conn.exec_driver_sql("EXPLAIN " + sql, execution_options={"no_parameters": True})
        rows = [dict(r._mapping) for r in result]
    groups: dict[object, float] = {}
    dependent: set = set()
    for row in rows:
        key = row.get("id")
        groups[key] = groups.get(key, 1.0) * max(float(row.get("rows") or 1), 1.0)
        if "DEPENDENT" in str(row.get("select_type") or "").upper():
            dependent.add(key)
    if not groups:
        return None
    outer = groups.get(min((k for k in groups if k is not None), default=None), 1.0)
    worst = max(v * outer if k in dependent else v for k, v in groups.items())
    if math.isfinite(worst) and worst <= limits.max_rows:
        return None
    return _too_many_rows(worst, limits.max_rows, " (the product of the rows EXPLAIN reports per table)")
