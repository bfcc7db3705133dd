"""The assistant service: a request in, an AssistantResponse out, around one compiled graph.

Per request the host (not the model) selects at most two skills and five tools by retrieval over their
descriptions (assistant/offer.py), routes by rules (assistant/route.py; a data question another tool fits
plainly better goes to the agent; one too wide for one query to its sub-questions, assistant/wide.py) and,
on the agent route, lets the model choose among what it was offered, one step at a time (JSON under a
schema, or an endpoint's native tool call). The tools of the configured MCP servers (WENSHU_HOME/mcp.json)
join the built-in ones on the agent route; their servers start on the first request that needs them and
stay connected for the assistant's life (`close` stops them); once started, their tools also weigh in on
routing. A server that cannot be used is left out
with a warning. A search tool among them (setting `web_search`, else the first `*search` tool taking a
`query`) is offered as `web_search`: expanded into three queries, run in parallel, merged (wenshu.search).

With a conversation id the turn joins that conversation (assistant/memory.py): stored like a data turn, and
seen by the next one. With `on_event` the steps stream out as they happen (assistant/stream.py): `route`,
then on the data route the pipeline's own events, on the agent route `decide`, `tool` and the answer's tokens.
"""

from __future__ import annotations

import time
from functools import partial
from pathlib import Path

from wenshu.agent.response import usage_of
from wenshu.agent.service import Agent
from wenshu.agent.vocabulary import Vocabulary
from wenshu.assistant.audit import audit_turn
from wenshu.assistant.documents import citations, offer_documents, open_documents, plain_answer, says_not_found
from wenshu.assistant.graph import AssistantContext, build_assistant_graph
from wenshu.assistant.memory import AssistantTurns, history_block
from wenshu.assistant.route import DOCUMENTS_FIRST, needs_tool, route_reason
from wenshu.assistant.source import choose_source, data_described, lists_rows
from wenshu.assistant.state import AssistantResponse, AssistantStep
from wenshu.assistant.offer import a_tool_fits, another_tool_fits, leads, offer, ranked
from wenshu.assistant.tools import (Tool, data_terms, mcp_tools, query_database_tool, web_search_tool,
                                    workspace_context, workspace_tools)
from wenshu.assistant.wide import DataAnswers, add_usage, parts_usage
from wenshu.contracts import AgentRequest, AgentResponse, ErrorInfo, Event
from wenshu.errors import EmptyQuestion, RunCancelled, WenshuError
from wenshu.i18n import detect_lang
from wenshu.kb.crosslingual import Translation
from wenshu.mcp.client import McpHub
from wenshu.search.web import McpSearch, WebSearch, find_search_tool
from wenshu.semantic.asking import asked_over_period, asks_the_data, names_a_measure
from wenshu.semantic.split import sub_questions
from wenshu.settings import Settings
from wenshu.skills.library import SkillLibrary
from wenshu.skills.select import scored
from wenshu.workspace.paths import Root

MAX_SKILLS = 2


class Assistant:
    def __init__(self, settings: Settings, store, *, agent: Agent | None = None, models=None,
                 project_dir: Path | None = None, mcp: McpHub | None = None, kb=None):
        self.settings, self.store = settings, store
        self.agent = agent or Agent(settings, store, models=models)
        self.kb = kb or open_documents(settings, store.engine, getattr(self.agent.recall, "embedder", None))
        self.skills = SkillLibrary(settings.skills_dir, project_dir=project_dir)
        self.graph = build_assistant_graph(settings.assistant_max_steps)
        self.turns = AssistantTurns(store)
        self.mcp = mcp if mcp is not None else McpHub.from_file(
            settings.mcp_config_path, timeout_s=settings.mcp_timeout_s, connect_timeout_s=settings.mcp_connect_timeout_s)

    def close(self) -> None:
        """Stop the MCP servers this assistant started."""
        self.mcp.close()

    def __enter__(self) -> Assistant:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _datasource_words(self, datasource: str, request: str = "",
                          following: bool = False) -> tuple[Vocabulary | None, list[str], list]:
        """The datasource's vocabulary, (the first 40 of) its tables' names and, when the request may follow a data
        answer, the values it names (the value index)."""
        from wenshu.knowledge.sync import current_catalog

        try:
            catalog = current_catalog(self.store, datasource)
        except WenshuError:
            return None, [], []
        values = self.agent.recall.named_values(request, catalog) if following else []
        return Vocabulary.of(catalog, self.agent.semantic_model(datasource)), [t.name for t in catalog.tables[:40]], values

    def prepare(self, request: str, *, workspace: str | Path | None = None, datasource: str | None = None,
                conversation_id: str | None = None, user_id: str = "local", on_event=None
                ) -> tuple[str, AssistantContext]:
        """(route, context) of a request: the skills and tools the host offers, the route the rules choose.
        The conversation's earlier turns are its memory, and documents search reads a follow-up with them."""
        ds = datasource or self.settings.default_datasource
        embedder = getattr(self.agent.recall, "embedder", None)
        good, _ = self.skills.scan()
        picked = scored(request, list(good.values()), k=MAX_SKILLS, embedder=embedder)
        skills = [s for _, s in picked]

        def ask_data(question: str) -> AgentResponse:
            """A sub-question (query_database): a step of this turn, not a conversation of the user's. The
            pipeline stores every answer in a conversation; that one is dropped (the audit log keeps it)."""
            resp = self.agent.ask(AgentRequest(message=question, datasource=ds, user_id=user_id))
            self.store.conversations.delete(resp.conversation_id, user_id=user_id)
            return resp

        def ask_here(question: str) -> AgentResponse:  # the request itself, in this conversation, streamed
            return self.agent.ask(AgentRequest(message=question, datasource=ds, conversation_id=conversation_id,
                                               user_id=user_id), on_event=on_event)  # fmt: skip

        earlier = self.turns.earlier(conversation_id, user_id)
        models = self.agent.models()
        translated = Translation()  # made below when the first step searches the documents
        documents = offer_documents(self.kb, request, earlier=tuple(t.question for t in earlier), translate=translated,
                                    key_sentences=self.settings.kb_key_sentences)
        follows_data = bool(earlier) and earlier[-1].data
        vocabulary, tables, values = self._datasource_words(ds, request, follows_data)
        context = f"The database holds the tables: {', '.join(tables)}." if tables else ""
        semantic = self.agent.semantic_model(ds)
        over_period = asked_over_period(semantic, request)  # "上周的退款金额" is data, though a refund rule is near
        strong_docs = documents.strong and not over_period
        commands = self.settings.workspace_commands if workspace is not None else []
        best, score = (picked[0][1], picked[0][0]) if picked else (None, None)
        way, why = route_reason(request, workspace=workspace is not None, skill_score=score, vocabulary=vocabulary,
                                documents=strong_docs, documents_found=documents.found,
                                measure_read=documents.found and names_a_measure(semantic, request),
                                data_asked=not documents.found or asks_the_data(semantic, request),
                                over_period=over_period,
                                follows_data=follows_data, values=values, commands=commands)  # fmt: skip
        unsure = (way, why) == ("data", "data") and documents.found and not over_period  # (assistant/source.py)
        unsure = unsure and not lists_rows(semantic, request)
        if unsure and self.settings.assistant_source_model and choose_source(
                models, request, data=data_described(semantic, tables), documents=documents.listing, label=ds,
                nearest=documents.nearest) == "documents":
            way, why = "agent", "source"
        data = DataAnswers(ask_data, partial(sub_questions, semantic), on_event or (lambda event: None))
        tools, warnings = self._tools(way, data, documents.tools, workspace, semantic)
        ranking = ranked(request, tools, embedder)
        act_first = way == "agent" and (why in DOCUMENTS_FIRST or a_tool_fits(ranking) or needs_tool(
            request, workspace=workspace is not None, skill=best, skill_score=score, documents=strong_docs,
            commands=commands))  # fmt: skip
        if way == "data" and another_tool_fits(ranking):  # words of the data, but another tool's task
            way, why, act_first = "agent", "tool", True
        subs = data.split(request) if way == "data" else []
        way = "wide" if subs else way  # a data question too wide for one query: its sub-questions (assistant/wide.py)
        context = "\n".join(c for c in (context, documents.context,
                                         workspace_context(Root(workspace)) if workspace is not None else "") if c)
        history = history_block(earlier, self.settings.assistant_history_tokens)
        offered = offer(ranking, [n for k in skills for n in k.tools])
        documents_first = why in DOCUMENTS_FIRST and leads(ranking, "search_documents") and any(
            t.name == "search_documents" for t in offered)
        if documents_first and self.settings.kb_translate_queries:
            translated.fill(models, request)
        return way, AssistantContext(models=models, tools=offered, reason=why,
                                     skills=skills, context=context, data=data, sub_questions=subs, ask_here=ask_here,
                                     act_first=act_first, max_steps=self.settings.assistant_max_steps,
                                     first_tool="search_documents" if documents_first else "",
                                     thinking_tokens=self.settings.assistant_thinking_tokens,
                                     warnings=warnings, passages=documents.passages, embedder=embedder,
                                     judge_found=self.settings.kb_judge_found,
                                     request_last=self.settings.assistant_request_last,
                                     on_event=on_event,
                                     history=history)  # fmt: skip

    def _tools(self, way: str, data: DataAnswers, documents: list[Tool], workspace, semantic
               ) -> tuple[list[Tool], list]:
        """Every tool this request may be offered (the host then picks five), and the MCP servers left out."""
        tools = [query_database_tool(data, data_terms(semantic)), *documents]
        if workspace is not None:
            s = self.settings
            tools += workspace_tools(Root(workspace), allowlist=s.workspace_commands,
                                     timeout_s=s.workspace_command_timeout_s, path=s.workspace_path)  # fmt: skip
        warnings: list[WenshuError] = []
        if way == "agent":  # MCP servers start only for a request that may call a tool
            listed, warnings = self.mcp.tools()
        else:  # routing weighs the tools of servers already started; a data question starts none
            listed = self.mcp.known() if way != "direct" else []
        searcher = find_search_tool(listed, self.settings.web_search)
        if listed:
            tools += mcp_tools(self.mcp, exclude=searcher, listed=listed)
            if searcher is not None:  # the web search tool stands in for the raw one: expanded, merged
                tools.append(web_search_tool(WebSearch(McpSearch(self.mcp, searcher),
                                                       max_results=self.settings.web_search_results)))
        return tools, warnings

    def ask(self, message: str, *, workspace: str | Path | None = None, datasource: str | None = None,
            conversation_id: str | None = None, user_id: str = "local", on_event=None) -> AssistantResponse:
        """Answer one request; with `conversation_id` in that conversation (created when new), else in a new one."""
        request = (message or "").strip()
        if not request:
            raise EmptyQuestion()
        lang = detect_lang(request)
        emit = on_event or (lambda event: None)
        emit(Event(type="node", node="route", status="started"))
        t0 = time.perf_counter()
        way, ctx = self.prepare(request, workspace=workspace, datasource=datasource, conversation_id=conversation_id,
                                user_id=user_id, on_event=on_event)  # fmt: skip
        route_ms = round((time.perf_counter() - t0) * 1000, 1)
        emit(Event(type="node", node="route", status="ok", ms=route_ms, data={"detail": way, "reason": ctx.reason}))
        cid, ds = None, datasource or self.settings.default_datasource
        if way != "data":  # the pipeline stores and audits a data turn itself (a wide one is several: here)
            cid = self.turns.open(AgentRequest(message=request, conversation_id=conversation_id, user_id=user_id,
                                               datasource=ds), ds, request)  # fmt: skip
        audit = partial(audit_turn, self.store.audit, user_id=user_id, conversation_id=cid, datasource=ds,
                        question=request, route=way, route_reason=ctx.reason, steps=ctx.called, route_ms=route_ms,
                        started=t0)  # fmt: skip
        try:
            state = self.graph.invoke({"request": request, "lang": lang, "route": way, "steps": [], "repairs": 0,
                                       "trace": []}, context=ctx)  # fmt: skip
            resp = self._response(state, way, ctx, lang)
        except (KeyboardInterrupt, RunCancelled):  # Ctrl-C in the CLI, stop/disconnect in the server
            if cid is not None:
                self.turns.stopped(cid)
                audit(status="stopped")
            raise
        except WenshuError as err:  # the model failed or timed out: the turn ends with the error, stored
            if cid is None:
                raise
            resp = self._response({"answer": err.message(lang), "status": "error"}, way, ctx, lang)
            resp.error = ErrorInfo(**err.to_dict(lang))
        if cid is not None:
            resp.conversation_id, resp.message_id = cid, self.turns.close(cid, resp)
            audit(status=resp.status, error=resp.error)
        elif resp.data is not None:
            resp.conversation_id, resp.message_id = resp.data.conversation_id, resp.data.message_id
        return resp

    @staticmethod
    def _response(state: dict, way: str, ctx: AssistantContext, lang: str) -> AssistantResponse:
        data = AgentResponse(**state["data"]) if state.get("data") else None
        parts = ctx.data.parts if ctx.data is not None else []
        usage = add_usage(usage_of(ctx.models.usage), data.usage if data is not None else parts_usage(parts))
        return AssistantResponse(
            answer=plain_answer(state.get("answer", ""), lang), route=way, route_reason=ctx.reason,
            status=state.get("status", "ok"),
            steps=[AssistantStep(**s) for s in state.get("steps") or []], tools=[t.name for t in ctx.tools],
            skills=[s.name for s in ctx.skills], data=data, usage=usage,
            citations=citations(ctx.passages, state.get("answer", ""), ctx.embedder)
            if state.get("status") != "error" and not says_not_found(state.get("answer", "")) else [],
            parts=parts,
            error=data.error if data is not None and data.error else (
                ErrorInfo(code="unfinished", message=state.get("answer", "")) if state.get("status") == "fallback"
                else None),
            warnings=[ErrorInfo(code=w.code, message=w.message(lang)) for w in ctx.warnings],
        )

