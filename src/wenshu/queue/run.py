"""Starting a worker: `wenshu worker` calls `run_worker(settings)`.

    run_worker(settings)                 # until SIGTERM / Ctrl-C (RQ's warm shutdown: the current question ends)
    run_worker(settings, burst=True)     # until the queue is empty (tests, one-off runs)

The worker opens the app store, the demo datasource and the Agent with the server's own function
(`open_agent`, which server/app.py calls too), from the same settings, so a question is answered the same
wherever it runs.
"""

from __future__ import annotations

import logging

from wenshu.providers.base import ModelClient
from wenshu.queue.errors import QueueNeedsRedis
from wenshu.queue.host import WorkerHost
from wenshu.queue.keys import TaskKeys
from wenshu.queue.worker import make_worker
from wenshu.settings import Settings
from wenshu.storage.redis_link import check_redis, make_client, open_redis_link, redact

log = logging.getLogger("wenshu.queue")


def open_agent(settings: Settings, link=None, models: ModelClient | None = None):
    """The Agent on the app store (`agent.store`), the demo datasource built if needed, the result cache in the
    Redis of `link` (a storage.redis_link.RedisLink) when there is one: what the server and every worker answer
    with."""
    from wenshu.agent.service import Agent
    from wenshu.bootstrap import ensure_demo, open_store

    store = open_store(settings, redis=link)
    try:
        ensure_demo(settings, store)
        return Agent(settings, store, models=models)
    except Exception:
        store.close()
        raise


def open_host(settings: Settings, link, models: ModelClient | None = None) -> WorkerHost:
    agent = open_agent(settings, link, models)
    return WorkerHost(settings, agent.store, agent, TaskKeys(link.client, settings.queue_keep_s))


def run_worker(settings: Settings, *, models: ModelClient | None = None, burst: bool = False) -> None:
    """Take questions until stopped; QueueNeedsRedis without WENSHU_REDIS_URL, RedisUnusable when it is bad."""
    if not settings.redis_url:
        raise QueueNeedsRedis()
    check_redis(settings.redis_url)
    link = open_redis_link(settings.redis_url)
    host = open_host(settings, link, models)
    client = make_client(settings.redis_url)
    try:
        worker = make_worker(client, host, settings.queue_lease_s)
        log.info("worker %s takes questions from %s", worker.name, redact(settings.redis_url))
        worker.work(burst=burst, logging_level="WARNING", with_scheduler=False)
    finally:
        client.close()
        host.store.close()
        link.close()
