"""The answer cache: a first question asked again (by its asker or a colleague, on the same data, the same day)
is answered from the stored response without running the graph.

Only a conversation's first turn without a given plan is looked up, and only answers that ended `ok` without an
error are stored: a follow-up depends on its conversation and always runs the graph. The key holds everything
the answer depends on, so a change misses by itself:

- the datasource (its name, URL and options, the access policy among them) and its data version
  (`engines.execute.data_version`, as the result cache);
- the question, normalized (`normalize_question`), and its language;
- today's date (relative periods such as 上个月 resolve by it);
- the semantic model's stored version and the catalog's sync stamp (schema hash and time: `wenshu sync`);
- the glossary's terms and the active example pairs as they are now (their stores' `stamp`): a term
  corrected or a pair approved after a wrong answer is answered afresh, not served;
- a fingerprint of the settings that change answers (`ANSWER_SETTINGS`).

The user is not part of the key: the channels check the user's grant on the datasource before `Agent.ask`,
and nothing in the pipeline depends on who asks (no per-user row scope), so two users with the grant get the
same answer. Entries live in the result cache's store (storage/cache.py, storage/cache_redis.py: the app-store
table, or Redis shared by every process) as a one-row result whose cell is the answer; they are read back
at most `answer_cache_ttl_s` seconds after they were stored, and a thumbs-down forgets one (`forget`).
"""

from __future__ import annotations

import hashlib
import json
import re
from datetime import date
from typing import Any

from wenshu.contracts import AgentResponse, Event, TraceStep, Usage
from wenshu.engines.execute import data_version
from wenshu.i18n import detect_lang

NODE = "answer_cache"  # the trace step and node event of an answer served from the cache
CELL = "answer"  # the one column of a stored entry
TRAILING = "?？。!！"
# Settings whose change changes an answer (the model, the paths and checks it runs through, the limits).
ANSWER_SETTINGS = (
    "llm_provider", "llm_base_url", "llm_model", "llm_fast_model", "llm_strong_model", "model_path",
    "model_max_tokens", "semantic_path", "disabled_checks", "evaluate_with_model", "sql_candidates",
    "max_validate_retries", "max_evaluate_rounds", "scope_min_similarity", "row_limit", "recall_mode",
    "recall_budget_tokens", "recall_max_tables", "recall_examples", "schema_layout", "embed_provider",
    "embed_model", "guard_max_size", "guard_max_recursion", "plan_max_cost", "plan_max_rows",
    "plan_sqlite_max_scan_rows",
)  # fmt: skip
_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")
_SPACE = re.compile(r"\s+")


def normalize_question(question: str) -> str:
    """Whitespace collapsed, trailing ?？。!！ dropped, ASCII letters lower-cased (other scripts kept as typed)."""
    text = _SPACE.sub(" ", question).strip().rstrip(TRAILING).rstrip()
    return text.translate(_ASCII_LOWER)


def settings_fingerprint(settings) -> str:
    values = settings.model_dump(mode="json", include=set(ANSWER_SETTINGS))
    return hashlib.sha256(json.dumps(values, sort_keys=True).encode()).hexdigest()[:16]


def _sha(parts: list) -> str:
    return hashlib.sha256(json.dumps(parts, ensure_ascii=False, default=str).encode("utf-8")).hexdigest()


class AnswerCache:
    """Looking up, storing and forgetting answers for one agent (its settings and app store)."""

    def __init__(self, settings, store):
        self.ttl_s = settings.answer_cache_ttl_s
        self.store = store
        self.fingerprint = settings_fingerprint(settings)

    def applies(self, conversation_id: str | None, plan: dict | None) -> bool:
        """Whether this turn may be served from (and stored in) the cache: on, a first turn, no given plan."""
        if self.ttl_s <= 0 or plan is not None:
            return False
        return not conversation_id or not self.store.conversations.has_messages(conversation_id)

    def key(self, record, question: str, lang: str) -> str:
        """The entry's key for `question` on the datasource `record` as things stand now."""
        ds = record.name
        semantic = self.store.semantic.latest_version(ds) if hasattr(self.store, "semantic") else None
        synced = self.store.catalogs.status(ds)
        stamp = [synced.schema_hash, synced.synced_at.isoformat()] if synced is not None else None
        knowledge = [self.store.glossary.stamp(ds), self.store.examples.stamp(ds)]  # edited: answered afresh
        return _sha([NODE, ds, _sha([record.url, record.options]), data_version(record.url),
                     normalize_question(question), lang, date.today().isoformat(), semantic, stamp, knowledge,
                     self.fingerprint])

    def lookup(self, key: str) -> dict | None:
        """The stored {response, turn}, or None (missing, older than the TTL, or the store unreachable)."""
        hit = self.store.cache.get(key, max_age_s=self.ttl_s)
        return hit.rows[0][0] if hit is not None and hit.rows and hit.rows[0] else None

    def remember(self, record, question: str, lang: str, response: AgentResponse, state: dict) -> None:
        """Store an answer that ended ok, under the key as things stand after it ran (a first sync may have
        happened during the run); with the conversation turn the graph kept, for follow-ups of a hit."""
        turns = state.get("turns") or []
        if response.error is not None or not turns:
            return
        payload = {"response": response.model_dump(mode="json", exclude={"conversation_id", "message_id", "trace",
                                                                          "usage", "cached"}),
                   "turn": turns[-1]}
        self.store.cache.put(self.key(record, question, lang), datasource=record.name,
                             sql=normalize_question(question), data_version=data_version(record.url),
                             columns=[CELL], rows=[[payload]], row_count=1, ttl_s=self.ttl_s)

    def forget(self, record, question: str) -> bool:
        """Drop the cached answer to `question` (a thumbs-down), so the next ask runs the graph again."""
        return self.store.cache.forget(self.key(record, question, detect_lang(question)))


def replay(entry: dict, conversation_id: str, ms: float, emit) -> AgentResponse:
    """The stored answer as this turn's response (cached, zero model usage, the `answer_cache` step), with the
    events a normal answer streams (`emit`: the agent's event callback, or a no-op)."""
    stored: dict[str, Any] = entry["response"]
    emit(Event(type="node", node=NODE, status="started"))
    if stored.get("sql"):
        emit(Event(type="sql", data=stored["sql"]))
        emit(Event(type="result", data={"row_count": stored.get("row_count", 0), "cached": True}))
    emit(Event(type="answer", data=stored.get("answer", "")))
    emit(Event(type="node", node=NODE, status="cached", ms=ms, data="hit"))
    step = TraceStep(node=NODE, status="cached", ms=ms, detail="hit")
    return AgentResponse(**stored, conversation_id=conversation_id, cached=True, trace=[step], usage=Usage())
