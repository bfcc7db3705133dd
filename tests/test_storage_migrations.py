"""Schema migrations (Alembic), on SQLite and PostgreSQL alike: a fresh store equals schema.py, every
hand-written version upgrades with its rows, a failed upgrade and a newer store leave the database as
it was, and two processes migrating at once end with one correct schema."""

from __future__ import annotations

import pytest
import sqlalchemy as sa
from store_migrations_support import (
    LEGACY_TABLES, SHIPPED, build_legacy, differences, extra_revision, fill, migrate_in_processes, rows,
    schema_versions,
)

from wenshu.storage.db import make_engine, open_store
from wenshu.storage.migrations import SchemaTooNew, current_revision, head_revision, migrate
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import metadata, schema_version


def _url(tmp_path) -> str:
    return f"sqlite:///{tmp_path / 'app.db'}"


def _new_store(request, backend: str) -> str:
    """A new, empty app store: a SQLite file, or a database on the PostgreSQL server the tests start."""
    if backend == "postgres":
        return request.getfixturevalue("pg_database")
    return _url(request.getfixturevalue("tmp_path"))


@pytest.fixture(params=["sqlite", "postgres"])
def url(request):
    return _new_store(request, request.param)


@pytest.fixture
def engine(url, request):
    engine = make_engine(url)
    request.addfinalizer(engine.dispose)
    return engine


def test_fresh_store_is_at_head_and_equals_the_metadata(url):
    with open_store(url) as store:
        with store.engine.connect() as conn:
            assert current_revision(conn) == head_revision()
        assert differences(store.engine) == []
        assert set(sa.inspect(store.engine).get_table_names()) == set(metadata.tables) | {"alembic_version"}
        assert schema_versions(store.engine) == [9]  # a Wenshu from before Alembic refuses this store


def test_the_comparison_sees_a_difference(engine):
    migrate(engine)
    with engine.begin() as conn:
        conn.exec_driver_sql("ALTER TABLE messages ADD COLUMN extra TEXT")
        conn.exec_driver_sql("DROP INDEX ix_audit_log_ts")
    found = {(d[0], getattr(d[-1], "name", None)) for d in differences(engine)}
    assert found == {("remove_column", "extra"), ("add_index", "ix_audit_log_ts")}


# every version on SQLite; the oldest and the latest on PostgreSQL
@pytest.mark.parametrize(("backend", "version"), [("sqlite", v) for v in sorted(LEGACY_TABLES)]
                         + [("postgres", min(LEGACY_TABLES)), ("postgres", max(LEGACY_TABLES))])
def test_upgrade_from_every_hand_written_version_keeps_every_row(request, backend, version):
    engine = make_engine(_new_store(request, backend))
    request.addfinalizer(engine.dispose)
    build_legacy(engine, version)
    assert schema_versions(engine) == list(range(1, version + 1))
    old = fill(engine)
    assert set(old) == {t for v, names in LEGACY_TABLES.items() if v <= version for t in names}
    before = rows(engine, old)

    assert migrate(engine) == SHIPPED
    assert rows(engine, old) == before
    assert differences(engine) == []
    assert schema_versions(engine) == [*range(1, version + 1), 9]
    with open_store(str(engine.url)) as store:  # and the store works on it
        assert store.datasources.get("x").options == {"k": [1, "二"]}
        assert store.audit.record(question="q") > 0


def test_vector_tables_created_on_use_before_version_6_are_adopted(tmp_path):
    """Before version 6 the vector index created its tables itself (SQLite); the upgrade keeps their rows."""
    engine = make_engine(_url(tmp_path))
    build_legacy(engine, 5)
    with engine.begin() as conn:
        conn.exec_driver_sql("CREATE TABLE vector_items (datasource VARCHAR(64) NOT NULL, doc_id VARCHAR(512) NOT NULL, "
                             "hash VARCHAR(64) NOT NULL, dim INTEGER NOT NULL, vector BLOB NOT NULL, "
                             "PRIMARY KEY (datasource, doc_id))")
        conn.exec_driver_sql("INSERT INTO vector_items VALUES ('a', 'x', 'h', 2, x'0000803f00000000')")
    assert migrate(engine) == SHIPPED
    assert rows(engine, ["vector_items"])["vector_items"] == ["('a', 'x', 'h', 2, b'\\x00\\x00\\x80?\\x00\\x00\\x00\\x00')"]
    assert differences(engine) == []
    engine.dispose()


def test_opening_again_is_a_no_op(engine):
    assert migrate(engine) == SHIPPED
    with engine.connect() as conn:
        before = conn.exec_driver_sql("SELECT applied_at FROM schema_version").all()
    assert migrate(engine) == []
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT applied_at FROM schema_version").all() == before


def test_a_failed_migration_leaves_the_database_as_it_was(engine, tmp_path):
    migrate(engine)
    filled = fill(engine)
    before = rows(engine, filled)
    with pytest.raises(RuntimeError, match="boom"):
        migrate(engine, versions=extra_revision(tmp_path / "more", "0099_broken", "half_done", fail=True))
    assert "half_done" not in sa.inspect(engine).get_table_names()
    with engine.connect() as conn:
        assert current_revision(conn) == head_revision()
        if engine.dialect.name == "sqlite":
            assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1  # switched back on after the upgrade
    assert rows(engine, filled) == before


def test_a_store_from_a_newer_wenshu_is_refused_untouched(engine, tmp_path):
    newer = extra_revision(tmp_path / "more", "0099_future", "future_things")
    assert migrate(engine, versions=newer) == [*SHIPPED, "0099_future"]
    tables = sa.inspect(engine).get_table_names()
    with pytest.raises(SchemaTooNew) as err:
        migrate(engine)
    assert err.value.code == "schema_too_new"
    assert "0099_future" in err.value.en and "升级问数" in err.value.zh
    assert sa.inspect(engine).get_table_names() == tables
    with engine.connect() as conn:
        assert current_revision(conn) == "0099_future"


def test_a_hand_written_version_newer_than_alembic_is_refused(engine):
    build_legacy(engine, 8)
    with engine.begin() as conn:
        conn.execute(schema_version.insert().values(version=10, applied_at=utcnow()))
    with pytest.raises(SchemaTooNew):
        migrate(engine)
    assert "alembic_version" not in sa.inspect(engine).get_table_names()


def test_two_processes_migrating_a_fresh_store_at_once(url):
    assert migrate_in_processes(url) == [[], SHIPPED]  # one migrated, the other waited and found it done
    engine = make_engine(url)
    try:
        assert differences(engine) == []
        assert schema_versions(engine) == [9]
        with engine.connect() as conn:
            assert conn.exec_driver_sql("SELECT version_num FROM alembic_version").scalars().all() == [head_revision()]
    finally:
        engine.dispose()


def test_sqlite_engine_settings(tmp_path):
    with open_store(_url(tmp_path)) as store, store.engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA foreign_keys").scalar() == 1
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() > 0


def test_default_url_is_sqlite_in_wenshu_home(tmp_path, monkeypatch):
    from wenshu.bootstrap import open_store as open_configured
    from wenshu.settings import Settings

    home = tmp_path / "home"
    monkeypatch.delenv("WENSHU_APP_DB_URL", raising=False)
    open_configured(Settings(home=home)).close()
    assert (home / "wenshu.db").exists()


def test_in_memory_store_is_shared_across_threads():
    import threading

    with open_store("sqlite://") as store:
        store.datasources.add("mem", "sqlite://")
        seen = []
        th = threading.Thread(target=lambda: seen.append(store.datasources.get("mem").name))
        th.start()
        th.join()
        assert seen == ["mem"]


def test_concurrent_first_opens_in_threads(tmp_path):
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
        assert schema_versions(stores[0].engine) == [9]
    finally:
        for s in stores:
            s.close()
