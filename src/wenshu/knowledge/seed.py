"""Seed the app store with the knowledge shipped for a bundled datasource (the demo's examples and glossary).

Idempotent: a datasource's examples are imported only while it has none at all (whatever their
status), and its glossary only while it has no terms, so a pair the user removed or rejected is not
brought back on the next start while the library is in use.
"""

from __future__ import annotations

from importlib.resources import files

from wenshu.knowledge.examples import LibraryExamples, bundled_text
from wenshu.knowledge.glossary import import_terms, parse_yaml

BUNDLED_GLOSSARY = {"demo": ("wenshu.demo.data", "glossary.yaml")}


def bundled_glossary_text(datasource: str) -> str | None:
    src = BUNDLED_GLOSSARY.get(datasource)
    return files(src[0]).joinpath(src[1]).read_text(encoding="utf-8") if src else None


def seed_bundled(store, datasource: str, dialect: str | None = None) -> dict[str, int]:
    """Import the shipped examples and glossary of `datasource` where its library is empty."""
    done = {"examples": 0, "glossary": 0}
    examples = bundled_text(datasource)
    if examples and store.examples.count(datasource) == 0:
        done["examples"], _ = LibraryExamples(store.examples).import_yaml(
            datasource, examples, dialect=dialect, source="bundled")
    glossary = bundled_glossary_text(datasource)
    if glossary and store.glossary.count(datasource) == 0:
        done["glossary"], _ = import_terms(store.glossary, datasource, parse_yaml(glossary))
    return done
