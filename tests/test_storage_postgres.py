"""The same store on PostgreSQL: only a URL change.

Runs against the throwaway PostgreSQL server the test fixtures start; each test gets a fresh
database (`pg_database`, tests/fixtures_servers.py), dropped afterwards. The migrations on PostgreSQL: tests/test_storage_migrations.py.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
import sqlalchemy as sa

from wenshu.errors import InputError, UnknownDatasource
from wenshu.storage.conversations import Turn
from wenshu.storage.db import open_store
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import result_cache


def test_repositories_on_postgres(pg_database):
    with open_store(pg_database) as store:
        store.datasources.add("demo", "sqlite:////tmp/demo.db", {"a": 1})
        with pytest.raises(InputError):
            store.datasources.add("demo", "sqlite:////tmp/other.db")
        assert store.datasources.get("demo").options == {"a": 1}
        store.datasources.remove("demo")
        with pytest.raises(UnknownDatasource):
            store.datasources.get("demo")

        convs = store.conversations
        cid = convs.create("alice", "demo")
        convs.add_message(cid, "user", "q1")
        convs.add_message(
            cid, "assistant", "a1", sql="SELECT 1", result_summary="one", payload={"x": [1]}
        )
        assert convs.get(cid, user_id="bob") is None
        assert convs.get(cid).title == "a1"
        assert [c.id for c in convs.list("alice")] == [cid]
        assert convs.recent_turns(cid, 3) == [Turn("q1", "SELECT 1", "one")]
        assert convs.delete(cid) and convs.messages(cid) == []

        store.audit.record(user_id="alice", status="error", timings={"t": 1.0}, cached=True)
        store.audit.record(user_id="bob")
        assert [r["user_id"] for r in store.audit.query()] == ["bob", "alice"]
        assert store.audit.query(status="error")[0]["timings"] == {"t": 1.0}
        assert len(store.audit.query(since=utcnow() - timedelta(minutes=1))) == 2

        key = store.cache.make_key("demo", "SELECT 1", 1)
        store.cache.put(
            key, datasource="demo", sql="SELECT 1", data_version=1, columns=["a"], rows=[[1]]
        )
        store.cache.put(
            key, datasource="demo", sql="SELECT 1", data_version=1, columns=["a"], rows=[[2]]
        )
        assert store.cache.get(key).rows == [[2]]
        assert store.cache.get(key).hits == 2
        with store.engine.begin() as conn:
            conn.execute(sa.update(result_cache).values(created_at=utcnow() - timedelta(hours=1)))
        assert store.cache.evict_older_than(60) == 1
