"""Run one validated query read-only, bounded in rows, bytes and time, on whatever engine the URL
names: its adapter (`wenshu.engines.registry`) holds the session read-only and enforces the limits.
The guard is the first line of defence; this is the second and must hold even when the guard is
bypassed."""

from __future__ import annotations

import time

from wenshu.engines.registry import adapter_for_url
from wenshu.engines.result import MAX_RESULT_BYTES, ExecResult, page, strip_sql

__all__ = ["ExecResult", "data_version", "execute_readonly", "page"]


def execute_readonly(url: str, sql: str, *, row_limit: int = 1000, timeout_s: float = 20.0,
                     max_bytes: int = MAX_RESULT_BYTES) -> ExecResult:
    """Run `sql` read-only and return at most `row_limit` JSON-safe rows."""
    if row_limit < 1:
        raise ValueError("row_limit must be at least 1")
    return adapter_for_url(url).execute(url, strip_sql(sql), row_limit=row_limit, timeout_s=timeout_s,
                                        max_bytes=max_bytes)


def data_version(url: str) -> str:
    """A token that changes when the data may have changed (for a result cache key): the engine's own
    (a SQLite file's mtime and size) where it has one, otherwise the current hour."""
    version = adapter_for_url(url).data_version(url)
    return version if version is not None else "hour-" + time.strftime("%Y%m%d%H", time.gmtime())
