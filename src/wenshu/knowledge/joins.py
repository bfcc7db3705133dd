"""Join paths over declared foreign keys (undirected), for hints and recall closure."""

from __future__ import annotations

from collections import deque

from wenshu.knowledge.catalog import Catalog


def fk_edges(catalog: Catalog) -> dict[str, list[tuple[str, str]]]:
    """table -> [(neighbour table, join condition)], both directions."""
    edges: dict[str, list[tuple[str, str]]] = {t.name: [] for t in catalog.tables}
    for t in catalog.tables:
        for c in t.columns:
            if not c.foreign_key or "." not in c.foreign_key:
                continue
            other, other_col = c.foreign_key.split(".", 1)
            target = catalog.table(other)
            if target is None:
                continue
            cond = f"{t.name}.{c.name} = {target.name}.{other_col}"
            edges[t.name].append((target.name, cond))
            edges.setdefault(target.name, []).append((t.name, cond))
    return edges


def join_path(catalog: Catalog, sources: list[str], target: str) -> list[str] | None:
    """The shortest chain of join conditions from any of `sources` to `target` (None if unconnected)."""
    edges = fk_edges(catalog)
    names = {t.lower(): t for t in edges}
    target = names.get(target.lower(), target)
    queue = deque((names.get(s.lower(), s), []) for s in sources)
    seen = {names.get(s.lower(), s) for s in sources}
    while queue:
        table, path = queue.popleft()
        if table == target:
            return path
        for nxt, cond in edges.get(table, []):
            if nxt not in seen:
                seen.add(nxt)
                queue.append((nxt, path + [cond]))
    return None


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
