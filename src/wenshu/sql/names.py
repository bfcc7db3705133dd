"""Moved to `wenshu.guard.names` (layer 2 of the guard); kept so old imports still work."""

from wenshu.guard.names import NameProblem, closest, is_system_table, unknown_column, unknown_table

__all__ = ["NameProblem", "closest", "is_system_table", "unknown_column", "unknown_table"]
