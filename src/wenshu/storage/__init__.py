"""The app store: datasources, conversations, the audit log and the result cache.

SQLAlchemy Core over a SQLite file in WENSHU_HOME by default; PostgreSQL is only a URL change.
"""

from wenshu.storage.audit import AuditLog
from wenshu.storage.cache import CachedResult, ResultCache, make_key, normalize_sql
from wenshu.storage.conversations import ConversationRecord, Conversations, MessageRecord, Turn
from wenshu.storage.datasources import DatasourceRecord, Datasources, normalize_url
from wenshu.storage.db import Store, make_engine, metadata, open_store
from wenshu.storage.migrations import current_revision, head_revision, migrate

__all__ = [
    "AuditLog",
    "CachedResult",
    "ConversationRecord",
    "Conversations",
    "DatasourceRecord",
    "Datasources",
    "MessageRecord",
    "ResultCache",
    "Store",
    "Turn",
    "current_revision",
    "make_engine",
    "head_revision",
    "make_key",
    "metadata",
    "migrate",
    "normalize_sql",
    "normalize_url",
    "open_store",
]
