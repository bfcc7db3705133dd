"""Request dependencies (FastAPI `Annotated` style): the server state, the store, the agent, the
caller's language and the authenticated user (token checks in `server/auth.py`, shared with the MCP server).

    @router.get("/api/things")
    def things(store: StoreDep, user: CurrentUser, lang: LangDep): ...
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated

from fastapi import Depends, Request
from starlette.concurrency import run_in_threadpool

from wenshu.agent.service import Agent
from wenshu.errors import Forbidden, UnknownDatasource
from wenshu.server import auth
from wenshu.server.auth import Principal
from wenshu.server.limits import Limiter
from wenshu.server.metrics import Metrics
from wenshu.server.runner import Runner
from wenshu.settings import Settings
from wenshu.storage.datasources import DatasourceRecord
from wenshu.storage.db import Store


@dataclass
class ServerState:
    """Everything the routes share, opened once by the app's lifespan."""

    settings: Settings
    store: Store
    agent: Agent
    runner: Runner
    metrics: Metrics
    limiter: Limiter
    bind_host: str = "127.0.0.1"
    kb: object = None  # server.kb_state.ServerKnowledgeBase: the knowledge base and its summary worker
    workspace_tasks: object = None  # server/workspace_tasks.WorkspaceTasks
    assistant: object = None  # server/assistant_host.ServerAssistant: the general assistant, opened on first use
    redis: object = None  # storage.redis_link.RedisLink: the shared Redis, when WENSHU_REDIS_URL is set
    queue: object = None  # queue.tasks.TaskQueue: questions for `wenshu worker` processes, with the shared Redis

    def auth_required(self) -> bool:
        """Explicit setting first; else required off loopback or as soon as any token exists."""
        return auth.auth_required(self.settings, self.store, self.bind_host)


# The dependencies without I/O are async on purpose: FastAPI runs a plain `def` dependency in its threadpool,
# a thread hop per dependency per request (`current_user` below does the same when it needs no I/O).
async def get_state(request: Request) -> ServerState:
    return request.app.state.wenshu


StateDep = Annotated[ServerState, Depends(get_state)]


async def get_store(state: StateDep) -> Store:
    return state.store


async def get_agent(state: StateDep) -> Agent:
    return state.agent


StoreDep = Annotated[Store, Depends(get_store)]
AgentDep = Annotated[Agent, Depends(get_agent)]


def request_lang(request: Request) -> str:
    """`?lang=zh|en` wins; else a Chinese first Accept-Language; else English."""
    q = request.query_params.get("lang", "")
    if q in ("zh", "en"):
        return q
    return "zh" if request.headers.get("accept-language", "").strip().lower().startswith("zh") else "en"


async def _lang(request: Request) -> str:
    return request_lang(request)


LangDep = Annotated[str, Depends(_lang)]


async def current_user(request: Request, state: StateDep) -> Principal:
    """The authenticated caller (401 on a bad or missing token), rate limited per token: on the event loop when
    that needs no I/O (no token sent, whether one is required known without the store, the rate limit kept in
    this process), else in the threadpool (a token looked up, `auth_required` asking the store whether any
    token exists, the shared rate limit in Redis)."""
    no_io = (request.headers.get("authorization") is None and state.limiter.in_process
             and (state.settings.auth_required is not None or not auth.is_loopback(state.bind_host)))
    return _authenticate(request, state) if no_io else await run_in_threadpool(_authenticate, request, state)


def _authenticate(request: Request, state: ServerState) -> Principal:
    principal = auth.authenticate(state.store, request.headers.get("authorization"), required=state.auth_required)
    if principal.token_id is not None:
        key = f"token:{principal.token_id}"
    else:
        key = f"client:{request.client.host if request.client else '-'}"
    state.limiter.check(key)
    request.state.user_id = principal.user_id
    return principal


CurrentUser = Annotated[Principal, Depends(current_user)]


def visible_datasources(store: Store, user: Principal) -> list[DatasourceRecord]:
    return [r for r in store.datasources.list() if user.can_use(r.name)]


def require_datasource(store: Store, user: Principal, name: str) -> DatasourceRecord:
    """The datasource if it exists and the user may use it; else 404 (existence is not leaked)."""
    if not user.can_use(name):
        raise UnknownDatasource(name, [r.name for r in visible_datasources(store, user)])
    return store.datasources.get(name)


def require_admin(user: Principal) -> None:
    """Managing datasources and the shared knowledge needs the `*` grant (403 otherwise)."""
    if not user.is_admin:
        raise Forbidden("Only users granted every datasource ('*') may change datasources, examples or the glossary.",
                        "只有拥有全部数据源权限（'*'）的用户才能修改数据源、示例或术语表。")
