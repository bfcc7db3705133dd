"""Decide: one structured action per turn, {action, target, reason}, decoded under a JSON schema
(grammar-constrained on the embedded model, structured output on an endpoint), validated in code and
sent back once with the reason when it cannot be used — the assistant's approach, with the shared
pieces of `providers.base` (schema_format, json_object, InvalidAnswer).

A write's new file is not part of the decision: code escaped inside a JSON string is where a small
model breaks the file. The next turn of the same conversation asks for the whole file as plain code
(tasks/compose.py), so the decision carries only what to write and why."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from langchain_core.messages import BaseMessage, HumanMessage, SystemMessage

from wenshu.prompts import render
from wenshu.providers.base import InvalidAnswer, json_object, schema_format

ACTIONS = ("read_file", "write_file", "run_command", "finish")
NEEDS_TARGET = {"read_file", "write_file", "run_command"}
# One flat object, every field required: it decodes the same under llama.cpp's grammar and an endpoint's
# strict structured output (which refuses optional fields and a top-level anyOf). For a write, `reason`
# says what to change; the file itself comes in the next turn.
SCHEMA = {
    "type": "object",
    "properties": {
        "action": {"type": "string", "enum": list(ACTIONS)},
        "target": {"type": "string"},
        "reason": {"type": "string"},
    },
    "required": ["action", "target", "reason"],
    "additionalProperties": False,
}


@dataclass(frozen=True)
class Decision:
    action: str  # one of ACTIONS, or "invalid" when the answer was unusable twice
    target: str = ""
    reason: str = ""
    content: str = ""  # a write's whole new file, filled in by tasks/compose.py


@dataclass(frozen=True)
class Turn:
    """A decision and the conversation it was made in, which a write continues (tasks/compose.py)."""

    decision: Decision
    messages: list[BaseMessage]
    answer: str  # the model's raw answer
    repair: str | None = None  # why the first answer was unusable, or None


def parse_decision(raw: str) -> Decision:
    """The model's JSON as a Decision, or InvalidAnswer saying exactly what is wrong."""
    data = json_object(raw)
    action = data.get("action")
    if action not in ACTIONS:
        raise InvalidAnswer(f'"action" must be one of {", ".join(ACTIONS)}, not {action!r}')
    fields = {k: data.get(k, "") for k in ("target", "reason")}
    wrong = [k for k, v in fields.items() if not isinstance(v, str)]
    if wrong:
        raise InvalidAnswer(f'{", ".join(wrong)} must be text')
    target = fields["target"].strip()
    if action in NEEDS_TARGET and not target:
        raise InvalidAnswer(f'"{action}" needs a "target" ({"a command" if action == "run_command" else "a file path"})')
    return Decision(action, target, fields["reason"].strip())


def task_messages(view: dict, repair: str | None = None) -> list[BaseMessage]:
    """System: the role, the action format, the rules. User: the goal, the project files, the files the
    agent opened, the steps so far (results fenced as data), a note, and on a repair what was wrong."""
    rule = "task_tests_named" if view["change_tests"] else "task_tests_new" if view["new_tests"] else "task_tests_kept"
    tests = render(rule).strip()
    system = render("task_system", commands="; ".join(view["commands"]), tests=tests)
    user = render("task_user", goal=view["goal"], tree=view["tree"], test_command=view["test_command"],
                  files=view["files"], steps=view["steps"], note=view["note"],
                  repair=render("assistant_repair", reason=repair).strip() if repair else "")  # fmt: skip
    # the system message is the same for every task with the same commands and test rule: the embedded
    # model keeps it evaluated across tasks and processes (providers/prefix_cache.py)
    return [SystemMessage(system.strip(), additional_kwargs={"prefix_cache": "task"}), HumanMessage(user.strip())]


def decide(models, view: dict, *, max_tokens: int, check: Callable[[Decision], str | None] | None = None) -> Turn:
    """The next decision; an answer unusable twice is Decision("invalid"). `check` says why a well-formed
    decision would be refused or change nothing (the host's rules): such a first answer is sent back once
    too, and a second one is taken as it is, so its refusal becomes the step's result."""

    def ask(repair: str | None) -> tuple[list[BaseMessage], str]:
        messages = task_messages(view, repair)
        return messages, models.text("strong", messages, response_format=schema_format("TaskStep", SCHEMA),
                                     max_tokens=max_tokens)  # fmt: skip

    messages, raw = ask(None)
    try:
        decision = parse_decision(raw)
        first = check(decision) if check is not None else None
        if first is None:
            return Turn(decision, messages, raw)
    except InvalidAnswer as err:
        first = str(err)
    messages, raw = ask(first)
    try:
        return Turn(parse_decision(raw), messages, raw, first)
    except InvalidAnswer as err:
        return Turn(Decision("invalid", reason=str(err)), messages, raw, first)
