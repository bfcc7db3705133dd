"""A datasource's semantic model in force: import (parsed and checked first), export, the bundled ones.

Nothing invalid is stored: `import_model` parses the YAML, checks it against the datasource's synced
catalog and only then saves it as a new version.
"""

from __future__ import annotations

import logging
from importlib.resources import files

from wenshu.semantic.model import InvalidSemanticModel, SemanticModel, parse_model
from wenshu.semantic.validate import ensure_valid

log = logging.getLogger("wenshu.semantic")
BUNDLED = {"demo": ("wenshu.demo.data", "semantic.yaml")}


def bundled_text(datasource: str) -> str | None:
    src = BUNDLED.get(datasource)
    return files(src[0]).joinpath(src[1]).read_text(encoding="utf-8") if src else None


def load(store, datasource: str, version: int | None = None) -> SemanticModel | None:
    """The stored model (latest, or `version`), or None when the datasource has none."""
    found = store.semantic.get(datasource, version)
    return parse_model(found.body) if found else None


def import_model(store, catalog, text: str, *, source: str = "user") -> tuple[int, SemanticModel]:
    """Parse, check against `catalog` and store `text` as the datasource's next version."""
    model = parse_model(text)
    if model.datasource != catalog.datasource:
        raise InvalidSemanticModel(
            [f"datasource: the model is for '{model.datasource}', not '{catalog.datasource}'"],
            [f"datasource：该模型属于「{model.datasource}」，不是「{catalog.datasource}」"])
    ensure_valid(model, catalog, catalog.dialect)
    return store.semantic.save(catalog.datasource, text, source), model


def export_text(store, datasource: str, version: int | None = None) -> str:
    return store.semantic.require(datasource, version).body


def seed_bundled(store, catalog) -> int | None:
    """Store the shipped model of a bundled datasource while it has none, or a newer shipped one while the
    version in force is the shipped one (a person's own version is never replaced); returns the version stored."""
    text = bundled_text(catalog.datasource)
    current = store.semantic.get(catalog.datasource) if text else None
    if not text or (current is not None and (current.source != "bundled" or current.body == text)):
        return None  # none shipped, a person's own version in force, or the shipped one already stored
    try:
        return import_model(store, catalog, text, source="bundled")[0]
    except InvalidSemanticModel as exc:  # the shipped model no longer fits the database: say so, go on
        log.warning("the bundled semantic model of %s was not stored: %s", catalog.datasource, exc)
        return None
