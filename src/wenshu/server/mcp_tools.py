"""What `wenshu mcp serve` does for a caller: `ask` (the data pipeline), `recall` (the tables, columns and
values a question touches) and `run_sql` (a person's read-only SQL through the one checked run path).

Each takes the caller (`server.auth.Principal`) and a datasource, which must be granted to the caller, as in
the HTTP API. Results are plain JSON-ready dicts; failures are WenshuErrors (the MCP layer turns them into
tool errors with the stable code)."""

from __future__ import annotations

import json
import threading

from wenshu.contracts import AgentRequest
from wenshu.errors import EmptyQuestion, InputError, WenshuError
from wenshu.i18n import detect_lang
from wenshu.server.auth import Principal
from wenshu.server.deps import require_datasource
from wenshu.settings import Settings

MAX_ROWS = 50  # rows returned to an MCP client; row_count says how many the query gave


def _plain(rows: list) -> list:
    """Rows with every value JSON can carry (dates and decimals as text)."""
    return json.loads(json.dumps(rows[:MAX_ROWS], ensure_ascii=False, default=str))


class DataTools:
    def __init__(self, settings: Settings, store, *, models=None):
        self.settings, self.store, self._models = settings, store, models
        self._agent = None
        self._lock = threading.Lock()

    @property
    def agent(self):
        """The Agent, built on first use (a model is loaded only when `ask` needs one)."""
        with self._lock:
            if self._agent is None:
                from wenshu.agent.service import Agent

                self._agent = Agent(self.settings, self.store, models=self._models)
            return self._agent

    def _granted(self, caller: Principal, datasource: str | None):
        return require_datasource(self.store, caller, datasource or self.settings.default_datasource)

    @staticmethod
    def _text(value: str | None) -> str:
        text = (value or "").strip()
        if not text:
            raise EmptyQuestion()
        return text

    def ask(self, caller: Principal, question: str, datasource: str | None = None) -> dict:
        question = self._text(question)
        record = self._granted(caller, datasource)
        resp = self.agent.ask(AgentRequest(message=question, datasource=record.name, user_id=caller.user_id))
        if resp.error:
            raise WenshuError(resp.error.message, resp.error.message, code=resp.error.code)
        return {"answer": resp.answer, "sql": resp.sql, "columns": resp.columns, "rows": _plain(resp.rows),
                "row_count": resp.row_count, "truncated": resp.truncated, "datasource": record.name}  # fmt: skip

    def recall(self, caller: Principal, question: str, datasource: str | None = None) -> dict:
        from wenshu.knowledge.sync import current_catalog

        question = self._text(question)
        record = self._granted(caller, datasource)
        result = self.agent.recall.recall(question, current_catalog(self.store, record.name, record.url))
        return {**result.to_dict(), "datasource": record.name}

    def run_sql(self, caller: Principal, sql: str, datasource: str | None = None) -> dict:
        from wenshu.agent.sql_service import run_checked

        if not (sql or "").strip():
            raise InputError("Give the SQL to run.", "请提供要运行的 SQL。", code="empty_sql")
        record = self._granted(caller, datasource)
        out = run_checked(self.settings, self.store, sql, record.name)
        return {"sql": out.sql, "columns": out.columns, "rows": _plain(out.rows), "row_count": out.row_count,
                "truncated": out.truncated, "datasource": record.name}  # fmt: skip


def lang_of(text: str | None) -> str:
    return detect_lang(text or "") if text else "en"
