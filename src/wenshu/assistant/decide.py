"""One step of the assistant, decoded under a JSON schema built for this turn: either one of the tools
the host offered, with its arguments, or the final answer. The answer is validated in code; an invalid
one is sent back once with the reason (agent/graph.py), so a small model cannot wander off the menu.

An endpoint model with native tool calling (`ModelClient.native_tools`) gets the same tools as function
specs instead: its tool call is the step, its plain text the final answer, and both go through the
same validation and the same one repair (`parse_call`)."""

from __future__ import annotations

import json
from dataclasses import dataclass, field

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.i18n import pick
from wenshu.prompts import render
from wenshu.assistant.tools import Tool
from wenshu.providers.base import InvalidAnswer, json_object


@dataclass(frozen=True)
class Decision:
    action: str  # a tool name or "final"
    arguments: dict = field(default_factory=dict)
    answer: str = ""
    found: bool | None = None  # a final answer after passages came back: whether one of them answers it


InvalidStep = InvalidAnswer  # a step the model got wrong; the reason goes back in one repair


_TYPES = {"string": (str,), "integer": (int,), "number": (int, float), "boolean": (bool,)}
_KIND_WORDS = {"string": "text", "integer": "integer", "number": "number", "boolean": "boolean"}


def _fits(value, spec: dict) -> bool:
    """A required argument is there with the type its schema declares (text when it declares none)."""
    kind = spec.get("type", "string")
    if value is None or (isinstance(value, bool) and kind in ("integer", "number")):
        return False
    return isinstance(value, _TYPES.get(kind, (object,)))


def step_schema(tools: list[Tool], final: bool = True, judged: bool = False) -> dict:
    """The turn's step schema: one offered tool with its arguments, or (when `final`) the final answer;
    `judged`: the final answer first says whether a passage that came back answers the question (`found`)."""
    said = {"action": {"const": "final"}, **({"found": {"type": "boolean"}} if judged else {}), "answer": {"type": "string"}}
    answer = {"type": "object", "properties": said, "required": list(said), "additionalProperties": False}
    options = [{"type": "object", "properties": {"action": {"const": t.name}, "arguments": t.parameters},
                "required": ["action", "arguments"], "additionalProperties": False} for t in tools]  # fmt: skip
    return {"anyOf": [*options, *[answer] * final]}


def parse_step(raw: str, tools: list[Tool], final: bool = True) -> Decision:
    """The model's JSON as a Decision, or InvalidStep saying exactly what is wrong."""
    return check_step(json_object(raw), tools, final)


def parse_call(message, tools: list[Tool], final: bool = True) -> Decision:
    """An endpoint model's native answer (an AIMessage): its first tool call as a step, or its text as the
    final answer, validated like a decoded step; arguments that are not JSON are an InvalidStep too."""
    calls, broken = message.tool_calls or [], getattr(message, "invalid_tool_calls", None) or []
    if calls:
        return check_step({"action": calls[0]["name"], "arguments": calls[0]["args"]}, tools, final)
    if broken:
        why = broken[0].get("error") or "they do not parse"
        raise InvalidStep(f'the arguments of "{broken[0].get("name")}" are not one JSON object ({why})')
    content = message.content if isinstance(message.content, str) else ""
    return check_step({"action": "final", "answer": content}, tools, final)


def tool_specs(tools: list[Tool]) -> list[dict]:
    """The offered tools as OpenAI function specs, for an endpoint's native tool calling."""
    return [{"type": "function", "function": {"name": t.name, "description": t.description, "parameters": t.parameters}}
            for t in tools]  # fmt: skip


def check_step(data: dict, tools: list[Tool], final: bool = True) -> Decision:
    """A step (`{action, arguments}` or `{action: "final", answer}`) checked against the offered tools;
    `final`: whether this step may be the final answer (not when the request needs a tool first)."""
    action = data.get("action")
    if action == "final" and not final:
        raise InvalidStep(f'this request needs a tool first: call one of {", ".join(t.name for t in tools)}')
    if action == "final":
        if not isinstance(data.get("answer"), str) or not data["answer"].strip():
            raise InvalidStep('"final" needs a non-empty "answer" string')
        found = data.get("found") if isinstance(data.get("found"), bool) else None
        return Decision("final", answer=data["answer"].strip(), found=found)
    by_name = {t.name: t for t in tools}
    if action not in by_name:
        raise InvalidStep(f'"action" must be one of {", ".join([*by_name, *["final"] * final])}, not {action!r}')
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


def answer_language(lang: str | None) -> str:
    """The line naming the language the final answer is written in, once passages in any language came back
    (a Chinese question was answered in English from an English passage); "" otherwise: before any step, or
    after an empty search, it invited answers from the model's own knowledge."""
    if lang is None:
        return ""
    return render("assistant_answer_language", language=pick(lang, "English", "Chinese (中文)")).strip() + "\n"


def request_again(request: str, shown: bool) -> str:
    """The request said once more after the passages, when `shown`; "" otherwise."""
    return render("assistant_request_last", request=request).strip() + "\n" if shown else ""


def step_messages(request: str, tools: list[Tool], skills: list, context: str, steps: list[dict],
                  repair: str | None = None, history: str = "", native: bool = False, language: str | None = None,
                  judged: bool = False, again_last: bool = False) -> list[BaseMessage]:
    """System: role, the offered tools, the selected skills' bodies, what the datasource holds. User: the
    earlier turns of the conversation (assistant/memory.py), the request, the steps so far with their results
    marked as data, and on a repair what was wrong; `language` (a language code, once documents' passages came
    back): the line naming the answer's language. `native`: the model calls tools natively (an endpoint),
    so the step's format is a tool call or plain text, not one JSON object. `judged`: the final answer says
    whether a passage answers the question (`step_schema`), and the line asking for it is added. `again_last`:
    once passages came back, the request is said again after them (question last, where a small model reads
    best; setting assistant_request_last)."""
    mode = "tools" if native else "json"
    tool_lines = "\n".join(f"- {t.name}: {t.description} Arguments: {', '.join(t.parameters['properties'])}"
                           for t in tools)  # fmt: skip
    skill_text = "\n\n".join(render("assistant_skill", skill=s.name, body=s.body).strip() for s in skills)
    system = render("assistant_system", format=render(f"assistant_format_{mode}").strip(), tools=tool_lines or "(none)",
                    skills=skill_text, context=context)  # fmt: skip
    done = "\n".join(render("assistant_done", n=i + 1, action=s["action"], arguments=json.dumps(
        s["arguments"], ensure_ascii=False), result=s["result"]).strip() for i, s in enumerate(steps))
    again = render("assistant_repair" if mode == "json" else "assistant_repair_tools", reason=repair) if repair else ""
    user = render("assistant_user", history=history, request=request, steps=done or "(none yet)",
                  repair=again.strip(), next=request_again(request, language is not None and again_last)
                  + answer_language(language) + (render("assistant_found").strip() + "\n") * judged
                  + render(f"assistant_next_{mode}").strip())  # fmt: skip
    return [SystemMessage(system.strip()), HumanMessage(user.strip())]
