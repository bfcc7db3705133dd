"""The assistant's turns in a conversation, stored like the data pipeline's (`agent.turns`), so a reload shows
them and the next turn sees the earlier ones.

A turn on the data route is stored by the pipeline itself (its question, its AgentResponse), which also keeps
the pipeline's own follow-up memory. A turn on the other routes is stored here: the question, then the
answer with the whole AssistantResponse as its payload (status `ok`, `fallback` or `error`; `stopped` when
stopped). The agent route's step prompt starts with the earlier turns, newest kept first, within a token
budget (`assistant_history_tokens`); each answer is cut to a few hundred characters.
"""

from __future__ import annotations

from dataclasses import dataclass

from wenshu.agent.turns import Conversations
from wenshu.contracts import AgentRequest
from wenshu.knowledge.schema_block import estimate_tokens
from wenshu.prompts import render

ANSWER_CHARS = 400


@dataclass(frozen=True)
class EarlierTurn:
    question: str
    answer: str
    data: bool  # answered by the data pipeline with SQL


class AssistantTurns:
    def __init__(self, store):
        self.repo = store.conversations
        self.turns = Conversations(store)

    def earlier(self, cid: str | None, user_id: str) -> list[EarlierTurn]:
        """The conversation's answered turns, oldest first (none for a new or another user's conversation)."""
        if not cid or self.repo.get(cid, user_id=user_id) is None:
            return []
        out, question = [], None
        for m in self.repo.messages(cid):
            if m.role == "user":
                question = m.content
            elif question is not None:
                if m.status != "stopped":
                    out.append(EarlierTurn(question, m.content, bool(m.sql)))
                question = None
        return out

    def open(self, request: AgentRequest, datasource: str, question: str) -> str:
        """The conversation (created when new), with the question stored."""
        return self.turns.open_turn(request, datasource, question)

    def close(self, cid: str, response) -> int:
        """Store the answer with its AssistantResponse; the stored message's id."""
        return self.repo.add_message(cid, "assistant", response.answer, status=response.status,
                                     payload=response.model_dump(mode="json", exclude={"message_id"}))

    def stopped(self, cid: str) -> None:
        self.turns.stopped(cid)


def history_block(turns: list[EarlierTurn], budget_tokens: int) -> str:
    """The earlier turns for the step prompt: as many of the newest as fit the budget, oldest first."""
    kept: list[str] = []
    used = 0
    for t in reversed(turns):
        answer = " ".join(t.answer.split())
        text = render("assistant_turn", question=" ".join(t.question.split()),
                      answer=answer if len(answer) <= ANSWER_CHARS else answer[:ANSWER_CHARS] + "…").strip()
        cost = estimate_tokens(text)
        if used + cost > budget_tokens:
            break
        kept.insert(0, text)
        used += cost
    return render("assistant_history", turns="\n".join(kept)).strip() if kept else ""
