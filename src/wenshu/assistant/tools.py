"""Assistant tools: a name, a description the host retrieves by, a flat JSON schema of arguments and
a function. Results go back to the model as data (agent/decide.py wraps them), never as instructions."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field

from wenshu.assistant.wide import parts_text
from wenshu.errors import WenshuError
from wenshu.prompts import render

MAX_RESULT_CHARS = 4000


@dataclass(frozen=True)
class Tool:
    name: str
    description: str
    parameters: dict  # JSON schema of an object with flat properties
    run: Callable[[dict], str] = field(repr=False)
    terms: str = ""  # more words the host's retrieval finds it by (not shown to the model: prompts stay short)

    def call(self, arguments: dict) -> tuple[str, bool]:
        """(result text, ok); a refusal or failure comes back as text in the user's terms, never raised."""
        try:
            text = self.run(arguments)
        except WenshuError as err:
            return f"{err.code}: {err.en}", False
        except Exception as err:  # noqa: BLE001 - one tool's crash must not end the answer
            return f"tool_failed: {type(err).__name__}: {err}", False
        return (text if len(text) <= MAX_RESULT_CHARS else text[:MAX_RESULT_CHARS] + "\n… (cut)"), True


def text_params(**props: str) -> dict:
    return {"type": "object", "properties": {k: {"type": "string", "description": v} for k, v in props.items()},
            "required": list(props), "additionalProperties": False}  # fmt: skip


_PLAIN = re.compile(r"[A-Za-z0-9 ._/-]+")


def command_params(allowlist: list[str]) -> dict:
    """run_command's arguments: the command must start with an allowed one (a pattern, so the embedded model's
    grammar cannot write another; the run itself still checks the allowlist). No quote or backslash after
    it: the grammar writes the JSON string's characters as they are."""
    params = text_params(command="the command, e.g. pytest -q")
    plain = [c.strip() for c in allowlist if c.strip()]
    if plain and all(_PLAIN.fullmatch(c) for c in plain):
        params["properties"]["command"]["pattern"] = "^(" + "|".join(re.sub(r"([.])", r"\\\1", c) for c in plain) + ')( [^"\\\\]*)?$'
    return params


MAX_LISTED_FILES = 60


def workspace_context(root) -> str:
    """The system prompt's line about the workspace: its files (a small one's all, a large one's first),
    so the model names a file that is there rather than one it imagines."""
    from wenshu.workspace.files import list_files

    try:
        entries = list_files(root, ".", limit=MAX_LISTED_FILES + 1)
    except WenshuError:
        return ""
    names = [e.path + ("/" if e.kind == "dir" else "") for e in entries[:MAX_LISTED_FILES]]
    more = " …" if len(entries) > MAX_LISTED_FILES else ""
    return render("assistant_workspace", files=", ".join(names) + more).strip() if names else ""


def query_database_tool(answers: Callable[[str], list], holds: str = "") -> Tool:
    """The whole data pipeline as one tool: the question in, the answer, SQL and first rows out; a question
    too wide for one query comes back as its sub-questions' answers (`assistant.wide.DataAnswers`).
    `holds`: what the datasource measures, in its semantic model's words (`data_terms`), so the host's
    retrieval finds this tool for a question in the data's own words."""
    return Tool("query_database", "Answer a question about the numbers in the connected database (SQL is "
                "written, checked and run for you). 查询数据库中的数据。",
                text_params(question="the data question, in the user's words"),
                lambda args: parts_text(answers(args["question"])), terms=holds)  # fmt: skip


def data_terms(model, limit: int = 24) -> str:
    """What a semantic model measures and splits by, in its own Chinese and English names."""
    if model is None:
        return ""
    measures = [f"{e.zh}/{e.en}" for e in [*model.measures, *model.ratios]][:limit]
    dims = [f"{d.zh}/{d.en}" for d in model.dimensions if getattr(d, "kind", "") != "time"][: limit // 2]
    return f"Measures: {', '.join(measures)}." + (f" By: {', '.join(dims)}." if dims else "")


def mcp_tools(hub, exclude=None, listed: list | None = None) -> list[Tool]:
    """The tools of the configured MCP servers that work (`wenshu.mcp.McpHub`), named `<server>__<tool>`,
    with flat schemas; their results are data like any tool's. `exclude`: one offered in another shape;
    `listed`: the hub's tools as already listed (else they are listed, starting the servers)."""
    listed = hub.tools()[0] if listed is None else listed
    return [Tool(t.qualified, t.description, t.flat.parameters, lambda args, t=t: hub.call(t, args))
            for t in listed if t is not exclude]


def web_search_tool(search) -> Tool:
    """Web search (wenshu.search.web.WebSearch) as a tool: numbered hits with their URLs."""
    from wenshu.search.web import format_hits

    return Tool("web_search", "Search the web (the internet, online) for current public information: news, "
                "definitions, official pages. 上网搜索互联网上的公开信息（新闻、定义、官方页面）。",
                text_params(query="what to search for, in the user's words"), lambda args: format_hits(search.search(args["query"])))


def workspace_tools(root, *, allowlist: list[str], timeout_s: float, path: str) -> list[Tool]:
    from wenshu.workspace.commands import run_command
    from wenshu.workspace.files import list_files, read_text, write_text

    def ls(args: dict) -> str:
        entries = list_files(root, args.get("path") or ".", limit=200)
        return "\n".join(f"{e.path}/" if e.kind == "dir" else f"{e.path} ({e.size} B)" for e in entries) or "(empty)"

    def read(args: dict) -> str:
        text = read_text(root, args["path"])
        return f"{text.path} ({text.lines} lines{', cut' if text.truncated else ''}):\n{text.content}"

    def write(args: dict) -> str:
        done = write_text(root, args["path"], args["content"])
        return f"wrote {done.path} ({done.lines} lines)"

    def run(args: dict) -> str:
        r = run_command(root, args["command"], allowlist=allowlist, timeout_s=timeout_s, path=path)
        state = "timed out" if r.timed_out else f"exit {r.returncode}"
        return f"{' '.join(r.argv)}: {state} in {r.seconds} s\n{r.stdout[-2000:]}\n{r.stderr[-1000:]}".strip()

    return [
        Tool("list_files", "List files and folders in the workspace folder. 列出工作区文件。",
             text_params(path="a folder inside the workspace, '.' for its root"), ls),
        Tool("read_file", "Read a text file in the workspace folder: what it says, what its code or tests do. "
             "读取工作区文件的内容。", text_params(path="a file inside the workspace"), read),
        Tool("write_file", "Write a whole text file in the workspace folder. 写入工作区文件。",
             text_params(path="a file inside the workspace", content="the whole new content"), write),
        Tool("run_command", f"Run one allowed command in the workspace folder: {', '.join(allowlist)} (tests, git); "
             "files are read with read_file. 在工作区运行允许的命令。", command_params(allowlist), run),
    ]  # fmt: skip
