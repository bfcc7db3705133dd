"""The data pipeline as the assistant uses it: one question, or a question too wide for one query answered
as its sub-questions (`semantic.split`: each part of the question that names its own measures and asks
for another window or another split), each through the pipeline, then combined into one answer.

Every answer the pipeline gives in a turn is kept (`DataAnswers.parts`, then `AssistantResponse.parts`)
with its question, SQL and table, so the channels show each sub-answer's SQL and rows. Each sub-question
streams as a `subquestion` step (started with `{question, n, of}`, finished with its answer in one line);
the pipeline's own events of a sub-question are not forwarded (several SQL statements would fill the one
SQL slot of a data answer).

The rules decide "too wide" without a model call, so an ordinary data question costs what it did.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field

from wenshu.assistant.state import SubAnswer
from wenshu.assistant.stream import summary
from wenshu.contracts import AgentResponse, Event, Usage
from wenshu.i18n import pick

MAX_ROWS_TO_MODEL = 10


@dataclass
class DataAnswers:
    ask: Callable[[str], AgentResponse]  # one question through the pipeline (a step of the turn)
    split: Callable[[str], list[str]]  # a question's sub-questions when it is too wide, else []
    emit: Callable[[Event], None] = lambda event: None
    parts: list[SubAnswer] = field(default_factory=list)  # every answer of the turn, in order

    def __call__(self, question: str) -> list[SubAnswer]:
        """The answers to `question`: one, or one per sub-question when it is too wide for one query."""
        subs = self.split(question)
        if len(subs) > 1:
            return self.each(subs)
        answer = SubAnswer(question=question, response=self.ask(question))
        self.parts.append(answer)
        return [answer]

    def each(self, questions: list[str]) -> list[SubAnswer]:
        out = []
        for n, question in enumerate(questions, 1):
            self.emit(Event(type="node", node="subquestion", status="started",
                            data={"question": question, "n": n, "of": len(questions)}))  # fmt: skip
            t0 = time.perf_counter()
            resp = self.ask(question)
            self.emit(Event(type="node", node="subquestion", status="error" if resp.error else "ok",
                            ms=round((time.perf_counter() - t0) * 1000, 1),
                            data={"question": question, "detail": summary(f"{question} → {resp.answer}")}))  # fmt: skip
            out.append(SubAnswer(question=question, response=resp))
        self.parts.extend(out)
        return out


def response_text(resp: AgentResponse) -> str:
    """One pipeline answer for the model: the answer, the SQL and the first rows (data, fenced by the graph)."""
    if resp.error:
        return f"{resp.error.code}: {resp.answer}"
    head = [", ".join(resp.columns), *(", ".join(str(v) for v in r) for r in resp.rows[:MAX_ROWS_TO_MODEL])]
    return f"{resp.answer}\nSQL: {resp.sql}\nRows ({resp.row_count}):\n" + "\n".join(head)


def parts_text(parts: list[SubAnswer]) -> str:
    """The tool result of `query_database`: the answer, or each sub-question with its answer."""
    if len(parts) == 1:
        return response_text(parts[0].response)
    return "\n\n".join(f"[{n}] {p.question}\n{response_text(p.response)}" for n, p in enumerate(parts, 1))


def combined_answer(parts: list[SubAnswer], lang: str) -> str:
    """The answer to a wide question on the data route: each sub-question with its own answer."""
    head = pick(lang, f"Answered as {len(parts)} separate queries:", f"该问题分成 {len(parts)} 个查询分别回答：")
    sep = pick(lang, ": ", "：")
    return "\n".join([head, *(f"{n}. {p.question}{sep}{p.response.answer}" for n, p in enumerate(parts, 1))])


def add_usage(*usages: Usage) -> Usage:
    return Usage(llm_calls=sum(u.llm_calls for u in usages), prompt_tokens=sum(u.prompt_tokens for u in usages),
                 completion_tokens=sum(u.completion_tokens for u in usages),
                 model_ms=round(sum(u.model_ms for u in usages), 1))  # fmt: skip


def parts_usage(parts: list[SubAnswer]) -> Usage:
    """What the pipeline's answers of a turn cost, together."""
    return add_usage(*(p.response.usage for p in parts))
