"""The FastAPI application factory.

    app = create_app(settings)            # uvicorn.run(app) or `wenshu serve`

The lifespan opens the app store and the Agent once; every answer then runs in the runner's worker
threads. Every router lives under `wenshu.server.routes`, the channel ones too (the OpenAI-compatible
API in `routes.openai`, chat-robot webhooks in `routes.webhook`); the platform adapters they serve are
registered in `wenshu.channels.registry`.
"""

from __future__ import annotations

import logging
import os
from contextlib import asynccontextmanager

from fastapi import FastAPI

from wenshu.errors import WenshuError
from wenshu.providers.base import ModelClient
from wenshu.providers.registry import choose_provider
from wenshu.queue.run import open_agent
from wenshu.queue.tasks import TaskQueue
from wenshu.server.assistant_host import ServerAssistant
from wenshu.server.deps import ServerState
from wenshu.server.errors import install_error_handlers
from wenshu.server.kb_state import ServerKnowledgeBase
from wenshu.server.limits import BodySizeLimit, Limiter
from wenshu.server.limits_redis import open_rate_limiter
from wenshu.server.metrics import Metrics, MetricsMiddleware
from wenshu.server.resync import background_resync
from wenshu.server.routes import ask, assistant, audit, conversations, datasources, examples, glossary, health, meta
from wenshu.server.routes import kb, openai, semantic, stream, task_actions, tasks, web, webhook
from wenshu.server.routes.meta import wenshu_version
from wenshu.server.runner import Run, Runner
from wenshu.settings import Settings, get_settings
from wenshu.storage.redis_link import open_redis_link

log = logging.getLogger("wenshu.server")

ROUTERS = [ask.router, conversations.router, stream.router, tasks.router, datasources.router, semantic.router,
           audit.router, examples.router, glossary.router, meta.router, health.router, web.router,
           openai.router, webhook.router, kb.router, task_actions.router, task_actions.folders_router,
           assistant.router]
REMOTE_MODEL_WORKERS = 32


def answer_workers(settings: Settings, models: ModelClient | None = None) -> int:
    """`server_workers`, or when it is 0 (auto): 32 for a remote model API, whose answers mostly wait on the
    network; one for the embedded model, which answers one question at a time on all cores (a second worker
    would only wait for the model, out of sight: with one, the wait is the visible queue); else one per CPU
    core (at least 2). A local answer is CPU work in this process, and every extra running thread takes the
    GIL from the event loop that accepts requests and streams the events: with the fake model, 32 workers on
    2 cores put the first event at p99 1.4 s, 2 workers at 0.2 s (bench/server.py)."""
    if settings.server_workers > 0:
        return settings.server_workers
    try:
        provider = models.provider if models is not None else choose_provider(settings)
    except WenshuError:  # no model configured yet: the first answer will say so
        provider = "unknown"
    if provider == "embedded":
        return 1
    return REMOTE_MODEL_WORKERS if provider == "openai" else max(2, os.cpu_count() or 1)


def open_state(settings: Settings, models: ModelClient | None, bind_host: str, metrics: Metrics,
               limiter: Limiter, kb_hooks=None, redis=None) -> ServerState:
    """Open the store and the Agent (as a queue worker opens them: queue/run.py) and the runner."""
    agent = open_agent(settings, redis, models)
    store = agent.store

    def count(run: Run) -> None:
        usage = run.response.usage.llm_calls if run.response else 0
        metrics.observe_answer(run.status, usage, bool(getattr(run.response, "cached", False)))  # assistant: no cache

    runner = Runner(agent, workers=answer_workers(settings, models), keep=settings.tasks_keep, on_finish=count)
    metrics.active = runner.active_count
    from wenshu.server.workspace_tasks import WorkspaceTasks

    queue = TaskQueue(redis, settings) if redis is not None else None
    if queue is not None:
        metrics.queue_counts = queue.counts
    kb = ServerKnowledgeBase(settings, store.engine, agent, kb_hooks, queue=queue)
    return ServerState(settings=settings, store=store, agent=agent, runner=runner, metrics=metrics,
                       limiter=limiter, bind_host=bind_host, kb=kb, redis=redis, queue=queue,
                       workspace_tasks=WorkspaceTasks(settings, agent.models, queue=queue),
                       assistant=ServerAssistant(settings, store, agent, kb))


def create_app(settings: Settings | None = None, *, models: ModelClient | None = None,
               bind_host: str = "127.0.0.1", kb_hooks=None) -> FastAPI:
    """The application; `models` replaces the configured provider (tests pass the scripted fake), `kb_hooks`
    are the knowledge base's test seams (wenshu.kb.ingest.Hooks)."""
    settings = settings or get_settings()
    metrics = Metrics()
    redis = open_redis_link(settings.redis_url)  # None: the embedded defaults (docs/storage.md)
    limiter = open_rate_limiter(settings.rate_limit_per_minute, redis)
    metrics.redis_up = (lambda: int(redis.available)) if redis is not None else None

    @asynccontextmanager
    async def lifespan(app: FastAPI):
        state = open_state(settings, models, bind_host, metrics, limiter, kb_hooks, redis)
        app.state.wenshu = state
        state.kb.resume()  # documents a crash left unfinished, in the background
        try:
            async with background_resync(state.store, settings):
                yield
        finally:
            state.workspace_tasks.close()
            state.runner.close()
            state.assistant.close()
            state.store.close()

    app = FastAPI(title="Wenshu (问数) API", version=wenshu_version(), lifespan=lifespan,
                  description="Ask your database in Chinese or English. The contract: docs/api.md.")
    install_error_handlers(app)
    upload_bytes = int(settings.kb_max_file_mb * 2**20) + 2**16  # a document at the size limit, and the form around it
    app.add_middleware(BodySizeLimit, max_bytes=settings.server_max_body_bytes,
                       overrides={"/api/kb/documents": max(upload_bytes, settings.server_max_body_bytes)})
    app.add_middleware(MetricsMiddleware, metrics=metrics)  # outermost: it sees every response
    for router in ROUTERS:
        app.include_router(router)
    web.mount_static(app)
    return app
