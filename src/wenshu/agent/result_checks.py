"""Rules on the rows an answer returned: clear misses a small model makes, each a finder of the
registry in `agent/checks.py` (one dict of prompt values per miss, [] when the answer passes)."""

from __future__ import annotations

import re
from typing import TYPE_CHECKING

from sqlglot import exp

from wenshu.agent.coverage import parse

if TYPE_CHECKING:
    from wenshu.agent.checks import Answer

_NUMBER_IN_TOP = re.compile(r"top\s*(\d+)|前\s*(\d+)", re.I)
_COUNTING = re.compile(r"多少|几[个笔单位家种]|总|平均|合计|how many|number of|count|total|sum|average|mean", re.I)
_AGG = re.compile(r"\b(count|sum|avg|min|max|group\s+by)\b", re.I)
SUMMARY_TYPES = ("aggregate", "share", "trend", "top_n", "compare")
RAW_ROWS = 50  # more rows than this, with no aggregation, is not a summary


def empty_result(a: Answer) -> list[dict]:
    return [{}] if a.row_count == 0 else []


def ranking_order(a: Answer) -> list[dict]:
    return [{}] if a.query_type == "top_n" and "order by" not in a.sql.lower() else []


def ranking_limit(a: Answer) -> list[dict]:
    if a.query_type != "top_n":
        return []
    m = _NUMBER_IN_TOP.search(a.question)
    n = int(next(g for g in m.groups() if g)) if m else None
    return [{"n": n}] if n and a.row_count > n and "limit" not in a.sql.lower() else []


def raw_rows(a: Answer) -> list[dict]:
    return [{}] if a.query_type in SUMMARY_TYPES and not _AGG.search(a.sql) and a.row_count > RAW_ROWS else []


def detail_aggregated(a: Answer) -> list[dict]:
    asked_list = a.query_type == "detail" and a.row_count == 1 and not _COUNTING.search(a.question)
    return [{}] if asked_list and _only_aggregates(a.sql) else []


def all_null(a: Answer) -> list[dict]:
    return [{}] if a.rows and all(v is None for r in a.rows for v in r[:len(a.columns)]) else []


def _only_aggregates(sql: str) -> bool:
    tree = parse(sql, "")
    return (isinstance(tree, exp.Select) and not tree.args.get("group")
            and all(p.find(exp.AggFunc) for p in tree.expressions))  # fmt: skip
