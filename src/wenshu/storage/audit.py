"""The audit log: one row per question answered (or refused), for review and debugging; a general assistant's
turn off the data route also names its route and the tools it called (assistant/audit.py)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from wenshu.storage.columns import as_utc, utcnow
from wenshu.storage.schema import audit_log as t

FIELDS = tuple(c.name for c in t.columns if c.name != "id")
DEFAULTS: dict[str, Any] = {"retries": 0, "status": "ok", "cached": False}


class AuditLog:
    def __init__(self, engine: Engine):
        self.engine = engine

    def record(self, **fields: Any) -> int:
        """Insert one entry and return its id.

        Fields are the audit_log columns (ts, user_id, conversation_id, datasource, question,
        sql, validation, retries, timings, row_count, status, error_code, error_message, cached, route,
        tools, route_reason);
        `ts` defaults to now, `retries` to 0, `status` to "ok", `cached` to False.
        """
        with self.engine.begin() as conn:
            return self.record_in(conn, **fields)

    @staticmethod
    def record_in(conn: Connection, **fields: Any) -> int:
        """`record` inside the caller's transaction (a cached answer's turn is stored in one)."""
        unknown = sorted(set(fields) - set(FIELDS))
        if unknown:
            raise TypeError(f"unknown audit fields: {', '.join(unknown)}")
        values = {**DEFAULTS, **{k: v for k, v in fields.items() if v is not None}}
        values = {**{k: None for k in FIELDS}, **values}
        values["ts"] = values["ts"] or utcnow()
        values["cached"] = bool(values["cached"])
        # values bound, not built into the statement: cheaper per entry
        return conn.execute(t.insert(), values).inserted_primary_key[0]

    def query(
        self,
        limit: int = 50,
        user_id: str | None = None,
        datasource: str | None = None,
        status: str | None = None,
        since: datetime | None = None,
    ) -> list[dict[str, Any]]:
        """Entries matching every given filter, newest first. `since` is inclusive."""
        stmt = sa.select(t)
        if user_id is not None:
            stmt = stmt.where(t.c.user_id == user_id)
        if datasource is not None:
            stmt = stmt.where(t.c.datasource == datasource)
        if status is not None:
            stmt = stmt.where(t.c.status == status)
        if since is not None:
            stmt = stmt.where(t.c.ts >= as_utc(since))
        stmt = stmt.order_by(t.c.ts.desc(), t.c.id.desc()).limit(limit)
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(stmt)]
