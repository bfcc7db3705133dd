"""Inputs of the recall benchmark: gold tables/columns from gold SQL, the merged Spider catalog, a synthetic one.

- `gold_of(sql, catalog)`: tables and (table, column) pairs a gold query reads, with sqlglot; aliases
  (`T1.name`) are resolved, and an unqualified column is given to the first of the query's tables that
  has it. `*` is not a column.
- `merged_catalog(catalogs)`: one catalog of many databases; every table is renamed `<db_id>__<table>`
  and foreign keys are rewritten to match, so `concert_singer__singer` and `singer__singer` stay apart.
- `synthetic_catalog(n_tables, n_columns)`: generated business-like tables with comments, samples and
  foreign keys to earlier tables, for the scale test; `synthetic_questions` asks about random tables.
"""

from __future__ import annotations

import dataclasses
import random

import sqlglot
from sqlglot import exp

from wenshu.catalog import Catalog, ColumnInfo, TableInfo

SEP = "__"


def gold_of(sql: str, catalog: Catalog) -> tuple[set[str], set[tuple[str, str]]] | None:
    """(tables, columns) of a gold query, names as in the catalog; None when sqlglot cannot parse it."""
    try:
        tree = sqlglot.parse_one(sql, read="sqlite")
    except sqlglot.errors.ParseError:
        return None
    names = {t.name.lower(): t.name for t in catalog.tables}
    tables: set[str] = set()
    alias: dict[str, str] = {}
    for t in tree.find_all(exp.Table):
        real = names.get(t.name.lower())
        if real is None:
            continue
        tables.add(real)
        alias[real.lower()] = real
        if t.alias:
            alias[t.alias.lower()] = real
    columns: set[tuple[str, str]] = set()
    for c in tree.find_all(exp.Column):
        if isinstance(c.this, exp.Star) or not c.name:
            continue
        owner = alias.get(c.table.lower()) if c.table else _owner(catalog, tables, c.name)
        table = catalog.table(owner) if owner else None
        col = table.column(c.name) if table else None
        if col is not None:
            columns.add((table.name, col.name))
    return tables, columns


def _owner(catalog: Catalog, tables: set[str], column: str) -> str | None:
    for name in sorted(tables):
        if catalog.table(name).column(column) is not None:
            return name
    return None


def _rename_ref(db: str, ref: str | None) -> str | None:
    return f"{db}{SEP}{ref}" if ref and "." in ref else ref


def merged_catalog(catalogs: dict[str, Catalog], name: str = "spider_merged") -> Catalog:
    out = Catalog(datasource=name, dialect="sqlite")
    for db, cat in sorted(catalogs.items()):
        for t in cat.tables:
            cols = [dataclasses.replace(c, foreign_key=_rename_ref(db, c.foreign_key)) for c in t.columns]
            fks = [dataclasses.replace(f, ref_table=f"{db}{SEP}{f.ref_table}") for f in getattr(t, "foreign_keys", [])]
            extra = {"foreign_keys": fks} if hasattr(t, "foreign_keys") else {}
            out.tables.append(dataclasses.replace(t, name=f"{db}{SEP}{t.name}", columns=cols, **extra))
    return out


NOUNS = ("customer order product supplier invoice payment shipment warehouse store region city employee "
         "department campaign coupon refund review category brand contract account ledger budget project "
         "ticket device sensor vehicle route driver patient doctor course student teacher exam loan branch").split()
ATTRS = ("name status type code amount price quantity total balance score level rank email phone address "
         "title description rate weight volume count fee tax discount cost revenue margin channel source "
         "stage priority grade rating").split()
TIME = ("created_at", "updated_at", "start_date", "end_date", "event_time")


def synthetic_catalog(n_tables: int = 1000, n_columns: int = 20, seed: int = 7) -> Catalog:
    rng = random.Random(seed)
    cat = Catalog(datasource="synthetic", dialect="sqlite")
    for i in range(n_tables):
        a, b = rng.sample(NOUNS, 2)
        name = f"{a}_{b}_{i}"
        cols = [ColumnInfo(f"{name}_id", "INTEGER", comment=f"{a} {b} id", primary_key=True)]
        if i:
            j = rng.randrange(i)
            ref = cat.tables[j]
            cols.append(ColumnInfo(f"{ref.name}_id", "INTEGER", comment=f"refers to {ref.name}",
                                   foreign_key=f"{ref.name}.{ref.name}_id"))
        while len(cols) < n_columns:
            attr = rng.choice(ATTRS + list(TIME))
            cname = f"{rng.choice(NOUNS)}_{attr}_{len(cols)}"
            typ = "TEXT" if attr in ("name", "status", "type", "code", "channel", "source", "stage") else (
                "TIMESTAMP" if attr in TIME else rng.choice(["INTEGER", "REAL", "TEXT"]))
            samples = [f"{attr}{rng.randrange(100)}" for _ in range(3)] if typ == "TEXT" else []
            cols.append(ColumnInfo(cname, typ, comment=f"the {attr} of the {a}", samples=samples))
        cat.tables.append(TableInfo(name=name, comment=f"{a} {b} records", columns=cols))
    return cat


def synthetic_questions(cat: Catalog, n: int = 200, seed: int = 11) -> list[str]:
    rng = random.Random(seed)
    out = []
    for _ in range(n):
        t = rng.choice(cat.tables)
        c = rng.choice(t.columns[2:])
        out.append(f"what is the total {c.name.replace('_', ' ')} per {t.comment} last month")
    return out
