"""SQL skeletons: the shape of a query with its literals and identifiers abstracted away.

    skeleton("SELECT city_name, COUNT(*) AS n FROM orders WHERE status = 1 GROUP BY city_name")
    -> "SELECT _, COUNT(*) AS _ FROM _ WHERE _ = ? GROUP BY _"

Two queries with the same skeleton differ only in names and constants, so the few-shot library
uses skeletons to find examples shaped like a candidate SQL and to avoid serving near-duplicates.
"""

from __future__ import annotations

import re

import sqlglot
from rapidfuzz.distance import Indel
from sqlglot import exp

_TOKEN = re.compile(r"\?|_|[A-Za-z]+|[^\sA-Za-z]")
_STRING = re.compile(r"'(?:[^']|'')*'")
_NUMBER = re.compile(r"\b\d+(?:\.\d+)?\b")
_WORD = re.compile(r"\b[A-Za-z_\u4e00-\u9fff][\w\u4e00-\u9fff]*\b")
_KEYWORDS = frozenset(
    "select from where group by order having limit offset join left right inner outer full cross on "
    "and or not in is null as case when then else end distinct union all with between like desc asc "
    "count sum avg min max over partition".split()
)


def _abstract(node: exp.Expression) -> exp.Expression:
    if isinstance(node, exp.Literal):
        return exp.Placeholder()
    if isinstance(node, exp.Identifier):
        return exp.to_identifier("_")
    return node


def _regex_skeleton(sql: str) -> str:
    """Fallback for SQL sqlglot cannot parse: strings and numbers become ?, names become _."""
    text = _NUMBER.sub("?", _STRING.sub("?", sql))
    text = _WORD.sub(lambda m: m.group(0).upper() if m.group(0).lower() in _KEYWORDS else "_", text)
    return " ".join(text.split())


def skeleton(sql: str, dialect: str | None = None) -> str:
    """The SQL with every literal replaced by `?` and every identifier (table, column, alias) by `_`."""
    try:
        tree = sqlglot.parse_one(sql, read=dialect or None)
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError, ValueError):
        return _regex_skeleton(sql)
    if tree is None:
        return _regex_skeleton(sql)
    return tree.transform(_abstract).sql(dialect=dialect or None)


def tokens(skel: str) -> list[str]:
    return _TOKEN.findall(skel.upper())


def skeleton_similarity(a: str, b: str) -> float:
    """0..1: how alike two skeletons are, by edit distance over their tokens."""
    if not a or not b:
        return 0.0
    return Indel.normalized_similarity(tokens(a), tokens(b))
