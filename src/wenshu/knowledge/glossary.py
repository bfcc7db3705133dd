"""The business glossary: terms (definition + SQL snippet) and topics (sets of tables), matched in questions.

How recall and generation use it (the interface other modules code against):

    library = GlossaryLibrary(store.glossary)          # all datasources, reads the app store
    glossary = library.for_datasource("demo")          # one datasource -> Glossary
    terms = glossary.match("上周华东区的GMV")            # -> [GlossaryTerm(华东...), GlossaryTerm(GMV...)]
    [t.to_dict() for t in terms]                       # {term, kind, definition, sql, synonyms, tables}

`match(question)` lives on the per-datasource `Glossary`. Both classes have `for_datasource(name)`
(a `Glossary` returns itself), so a recall takes either one and calls
`glossary.for_datasource(catalog.datasource).match(question)`.

Matching: every term and synonym, case-insensitive, longest first, without overlaps; ASCII names
only match whole words (an optional plural "s" allowed), CJK names match anywhere.
"""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field

import yaml

from wenshu.errors import InputError
from wenshu.knowledge import yaml_io

_ASCII_WORD = re.compile(r"[A-Za-z0-9]")


@dataclass(frozen=True)
class GlossaryTerm:
    term: str
    definition: str
    sql: str | None = None
    synonyms: list[str] = field(default_factory=list)
    tables: list[str] = field(default_factory=list)
    kind: str = "term"  # term | topic

    def to_dict(self) -> dict:
        return asdict(self)

    @classmethod
    def from_record(cls, r) -> GlossaryTerm:
        return cls(term=r.term, definition=r.definition, sql=r.sql, synonyms=list(r.synonyms),
                   tables=list(r.tables), kind=r.kind)


def _boundary_ok(text: str, start: int, end: int, needle: str) -> bool:
    """ASCII edges of a needle must not continue a word in the text ("GMV" not inside "GMVX")."""
    if _ASCII_WORD.match(needle[0]) and start > 0 and _ASCII_WORD.match(text[start - 1]):
        return False
    if _ASCII_WORD.match(needle[-1]) and end < len(text):
        follow = text[end : end + 2]
        plural = follow[:1] == "s" and (len(follow) == 1 or not _ASCII_WORD.match(follow[1]))
        if _ASCII_WORD.match(follow[0]) and not plural:
            return False
    return True


class Glossary:
    """The terms of one datasource."""

    def __init__(self, terms: list[GlossaryTerm]):
        self.terms = list(terms)
        names = [(name.casefold(), t) for t in self.terms for name in [t.term, *t.synonyms] if name.strip()]
        self._needles = sorted(names, key=lambda n: -len(n[0]))

    def for_datasource(self, datasource: str) -> Glossary:
        return self

    def match(self, question: str) -> list[GlossaryTerm]:
        """Terms named in the question (by name or synonym), in the order they appear."""
        text = question.casefold()
        taken: list[tuple[int, int]] = []
        found: dict[str, tuple[int, GlossaryTerm]] = {}
        for needle, term in self._needles:
            start = text.find(needle)
            while start >= 0:
                end = start + len(needle)
                free = all(end <= a or start >= b for a, b in taken)
                if free and _boundary_ok(text, start, end, needle):
                    taken.append((start, end))
                    if term.term not in found or start < found[term.term][0]:
                        found[term.term] = (start, term)
                start = text.find(needle, start + 1)
        return [t for _, t in sorted(found.values(), key=lambda f: f[0])]

    def get(self, name: str) -> GlossaryTerm | None:
        """The term called `name`, by its name or one of its synonyms (case-insensitive)."""
        key = name.strip().casefold()
        return next((t for t in self.terms if key in {n.casefold() for n in [t.term, *t.synonyms]}), None)


class GlossaryLibrary:
    """Glossaries of every datasource, read from the app store's `glossary` repository."""

    def __init__(self, repo):
        self.repo = repo

    def for_datasource(self, datasource: str) -> Glossary:
        return Glossary([GlossaryTerm.from_record(r) for r in self.repo.list(datasource)])

    def match(self, datasource: str, question: str) -> list[GlossaryTerm]:
        return self.for_datasource(datasource).match(question)


def _bad_yaml(detail: str) -> InputError:
    return InputError(f"The glossary file is not valid: {detail}", f"术语表文件无效：{detail}",
                      code="bad_glossary_file")


def parse_yaml(text: str) -> list[GlossaryTerm]:
    """`glossary: [{term, kind, definition, sql, synonyms, tables}]` (or a bare list) -> terms."""
    try:
        data = yaml.safe_load(text) or []
    except yaml.YAMLError as exc:
        raise _bad_yaml(str(exc).splitlines()[0]) from None
    items = data.get("glossary", data.get("terms")) if isinstance(data, dict) else data
    if not isinstance(items, list):
        raise _bad_yaml("expected a list under `glossary:`")
    terms = []
    for i, item in enumerate(items, 1):
        if not isinstance(item, dict) or not item.get("term") or not item.get("definition"):
            raise _bad_yaml(f"entry {i} needs `term` and `definition`")
        terms.append(GlossaryTerm(
            term=str(item["term"]).strip(), definition=str(item["definition"]).strip(),
            sql=(str(item["sql"]).strip() if item.get("sql") else None),
            synonyms=[str(s) for s in item.get("synonyms") or []], tables=[str(t) for t in item.get("tables") or []],
            kind=str(item.get("kind") or "term"),
        ))
    return terms


def dump_yaml(terms: list[GlossaryTerm]) -> str:
    items = []
    for t in terms:
        item = {"term": t.term, "kind": t.kind, "synonyms": t.synonyms, "definition": t.definition}
        if t.sql:
            item["sql"] = t.sql
        item["tables"] = t.tables
        items.append(item)
    return yaml_io.dump({"glossary": items})


def import_terms(repo, datasource: str, terms: list[GlossaryTerm]) -> tuple[int, int]:
    """Insert or replace each term; returns (added, updated)."""
    added = updated = 0
    for t in terms:
        _, created = repo.put(datasource, t.term, t.definition, kind=t.kind, sql=t.sql,
                              synonyms=t.synonyms, tables=t.tables)
        added, updated = added + created, updated + (not created)
    return added, updated
