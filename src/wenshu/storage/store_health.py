"""The app store's database as a service that may be misconfigured or go away.

    url = store_url("postgresql://u:pw@db/wenshu")   # postgresql+psycopg://...; StoreUnusable for a bad URL
    raise unusable(exc, url)                         # why a first connection failed, as one clear sentence
    report_outages(engine)                           # later failures to reach it raise StoreUnavailable

An app store is a SQLite file or a PostgreSQL database (`postgresql://` and `postgres://` mean the psycopg
driver, the one Wenshu installs). A URL that cannot work is refused when the store opens, with its own code:
a bad URL, a server that does not answer, a user or password it refuses, a database it does not have.
Once open, a PostgreSQL store that stops answering (stopped, restarted, the network gone) makes the request
fail with `store_unavailable` (HTTP 503) instead of an internal error; the engine's pool checks connections
before use, so the first request after the database is back works again, with no restart of Wenshu.
"""

from __future__ import annotations

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url

from wenshu.storage.errors import StoreUnavailable, StoreUnusable
from wenshu.storage.redis_link import redact

BACKENDS = ("sqlite", "postgresql")
PSYCOPG = "postgresql+psycopg"

# How a first connection fails, from libpq's and psycopg's messages (a failed connect carries no SQLSTATE).
_AUTH = ("password authentication failed", "no password supplied", 'role "', "pg_hba.conf")
_MISSING = ("database \"",)


def store_url(url: str) -> sa.URL:
    """The parsed URL, PostgreSQL on psycopg; StoreUnusable("database_bad_url") for anything else."""
    try:
        parsed = make_url(url)
    except sa.exc.ArgumentError as exc:
        raise StoreUnusable("database_bad_url", redact(url), str(exc)) from None
    if parsed.drivername in ("postgresql", "postgres"):
        parsed = parsed.set(drivername=PSYCOPG)
    if parsed.get_backend_name() not in BACKENDS:
        raise StoreUnusable("database_bad_url", redact(url), f"'{parsed.drivername}': only postgresql:// or "
                            "sqlite:///path are app stores") from None
    if parsed.get_backend_name() == "postgresql" and parsed.drivername != PSYCOPG:
        raise StoreUnusable("database_bad_url", redact(url), f"the driver of '{parsed.drivername}' is not "
                            "installed; write postgresql://") from None
    return parsed


def shown(url: sa.URL) -> str:
    """The URL as messages show it: the password as ***, the driver left out."""
    return url.set(drivername=url.get_backend_name()).render_as_string(hide_password=True)


def unusable(exc: BaseException, url: sa.URL) -> StoreUnusable | BaseException:
    """The StoreUnusable that a failed first connection to `url` means; other errors unchanged."""
    if url.get_backend_name() == "sqlite" or not isinstance(exc, sa.exc.OperationalError | StoreUnavailable):
        return exc
    cause = exc.__cause__ if isinstance(exc, StoreUnavailable) else exc
    text = str(getattr(cause, "orig", None) or cause).strip()
    first = text.splitlines()[0].rpartition("failed: ")[2].strip() if text else ""  # "Connection refused"
    if any(mark in text for mark in _AUTH):
        return StoreUnusable("database_auth_failed", shown(url))
    if any(mark in text for mark in _MISSING) and "does not exist" in text:
        return StoreUnusable("database_missing", shown(url))
    return StoreUnusable("database_unreachable", shown(url), first[:160])


def report_outages(engine: Engine) -> None:
    """From now on, failing to reach the database (a connection refused or lost) raises StoreUnavailable."""
    if engine.dialect.name == "sqlite":
        return  # a file: nothing to go away

    @sa.event.listens_for(engine, "handle_error")
    def _outage(context) -> None:
        lost = context.is_disconnect or context.connection is None  # no connection: the connect itself failed
        if lost and isinstance(context.original_exception, engine.dialect.loaded_dbapi.OperationalError):
            raise StoreUnavailable() from context.sqlalchemy_exception
