"""Session memory (the data pipeline's checkpointer, storage/session_memory.py): a follow-up answered by another
process remembers the conversation, with the embedded SQLite file (processes sharing one home), with Redis and
with a PostgreSQL app store (processes with homes of their own, one app store); Redis's TTL, refreshed on use; a
Redis outage."""

from __future__ import annotations

import shutil
import time

import pytest

from wenshu.agent.service import Agent
from wenshu.bootstrap import open_store
from wenshu.contracts import AgentRequest
from wenshu.providers.base import ModelClient
from wenshu.settings import Settings
from wenshu.storage.session_postgres import PostgresSessionMemory
from wenshu.storage.session_redis import RedisSessionMemory

FIRST = ("SELECT r.region_name AS 大区, COUNT(*) AS 订单量 FROM orders o JOIN cities c ON o.city_id=c.city_id "
         "JOIN regions r ON c.region_id=r.region_id WHERE o.status = 1 GROUP BY r.region_name")
SECOND = FIRST.replace("GROUP BY", "AND r.region_name = '华东' GROUP BY")


@pytest.fixture
def processes(home, tmp_path, fake_model):
    """process(redis_url="", own_home=False, app_db_url=None, **settings) -> an Agent as another server process
    would open it: on the same app store (the SQLite file in `home` unless another URL is given); in the same
    home, or in a home of its own (another machine)."""
    opened = []

    def process(redis_url: str = "", own_home: bool = False, app_db_url: str | None = None, **overrides) -> Agent:
        where = home
        if own_home:
            where = tmp_path / f"home{len(opened)}"
            (where / "data").mkdir(parents=True)
            shutil.copy2(home / "data" / "demo.sqlite", where / "data" / "demo.sqlite")
        settings = Settings(home=where, app_db_url=app_db_url or f"sqlite:///{home / 'wenshu.db'}",
                            redis_url=redis_url, **overrides)
        store = open_store(settings)
        opened.append(store)
        from wenshu.bootstrap import ensure_demo

        ensure_demo(settings, store)
        return Agent(settings, store, models=ModelClient({"fast": fake_model, "strong": fake_model}))

    yield process
    for store in opened:
        store.close()


def _follow_up(processes, fake_model, first: dict, second: dict):
    fake_model.queue(FIRST, SECOND)
    one = processes(**first).ask(AgentRequest(message="各大区的订单量"))
    two = processes(**second).ask(AgentRequest(message="只看华东区", conversation_id=one.conversation_id))
    return one, two, fake_model.calls[-1][-1].content


SHARED = {"sqlite": lambda request: {},
          "redis": lambda request: {"redis_url": request.getfixturevalue("redis_url"), "own_home": True},
          "postgres": lambda request: {"app_db_url": request.getfixturevalue("pg_database"), "own_home": True}}


@pytest.mark.parametrize("kind", ["sqlite", "redis", "postgres"])
def test_another_process_answers_the_follow_up_with_the_conversations_memory(kind, processes, fake_model,
                                                                            request):
    shared = SHARED[kind](request)
    one, two, prompt = _follow_up(processes, fake_model, shared, shared)
    assert FIRST in prompt and "各大区的订单量" in prompt
    assert two.rows == [["华东", two.rows[0][1]]] and two.row_count == 1
    memory = processes(**shared).checkpointer
    assert isinstance(memory, RedisSessionMemory) == (kind == "redis")
    assert isinstance(memory, PostgresSessionMemory) == (kind == "postgres")
    if kind == "postgres":  # in the app store's database: both turns, whichever process answered them
        with memory.conn.connection() as conn:
            count = conn.execute("SELECT count(*) AS n FROM checkpoints WHERE thread_id = %s",
                                 (one.conversation_id,)).fetchone()["n"]
        assert count >= 2


def test_without_redis_processes_on_two_machines_do_not_share_memory(processes, fake_model):
    """The control: homes of their own and no Redis, the second process has no memory of the first turn."""
    _, _, prompt = _follow_up(processes, fake_model, {"own_home": True}, {"own_home": True})
    assert FIRST not in prompt


def test_session_memory_expires_after_its_ttl_and_each_use_refreshes_it(processes, fake_model, redis_url):
    agent = processes(redis_url=redis_url, session_ttl_s=0.8)
    fake_model.queue(FIRST)
    cid = agent.ask(AgentRequest(message="各大区的订单量")).conversation_id
    client = agent.checkpointer.link.client
    assert 0 < client.pttl(f"session:{cid}") <= 800
    time.sleep(0.5)
    assert agent.graph.get_state({"configurable": {"thread_id": cid}}).values["turns"]  # a use: TTL refreshed
    assert client.pttl(f"session:{cid}") > 500
    time.sleep(1.0)
    assert client.exists(f"session:{cid}") == 0
    assert agent.graph.get_state({"configurable": {"thread_id": cid}}).values == {}


def test_while_redis_is_down_memory_is_the_processes_own(processes, fake_model, redis_factory):
    redis = redis_factory()
    agent = processes(redis_url=redis.url, own_home=True)
    redis.stop()
    fake_model.queue(FIRST, SECOND)
    one = agent.ask(AgentRequest(message="各大区的订单量"))
    two = agent.ask(AgentRequest(message="只看华东区", conversation_id=one.conversation_id))
    assert one.error is None and two.row_count == 1 and FIRST in fake_model.calls[-1][-1].content
    redis.start()
    fake_model.queue(FIRST)
    three = agent.ask(AgentRequest(message="各大区的订单量"))
    time.sleep(agent.checkpointer.link.retry_s)
    fake_model.queue(FIRST)
    four = agent.ask(AgentRequest(message="各大区的订单量", conversation_id=three.conversation_id))
    assert four.error is None and agent.checkpointer.link.client.exists(f"session:{three.conversation_id}") == 1
