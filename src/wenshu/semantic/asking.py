"""What a question asks of the data, as a datasource's semantic model reads it: the assistant's routing asks
this before it sends a request to the data pipeline or to the documents (`assistant.route`).
"""

from __future__ import annotations

from wenshu.semantic.thresholds import thresholds
from wenshu.semantic.grounding import unanswerable
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import Mentions, cue, read
from wenshu.semantic.model import SemanticModel
from wenshu.semantic.windows import question_window


def names_a_measure(model: SemanticModel | None, question: str) -> bool:
    """Whether the semantic model reads a measure the question names or backs, or the question bounds row
    values ("orders over 8,000 yuan"): the data may answer it. False without a semantic model."""
    return model is not None and (bool(thresholds(question)) or unanswerable(model, read(model, question), question) is None)


def asks_the_data(model: SemanticModel | None, question: str) -> bool:
    """Whether, as the semantic model reads it, the question asks the datasource for numbers or rows: a measure
    named or backed, a bound on row values, a list, a count, a rank, a trend or a comparison of periods.
    "Can a gold member be moved up to Platinum?" names a dimension and asks none of these: a rule, not data.
    True without a semantic model (nothing to tell them apart by)."""
    if model is None:
        return True
    m = read(model, question)  # read once: names_a_measure would read it again
    measure = bool(thresholds(question)) or unanswerable(model, m, question) is None
    return (measure or m.listing or m.rank or m.trend or m.compare != "none" or counts_the_data(m, question)
            or cue("list", question) or detail(model, m, question) is not None)


def counts_the_data(m: Mentions, question: str) -> bool:
    """Whether the question asks for a count of something the datasource holds: a count word ("多少", "how
    many") and a dimension it counts ("多少用户"), the members of a value ("how many diamond members") or a record
    it names ("几笔退款"). "How many points per yuan does a Silver member earn?" counts nothing the data holds: a
    rule's figure, not a count of rows."""
    return cue("count", question) and bool(m.counted or m.counted_values or m.records)


def asked_over_period(model: SemanticModel | None, question: str) -> bool:
    """Whether the question asks the data for something over a time window: a measure ("上周的退款金额", "GMV
    last week"), rows ("yesterday's cancelled orders"), a count, a rank, a trend or a comparison. A question
    about the data, even where a document shares its words (a refund policy): a rule has no "yesterday"."""
    return model is not None and question_window(question) is not None and asks_the_data(model, question)
