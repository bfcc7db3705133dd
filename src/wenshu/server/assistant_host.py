"""The server's general assistant (wenshu.assistant), opened on the first request that asks for it.

It shares the server's Agent (so data questions run exactly as through the data pipeline) and knowledge base;
its MCP servers start on the first request routed to the agent loop and stop when the server does. Runs go
through the same runner as the pipeline's answers: one answer per conversation, the queue, stop, metrics.
"""

from __future__ import annotations

import threading

from wenshu.contracts import AgentRequest
from wenshu.errors import WenshuError


class ServerAssistant:
    def __init__(self, settings, store, agent, kb):
        self.settings, self.store, self.agent, self.kb = settings, store, agent, kb
        self._assistant = None
        self._lock = threading.Lock()

    def get(self):
        """The Assistant, opened once."""
        with self._lock:
            if self._assistant is None:
                from wenshu.assistant.service import Assistant

                try:
                    kb = self.kb.get()
                except WenshuError:  # no embedder: no documents to search
                    kb = None
                self._assistant = Assistant(self.settings, self.store, agent=self.agent, kb=kb)
            return self._assistant

    def answer(self, request: AgentRequest, on_event=None, workspace=None):
        """A runner's answer (`Runner.submit(answer=...)`): the request through the assistant, in its conversation;
        with `workspace` (a folder already checked against `workspace_roots`) its workspace tools work there."""
        return self.get().ask(request.message, datasource=request.datasource, conversation_id=request.conversation_id,
                              user_id=request.user_id, on_event=on_event, workspace=workspace)

    def close(self) -> None:
        """Stop the MCP servers the assistant started."""
        with self._lock:
            if self._assistant is not None:
                self._assistant.close()

