"""One typed settings object.

Sources, highest priority first: explicit keyword arguments, environment variables `WENSHU_*`,
`WENSHU_HOME/wenshu.toml`, defaults. `WENSHU_HOME` defaults to `~/.wenshu`; tests point it at a
temporary directory.
"""

from __future__ import annotations

import os
from functools import lru_cache
from pathlib import Path
from typing import Literal

from pydantic import AliasChoices, Field
from pydantic_settings import (
    BaseSettings,
    PydanticBaseSettingsSource,
    SettingsConfigDict,
    TomlConfigSettingsSource,
)

DEFAULT_MODEL_FILE = "qwen2.5-coder-1.5b-instruct-q4_k_m.gguf"
DEFAULT_MODEL_SHA256 = "cc324af070c2ecbfd324a30884d2f951a7ff756aba85cb811a6ec436933bb046"
DEFAULT_MODEL_SIZE = 1_117_320_768


def wenshu_home() -> Path:
    return Path(os.environ.get("WENSHU_HOME") or Path.home() / ".wenshu").expanduser()


# Checks whose ablation on the validation set (Spider-DK; `near_words`: biz_val) showed no gain,
# `plain_preferred` (measured live on spider_dev_200: 0.5 points lower, median 1.8 -> 5.6 s) and
# `plain_values` (where the plain reading fires: dev 15 -> 14, Spider-DK 11 -> 10 of the first 19) and
# `unkeyed_join` (live on Spider-DK: fired on 20, 3 right with it and without it, one more model call each):
# they stay available by id.
OFF_BY_DEFAULT = ("raw_rows", "ranking_order", "value_filter", "crosslingual_values", "near_words",
                  "plain_preferred", "plain_values", "unkeyed_join")


class Settings(BaseSettings):
    model_config = SettingsConfigDict(env_prefix="WENSHU_", extra="ignore", populate_by_name=True)

    home: Path = Field(default_factory=wenshu_home, description="Where Wenshu keeps its files.")
    app_db_url: str | None = Field(
        None, validation_alias=AliasChoices("wenshu_database_url", "wenshu_app_db_url"),
        description="App store URL (env WENSHU_DATABASE_URL, or WENSHU_APP_DB_URL as before): postgresql://user:"
        "password@host/wenshu or sqlite:///path; default the SQLite file wenshu.db in home.")
    database_timeout_s: float = Field(5.0, gt=0, description="Seconds to wait for the app store's PostgreSQL (a "
                                      "connection, a free pooled one), so a database that is down is an error, "
                                      "not a hang.")
    redis_url: str = Field("", description="Redis shared by every process (result cache, rate limits, session "
                           "memory), e.g. redis://host:6379/0; empty: the embedded defaults (docs/storage.md).")
    cache_ttl_s: float = Field(86400, gt=0, description="Seconds a result stays in the Redis result cache.")
    answer_cache_ttl_s: float = Field(3600, ge=0, description="Seconds a repeated first question is answered from "
                                      "the answer cache (agent/answer_cache.py) without running the graph; 0: off.")
    session_ttl_s: float = Field(8 * 3600, gt=0, description="Seconds a conversation's session memory stays in "
                                 "Redis after its last use.")
    default_datasource: str = "demo"

    # Model provider by name: "auto", or a registered provider (built in: embedded llama.cpp, any
    # OpenAI-compatible endpoint, the scripted fake; plugins add more through entry points, wenshu.plugins).
    llm_provider: str = "auto"
    llm_base_url: str | None = None
    llm_model: str | None = None
    llm_api_key: str | None = None
    llm_fast_model: str | None = Field(None, description="Model for intent/evaluation; default llm_model.")
    llm_strong_model: str | None = Field(None, description="Model for SQL; default llm_model.")
    llm_timeout_s: float = Field(120.0, gt=0, description="Seconds one request to the model endpoint may take.")
    llm_max_retries: int = Field(2, ge=0, description="Retries of a model endpoint request that timed out or got a "
                                 "5xx/429 answer, with exponential backoff (0.5 s, 1 s, 2 s ... up to 8 s).")
    llm_native_tools: bool = Field(True, description="The assistant's steps as native tool calls on a model that "
                                   "has them (an endpoint); false: JSON steps under a schema, as the embedded model.")

    model_path: Path | None = Field(None, description="A GGUF file; default the installed Qwen model.")
    model_sha256: str | None = Field(None, description="Expected SHA-256 of model_path, if known.")
    model_ctx: int = 4096
    model_threads: int = 0  # 0: all cores
    model_max_tokens: int = 384
    model_prefix_max_mb: int = Field(
        1024, description="Disk for saved prompt prefixes (WENSHU_HOME/prefix), least recently used evicted; 0: off.")
    model_prefix_min_tokens: int = Field(256, description="Shorter stable prefixes are not saved to disk.")
    model_cpu_variant: Literal["auto", "base", "avx512"] = Field(
        "auto", description="CPU backend of the portable runtime: auto picks AVX-512 where the CPU has it.")

    assistant_max_steps: int = Field(6, description="Most tool steps the assistant takes for one request.")
    assistant_history_tokens: int = Field(600, description="Token budget of the earlier turns of a conversation "
                                          "in the assistant's step prompt (newest kept first).")
    assistant_thinking_tokens: int = Field(2048, ge=0, description="Tokens an endpoint model calling tools natively "
                                           "may spend thinking in one assistant step, on top of the step's own "
                                           "400 (vLLM and DeepSeek count a reasoning model's thinking in "
                                           "max_tokens).")
    assistant_request_last: bool = Field(True, description="Once the documents' passages came back, say the "
                                         "request again after them in the step prompt (question last; one more "
                                         "grounded answer on dev2 and on val, docs/kb.md).")
    assistant_source_model: bool = Field(True, description="Let the chat model choose between the data and the "
                                         "documents for a question the rules send to the data while a passage is "
                                         "relevant to it and it asks over no time window (assistant/source.py).")
    # Workspace tools (wenshu.workspace): files and commands confined to one folder
    workspace_commands: list[str] = Field(
        default_factory=lambda: ["pytest", "python3 -m pytest", "python3 -m unittest", "ls", "git status", "git diff"],
        description="Commands a workspace may run, as argument-list prefixes (\"npm test\" allows `npm test -- x`, "
        "not `npm testify`); no shell.")
    workspace_command_timeout_s: float = Field(120.0, description="Time limit of one workspace command.")
    workspace_path: str = Field("/usr/local/bin:/usr/bin:/bin", description="PATH the workspace's commands are "
                                "looked up on (never the workspace itself).")
    workspace_roots: list[Path] = Field(
        default_factory=list, description="Folders the server may work in: a workspace task or the assistant's "
        "workspace tools over HTTP (and the web UI's task panel and assistant folder picker, which list them and "
        "their subfolders) must name one of them or a folder inside one, links resolved. Empty: the server works "
        "in no folder (the CLI is not limited).")
    # MCP servers whose tools the assistant may use (wenshu.mcp; servers listed in WENSHU_HOME/mcp.json)
    mcp_timeout_s: float = Field(20.0, description="Time limit of one MCP tool call or tool listing; past it the "
                                 "call is stopped and the assistant gets a refusal instead of an answer.")
    mcp_connect_timeout_s: float = Field(30.0, description="Time MCP servers have to start and finish the handshake "
                                         "(all of a request's servers start at once).")
    web_search: str = Field("", description="The MCP tool the assistant searches the web with, as `server/tool` "
                            "(e.g. tavily/tavily-search); empty: the first MCP tool named *search that takes a query.")
    web_search_results: int = Field(5, description="Results asked of each of a web search's (up to three) queries.")
    # Workspace tasks (wenshu.tasks, docs/tasks.md)
    task_max_steps: int = Field(10, ge=1, description="Model decisions one task run may take (a resume grants as many).")
    task_test_command: str = Field("python3 -m pytest -q", description="The command verify runs in a clean copy.")
    task_test_timeout_s: float = Field(120.0, description="Time limit of one verify run.")

    # SQL execution
    row_limit: int = 1000
    statement_timeout_s: float = 20.0
    page_size: int = 20
    max_validate_retries: int = 2
    max_evaluate_rounds: int = 2
    evaluate_with_model: bool = Field(
        False, description="Ask the fast model to judge results (rules always run)."
    )
    disabled_checks: list[str] = Field(
        default_factory=lambda: list(OFF_BY_DEFAULT), description="Accuracy checks switched off by id (the ids "
        "are in agent/checks.py; an unknown id is refused with the list). The default lists the checks that did "
        "not pay for themselves in the Spider-DK (and spider_dk_zh) ablations (README, Accuracy); [] switches "
        "every check on.")
    scope_min_similarity: float = Field(
        0.24, description="A first question whose best meaning match to any table or column is below this, and "
        "that names nothing of the datasource, is answered 'no data about X' (agent/scope.py); 0: never.")
    history_turns: int = 3
    semantic_path: bool = Field(
        True, description="Answer a business question through the datasource's semantic model when it names its "
        "measures (agent/plan.py); free SQL answers the rest. Off: free SQL answers everything.")
    sql_candidates: int = Field(
        1, description="SQL candidates per question; above 1, sampled candidates run and their results vote (agent/vote.py)."
    )
    # Query plan check (layer 3, wenshu.guard.plan): estimates above these refuse the query before it runs.
    plan_max_cost: float = Field(1e7, description="PostgreSQL: highest EXPLAIN total cost allowed.")
    plan_max_rows: float = Field(1e8, description="PostgreSQL/MySQL/MariaDB: most rows the plan may estimate to examine.")
    plan_sqlite_max_scan_rows: float = Field(
        1e9, description="SQLite: most rows examined by nested full scans (product of table sizes)."
    )
    # Resource checks (layer 3, wenshu.guard.resources / recursion): constant sizes above these refuse.
    guard_max_size: int = Field(
        1_000_000, description="Largest constant size for repeat/lpad/zeroblob/printf widths/generate_series spans."
    )
    guard_max_recursion: int = Field(100_000, description="Most rounds a recursive CTE bounded by a constant may run.")

    # Schema recall (knowledge/hybrid.py): "hybrid" fuses dense + keyword + values + structure; "full" sends all.
    recall_mode: Literal["hybrid", "full"] = "hybrid"
    recall_budget_tokens: int = Field(1500, description="Token budget of the recalled schema block.")
    recall_max_tables: int = Field(10, description="Most tables ranked into the block (join tables added).")
    recall_examples: int = Field(2, description="Few-shot examples passed with the recalled schema.")
    schema_layout: Literal["compact", "ddl"] = Field(
        "compact", description="How tables are written in the prompt: \"compact\" (a table line with its keys, one "
        "line per column) or \"ddl\" (CREATE TABLE with key lines and a few sample rows; docs/accuracy.md).")
    embed_provider: str = "embedded"  # a registered embedder (embedded, openai, a plugin's) or "none"
    vector_index: str = Field(
        "auto", description="A registered vector index: auto (sqlite-vec in a SQLite app DB when it loads, pgvector "
                            "in a PostgreSQL one when the server has it, else exact), exact (always numpy), or a "
                            "plugin's.")
    embed_base_url: str | None = None
    embed_model: str | None = None
    embed_api_key: str | None = None
    embed_threads: int = 1
    # Document knowledge base (wenshu.kb; docs/kb.md): kept files in WENSHU_HOME/kb, rows in the app store
    kb_max_file_mb: float = Field(50.0, description="Largest file `wenshu kb add` or an upload accepts, in MiB.")
    kb_summaries: bool = Field(True, description="Summarise added documents with the chat model (in the background "
                               "on the server, `wenshu kb summarize` on the command line).")
    kb_judge_found: bool = Field(False, description="Once passages came back, the embedded model's final answer first "
                                 "says whether one answers the question; when none does, the answer is 'not in the "
                                 "documents' with no citation (assistant/graph.py). Off: it refused no more "
                                 "unanswerable validation questions (docs/kb.md).")
    kb_key_sentences: int = Field(0, description="After the passages it shows, the documents tool names this many of "
                                  "their sentences closest to the question (kb/sentences.py); 0: none. Off: two "
                                  "grounded no more development answers (docs/kb.md).")
    kb_translate_queries: bool = Field(True, description="Search the documents for the question in the other "
                                       "language too (Chinese <-> English), translated by the chat model once a turn.")

    # HTTP server (`wenshu serve`; docs/api.md)
    auth_required: bool | None = Field(
        None, description="Require bearer tokens; default: when any token exists or the bind address is not loopback."
    )
    server_max_body_bytes: int = Field(1_048_576, description="Largest accepted request body (413 above).")
    rate_limit_per_minute: int = Field(120, description="Requests per minute per token (or client when local); 0: off.")
    server_workers: int = Field(
        0, description="Answers running at once, more wait in the queue; 0: auto (32 for a remote model API, "
        "else one per CPU core, at least 2: see wenshu.server.app.answer_workers).")
    sse_ping_s: float = Field(15.0, description="Seconds between keep-alive comments on an idle event stream.")
    tasks_keep: int = Field(500, description="Finished tasks kept in memory for GET /api/tasks/{id}.")
    # Task queue on Redis (wenshu.queue; docs/team.md): with redis_url set, POST /api/tasks questions go to
    # `wenshu worker` processes
    queue_lease_s: float = Field(15.0, gt=0, description="A worker renews its claim on a question every third of "
                                 "this; a claim not renewed this long (a killed worker) is given up and retried.")
    queue_retries: int = Field(1, ge=0, description="Times a question whose worker died is answered again before "
                               "it is marked failed (task_worker_lost).")
    queue_keep_s: int = Field(86400, gt=0, description="Seconds a finished queued task stays pollable.")
    queue_task_timeout_s: int = Field(1800, gt=0, description="Longest a worker spends on one queued question.")
    channel_reply_wait_s: float = Field(4.0, ge=0, description="How long a chat webhook waits for a queued answer "
                                        "before it replies that the answer will be pushed (channels with push_url).")
    resync_max_age_s: float = Field(86400, description="The server re-syncs catalogs older than this; 0: never.")
    resync_check_s: float = Field(3600, description="How often the server looks for catalogs to re-sync.")

    # Chat-bot webhook channels: POST /channels/webhook/{name} (docs/channels.md)
    webhook_secret: str | None = Field(None, description="Shared HMAC-SHA256 secret of webhook channels without their own.")
    webhook_window_s: int = Field(300, description="Replay window: signed timestamps further than this from now are refused.")
    webhook_channels: dict[str, dict[str, str]] = Field(
        default_factory=dict, description="Per channel name: {kind = 'wecom'|'feishu', secret, datasource, push_url}."
    )

    @property
    def models_dir(self) -> Path:
        return self.home / "models"

    @property
    def data_dir(self) -> Path:
        return self.home / "data"

    @property
    def resolved_model_path(self) -> Path:
        return self.model_path or self.models_dir / DEFAULT_MODEL_FILE

    @property
    def resolved_app_db_url(self) -> str:
        return self.app_db_url or f"sqlite:///{self.home / 'wenshu.db'}"

    @property
    def kb_dir(self) -> Path:
        return self.home / "kb"

    @property
    def skills_dir(self) -> Path:
        return self.home / "skills"

    @property
    def mcp_config_path(self) -> Path:
        """The MCP servers, in the `{"mcpServers": {...}}` shape Claude Desktop uses (docs/mcp.md)."""
        return self.home / "mcp.json"

    @property
    def prefix_dir(self) -> Path:
        return self.home / "prefix"

    @property
    def checkpoint_path(self) -> Path:
        return self.home / "checkpoints.sqlite"

    @property
    def fast_model_name(self) -> str | None:
        return self.llm_fast_model or self.llm_model

    @property
    def strong_model_name(self) -> str | None:
        return self.llm_strong_model or self.llm_model

    @classmethod
    def settings_customise_sources(
        cls,
        settings_cls: type[BaseSettings],
        init_settings: PydanticBaseSettingsSource,
        env_settings: PydanticBaseSettingsSource,
        dotenv_settings: PydanticBaseSettingsSource,
        file_secret_settings: PydanticBaseSettingsSource,
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        toml_file = wenshu_home() / "wenshu.toml"
        return (
            init_settings,
            env_settings,
            TomlConfigSettingsSource(settings_cls, toml_file=toml_file),
        )

    def ensure_home(self) -> Path:
        for d in (self.home, self.models_dir, self.data_dir):
            d.mkdir(parents=True, exist_ok=True)
        return self.home


@lru_cache(maxsize=1)
def get_settings() -> Settings:
    return Settings()


def reset_settings_cache() -> None:
    get_settings.cache_clear()
