"""Users, their bearer tokens and their datasource grants.

A token is shown once, when it is created; the store keeps only its SHA-256 hash and a short
prefix for display. A grant names one datasource, or `*` for every datasource.
"""

from __future__ import annotations

import hashlib
import re
import secrets
from dataclasses import dataclass
from datetime import datetime, timedelta

import sqlalchemy as sa
from sqlalchemy.engine import Engine
from sqlalchemy.exc import IntegrityError

from wenshu.errors import InputError
from wenshu.storage.schema import api_tokens as tt
from wenshu.storage.schema import user_grants as gt
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import users as ut

TOKEN_PREFIX = "wsk_"
PREFIX_LEN = 12  # "wsk_" + 8 characters are kept for display
ALL = "*"
USER_RE = re.compile(r"[A-Za-z0-9_.@-]{1,64}")
TOUCH_EVERY = timedelta(minutes=1)
# Built once: a server with no explicit auth setting asks this on every request (server/auth.auth_required).
_ANY_ACTIVE = sa.select(tt.c.id).where(tt.c.revoked_at.is_(None)).limit(1)


@dataclass(frozen=True)
class TokenRecord:
    id: int
    user_id: str
    prefix: str
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None

    @property
    def active(self) -> bool:
        return self.revoked_at is None


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def validate_user(name: str) -> str:
    if not isinstance(name, str) or not USER_RE.fullmatch(name) or name == "local":
        raise InputError(
            f"Invalid user name {name!r}: use 1-64 letters, digits or '_.@-' (and not 'local').",
            f"用户名 {name!r} 无效：只能使用 1-64 个字母、数字或 _.@-（且不能是 local）。",
            code="bad_user_name",
        )
    return name


class Users:
    def __init__(self, engine: Engine):
        self.engine = engine

    def ensure_user(self, user_id: str) -> str:
        validate_user(user_id)
        try:
            with self.engine.begin() as conn:
                conn.execute(ut.insert().values(id=user_id, created_at=utcnow()))
        except IntegrityError:
            pass  # already there
        return user_id

    def grant(self, user_id: str, datasource: str) -> None:
        self.ensure_user(user_id)
        try:
            with self.engine.begin() as conn:
                conn.execute(gt.insert().values(user_id=user_id, datasource=datasource, created_at=utcnow()))
        except IntegrityError:
            pass

    def revoke_grant(self, user_id: str, datasource: str) -> bool:
        with self.engine.begin() as conn:
            stmt = gt.delete().where(gt.c.user_id == user_id, gt.c.datasource == datasource)
            return conn.execute(stmt).rowcount > 0

    def grants(self, user_id: str) -> frozenset[str]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(gt.c.datasource).where(gt.c.user_id == user_id)).scalars()
            return frozenset(rows)

    def create_token(self, user_id: str) -> tuple[TokenRecord, str]:
        """A new token for the user (created if missing): the record and the token, shown once."""
        self.ensure_user(user_id)
        token = TOKEN_PREFIX + secrets.token_urlsafe(32)
        now = utcnow()
        with self.engine.begin() as conn:
            tid = conn.execute(
                tt.insert().values(user_id=user_id, token_hash=hash_token(token), prefix=token[:PREFIX_LEN],
                                   created_at=now)
            ).inserted_primary_key[0]
        return TokenRecord(tid, user_id, token[:PREFIX_LEN], now, None, None), token

    def tokens(self, user_id: str | None = None) -> list[TokenRecord]:
        stmt = sa.select(tt.c.id, tt.c.user_id, tt.c.prefix, tt.c.created_at, tt.c.last_used_at, tt.c.revoked_at)
        if user_id is not None:
            stmt = stmt.where(tt.c.user_id == user_id)
        with self.engine.connect() as conn:
            return [TokenRecord(**r._mapping) for r in conn.execute(stmt.order_by(tt.c.id))]

    def revoke(self, token_id: int) -> bool:
        """Revoke a token by id; False when there is no such active token."""
        with self.engine.begin() as conn:
            stmt = tt.update().where(tt.c.id == token_id, tt.c.revoked_at.is_(None)).values(revoked_at=utcnow())
            return conn.execute(stmt).rowcount > 0

    def any_active(self) -> bool:
        with self.engine.connect() as conn:
            return conn.execute(_ANY_ACTIVE).first() is not None

    def lookup(self, token: str) -> TokenRecord | None:
        """The active token record matching `token`, or None; notes when it was last used."""
        if not token or not token.startswith(TOKEN_PREFIX):
            return None
        digest = hash_token(token)
        stmt = sa.select(tt.c.id, tt.c.user_id, tt.c.prefix, tt.c.created_at, tt.c.last_used_at, tt.c.revoked_at)
        with self.engine.connect() as conn:
            row = conn.execute(stmt.where(tt.c.token_hash == digest, tt.c.revoked_at.is_(None))).first()
        if row is None:
            return None
        rec = TokenRecord(**row._mapping)
        now = utcnow()
        if rec.last_used_at is None or now - rec.last_used_at > TOUCH_EVERY:
            with self.engine.begin() as conn:
                conn.execute(tt.update().where(tt.c.id == rec.id).values(last_used_at=now))
        return rec
