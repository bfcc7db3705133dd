"""Structure signals for recall: column priors and the join-path closure over foreign keys.

Foreign keys are the column-level ones (`ColumnInfo.foreign_key`, declared or inferred by catalog sync)
plus the table-level list (`TableInfo.foreign_keys`, which also holds composite keys) where present.
`closure(tables)` adds the tables on the shortest join path between every pair of recalled tables
(paths up to `MAX_HOPS` joins), and `join_columns` names the key columns those joins use.
"""

from __future__ import annotations

from collections import deque
from itertools import combinations

from wenshu.catalog import Catalog, ColumnInfo

MAX_HOPS = 3
_TIME = ("date", "time", "year", "month", "day", "日期", "时间", "年份", "月份")
_NUMERIC = ("INT", "REAL", "FLOAT", "DOUBLE", "DECIMAL", "NUMERIC", "NUMBER", "MONEY")


def foreign_keys(col: ColumnInfo) -> list[str]:
    return [col.foreign_key] if col.foreign_key and "." in col.foreign_key else []


def _references(table) -> list[tuple[str, str, str]]:
    """(local column, referenced table, referenced column) of a table, column- and table-level keys."""
    refs = [(c.name, *ref.split(".", 1)) for c in table.columns for ref in foreign_keys(c)]
    for fk in getattr(table, "foreign_keys", None) or []:
        refs += [(local, fk.ref_table, remote) for local, remote in zip(fk.columns, fk.ref_columns)]
    return list(dict.fromkeys(refs))


def column_prior(col: ColumnInfo) -> float:
    """A small boost for columns queries usually need: keys (joins), time columns (filters), measures."""
    name, typ = col.name.lower(), (col.type or "").upper()
    if col.primary_key or foreign_keys(col):
        return 1.0
    if any(t in name for t in _TIME) or any(t in typ for t in ("DATE", "TIME")) or any(t in col.comment for t in _TIME[-4:]):
        return 0.6
    if any(t in typ for t in _NUMERIC):
        return 0.4
    return 0.0


class JoinGraph:
    def __init__(self, catalog: Catalog):
        self.names = {t.name.lower(): t.name for t in catalog.tables}
        self.edges: dict[str, dict[str, list[tuple[str, str]]]] = {t.name: {} for t in catalog.tables}
        for t in catalog.tables:
            for local, other, other_col in _references(t):
                target = self.names.get(other.lower())
                if target is None or target == t.name:
                    continue
                self.edges[t.name].setdefault(target, []).append((local, other_col))
                self.edges[target].setdefault(t.name, []).append((other_col, local))

    def path(self, source: str, target: str) -> list[str] | None:
        """Tables on the shortest path from source to target, both included (None: not connected)."""
        prev: dict[str, str | None] = {source: None}
        queue = deque([(source, 0)])
        while queue:
            table, hops = queue.popleft()
            if table == target:
                out = [table]
                while prev[out[-1]] is not None:
                    out.append(prev[out[-1]])
                return out[::-1]
            if hops >= MAX_HOPS:
                continue
            for nxt in sorted(self.edges.get(table, {})):
                if nxt not in prev:
                    prev[nxt] = table
                    queue.append((nxt, hops + 1))
        return None

    def closure(self, tables: list[str]) -> list[str]:
        """Tables needed to connect every pair of `tables`, not already among them, in discovery order."""
        have = list(dict.fromkeys(tables))
        added: list[str] = []
        for a, b in combinations(list(have), 2):
            p = self.path(a, b)
            for t in p or []:
                if t not in have and t not in added:
                    added.append(t)
        return added

    def join_columns(self, tables: list[str]) -> dict[str, set[str]]:
        """For each table, the columns joining it to the other chosen tables."""
        chosen = set(tables)
        out: dict[str, set[str]] = {t: set() for t in tables}
        for t in tables:
            for other, pairs in self.edges.get(t, {}).items():
                if other in chosen:
                    out[t].update(local for local, _ in pairs)
        return out
