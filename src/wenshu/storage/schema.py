"""The current shape of the app store: one `MetaData` holding every table.

Only portable column types are used (String, Text, Integer, Float, Boolean, DateTime, JSON), so
the same definitions work on SQLite and PostgreSQL. Timestamps are stored in UTC and always come
back timezone-aware (SQLite drops the offset, so `UTCDateTime` puts it back).

This module describes the *latest* schema; the Alembic revisions in `storage/alembic/versions/` build
it step by step (a change here goes with a new revision). A test checks that the two agree.
"""

from __future__ import annotations

import sqlalchemy as sa

from wenshu.storage.columns import ID_LEN, NAME_LEN, JSONColumn, UTCDateTime

metadata = sa.MetaData()

# The hand-written migrations' version (1..8); since Alembic it holds 9, which older Wenshus refuse.
schema_version = sa.Table(
    "schema_version",
    metadata,
    sa.Column("version", sa.Integer, primary_key=True, autoincrement=False),
    sa.Column("applied_at", UTCDateTime, nullable=False),
)

datasources = sa.Table(
    "datasources",
    metadata,
    sa.Column("name", sa.String(NAME_LEN), primary_key=True),
    sa.Column("url", sa.Text, nullable=False),
    sa.Column("dialect", sa.String(NAME_LEN), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("options", JSONColumn()),
)

conversations = sa.Table(
    "conversations",
    metadata,
    sa.Column("id", sa.String(ID_LEN), primary_key=True),
    sa.Column("user_id", sa.String(255), nullable=False),
    sa.Column("title", sa.Text),
    sa.Column("datasource", sa.String(NAME_LEN)),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Index("ix_conversations_user_updated", "user_id", "updated_at"),
)

messages = sa.Table(
    "messages",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "conversation_id",
        sa.String(ID_LEN),
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

audit_log = sa.Table(
    "audit_log",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("ts", UTCDateTime, nullable=False),
    sa.Column("user_id", sa.String(255)),
    sa.Column("conversation_id", sa.String(ID_LEN)),
    sa.Column("datasource", sa.String(NAME_LEN)),
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
    sa.Column("route", sa.String(16)),  # the general assistant's route (agent, wide, direct); NULL: the pipeline's
    sa.Column("tools", JSONColumn()),  # the tools an assistant turn called: [{tool, arguments, outcome, ms}]
    sa.Column("route_reason", sa.String(16)),  # the rule that chose that route (assistant/route.py); NULL: none
    sa.Index("ix_audit_log_ts", "ts"),
)

result_cache = sa.Table(
    "result_cache",
    metadata,
    sa.Column("key", sa.String(64), primary_key=True),
    sa.Column("datasource", sa.String(NAME_LEN), nullable=False),
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

examples = sa.Table(
    "examples",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("datasource", sa.String(NAME_LEN), nullable=False),
    sa.Column("question", sa.Text, nullable=False),
    sa.Column("sql", sa.Text, nullable=False),
    sa.Column("query_type", sa.String(32)),
    sa.Column("skeleton", sa.Text),
    sa.Column("status", sa.String(16), nullable=False),  # active | pending | rejected
    sa.Column("source", sa.String(16), nullable=False),  # bundled | user | learned
    sa.Column("conversation_id", sa.String(ID_LEN)),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("approved_at", UTCDateTime),
    sa.Index("ix_examples_datasource_status", "datasource", "status"),
)

glossary_terms = sa.Table(
    "glossary_terms",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("datasource", sa.String(NAME_LEN), nullable=False),
    sa.Column("term", sa.String(255), nullable=False),
    sa.Column("kind", sa.String(16), nullable=False),  # term | topic
    sa.Column("definition", sa.Text, nullable=False),
    sa.Column("sql", sa.Text),
    sa.Column("synonyms", JSONColumn(), nullable=False),
    sa.Column("tables", JSONColumn(), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Index("ux_glossary_terms_datasource_term", "datasource", "term", unique=True),
)

semantic_models = sa.Table(
    "semantic_models",
    metadata,
    sa.Column("datasource", sa.String(NAME_LEN), primary_key=True),
    sa.Column("version", sa.Integer, primary_key=True),  # 1, 2, ... per datasource: every save is a version
    sa.Column("body", sa.Text, nullable=False),  # the YAML as saved
    sa.Column("source", sa.String(16), nullable=False),  # bundled | draft | user
    sa.Column("created_at", UTCDateTime, nullable=False),
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.String(255), primary_key=True),  # the user name
    sa.Column("created_at", UTCDateTime, nullable=False),
)

api_tokens = sa.Table(
    "api_tokens",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.String(255), sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("token_hash", sa.String(64), nullable=False),  # sha256 hex; the token itself is never stored
    sa.Column("prefix", sa.String(16), nullable=False),  # the first characters, for display
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("last_used_at", UTCDateTime),
    sa.Column("revoked_at", UTCDateTime),
    sa.Index("ux_api_tokens_hash", "token_hash", unique=True),
    sa.Index("ix_api_tokens_user", "user_id"),
)

user_grants = sa.Table(
    "user_grants",
    metadata,
    sa.Column("user_id", sa.String(255), sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True),
    sa.Column("datasource", sa.String(NAME_LEN), primary_key=True),  # "*" grants every datasource
    sa.Column("created_at", UTCDateTime, nullable=False),
)

catalog_sources = sa.Table(
    "catalog_sources",
    metadata,
    sa.Column("datasource", sa.String(NAME_LEN), sa.ForeignKey("datasources.name", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("dialect", sa.String(NAME_LEN), nullable=False),
    sa.Column("schema_hash", sa.String(64), nullable=False),  # over every table's structural hash
    sa.Column("data_version", sa.String(255)),  # SQLite file version at sync time; None elsewhere
    sa.Column("table_count", sa.Integer, nullable=False),
    sa.Column("seconds", sa.Float, nullable=False),  # how long the last sync took
    sa.Column("synced_at", UTCDateTime, nullable=False),
)

catalog_tables = sa.Table(
    "catalog_tables",
    metadata,
    sa.Column("datasource", sa.String(NAME_LEN), sa.ForeignKey("catalog_sources.datasource", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("name", sa.String(255), primary_key=True),
    sa.Column("position", sa.Integer, nullable=False),  # catalog order
    sa.Column("hash", sa.String(64), nullable=False),  # structural hash (wenshu.catalog.structural_hash)
    sa.Column("row_count", sa.BigInteger),  # refreshed on every sync, outside the payload
    sa.Column("synced_at", UTCDateTime, nullable=False),  # when the payload was last rewritten
    sa.Column("payload", JSONColumn(), nullable=False),  # TableInfo.to_dict()
)

# The vector index (storage/vectors.py). sqlite-vec's `vec0` virtual tables are not listed here: they
# are SQLite-only and created on first use by storage/vectors_sqlitevec.py.
vector_items = sa.Table(
    "vector_items",
    metadata,
    sa.Column("datasource", sa.String(NAME_LEN), primary_key=True),
    sa.Column("doc_id", sa.String(512), primary_key=True),
    sa.Column("hash", sa.String(64), nullable=False),  # content hash of the embedded document
    sa.Column("dim", sa.Integer, nullable=False),
    sa.Column("vector", sa.LargeBinary, nullable=False),  # float32, L2-normalised
)

embedding_cache = sa.Table(
    "embedding_cache",
    metadata,
    sa.Column("model", sa.String(128), primary_key=True),
    sa.Column("hash", sa.String(64), primary_key=True),
    sa.Column("dim", sa.Integer, nullable=False),
    sa.Column("vector", sa.LargeBinary, nullable=False),
)

# The document knowledge base (wenshu.kb; docs/kb.md). A document's chunks are written in the same
# transaction that makes it searchable; its vectors live in the vector index under "kb:<collection>".
kb_documents = sa.Table(
    "kb_documents",
    metadata,
    sa.Column("id", sa.String(ID_LEN), primary_key=True),
    sa.Column("collection", sa.String(NAME_LEN), nullable=False),
    sa.Column("name", sa.Text, nullable=False),  # the file name as added
    sa.Column("source", sa.Text, nullable=False),  # where it came from: a path, or "upload"
    sa.Column("content_hash", sa.String(64), nullable=False),  # sha256 of the file's bytes
    sa.Column("format", sa.String(16), nullable=False),  # pdf | docx | pptx | xlsx | html | md | txt | csv
    sa.Column("size_bytes", sa.BigInteger, nullable=False),
    sa.Column("path", sa.Text, nullable=False),  # the kept copy, relative to WENSHU_HOME/kb (reindex reads it)
    sa.Column("status", sa.String(16), nullable=False),  # parsing | chunking | embedding | summarizing | ready | error
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

kb_chunks = sa.Table(
    "kb_chunks",
    metadata,
    sa.Column("document_id", sa.String(ID_LEN), sa.ForeignKey("kb_documents.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("ordinal", sa.Integer, primary_key=True),
    sa.Column("id", sa.String(128), nullable=False),  # the vector id: "<document id>:<content hash>"
    sa.Column("heading", sa.Text, nullable=False),  # the section path, "A > B"; "" before the first heading
    sa.Column("page", sa.Integer),  # 1-based, where the format has pages
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("terms", sa.Text, nullable=False),  # keyword-search terms, space separated
    sa.Index("ux_kb_chunks_id", "id", unique=True),
)

kb_segment_summaries = sa.Table(
    "kb_segment_summaries",
    metadata,
    sa.Column("document_id", sa.String(ID_LEN), sa.ForeignKey("kb_documents.id", ondelete="CASCADE"),
              primary_key=True),
    sa.Column("segment", sa.Integer, primary_key=True),
    sa.Column("summary", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)
