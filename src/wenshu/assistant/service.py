"""The assistant service: a request in, an AssistantResponse out, around one compiled graph.

Per request the host (not the model) selects at most two skills and five tools by retrieval over their
descriptions, routes by rules (assistant/route.py) and, on the agent route, lets the model choose among
what it was offered, one JSON step at a time. The tools of the configured MCP servers (WENSHU_HOME/mcp.json)
join the built-in ones on the agent route; their servers start on the first request that needs them and
stay connected for the assistant's life (`close` stops them). A server that cannot be used is left out
with a warning. A search tool among them (setting `web_search`, else the first `*search` tool taking a
`query`) is offered as `web_search`: expanded into three queries, run in parallel, merged (wenshu.search).
"""

from __future__ import annotations

from pathlib import Path

from wenshu.agent.response import usage_of
from wenshu.agent.service import Agent
from wenshu.agent.vocabulary import Vocabulary
from wenshu.assistant.documents import citations, offer_documents, open_documents
from wenshu.assistant.graph import AssistantContext, build_assistant_graph
from wenshu.assistant.route import route
from wenshu.assistant.state import AssistantResponse, AssistantStep
from wenshu.assistant.tools import mcp_tools, query_database_tool, web_search_tool, workspace_tools
from wenshu.contracts import AgentRequest, AgentResponse, ErrorInfo
from wenshu.errors import EmptyQuestion, WenshuError
from wenshu.i18n import detect_lang
from wenshu.mcp.client import McpHub
from wenshu.search.web import McpSearch, WebSearch, find_search_tool
from wenshu.settings import Settings
from wenshu.skills.library import SkillLibrary
from wenshu.skills.select import scored, select
from wenshu.workspace.paths import Root

MAX_TOOLS = 5
MAX_SKILLS = 2


class Assistant:
    def __init__(self, settings: Settings, store, *, agent: Agent | None = None, models=None,
                 project_dir: Path | None = None, mcp: McpHub | None = None, kb=None):
        self.settings, self.store = settings, store
        self.agent = agent or Agent(settings, store, models=models)
        self.kb = kb or open_documents(settings, store.engine, getattr(self.agent.recall, "embedder", None))
        self.skills = SkillLibrary(settings.skills_dir, project_dir=project_dir)
        self.graph = build_assistant_graph(settings.assistant_max_steps)
        self.mcp = mcp if mcp is not None else McpHub.from_file(
            settings.mcp_config_path, timeout_s=settings.mcp_timeout_s, connect_timeout_s=settings.mcp_connect_timeout_s)

    def close(self) -> None:
        """Stop the MCP servers this assistant started."""
        self.mcp.close()

    def __enter__(self) -> Assistant:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def _datasource_words(self, datasource: str) -> tuple[Vocabulary | None, str]:
        from wenshu.knowledge.sync import current_catalog

        try:
            catalog = current_catalog(self.store, datasource)
        except WenshuError:
            return None, ""
        names = ", ".join(t.name for t in catalog.tables[:40])
        return Vocabulary.of(catalog, self.agent.semantic_model(datasource)), f"The database holds the tables: {names}."

    def prepare(self, request: str, *, workspace: str | Path | None = None, datasource: str | None = None,
                earlier: tuple[str, ...] = ()) -> tuple[str, AssistantContext]:
        """(route, context) of a request: the skills and tools the host offers, the route the rules choose.
        `earlier`: the conversation's earlier user questions, oldest first (documents search reads a
        follow-up with them)."""
        ds = datasource or self.settings.default_datasource
        embedder = getattr(self.agent.recall, "embedder", None)
        good, _ = self.skills.scan()
        picked = scored(request, list(good.values()), k=MAX_SKILLS, embedder=embedder)
        skills = [s for _, s in picked]

        def ask_data(question: str) -> AgentResponse:
            return self.agent.ask(AgentRequest(message=question, datasource=ds))

        documents = offer_documents(self.kb, request, earlier=tuple(earlier))
        vocabulary, context = self._datasource_words(ds)
        way = route(request, workspace=workspace is not None, skill_score=picked[0][0] if picked else None,
                    vocabulary=vocabulary, documents=documents.strong)  # fmt: skip
        context = "\n".join(c for c in (context, documents.context) if c)
        tools = [query_database_tool(ask_data), *documents.tools]
        if workspace is not None:
            s = self.settings
            tools += workspace_tools(Root(workspace), allowlist=s.workspace_commands,
                                     timeout_s=s.workspace_command_timeout_s, path=s.workspace_path)  # fmt: skip
        warnings: list[WenshuError] = []
        if way == "agent":  # MCP servers start only for a request that may call a tool
            listed, warnings = self.mcp.tools()
            searcher = find_search_tool(listed, self.settings.web_search)
            tools += mcp_tools(self.mcp, exclude=searcher)
            if searcher is not None:  # the web search tool stands in for the raw one: expanded, merged
                tools.append(web_search_tool(WebSearch(McpSearch(self.mcp, searcher),
                                                       max_results=self.settings.web_search_results)))
        offered = select(request, tools, k=MAX_TOOLS, embedder=embedder, floor=float("-inf"))  # the best five, always
        return way, AssistantContext(models=self.agent.models(), tools=offered, skills=skills, context=context,
                                     ask=ask_data, max_steps=self.settings.assistant_max_steps,
                                     warnings=warnings, passages=documents.passages)  # fmt: skip

    def ask(self, message: str, *, workspace: str | Path | None = None, datasource: str | None = None,
            earlier: tuple[str, ...] = ()) -> AssistantResponse:
        request = (message or "").strip()
        if not request:
            raise EmptyQuestion()
        lang = detect_lang(request)
        way, ctx = self.prepare(request, workspace=workspace, datasource=datasource, earlier=earlier)
        models, offered, skills = ctx.models, ctx.tools, ctx.skills
        state = self.graph.invoke({"request": request, "lang": lang, "route": way, "steps": [], "repairs": 0},
                                  context=ctx)  # fmt: skip
        data = AgentResponse(**state["data"]) if state.get("data") else None
        usage = usage_of(models.usage)
        if data is not None:
            usage = data.usage
        return AssistantResponse(
            answer=state.get("answer", ""), route=way, status=state.get("status", "ok"),
            steps=[AssistantStep(**s) for s in state.get("steps") or []], tools=[t.name for t in offered],
            skills=[s.name for s in skills], data=data, usage=usage,
            citations=citations(ctx.passages, state.get("answer", "")),
            error=data.error if data is not None and data.error else (
                ErrorInfo(code="unfinished", message=state.get("answer", "")) if state.get("status") == "fallback"
                else None),
            warnings=[ErrorInfo(code=w.code, message=w.message(lang)) for w in ctx.warnings],
        )
