"""Audit log: record and query with filters."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta, timezone

import pytest

from wenshu.storage.db import open_store


@pytest.fixture
def store(tmp_path):
    s = open_store(f"sqlite:///{tmp_path / 'app.db'}")
    yield s
    s.close()


def test_record_and_read_back(store):
    aid = store.audit.record(
        user_id="alice",
        conversation_id="c1",
        datasource="demo",
        question="top cities",
        sql="SELECT city FROM orders",
        validation={"ok": True, "issues": []},
        retries=1,
        timings={"generate_sql": 812.5, "execute": 3.1},
        row_count=10,
        status="ok",
        cached=True,
    )
    assert isinstance(aid, int)
    (row,) = store.audit.query()
    assert row["id"] == aid
    assert row["validation"] == {"ok": True, "issues": []}
    assert row["timings"] == {"generate_sql": 812.5, "execute": 3.1}
    assert row["cached"] is True and row["retries"] == 1 and row["row_count"] == 10
    assert row["ts"].tzinfo is not None


def test_defaults(store):
    store.audit.record(question="q")
    (row,) = store.audit.query()
    assert (row["status"], row["retries"], row["cached"]) == ("ok", 0, False)
    assert row["validation"] is None and row["error_code"] is None


def test_unknown_field_is_rejected(store):
    with pytest.raises(TypeError):
        store.audit.record(question="q", nonsense=1)


def test_query_filters_and_order(store):
    base = datetime(2025, 1, 1, tzinfo=UTC)
    for i, (user, ds, status) in enumerate(
        [
            ("alice", "demo", "ok"),
            ("bob", "demo", "error"),
            ("alice", "shop", "error"),
            ("alice", "demo", "ok"),
        ]
    ):
        store.audit.record(
            ts=base + timedelta(hours=i),
            user_id=user,
            datasource=ds,
            status=status,
            question=f"q{i}",
            error_code="sql_refused" if status == "error" else None,
        )
    q = store.audit.query
    assert [r["question"] for r in q()] == ["q3", "q2", "q1", "q0"]
    assert [r["question"] for r in q(limit=2)] == ["q3", "q2"]
    assert [r["question"] for r in q(user_id="alice")] == ["q3", "q2", "q0"]
    assert [r["question"] for r in q(datasource="demo")] == ["q3", "q1", "q0"]
    assert [r["question"] for r in q(status="error")] == ["q2", "q1"]
    assert [r["question"] for r in q(user_id="alice", status="error", datasource="shop")] == ["q2"]
    assert [r["question"] for r in q(since=base + timedelta(hours=2))] == ["q3", "q2"]
    # An aware `since` in another zone means the same instant.
    cst = timezone(timedelta(hours=8))
    assert [r["question"] for r in q(since=datetime(2025, 1, 1, 9, tzinfo=cst))] == [
        "q3",
        "q2",
        "q1",
    ]
    assert q(user_id="nobody") == []
