"""Pick a chart for a query result, deterministically from its shape, as a Vega-Lite v5 spec.

- a time-like column + numeric measure(s)          -> line (several measures folded into a colour
  series; one measure + one category column -> one line per category)
- a category column + one numeric measure          -> bar, sorted by the measure, horizontal when
  there are more than 8 categories
- the same with query_type "share", at most 8 non-negative values -> arc (pie)
- a category column + several measures with query_type "compare" -> grouped bars
- anything else (a single row or value, text only, no measure, more than 50 bars, ...) -> None
"""

from __future__ import annotations

import datetime as dt
import math
import re
from decimal import Decimal

from wenshu.engines.values import jsonable

TEMPORAL, QUANTITATIVE, NOMINAL = "temporal", "quantitative", "nominal"
SCHEMA = "https://vega.github.io/schema/vega-lite/v5.json"
MAX_BARS = 50
MAX_PIE = 8
HORIZONTAL_AFTER = 8
MAX_SERIES = 12

_ISO_DATE_RE = re.compile(
    r"^\d{4}-(0[1-9]|1[0-2])(-(0[1-9]|[12]\d|3[01])([ T]([01]\d|2[0-3])(:[0-5]\d(:[0-5]\d(\.\d+)?)?)?"
    r"(Z|[+-]\d{2}:?\d{2})?)?)?$"
)
_OTHER_DATE_RE = re.compile(
    r"^(\d{4}/\d{1,2}(/\d{1,2})?|\d{4}年(\d{1,2}月(\d{1,2}日)?)?|\d{4}-?[Qq][1-4]|\d{4}-?W\d{1,2})$"
)
_TIME_NAME_RE = re.compile(
    r"(^|_)(date|day|month|week|year|yr|quarter|hour|dt|ym|period|time|datetime|timestamp)$"
    r"|^(日期|月份|年份|时间|季度|星期|周|年|月|日|小时)$|(日期|月份|年份|时间|季度)$",
    re.I,
)
_YEAR_NAME_RE = re.compile(r"(^|_)(year|yr)$|^(年|年份)$|年份$", re.I)
_ID_NAME_RE = re.compile(r"(^|_)(id|code|zip|zipcode|phone)$|^(编号|编码|代码)$|(编号|编码|代码|ID)$", re.I)


def _is_number(v) -> bool:
    return isinstance(v, (int, float, Decimal)) and not isinstance(v, bool)


def _column_kind(name: str, values: list) -> str:
    if not values:
        return NOMINAL
    if all(isinstance(v, (dt.date, dt.datetime)) for v in values):
        return TEMPORAL
    if all(isinstance(v, str) for v in values):
        if all(_ISO_DATE_RE.match(v) or _OTHER_DATE_RE.match(v) for v in values):
            return TEMPORAL
        if _YEAR_NAME_RE.search(name) and all(re.fullmatch(r"\d{4}", v) for v in values):
            return TEMPORAL
        if _TIME_NAME_RE.search(name) and not all(re.fullmatch(r"-?\d+(\.\d+)?", v) for v in values):
            return TEMPORAL  # e.g. a `day` column of weekday names, or '2024-Q1' labels
        return NOMINAL
    if all(_is_number(v) for v in values):
        ints = all(isinstance(v, int) or (math.isfinite(v) and v == int(v)) for v in values)
        if ints and _YEAR_NAME_RE.search(name) and all(1000 <= v <= 9999 for v in values):
            return TEMPORAL
        if ints and _TIME_NAME_RE.search(name) and all(0 <= v <= 366 for v in values):
            return TEMPORAL  # month numbers, hours of the day, ...
        return NOMINAL if _ID_NAME_RE.search(name) else QUANTITATIVE
    return NOMINAL


def infer_column_kinds(columns: list[str], rows: list[list]) -> list[str]:
    """'temporal', 'quantitative' or 'nominal' for each column, from its name and non-null values."""
    kinds = []
    for i, name in enumerate(columns):
        values = [r[i] for r in rows if i < len(r) and r[i] is not None]
        kinds.append(_column_kind(str(name), values))
    return kinds


def _unique_fields(columns: list[str]) -> list[str]:
    seen: dict[str, int] = {}
    out = []
    for c in columns:
        name = str(c) or "column"
        if name in seen:
            seen[name] += 1
            name = f"{name}_{seen[name]}"
        seen.setdefault(name, 1)
        out.append(name)
    return out


def _ref(field: str) -> str:
    """A field name as Vega-Lite reads it (dots and brackets mean nested access unless escaped)."""
    return re.sub(r"([\\.\[\]])", r"\\\1", field)


def _spec(title: str, records: list[dict], mark: dict, encoding: dict, transform: list | None = None) -> dict:
    spec: dict = {"$schema": SCHEMA}
    if title:
        spec["title"] = title
    spec["data"] = {"values": records}
    if transform:
        spec["transform"] = transform
    spec["mark"] = mark
    spec["encoding"] = encoding
    return spec


def _time_axis(field: str, values: list) -> dict:
    if all(isinstance(v, str) and _ISO_DATE_RE.match(v) for v in values):
        return {"field": _ref(field), "type": "temporal", "title": field}
    if all(isinstance(v, (dt.date, dt.datetime)) for v in values):
        return {"field": _ref(field), "type": "temporal", "title": field}
    axis = {"field": _ref(field), "type": "ordinal", "title": field}
    if not all(_is_number(v) for v in values):
        axis["sort"] = None  # keep the query's order for labels such as '2024年3月' or 'Mon'
    return axis


def _line(title, records, fields, rows, t, measures, series) -> dict | None:
    t_values = [r[t] for r in rows]
    if len(set(map(str, t_values))) < 2:
        return None
    x = _time_axis(fields[t], t_values)
    mark = {"type": "line", "point": True}
    if len(measures) == 1:
        m = fields[measures[0]]
        enc = {"x": x, "y": {"field": _ref(m), "type": "quantitative", "title": m}}
        tooltip = [fields[t], m]
        if series is not None:
            enc["color"] = {"field": _ref(fields[series]), "type": "nominal", "title": fields[series]}
            tooltip.insert(1, fields[series])
        enc["tooltip"] = [{"field": _ref(f)} for f in tooltip]
        return _spec(title, records, mark, enc)
    names = [fields[i] for i in measures]
    key = "series" if "series" not in fields else "_series"
    val = "value" if "value" not in fields else "_value"
    enc = {
        "x": x,
        "y": {"field": val, "type": "quantitative", "title": None},
        "color": {"field": key, "type": "nominal", "title": None, "sort": names},
        "tooltip": [{"field": _ref(fields[t])}, {"field": key}, {"field": val}],
    }
    return _spec(title, records, mark, enc, [{"fold": [_ref(n) for n in names], "as": [key, val]}])


def _bar_or_pie(title, records, fields, rows, c, m, query_type) -> dict | None:
    n = len(rows)
    labels = [str(r[c]) for r in rows]
    if len(set(labels)) != n:
        return None  # repeated categories: the rows are not one value per category
    cat, mea = fields[c], fields[m]
    values = [r[m] for r in rows]
    tooltip = [{"field": _ref(cat)}, {"field": _ref(mea)}]
    if (
        query_type == "share"
        and n <= MAX_PIE
        and all(_is_number(v) and v >= 0 for v in values)
        and sum(values) > 0
    ):
        enc = {
            "theta": {"field": _ref(mea), "type": "quantitative", "stack": True},
            "color": {
                "field": _ref(cat),
                "type": "nominal",
                "title": cat,
                "sort": {"field": _ref(mea), "order": "descending"},
            },
            "order": {"field": _ref(mea), "type": "quantitative", "sort": "descending"},
            "tooltip": tooltip,
        }
        return _spec(title, records, {"type": "arc"}, enc)
    if n > MAX_BARS:
        return None
    if n > HORIZONTAL_AFTER:
        enc = {
            "y": {"field": _ref(cat), "type": "nominal", "sort": "-x", "title": cat},
            "x": {"field": _ref(mea), "type": "quantitative", "title": mea},
        }
    else:
        enc = {
            "x": {"field": _ref(cat), "type": "nominal", "sort": "-y", "title": cat},
            "y": {"field": _ref(mea), "type": "quantitative", "title": mea},
        }
    enc["tooltip"] = tooltip
    return _spec(title, records, {"type": "bar"}, enc)


def _grouped_bar(title, records, fields, c, measures) -> dict:
    """Several measures per category side by side (a comparison: this period next to the earlier one)."""
    names = [fields[i] for i in measures]
    key = "series" if "series" not in fields else "_series"
    val = "value" if "value" not in fields else "_value"
    enc = {
        "x": {"field": _ref(fields[c]), "type": "nominal", "title": fields[c], "sort": None},
        "xOffset": {"field": key, "type": "nominal", "sort": names},
        "y": {"field": val, "type": "quantitative", "title": None},
        "color": {"field": key, "type": "nominal", "title": None, "sort": names},
        "tooltip": [{"field": _ref(fields[c])}, {"field": key}, {"field": val}],
    }
    return _spec(title, records, {"type": "bar"}, enc, [{"fold": [_ref(n) for n in names], "as": [key, val]}])


def choose_chart(columns: list[str], rows: list[list], query_type: str | None = None, title: str = "") -> dict | None:
    """A Vega-Lite v5 spec with inline data for this result, or None when no chart fits."""
    if not columns or len(rows) < 2:
        return None
    kinds = infer_column_kinds(columns, rows)
    temporal = [i for i, k in enumerate(kinds) if k == TEMPORAL]
    quant = [i for i, k in enumerate(kinds) if k == QUANTITATIVE]
    nominal = [i for i, k in enumerate(kinds) if k == NOMINAL]
    if not quant:
        return None
    fields = _unique_fields(columns)
    rows = [[jsonable(v) for v in r] for r in rows]
    records = [{fields[i]: (r[i] if i < len(r) else None) for i in range(len(fields))} for r in rows]

    if temporal:
        t = temporal[0]
        if len(nominal) > 1 or (nominal and len(quant) > 1):
            return None
        series = nominal[0] if nominal else None
        if series is None and len({str(r[t]) for r in rows}) != len(rows):
            return None  # repeated time points with nothing to tell the lines apart
        if series is not None and len({str(r[series]) for r in rows}) > MAX_SERIES:
            return None
        return _line(title, records, fields, rows, t, quant, series)
    if query_type == "compare" and len(nominal) == 1 and 2 <= len(quant) <= MAX_SERIES and len(rows) <= MAX_BARS:
        return _grouped_bar(title, records, fields, nominal[0], quant)
    if nominal and len(quant) == 1:
        # Prefer a label column over an id column (city_name over city_id).
        category = sorted(nominal, key=lambda i: bool(_ID_NAME_RE.search(str(columns[i]))))[0]
        return _bar_or_pie(title, records, fields, rows, category, quant[0], query_type)
    return None
