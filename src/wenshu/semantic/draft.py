"""Draft a semantic model from a synced catalog, for a person to review (`wenshu semantic draft NAME`).

- keys → relationships (many-to-one; one-to-one when the key column is the table's primary key),
  leaving out any that would close a join cycle;
- each table → a row count; numeric columns that are no key and no code → sums;
- date and time columns → time dimensions with every grain, and the time of the table's measures;
- columns with enum labels or few distinct values, and name columns → dimensions (codes keep labels); coded
  levels (integer codes of a column named like a level, grade or rating) are proposed as ranked
  (`ordered`: "gold or higher" then names the codes from gold up);
- the headline (what "which channel does best" ranks by): the first sum of the fact table, the timed table
  that looks up the most others (the larger on a tie), else its row count.
Names come from the column comments (Chinese where the database has them) and the column names.
"""

from __future__ import annotations

import re

from wenshu.semantic.model import GRAINS, Dimension, Measure, Relationship, SemanticModel
from wenshu.semantic.paths import Forest

NUMERIC = re.compile(r"INT|REAL|NUM|DEC|FLOAT|DOUBLE|MONEY", re.I)
TEMPORAL = re.compile(r"DATE|TIME", re.I)
NAME_LIKE = re.compile(r"(^|_)(name|title|label)$|名称|名字|姓名", re.I)
# codes that rise with the name: a member level or a star rating (a tier or a rank falls as it gets better)
LEVEL_LIKE = re.compile(r"(^|_)(level|grade|rating|stars?)(_?(id|code|no))?$|等级|级别|星级", re.I)


def _id(*parts: str) -> str:
    text = re.sub(r"[^a-z0-9_]+", "_", "_".join(parts).lower()).strip("_")
    return text if re.match(r"^[a-z]", text) else f"x_{text}"


def _zh(comment: str, fallback: str) -> str:
    head = re.split(r"[，,；;（(：:]", comment or "", maxsplit=1)[0].strip()
    return head or fallback


def _en(name: str) -> str:
    return name.replace("_", " ")


def _is_time(col) -> bool:
    return bool(TEMPORAL.search(col.type or "")) or bool(re.search(r"(^|_)(date|time|day|at)$", col.name, re.I))


def _is_key(col) -> bool:
    return col.primary_key or bool(col.foreign_key) or col.name.lower().endswith("_id") or col.name.lower() == "id"


def _relationships(catalog) -> tuple[list[Relationship], list[str]]:
    forest = Forest()
    out, skipped = [], []
    for table in catalog.tables:
        for col in table.columns:
            if not col.foreign_key or "." not in col.foreign_key:
                continue
            ref_table = col.foreign_key.split(".")[0]
            if not forest.joins(table.name, ref_table):  # would close a cycle: a person picks the path meant
                skipped.append(f"{table.name}.{col.name} -> {col.foreign_key}")
                continue
            out.append(Relationship.model_validate({
                "from": f"{table.name}.{col.name}", "to": col.foreign_key,
                "cardinality": "one_to_one" if col.primary_key else "many_to_one"}))
    return out, skipped


def draft_model(catalog) -> SemanticModel:
    measures, dimensions = [], []
    for table in catalog.tables:
        time_col = next((c for c in table.columns if _is_time(c)), None)
        zh_table = _zh(table.comment, table.name)
        measures.append(Measure(id=_id(table.name, "count"), zh=f"{zh_table}数", en=f"{_en(table.name)} count",
                                table=table.name, agg="count", time=time_col.name if time_col else None))
        for col in table.columns:
            label = _zh(col.comment, col.name)
            if _is_time(col):
                dimensions.append(Dimension(id=_id(table.name, col.name), zh=label, en=_en(col.name), table=table.name,
                                            column=col.name, kind="time", grains=list(GRAINS)))
            elif col.enum or (col.low_cardinality and not NUMERIC.search(col.type or "")):
                dimensions.append(Dimension(id=_id(table.name, col.name), zh=label, en=_en(col.name), table=table.name,
                                            column=col.name, labels={str(k): str(v) for k, v in col.enum.items()},
                                            ordered=_is_level(col)))
            elif NAME_LIKE.search(col.name) or NAME_LIKE.search(col.comment or ""):
                dimensions.append(Dimension(id=_id(table.name, col.name), zh=label, en=_en(col.name), table=table.name,
                                            column=col.name))
            elif NUMERIC.search(col.type or "") and not _is_key(col):
                measures.append(Measure(id=_id(table.name, col.name, "sum"), zh=label, en=_en(col.name),
                                        table=table.name, agg="sum", expr=col.name,
                                        time=time_col.name if time_col else None))
    relationships, skipped = _relationships(catalog)
    headline = _headline(catalog, measures, relationships)
    note = "Drafted from the catalog: review names, default filters, ratios and the headline before use."
    if skipped:
        note += " Left out, as each would close a join cycle (swap one in if it is the path meant): " + "; ".join(skipped)
    return SemanticModel(datasource=catalog.datasource, relationships=relationships, measures=measures,
                         dimensions=dimensions, description=note, headline=headline)


def _is_level(col) -> bool:
    """Integer codes of a column named like a level ("member_level" 1-4): ranked, for a person to confirm."""
    named = LEVEL_LIKE.search(col.name) or LEVEL_LIKE.search(col.comment or "")
    return bool(col.enum and named) and all(re.fullmatch(r"-?\d+", str(k)) for k in col.enum)


def _headline(catalog, measures: list[Measure], relationships: list[Relationship]) -> str | None:
    """The fact table's first sum (its row count when it has none): the timed table that looks up the most others."""
    looked_up = {t.name: sum(r.from_.split(".")[0] == t.name for r in relationships) for t in catalog.tables}
    timed = {m.table for m in measures if m.time}
    facts = sorted((t for t in catalog.tables if t.name in timed),
                   key=lambda t: (-looked_up[t.name], -(t.row_count or 0)))
    if not facts:
        return None
    own = [m for m in measures if m.table == facts[0].name]
    return next((m.id for m in own if m.agg == "sum"), own[0].id if own else None)
