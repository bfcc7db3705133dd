"""A follow-up to a detail list that adds or drops a column ("原因那列去掉吧", "再加上手机号", "can you add the
city each of those orders ships to?"): the list's columns change, nothing else. The columns are the fields the
follow-up names (`semantic.fields`), added after those the list shows or taken out of them; a list that showed
its record's default columns starts from those.
"""

from __future__ import annotations

import re

from wenshu.semantic.fields import named_fields
from wenshu.semantic.model import Record, SemanticModel
from wenshu.semantic.plan import QueryPlan

ADD_COLUMN = r"加上|再加|加一列|加个|添加|增加|补上|带上|也显示|\badd\b|\binclude\b|\balso show\b|\bshow also\b"
DROP_COLUMN = r"去掉|删掉|删除|拿掉|不要|不用|不显示|隐藏|\bdrop\b|\bremove\b|\bwithout\b|\bhide\b|\bget rid of\b|\bleave out\b"


def edited_columns(previous: QueryPlan, record: Record, model: SemanticModel, question: str) -> list[str] | None:
    """The list's columns after the follow-up adds or drops named fields; None when it does neither."""
    named = list(dict.fromkeys(f for f, _, _ in named_fields(model, record, question)))
    if not named:
        return None
    current = list(previous.columns or record.columns)
    if re.search(DROP_COLUMN, question, re.I):
        kept = [c for c in current if c not in named]
        return kept if kept and kept != current else None
    if re.search(ADD_COLUMN, question, re.I):
        added = [f for f in named if f not in current]
        return current + added if added else None
    return None
