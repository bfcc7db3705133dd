"""A task run's limits, built from the settings by the caller (cli, server, bench) and passed in."""

from __future__ import annotations

from dataclasses import asdict, dataclass, field, replace

from wenshu.workspace.commands import SAFE_PATH

DEFAULT_TEST_COMMAND = "python3 -m pytest -q"


@dataclass(frozen=True)
class TaskConfig:
    max_steps: int = 10  # model decisions per run (a resume grants this many more)
    test_command: str = DEFAULT_TEST_COMMAND  # verify runs it in a clean copy
    test_timeout_s: float = 120.0
    allowlist: tuple[str, ...] = ("pytest", "python3 -m pytest", "python3 -m unittest", "ls")  # the agent's commands
    command_timeout_s: float = 120.0
    path: str = SAFE_PATH  # where commands are looked up (never the folder itself)
    tree_tokens: int = 400  # the project tree's budget in the prompt
    files_chars: int = 5000  # the open files' budget in the prompt
    decision_tokens: int = 200  # one decision: {action, target, reason}
    file_tokens: int = 1500  # the most one written file may take (each is capped by the size of the file it replaces)
    test_after_write: bool = True  # run the tests after each write, so its result says what it did to them
    keep_full: int = 2  # the latest steps shown with their whole result; older ones get one line each
    max_copy_mb: int = 200
    baseline: bool = True  # run the tests once before the first decision, so the model starts from the failures
    env: dict = field(default_factory=dict)  # more variables for the agent's commands and verify's test run

    @classmethod
    def from_settings(cls, settings, **overrides) -> "TaskConfig":
        base = cls(max_steps=settings.task_max_steps, test_command=settings.task_test_command,
                   test_timeout_s=settings.task_test_timeout_s, allowlist=tuple(settings.workspace_commands),
                   command_timeout_s=settings.workspace_command_timeout_s, path=settings.workspace_path)  # fmt: skip
        return replace(base, **{k: v for k, v in overrides.items() if v is not None})

    def to_json(self) -> dict:
        """Plain JSON (a queued workspace task carries its config to the worker that runs it)."""
        return asdict(self)

    @classmethod
    def from_json(cls, data: dict) -> "TaskConfig":
        return cls(**{**data, "allowlist": tuple(data.get("allowlist", cls.allowlist))})
