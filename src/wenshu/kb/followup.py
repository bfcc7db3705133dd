"""A follow-up question rewritten with the conversation before the documents are searched.

Asked alone, "那礼品卡余额呢？" after "银行卡退款多久到账？" has lost its topic, and retrieval finds nothing
about refunds. The rewrite is deterministic, with no model call: when a question reads as a follow-up
(an opener such as 那 / 还有 / what about / and, a closing 呢, or a short question leaning on a pronoun),
the conversation's last question that stood on its own is put before it, and the follow-up's filler
words are dropped: "银行卡退款多久到账？ 礼品卡余额". A chain of follow-ups keeps that same topic. A question
that stands on its own is searched as it is.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

_ZH_OPENER = re.compile(r"^(那么|那|还有|另外|至于|如果是|要是|换成|同样)[，,\s]*")
_EN_OPENER = re.compile(r"^(what about|how about|and what about|and|also|then|same for|what if)\b[,\s]*", re.I)
_NE = re.compile(r"呢\s*$")
_END = re.compile(r"[\s?？。.!！,，]+$")
_ZH_PRONOUN = re.compile(r"它|这个|那个|这些|那些|该项|上述")
_EN_PRONOUNS = {"it", "its", "they", "them", "their", "that", "those", "this", "these", "there"}
SHORT_WORDS = 6  # an English question this short that leans on a pronoun is a follow-up
SHORT_CHARS = 10  # the same for a Chinese one, in characters


def _bare(question: str) -> str:
    return _END.sub("", question.strip())


def is_follow_up(question: str) -> bool:
    q = _bare(question)
    if not q:
        return False
    if _ZH_OPENER.match(q) or _EN_OPENER.match(q) or _NE.search(q):
        return True
    if q.isascii():
        words = re.findall(r"[a-z']+", q.lower())
        return len(words) <= SHORT_WORDS and bool(_EN_PRONOUNS.intersection(words))
    return len(q) <= SHORT_CHARS and bool(_ZH_PRONOUN.search(q))


def _gist(follow_up: str) -> str:
    """The follow-up without its opener, closing 呢 and punctuation: "那礼品卡余额呢？" -> "礼品卡余额"."""
    q = _bare(follow_up)
    q = _EN_OPENER.sub("", _ZH_OPENER.sub("", q))
    return _bare(_NE.sub("", q)) or _bare(follow_up)


def rewrite(question: str, earlier: Iterable[str] = ()) -> str:
    """The question to search: `question` itself, or for a follow-up the last standalone question of
    `earlier` (the conversation's earlier user questions, oldest first) followed by the follow-up's gist."""
    topic = next((q.strip() for q in reversed(list(earlier)) if q.strip() and not is_follow_up(q)), "")
    if not topic or not is_follow_up(question):
        return question
    return f"{topic} {_gist(question)}"
