"""Semantic models in the app store: every save is a new version; the latest is the one in force.

Storage only: parsing and checking a model against its catalog belong to `wenshu.semantic`.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

import sqlalchemy as sa
from sqlalchemy.engine import Engine

from wenshu.errors import NotFound
from wenshu.storage.columns import utcnow
from wenshu.storage.schema import semantic_models as t

SOURCES = ("bundled", "draft", "user")
# Built once: the answer cache reads the version in force on every first question.
_LATEST = sa.select(sa.func.max(t.c.version)).where(t.c.datasource == sa.bindparam("ds"))


@dataclass(frozen=True)
class SemanticVersion:
    datasource: str
    version: int
    body: str
    source: str
    created_at: datetime | None = None

    def summary(self) -> dict:
        return {"datasource": self.datasource, "version": self.version, "source": self.source,
                "created_at": self.created_at.isoformat() if self.created_at else None}


class SemanticModels:
    def __init__(self, engine: Engine):
        self.engine = engine

    def save(self, datasource: str, body: str, source: str = "user") -> int:
        """Store `body` as the datasource's next version; returns it. Two writers never share a number."""
        if source not in SOURCES:
            raise ValueError(f"unknown source {source!r}")
        for _ in range(5):
            try:
                with self.engine.begin() as conn:
                    latest = conn.execute(sa.select(sa.func.max(t.c.version)).where(t.c.datasource == datasource)).scalar()
                    version = (latest or 0) + 1
                    conn.execute(t.insert().values(datasource=datasource, version=version, body=body, source=source,
                                                   created_at=utcnow()))
                    return version
            except sa.exc.IntegrityError:  # another process took that number: take the next
                continue
        raise RuntimeError("could not store the semantic model: too many concurrent writers")

    def get(self, datasource: str, version: int | None = None) -> SemanticVersion | None:
        """The given version, or the latest; None when the datasource has none."""
        q = sa.select(t).where(t.c.datasource == datasource)
        q = q.where(t.c.version == version) if version else q.order_by(t.c.version.desc()).limit(1)
        with self.engine.connect() as conn:
            row = conn.execute(q).mappings().first()
        return SemanticVersion(**row) if row else None

    def latest_version(self, datasource: str) -> int | None:
        """The number of the version in force (without reading its body); None when there is none."""
        with self.engine.connect() as conn:
            return conn.execute(_LATEST, {"ds": datasource}).scalar()

    def require(self, datasource: str, version: int | None = None) -> SemanticVersion:
        found = self.get(datasource, version)
        if found is None:
            what = f"version {version} of its semantic model" if version else "semantic model"
            raise NotFound(
                f"Datasource '{datasource}' has no {what}; draft one with `wenshu semantic draft {datasource}`.",
                f"数据源「{datasource}」没有{'第 ' + str(version) + ' 版' if version else ''}语义模型；"
                f"可用 `wenshu semantic draft {datasource}` 起草。",
                code="semantic_model_not_found")
        return found

    def versions(self, datasource: str) -> list[SemanticVersion]:
        q = sa.select(t).where(t.c.datasource == datasource).order_by(t.c.version)
        with self.engine.connect() as conn:
            return [SemanticVersion(**row) for row in conn.execute(q).mappings()]

    def count(self, datasource: str) -> int:
        q = sa.select(sa.func.count()).select_from(t).where(t.c.datasource == datasource)
        with self.engine.connect() as conn:
            return conn.execute(q).scalar() or 0
