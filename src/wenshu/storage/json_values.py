"""Database values as JSON: what the app store's JSON columns and the Redis result cache hold (cached rows,
payloads). Decimals become ints when whole, else floats; dates ISO text; bytes hex; sets lists."""

from __future__ import annotations

import datetime as dt
import decimal
import json
import uuid
from pathlib import Path
from typing import Any


def json_default(value: Any) -> Any:
    """Make the usual database values JSON-friendly (cached rows, payloads)."""
    if isinstance(value, decimal.Decimal):
        if value.is_finite() and value == value.to_integral_value():
            return int(value)
        return float(value)
    if isinstance(value, dt.datetime | dt.date | dt.time):
        return value.isoformat()
    if isinstance(value, bytes | bytearray | memoryview):
        return bytes(value).hex()
    if isinstance(value, uuid.UUID | Path):
        return str(value)
    if isinstance(value, set | frozenset | tuple):
        return list(value)
    return str(value)


def json_dumps(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, default=json_default)
