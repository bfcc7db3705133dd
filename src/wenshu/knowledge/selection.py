"""From fused scores to the schema block: which tables and columns, within a token budget.

- A catalog whose whole compact schema fits the budget is kept whole (catalog order, so the prompt
  prefix stays stable), with the ranking and the value hints still computed.
- Otherwise tables are taken in rank order (at most `max_tables`, and only those scoring at least
  `CUTOFF` of the best), each with the tables that join it to the ones already taken (FK paths), while
  the block fits the budget. A wide table keeps its keys, join columns, value-pinned columns and its
  best-scoring columns; the rest are counted in one line.
- Values named in the question are returned beside the block (the generate node renders them).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from wenshu.knowledge.fusion import K, Fused, ranked
from wenshu.knowledge.schema_block import estimate_tokens, render_table
from wenshu.knowledge.structure import column_prior

CUTOFF = 0.1  # a table scoring below this share of the best one is left out ...
MIN_TABLES = 3  # ... unless it is among the first few ranked tables
FULL_COLUMNS = 16  # tables this narrow are shown whole
MAX_COLUMNS = 12  # columns kept of a wider table
PRIOR_WEIGHT = 0.002  # column priors only break ties between unscored columns


@dataclass
class Picked:
    block: str = ""
    tables: list[dict] = field(default_factory=list)
    columns: list[dict] = field(default_factory=list)
    values: list[dict] = field(default_factory=list)
    tokens: int = 0
    whole: bool = False  # the whole schema, the same for every question (a stable prompt prefix)


def _columns(table, fused: Fused, keep: set[str], most: int = MAX_COLUMNS) -> list[str] | None:
    """The columns to show of one table (None: all of them)."""
    if len(table.columns) <= FULL_COLUMNS and most >= len(table.columns):
        return None
    must = [c.name for c in table.columns if c.primary_key or c.name in keep]
    score = {c.name: fused.columns.get((table.name, c.name), 0.0) + PRIOR_WEIGHT * column_prior(c)
             for c in table.columns}
    rest = sorted((c.name for c in table.columns if c.name not in must), key=lambda n: -score[n])
    return must + rest[: max(0, most - len(must))]


def _order(idx, fused: Fused, max_tables: int) -> list[str]:
    """Ranked tables above the cutoff, each followed by the tables joining it to those before it."""
    names = ranked(fused.tables)
    if not names:
        return []
    best = fused.tables[names[0]]
    top = [n for i, n in enumerate(names[:max_tables]) if i < MIN_TABLES or fused.tables[n] >= CUTOFF * best]
    order: list[str] = []
    for name in top:
        for prev in list(order):
            path = idx.graph.path(prev, name) or []
            order.extend(t for t in path[1:-1] if t not in order and t != name)
        if name not in order:
            order.append(name)
    return order


def _render(idx, fused: Fused, order: list[str], pinned: dict[str, set[str]], whole: bool, layout: str) -> dict:
    """table -> (its block in the layout, names of the columns it shows)."""
    joins = idx.graph.join_columns(order)
    out = {}
    for t in order:
        table = idx.tables[t]
        cols = None if whole else _columns(table, fused, joins.get(t, set()) | pinned.get(t, set()))
        out[t] = (render_table(table, cols, layout), [c.name for c in table.columns] if cols is None else cols)
    return out


def _shrink(table, fused: Fused, pinned: set[str], budget: int, layout: str) -> tuple[str, list[str]]:
    """The best table alone is over the budget: show fewer of its columns until it fits (at least one)."""
    for most in range(min(MAX_COLUMNS, len(table.columns)), 0, -1):
        cols = _columns(table, fused, pinned, most) or [c.name for c in table.columns]
        text = render_table(table, cols, layout)
        if estimate_tokens(text) <= budget or most == 1:
            return text, cols
    return render_table(table, [], layout), []


def full_tokens(idx, layout: str) -> int:
    """Tokens of the whole schema in a layout (the index counts the compact one; others once per index)."""
    if layout == "compact":
        return idx.full_tokens
    key = f"full_tokens_{layout}"
    if key not in idx.stats:
        idx.stats[key] = sum(estimate_tokens(render_table(t, None, layout)) for t in idx.tables.values())
    return idx.stats[key]


def select(idx, fused: Fused, value_hits, *, budget: int, max_tables: int, keep_small: bool,
           scale: float, layout: str = "compact") -> Picked:
    ref = scale / (K + 1)  # the most one document can score
    pinned: dict[str, set[str]] = {}
    for h in value_hits:
        pinned.setdefault(h.table, set()).add(h.column)
    whole = keep_small and full_tokens(idx, layout) <= budget
    if whole:
        order = list(idx.tables)
    else:
        order = _order(idx, fused, max_tables)
    blocks = _render(idx, fused, order, pinned, whole, layout)
    if order and not whole and estimate_tokens(blocks[order[0]][0]) > budget:
        blocks[order[0]] = _shrink(idx.tables[order[0]], fused, pinned.get(order[0], set()), budget, layout)
    kept, used = [], 0
    for t in order:
        cost = estimate_tokens(blocks[t][0])
        if kept and used + cost > budget and not whole:
            continue
        kept.append(t)
        used += cost
    block = "\n".join(blocks[t][0] for t in kept)
    shown = {t: set(blocks[t][1]) for t in kept}
    by_score = sorted(kept, key=lambda t: (-fused.tables.get(t, 0.0), order.index(t)))
    return Picked(
        block=block,
        tables=[{"name": t, "score": round(min(1.0, fused.tables.get(t, 0.0) / (2 * ref)), 4)} for t in by_score],
        columns=[{"table": t, "column": c, "score": round(min(1.0, fused.columns.get((t, c), 0.0) / ref), 4)}
                 for t in by_score for c in sorted(blocks[t][1], key=lambda c: -fused.columns.get((t, c), 0.0))],
        values=[h.as_dict() for h in value_hits if h.column in shown.get(h.table, ())],  # only what the block shows
        tokens=estimate_tokens(block) if block else 0,
        whole=whole,
    )

