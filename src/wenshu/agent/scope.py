"""Is a question about this database at all? Asked before any SQL is written, so a question about a
table the database does not have gets "this database has no data about X" with the closest tables,
not invented SQL.

A question is out of scope only when every sign says so: its best meaning match to any table or
column of the catalog (the recall's dense cosine, multilingual) is below `settings.scope_min_similarity`,
it names nothing of the datasource's vocabulary (tables, columns, codes, measures, dimensions), no
stored value and no glossary term, and it does not ask how much money over a period of the data.
Follow-ups are never judged: they lean on the last answer.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from wenshu.agent.vocabulary import Vocabulary
from wenshu.knowledge.time_phrases import catalog_windows
from wenshu.semantic.mentions import cue

# Function words and the words of asking, not of a subject.
_STOP = set("""a an the of in on at to for from by with and or not no is are was were be been do does did have has
had how many much what which who whom whose when where why list show give find tell me us our we you your all any
each every there their this that these those it its than then more most less least number total count sum average
mean per please about between into over under after before during some other same only just can could would
should will shall may might get got name names""".split())
_CJK_TAIL = re.compile(r"(是多少|有多少|有哪些|是什么|是谁|多少|几个|吗|呢|的)+$")


@dataclass(frozen=True)
class OffTopic:
    words: list[str]  # what the question is about, as it said it
    closest: list[str]  # the catalog's nearest tables


def subject_words(question: str, limit: int = 4) -> list[str]:
    """The words of a question that name its subject (at most `limit`)."""
    if any("\u4e00" <= ch <= "\u9fff" for ch in question):
        core = _CJK_TAIL.sub("", re.sub(r"[\s，。？！?!,.；;：:]+$", "", question.strip()))
        return [core] if core else []
    words = [w for w in re.findall(r"[A-Za-z][A-Za-z'-]+", question) if w.lower() not in _STOP and len(w) > 2]
    return list(dict.fromkeys(words))[:limit]


def off_topic(question: str, best_similarity: float | None, vocabulary: Vocabulary, *, floor: float,
              values: list | None = None, glossary: list | None = None, tables: list[str] | None = None,
              ) -> OffTopic | None:
    """An `OffTopic` when nothing ties the question to this datasource, else None."""
    if best_similarity is None or best_similarity >= floor or values or glossary:
        return None
    if vocabulary.mentioned(question):
        return None
    words = subject_words(question)
    return OffTopic(words=words, closest=list(tables or [])[:3]) if words else None


def asks_money_of_a_period(question: str, catalog=None, semantic=None) -> bool:
    """"今年到现在拢共卖了多少钱": how much money over a period the catalog holds dates for, asked of a datasource
    whose semantic model sums money (a measure with a unit). Colloquial words name no entry, yet this is the
    data's own question."""
    if catalog is None or semantic is None or not cue("money", question):
        return False
    return any(m.unit and m.agg == "sum" for m in semantic.measures) and bool(catalog_windows(question, catalog))


def judge(question: str, recalled, vocabulary: Vocabulary, *, floor: float, catalog=None,
          semantic=None) -> OffTopic | None:
    """`off_topic` on a recall result (knowledge.recall.RecallResult): what the recall step asks."""
    if asks_money_of_a_period(question, catalog, semantic):
        return None
    return off_topic(question, getattr(recalled, "best_similarity", None), vocabulary, floor=floor,
                     values=getattr(recalled, "values", None), glossary=getattr(recalled, "glossary", None),
                     tables=[t["name"] for t in recalled.tables])
