"""Schema migrations of the app store: Alembic revisions shipped in the package, run at store open.

The revisions live in `storage/alembic/versions/` (the environment is `storage/alembic/env.py`);
`migrate(engine)` runs the pending ones, so users need no `alembic.ini` and no command.
`storage/schema.py` is the one description of the current tables; a new revision changes the
database the way schema.py changed (tests/test_storage_migrations.py proves a migrated database
equals schema.py's metadata, on SQLite and PostgreSQL).

History: before Alembic, hand-written steps recorded an integer in the `schema_version` table
(1 to 8, each creating whole tables). The baseline revision is version 8's schema created with
`IF NOT EXISTS`, so a store at any older version gets the tables it lacks and keeps every row; it
then writes version 9 into `schema_version`, which a Wenshu from before Alembic refuses as newer.

Every pending revision runs in one transaction under a lock (PostgreSQL: an advisory lock; SQLite:
`BEGIN IMMEDIATE`), so two processes opening the same store at once do not both upgrade it, and a
failed upgrade leaves the database as it was (both engines have transactional DDL). A store at a
revision this Wenshu does not know (a newer Wenshu migrated it) is refused before anything is touched.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

import sqlalchemy as sa
from alembic import command
from alembic.config import Config
from alembic.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy.engine import Connection, Engine

from wenshu.errors import WenshuError
from wenshu.storage.schema import schema_version

ALEMBIC_DIR = Path(__file__).with_name("alembic")
VERSIONS_DIR = ALEMBIC_DIR / "versions"
BASELINE = "0001_baseline"
ALEMBIC_MARK = 9  # schema_version's row once Alembic manages the store (the hand-written steps ended at 8)

# Arbitrary constant for PostgreSQL's advisory lock ("wenshu" in ASCII).
_PG_LOCK_ID = 0x77656E736875


class SchemaTooNew(WenshuError):
    code = "schema_too_new"

    def __init__(self, have: str, known: str):
        super().__init__(
            f"The app store is at schema revision {have}, which this Wenshu does not know (its newest is "
            f"{known}): a newer Wenshu upgraded it. Upgrade Wenshu; the store was left untouched.",
            f"应用数据库的结构版本为 {have}，当前问数不认识（它最新的版本是 {known}），"
            f"是更新版本的问数升级过它。请升级问数；数据库未做任何改动。",
        )


def alembic_config(connection: Connection | None = None, versions: Sequence[Path] = (VERSIONS_DIR,)) -> Config:
    """Alembic's configuration, built in code: the shipped scripts, plus any extra version folders."""
    cfg = Config()
    cfg.set_main_option("script_location", str(ALEMBIC_DIR))
    cfg.set_main_option("path_separator", "os")
    cfg.set_main_option("version_locations", os.pathsep.join(str(p) for p in versions))
    cfg.attributes["connection"] = connection
    return cfg


def head_revision(versions: Sequence[Path] = (VERSIONS_DIR,)) -> str:
    return ScriptDirectory.from_config(alembic_config(versions=versions)).get_current_head()


def current_revision(conn: Connection) -> str | None:
    """The store's Alembic revision; None for an empty store or one from before Alembic."""
    return MigrationContext.configure(conn).get_current_revision()


def _legacy_version(conn: Connection) -> int:
    """The hand-written schema version (0 when there is none)."""
    if not sa.inspect(conn).has_table(schema_version.name):
        return 0
    return conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0


def _lock(conn: Connection) -> None:
    """Serialize concurrent migrators; must run first in the transaction."""
    name = conn.dialect.name
    if name == "sqlite":
        # Foreign keys off while tables are rebuilt (a rebuild drops the old table, which would cascade
        # deletes); the pragma is a no-op inside a transaction, so it goes first. Then take the write
        # lock now: pysqlite would start the transaction lazily, after the DDL, in autocommit mode.
        conn.exec_driver_sql("PRAGMA foreign_keys=OFF")
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif name == "postgresql":
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_LOCK_ID)))


def _pending(script: ScriptDirectory, have: str | None, target: str) -> list[str]:
    known = {s.revision for s in script.walk_revisions()}
    if have is not None and have not in known:
        raise SchemaTooNew(have, script.get_current_head())
    return [s.revision for s in reversed(list(script.iterate_revisions(target, have or "base")))]


def _upgrade(conn: Connection, versions: Sequence[Path], target: str) -> list[str]:
    cfg = alembic_config(conn, versions)
    have = current_revision(conn)
    if have is None and _legacy_version(conn) > ALEMBIC_MARK:
        raise SchemaTooNew(f"version {_legacy_version(conn)}", head_revision(versions))
    pending = _pending(ScriptDirectory.from_config(cfg), have, target)
    if pending:
        command.upgrade(cfg, target)
    if conn.dialect.name == "sqlite" and conn.exec_driver_sql("PRAGMA foreign_key_check").first() is not None:
        raise RuntimeError("a migration left rows whose foreign keys point nowhere; rolled back")
    return pending


def migrate(engine: Engine, target: str = "head", versions: Sequence[Path] = (VERSIONS_DIR,)) -> list[str]:
    """Upgrade the store to `target` (default: the newest revision) in one locked transaction.

    Returns the revisions applied; an up-to-date store gets `[]` and is left untouched. `versions`
    adds folders of revisions (tests; a plugin's own tables would go the same way).
    """
    with engine.connect() as conn:
        try:
            with conn.begin():
                _lock(conn)
                return _upgrade(conn, versions, target)
        finally:
            if conn.dialect.name == "sqlite":
                conn.connection.driver_connection.execute("PRAGMA foreign_keys=ON")
