"""Helpers for the app store's migration tests, on SQLite and PostgreSQL alike.

`build_legacy(engine, version)` makes a store as a Wenshu from before Alembic left it at hand-written
schema version 1..8: those steps only ever created whole tables (listed in LEGACY_TABLES), exactly as
the frozen baseline revision creates them, so the baseline minus the later tables, with the
`schema_version` rows, is that store. `fill(engine)` writes one row into every table.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from datetime import UTC, datetime

import sqlalchemy as sa
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext

from alembic.script import ScriptDirectory

from wenshu.storage.migrations import BASELINE, VERSIONS_DIR, alembic_config, head_revision, migrate
from wenshu.storage.schema import metadata

# every shipped revision, oldest first: what a store from before Alembic, or an empty one, is upgraded through
SHIPPED = [s.revision for s in reversed(list(ScriptDirectory.from_config(alembic_config()).walk_revisions()))]

LEGACY_TABLES = {
    1: ["datasources", "conversations", "messages"],
    2: ["audit_log", "result_cache"],
    3: ["catalog_sources", "catalog_tables"],
    4: ["examples", "glossary_terms"],
    5: ["users", "api_tokens", "user_grants"],
    6: ["vector_items", "embedding_cache"],
    7: ["semantic_models"],
    8: ["kb_documents", "kb_chunks", "kb_segment_summaries"],
}


def build_legacy(engine: sa.Engine, version: int) -> None:
    migrate(engine, target=BASELINE)
    later = [t for v, names in LEGACY_TABLES.items() if v > version for t in names]
    with engine.begin() as conn:
        for table in reversed(metadata.sorted_tables):
            if table.name in later:
                conn.execute(sa.text(f"DROP TABLE {table.name}"))
        conn.execute(sa.text("DROP TABLE alembic_version"))
        conn.execute(sa.text("DELETE FROM schema_version"))
        stamp = datetime(2025, 1, 1, tzinfo=UTC)
        conn.execute(sa.text("INSERT INTO schema_version (version, applied_at) VALUES (:v, :t)"),
                     [{"v": v, "t": stamp} for v in range(1, version + 1)])


VALUES = {sa.JSON: {"k": [1, "二"]}, datetime: datetime(2025, 1, 2, 3, 4, 5, tzinfo=UTC), bool: True,
          int: 1000,  # above what a PostgreSQL sequence hands out in these tests
          float: 1.5, bytes: b"\x00\x01\xfe",
          str: "x"}  # every key and reference is "x", so foreign keys hold


def _value(type_: sa.types.TypeEngine):
    type_ = getattr(type_, "impl_instance", type_)  # UTCDateTime: a DateTime
    return VALUES[sa.JSON] if isinstance(type_, sa.JSON) else VALUES[type_.python_type]


def _columns(engine: sa.Engine, table: sa.Table) -> list[sa.Column]:
    """The table's columns that the database has (a store before a later revision lacks its new columns)."""
    have = {c["name"] for c in sa.inspect(engine).get_columns(table.name)}
    return [c for c in table.columns if c.name in have]


def fill(engine: sa.Engine) -> list[str]:
    """One row in every app table the database has, every column it has set; returns their names."""
    have = set(sa.inspect(engine).get_table_names())
    filled = [t for t in metadata.sorted_tables if t.name in have and t.name != "schema_version"]
    columns = {t.name: _columns(engine, t) for t in filled}
    with engine.begin() as conn:
        for table in filled:
            conn.execute(table.insert().values({c.name: _value(c.type) for c in columns[table.name]}))
    return [t.name for t in filled]


def rows(engine: sa.Engine, tables: list[str]) -> dict[str, list]:
    """Each table's rows as the values they hold (a column a later revision added, still NULL, left out)."""
    out = {}
    with engine.connect() as conn:
        for t in tables:
            found = conn.execute(sa.select(*_columns(engine, metadata.tables[t]))).all()
            out[t] = sorted(repr(tuple(v for v in r if v is not None)) for r in found)
    return out


def differences(engine: sa.Engine) -> list:
    """What autogenerate would change to make the database equal schema.py's metadata."""
    with engine.connect() as conn:
        return compare_metadata(MigrationContext.configure(conn, opts={"compare_type": True}), metadata)


def schema_versions(engine: sa.Engine) -> list[int]:
    with engine.connect() as conn:
        return list(conn.execute(sa.text("SELECT version FROM schema_version ORDER BY version")).scalars())


CHILD = """
import json, sys, time
from wenshu.storage.db import make_engine
from wenshu.storage.migrations import migrate
engine = make_engine(sys.argv[1])
time.sleep(max(0.0, float(sys.argv[2]) - time.time()))
print(json.dumps(migrate(engine)))
"""


def migrate_in_processes(url: str, n: int = 2) -> list[list[str]]:
    """Start `n` processes that migrate `url` at the same instant; returns what each applied."""
    start = time.time() + 2.0  # after every child has imported Wenshu
    procs = [subprocess.Popen([sys.executable, "-c", CHILD, url, str(start)], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True) for _ in range(n)]
    out = []
    for p in procs:
        stdout, stderr = p.communicate(timeout=120)
        assert p.returncode == 0, stderr[-2000:]
        out.append(json.loads(stdout.strip().splitlines()[-1]))
    return sorted(out)


REVISION = '''
import sqlalchemy as sa
from alembic import op
revision, down_revision, branch_labels, depends_on = {name!r}, {parent!r}, None, None

def upgrade():
    op.create_table({table!r}, sa.Column("x", sa.Integer, primary_key=True))
    op.execute("INSERT INTO {table} (x) VALUES (1)")
    {last}

def downgrade():
    op.drop_table({table!r})
'''


def extra_revision(folder, name: str, table: str, fail: bool = False):
    """A folder with one revision after head that creates `table` (and then fails, if asked)."""
    folder.mkdir()
    last = 'raise RuntimeError("boom")' if fail else "pass"
    (folder / f"{name}.py").write_text(REVISION.format(name=name, parent=head_revision(), table=table, last=last))
    return (VERSIONS_DIR, folder)
