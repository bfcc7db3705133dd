"""The assistant's deterministic front: rules first, like the data pipeline's intent gate.

- a greeting or a question about the assistant itself gets a direct answer;
- a request a skill clearly fits (`skills.select.STRONG`), that needs the workspace (files, scripts,
  tests), that a knowledge-base passage matches strongly, or that asks what a term means or what a rule
  says (DEFINITION) while a passage is relevant to it goes to the agent loop: "How is the repurchase rate
  defined?" names a metric of the datasource, but its answer is a definition, not a number;
- a follow-up of a data answer ("只看华东区", "what about last month?": the pipeline's own follow-up rules,
  agent/intent.py) and a question that asks for numbers or names the datasource go straight to the data
  pipeline, with no tool call, unless only a weaker skill match speaks against it;
- anything else goes to the agent loop, which may still call the pipeline.
"""

from __future__ import annotations

import re

from wenshu.agent.intent import CHITCHAT, DATA, classify_rules
from wenshu.agent.vocabulary import Vocabulary
from wenshu.skills.select import STRONG

DEFINITION = re.compile(r"\b(defin(e|ed|es|ition)|meaning|means|calculated|computed|formula|polic(y|ies)|rules?)\b|"
                        r"定义|口径|含义|什么意思|怎么算|怎么计算|如何计算|计算公式|规则|政策|规定", re.I)  # fmt: skip
WORKSPACE = re.compile(r"\b(files?|folders?|director(y|ies)|scripts?|tests?|code|readme|csv|json|yaml|python|"
                       r"pytest)\b|文件|目录|脚本|测试|代码", re.I)  # fmt: skip


def route(request: str, *, workspace: bool, skill_score: float | None = None,
          vocabulary: Vocabulary | None = None, documents: bool = False, documents_found: bool = False,
          follows_data: bool = False) -> str:
    """"direct" | "data" | "agent"; `skill_score` is the best selected skill's score (None: no skill);
    `documents`: a knowledge-base passage matches the request strongly (assistant/documents.py);
    `documents_found`: a passage is relevant to it at all;
    `follows_data`: the conversation's last answer came from the data pipeline."""
    if CHITCHAT.search(request) and not DATA.search(request):
        return "direct"
    if (skill_score is not None and skill_score >= STRONG) or (workspace and WORKSPACE.search(request)) or documents:
        return "agent"
    if follows_data and (found := classify_rules(request, has_history=True)) is not None and found.followup:
        return "data"
    if documents_found and DEFINITION.search(request):
        return "agent"
    if DATA.search(request) or (vocabulary is not None and vocabulary.mentioned(request)):
        return "data"
    return "agent"
