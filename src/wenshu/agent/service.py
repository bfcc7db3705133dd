"""The agent service: AgentRequest -> AgentResponse around one compiled graph.

It resolves the datasource, opens the turn in its conversation (`agent.turns`), runs the graph
(checkpointed per conversation so memory survives a restart), learns from the turn, closes it with the
answer and hands it to the audit hook. A first question asked again is answered from the answer cache
(`agent.answer_cache`) without running the graph, the turn stored and audited all the same. Channels (CLI,
HTTP, bots) call `ask` and never touch the graph.
"""

from __future__ import annotations

import time
from datetime import date

from wenshu.agent.answer_cache import AnswerCache, replay
from wenshu.agent.context import AgentContext, CatalogSource, EventCallback, build_recall
from wenshu.agent.checks import require_known
from wenshu.agent.graph import build_graph
from wenshu.agent.response import build_response, usage_of
from wenshu.agent.turns import AuditHook, Conversations
from wenshu.contracts import AgentRequest, AgentResponse, Usage
from wenshu.errors import EmptyQuestion, RunCancelled, UnknownDatasource, WenshuError
from wenshu.guard import SQLValidator
from wenshu.guard.guard import Guard
from wenshu.guard.policy import GuardPolicy
from wenshu.i18n import detect_lang
from wenshu.knowledge.introspect import load_catalog
from wenshu.knowledge.learning import learn_from_turn, record_feedback
from wenshu.knowledge.recall import SchemaRecall
from wenshu.knowledge.shorthand import expand
from wenshu.providers.base import ModelClient
from wenshu.providers.registry import resolve
from wenshu.semantic.nearby import Nearby
from wenshu.settings import Settings
from wenshu.storage.session_memory import open_session_memory


class Agent:
    def __init__(
        self,
        settings: Settings,
        store,
        *,
        models: ModelClient | None = None,
        validator: SQLValidator | None = None,
        recall: SchemaRecall | None = None,
    ):
        self.settings = settings
        self.store = store
        self._models = models
        self.validator = validator or Guard.from_settings(settings)
        self.recall = recall or build_recall(settings, store)
        self.catalogs = CatalogSource(load_catalog, store=store)
        settings.ensure_home()
        # Session memory: Redis shared by every process, else a PostgreSQL app store's database, else the SQLite
        # file in home (storage/session_memory.py).
        self.checkpointer = open_session_memory(settings.checkpoint_path, store, settings.session_ttl_s,
                                                settings.database_timeout_s)
        disabled = require_known(settings.disabled_checks)
        self.graph = build_graph(
            max_retries=0 if "retry" in disabled else settings.max_validate_retries,
            max_rounds=settings.max_evaluate_rounds,
            checkpointer=self.checkpointer,
        )
        self._semantic: dict[str, tuple[int, object]] = {}
        embedder = getattr(self.recall, "embedder", None)
        self.nearby = Nearby(embedder) if embedder is not None and "near_words" not in disabled else None
        self.conversations = Conversations(store)
        self.audit = AuditHook(store)
        self.answers = AnswerCache(settings, store)

    def models(self) -> ModelClient:
        if self._models is None:
            self._models = resolve(self.settings)
        return self._models.fresh()

    def semantic_model(self, datasource: str):
        """The datasource's semantic model in force (parsed once per stored version), or None."""
        from wenshu.semantic.model import parse_model

        found = self.store.semantic.get(datasource) if hasattr(self.store, "semantic") else None
        if found is None:
            return None
        if self._semantic.get(datasource, (None,))[0] != found.version:
            self._semantic[datasource] = (found.version, parse_model(found.body))
        return self._semantic[datasource][1]

    def ask(self, request: AgentRequest, on_event: EventCallback | None = None) -> AgentResponse:
        t0 = time.perf_counter()
        question = (request.message or "").strip()
        lang = detect_lang(question)
        if not question:
            raise EmptyQuestion()
        ds_name = request.datasource or self.settings.default_datasource
        record = self.store.datasources.get(ds_name)
        first = self.answers.applies(request.conversation_id, request.plan)  # a first turn with no given plan
        entry = self.answers.lookup(self.answers.key(record, question, lang)) if first else None
        held = entry is not None  # a cached answer: its question is stored with the answer, in one transaction
        cid = self.conversations.open_turn(request, ds_name, question, store_question=not held)
        models = None if entry is not None else self.models()
        status = "error"
        state: dict = {}
        try:
            if entry is not None:
                response, state = self._replay(cid, question, entry, on_event, t0)
            else:
                response, state = self._run(request, record, cid, question, lang, models, on_event)
            status = state["meta"].get("status", "ok")
        except (KeyboardInterrupt, RunCancelled):  # Ctrl-C in the CLI, stop/disconnect in the server
            self.conversations.stopped(cid, question if held else None)
            self.audit.record(request, ds_name, cid, question, {}, "stopped", None, t0)
            raise
        except WenshuError as err:
            response = AgentResponse(conversation_id=cid, error=err.to_dict(lang), answer=err.message(lang),
                                     usage=usage_of(models.usage) if models is not None else Usage())
        if first and entry is None and status == "ok":
            self.answers.remember(record, question, lang, response, state)
        turn = (request, ds_name, cid, question, state, status, response, t0)
        if held:  # the question, the answer and the audit entry in one transaction
            response.message_id = self.conversations.close_turn(cid, response, status, question=question,
                                                                also=self.audit.writer(*turn))
        else:
            response.message_id = self.conversations.close_turn(cid, response, status)
            self.audit.record(*turn)
        return response

    def _run(self, request: AgentRequest, record, cid: str, question: str, lang: str, models: ModelClient,
             on_event: EventCallback | None) -> tuple[AgentResponse, dict]:
        """The graph's answer (checkpointed in the conversation's thread) and its final state."""
        ctx = AgentContext(
            settings=self.settings, models=models, validator=self.validator, recall=self.recall,
            catalogs=self.catalogs, datasource_url=record.url, cache=self.store.cache, on_event=on_event,
            policy=GuardPolicy.from_dict(record.options.get("policy")), semantic=self.semantic_model,
            nearby=self.nearby,
        )
        init = {
            # shorthand ("last wk", 上Q) read as spelled out; the conversation keeps the words as typed
            "query": {"question": expand(question), "lang": lang, "today": date.today().isoformat(),
                      "datasource": record.name, "plan": request.plan},
            "schema": {}, "sql": {}, "result": {}, "meta": {}, "trace": None,
        }
        state = self.graph.invoke(init, {"configurable": {"thread_id": cid}}, context=ctx, durability="exit")
        response = build_response(cid, state, models.usage)
        # a pending pair after a validation retry
        learn_from_turn(self.store, record.name, cid, state, state["meta"].get("status", "ok"))
        return response, state

    def _replay(self, cid: str, question: str, entry: dict, on_event: EventCallback | None,
                t0: float) -> tuple[AgentResponse, dict]:
        """A cached answer as this turn's: the conversation's graph memory gets the stored turn (so a follow-up
        builds on it as on a graph answer), the events and response say it came from the cache."""
        ms = round((time.perf_counter() - t0) * 1000, 1)
        response = replay(entry, cid, ms, on_event or (lambda _event: None))  # a stop raises before memory is kept
        turn = entry["turn"] | {"question": question}
        self.graph.update_state({"configurable": {"thread_id": cid}}, {"turns": [turn]}, as_node="explain")
        state = {"sql": {"sql": response.sql}, "meta": {"status": "ok"},
                 "trace": [step.model_dump() for step in response.trace]}
        return response, state

    def feedback(self, conversation_id: str, verdict: str, user_id: str | None = None) -> dict:
        """A user's verdict ("up" | "down") on the latest answer; "down" rejects the pair learned from it and,
        for a conversation's first answer, forgets the cached answer to its question."""
        out = record_feedback(self.store, conversation_id, verdict, user_id=user_id)
        if verdict != "down":
            return out
        questions = [m.content for m in self.store.conversations.messages(conversation_id) if m.role == "user"]
        try:
            record = self.store.datasources.get(self.store.conversations.get(conversation_id).datasource)
        except UnknownDatasource:  # removed since: nothing of it is looked up any more
            return out
        if len(questions) == 1:  # only a first turn's answer is ever cached
            self.answers.forget(record, questions[0])
        return out
