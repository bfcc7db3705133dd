"""Column types and names shared by the app store's tables (storage/schema.py): UTC timestamps that come
back timezone-aware on every engine (SQLite drops the offset, so `UTCDateTime` puts it back), JSON that
stores Python None as SQL NULL, and the lengths of names and ids.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from sqlalchemy.types import TypeDecorator

NAME_LEN = 64
ID_LEN = 32


def utcnow() -> datetime:
    return datetime.now(UTC)


def as_utc(value: datetime) -> datetime:
    """Aware datetimes are converted to UTC; naive ones are taken to be UTC already."""
    if value.tzinfo is None:
        return value.replace(tzinfo=UTC)
    return value.astimezone(UTC)


class UTCDateTime(TypeDecorator):
    """`DateTime(timezone=True)` that stores UTC and always returns aware UTC datetimes."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value, dialect):
        return None if value is None else as_utc(value)

    def process_result_value(self, value, dialect):
        return None if value is None else as_utc(value)


def JSONColumn() -> sa.JSON:  # noqa: N802 - reads like a type in table definitions
    # none_as_null: Python None is stored as SQL NULL, not the JSON literal 'null'.
    return sa.JSON(none_as_null=True)
