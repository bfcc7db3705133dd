"""Who is calling, for every channel the server layer runs (the HTTP API and `wenshu mcp serve`): a bearer
token checked against the token store, the user's datasource grants, and when a token is required.

No web framework here: `deps.py` wraps these for FastAPI, the MCP server calls them with the header it got."""

from __future__ import annotations

import ipaddress
from collections.abc import Callable
from dataclasses import dataclass

from wenshu.errors import AuthRequired, InvalidToken
from wenshu.settings import Settings
from wenshu.storage.users_store import ALL

LOCAL_USER = "local"


def is_loopback(host: str) -> bool:
    if host in ("localhost", ""):
        return True
    try:
        return ipaddress.ip_address(host.strip("[]")).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Principal:
    """The caller: a user id, the token used (None for the local user) and datasource grants."""

    user_id: str
    token_id: int | None
    grants: frozenset[str]

    @property
    def is_admin(self) -> bool:
        return ALL in self.grants

    def can_use(self, datasource: str) -> bool:
        return self.is_admin or datasource in self.grants


LOCAL = Principal(LOCAL_USER, None, frozenset({ALL}))


def auth_required(settings: Settings, store, bind_host: str) -> bool:
    """Explicit setting first; else required off loopback or as soon as any token exists."""
    if settings.auth_required is not None:
        return settings.auth_required
    return not is_loopback(bind_host) or store.users.any_active()


def bearer_token(header: str | None) -> str | None:
    """The token of an `Authorization: Bearer <token>` header; None without the header, 401 for another scheme."""
    if header is None:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise InvalidToken()
    return token.strip()


def authenticate(store, header: str | None, *, required: bool | Callable[[], bool]) -> Principal:
    """The caller of a request with this Authorization header: a token's user and grants, or the local
    user when no token is sent and none is required (`required` may be a function, asked only then). A bad
    token is refused even when none is required."""
    token = bearer_token(header)
    if token is not None:
        record = store.users.lookup(token)
        if record is None:
            raise InvalidToken()
        return Principal(record.user_id, record.id, store.users.grants(record.user_id))
    if required() if callable(required) else required:
        raise AuthRequired()
    return LOCAL

