"""Turn database values into JSON-safe Python values (shared by execution and charts)."""

from __future__ import annotations

import datetime as dt
import math
import uuid
from decimal import Decimal
from typing import Any


def jsonable(value: Any) -> Any:
    """One database value as something `json.dumps` accepts without a custom encoder.

    bytes -> UTF-8 text when it decodes, else hex; Decimal -> float; date/time -> ISO 8601;
    timedelta -> seconds; NaN/Infinity -> None; containers are converted recursively;
    anything else unknown -> str().
    """
    if value is None or isinstance(value, (bool, int, str)):
        return value
    if isinstance(value, float):
        return value if math.isfinite(value) else None
    if isinstance(value, Decimal):
        f = float(value)
        return f if math.isfinite(f) else None
    if isinstance(value, (bytes, bytearray, memoryview)):
        raw = bytes(value)
        try:
            return raw.decode("utf-8")
        except UnicodeDecodeError:
            return raw.hex()
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, dt.timedelta):
        return value.total_seconds()
    if isinstance(value, uuid.UUID):
        return str(value)
    if isinstance(value, dict):
        return {str(k): jsonable(v) for k, v in value.items()}
    if isinstance(value, (list, tuple, set, frozenset)):
        return [jsonable(v) for v in value]
    return str(value)


def jsonable_row(row: Any) -> list:
    return [jsonable(v) for v in row]
