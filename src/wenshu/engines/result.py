"""The shape of a query result, its paging, and the execution errors both execution paths raise."""

from __future__ import annotations

from dataclasses import dataclass

from wenshu.engines.values import jsonable_row
from wenshu.errors import InputError, SQLExecutionError, SQLTimeout

FETCH_BATCH = 256
MAX_RESULT_BYTES = 32 * 1024 * 1024  # an estimate of the fetched values' size; past it the result is truncated


@dataclass
class ExecResult:
    columns: list[str]
    rows: list[list]
    row_count: int  # the true total, even when rows were truncated
    truncated: bool
    ms: float

    def to_dict(self) -> dict:
        return {
            "columns": self.columns,
            "rows": self.rows,
            "row_count": self.row_count,
            "truncated": self.truncated,
            "ms": self.ms,
        }


def page(result: ExecResult, page: int, page_size: int) -> list[list]:
    """Rows of a 1-based page of the fetched rows ([] past the end)."""
    if page < 1 or page_size < 1:
        raise InputError(
            f"Page ({page}) and page size ({page_size}) must both be at least 1.",
            f"页码（{page}）和每页行数（{page_size}）都必须至少为 1。",
        )
    start = (page - 1) * page_size
    return result.rows[start : start + page_size]


def strip_sql(sql: str) -> str:
    """The statement without surrounding blanks and trailing semicolons."""
    out = sql.strip()
    while out.endswith(";"):
        out = out[:-1].rstrip()
    return out


def timeout_error(timeout_s: float) -> SQLTimeout:
    return SQLTimeout(
        f"The query ran longer than {timeout_s:g} s and was stopped; add filters or aggregate more.",
        f"查询运行超过 {timeout_s:g} 秒已被中止，请增加筛选条件或进一步聚合。",
    )


def db_error(detail: str) -> SQLExecutionError:
    detail = " ".join(str(detail).split())[:400].rstrip(".。 ") or "unknown error"
    return SQLExecutionError(
        f"The database could not run the query: {detail}.",
        f"数据库无法执行该查询：{detail}。",
    )


def refused_error(detail: str) -> SQLExecutionError:
    return SQLExecutionError(
        f"The database refused the query because only read-only queries may run ({detail}).",
        f"数据库拒绝执行该查询，因为只允许只读查询（{detail}）。",
        code="sql_refused",
    )


def value_bytes(value) -> int:
    """A cheap estimate of a JSON-safe value's size."""
    if isinstance(value, str):
        return len(value) + 2
    if isinstance(value, (list, dict)):
        return len(str(value))
    return 8


def fetch_rows(cursor, row_limit: int, max_bytes: int = MAX_RESULT_BYTES) -> tuple[list[list], bool]:
    """At most `row_limit` JSON-safe rows (fetched in batches, stopping early once about `max_bytes`
    of values were read) and whether more rows exist or were left unread."""
    rows: list[list] = []
    size = 0
    while len(rows) <= row_limit:
        batch = cursor.fetchmany(min(FETCH_BATCH, row_limit + 1 - len(rows)))
        if not batch:
            break
        for raw in batch:
            row = jsonable_row(raw)
            size += sum(value_bytes(v) for v in row)
            rows.append(row)
            if size > max_bytes:
                return rows[: min(len(rows), row_limit)], True
    return rows[:row_limit], len(rows) > row_limit


def count_sql(sql: str) -> str:
    """The statement that counts all rows of `sql` (newlines keep a trailing `--` comment inside)."""
    return f"SELECT COUNT(*) FROM (\n{sql}\n) AS _wenshu_count"
