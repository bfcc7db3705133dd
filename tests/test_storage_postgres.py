"""The same store on PostgreSQL: only a URL change.

Runs against WENSHU_TEST_PG_URL when set (a server where the user may create databases, e.g.
postgresql+psycopg://postgres@127.0.0.1:5432/postgres), else against the throwaway PostgreSQL
server the test fixtures start (`pg_server`, tests/fixtures_servers.py). Each test gets a fresh
database, dropped afterwards.
"""

from __future__ import annotations

import os
import uuid
from datetime import timedelta

import pytest
import sqlalchemy as sa

PG_URL = os.environ.get("WENSHU_TEST_PG_URL")

from wenshu.errors import InputError, UnknownDatasource  # noqa: E402
from wenshu.storage.conversations import Turn  # noqa: E402
from wenshu.storage.db import make_engine, open_store  # noqa: E402
from wenshu.storage.migrations import LATEST_VERSION, migrate  # noqa: E402
from wenshu.storage.schema import result_cache, utcnow  # noqa: E402


@pytest.fixture
def pg_url(request):
    base = PG_URL or request.getfixturevalue("pg_server").admin_url
    server = sa.create_engine(base, isolation_level="AUTOCOMMIT")
    name = f"wenshu_test_{uuid.uuid4().hex[:12]}"
    with server.connect() as conn:
        conn.exec_driver_sql(f'CREATE DATABASE "{name}"')
    try:
        yield sa.make_url(base).set(database=name).render_as_string(hide_password=False)
    finally:
        with server.connect() as conn:
            conn.exec_driver_sql(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        server.dispose()


def test_migrations_on_postgres(pg_url):
    engine = make_engine(pg_url)
    assert migrate(engine, target=1) == [1]
    engine.dispose()
    with open_store(pg_url) as store:
        assert migrate(store.engine) == []
        with store.engine.connect() as conn:
            versions = conn.execute(
                sa.text("SELECT version FROM schema_version ORDER BY 1")
            ).scalars()
            assert list(versions) == list(range(1, LATEST_VERSION + 1))


def test_repositories_on_postgres(pg_url):
    with open_store(pg_url) as store:
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
