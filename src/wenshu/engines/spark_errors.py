"""The PEP 249 errors of the Spark DB-API (`wenshu.engines.spark_dbapi`) and how a pyspark or py4j error
becomes one: the first paragraph of Spark's message, without the plan, the SQL echo or a JVM stack trace."""

from __future__ import annotations


class Error(Exception):
    """The base of every error raised here (PEP 249)."""


class Warning(Exception):  # noqa: A001 - PEP 249's name; never raised
    pass


class InterfaceError(Error):
    """The connection was closed, or the URL names nothing to connect to."""


class DatabaseError(Error):
    """Spark could not run the statement."""


class OperationalError(DatabaseError):
    """The session is gone (`disconnected`), or the statement was cancelled."""

    disconnected = False


class ProgrammingError(DatabaseError):
    """The SQL does not parse, or names a table or column that does not exist."""


class NotSupportedError(DatabaseError):
    """A statement this module refuses to hand to Spark."""


class QueryTimeout(OperationalError):
    """The statement ran past the connection's time limit and was cancelled."""


DataError = type("DataError", (DatabaseError,), {})
IntegrityError = type("IntegrityError", (DatabaseError,), {})
InternalError = type("InternalError", (DatabaseError,), {})


def clean(err: BaseException) -> str:
    """The first paragraph of a Spark error (without the plan, the SQL echo or a JVM stack trace)."""
    java = getattr(err, "java_exception", None)
    text = str(java.toString()) if java is not None else str(err)
    lines = []
    for line in text.strip().splitlines():
        if line.startswith(("'", "==", "JVM stacktrace", "\tat ", "+- ", ":- ")):
            break
        lines.append(line.strip())
    return " ".join(line for line in lines if line)[:2000] or type(err).__name__


def convert(err: BaseException) -> Error:
    if isinstance(err, Error):
        return err
    kind = type(err).__name__
    if kind in ("ParseException", "AnalysisException"):
        return ProgrammingError(clean(err))
    if kind in ("Py4JNetworkError", "ConnectionError", "ConnectionRefusedError", "BrokenPipeError"):
        out = OperationalError(f"the Spark session is gone: {clean(err)}")
        out.disconnected = True
        return out
    text = clean(err)
    if "cancelled" in text.lower() and "job" in text.lower():
        return OperationalError(text)
    return DatabaseError(text)
