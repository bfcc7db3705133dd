"""Deterministic schema repairs of a model's SQL, applied before the guard sees it.

Small models often put a column on the wrong table (`p.category_name` when `category_name` lives
in `categories`, which is joined too), or use a table they never joined (`cities.city_name` with
only `orders` in FROM). When the catalog's keys connect the tables there is exactly one sensible
fix, and making it in code saves a model round (tens of seconds on a laptop) that a small model
often spends repeating the mistake anyway.

Repairs only touch references that cannot run as written (the column does not exist where the SQL
looks for it), so a valid query is never changed. Anything ambiguous (two tables that could own
the column, no key path, a derived table in FROM) is left for the guard to report.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import sqlglot
from sqlglot import exp

from wenshu.catalog import Catalog, TableInfo
from wenshu.catalog.joins import join_steps, key_edges


@dataclass
class Repair:
    sql: str
    notes: list[str] = field(default_factory=list)  # what was changed, for the trace

    @property
    def changed(self) -> bool:
        return bool(self.notes)


def repair_sql(sql: str, catalog: Catalog, dialect: str) -> Repair:
    """`sql` with misplaced columns moved to their table and missing key joins added."""
    try:
        trees = sqlglot.parse(sql, read=dialect or None)
    except Exception:  # noqa: BLE001 - unparseable SQL is the guard's to explain
        return Repair(sql)
    tree = trees[0] if len(trees) == 1 else None
    if not isinstance(tree, exp.Query):
        return Repair(sql)  # stacked statements, DML, ...: left whole for the guard to refuse
    notes: list[str] = []
    for select in list(tree.find_all(exp.Select)):
        notes += _repair_select(select, catalog)
    if not notes:
        return Repair(sql)
    return Repair(tree.sql(dialect=dialect or None, pretty=True), notes)


def _key(name: str) -> str:
    """A name's spelling-free form: pet_type, PetType and "pet type" are the same name."""
    return "".join(ch for ch in name.lower() if ch.isalnum())


def _respelled_table(catalog: Catalog, name: str) -> TableInfo | None:
    hits = [t for t in catalog.tables if _key(t.name) == _key(name)]
    return hits[0] if len(hits) == 1 else None


def _sources(select: exp.Select, catalog: Catalog, notes: list[str]) -> dict[str, TableInfo] | None:
    """alias (lower case) -> catalog table for every source of this SELECT, respelling a table
    name that differs from a real one only in case, underscores or spaces; None when some source
    is not a plain catalog table (its columns are unknown, so nothing is safe to change)."""
    nodes = [select.args.get("from_")] + list(select.args.get("joins") or [])
    out: dict[str, TableInfo] = {}
    for node in nodes:
        if node is None:
            continue
        table = node.this
        if not isinstance(table, exp.Table) or not isinstance(table.this, exp.Identifier):
            return None
        info = catalog.table(table.name)
        if info is None and (info := _respelled_table(catalog, table.name)) is not None:
            notes.append(f"{table.name} -> {info.name}")
            alias = table.alias_or_name
            table.set("this", exp.to_identifier(info.name))
            if alias != table.name and not table.alias:
                table.set("alias", exp.TableAlias(this=exp.to_identifier(alias)))
        if info is None or not info.columns:
            return None
        out[table.alias_or_name.lower()] = info
    return out or None


def _own_columns(select: exp.Select) -> list[exp.Column]:
    """Columns of this SELECT itself, not of its subqueries."""
    return [c for c in select.find_all(exp.Column) if c.find_ancestor(exp.Select) is select
            and not isinstance(c.this, exp.Star)]  # fmt: skip


def _outer_names(select: exp.Select, catalog: Catalog) -> set[str]:
    """Aliases and column names that enclosing queries make visible here (correlated references)."""
    names: set[str] = set()
    node = select.parent
    while node is not None:
        if isinstance(node, exp.Select):
            for source in [node.args.get("from_")] + list(node.args.get("joins") or []):
                if source is None:
                    continue
                names.add(source.this.alias_or_name.lower())
                info = catalog.table(source.this.name) if isinstance(source.this, exp.Table) else None
                names |= {c.name.lower() for c in info.columns} if info else set()
        node = node.parent
    return names


def _repair_select(select: exp.Select, catalog: Catalog) -> list[str]:
    notes: list[str] = []
    sources = _sources(select, catalog, notes)
    if sources is None:
        return notes
    _fix_self_joins(select, sources, catalog, notes)
    outputs = {p.alias.lower() for p in select.expressions if isinstance(p, exp.Alias) and p.alias}
    outer = _outer_names(select, catalog)
    for col in _own_columns(select):
        name, qualifier = col.name, col.table.lower()
        if (qualifier or name.lower()) in outer:
            continue  # a correlated reference to an enclosing query
        if qualifier and qualifier in sources and sources[qualifier].column(name):
            continue
        if not qualifier and (name.lower() in outputs or any(t.column(name) for t in sources.values())):
            continue
        if _respell(col, sources, notes):
            continue
        if qualifier and qualifier not in sources and catalog.table(qualifier) and catalog.table(qualifier).column(name):
            owner = catalog.table(qualifier)  # a table named but never joined: join it
        else:
            owner = _single_owner(name, sources, catalog)
        if owner is None:
            continue
        alias = _alias_of(owner, sources) or _join(select, sources, owner, catalog, notes)
        if alias is None:
            continue
        old = col.sql()
        col.set("table", exp.to_identifier(alias))
        if col.sql() != old:
            notes.append(f"{old} -> {col.sql()}")
    return notes


def _fix_self_joins(select: exp.Select, sources: dict[str, TableInfo], catalog: Catalog, notes: list[str]) -> None:
    """`JOIN t2 ON t1.id = t1.id` compares a column with itself (a cartesian product in disguise):
    use the key between the joined table and the tables before it, when there is exactly one."""
    earlier = [select.args["from_"].this.alias_or_name.lower()] if select.args.get("from_") else []
    for join in select.args.get("joins") or []:
        alias = join.this.alias_or_name.lower()
        on = join.args.get("on")
        for eq in list(on.find_all(exp.EQ)) if on is not None else []:
            a, b = eq.this, eq.expression
            same = (isinstance(a, exp.Column) and isinstance(b, exp.Column) and a.table.lower() == b.table.lower()
                    and a.name.lower() == b.name.lower())  # fmt: skip
            if not same:
                continue
            key = _key_between(sources[alias], [(e, sources[e]) for e in earlier], catalog)
            if key is not None:
                new = exp.EQ(this=exp.column(key[1], table=key[0]), expression=exp.column(key[2], table=join.this.alias_or_name))
                notes.append(f"{eq.sql()} -> {new.sql()}")
                eq.replace(new)
        earlier.append(alias)


def _key_between(table: TableInfo, earlier: list[tuple[str, TableInfo]], catalog: Catalog) -> tuple[str, str, str] | None:
    """(earlier alias, its column, the table's column) of the only key join between them."""
    hits = [(alias, step[3], step[1]) for step in key_edges(catalog).get(table.name, [])
            for alias, t in earlier if t.name == step[2]]  # fmt: skip
    return hits[0] if len(hits) == 1 else None


def _respell(col: exp.Column, sources: dict[str, TableInfo], notes: list[str]) -> bool:
    """Rename a column written with another spelling of a real column (pet_type for PetType), when
    exactly one source table has such a column (the qualified table first)."""
    qualifier = col.table.lower()
    places = [sources[qualifier]] if qualifier in sources else []
    for tables in (places, list(sources.values())):
        hits = {(t.name, c.name) for t in tables for c in t.columns if _key(c.name) == _key(col.name)}
        if len(hits) == 1:
            table, real = next(iter(hits))
            old = col.sql()
            col.set("this", exp.to_identifier(real))
            if qualifier:
                col.set("table", exp.to_identifier(_alias_of_name(table, sources)))
            notes.append(f"{old} -> {col.sql()}")
            return True
    return False


def _alias_of_name(table: str, sources: dict[str, TableInfo]) -> str:
    return next(alias for alias, t in sources.items() if t.name == table)


def _single_owner(name: str, sources: dict[str, TableInfo], catalog: Catalog) -> TableInfo | None:
    """The one table the column can come from: a joined table that has it, else the nearest
    catalog table that has it (by key-join distance), when no other is as near."""
    joined = {t.name: t for t in sources.values() if t.column(name)}
    if joined:
        return next(iter(joined.values())) if len(joined) == 1 else None
    present = [t.name for t in sources.values()]
    reachable = []
    for t in catalog.tables:
        if t.column(name):
            steps = join_steps(catalog, present, t.name)
            if steps is not None:
                reachable.append((len(steps), t))
    reachable.sort(key=lambda x: x[0])
    if not reachable or (len(reachable) > 1 and reachable[1][0] == reachable[0][0]):
        return None
    return reachable[0][1]


def _alias_of(table: TableInfo, sources: dict[str, TableInfo]) -> str | None:
    hits = [alias for alias, t in sources.items() if t.name == table.name]
    return hits[0] if len(hits) == 1 else None


def _join(select: exp.Select, sources: dict[str, TableInfo], target: TableInfo, catalog: Catalog,
          notes: list[str]) -> str | None:
    """Add the key joins that reach `target`; its alias, or None when no key path exists."""
    by_table: dict[str, str] = {}
    for alias, t in sources.items():
        by_table.setdefault(t.name, alias)
    steps = join_steps(catalog, list(by_table), target.name)
    if not steps:
        return None
    for known, known_col, new, new_col in steps:
        alias = new if new.lower() not in sources else f"{new}_j"
        on = exp.EQ(this=exp.column(known_col, table=by_table[known]), expression=exp.column(new_col, table=alias))
        table = exp.table_(new, alias=alias if alias != new else None)
        select.join(table, on=on, copy=False)
        notes.append(f"JOIN {table.sql()} ON {on.sql()}")
        sources[alias.lower()] = catalog.table(new)
        by_table[new] = alias
    return by_table[target.name]
