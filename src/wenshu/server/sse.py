"""Server-Sent Events: formatting, mapping agent events to stream events, and the stream itself.

Order (docs/api.md): a `queue` step (`node` started at once, finished when a worker takes the answer),
`progress` events while it waits (`{node: "queue", ahead}`: its new place in line) or while the model
prepares a datasource for the first time (`{node: "generate", stage: "prefix", done, total}`, then
`stage: "prefix_ready"`), then `node` events as the graph runs, interleaved with `token` (model output as it
streams) and `sql` (after the SQL passed validation; an answer from the answer cache has one `answer_cache` step,
`outcome: "cached"`, and its SQL after it); then `result`, `chart` (when there is one), `answer`, `error` (on
failure) and exactly one `done`. A `: ping` comment keeps an idle stream open.

The general assistant's stream (routes/assistant.py) is the same stream: its steps are `node` events
(`route`, `decide`, and `tool` with `{tool, arguments}` when it starts and `{tool, detail}` when it ends),
its answer's `token`s, a reasoning model's `thinking` (`{text}`, never part of the answer), and on the data
route the pipeline's own events; `answer.response` is then an AssistantResponse, whose `data` (the
pipeline's answer) gives the `result` and `chart` events.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import AsyncIterator
from typing import Any

from fastapi.responses import StreamingResponse

from wenshu.agent.answer_cache import NODE as ANSWER_CACHE_NODE
from wenshu.assistant.state import AssistantResponse
from wenshu.contracts import AgentResponse, Event
from wenshu.server.answers import owned_conversation, start_answer
from wenshu.server.runner import Answer, Run, Runner

PING = ": ping\n\n"
SSE_HEADERS = {"Cache-Control": "no-cache", "X-Accel-Buffering": "no"}


def format_event(kind: str, data: Any) -> str:
    return f"event: {kind}\ndata: {json.dumps(data, ensure_ascii=False, default=str)}\n\n"


class EventMapper:
    """Agent events -> stream events. The SQL is held back until validation lets it through."""

    def __init__(self) -> None:
        self._candidate: str | None = None

    def map(self, event: Event) -> list[tuple[str, dict]]:
        if event.type in ("token", "thinking"):
            return [(event.type, {"text": str(event.data or "")})]
        if event.type == "sql":
            self._candidate = str(event.data)
            return []
        if event.type == "progress":  # a new place in the queue; the model preparing a datasource's prefix
            return [("progress", {"node": event.node, **(event.data if isinstance(event.data, dict) else {})})]
        if event.type != "node":
            return []
        extra = event.data if isinstance(event.data, dict) else {}  # the queue's {ahead}, a tool's {tool, arguments}
        if event.status == "started":
            started = {"node": event.node, "status": "started"}
            return [("node", started | {k: v for k, v in extra.items() if k not in started})]
        finished = {"node": event.node, "status": "finished", "outcome": event.status, "ms": event.ms,
                    "detail": str(extra.get("detail", "") if extra else event.data or "")}
        out = [("node", finished | {k: v for k, v in extra.items() if k not in finished})]
        passed = (event.node, event.status) in (("validate", "ok"), (ANSWER_CACHE_NODE, "cached"))
        if passed and self._candidate:
            out.append(("sql", {"sql": self._candidate}))
            self._candidate = None
        return out


def final_events(run: Run, lang: str) -> list[tuple[str, dict]]:
    """What follows the graph's own events: result, chart, answer, error, done."""
    out: list[tuple[str, dict]] = []
    resp = run.response
    if run.status != "cancelled" and resp is not None:
        data = resp.data if isinstance(resp, AssistantResponse) else resp
        if isinstance(data, AgentResponse) and data.sql and data.error is None:
            out.append(("result", {"columns": data.columns, "rows": data.rows, "row_count": data.row_count,
                                   "truncated": data.truncated}))
        if isinstance(data, AgentResponse) and data.chart:
            out.append(("chart", {"spec": data.chart}))
        out.append(("answer", {"text": resp.answer, "response": resp.model_dump(mode="json")}))
        if resp.error is not None:
            out.append(("error", resp.error.model_dump()))
    if run.status != "cancelled" and run.error is not None:
        out.append(("error", run.error.to_dict(lang)))
    status = {"cancelled": "stopped", "done": "ok"}.get(run.status, "error")
    out.append(("done", {"conversation_id": run.conversation_id, "message_id": run.message_id, "status": status}))
    return out


class StreamBridge:
    """Carries a worker thread's sink calls into the event loop of the streaming response."""

    def __init__(self) -> None:
        self.loop = asyncio.get_running_loop()
        self.queue: asyncio.Queue[tuple[str, Any]] = asyncio.Queue()

    def sink(self, kind: str, item: Any) -> None:
        try:
            self.loop.call_soon_threadsafe(self.queue.put_nowait, (kind, item))
        except RuntimeError:  # the loop is gone (server shutting down); the run is being cancelled
            pass

    async def events(self, quiet_s: float) -> AsyncIterator[Event | None]:
        """The run's events as they come, None after each `quiet_s` without one; ends with the run.
        Events already queued are taken without a timer (one less task per event for the loop)."""
        while True:
            try:
                kind, item = self.queue.get_nowait()
            except asyncio.QueueEmpty:
                try:
                    kind, item = await asyncio.wait_for(self.queue.get(), timeout=quiet_s)
                except TimeoutError:
                    yield None
                    continue
            if kind == "end":
                return
            yield item


async def stream_run(run: Run, bridge: StreamBridge, runner: Runner, lang: str, ping_s: float) -> AsyncIterator[str]:
    """The event stream of one run. Leaving early (client gone) cancels the run."""
    mapper = EventMapper()
    try:
        async for event in bridge.events(ping_s):
            if event is None:
                yield PING
                continue
            for name, data in mapper.map(event):
                yield format_event(name, data)
        for name, data in final_events(run, lang):
            yield format_event(name, data)
    finally:
        if not run.finished:
            runner.cancel(run)


def sse_route(description: str) -> dict:
    """The OpenAPI side of a route that answers with an event stream: `@router.post(path, **sse_route(...))`."""
    return {"response_class": StreamingResponse,
            "responses": {200: {"content": {"text/event-stream": {}}, "description": description}}}


def answer_stream(state, user, lang: str, conversation_id: str, message: str, datasource: str | None, *,
                  plan: dict | None = None, answer: Answer | None = None) -> StreamingResponse:
    """The event stream of a new answer in the user's conversation (by the pipeline, or by `answer`)."""
    owned_conversation(state, user, conversation_id)
    bridge = StreamBridge()
    run = start_answer(state, user, message, conversation_id, datasource, create_missing=False, sink=bridge.sink,
                       plan=plan, answer=answer)
    events = stream_run(run, bridge, state.runner, lang, state.settings.sse_ping_s)
    return StreamingResponse(events, media_type="text/event-stream", headers=SSE_HEADERS)
