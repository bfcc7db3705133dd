"""Schema migrations: fresh install, upgrade from version 1, idempotence, atomicity."""

from __future__ import annotations

import pytest
import sqlalchemy as sa

from wenshu.storage import migrations
from wenshu.storage.db import make_engine, open_store
from wenshu.storage.migrations import LATEST_VERSION, current_version, migrate
from wenshu.storage.schema import metadata, schema_version, utcnow


def _url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'app.db'}"


def _version_rows(engine) -> list[int]:
    with engine.connect() as conn:
        return list(
            conn.exec_driver_sql("SELECT version FROM schema_version ORDER BY version").scalars()
        )


def test_fresh_store_is_at_latest_and_matches_metadata(tmp_path):
    store = open_store(_url(tmp_path))
    try:
        assert LATEST_VERSION >= 2
        assert _version_rows(store.engine) == list(range(1, LATEST_VERSION + 1))
        insp = sa.inspect(store.engine)
        assert set(insp.get_table_names()) == set(metadata.tables)
        for table in metadata.sorted_tables:
            got = {c["name"]: c["nullable"] for c in insp.get_columns(table.name)}
            want = {c.name: c.nullable for c in table.columns}
            assert got == want, table.name
            got_ix = {ix["name"] for ix in insp.get_indexes(table.name)}
            assert got_ix == {ix.name for ix in table.indexes}, table.name
    finally:
        store.close()


def test_sqlite_engine_settings(tmp_path):
    store = open_store(_url(tmp_path))
    try:
        with store.engine.connect() as conn:
            assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
            assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0
    finally:
        store.close()


def test_upgrade_from_version_1_keeps_data(tmp_path):
    engine = make_engine(_url(tmp_path))
    assert migrate(engine, target=1) == [1]
    insp = sa.inspect(engine)
    assert "datasources" in insp.get_table_names()
    assert "audit_log" not in insp.get_table_names()
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO datasources (name, url, dialect, created_at) "
                "VALUES ('old', 'sqlite:///old.db', 'sqlite', '2024-01-02 03:04:05.000000')"
            )
        )
    engine.dispose()

    store = open_store(_url(tmp_path))
    try:
        assert _version_rows(store.engine) == list(range(1, LATEST_VERSION + 1))
        assert store.datasources.get("old").url == "sqlite:///old.db"
        assert store.audit.record(question="q") > 0
    finally:
        store.close()


def test_opening_twice_is_a_no_op(tmp_path):
    open_store(_url(tmp_path)).close()
    engine = make_engine(_url(tmp_path))
    try:
        before = _version_rows(engine)
        assert migrate(engine) == []
        assert _version_rows(engine) == before
    finally:
        engine.dispose()
    store = open_store(_url(tmp_path))
    try:
        with store.engine.connect() as conn:
            assert current_version(conn) == LATEST_VERSION
    finally:
        store.close()


def test_failed_migration_leaves_nothing_behind(tmp_path, monkeypatch):
    def broken(conn):
        conn.execute(sa.text("CREATE TABLE half_done (x INTEGER)"))
        raise RuntimeError("boom")

    engine = make_engine(_url(tmp_path))
    try:
        migrate(engine, target=1)
        monkeypatch.setattr(migrations, "MIGRATIONS", [*migrations.MIGRATIONS[:1], (2, broken)])
        with pytest.raises(RuntimeError):
            migrate(engine, target=2)
        assert "half_done" not in sa.inspect(engine).get_table_names()
        assert _version_rows(engine) == [1]
    finally:
        engine.dispose()


def test_newer_schema_is_refused(tmp_path):
    engine = make_engine(_url(tmp_path))
    try:
        migrate(engine)
        with engine.begin() as conn:
            conn.execute(schema_version.insert().values(version=999, applied_at=utcnow()))
        with pytest.raises(migrations.SchemaTooNew):
            migrate(engine)
    finally:
        engine.dispose()


def test_default_url_is_sqlite_in_wenshu_home(tmp_path, monkeypatch):
    from wenshu.bootstrap import open_store as open_configured
    from wenshu.settings import Settings

    home = tmp_path / "home"
    monkeypatch.delenv("WENSHU_APP_DB_URL", raising=False)
    store = open_configured(Settings(home=home))
    store.close()
    assert (home / "wenshu.db").exists()


def test_in_memory_store_is_shared_across_threads():
    import threading

    store = open_store("sqlite://")
    try:
        store.datasources.add("mem", "sqlite://")
        seen = []
        th = threading.Thread(target=lambda: seen.append(store.datasources.get("mem").name))
        th.start()
        th.join()
        assert seen == ["mem"]
    finally:
        store.close()


def test_concurrent_first_opens_migrate_once(tmp_path):
    import threading

    stores, errors = [], []

    def opener():
        try:
            stores.append(open_store(_url(tmp_path)))
        except Exception as exc:  # pragma: no cover - reported below
            errors.append(exc)

    threads = [threading.Thread(target=opener) for _ in range(6)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    try:
        assert errors == []
        assert _version_rows(stores[0].engine) == list(range(1, LATEST_VERSION + 1))
    finally:
        for s in stores:
            s.close()
