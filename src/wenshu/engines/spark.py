"""Spark SQL, through Wenshu's own SQLAlchemy dialect over pyspark (`wenshu.engines.spark_dialect`):
a local session over a warehouse directory (``spark:///abs/path/warehouse``) or a Spark Connect server
(``spark://host:15002``).

Spark has no read-only session: `read_only_session` is False and a write statement that reaches
Spark runs (an `INSERT INTO` through `execute` writes its row, then is reported as "returned no
rows"). Only the guard's parser layers keep writes out, so connect with credentials that can only
read. What no credential can restrict is switched off in every session by the DB-API
(`wenshu.engines.spark_dbapi`): `${env:...}` substitution, SQL on files (``parquet.`/path` ``), SQL
scripting, and on a local session `TRANSFORM ... USING 'command'`.

Time limits: each statement runs in its own Spark job group (a tag on Spark Connect), cancelled by a
timer in the DB-API at the limit and by the adapter's `cancel` half a second later. Spark cannot stop a
nested loop once it runs (its task keeps a core and a task slot until it ends), so on a local session
the DB-API refuses, as a timeout and before it starts, a statement whose nested loop cannot finish
within the limit. Plan estimates come from `EXPLAIN COST` (`plan_work`), with exact row counts from
`ANALYZE TABLE`, which the local warehouse runs on every new or changed table.
"""

from __future__ import annotations

import math
import re

import sqlalchemy as sa

from wenshu.engines.adapter import COMMON_DENIED, EngineAdapter, PlanEstimate
from wenshu.engines.connections import readonly_connection, translate_error
from wenshu.engines.result import db_error
from wenshu.engines.spark_errors import QueryTimeout

BYTES_PER_VALUE = 4  # a compressed columnar value, for rows from sizeInBytes (see plan_rows)
DEFAULT_COLUMNS = 8
_DATE = "CAST({c} AS DATE)"
_STATS = re.compile(r"Statistics\(sizeInBytes=([0-9.]+(?:E[+-]?\d+)?) ?([KMGTPE]i)?B(?:, rowCount=([0-9.E+-]+))?")
_UNITS = {None: 1, "Ki": 2**10, "Mi": 2**20, "Gi": 2**30, "Ti": 2**40, "Pi": 2**50, "Ei": 2**60}
_CHILD = re.compile(r"^((?:   |:  )*)[+:]- ")
_ERROR = re.compile(r"^(?:[\w.$]+(?:Exception|Error): |Error occurred during query planning:)")
_EQUI = re.compile(r"#\d+L?\)? (?:=|<=>) \(?\w")


_NEGATED = re.compile(r"NOT \([^()]*\)")  # NOT (a = b) is a non-equi condition


class _Node:
    def __init__(self, depth: int, text: str):
        self.depth, self.text, self.children = depth, text, []

    def _stats(self):
        match = None
        for match in _STATS.finditer(self.text):
            pass  # the last statistics of the node's text are its own (a literal may hold others)
        return match

    def _leaf_rows(self, head: str) -> float:
        match = self._stats()
        if match is None:
            return float("inf")
        if match[3]:
            return max(float(match[3]), 1.0)
        columns = head.count("#") if "[" in head else DEFAULT_COLUMNS
        return max(float(match[1]) * _UNITS[match[2]] / (BYTES_PER_VALUE * max(columns, 1)), 1.0)

    def _own_rows(self) -> float | None:
        """The node's own row estimate, where Spark has one (a global aggregate: 1 row)."""
        match = self._stats()
        return max(float(match[3]), 1.0) if match is not None and match[3] else None

    def work(self) -> tuple[float, float, float]:
        """(rows out of this node, rows examined at the largest step below and here, the most row pairs
        one nested loop below pairs)."""
        head = self.text.split(", Statistics(")[0]
        if not self.children:
            rows = self._leaf_rows(head)
            return rows, rows, 0.0
        kids = [c.work() for c in self.children]
        outs, worst, loops = [k[0] for k in kids], max(k[1] for k in kids), max(k[2] for k in kids)
        own = self._own_rows()
        if head.startswith("Join ") and len(outs) > 1:
            condition = _NEGATED.sub("", head.split(",", 1)[1] if "," in head else "")
            if _EQUI.search(condition) and " OR " not in condition:
                read = sum(outs)  # a hash or sort-merge join reads each side once
                return own or read, max(worst, read), loops
            product = math.prod(outs)  # a nested loop: every pair
            return own or product, max(worst, product), max(loops, product)
        out = sum(outs) if head.startswith(("Union", "Intersect", "Except")) else max(outs)
        return own or out, max(worst, out), loops


def plan_work(text: str) -> tuple[float, float]:
    """(rows examined at the largest step, row pairs of the largest nested loop) of the optimized logical
    plan in `EXPLAIN COST` text (`QueryExecution.stringWithStats`).

    A table's rows are its `rowCount`: the local warehouse runs `ANALYZE TABLE ... COMPUTE STATISTICS`
    on every new or changed table and plans with `spark.sql.cbo.planStats.enabled`. Without a row count
    (a Spark Connect table nobody analyzed) Spark knows only the bytes on disk, and rows are that size
    divided by an estimated row width: BYTES_PER_VALUE (4 bytes, a compressed parquet value) times the
    column count (the 2,000-row shop `orders`, 5 columns in 27 KiB, comes out near 1,400 rows) - data
    that compresses very well is underestimated. Spark's own sizes above the tables are not used: a
    join's size is the product of its inputs' sizes whatever its condition. Above the tables: a join
    on an equality reads both sides (their sum), any other join (cross, non-equi, OR) every pair (their
    product), counting what each input puts out: Spark's own row estimate of a node where it has one (a
    global aggregate puts out 1 row), else its largest input; union-like nodes the sum. A table without statistics at
    all (8 EiB, Spark's default size) counts as huge, so it is refused until it is analyzed."""
    first = text.strip().splitlines()[0] if text.strip() else "no plan"
    section = text.split("== Optimized Logical Plan ==", 1)[-1].split("\n== ", 1)[0]
    if "== Optimized Logical Plan ==" not in text or _ERROR.match(first) or not _STATS.search(section):
        raise ValueError(_ERROR.sub("", first))  # Spark answers EXPLAIN of a bad statement with its error
    nodes: list[_Node] = []
    stack: list[_Node] = []
    for line in section.strip("\n").splitlines():
        child = _CHILD.match(line)
        if nodes and not child:  # a line break inside a node's text (a string literal)
            nodes[-1].text += "\n" + line
            continue
        node = _Node(len(child[1]) // 3 + 1 if child else 0, line[child.end():] if child else line)
        while stack and stack[-1].depth >= node.depth:
            stack.pop()
        if stack:
            stack[-1].children.append(node)
        stack.append(node)
        nodes.append(node)
    _, worst, loops = nodes[0].work()
    return worst, loops


def plan_rows(text: str) -> float:
    """The rows the plan examines at its largest step (`plan_work`)."""
    return plan_work(text)[0]


class SparkAdapter(EngineAdapter):
    name = "spark"
    label = "Spark SQL"
    backends = ("spark",)
    dialect = "spark"
    packages = ("pyspark",)
    read_only_session = False  # Spark has none: the guard's parser layers are what protect it
    identifiers = "insensitive"  # spark.sql.caseSensitive is off by default
    files_in_from = True  # FROM parquet.`/path` (switched off in every session by the DB-API as well)
    metadata_columns = frozenset({"_metadata"})  # the files behind a table: paths, sizes, times
    denied_functions = COMMON_DENIED | {
        "reflect", "java_method", "try_reflect",  # call any static Java method
        "identifier",  # IDENTIFIER('name'): a table or function named by a string, past the name checks
        "read_files", "read_kafka", "read_statestore", "read_state_metadata",  # table functions reading paths
        "from_protobuf", "to_protobuf",  # read a descriptor file named by a path
        "python_worker_logs",  # the Python workers' logs
    }  # fmt: skip
    system_schemas = frozenset({"information_schema", "global_temp", "system"})
    buckets = {
        "day": f"date_format({_DATE}, 'yyyy-MM-dd')",
        "week": f"date_format(date_sub({_DATE}, weekday({_DATE})), 'yyyy-MM-dd')",  # the week's Monday (weekday(): Monday 0)
        "month": f"date_format({_DATE}, 'yyyy-MM')",
        "quarter": f"concat(date_format({_DATE}, 'yyyy'), '-Q', CAST(quarter({_DATE}) AS STRING))",
        "year": f"date_format({_DATE}, 'yyyy')",
    }  # fmt: skip
    weekday = f"CAST(weekday({_DATE}) + 1 AS STRING)"  # weekday(): Monday 0
    hour = "date_format(CAST({c} AS TIMESTAMP), 'HH')"

    def prepare_session(self, conn: sa.Connection, timeout_s: float) -> None:
        conn.connection.driver_connection.timeout_s = timeout_s

    def cancel(self, engine: sa.Engine, conn: sa.Connection) -> None:
        conn.connection.driver_connection.cancel()

    def is_timeout(self, err: BaseException) -> bool:
        return isinstance(err, QueryTimeout) or "statement timeout" in str(err)

    def estimate(self, url: str, sql: str, timeout_s: float) -> PlanEstimate:
        """`EXPLAIN COST` (it never runs the statement), read by `plan_rows`."""

        with readonly_connection(self, url, timeout_s) as (conn, fired):
            try:
                text = conn.exec_driver_sql("EXPLAIN COST " + sql, execution_options={"no_parameters": True}).scalar()
            except sa.exc.SQLAlchemyError as err:
                raise translate_error(self, err, fired, timeout_s, sql) from err
        try:
            return PlanEstimate(rows=plan_rows(str(text or "")))
        except ValueError as err:
            raise db_error(" ".join(str(err).split())) from err

    def bounded_scalar(self, conn: sa.Connection, query, seconds: float):
        raw = conn.connection.driver_connection
        before, raw.timeout_s = raw.timeout_s, seconds
        try:
            return conn.execute(query).scalar()
        except sa.exc.DBAPIError as exc:
            if self.is_timeout(exc.orig):
                return None
            raise
        finally:
            raw.timeout_s = before

    def row_estimate(self, conn: sa.Connection, table: str) -> int | None:
        """The row count of `ANALYZE TABLE ... COMPUTE STATISTICS`, when it ran."""
        from wenshu.engines.spark_session import quote

        for name, value, *_ in conn.exec_driver_sql(f"DESCRIBE TABLE EXTENDED {quote(table)}",
                                                    execution_options={"no_parameters": True}):
            if name == "Statistics" and (m := re.search(r"(\d+) rows", str(value))):
                return int(m[1])
        return None

    def as_text(self, sql: str) -> str:
        return f"CAST({sql} AS STRING)"
