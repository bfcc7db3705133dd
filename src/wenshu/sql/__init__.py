"""The SQL capability: extract the model's SQL, validate it, run it read-only, pick a chart."""

from wenshu.sql.charts import choose_chart, infer_column_kinds
from wenshu.sql.execute import ExecResult, data_version, execute_readonly, page
from wenshu.sql.extract import extract_sql
from wenshu.sql.validate import BasicValidator, SQLValidator, ValidationOutcome, sqlglot_dialect

__all__ = [
    "BasicValidator",
    "ExecResult",
    "SQLValidator",
    "ValidationOutcome",
    "choose_chart",
    "data_version",
    "execute_readonly",
    "extract_sql",
    "infer_column_kinds",
    "page",
    "sqlglot_dialect",
]
