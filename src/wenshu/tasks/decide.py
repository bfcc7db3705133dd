"""Decide: one structured action per turn, {action, target, reason, content}, decoded under a JSON schema
(grammar-constrained on the embedded model, structured output on an endpoint), validated in code and
sent back once with the reason when it cannot be used — the assistant's approach, with the shared
pieces of `providers.base` (schema_format, json_object, InvalidAnswer). A small model writes whole
files, so `content` is a complete file and there is no diff format to break."""

from __future__ import annotations

from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.prompts import render
from wenshu.providers.base import InvalidAnswer, json_object, schema_format

ACTIONS = ("read_file", "write_file", "run_command", "finish")
NEEDS_TARGET = {"read_file", "write_file", "run_command"}
# One flat object, every field required: it decodes the same under llama.cpp's grammar and an endpoint's
# strict structured output (which refuses optional fields and a top-level anyOf). `reason` comes before
# `content`, so the model says what it does before it writes a whole file.
SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "target": {"type": "string"},
        "reason": {"type": "string"},
        "content": {"type": "string"},
    },
    "required": ["action", "target", "reason", "content"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Decision:
    action: str  # one of ACTIONS, or "invalid" when the answer was unusable twice
    target: str = ""
    reason: str = ""
    content: str = ""


def parse_decision(raw: str) -> Decision:
    """The model's JSON as a Decision, or InvalidAnswer saying exactly what is wrong."""
    data = json_object(raw)
    action = data.get("action")
    if action not in ACTIONS:
        raise InvalidAnswer(f'"action" must be one of {", ".join(ACTIONS)}, not {action!r}')
    fields = {k: data.get(k, "") for k in ("target", "reason", "content")}
    wrong = [k for k, v in fields.items() if not isinstance(v, str)]
    if wrong:
        raise InvalidAnswer(f'{", ".join(wrong)} must be text')
    target = fields["target"].strip()
    if action in NEEDS_TARGET and not target:
        raise InvalidAnswer(f'"{action}" needs a "target" ({"a command" if action == "run_command" else "a file path"})')
    if action == "write_file" and "content" not in data:
        raise InvalidAnswer('"write_file" needs a "content": the whole new file')
    return Decision(action, target, fields["reason"].strip(), fields["content"] if action == "write_file" else "")


def task_messages(view: dict, repair: str | None = None) -> list[BaseMessage]:
    """System: the role, the action format, the rules. User: the goal, the project files, the files the
    agent opened, the steps so far (results fenced as data), a note, and on a repair what was wrong."""
    rule = "task_tests_named" if view["change_tests"] else "task_tests_new" if view["new_tests"] else "task_tests_kept"
    tests = render(rule).strip()
    system = render("task_system", commands="; ".join(view["commands"]), tests=tests)
    user = render("task_user", goal=view["goal"], tree=view["tree"], test_command=view["test_command"],
                  files=view["files"], steps=view["steps"], note=view["note"],
                  repair=render("assistant_repair", reason=repair).strip() if repair else "")  # fmt: skip
    return [SystemMessage(system.strip()), HumanMessage(user.strip())]


def decide(models, view: dict, *, max_tokens: int) -> tuple[Decision, str | None]:
    """(decision, why the first answer was unusable or None); an answer unusable twice is Decision("invalid")."""

    def ask(repair: str | None) -> Decision:
        raw = models.text("strong", task_messages(view, repair), response_format=schema_format("TaskStep", SCHEMA),
                          max_tokens=max_tokens)  # fmt: skip
        return parse_decision(raw)

    try:
        return ask(None), None
    except InvalidAnswer as err:
        first = str(err)
    try:
        return ask(first), first
    except InvalidAnswer as err:
        return Decision("invalid", reason=str(err)), first
