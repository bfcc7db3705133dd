"""Registered datasources: a name, a SQLAlchemy URL and a few options.

URLs are stored as given (passwords included, like any local config file); use
`DatasourceRecord.safe_url` wherever a URL is shown or logged.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Engine, make_url
from sqlalchemy.exc import ArgumentError, IntegrityError, NoSuchModuleError

from wenshu.errors import InputError, UnknownDatasource
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import datasources as t

NAME_RE = re.compile(r"[A-Za-z0-9_-]{1,64}")
SQLITE_SUFFIXES = (".sqlite", ".sqlite3", ".db", ".db3")
_GET = sa.select(t).where(t.c.name == sa.bindparam("name_"))  # built once: every answer reads its datasource


@dataclass(frozen=True)
class DatasourceRecord:
    name: str
    url: str = field(repr=False)
    dialect: str
    options: dict[str, Any]
    created_at: datetime

    @property
    def safe_url(self) -> str:
        """The URL with any password masked."""
        return make_url(self.url).render_as_string(hide_password=True)


def _safe(url: str) -> str:
    """The URL with the password masked, for messages (best effort)."""
    try:
        return make_url(url).render_as_string(hide_password=True)
    except Exception:
        return url


def _bad_url(url: str) -> InputError:
    url = _safe(url) if "://" in url else url
    return InputError(
        f"'{url}' is not a database URL. Use a SQLAlchemy URL such as "
        "postgresql+psycopg://user:password@host:5432/db or mysql+pymysql://user:password@host/db, "
        "or a path to a SQLite file ending in .sqlite or .db.",
        f"「{url}」不是有效的数据库连接串。请使用 SQLAlchemy URL，例如 "
        "postgresql+psycopg://user:password@host:5432/db 或 mysql+pymysql://user:password@host/db，"
        "或者以 .sqlite / .db 结尾的 SQLite 文件路径。",
        code="bad_url",
    )


def normalize_url(url: str) -> tuple[str, str]:
    """`(url, dialect)` for a SQLAlchemy URL or a path to a SQLite file.

    A path becomes `sqlite:///ABSOLUTE_PATH`; relative SQLite URLs are made absolute too, so the
    datasource does not depend on the working directory. Raises InputError(`bad_url`).
    """
    raw = (url or "").strip()
    if not raw:
        raise _bad_url(raw)
    if "://" not in raw:
        if Path(raw).suffix.lower() in SQLITE_SUFFIXES:
            return f"sqlite:///{Path(raw).expanduser().resolve()}", "sqlite"
        raise _bad_url(raw)
    try:
        parsed = make_url(raw)
        dialect = parsed.get_backend_name()
        parsed.get_dialect()  # loads the dialect class only, not the driver
    except NoSuchModuleError as exc:
        kind = raw.split("://", 1)[0]
        raise InputError(
            f"Unknown database type '{kind}' in '{_safe(raw)}': no SQLAlchemy dialect is "
            "installed for it. Check the spelling (postgresql, mysql, sqlite, ...) or install "
            "the dialect package.",
            f"连接串「{_safe(raw)}」中的数据库类型「{kind}」无法识别：未安装对应的 SQLAlchemy "
            "方言。请检查拼写（postgresql、mysql、sqlite 等）或安装对应的方言包。",
            code="bad_url",
        ) from exc
    except (ArgumentError, ValueError) as exc:
        raise _bad_url(raw) from exc
    db = parsed.database
    if dialect == "sqlite" and db and db != ":memory:" and not parsed.query.get("uri"):
        path = Path(db).expanduser()
        if not path.is_absolute():
            raw = parsed.set(database=str(path.resolve())).render_as_string(hide_password=False)
    return raw, dialect


def validate_name(name: str) -> str:
    if not isinstance(name, str) or not NAME_RE.fullmatch(name):
        raise InputError(
            f"Invalid datasource name {name!r}: use 1-64 letters, digits, '_' or '-'.",
            f"数据源名称 {name!r} 无效：只能使用 1-64 个字母、数字、下划线或连字符。",
            code="bad_datasource_name",
        )
    return name


def _record(row: sa.Row) -> DatasourceRecord:
    return DatasourceRecord(
        name=row.name,
        url=row.url,
        dialect=row.dialect,
        options=dict(row.options or {}),
        created_at=row.created_at,
    )


class Datasources:
    def __init__(self, engine: Engine):
        self.engine = engine

    def add(self, name: str, url: str, options: dict[str, Any] | None = None) -> DatasourceRecord:
        validate_name(name)
        url, dialect = normalize_url(url)
        rec = DatasourceRecord(name, url, dialect, dict(options or {}), utcnow())
        try:
            with self.engine.begin() as conn:
                conn.execute(
                    t.insert().values(
                        name=rec.name,
                        url=rec.url,
                        dialect=rec.dialect,
                        options=rec.options,
                        created_at=rec.created_at,
                    )
                )
        except IntegrityError as exc:
            raise InputError(
                f"A datasource named '{name}' already exists; "
                "remove it first or pick another name.",
                f"名为「{name}」的数据源已存在，请先删除或换一个名称。",
                code="datasource_exists",
            ) from exc
        return rec

    def get(self, name: str) -> DatasourceRecord:
        with self.engine.connect() as conn:
            row = conn.execute(_GET, {"name_": name}).first()
        if row is None:
            raise UnknownDatasource(name, self.names())
        return _record(row)

    def list(self) -> list[DatasourceRecord]:
        with self.engine.connect() as conn:
            return [_record(r) for r in conn.execute(sa.select(t).order_by(t.c.name))]

    def names(self) -> list[str]:
        with self.engine.connect() as conn:
            return list(conn.execute(sa.select(t.c.name).order_by(t.c.name)).scalars())

    def policy(self, name: str) -> dict[str, Any]:
        """The access policy stored in `options["policy"]` ({} when none); see `wenshu.guard.policy`."""
        return dict(self.get(name).options.get("policy") or {})

    def set_policy(self, name: str, policy: dict[str, Any] | None) -> DatasourceRecord:
        """Store (or, with an empty/None policy, remove) `options["policy"]`; other options are kept."""
        options = dict(self.get(name).options)
        if policy:
            options["policy"] = dict(policy)
        else:
            options.pop("policy", None)
        with self.engine.begin() as conn:
            conn.execute(t.update().where(t.c.name == name).values(options=options))
        return self.get(name)

    def remove(self, name: str) -> None:
        with self.engine.begin() as conn:
            deleted = conn.execute(t.delete().where(t.c.name == name)).rowcount
        if not deleted:
            raise UnknownDatasource(name, self.names())
