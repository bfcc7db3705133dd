"""Where a question's answer comes from when the rules cannot tell: the chat model chooses between the
data and the documents (`prompts/route_source_*.md`, JSON under a two-value schema).

The rules (assistant/route.py) send a question that names what the datasource holds straight to the data.
Asked of the documents' rules ("How long does a refund paid by card take to arrive?"), such a question still
names the data's words; told apart by words alone it would need a word list per business. So when a passage
is relevant to it and it asks over no time window (a question of the data nearly always has one: `bench
route` found 10 of about 300 development data questions without it, 12 of 17 misrouted documents questions
of the validation sets), the model is shown what the database holds, the documents' titles and, beside the
question, the passage nearest to it, and asked to choose. Its fixed part is cached per datasource and
document list, so a choice costs the question's and the passage's tokens (about 2 s on 2 cores); with the
passage, validation documents questions routed right rose from 81.6 to 92.1 % (val) and 84.6 to 88.5 %
(val2). Any failure keeps the rules' route. A question the semantic model reads as a list of its records with the
columns it names ("products over 3,000 yuan: name, brand and list price") is the data's without asking: 7 of
those 10 development data questions, none of the documents questions of any set.
"""

from __future__ import annotations

from typing import Literal

from langchain_core.messages import HumanMessage, SystemMessage
from pydantic import BaseModel

from wenshu.errors import WenshuError
from wenshu.prompts import render
from wenshu.semantic.listing import detail
from wenshu.semantic.mentions import read

MAX_MEASURES = 30  # the database's description names at most this many measures
PASSAGE_CHARS = 240  # of the nearest passage, shown beside the question


class SourceChoice(BaseModel):
    source: Literal["data", "documents"]


def data_described(semantic, tables: list[str]) -> str:
    """What the database holds, in words the model reads: its measures' names (the semantic model's, both
    languages) and its tables."""
    measures = [f"{e.en} ({e.zh})" if e.zh and e.zh != e.en else e.en
                for e in [*semantic.measures, *semantic.ratios][:MAX_MEASURES]] if semantic is not None else []
    parts = [f"measures {', '.join(measures)}"] if measures else []
    parts += [f"tables {', '.join(tables)}"] if tables else []
    return "; ".join(parts) + "."


def lists_rows(semantic, request: str) -> bool:
    """Whether the semantic model reads the request as a list of its records with at least two columns it
    names: rows of the data, whatever a document says about them."""
    if semantic is None:
        return False
    listed = detail(semantic, read(semantic, request), request)
    return listed is not None and listed.plan is not None and len(listed.plan.columns) >= 2


def passage_line(passage) -> str:
    """The passage nearest the request as the choice reads it: where it stands and its first sentences."""
    if passage is None:
        return "(none)"
    return f"{passage.where or passage.title}: {' '.join(passage.text.split())[:PASSAGE_CHARS]}"


def choose_source(models, request: str, *, data: str, documents: str, label: str, nearest=None) -> str | None:
    """"data" | "documents" as the model reads the request, or None when it could not say. `data`: what the
    database holds (`data_described`); `documents`: the documents' lines (titles, summaries); `label`: the
    cache name of the fixed part (one per datasource); `nearest`: the passage nearest the request, shown beside it."""
    system = render("route_source_system", data=data, documents=documents).strip()
    messages = [SystemMessage(system, additional_kwargs={"prefix_cache": f"{label}#source"}),
                HumanMessage(render("route_source_user", question=request, passage=passage_line(nearest)).strip())]
    try:
        return models.structured("fast", messages, SourceChoice).source
    except (WenshuError, ValueError):
        return None
