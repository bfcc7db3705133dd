"""Ordered schema migrations, recorded in the `schema_version` table.

Each migration is `(version, function(conn))`. The table definitions inside a migration are frozen
copies: never edit a migration that has shipped; add a new one (`ALTER TABLE ... ADD COLUMN`
through portable SQLAlchemy constructs or plain standard SQL) and update `schema.py` to match.

`migrate()` runs every pending migration in one transaction, under a lock, so that two processes
opening the same store at once do not both upgrade it and a failed upgrade leaves nothing half done
(SQLite and PostgreSQL both have transactional DDL).
"""

from __future__ import annotations

from collections.abc import Callable

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from wenshu.errors import WenshuError
from wenshu.storage.schema import JSONColumn, UTCDateTime, schema_version, utcnow

Migration = Callable[[Connection], None]

# Arbitrary constant for PostgreSQL's advisory lock ("wenshu" in ASCII).
_PG_LOCK_ID = 0x77656E736875


def _v1_core(conn: Connection) -> None:
    """Datasources, conversations and their messages."""
    md = sa.MetaData()
    sa.Table(
        "datasources",
        md,
        sa.Column("name", sa.String(64), primary_key=True),
        sa.Column("url", sa.Text, nullable=False),
        sa.Column("dialect", sa.String(64), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("options", JSONColumn()),
    )
    sa.Table(
        "conversations",
        md,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("user_id", sa.String(255), nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("datasource", sa.String(64)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Index("ix_conversations_user_updated", "user_id", "updated_at"),
    )
    sa.Table(
        "messages",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "conversation_id",
            sa.String(32),
            sa.ForeignKey("conversations.id", ondelete="CASCADE"),
            nullable=False,
        ),
        sa.Column("role", sa.String(16), nullable=False),
        sa.Column("content", sa.Text, nullable=False),
        sa.Column("sql", sa.Text),
        sa.Column("result_summary", sa.Text),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("payload", JSONColumn()),
        sa.Index("ix_messages_conversation", "conversation_id", "id"),
    )
    md.create_all(conn)


def _v2_audit_and_cache(conn: Connection) -> None:
    """The audit log and the query result cache."""
    md = sa.MetaData()
    sa.Table(
        "audit_log",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("ts", UTCDateTime, nullable=False),
        sa.Column("user_id", sa.String(255)),
        sa.Column("conversation_id", sa.String(32)),
        sa.Column("datasource", sa.String(64)),
        sa.Column("question", sa.Text),
        sa.Column("sql", sa.Text),
        sa.Column("validation", JSONColumn()),
        sa.Column("retries", sa.Integer, nullable=False),
        sa.Column("timings", JSONColumn()),
        sa.Column("row_count", sa.Integer),
        sa.Column("status", sa.String(32), nullable=False),
        sa.Column("error_code", sa.String(64)),
        sa.Column("error_message", sa.Text),
        sa.Column("cached", sa.Boolean, nullable=False),
        sa.Index("ix_audit_log_ts", "ts"),
    )
    sa.Table(
        "result_cache",
        md,
        sa.Column("key", sa.String(64), primary_key=True),
        sa.Column("datasource", sa.String(64), nullable=False),
        sa.Column("sql", sa.Text, nullable=False),
        sa.Column("data_version", sa.String(255), nullable=False),
        sa.Column("columns", JSONColumn(), nullable=False),
        sa.Column("rows", JSONColumn(), nullable=False),
        sa.Column("row_count", sa.Integer, nullable=False),
        sa.Column("truncated", sa.Boolean, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("hits", sa.Integer, nullable=False),
        sa.Index("ix_result_cache_created", "created_at"),
        sa.Index("ix_result_cache_datasource", "datasource"),
    )
    md.create_all(conn)


def _v3_catalog(conn: Connection) -> None:
    """The synced catalog: one row per datasource (schema hash) and one per table (hash + JSON)."""
    md = sa.MetaData()
    sa.Table("datasources", md, sa.Column("name", sa.String(64), primary_key=True))  # referenced only
    sources = sa.Table(
        "catalog_sources",
        md,
        sa.Column(
            "datasource", sa.String(64), sa.ForeignKey("datasources.name", ondelete="CASCADE"), primary_key=True
        ),
        sa.Column("dialect", sa.String(64), nullable=False),
        sa.Column("schema_hash", sa.String(64), nullable=False),
        sa.Column("data_version", sa.String(255)),
        sa.Column("table_count", sa.Integer, nullable=False),
        sa.Column("seconds", sa.Float, nullable=False),
        sa.Column("synced_at", UTCDateTime, nullable=False),
    )
    tables = sa.Table(
        "catalog_tables",
        md,
        sa.Column(
            "datasource",
            sa.String(64),
            sa.ForeignKey("catalog_sources.datasource", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("name", sa.String(255), primary_key=True),
        sa.Column("position", sa.Integer, nullable=False),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("row_count", sa.BigInteger),
        sa.Column("synced_at", UTCDateTime, nullable=False),
        sa.Column("payload", JSONColumn(), nullable=False),
    )
    md.create_all(conn, tables=[sources, tables])


def _v4_examples_glossary(conn: Connection) -> None:
    """The few-shot library (question <-> SQL pairs) and the business glossary, per datasource."""
    md = sa.MetaData()
    sa.Table(
        "examples",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("datasource", sa.String(64), nullable=False),
        sa.Column("question", sa.Text, nullable=False),
        sa.Column("sql", sa.Text, nullable=False),
        sa.Column("query_type", sa.String(32)),
        sa.Column("skeleton", sa.Text),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("conversation_id", sa.String(32)),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("approved_at", UTCDateTime),
        sa.Index("ix_examples_datasource_status", "datasource", "status"),
    )
    sa.Table(
        "glossary_terms",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("datasource", sa.String(64), nullable=False),
        sa.Column("term", sa.String(255), nullable=False),
        sa.Column("kind", sa.String(16), nullable=False),
        sa.Column("definition", sa.Text, nullable=False),
        sa.Column("sql", sa.Text),
        sa.Column("synonyms", JSONColumn(), nullable=False),
        sa.Column("tables", JSONColumn(), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Index("ux_glossary_terms_datasource_term", "datasource", "term", unique=True),
    )
    md.create_all(conn)


def _v5_users_tokens(conn: Connection) -> None:
    """Users, their API tokens (only a SHA-256 hash and a short prefix are kept) and datasource grants."""
    md = sa.MetaData()
    sa.Table(
        "users",
        md,
        sa.Column("id", sa.String(255), primary_key=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    sa.Table(
        "api_tokens",
        md,
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.String(255), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
        sa.Column("token_hash", sa.String(64), nullable=False),
        sa.Column("prefix", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("last_used_at", UTCDateTime),
        sa.Column("revoked_at", UTCDateTime),
        sa.Index("ux_api_tokens_hash", "token_hash", unique=True),
        sa.Index("ix_api_tokens_user", "user_id"),
    )
    sa.Table(
        "user_grants",
        md,
        sa.Column("user_id", sa.String(255), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
        sa.Column("datasource", sa.String(64), primary_key=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    md.create_all(conn)


def _v6_vectors(conn: Connection) -> None:
    """The vector index's plain tables: document vectors per datasource and the embedding cache.

    sqlite-vec's `vec0` virtual tables are not migrated: they exist only on SQLite with the extension
    loaded, so storage/vectors_sqlitevec.py creates them on first use (and refills them from
    `vector_items`)."""
    md = sa.MetaData()
    sa.Table(
        "vector_items",
        md,
        sa.Column("datasource", sa.String(64), primary_key=True),
        sa.Column("doc_id", sa.String(512), primary_key=True),
        sa.Column("hash", sa.String(64), nullable=False),
        sa.Column("dim", sa.Integer, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
    )
    sa.Table(
        "embedding_cache",
        md,
        sa.Column("model", sa.String(128), primary_key=True),
        sa.Column("hash", sa.String(64), primary_key=True),
        sa.Column("dim", sa.Integer, nullable=False),
        sa.Column("vector", sa.LargeBinary, nullable=False),
    )
    md.create_all(conn, checkfirst=True)  # stores that predate v6 may already have them (created on use)


def _v7_semantic_models(conn: Connection) -> None:
    """Semantic models per datasource, every saved version kept."""
    md = sa.MetaData()
    sa.Table(
        "semantic_models",
        md,
        sa.Column("datasource", sa.String(64), primary_key=True),
        sa.Column("version", sa.Integer, primary_key=True),
        sa.Column("body", sa.Text, nullable=False),
        sa.Column("source", sa.String(16), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    md.create_all(conn)


def _v8_knowledge_base(conn: Connection) -> None:
    """The document knowledge base: documents with their status, chunks, and per-segment summaries."""
    md = sa.MetaData()
    sa.Table(
        "kb_documents",
        md,
        sa.Column("id", sa.String(32), primary_key=True),
        sa.Column("collection", sa.String(64), nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("source", sa.Text, nullable=False),
        sa.Column("content_hash", sa.String(64), nullable=False),
        sa.Column("format", sa.String(16), nullable=False),
        sa.Column("size_bytes", sa.BigInteger, nullable=False),
        sa.Column("path", sa.Text, nullable=False),
        sa.Column("status", sa.String(16), nullable=False),
        sa.Column("title", sa.Text),
        sa.Column("pages", sa.Integer),
        sa.Column("chunk_count", sa.Integer, nullable=False),
        sa.Column("summary", sa.Text),
        sa.Column("error_code", sa.String(64)),
        sa.Column("error_message", sa.Text),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.Index("ux_kb_documents_collection_hash", "collection", "content_hash", unique=True),
    )
    sa.Table(
        "kb_chunks",
        md,
        sa.Column("document_id", sa.String(32), sa.ForeignKey("kb_documents.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("ordinal", sa.Integer, primary_key=True),
        sa.Column("id", sa.String(128), nullable=False),
        sa.Column("heading", sa.Text, nullable=False),
        sa.Column("page", sa.Integer),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("terms", sa.Text, nullable=False),
        sa.Index("ux_kb_chunks_id", "id", unique=True),
    )
    sa.Table(
        "kb_segment_summaries",
        md,
        sa.Column("document_id", sa.String(32), sa.ForeignKey("kb_documents.id", ondelete="CASCADE"),
                  primary_key=True),
        sa.Column("segment", sa.Integer, primary_key=True),
        sa.Column("summary", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
    )
    md.create_all(conn)


MIGRATIONS: list[tuple[int, Migration]] = [
    (1, _v1_core),
    (2, _v2_audit_and_cache),
    (3, _v3_catalog),
    (4, _v4_examples_glossary),
    (5, _v5_users_tokens),
    (6, _v6_vectors),
    (7, _v7_semantic_models),
    (8, _v8_knowledge_base),
]
LATEST_VERSION = MIGRATIONS[-1][0]

assert [v for v, _ in MIGRATIONS] == sorted({v for v, _ in MIGRATIONS}), "versions must increase"


class SchemaTooNew(WenshuError):
    code = "schema_too_new"


def current_version(conn: Connection) -> int:
    """The highest applied migration, 0 for an empty database."""
    if not sa.inspect(conn).has_table(schema_version.name):
        return 0
    return conn.execute(sa.select(sa.func.max(schema_version.c.version))).scalar() or 0


def _lock(conn: Connection) -> None:
    """Serialize concurrent migrators; must run first in the transaction."""
    name = conn.dialect.name
    if name == "sqlite":
        # Take the write lock now (pysqlite would otherwise start the transaction lazily,
        # after the DDL, which SQLite would then run in autocommit mode).
        conn.exec_driver_sql("BEGIN IMMEDIATE")
    elif name == "postgresql":
        conn.execute(sa.select(sa.func.pg_advisory_xact_lock(_PG_LOCK_ID)))


def migrate(engine: Engine, target: int | None = None) -> list[int]:
    """Apply the migrations newer than the database, up to `target` (default: all).

    Returns the versions applied; an up-to-date database gets `[]` and is left untouched.
    """
    target = LATEST_VERSION if target is None else target
    with engine.connect() as conn, conn.begin():
        _lock(conn)
        schema_version.create(conn, checkfirst=True)
        have = current_version(conn)
        if have > LATEST_VERSION:
            raise SchemaTooNew(
                f"The app store is at schema version {have}, newer than this Wenshu "
                f"({LATEST_VERSION}); upgrade Wenshu.",
                f"应用数据库的结构版本为 {have}，"
                f"比当前问数支持的版本（{LATEST_VERSION}）更新，请升级问数。",
            )
        applied = []
        for version, fn in MIGRATIONS:
            if have < version <= target:
                fn(conn)
                conn.execute(schema_version.insert().values(version=version, applied_at=utcnow()))
                applied.append(version)
        return applied
