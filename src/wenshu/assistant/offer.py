"""The host's choice of tools for one turn, by retrieval over the tools' descriptions (`skills.select.scored`:
shared words, Chinese segmented, plus meaning with the embedder):

- the five offered to the model: the best-ranked, with the tools a selected skill names in `allowed-tools`
  always among them;
- whether a tool fits the request plainly, so the agent loop's first step calls one rather than answer;
- whether another tool fits a request the rules read as a data question clearly better than the data
  pipeline does ("send a message to the sales channel …" names words of the data, but a chat tool's
  description fits it far better): then it goes to the agent loop, whose first step calls a tool.

`query_database` is found also by the datasource's own measures and dimensions (`tools.data_terms`, its
`terms`: read by retrieval, not shown to the model), so a question in the data's words ranks it first and
the comparison is between descriptions, not a list of phrasings.
"""

from __future__ import annotations

from dataclasses import dataclass

from wenshu.assistant.tools import Tool
from wenshu.skills.select import scored

MAX_TOOLS = 5
DATA_TOOL = "query_database"
FITS = 0.3  # a tool's score at which it fits the request plainly
MARGIN = 0.1  # ... and by how much it must beat the data pipeline's own score


@dataclass(frozen=True)
class _Described:
    """A tool as retrieval reads it: its description and its extra `terms` (the prompt shows the description only)."""

    name: str
    description: str
    tool: Tool


def ranked(request: str, tools: list[Tool], embedder) -> list[tuple[float, Tool]]:
    """Every tool with its score for the request, best first."""
    described = [_Described(t.name, f"{t.description} {t.terms}".strip(), t) for t in tools]
    return [(score, d.tool) for score, d in scored(request, described, k=len(tools), embedder=embedder,
                                                    floor=float("-inf"))]  # fmt: skip


def offer(ranking: list[tuple[float, Tool]], pinned: list[str]) -> list[Tool]:
    """The five tools of the turn, in rank order; those in `pinned` (a skill's allowed-tools) always among them."""
    tools = [t for _, t in ranking]
    must = [t for t in tools if t.name in pinned][:MAX_TOOLS]
    rest = [t for t in tools if t not in must][: MAX_TOOLS - len(must)]
    return [t for t in tools if t in must or t in rest]


def a_tool_fits(ranking: list[tuple[float, Tool]]) -> bool:
    """Whether the best tool fits the request plainly: on the agent route its first step then calls a tool
    (a request like "explain what a cohort is" fits none, and may be answered at once)."""
    return bool(ranking) and ranking[0][0] >= FITS


def another_tool_fits(ranking: list[tuple[float, Tool]]) -> bool:
    """Whether the best tool is not the data pipeline and fits the request plainly better than it."""
    if not ranking or ranking[0][1].name == DATA_TOOL:
        return False
    data = next((score for score, t in ranking if t.name == DATA_TOOL), 0.0)
    return ranking[0][0] >= FITS and ranking[0][0] - data >= MARGIN


def leads(ranking: list[tuple[float, Tool]], name: str) -> bool:
    """Whether no tool other than `name` and the data pipeline fits the request plainly and ranks above it
    ("找出投诉退款慢的工单" shares words with a refund policy, but a ticket search tool fits it better)."""
    for score, tool in ranking:
        if tool.name == name:
            return True
        if tool.name != DATA_TOOL and score >= FITS:
            return False
    return False
