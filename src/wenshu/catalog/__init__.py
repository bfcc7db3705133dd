"""The catalog model and its join graph: what a datasource holds (tables, columns, keys, comments,
samples) as plain data, and the key joins between its tables. No I/O, and nothing else of Wenshu is
imported here: the guard, storage, SQL repair and the knowledge layer all build on it (an
import-linter contract in pyproject.toml keeps it that way)."""

from wenshu.catalog.model import Catalog, ColumnInfo, ForeignKeyInfo, TableInfo, schema_hash, structural_hash

__all__ = ["Catalog", "ColumnInfo", "ForeignKeyInfo", "TableInfo", "schema_hash", "structural_hash"]
