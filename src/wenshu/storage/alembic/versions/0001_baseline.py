"""Baseline: the app store as the hand-written migrations left it (schema_version 8).

Revision ID: 0001_baseline
Revises: (none)

A frozen record of version 8, written compactly: never edit it (add a revision and change
storage/schema.py instead). Every table and index is created IF NOT EXISTS, so the same revision
brings a store at any hand-written version (1 to 8: each of them only created whole tables, all of
them listed here) to the baseline without touching its rows, and builds an empty database from
scratch. Last, `schema_version` gets row 9: a Wenshu from before Alembic refuses such a store as
newer than itself instead of writing to it.
"""

from __future__ import annotations

from datetime import UTC, datetime

import sqlalchemy as sa
from alembic import op

revision = "0001_baseline"
down_revision = None
branch_labels = None
depends_on = None

ALEMBIC_MARK = 9
S16, S32, S64, S128, S255, S512 = (sa.String(n) for n in (16, 32, 64, 128, 255, 512))
INT, BIG, FLOAT, BOOL, TEXT, BLOB = sa.Integer(), sa.BigInteger(), sa.Float(), sa.Boolean(), sa.Text(), sa.LargeBinary()
TS, JSON = sa.DateTime(timezone=True), sa.JSON()
NULL = True  # third item of a column: the column may be NULL

# table: (primary key, [(column, type[, NULL])], {column: "table.column" it references, on delete cascade})
TABLES: dict[str, tuple[list[str], list[tuple], dict[str, str]]] = {
    "schema_version": (["version"], [("version", INT), ("applied_at", TS)], {}),
    # version 1
    "datasources": (["name"], [("name", S64), ("url", TEXT), ("dialect", S64), ("created_at", TS),
                               ("options", JSON, NULL)], {}),
    "conversations": (["id"], [("id", S32), ("user_id", S255), ("title", TEXT, NULL), ("datasource", S64, NULL),
                               ("created_at", TS), ("updated_at", TS)], {}),
    "messages": (["id"], [("id", INT), ("conversation_id", S32), ("role", S16), ("content", TEXT), ("sql", TEXT, NULL),
                          ("result_summary", TEXT, NULL), ("status", S16), ("created_at", TS), ("payload", JSON, NULL)],
                 {"conversation_id": "conversations.id"}),
    # version 2
    "audit_log": (["id"], [("id", INT), ("ts", TS), ("user_id", S255, NULL), ("conversation_id", S32, NULL),
                           ("datasource", S64, NULL), ("question", TEXT, NULL), ("sql", TEXT, NULL),
                           ("validation", JSON, NULL), ("retries", INT), ("timings", JSON, NULL),
                           ("row_count", INT, NULL), ("status", S32), ("error_code", S64, NULL),
                           ("error_message", TEXT, NULL), ("cached", BOOL)], {}),
    "result_cache": (["key"], [("key", S64), ("datasource", S64), ("sql", TEXT), ("data_version", S255),
                               ("columns", JSON), ("rows", JSON), ("row_count", INT), ("truncated", BOOL),
                               ("created_at", TS), ("hits", INT)], {}),
    # version 3
    "catalog_sources": (["datasource"], [("datasource", S64), ("dialect", S64), ("schema_hash", S64),
                                         ("data_version", S255, NULL), ("table_count", INT), ("seconds", FLOAT),
                                         ("synced_at", TS)], {"datasource": "datasources.name"}),
    "catalog_tables": (["datasource", "name"], [("datasource", S64), ("name", S255), ("position", INT), ("hash", S64),
                                                ("row_count", BIG, NULL), ("synced_at", TS), ("payload", JSON)],
                       {"datasource": "catalog_sources.datasource"}),
    # version 4
    "examples": (["id"], [("id", INT), ("datasource", S64), ("question", TEXT), ("sql", TEXT),
                          ("query_type", S32, NULL), ("skeleton", TEXT, NULL), ("status", S16), ("source", S16),
                          ("conversation_id", S32, NULL), ("created_at", TS), ("approved_at", TS, NULL)], {}),
    "glossary_terms": (["id"], [("id", INT), ("datasource", S64), ("term", S255), ("kind", S16), ("definition", TEXT),
                                ("sql", TEXT, NULL), ("synonyms", JSON), ("tables", JSON), ("created_at", TS)], {}),
    # version 5
    "users": (["id"], [("id", S255), ("created_at", TS)], {}),
    "api_tokens": (["id"], [("id", INT), ("user_id", S255), ("token_hash", S64), ("prefix", S16), ("created_at", TS),
                            ("last_used_at", TS, NULL), ("revoked_at", TS, NULL)], {"user_id": "users.id"}),
    "user_grants": (["user_id", "datasource"], [("user_id", S255), ("datasource", S64), ("created_at", TS)],
                    {"user_id": "users.id"}),
    # version 6
    "vector_items": (["datasource", "doc_id"], [("datasource", S64), ("doc_id", S512), ("hash", S64), ("dim", INT),
                                                ("vector", BLOB)], {}),
    "embedding_cache": (["model", "hash"], [("model", S128), ("hash", S64), ("dim", INT), ("vector", BLOB)], {}),
    # version 7
    "semantic_models": (["datasource", "version"], [("datasource", S64), ("version", INT), ("body", TEXT),
                                                    ("source", S16), ("created_at", TS)], {}),
    # version 8
    "kb_documents": (["id"], [("id", S32), ("collection", S64), ("name", TEXT), ("source", TEXT), ("content_hash", S64),
                              ("format", S16), ("size_bytes", BIG), ("path", TEXT), ("status", S16), ("title", TEXT, NULL),
                              ("pages", INT, NULL), ("chunk_count", INT), ("summary", TEXT, NULL),
                              ("error_code", S64, NULL), ("error_message", TEXT, NULL), ("created_at", TS),
                              ("updated_at", TS)], {}),
    "kb_chunks": (["document_id", "ordinal"], [("document_id", S32), ("ordinal", INT), ("id", S128), ("heading", TEXT),
                                               ("page", INT, NULL), ("text", TEXT), ("terms", TEXT)],
                  {"document_id": "kb_documents.id"}),
    "kb_segment_summaries": (["document_id", "segment"], [("document_id", S32), ("segment", INT), ("summary", TEXT),
                                                          ("created_at", TS)], {"document_id": "kb_documents.id"}),
}

# index name: (table, columns, unique)
INDEXES: dict[str, tuple[str, list[str], bool]] = {
    "ix_conversations_user_updated": ("conversations", ["user_id", "updated_at"], False),
    "ix_messages_conversation": ("messages", ["conversation_id", "id"], False),
    "ix_audit_log_ts": ("audit_log", ["ts"], False),
    "ix_result_cache_created": ("result_cache", ["created_at"], False),
    "ix_result_cache_datasource": ("result_cache", ["datasource"], False),
    "ix_examples_datasource_status": ("examples", ["datasource", "status"], False),
    "ux_glossary_terms_datasource_term": ("glossary_terms", ["datasource", "term"], True),
    "ux_api_tokens_hash": ("api_tokens", ["token_hash"], True),
    "ix_api_tokens_user": ("api_tokens", ["user_id"], False),
    "ux_kb_documents_collection_hash": ("kb_documents", ["collection", "content_hash"], True),
    "ux_kb_chunks_id": ("kb_chunks", ["id"], True),
}


def _create(name: str, key: list[str], columns: list[tuple], references: dict[str, str]) -> None:
    # `version` is the only integer key that is not an autoincrement (SERIAL on PostgreSQL)
    cols = [sa.Column(c, t, nullable=bool(rest), autoincrement=False if name == "schema_version" else "auto")
            for c, t, *rest in columns]
    fks = [sa.ForeignKeyConstraint([c], [target], ondelete="CASCADE") for c, target in references.items()]
    op.create_table(name, *cols, sa.PrimaryKeyConstraint(*key), *fks, if_not_exists=True)


def upgrade() -> None:
    for name, spec in TABLES.items():
        _create(name, *spec)
    for name, (table, columns, unique) in INDEXES.items():
        op.create_index(name, table, columns, unique=unique, if_not_exists=True)
    marks = sa.table("schema_version", sa.column("version", INT), sa.column("applied_at", TS))
    op.execute(marks.delete().where(marks.c.version == ALEMBIC_MARK))
    op.execute(marks.insert().values(version=ALEMBIC_MARK, applied_at=datetime.now(UTC)))


def downgrade() -> None:
    for name in reversed(TABLES):
        op.drop_table(name)
