"""Intent: a cheap rules gate first (like a Thought router); the fast model only when rules are unsure.

The gate's own words are the language of asking for numbers (how many, top 10, 占比, 趋势) and of
editing a last answer (只看, what about); whether a message names this datasource's tables, columns,
codes, measures or dimensions is the datasource's `Vocabulary` (agent/vocabulary.py), never a word
list of one database.
"""

from __future__ import annotations

import re
from typing import Literal

from pydantic import BaseModel

from wenshu.agent.vocabulary import Vocabulary

Intent = Literal["data", "chitchat", "out_of_scope"]
QueryType = Literal["detail", "aggregate", "trend", "share", "top_n", "compare"]


class IntentResult(BaseModel):
    intent: Intent
    query_type: QueryType = "aggregate"
    followup: bool = False
    source: Literal["rules", "model"] = "rules"


class IntentAnswer(BaseModel):
    """The JSON shape the model must produce when the rules are unsure."""

    intent: Intent
    query_type: QueryType


def _rx(*words: str) -> re.Pattern:
    return re.compile("|".join(words), re.I)


CHITCHAT = _rx(
    r"^\s*(hi|hello|hey|thanks?|thank you|good (morning|afternoon|evening))\b",
    r"^\s*(你好|您好|嗨|哈喽|谢谢|多谢|早上好|晚上好)",
    r"who are you|what can you do|你是谁|你能做什么|你会什么|怎么用|help me use",
)
OUT_OF_SCOPE = _rx(
    r"weather|poem|joke|translate|recipe|stock price|news",
    r"天气|写一?首诗|笑话|翻译|菜谱|股价|新闻|讲个故事",
)
DATA = _rx(
    r"\b(how many|how much|count|number of|total|sum|average|avg|top\s*\d*|list|show|which|per|by|trend|"
    r"share|percent|compare|most|least|highest|lowest|rank)\b",
    r"多少|数量|几个|几笔|排名|前\s*\d+|前[一二三四五六七八九十]+|每个|每天|每月|各|趋势|占比|环比|同比|统计|平均|总|"
    r"哪些|哪个|列出|明细|查询|查一下|最高|最多|最少|最低",
)
# openers that edit the last answer: narrow it, widen it, swap or split what it shows
FOLLOWUP = _rx(
    r"^\s*(only|just|what about|how about|and |instead|now |same|break it|split|excluding|except|leave out|without)",
    r"^\s*(只看|只要|那|再|换成|改成|按|拆|其中|去掉|加上|如果|除了|除去|不含|不算|排除)",
)
# with a conversation going, a turn that names only a period or a comparison edits the last answer
FOLLOWUP_ANYWHERE = _rx(
    r"\b(compared?|versus|vs|same period|last (week|month|quarter|year)|this (week|month|quarter|year)|yesterday"
    r"|the (day|week|month|quarter|year) before)\b",
    r"同期|同比|环比|相比|对比|去年|今年|上个?月|本月|这个月|上周|本周|这周|昨天|今天|季度|前一|再往前",
)
QUERY_TYPES: list[tuple[str, re.Pattern]] = [
    ("compare", _rx(r"环比|同比|对比|比较|相比|增长率?|下降|比(前一|上一?)|\bvs\b|compar|versus|growth|change from")),
    ("share", _rx(r"占比|比例|份额|百分比|share|percent|proportion|ratio")),
    ("top_n", _rx(r"top\s*\d*|前\s*\d+(?!\s*(天|日|周|个?月|年|季度|星期|小时))|"
                  r"前[一二三四五六七八九十]+(?!\s*(天|日|周|个?月|年|季度|星期|小时))|排名|排行|最多|最高|最大|最少|最低|"
                  r"highest|most|largest|lowest|least|best|worst|\brank")),
    ("trend", _rx(r"趋势|走势|每天|每日|每周|每月|按月|按天|按周|逐月|逐日|trend|over time|daily|weekly|monthly|"
                  r"per (day|week|month)|by (day|week|month)")),
    ("detail", _rx(r"明细|列出|列表|哪些|详情|清单|\blist\b|show me the|details?")),
]


def query_type_of(question: str) -> str:
    for name, pattern in QUERY_TYPES:
        if pattern.search(question):
            return name
    return "aggregate"


def _short(q: str) -> bool:
    """Short enough to lean on the last answer ("和去年同期比呢", "and vs last year?"); a longer question
    that names a period is a question of its own."""
    return len(q.split()) <= 6 if q.isascii() else len(q) <= 12


def classify_rules(question: str, *, has_history: bool, vocabulary: Vocabulary | None = None) -> IntentResult | None:
    """Decide by patterns and the datasource's vocabulary; None means the rules are unsure and the model
    should decide."""
    q = question.strip()
    qtype = query_type_of(q)
    if has_history and (FOLLOWUP.search(q) or FOLLOWUP_ANYWHERE.search(q) and _short(q)):
        return IntentResult(intent="data", query_type=qtype, followup=True)
    mentions_schema = vocabulary is not None and vocabulary.mentioned(q)
    if DATA.search(q) or mentions_schema:
        return IntentResult(intent="data", query_type=qtype, followup=has_history and len(q) <= 12)
    if CHITCHAT.search(q):
        return IntentResult(intent="chitchat")
    if OUT_OF_SCOPE.search(q):
        return IntentResult(intent="out_of_scope")
    return None


def names_a_value(question: str, values: list[dict]) -> bool:
    """With a conversation going, a short turn that names a value the data holds ("上海不算的话呢", "and for
    Berlin?") is about the data: the value index decides, not a list of openers."""
    return bool(values) and _short(question.strip())


def from_model(answer: IntentAnswer) -> IntentResult:
    return IntentResult(intent=answer.intent, query_type=answer.query_type, source="model")
