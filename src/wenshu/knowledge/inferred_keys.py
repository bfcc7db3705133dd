"""Foreign keys the database does not declare, inferred from names and confirmed by values.

1. Names (cheap, no data read): a column `customer_id` / `cust_id` / `CustomerID` / `country_code`
   points at a table `customer` / `customers` (a table prefix like `tbl_` or `dim_` is ignored; `cust`
   may abbreviate `customer`; `caused_by_ship_id` may point at `ship`; a column `country` at
   `countries`), or a column carries exactly the name of another table's single-column primary key
   (`concert.stadium_id` -> `stadium.stadium_id`). The parent must have a single-column primary key;
   a type mismatch only lowers the score (loosely typed schemas exist): the values decide.
   `name_candidates` lists these per table; the sync hashes the list, so a new parent table makes
   its children re-checked. (On the 20 Spider dev SQLite databases with their declared keys hidden,
   this finds 47 of the 60 declared single-column keys plus one undeclared but real one.)
2. Values (bounded): up to `OVERLAP_SAMPLE` distinct child values from the first `OVERLAP_SCAN`
   rows; the candidate holds when at least `MIN_OVERLAP` of them exist in the parent key.
   An empty child table cannot be checked: a strong name match is kept at half confidence.

Accepted keys are added as `ForeignKeyInfo(inferred=True, confidence=...)` and set the column's
`foreign_key` (with `foreign_key_inferred=True`), so join paths and schema blocks use them.
"""

from __future__ import annotations

import bisect
import re
import time
from collections import defaultdict

import sqlalchemy as sa

from wenshu.engines.registry import require
from wenshu.catalog import ForeignKeyInfo, TableInfo
from wenshu.knowledge.samples import ident

OVERLAP_SCAN = 5_000
OVERLAP_SAMPLE = 200
MIN_OVERLAP = 0.8
UNCHECKED_MIN_SCORE = 0.85
INFER_BUDGET_S = 5.0
GENERIC_KEYS = {"id", "code", "name", "key", "no", "type", "uuid"}
TABLE_PREFIXES = ("tbl_", "tb_", "t_", "dim_", "fact_", "fct_", "ods_", "dwd_", "dws_")
ID_SUFFIX = re.compile(r"^(?P<stem>.+?)_?(id|code|key)$")

Candidate = list  # [column, ref_table, ref_column, name_score] (a JSON-friendly list)


def singular(word: str) -> str:
    if word.endswith("ies") and len(word) > 4:
        return word[:-3] + "y"
    if word.endswith(("ses", "xes", "ches", "shes")):
        return word[:-2]
    if word.endswith("s") and not word.endswith("ss") and len(word) > 3:
        return word[:-1]
    return word


def _base(table: str) -> str:
    low = table.lower()
    for prefix in TABLE_PREFIXES:
        if low.startswith(prefix) and len(low) > len(prefix) + 1:
            return low[len(prefix):]
    return low


def _family(type_name: str) -> str:
    t = (type_name or "").upper()
    if "INT" in t or t in ("NUMBER", "NUMERIC", "DECIMAL") or t.startswith(("NUMERIC(", "DECIMAL(")):
        return "int"
    if any(k in t for k in ("CHAR", "TEXT", "STRING", "UUID")):
        return "text"
    return ""


def _matches(word: str, base: str) -> bool:
    return bool(word) and (word in (base, singular(base)) or singular(word) == singular(base))


def _name_score(child: TableInfo, column, parent: TableInfo, pk) -> float:
    cname, pname = column.name.lower(), pk.name.lower()
    match = ID_SUFFIX.match(cname)
    stem = match.group("stem").rstrip("_") if match else ""
    base = _base(parent.name)
    table_match = _matches(stem, base) or _matches(_base(stem), base)
    own_pk = child.primary_key == [column.name]
    if cname == pname and pname not in GENERIC_KEYS:
        return 0.95 if (table_match or not own_pk) else 0.0
    if own_pk:
        return 0.0  # a table's own id column points nowhere unless it carries the parent's key name
    if table_match:
        return 0.9
    if stem and "_" in stem and len(base) >= 3 and _matches(stem.rsplit("_", 1)[1], base):
        return 0.75  # caused_by_ship_id -> ship, current_address_id -> addresses
    if not match and _matches(cname, base):
        return 0.7  # a column named after the table: country -> countries
    if len(stem) >= 3 and singular(base).startswith(stem):
        return 0.6  # cust_id -> customers
    return 0.0


class _Parents:
    """Tables with a single-column primary key, indexed by the words a child column may use for them,
    so that finding a column's candidates costs a few lookups, not a scan of every table."""

    def __init__(self, tables: list[TableInfo]):
        self.by_word: dict[str, list] = defaultdict(list)
        self.by_key: dict[str, list] = defaultdict(list)
        prefixed = []
        for t in tables:
            if t.kind != "table" or len(t.primary_key) != 1:
                continue
            entry = (t, t.column(t.primary_key[0]))
            base = _base(t.name)
            for word in {base, singular(base)}:
                self.by_word[word].append(entry)
            self.by_key[entry[1].name.lower()].append(entry)
            prefixed.append((singular(base), entry))
        prefixed.sort(key=lambda p: p[0])
        self.words = [w for w, _ in prefixed]
        self.entries = [e for _, e in prefixed]

    def near(self, column: str) -> list:
        cname = column.lower()
        match = ID_SUFFIX.match(cname)
        stem = match.group("stem").rstrip("_") if match else ""
        words = {cname, stem, _base(stem), stem.rsplit("_", 1)[-1]} - {""}
        found = [] if cname in GENERIC_KEYS else list(self.by_key.get(cname, []))
        for word in words | {singular(w) for w in words}:
            found += self.by_word.get(word, [])
        if len(stem) >= 3:  # abbreviations: every table whose singular name starts with the stem
            i = bisect.bisect_left(self.words, stem)
            while i < len(self.words) and self.words[i].startswith(stem):
                found.append(self.entries[i])
                i += 1
        return list({id(e[0]): e for e in found}.values())


def name_candidates(tables: list[TableInfo]) -> dict[str, list[Candidate]]:
    """Per child table, its columns' best name-based parent: [[column, table, key, score], ...]."""
    parents = _Parents(tables)
    out: dict[str, list[Candidate]] = {}
    for child in tables:
        if child.kind != "table":
            continue
        declared = {c for f in child.foreign_keys for c in f.columns}
        for col in child.columns:
            if col.name in declared:
                continue
            best: Candidate | None = None
            for parent, pk in parents.near(col.name):
                if parent.name == child.name:
                    continue
                score = _name_score(child, col, parent, pk)
                fam_c, fam_p = _family(col.type), _family(pk.type)
                if fam_c and fam_p and fam_c != fam_p:
                    score *= 0.9  # loosely typed schemas do this; the values decide
                if score > 0 and (best is None or score > best[3] or (score == best[3] and parent.name < best[1])):
                    best = [col.name, parent.name, pk.name, score]
            if best is not None:
                out.setdefault(child.name, []).append(best)
    return out


def _overlap(conn: sa.Connection, child: str, column: str, parent: str, key: str) -> float | None:
    """Share of sampled distinct child values found in the parent key; None when the child is empty."""
    col = sa.column(ident(column))
    inner = sa.select(col.label("v")).select_from(sa.table(ident(child))).where(col.is_not(None)).limit(OVERLAP_SCAN)
    sub = inner.subquery("s")
    values = [r[0] for r in conn.execute(sa.select(sub.c.v).distinct().limit(OVERLAP_SAMPLE))]
    if not values:
        return None
    pk = sa.column(ident(key))
    found = conn.execute(
        sa.select(sa.func.count(sa.distinct(pk))).select_from(sa.table(ident(parent))).where(pk.in_(values))
    ).scalar()
    return (found or 0) / len(values)


def apply_inferred(conn: sa.Connection, table: TableInfo, candidates: list[Candidate],
                   tables: dict[str, TableInfo], budget_s: float = INFER_BUDGET_S) -> None:
    """Check `table`'s name candidates against the data and add the ones that hold."""
    deadline = time.monotonic() + budget_s
    for column, parent, key, score in candidates:
        col = table.column(column)
        if col is None or parent not in tables or time.monotonic() > deadline:
            continue
        try:
            ratio = _overlap(conn, table.name, column, parent, key)
        except sa.exc.DBAPIError as exc:
            if exc.connection_invalidated:
                raise
            require(conn.dialect.name).after_failed_probe(conn)
            continue  # incomparable types and the like: not a key
        if ratio is None:
            if score < UNCHECKED_MIN_SCORE:
                continue
            confidence = score * 0.5
        elif ratio < MIN_OVERLAP:
            continue
        else:
            confidence = score * ratio
        table.foreign_keys.append(ForeignKeyInfo([column], parent, [key], inferred=True,
                                                 confidence=round(confidence, 2)))
        col.foreign_key, col.foreign_key_inferred = f"{parent}.{key}", True
