"""Join paths over declared foreign keys (undirected), for hints and recall closure."""

from __future__ import annotations

from collections import deque

from wenshu.catalog.model import Catalog


JoinStep = tuple[str, str, str, str]  # (known table, its column, new table, the new table's column)


def key_edges(catalog: Catalog) -> dict[str, list[JoinStep]]:
    """table -> the key joins leaving it, both directions of every declared or inferred foreign key."""
    edges: dict[str, list[JoinStep]] = {t.name: [] for t in catalog.tables}
    for t in catalog.tables:
        for c in t.columns:
            if not c.foreign_key or "." not in c.foreign_key:
                continue
            other, other_col = c.foreign_key.split(".", 1)
            target = catalog.table(other)
            if target is None:
                continue
            edges[t.name].append((t.name, c.name, target.name, other_col))
            edges.setdefault(target.name, []).append((target.name, other_col, t.name, c.name))
    return edges


def fk_edges(catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """table -> [(neighbour table, join condition)], both directions."""
    return {t: [(s[2], _condition(s)) for s in steps] for t, steps in key_edges(catalog).items()}


def _condition(step: JoinStep) -> str:
    """`known.col = new.col`, in the direction the step walks."""
    a, ac, b, bc = step
    return f"{a}.{ac} = {b}.{bc}"


def join_steps(catalog: Catalog, sources: list[str], target: str) -> list[JoinStep] | None:
    """The shortest chain of key joins from any of `sources` to `target` ([] when `target` is
    already a source, None when unconnected)."""
    edges = key_edges(catalog)
    names = {t.lower(): t for t in edges}
    target = names.get(target.lower(), target)
    queue = deque((names.get(s.lower(), s), []) for s in sources)
    seen = {names.get(s.lower(), s) for s in sources}
    while queue:
        table, path = queue.popleft()
        if table == target:
            return path
        for step in edges.get(table, []):
            if step[2] not in seen:
                seen.add(step[2])
                queue.append((step[2], path + [step]))
    return None


def join_path(catalog: Catalog, sources: list[str], target: str) -> list[str] | None:
    """The shortest chain of join conditions from any of `sources` to `target` (None if unconnected)."""
    steps = join_steps(catalog, sources, target)
    return None if steps is None else [_condition(s) for s in steps]


def column_owners(catalog: Catalog, column: str) -> list[str]:
    return [t.name for t in catalog.tables if t.column(column)]


def where_column_lives(catalog: Catalog, column: str, present: list[str]) -> str:
    """A hint like: "`category_id` is in `products`; join order_items.product_id = products.product_id"."""
    owners = [o for o in column_owners(catalog, column) if o.lower() not in {p.lower() for p in present}]
    if not owners:
        return ""
    best = min(((o, join_path(catalog, present, o)) for o in owners),
               key=lambda op: len(op[1]) if op[1] is not None else 99)
    owner, path = best
    text = f" `{column}` is a column of `{owner}`"
    if path:
        text += "; join " + " AND ".join(path)
    return text + "."
