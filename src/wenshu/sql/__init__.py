"""The SQL capability: extract the model's SQL, repair it against the catalog, pick a chart.

The guard (`wenshu.guard`) validates it and the engines layer (`wenshu.engines`) runs it read-only."""

from wenshu.sql.charts import choose_chart, infer_column_kinds
from wenshu.sql.extract import extract_sql

__all__ = ["choose_chart", "extract_sql", "infer_column_kinds"]
