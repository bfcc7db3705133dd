"""The SparkSessions behind `wenshu.engines.spark_dbapi`.

- The local session: one per process, started on first use - `local[2]`, bound to 127.0.0.1 (no
  network lookup), no UI, an in-memory catalog (no Derby `metastore_db`, nothing to lock or recover
  after a crash), its warehouse, scratch and log4j files in a private temp dir removed at exit, UI
  bookkeeping bounded, failed statements not logged (the DB-API raises them).
- A warehouse directory becomes one Spark database (`wenshu_<name>_<hash>`) whose tables are the
  sub-directories holding parquet files, registered as external tables and analyzed; they are synced
  with the directories whenever a connection opens.
- Every session is hardened (`harden`, `SAFE_SETTINGS`): variable substitution (`${env:...}` reads
  environment variables and JVM properties into the SQL), SQL on files (``csv.`/any/path` ``) and SQL
  scripting off.
"""

from __future__ import annotations

import atexit
import contextlib
import hashlib
import logging
import os
import re
import shutil
import tempfile
import threading
import warnings
from pathlib import Path

DEFAULT_MASTER = "local[2]"
DEFAULT_DRIVER_MEMORY = "1g"
NESTED_LOOP_PAIRS_PER_S = 5e7  # a cautious nested-loop speed of one Spark task (measured: 1e8 to 2e9)
_SCRIPT = re.compile(r"\bUSING\b(?:\s|/\*.*?\*/|--[^\n]*\n)*[rR]?['\"]", re.IGNORECASE | re.DOTALL)
SAFE_SETTINGS = {
    "spark.sql.variable.substitute": "false",
    "spark.sql.runSQLOnFiles": "false",
    "spark.sql.scripting.enabled": "false",
}

_LOG4J = (
    "rootLogger.level = error\nrootLogger.appenderRef.stderr.ref = stderr\n"
    "appender.console.type = Console\nappender.console.name = stderr\nappender.console.target = SYSTEM_ERR\n"
    "appender.console.layout.type = PatternLayout\nappender.console.layout.pattern = %d{HH:mm:ss} %p %c{1}: %m%n\n"
)

_lock = threading.RLock()
_local = None  # the process's local SparkSession


def _private_dir() -> Path:
    home = Path(tempfile.mkdtemp(prefix="wenshu-spark-"))
    (home / "log4j2.properties").write_text(_LOG4J)
    atexit.register(shutil.rmtree, home, True)
    return home


def _quiet(session) -> None:
    """Spark logs every failed statement at ERROR level; the DB-API raises it instead."""
    session.sparkContext.setLogLevel("ERROR")
    with contextlib.suppress(ImportError):
        from pyspark.logger import PySparkLogger

        for name in ("SQLQueryContextLogger", "DataFrameQueryContextLogger"):
            PySparkLogger.getLogger(name).setLevel(logging.CRITICAL)


def local_session(master: str | None = None, driver_memory: str | None = None, java_options: str = ""):
    """The process's local SparkSession, started on first use (the first caller's settings win).
    `java_options` go to the driver JVM (e.g. `-XX:TieredStopAtLevel=1` starts faster, runs slower)."""
    global _local
    with _lock:
        if _local is not None and getattr(_local.sparkContext, "_jsc", None) is not None:
            return _local
        os.environ.setdefault("SPARK_LOCAL_IP", "127.0.0.1")  # read by the JVM at start: no network lookup
        from pyspark.sql import SparkSession

        home = _private_dir()
        settings = {
            "spark.ui.enabled": "false", "spark.ui.showConsoleProgress": "false",
            "spark.driver.host": "127.0.0.1", "spark.driver.bindAddress": "127.0.0.1",
            "spark.driver.memory": driver_memory or DEFAULT_DRIVER_MEMORY,
            "spark.driver.extraJavaOptions": f"-Dlog4j2.configurationFile=file:{home / 'log4j2.properties'} {java_options}",
            "spark.sql.catalogImplementation": "in-memory",  # no Derby metastore_db, nothing to lock or recover
            "spark.sql.warehouse.dir": str(home / "warehouse"), "spark.local.dir": str(home / "scratch"),
            "spark.sql.shuffle.partitions": "4", "spark.default.parallelism": "2",
            "spark.sql.cbo.planStats.enabled": "true",  # plans carry the analyzed row counts
            # what Spark keeps of finished work for its (disabled) UI: bounded, so a long-lived process stays small
            "spark.ui.retainedJobs": "50", "spark.ui.retainedStages": "50", "spark.ui.retainedTasks": "2000",
            "spark.sql.ui.retainedExecutions": "20", "spark.ui.retainedDeadExecutors": "5",
        } | SAFE_SETTINGS  # fmt: skip
        builder = SparkSession.builder.master(master or DEFAULT_MASTER).appName("wenshu")
        for key, value in settings.items():
            builder = builder.config(key, value)
        with warnings.catch_warnings():  # pyspark imports its test helpers here, which warn about pandas 3
            warnings.filterwarnings("ignore", "PySpark does not yet fully support pandas", FutureWarning)
            _local = builder.getOrCreate()
        _quiet(_local)
        atexit.register(_stop_local)
        return _local


def _stop_local() -> None:
    with contextlib.suppress(Exception):
        if _local is not None:
            _local.stop()


def quote(name: str) -> str:
    return "`" + name.replace("`", "``") + "`"


def _literal(text: str) -> str:
    return "'" + text.replace("\\", "\\\\").replace("'", "\\'") + "'"


def _signature(folder: Path) -> tuple:
    """What changes when a table's files change (names, sizes and times of its data files)."""
    return tuple(sorted((str(f.relative_to(folder)), f.stat().st_size, f.stat().st_mtime_ns)
                        for f in folder.rglob("*") if f.is_file() and not f.name.startswith((".", "_"))))


_signatures: dict[str, tuple] = {}  # table folder -> its signature when last registered or analyzed


def warehouse_database(base, path: str) -> str:
    """Register the warehouse at `path` as a Spark database and sync its tables with the directories it
    holds: a new or changed directory is (re)registered and analyzed (`ANALYZE TABLE ... COMPUTE
    STATISTICS`: exact row counts for plan estimates), a vanished one dropped. Returns the database."""
    root = Path(path).resolve()
    if not root.is_dir():
        raise FileNotFoundError(f"the Spark warehouse directory {root} does not exist")
    slug = re.sub(r"[^a-z0-9]+", "_", root.name.lower()).strip("_")[:30] or "warehouse"
    db = f"wenshu_{slug}_{hashlib.sha1(str(root).encode()).hexdigest()[:8]}"
    with _lock:
        base.sql(f"CREATE DATABASE IF NOT EXISTS {quote(db)} LOCATION {_literal(str(root))}")
        known = {t.name.lower(): t for t in base.catalog.listTables(db) if not t.isTemporary}
        found = {p.name.lower(): p for p in root.iterdir() if p.is_dir() and not p.name.startswith(("_", "."))}
        for name, table in known.items():
            if name not in found and table.tableType == "EXTERNAL":
                base.sql(f"DROP TABLE IF EXISTS {quote(db)}.{quote(name)}")  # external: no data is deleted
        for name, folder in sorted(found.items()):
            full, signature = f"{quote(db)}.{quote(name)}", _signature(folder)
            if name in known and _signatures.get(str(folder)) == signature:
                continue
            with contextlib.suppress(Exception):  # a folder without parquet files is not a table
                if name in known:
                    base.catalog.refreshTable(full)
                else:
                    base.catalog.createTable(full, path=str(folder), source="parquet")
                base.sql(f"ANALYZE TABLE {full} COMPUTE STATISTICS")
                _signatures[str(folder)] = signature
    return db


def harden(session) -> None:
    """Switch off, in one session, what read-only credentials cannot restrict."""
    for key, value in SAFE_SETTINGS.items():
        session.conf.set(key, value)


def remote_session(remote: str, database: str | None):
    """A new, hardened Spark Connect session (needs `pip install "pyspark[connect]"`). pyspark then marks
    the process as a Spark Connect client: use either local warehouses or servers in one process."""
    from pyspark.sql import SparkSession

    session = SparkSession.builder.remote(remote).create()
    harden(session)
    if database:
        session.catalog.setCurrentDatabase(database)
    return session


def script_transform(session, sql: str, *, remote: bool) -> bool:
    """Whether `sql` holds `SELECT TRANSFORM (...) USING 'cmd'` (a shell command, whatever the
    credentials). A local session asks Spark's own parser; a Spark Connect client has none, so there
    any `USING` followed by a string literal counts (only script transforms and `USING JAR '...'` have
    one; a string ending in "using" does too)."""
    if remote:
        return _SCRIPT.search(sql) is not None
    plan = session._jsparkSession.sessionState().sqlParser().parsePlan(sql)
    return "ScriptTransformation" in str(plan.treeString())


def endless_loop(df, timeout_s: float) -> str | None:
    """Why a planned local statement cannot run within `timeout_s`, or None. Spark cannot stop a
    running nested loop (cross or non-equi join): a cancelled one keeps its task slot and a core until
    it ends, and two such wedge `local[2]`. So one pairing more rows than NESTED_LOOP_PAIRS_PER_S
    allows within the limit must not start."""
    from wenshu.engines.spark import plan_work

    run = df._jdf.queryExecution()
    if run.optimizedPlan().nodeName() == "CommandResult":
        return None  # a command (EXPLAIN, SHOW, ...) has run already; its plan text holds its result
    try:
        _, pairs = plan_work(str(run.stringWithStats()))
    except ValueError:
        return None
    if pairs > timeout_s * NESTED_LOOP_PAIRS_PER_S:
        return f"a nested loop of this statement pairs about {pairs:.2g} rows, more than can run within {timeout_s:g} s"
    return None
