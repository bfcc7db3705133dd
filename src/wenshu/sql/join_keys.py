"""Join conditions no key links: a sign that the model guessed how two tables relate.

`car_makers.Id = car_names.MakeId` (MakeId points at another table), `Professionals.professional_id =
Owners.owner_id` (two tables' own ids), `t1.MakeId = t1.MakeId` (a column compared with itself): each
runs and returns rows, so no later check notices. An equality in a JOIN's ON between columns of two
tables is keyed when a foreign key (declared, or inferred at sync) links the two columns in either
direction, or when both columns have the same name (many schemas leave such keys undeclared).
"""

from __future__ import annotations

from sqlglot import exp

from wenshu.catalog import Catalog
from wenshu.sql.query_tables import column_table, one_statement, source_tables


def _key_pairs(catalog: Catalog) -> set[tuple[tuple[str, str], tuple[str, str]]]:
    pairs = set()
    for table in catalog.tables:
        links = [(c, fk.ref_table, r) for fk in table.foreign_keys for c, r in zip(fk.columns, fk.ref_columns)]
        links += [(c.name, *c.foreign_key.split(".", 1)) for c in table.columns if c.foreign_key and "." in c.foreign_key]
        for col, ref_table, ref_col in links:
            a, b = (table.name.lower(), col.lower()), (ref_table.lower(), ref_col.lower())
            pairs |= {(a, b), (b, a)}
    return pairs


def unkeyed_conditions(sql: str, catalog: Catalog, dialect: str) -> list[str]:
    """The JOIN ... ON equalities of `sql` that no key links (see the module's docstring), as SQL text."""
    tree = one_statement(sql, dialect)
    if tree is None:
        return []
    pairs, out = _key_pairs(catalog), []
    for select in tree.find_all(exp.Select):
        sources = source_tables(select)
        for join in (select.args.get("joins") or []) if sources else []:
            for eq in join.args["on"].find_all(exp.EQ) if join.args.get("on") else []:
                left, right = eq.left, eq.right
                if not (isinstance(left, exp.Column) and isinstance(right, exp.Column)):
                    continue
                a, b = column_table(left, sources, catalog), column_table(right, sources, catalog)
                if a is None or b is None:
                    continue
                x, y = (a.lower(), left.name.lower()), (b.lower(), right.name.lower())
                if x == y or (x[1] != y[1] and (x, y) not in pairs):
                    out.append(eq.sql(dialect=dialect or None))
    return out
