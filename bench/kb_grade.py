"""Grading one assistant answer of the knowledge-base set (`python -m bench kb --answers`).

An answerable question is **grounded** when both hold:

- *cited*: one of the citations the host attached is a passage of the expected document that holds the
  expected answer substring (whitespace and case ignored): the retrieval bench's rule for a hit;
- *stated*: the answer text holds the expected answer substring (whitespace and case ignored), or, for an
  answer worded differently (another language, a paraphrase), every one of the question's key facts.
  The key facts are the `says:` entries of the question (each a list of alternatives, e.g. `["七天", "7天"]`),
  or, when it has none, every number of the expected answer (thousands commas dropped, matched as whole
  numbers). A fact that the question itself holds is not a fact (echoing the question proves nothing):
  `key_facts` drops such numbers, an expected substring inside the question does not count, and the
  test of the question file refuses such `says:` entries, but for a yes/no question, which lists the
  words of the other answer under `not:` ("不包含" for "GMV包含运费吗"): an answer holding one is not stated.

A question the corpus does not answer is **refused** when no citation is attached and the answer says it
found nothing (NOT_FOUND, English or Chinese). Which tool answered is recorded: the data route (the rules
sent the request to the database) and a `query_database` step are misses for this set.
"""

from __future__ import annotations

import re
from pathlib import Path

NUMBER = re.compile(r"\d+(?:\.\d+)?")
NOT_FOUND = re.compile(
    r"not in the (uploaded )?documents|(no|not find any|n't find any) (relevant )?(passage|information|document|mention)"
    r"|(does not|doesn't|do not|don't) (say|mention|cover|contain|include)|(could not|couldn't|cannot|can't|unable to) "
    r"(find|answer)|not (mentioned|found|covered)|没有(找到|提到|提及|相关|涉及|说明|记载)|未(找到|提及|提到|涉及|说明|记载)"
    r"|找不到|无法(回答|找到|确定)|不在(文档|知识库)|文档中没有|知识库中没有", re.I)  # fmt: skip


def squash(text: str) -> str:
    return re.sub(r"\s+", "", text or "").lower()


def _numbers(text: str) -> list[str]:
    return list(dict.fromkeys(NUMBER.findall(re.sub(r"(?<=\d),(?=\d{3})", "", text or ""))))


def _has_number(text: str, number: str) -> bool:
    plain = re.sub(r"(?<=\d),(?=\d{3})", "", text or "")
    return re.search(rf"(?<![\d.]){re.escape(number)}(?![\d]|\.\d)", plain) is not None


def key_facts(item: dict) -> list[list[str]]:
    """The facts an answer must state when it does not quote the expected answer: `says:` or its numbers."""
    if item.get("says"):
        return [[alt] if isinstance(alt, str) else list(alt) for alt in item["says"]]
    asked = set(_numbers(item["q"]))
    return [[n] for n in _numbers(item["answer"]) if n not in asked]


def _holds(answer: str, fact: str) -> bool:
    return _has_number(answer, fact) if NUMBER.fullmatch(fact) else squash(fact) in squash(answer)


def stated(item: dict, answer: str) -> bool:
    if any(squash(word) in squash(answer) for word in item.get("not") or []):
        return False  # a yes/no question answered the other way ("不包含" for "包含")
    if squash(item["answer"]) in squash(answer) and squash(item["answer"]) not in squash(item["q"]):
        return True
    facts = key_facts(item)
    return bool(facts) and all(any(_holds(answer, alt) for alt in fact) for fact in facts)


def cited(item: dict, citations: list[dict]) -> bool:
    want = squash(item["answer"])
    return any(Path(c["document"]).stem == item["doc"] and want in squash(c["passage"]) for c in citations)


def refused(answer: str, citations: list[dict]) -> bool:
    return not citations and NOT_FOUND.search(answer or "") is not None


def tool_of(route: str, actions: list[str]) -> str:
    """What answered: `data route` (the rules sent it to the pipeline), `direct`, the first tool, or `none`."""
    if route in ("data", "direct"):
        return f"{route} route"
    return actions[0] if actions else "none"


def grade(item: dict, record: dict) -> dict:
    """The verdict for one stored record ({answer, route, actions, citations})."""
    answer, cites = record.get("answer", ""), record.get("citations") or []
    tool = tool_of(record.get("route", ""), record.get("actions") or [])
    if not item.get("doc"):
        return {"tool": tool, "refused": refused(answer, cites)}
    is_cited, is_stated = cited(item, cites), stated(item, answer)
    return {"tool": tool, "cited": is_cited, "stated": is_stated, "grounded": is_cited and is_stated,
            "documents_tool": tool == "search_documents"}
