"""One step of the assistant, decoded under a JSON schema built for this turn: either one of the tools
the host offered, with its arguments, or the final answer. The answer is validated in code; an invalid
one is sent back once with the reason (agent/graph.py), so a small model cannot wander off the menu."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.prompts import render
from wenshu.assistant.tools import Tool
from wenshu.providers.base import InvalidAnswer, json_object


@dataclass(frozen=True)
class Decision:
    action: str  # a tool name or "final"
    arguments: dict = field(default_factory=dict)
    answer: str = ""


InvalidStep = InvalidAnswer  # a step the model got wrong; the reason goes back in one repair


_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}
_KIND_WORDS = {"string": "text", "integer": "integer", "number": "number", "boolean": "boolean"}


def _fits(value, spec: dict) -> bool:
    """A required argument is there with the type its schema declares (text when it declares none)."""
    kind = spec.get("type", "string")
    if value is None or (isinstance(value, bool) and kind in ("integer", "number")):
        return False
    return isinstance(value, _TYPES.get(kind, (object,)))


def step_schema(tools: list[Tool]) -> dict:
    final = {"type": "object", "properties": {"action": {"const": "final"}, "answer": {"type": "string"}},
             "required": ["action", "answer"], "additionalProperties": False}  # fmt: skip
    options = [{"type": "object", "properties": {"action": {"const": t.name}, "arguments": t.parameters},
                "required": ["action", "arguments"], "additionalProperties": False} for t in tools]  # fmt: skip
    return {"anyOf": [*options, final]}


def parse_step(raw: str, tools: list[Tool]) -> Decision:
    """The model's JSON as a Decision, or InvalidStep saying exactly what is wrong."""
    data = json_object(raw)
    action = data.get("action")
    if action == "final":
        if not isinstance(data.get("answer"), str) or not data["answer"].strip():
            raise InvalidStep('"final" needs a non-empty "answer" string')
        return Decision("final", answer=data["answer"].strip())
    by_name = {t.name: t for t in tools}
    if action not in by_name:
        raise InvalidStep(f'"action" must be one of {", ".join([*by_name, "final"])}, not {action!r}')
    args = data.get("arguments")
    if not isinstance(args, dict):
        raise InvalidStep(f'"{action}" needs an "arguments" object')
    props = by_name[action].parameters.get("properties", {})
    missing = [k for k in by_name[action].parameters.get("required", []) if not _fits(args.get(k), props.get(k, {}))]
    unknown = [k for k in args if k not in props]
    if missing or unknown:
        wanted = ", ".join(f"{_KIND_WORDS.get(props.get(k, {}).get('type'), 'text')} {k}" for k in missing)
        raise InvalidStep(f'"{action}" arguments: ' + "; ".join(
            [f"missing {wanted}"] * bool(missing) + [f"unknown {', '.join(unknown)}"] * bool(unknown)))
    return Decision(action, {k: v for k, v in args.items() if k in props})


def step_messages(request: str, tools: list[Tool], skills: list, context: str, steps: list[dict],
                  repair: str | None = None, history: str = "") -> list[BaseMessage]:
    """System: role, the offered tools, the selected skills' bodies, what the datasource holds. User: the
    earlier turns of the conversation (assistant/memory.py), the request, the steps so far with their results
    marked as data, and on a repair what was wrong."""
    tool_lines = "\n".join(f"- {t.name}: {t.description} Arguments: {', '.join(t.parameters['properties'])}"
                           for t in tools)  # fmt: skip
    skill_text = "\n\n".join(render("assistant_skill", skill=s.name, body=s.body).strip() for s in skills)
    system = render("assistant_system", tools=tool_lines or "(none)", skills=skill_text, context=context)
    done = "\n".join(render("assistant_done", n=i + 1, action=s["action"], arguments=json.dumps(
        s["arguments"], ensure_ascii=False), result=s["result"]).strip() for i, s in enumerate(steps))
    user = render("assistant_user", history=history, request=request, steps=done or "(none yet)",
                  repair=render("assistant_repair", reason=repair).strip() if repair else "")
    return [SystemMessage(system.strip()), HumanMessage(user.strip())]
