"""A task as stored (WENSHU_HOME/tasks/<id>/task.json) and returned by every channel: the goal, the
folder, every step with its result summary, and once it ended, how and with which diff."""

from __future__ import annotations

import time

from pydantic import BaseModel, Field

# queued -> running -> solved | no_tests | test_command_failed | stuck | max_steps | failed | interrupted;
# solved (or, forced, any ended task with changes) -> applied
RESUMABLE = {"interrupted", "failed", "max_steps", "running", "queued"}


class TaskStep(BaseModel):
    n: int  # position among all steps, from 1
    action: str  # read_file | write_file | run_command | finish | invalid (the model's) | verify (the host's)
    target: str = ""  # a path, a command; for verify: baseline | finish | final
    reason: str = ""
    ok: bool = True
    summary: str = ""  # the signal the model reads next and the user sees
    code: str | None = None  # a refusal's or failure's stable code
    failure: str | None = None  # what failed, for the stuck detector
    outcome: str | None = None  # tests: passed | failed | no_tests | timeout | broken
    seconds: float = 0.0


class FileChange(BaseModel):
    path: str
    change: str  # added | modified
    added: int = 0
    removed: int = 0


class TaskResult(BaseModel):
    files: list[FileChange] = Field(default_factory=list)
    diff: str = ""
    verify: str | None = None  # the last verify outcome
    tests_edited: list[str] = Field(default_factory=list)  # always empty unless a check failed; reported, not hidden


class TaskRecord(BaseModel):
    id: str
    kind: str = "workspace"
    goal: str
    workspace: str  # the user's folder, absolute
    user_id: str = "local"
    status: str = "queued"
    created_at: float = Field(default_factory=time.time)
    updated_at: float = Field(default_factory=time.time)
    step_limit: int = 10  # model decisions allowed in all (a resume raises it)
    test_command: str = ""
    steps: list[TaskStep] = Field(default_factory=list)
    current: dict | None = None  # the step being taken, {n, action, target, reason}, until it is recorded
    written: list[str] = Field(default_factory=list)  # files the agent wrote, in first-write order
    opened: list[str] = Field(default_factory=list)  # files read or written, most recent last
    partial: list[str] = Field(default_factory=list)  # files shown only in part
    ending: dict | None = None  # {code, en, zh}
    result: TaskResult | None = None
    usage: dict = Field(default_factory=dict)  # llm_calls, prompt_tokens, completion_tokens, seconds

    @property
    def decisions(self) -> int:
        return sum(s.action != "verify" for s in self.steps)

    def end(self, status: str, ending) -> None:
        self.status = status
        self.ending = {"code": ending.code, "en": ending.en, "zh": ending.zh}

    def message(self, lang: str = "en") -> str:
        return (self.ending or {}).get("zh" if lang == "zh" else "en", "")
