"""Few-shot examples: question <-> SQL pairs per datasource, retrieved by question and SQL-shape similarity.

`ExampleSource` is the interface recall codes against: `similar(datasource, question, k) -> [dict]`
with dicts `{question, sql, query_type}` (library entries add `id`). Two implementations:

- `BundledExamples`: the YAML files shipped with the package, read-only (no app store needed);
- `LibraryExamples(store.examples)`: the app-store library; only `active` pairs are served, so
  learned (`pending`) pairs are never shown to the model before someone approves them.

Question similarity is a TF-IDF cosine over lower-cased words and CJK character bigrams (rare
features weigh more than "上个月"). `similar(..., sql=CANDIDATE)` also rewards examples whose SQL
skeleton matches the candidate, and near-identical skeletons are served once (diversity).
"""

from __future__ import annotations

import math
import re
from collections import Counter
from functools import lru_cache
from importlib.resources import files
from collections.abc import Callable
from typing import Protocol

import sqlglot
import yaml
from sqlglot import exp

from wenshu.errors import InputError, InvalidExampleSQL
from wenshu.knowledge import yaml_io
from wenshu.knowledge.skeleton import skeleton, skeleton_similarity

_WORD = re.compile(r"[a-z0-9_]+")
_CJK = re.compile(r"[\u4e00-\u9fff]+")
BUNDLED = {"demo": ("wenshu.demo.data", "examples.yaml")}
SKELETON_WEIGHT = 0.3  # how much a matching SQL shape adds to a question score in 0..1
DENSE_WEIGHT = 0.5  # share of the embedding cosine in the question score, when an embedder is given
DENSE_FLOOR = 0.45  # an example with no shared word is kept only above this cosine
NEAR_DUPLICATE = 0.95  # skeleton similarity above which two examples teach the same shape


def features(text: str) -> set[str]:
    """Lower-cased words plus CJK character bigrams (and single characters of one-character runs)."""
    low = text.lower()
    out = set(_WORD.findall(low))
    for run in _CJK.findall(low):
        out.update(run[i : i + 2] for i in range(max(len(run) - 1, 1)))
    return out


def similarity(a: str, b: str) -> float:
    fa, fb = features(a), features(b)
    if not fa or not fb:
        return 0.0
    return len(fa & fb) / (len(fa | fb) ** 0.5 * len(fa) ** 0.5)


class ExampleSource(Protocol):
    def similar(self, datasource: str, question: str, k: int = 3) -> list[dict]: ...


def _weighted_cosine(q: set[str], e: set[str], idf: dict[str, float]) -> float:
    shared = sum(idf.get(f, 0.0) ** 2 for f in q & e)
    if not shared:
        return 0.0
    norm_q = math.sqrt(sum(idf.get(f, 0.0) ** 2 for f in q))
    norm_e = math.sqrt(sum(idf.get(f, 0.0) ** 2 for f in e))
    return shared / (norm_q * norm_e)


def rank(question: str, examples: list[dict], k: int, sql: str | None = None,
         dense: list[float] | None = None, featurize: Callable[[str], set[str]] = features) -> list[dict]:
    """The k best examples for a question (and optionally a candidate SQL), near-duplicate shapes once.

    `dense`, aligned with `examples`, holds the embedding cosines of their questions to this one;
    `featurize` turns a question into its lexical features.
    """
    if k <= 0 or not examples:
        return []
    feats = [featurize(e["question"]) for e in examples]
    df = Counter(f for fs in feats for f in fs)
    n = len(examples)
    idf = {f: math.log(1 + n / c) for f, c in df.items()}
    q = featurize(question)
    for f in q - set(idf):
        idf[f] = math.log(1 + n)  # unseen features still count in the question's norm
    target = skeleton(sql) if sql else None
    scored = []
    for i, (e, fs) in enumerate(zip(examples, feats, strict=True)):
        score = _weighted_cosine(q, fs, idf)
        if dense is not None:
            keep = score > 0 or dense[i] >= DENSE_FLOOR
            score = (1 - DENSE_WEIGHT) * score + DENSE_WEIGHT * max(dense[i], 0.0) if keep else 0.0
        if target and score > 0:
            score += SKELETON_WEIGHT * skeleton_similarity(target, e.get("skeleton") or skeleton(e["sql"]))
        if score > 0:
            scored.append((score, i, e))
    scored.sort(key=lambda s: (-s[0], s[1]))
    picked: list[dict] = []
    spare: list[dict] = []
    for _, _, e in scored:
        shape = e.get("skeleton") or skeleton(e["sql"])
        same = any(skeleton_similarity(shape, p.get("skeleton") or skeleton(p["sql"])) >= NEAR_DUPLICATE
                   for p in picked)
        (spare if same else picked).append(e)
        if len(picked) == k:
            break
    return (picked + spare)[:k]


def check_sql(sql: str, dialect: str | None = None) -> str:
    """The SQL, stripped, if it parses as one read-only query; InvalidExampleSQL otherwise."""
    text = (sql or "").strip().rstrip(";").strip()
    try:
        trees = [t for t in sqlglot.parse(text, read=dialect or None) if t is not None]
    except (sqlglot.errors.ParseError, sqlglot.errors.TokenError) as exc:
        detail = str(exc).splitlines()[0][:200]
        raise InvalidExampleSQL(f"The example's SQL could not be parsed: {detail}",
                                f"示例中的 SQL 无法解析：{detail}") from None
    if len(trees) != 1 or not isinstance(trees[0], exp.Query):
        raise InvalidExampleSQL("An example's SQL must be exactly one SELECT query.",
                                "示例中的 SQL 必须是一条 SELECT 查询。")
    return text


def parse_yaml(text: str) -> list[dict]:
    """`examples: [{question, sql, query_type}]` (or a bare list) -> [{question, sql, query_type}]."""
    try:
        data = yaml.safe_load(text) or []
    except yaml.YAMLError as exc:
        raise InputError(f"The examples file is not valid YAML: {str(exc).splitlines()[0]}",
                         f"示例文件不是有效的 YAML：{str(exc).splitlines()[0]}", code="bad_examples_file") from None
    items = data.get("examples") if isinstance(data, dict) else data
    if not isinstance(items, list) or any(not isinstance(e, dict) or not e.get("question") or not e.get("sql")
                                          for e in items):
        raise InputError("The examples file needs a list of {question, sql, query_type} under `examples:`.",
                         "示例文件需要在 `examples:` 下列出 {question, sql, query_type}。", code="bad_examples_file")
    return [{"question": str(e["question"]).strip(), "sql": str(e["sql"]).strip(),
             "query_type": e.get("query_type")} for e in items]


def dump_yaml(examples: list[dict]) -> str:
    items = [{"question": e["question"], "query_type": e.get("query_type"), "sql": e["sql"].strip() + "\n"}
             for e in examples]
    return yaml_io.dump({"examples": items})


@lru_cache(maxsize=None)
def _load(package: str, name: str) -> tuple[dict, ...]:
    return tuple(parse_yaml(files(package).joinpath(name).read_text(encoding="utf-8")))


def bundled_text(datasource: str) -> str | None:
    src = BUNDLED.get(datasource)
    return files(src[0]).joinpath(src[1]).read_text(encoding="utf-8") if src else None


class BundledExamples:
    def __init__(self, sources: dict[str, tuple[str, str]] | None = None):
        self.sources = BUNDLED if sources is None else sources

    def all(self, datasource: str) -> list[dict]:
        src = self.sources.get(datasource)
        return list(_load(*src)) if src else []

    def similar(self, datasource: str, question: str, k: int = 3, *, sql: str | None = None) -> list[dict]:
        return rank(question, self.all(datasource), k, sql)


class LibraryExamples:
    """The app-store few-shot library (`store.examples`): serves active pairs, adds and imports pairs."""

    def __init__(self, repo, embedder=None, glossary=None):
        """Optional helpers: `embedder` (providers.embeddings.Embedder) adds cross-lingual question
        similarity; `glossary` (knowledge.glossary.GlossaryLibrary) makes synonyms count as the same
        word ("成交额" in a question matches an example that says "GMV")."""
        self.repo = repo
        self.embedder = embedder
        self.glossary = glossary
        self._vectors: dict[str, object] = {}  # example question -> its embedding

    def all(self, datasource: str) -> list[dict]:
        return [_as_dict(r) for r in self.repo.list(datasource, status="active")]

    def similar(self, datasource: str, question: str, k: int = 3, *, sql: str | None = None) -> list[dict]:
        examples = self.all(datasource)
        return rank(question, examples, k, sql, self._dense(question, examples), self._featurizer(datasource))

    def _featurizer(self, datasource: str) -> Callable[[str], set[str]]:
        if self.glossary is None:
            return features
        terms = self.glossary.for_datasource(datasource)
        return lambda text: features(text) | {f"term:{t.term}" for t in terms.match(text)}

    def _dense(self, question: str, examples: list[dict]) -> list[float] | None:
        if self.embedder is None or not examples:
            return None
        missing = [e["question"] for e in examples if e["question"] not in self._vectors]
        if missing:
            self._vectors.update(zip(missing, self.embedder.embed(missing), strict=True))
        q = self.embedder.embed([question])[0]
        return [float(q @ self._vectors[e["question"]]) for e in examples]

    def add(self, datasource: str, question: str, sql: str, *, query_type: str | None = None,
            dialect: str | None = None, status: str = "active", source: str = "user",
            conversation_id: str | None = None):
        """Check the SQL parses as one query, then store the pair with its skeleton (DuplicateEntry if known)."""
        text = check_sql(sql, dialect)
        return self.repo.add(datasource, question, text, query_type=query_type, skeleton=skeleton(text, dialect),
                             status=status, source=source, conversation_id=conversation_id)

    def import_yaml(self, datasource: str, text: str, *, dialect: str | None = None,
                    source: str = "user") -> tuple[int, int]:
        """Add every pair of a YAML file whose question is new; returns (added, skipped duplicates).

        All SQL is checked before anything is stored, so a bad file adds nothing.
        """
        items = parse_yaml(text)
        for e in items:
            check_sql(e["sql"], dialect)
        added = 0
        for e in items:
            if self.repo.find(datasource, e["question"]) is None:
                self.add(datasource, e["question"], e["sql"], query_type=e.get("query_type"), dialect=dialect,
                         source=source)
                added += 1
        return added, len(items) - added

    def export_yaml(self, datasource: str | None = None, status: str = "active") -> str:
        return dump_yaml([_as_dict(r) for r in self.repo.list(datasource, status=status)])


def _as_dict(record) -> dict:
    return {"id": record.id, "question": record.question, "sql": record.sql, "query_type": record.query_type,
            "skeleton": record.skeleton}
