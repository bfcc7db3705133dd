"""The assistant's deterministic front: rules first, like the data pipeline's intent gate.

- a greeting or a question about the assistant itself gets a direct answer;
- a request a skill clearly fits (`skills.select.STRONG`), that needs the workspace (files, scripts,
  tests, the workspace itself, one of its allowed commands), that a knowledge-base passage matches
  strongly, or that asks what a term means or what a rule says (DEFINITION) while a passage is relevant to
  it goes to the agent loop, whose first step then calls a tool (`needs_tool`; a skill only when it names
  the tools it works with): "How is the repurchase rate defined?" names a metric of the datasource, but its
  answer is a definition, not a number;
- a request that names nothing the datasource holds (neither a word of its catalog nor a measure its
  semantic model can read), or names its words but asks it for nothing (no measure, list, count, rank,
  trend or comparison: "Can a gold member be moved up to Platinum?"), while a passage is relevant to it
  goes to the agent loop, documents first: "差旅补贴最多可以申请多少天" asks "how many" of an expense
  rule, not of the data;
- a request that asks what may, must or should be done (RULE: "What share of an order can points pay?",
  "月度转化率能直接拿每天的转化率求平均吗"), while a passage is relevant to it, goes to the agent loop,
  documents first: a rule's question, whatever data words it uses, also when it names a period (a campaign's
  threshold "during the festival", a target against last year's; `python -m bench route`: no data question
  of any set is sent to the documents by it), though not for what could or could not be done then (DONE:
  what happened);
- a follow-up of a data answer ("只看华东区", "what about last month?": the pipeline's own follow-up rules,
  agent/intent.py) and a question that asks for numbers or names the datasource go straight to the data
  pipeline, with no tool call, unless only a weaker skill match speaks against it;
- anything else goes to the agent loop, which may still call the pipeline.
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from wenshu.agent.intent import CHITCHAT, DATA, classify_rules, names_a_value
from wenshu.agent.vocabulary import Vocabulary
from wenshu.skills.select import STRONG

DEFINITION = re.compile(r"\b(defin(e|ed|es|ition)|meaning|means|calculated|computed|formula|polic(y|ies)|rules?)\b|"
                        r"定义|口径|含义|什么意思|怎么算|怎么计算|如何计算|计算公式|规则|政策|规定", re.I)  # fmt: skip
# what may, must or should be done: a rule's question ("can points pay for the whole order?"), unless it is
# put to the assistant ("can you show…", "我需要…", "能帮我…")
RULE = re.compile(r"(?<!\bi )(?<!\bwe )\b(can|could|may|must|should|shall|allowed|eligible|entitled|required)\b"
                  r"(?!\s+(you|u|i|we)\b)|(?<!我)(?<!我们)(可以|能否|能不能|必须|应该|应当|需要|允许|(?<![功性可智技])能(?!力|源|耗))"
                  r"(?!帮|给我|列|查|看)", re.I)  # fmt: skip
# over a period, what could (not) be done is what happened ("which refunds could not be paid back last week"),
# not a rule: such words are set aside before RULE is looked for
DONE = re.compile(r"\b(could|couldn't|was able|were able)\b|[没未不]能", re.I)
# the reasons whose first step searches the documents; "source": the model chose the documents where the rules
# could not tell (assistant/source.py)
DOCUMENTS_FIRST = ("documents", "definition", "rule", "source")
WORKSPACE = re.compile(r"\b(files?|folders?|director(y|ies)|scripts?|tests?|code|readme|csv|json|yaml|python|"
                       r"pytest|workspace)\b|文件|目录|脚本|测试|代码|工作区", re.I)  # fmt: skip


def names_a_command(request: str, commands: Sequence[str]) -> bool:
    """Whether the request names one of the workspace's allowed commands ("git status", "pytest")."""
    return any(re.search(rf"(?<![\w-]){re.escape(c)}(?![\w-])", request, re.I) for c in commands if c.strip())


def wants_workspace(request: str, workspace: bool, commands: Sequence[str] = ()) -> bool:
    """A workspace is given and the request speaks of it: its files and tests, or one of its allowed commands."""
    return workspace and (WORKSPACE.search(request) is not None or names_a_command(request, commands))


def route(request: str, **facts) -> str:
    """"direct" | "data" | "agent" (`route_reason` without the reason)."""
    return route_reason(request, **facts)[0]


def route_reason(request: str, *, workspace: bool, skill_score: float | None = None,
                 vocabulary: Vocabulary | None = None, documents: bool = False, documents_found: bool = False,
                 measure_read: bool = False, data_asked: bool = True, over_period: bool = False,
                 follows_data: bool = False, values: Sequence[dict] = (), commands: Sequence[str] = ()) -> tuple[str, str]:
    """(way, why): way is "direct" | "data" | "agent"; why names the rule that chose it ("chitchat", "skill",
    "workspace", "documents", "followup", "definition", "rule", "data", "other"). `skill_score` is the best selected
    skill's score (None: no skill); `documents`: a knowledge-base passage matches the request strongly
    (assistant/documents.py); `documents_found`: a passage is relevant to it at all; `measure_read`: the
    datasource's semantic model reads a measure the request names or backs (semantic/asking.py);
    `data_asked`: as the semantic model reads it, the request asks for numbers or rows at all (a measure, a
    list, a count, a rank, a trend, a comparison; `semantic.asking.asks_the_data`); `over_period`: it asks the
    data over a time window (`semantic.asking.asked_over_period`: a rule has no "last month");
    `follows_data`: the conversation's last answer came from the data pipeline; `values`: the datasource's values the
    request names (its value index: a short turn naming one after a data answer follows it); `commands`: the
    workspace's allowed commands (a request naming one is a workspace request)."""
    names_data = vocabulary is not None and vocabulary.mentioned(request)
    if CHITCHAT.search(request) and not DATA.search(request):
        return "direct", "chitchat"
    if skill_score is not None and skill_score >= STRONG:
        return "agent", "skill"
    if wants_workspace(request, workspace, commands):
        return "agent", "workspace"
    if documents:
        return "agent", "documents"
    if follows_data and ((found := classify_rules(request, has_history=True)) is not None and found.followup
                         or names_a_value(request, list(values))):  # "上海不算的话呢"
        return "data", "followup"
    if documents_found and DEFINITION.search(request):
        return "agent", "definition"
    if documents_found and RULE.search(DONE.sub(" ", request) if over_period else request):
        return "agent", "rule"
    if documents_found and not measure_read and (not names_data or not data_asked):
        return "agent", "documents"
    if DATA.search(request) or names_data:
        return "data", "data"
    return "agent", "other"


def needs_tool(request: str, *, workspace: bool, skill=None, skill_score: float | None = None,
               documents: bool = False, commands: Sequence[str] = ()) -> bool:
    """Whether the rules sent the request to the agent loop for a tool, so its first step must call one: it
    needs the workspace, a document matches it strongly, or the skill that fits it works with tools
    (`allowed-tools` in its SKILL.md). Anything else may be answered at once."""
    skill_acts = skill is not None and bool(skill.tools) and skill_score is not None and skill_score >= STRONG
    return skill_acts or documents or wants_workspace(request, workspace, commands)
