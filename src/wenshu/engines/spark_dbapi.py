"""A small PEP 249 (DB-API 2.0) module over a SparkSession, for the `spark` SQLAlchemy dialect.

Two kinds of connection (`wenshu.engines.spark_session` holds the sessions):

- local: a `newSession()` of the process's one local SparkSession (own settings and current database,
  shared catalog), over a *warehouse directory* whose parquet sub-directories are its tables;
- remote: a Spark Connect session (`sc://host:15002`), one per DB-API connection.

Spark has no transactions and no read-only mode: a write statement runs (commit does nothing). Every
session is hardened with settings read-only credentials cannot give: `${env:...}` variable
substitution off (it reads environment variables and JVM properties into the SQL text), SQL on files
off (``SELECT * FROM csv.`/any/path` ``), SQL scripting off - restored, with the session's database,
on every `rollback` (the pool's reset), so a `SET` or `USE` that got through does not outlive its
checkout. `SELECT TRANSFORM (...) USING 'command'` (it runs a shell command) is refused before Spark
runs anything: by Spark's own parser on a local session, by a stricter text check on Spark Connect.

Time limits: a statement runs in its own Spark job group (local) or operation tag (Spark Connect); a
timer cancels it once `Connection.timeout_s` has passed since `execute` (execution and fetching
together) and the call raises `QueryTimeout`. `Connection.cancel()` stops whatever runs, from any thread.
Spark stops a cancelled task only at its next check between input rows, which a nested loop (cross or
non-equi join) does not reach for as long as it pairs rows: on a local session a statement whose
planned nested loop cannot finish within its limit raises `QueryTimeout` before it starts. Rows stream
through `toLocalIterator`, one partition at a time.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import uuid

from wenshu.engines.spark_errors import (  # noqa: F401 - PEP 249 wants them on the module
    DatabaseError, Error, InterfaceError, NotSupportedError, OperationalError, ProgrammingError, QueryTimeout,
    Warning, clean, convert,
)
from wenshu.engines.spark_session import (
    endless_loop, harden, local_session, remote_session, script_transform, warehouse_database,
)  # fmt: skip

apilevel = "2.0"
threadsafety = 1  # connections must not be shared between threads; cancel() may be called from any
paramstyle = "named"  # Spark's own named parameter markers (`:name`), bound by Spark, never by text



def connect(*, warehouse: str | None = None, remote: str | None = None, database: str | None = None,
            master: str | None = None, driver_memory: str | None = None) -> Connection:
    """A connection to a local warehouse directory, or to a Spark Connect server (`sc://...`)."""
    try:
        if remote:
            return Connection(remote_session(remote, database), remote=True)
        if not warehouse:
            raise InterfaceError("a Spark URL names a warehouse directory (spark:///path) or a server (spark://host:port)")
        base = local_session(master, driver_memory)
        db = warehouse_database(base, warehouse)
        session = base.newSession()
        harden(session)
        session.catalog.setCurrentDatabase(db)
        return Connection(session, remote=False)
    except Error:
        raise
    except Exception as err:  # noqa: BLE001 - the JVM did not start, the server is unreachable, ...
        raise OperationalError(clean(err)) from err


# --- statements, cursors and connections --------------------------------------------------------


class _Statement:
    """One statement's Spark job group (local) or operation tag (Spark Connect), and its deadline."""

    def __init__(self, conn: Connection):
        self.conn = conn
        self.group = f"wenshu-{uuid.uuid4().hex}"
        self.timeout_s = conn.timeout_s
        self.timed_out = self.cancelled = False
        self._timer = None
        if self.timeout_s:
            self._timer = threading.Timer(self.timeout_s, self._expire)
            self._timer.daemon = True
            self._timer.start()

    def _expire(self) -> None:
        self.timed_out = True
        self.cancel()

    def cancel(self) -> None:
        self.cancelled = True
        with contextlib.suppress(Exception):  # best effort: nothing may be running right now
            if self.conn.remote:
                self.conn.session.interruptTag(self.group)
            else:
                self.conn.session.sparkContext.cancelJobGroup(self.group)

    def _raise_if_stopped(self) -> None:
        if self.timed_out:
            raise QueryTimeout(f"statement timeout: the statement ran past its time limit of "
                               f"{self.timeout_s:g} s and was cancelled")
        if self.cancelled:
            raise OperationalError("the statement was cancelled")

    @contextlib.contextmanager
    def running(self):
        """Run Spark calls of this statement in the calling thread under its group or tag."""
        self._raise_if_stopped()
        session = self.conn.session
        if self.conn.remote:
            session.addTag(self.group)
        else:
            session.sparkContext.setJobGroup(self.group, "wenshu", interruptOnCancel=True)
        try:
            yield
        except Exception as err:
            self._raise_if_stopped()
            raise convert(err) from err
        finally:
            with contextlib.suppress(Exception):
                if self.conn.remote:
                    session.removeTag(self.group)
                else:
                    for key in ("spark.jobGroup.id", "spark.job.description", "spark.job.interruptOnCancel"):
                        session.sparkContext.setLocalProperty(key, None)
        self._raise_if_stopped()

    def done(self) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self.conn._running.discard(self)


class Cursor:
    arraysize = 256

    def __init__(self, conn: Connection):
        self.connection = conn
        self.description = None
        self.rowcount = -1
        self.lastrowid = None
        self._stmt: _Statement | None = None
        self._rows = None

    def execute(self, operation: str, parameters=None) -> Cursor:
        self._close_result()
        conn = self.connection
        conn._check_open()
        self._stmt = stmt = _Statement(conn)
        conn._running.add(stmt)
        try:
            with stmt.running():
                conn._refuse_unsafe(operation)
                df = conn.session.sql(operation, args=dict(parameters) if parameters else None)
                fields = df.schema.fields
                if fields:  # a query (a command has run already)
                    conn._refuse_endless_loops(df)
                    self._rows = iter(df.toLocalIterator(prefetchPartitions=False))
        except BaseException:
            self._close_result()
            raise
        if not fields:  # a command: Spark ran it already
            self._close_result()
            return self
        self.description = [(f.name, f.dataType.simpleString(), None, None, getattr(f.dataType, "precision", None),
                             getattr(f.dataType, "scale", None), f.nullable) for f in fields]
        return self

    def executemany(self, operation: str, seq_of_parameters) -> None:
        for parameters in seq_of_parameters:
            self.execute(operation, parameters)

    def fetchmany(self, size: int | None = None) -> list[tuple]:
        if self._rows is None:
            if self.description is None:
                raise ProgrammingError("the statement returned no rows")
            return []
        n = self.arraysize if size is None else size
        try:
            with self._stmt.running():
                rows = [tuple(r) for r in itertools.islice(self._rows, n)]
        except BaseException:
            self._close_result(keep_description=True)
            raise
        if len(rows) < n:
            self._close_result(keep_description=True)
        return rows

    def fetchone(self):
        rows = self.fetchmany(1)
        return rows[0] if rows else None

    def fetchall(self) -> list[tuple]:
        out: list[tuple] = []
        while batch := self.fetchmany(1024):
            out.extend(batch)
        return out

    def _close_result(self, keep_description: bool = False) -> None:
        rows, self._rows = self._rows, None
        close = getattr(rows, "close", None)
        if callable(close):
            with contextlib.suppress(Exception):
                close()  # the rest of the current partition is drained, later ones are never computed
        if self._stmt is not None:
            self._stmt.done()
            self._stmt = None
        if not keep_description:
            self.description = None

    def close(self) -> None:
        self._close_result()

    def setinputsizes(self, sizes) -> None:
        pass

    def setoutputsize(self, size, column=None) -> None:
        pass


class Connection:
    """A DB-API connection over one SparkSession (a local `newSession()` or a Spark Connect session)."""

    def __init__(self, session, *, remote: bool):
        self.session = session
        self.remote = remote
        self.database = session.catalog.currentDatabase()
        self.timeout_s: float | None = None  # each statement's time limit (set by the adapter)
        self._running: set[_Statement] = set()
        self._closed = False

    def _check_open(self) -> None:
        if self._closed:
            raise InterfaceError("the connection is closed")

    def _refuse_unsafe(self, sql: str) -> None:
        if script_transform(self.session, sql, remote=self.remote):
            raise NotSupportedError("TRANSFORM ... USING runs a shell command and is not allowed")

    def _refuse_endless_loops(self, df) -> None:
        if not self.remote and self.timeout_s and (problem := endless_loop(df, self.timeout_s)):
            raise QueryTimeout(f"statement timeout: {problem}")

    def cursor(self) -> Cursor:
        self._check_open()
        return Cursor(self)

    def commit(self) -> None:
        pass  # Spark has no transactions

    def rollback(self) -> None:
        """No transaction to roll back; the session's safety settings and database are restored instead
        (the pool calls this whenever a connection is returned)."""
        if self._closed:
            return
        try:
            harden(self.session)
            if self.session.catalog.currentDatabase() != self.database:
                self.session.catalog.setCurrentDatabase(self.database)
        except Exception as err:  # noqa: BLE001
            raise convert(err) from err

    def cancel(self) -> None:
        for stmt in list(self._running):
            stmt.cancel()

    def ping(self) -> None:
        self._check_open()
        try:
            self.session.catalog.currentDatabase()
        except Exception as err:  # noqa: BLE001
            raise convert(err) from err

    def close(self) -> None:
        if self._closed:
            return
        self.cancel()
        self._closed = True
        if self.remote:
            with contextlib.suppress(Exception):
                self.session.stop()  # releases the server-side session
